"""Live updates of series (issues 16 and 22, docs/live.md): what a series action writes to the event
log (in its own transaction, naming its players), who is told, and what its SSE stream and
pages carry."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games import live
from games import services_series as svc
from games.errors import ServiceError
from games.models import LiveEvent
from games.models_series import SeriesGame

from .factories import PASSWORD, make_game, make_user
from .series_play import engine_now, play

pytestmark = pytest.mark.django_db



def series_events(series_id: int, keep: tuple[str, ...] = ("action", "ply", "seats")) -> list[dict]:
    """The series' events, each with the keys ``keep`` it has."""
    return [{k: v for k, v in e.data.items() if k in keep}
            for e in LiveEvent.objects.filter(kind="series", series_id=series_id).order_by("pk")]


def logged_in(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_the_lobby_actions_write_their_event_in_their_transaction(django_capture_on_commit_callbacks):
    ann, bob, cid, dee = (make_user(n) for n in ("ann", "bob", "cid", "dee"))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        series = svc.series_create(user=ann, seats=4)
    assert not callbacks, "nothing waits for the commit: the event is one of the action's writes"
    assert series_events(series.pk) == [{"action": "open", "ply": 0, "seats": 1}]
    svc.series_join(user=bob, series_id=series.pk)
    svc.series_join(user=cid, series_id=series.pk)
    svc.series_leave(user=cid, series_id=series.pk)
    svc.series_join(user=dee, series_id=series.pk)
    with pytest.raises(ServiceError):
        svc.series_join(user=dee, series_id=series.pk)  # refused: nothing written
    svc.series_start(user=ann, series_id=series.pk, rng=random.Random(4))
    events = series_events(series.pk, ("action", "seats", "rev", "users"))
    assert [(e["action"], e.get("seats")) for e in events] == [
        ("open", 1), ("seats", 2), ("seats", 3), ("seats", 2), ("seats", 3), ("start", None)]
    revs = [e["rev"] for e in events if "rev" in e]
    assert revs == sorted(revs) and len(set(revs)) == len(revs), "the seats' revision only moves on"
    assert [set(e["users"]) for e in events] == [
        {ann.pk}, {ann.pk, bob.pk}, {ann.pk, bob.pk, cid.pk}, {ann.pk, bob.pk}, {ann.pk, bob.pk, dee.pk},
        {ann.pk, bob.pk, dee.pk}], "each event names the players seated after it"
    row = LiveEvent.objects.filter(kind="series").latest("pk")
    series.refresh_from_db()
    seats = svc.playing_seats(list(series.seats.order_by("index")))
    assert (row.series_id, row.game_id, row.data["ply"]) == (series.pk, None, 0)
    assert row.data["to_move"] == seats[series.to_move].user_id and row.data["turn_passed"] is True


def test_a_refused_or_failed_series_action_leaves_no_event():
    """The event is written with the action: an action refused before, or failing after, its
    writes leaves none (the transaction is rolled back with it)."""
    ann = make_user("ann")
    series = svc.series_create(user=ann, seats=3)
    before = LiveEvent.objects.count()
    with pytest.raises(ServiceError):
        svc.series_cancel(user=make_user("bob"), series_id=series.pk)
    assert LiveEvent.objects.count() == before
    from unittest import mock

    with mock.patch.object(svc.SeriesGame, "save", side_effect=RuntimeError("disk full")), \
            pytest.raises(RuntimeError):
        svc.series_cancel(user=ann, series_id=series.pk)
    assert LiveEvent.objects.count() == before
    series.refresh_from_db()
    assert series.status == SeriesGame.Status.OPEN


def test_a_cancel_is_written(django_capture_on_commit_callbacks):
    ann = make_user("ann")
    series = svc.series_create(user=ann, seats=3)
    svc.series_cancel(user=ann, series_id=series.pk)
    assert [e["action"] for e in series_events(series.pk)] == ["open", "cancel"]
    series.refresh_from_db()
    assert series.status == SeriesGame.Status.CANCELLED


def _started(django_capture_on_commit_callbacks, seats: int = 3) -> tuple[SeriesGame, list]:
    users = [make_user(f"p{i}") for i in range(seats)]
    with django_capture_on_commit_callbacks(execute=True):
        series = svc.series_create(user=users[0], seats=seats)
        for user in users[1:]:
            svc.series_join(user=user, series_id=series.pk, rng=random.Random(7))
    series.refresh_from_db()
    assert series.status == SeriesGame.Status.ACTIVE
    return series, users


def test_every_action_of_a_series_is_one_insert_with_its_new_ply_until_the_finish(
        django_capture_on_commit_callbacks):
    series, users = _started(django_capture_on_commit_callbacks)
    LiveEvent.objects.all().delete()
    series, seats, engine = engine_now(series.pk)
    mover = svc.playing_seats(seats)[series.to_move]
    cell = engine.race.free_start_cells()[0]
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=False):
        svc.series_place(user=mover.user, series_id=series.pk, ply=series.ply, cell=cell, heading=0)
    inserts = [q["sql"] for q in queries.captured_queries if "games_liveevent" in q["sql"]]
    assert len(inserts) == 1 and inserts[0].startswith("INSERT"), "publishing is one INSERT"
    series.refresh_from_db()
    [event] = LiveEvent.objects.filter(kind="series", series_id=series.pk)
    assert {k: event.data[k] for k in ("action", "ply")} == {"action": "move", "ply": 1}
    assert set(event.data["users"]) == {u.pk for u in users}
    assert event.data["to_move"] == svc.playing_seats(seats)[series.to_move].user_id
    assert event.data["turn_passed"] is True, "placing passes the turn on"
    # a refused action (not your turn, a stale ply) writes nothing
    other = next(s for s in svc.playing_seats(seats) if s.index != series.to_move)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ServiceError):
        svc.series_roll(user=other.user, series_id=series.pk, ply=series.ply, choice=None)
    assert len(series_events(series.pk)) == 1
    # a resignation (out of turn, R18) and the rest of the series
    with django_capture_on_commit_callbacks(execute=True):
        svc.series_resign(user=other.user, series_id=series.pk)
        finished = play(series.pk, seed=3)
    events = series_events(series.pk)
    assert events[1] == {"action": "move", "ply": 2}
    plies = [e["ply"] for e in events]
    assert plies == sorted(plies) and len(set(plies)) == len(plies), "one event per action, in order"
    assert [e["action"] for e in events].count("finish") == 1 and events[-1] == {"action": "finish",
                                                                                 "ply": finished.ply}
    last = LiveEvent.objects.filter(kind="series", series_id=series.pk).latest("pk")
    assert "to_move" not in last.data, "a finished series has no player to move"


def test_who_is_told_of_a_series_event():
    event = LiveEvent(pk=9, kind="series", series_id=4, data={"action": "move", "ply": 3, "users": [7, 8, 9],
                                                              "to_move": 8, "turn_passed": True})
    assert live.Channel(series_id=4).concerns(event) and not live.Channel(series_id=5).concerns(event)
    assert live.Channel(series_lobby=True).concerns(event)
    # the two-player pages and a game with the same id are not; its players' own streams are
    assert not live.Channel(game_id=4).concerns(event)
    assert not live.Channel(lobby=True).concerns(event) and not live.Channel(user_id=4, lobby=True).concerns(event)
    assert live.Channel(user_id=8).concerns(event) and live.Channel(user_id=7, lobby=True).concerns(event)
    # the API's user stream: the player to move is told it is their turn, the others nothing
    assert live.user_event_json(event, 8) == {"type": "yourTurn", "id": 9, "series": {"id": 4, "ply": 3}}
    assert live.user_event_json(event, 7) is None and live.user_event_json(event, 4) is None
    start = LiveEvent(pk=10, kind="series", series_id=4, data={"action": "start", "ply": 0, "users": [7, 8]})
    finish = LiveEvent(pk=11, kind="series", series_id=4, data={"action": "finish", "ply": 80, "users": [7, 8]})
    assert live.user_event_json(start, 7) == {"type": "seriesStart", "id": 10, "series": {"id": 4, "ply": 0}}
    start.data.update(to_move=8, turn_passed=True)
    assert [x["type"] for x in live.user_event_lines(start, 8)] == ["seriesStart", "yourTurn"]
    assert [x["type"] for x in live.user_event_lines(start, 7)] == ["seriesStart"]
    assert live.user_event_lines(start, 4) == [], "not a player of it"
    assert live.user_event_json(finish, 8) == {"type": "seriesFinish", "id": 11, "series": {"id": 4, "ply": 80}}
    # an event names its players for the server only: the page's stream does not carry them
    assert "users" not in live.event_json(event)
    move = LiveEvent(pk=12, kind="move", game_id=4, user_a=1, user_b=2, data={"ply": 1})
    assert not live.Channel(series_id=4).concerns(move) and not live.Channel(series_lobby=True).concerns(move)
    assert live.event_json(event)["series"] == 4 and live.event_json(event)["type"] == "series"
    # the hub files the players' streams under their keys: the event is offered to them
    assert ("user", 8) in live.keys_of(event) and ("series", 4) in live.keys_of(event)


def test_the_series_stream_carries_its_events_only(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game()  # a two-player game's events are not on a series' stream
    series, _users = _started(django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        play(series.pk, seed=5, stop=lambda engine: engine.ply >= 2)
    response = Client().get(f"/events/series/{series.pk}/", HTTP_LAST_EVENT_ID="0")
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    body = response.content.decode()
    assert body.startswith("retry: 1000\n") and body.count("event: series\n") == len(series_events(series.pk))
    assert f'"series":{series.pk}' in body and '"action":"start"' in body and '"action":"move"' in body
    assert "event: move\n" not in body and f'"game":{game.pk}' not in body
    lobby = Client().get("/events/series/", HTTP_LAST_EVENT_ID="0").content.decode()
    assert lobby.count("event: series\n") == LiveEvent.objects.filter(kind="series").count()
    assert "event: move\n" not in lobby and "event: start\n" not in lobby
    missing = Client().get("/events/series/999999/")
    assert missing.status_code == 404 and missing.json()["field"] == "series"
    refused = Client().get(f"/events/series/{series.pk}/?since=soon")
    assert refused.status_code == 400 and refused.json()["field"] == "since"


def test_the_series_pages_are_live(django_capture_on_commit_callbacks):
    ann, bob, cid = (make_user(n) for n in ("ann", "bob", "cid"))
    series = svc.series_create(user=ann, seats=3)
    client = logged_in(bob)
    page = client.get(f"/series/{series.pk}/").content.decode()
    series.refresh_from_db()
    assert f'data-live-url="/events/series/{series.pk}/"' in page and 'data-live-mode="series"' in page
    assert 'data-live-ply="-1"' in page and f'data-live-rev="{svc.seats_revision(series)}"' in page
    assert "js/live.js" in page
    lobby = client.get("/series/").content.decode()
    assert 'data-live-url="/events/series/"' in lobby and 'data-live-mode="list"' in lobby
    assert 'id="series-open" data-live-region' in lobby and 'id="series-mine" data-live-region' in lobby
    svc.series_join(user=bob, series_id=series.pk)
    svc.series_join(user=cid, series_id=series.pk, rng=random.Random(2))
    series.refresh_from_db()
    page = client.get(f"/series/{series.pk}/").content.decode()
    assert f'data-live-ply="{series.ply}"' in page and "data-live-rev" not in page
    play(series.pk, seed=2)
    page = client.get(f"/series/{series.pk}/").content.decode()
    assert "data-live-url" not in page, "a finished series does not change any more"
