"""Live updates of series (issues 16, 22 and 25, docs/live.md): what a series action (a game of
the boxed rules) writes to the event log (in its own transaction, naming its players), who is
told, and what its SSE stream and pages carry."""

from __future__ import annotations

import random
from unittest import mock

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from common.errors import ServiceError
from games import services
from games.live import events as live
from games.live.models import LiveEvent
from games.models import Game

from .factories import PASSWORD, make_game, make_user
from .series_play import engine_now, play, started

pytestmark = pytest.mark.django_db


def series_events(game_id: int, keep: tuple[str, ...] = ("action", "ply", "seats")) -> list[dict]:
    """The game's events, each as its kind with the keys ``keep`` of its data it has."""
    return [{"kind": e.kind, **{k: v for k, v in e.data.items() if k in keep}}
            for e in LiveEvent.objects.filter(game_id=game_id).order_by("pk")]


def logged_in(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_the_lobby_actions_write_their_event_in_their_transaction(django_capture_on_commit_callbacks):
    ann, bob, cid, dee = (make_user(n) for n in ("ann", "bob", "cid", "dee"))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        series = services.game_open(user=ann, seats=4)
    assert not callbacks, "nothing waits for the commit: the event is one of the action's writes"
    assert series_events(series.pk) == [{"kind": "seats", "action": "open", "ply": 0, "seats": 1}]
    services.game_join(user=bob, game_id=series.pk)
    services.game_join(user=cid, game_id=series.pk)
    services.game_leave(user=cid, game_id=series.pk)
    services.game_join(user=dee, game_id=series.pk)
    with pytest.raises(ServiceError):
        services.game_join(user=dee, game_id=series.pk)  # refused: nothing written
    services.game_start(user=ann, game_id=series.pk, rng=random.Random(4))
    rows = list(LiveEvent.objects.filter(game_id=series.pk).order_by("pk"))
    # the seats' changes, then the start and the first turn (as every game starts)
    assert [(e.kind, e.data.get("action"), e.data.get("seats")) for e in rows] == [
        ("seats", "open", 1), ("seats", "seats", 2), ("seats", "seats", 3), ("seats", "seats", 2),
        ("seats", "seats", 3), ("start", None, None), ("move", None, None)]
    revs = [e.data["rev"] for e in rows if "rev" in e.data]
    assert len(revs) == 5 and revs == sorted(revs) and len(set(revs)) == len(revs), \
        "the seats' revision only moves on"
    assert [set(e.users) for e in rows] == [
        {ann.pk}, {ann.pk, bob.pk}, {ann.pk, bob.pk, cid.pk}, {ann.pk, bob.pk}, {ann.pk, bob.pk, dee.pk},
        {ann.pk, bob.pk, dee.pk}, {ann.pk, bob.pk, dee.pk}], "each event names the players seated after it"
    series.refresh_from_db()
    assert all(e.data["series"] == series.series_number for e in rows), "each names the series by its number"
    start, first_turn = rows[-2:]
    assert (start.game_id, start.data["ply"]) == (series.pk, 0)
    assert first_turn.data["ply"] == 0 and first_turn.data["turn_passed"] is True
    assert first_turn.data["to_move"] == series.seat_at(series.to_move).user_id


def test_a_refused_or_failed_series_action_leaves_no_event():
    """The event is written with the action: an action refused before, or failing after, its
    writes leaves none (the transaction is rolled back with it)."""
    ann = make_user("ann")
    series = services.game_open(user=ann, seats=3)
    before = LiveEvent.objects.count()
    with pytest.raises(ServiceError):
        services.game_cancel(user=make_user("bob"), game_id=series.pk)
    assert LiveEvent.objects.count() == before
    with mock.patch.object(Game, "save", side_effect=RuntimeError("disk full")), pytest.raises(RuntimeError):
        services.game_cancel(user=ann, game_id=series.pk)
    assert LiveEvent.objects.count() == before
    series.refresh_from_db()
    assert series.status == Game.Status.OPEN


def test_a_cancel_is_written(django_capture_on_commit_callbacks):
    ann = make_user("ann")
    series = services.game_open(user=ann, seats=3)
    services.game_cancel(user=ann, game_id=series.pk)
    assert [(e["kind"], e["action"]) for e in series_events(series.pk)] == [("seats", "open"), ("seats", "cancel")]
    series.refresh_from_db()
    assert series.status == Game.Status.CANCELLED


def _started(django_capture_on_commit_callbacks, seats: int = 3) -> tuple[Game, list]:
    users = [make_user(f"p{i}") for i in range(seats)]
    with django_capture_on_commit_callbacks(execute=True):
        series = started(users, seed=7)
    assert series.status == Game.Status.ACTIVE
    return series, users


@pytest.mark.slow
def test_every_action_of_a_series_is_one_insert_with_its_new_ply_until_the_finish(
        django_capture_on_commit_callbacks):
    series, users = _started(django_capture_on_commit_callbacks)
    LiveEvent.objects.all().delete()
    series, seats, engine = engine_now(series.pk)
    mover = series.seat_at(series.to_move)
    cell = engine.race.free_start_cells()[0]
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=False):
        services.game_place(user=mover.user, game_id=series.pk, ply=series.ply, cell=cell, heading=0)
    inserts = [q["sql"] for q in queries.captured_queries if "games_liveevent" in q["sql"]]
    assert len(inserts) == 1 and inserts[0].startswith("INSERT"), "publishing is one INSERT"
    series.refresh_from_db()
    [event] = LiveEvent.objects.filter(game_id=series.pk)
    assert (event.kind, event.data["ply"], event.data["series"]) == ("move", 1, series.series_number)
    assert set(event.users) == {u.pk for u in users}
    assert event.data["to_move"] == series.seat_at(series.to_move).user_id
    assert event.data["turn_passed"] is True, "placing passes the turn on"
    # a refused action (not your turn, a stale ply) writes nothing
    other = next(s for s in seats if s.index != series.to_move)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ServiceError):
        services.game_roll(user=other.user, game_id=series.pk, ply=series.ply, choice=None)
    assert len(series_events(series.pk)) == 1
    # a resignation (out of turn, R18) and the rest of the series
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(user=other.user, game_id=series.pk)
        finished = play(series.pk, seed=3)
    events = series_events(series.pk)
    assert events[1] == {"kind": "move", "ply": 2}
    moves = [e["ply"] for e in events if e["kind"] == "move"]
    assert moves == sorted(moves) and len(set(moves)) == len(moves), "one event per action, in order"
    assert [e["kind"] for e in events].count("finish") == 1
    # the last action: its move, then the series' end, at the ply it ended
    assert events[-2:] == [{"kind": "move", "ply": finished.ply}, {"kind": "finish", "ply": finished.ply}]
    last_move, finish = LiveEvent.objects.filter(game_id=series.pk).order_by("-pk")[:2][::-1]
    assert last_move.data["to_move"] is None and "to_move" not in finish.data, \
        "a finished series has no player to move"
    assert finish.data["winner"] == finished.winner_id and finish.data["series"] == series.series_number


def test_who_is_told_of_a_series_event():
    """A series' events are its game's (one id space: a game's page follows its game, whatever its
    ruleset), and name the series by its number for the series lobby and the API."""
    event = LiveEvent(pk=9, kind="move", game_id=4, users=[7, 8, 9],
                      data={"ply": 3, "to_move": 8, "turn_passed": True, "series": 2})
    assert live.Channel(game_id=4).concerns(event) and not live.Channel(game_id=5).concerns(event)
    # a move is not news for the series lobby, nor for the lobby; its players' own streams are told
    assert not live.Channel(series_lobby=True).concerns(event)
    assert not live.Channel(lobby=True).concerns(event) and not live.Channel(user_id=4, lobby=True).concerns(event)
    assert live.Channel(user_id=8).concerns(event) and live.Channel(user_id=7, lobby=True).concerns(event)
    assert live.Channel(user_id=8, series_lobby=True).concerns(event), "the series lobby's own series"
    # the API's user stream: the player to move is told it is their turn, the others nothing
    assert live.user_event_json(event, 8) == {"type": "yourTurn", "id": 9, "game": {"id": 4, "ply": 3},
                                              "series": {"id": 2, "ply": 3}}
    assert live.user_event_json(event, 7) is None and live.user_event_json(event, 4) is None
    assert [x["type"] for x in live.user_event_lines(event, 8)] == ["yourTurn"]
    assert live.user_event_lines(event, 7) == [] and live.user_event_lines(event, 4) == []
    start = LiveEvent(pk=10, kind="start", game_id=4, users=[7, 8], data={"series": 2, "ply": 0})
    first_turn = LiveEvent(pk=11, kind="move", game_id=4, users=[7, 8],
                           data={"ply": 0, "to_move": 8, "turn_passed": True, "series": 2})
    finish = LiveEvent(pk=12, kind="finish", game_id=4, users=[7, 8], data={"winner": 8, "series": 2, "ply": 80})
    assert live.user_event_lines(start, 7) == [{"type": "gameStart", "id": 10, "game": {"id": 4}},
                                               {"type": "seriesStart", "id": 10, "series": {"id": 2, "ply": 0}}]
    assert [x["type"] for x in live.user_event_lines(first_turn, 8)] == ["yourTurn"]
    assert live.user_event_lines(first_turn, 7) == []
    assert live.user_event_lines(start, 4) == [], "not a player of it"
    assert live.user_event_lines(finish, 8) == [
        {"type": "gameFinish", "id": 12, "game": {"id": 4, "outcome": "won"}},
        {"type": "seriesFinish", "id": 12, "series": {"id": 2, "ply": 80}}]
    assert live.user_event_lines(finish, 7)[0]["game"]["outcome"] == "lost"
    # the series lobby: an open series' seats, a series' start and end; not a two-player game's
    seats = LiveEvent(pk=13, kind="seats", game_id=5, users=[7], data={"action": "open", "ply": 0, "seats": 1,
                                                                       "rev": 1, "series": 3})
    assert all(live.Channel(series_lobby=True).concerns(e) for e in (seats, start, finish))
    assert not live.Channel(lobby=True).concerns(seats) and live.Channel(game_id=5).concerns(seats)
    two = LiveEvent(pk=14, kind="start", game_id=6, users=[1, 2], data={})
    move = LiveEvent(pk=15, kind="move", game_id=6, users=[1, 2], data={"ply": 1})
    assert not live.Channel(series_lobby=True).concerns(two) and not live.Channel(series_lobby=True).concerns(move)
    assert live.user_event_lines(two, 1) == [{"type": "gameStart", "id": 14, "game": {"id": 6}}]
    # an event names its players for the server only: the page's stream does not carry them
    assert "users" not in live.event_json(event)
    assert live.event_json(event)["series"] == 2 and live.event_json(event)["type"] == "move"
    assert live.event_json(event)["game"] == 4
    # the hub files the players' streams under their keys: the event is offered to them
    assert ("user", 8) in live.keys_of(event) and ("game", 4) in live.keys_of(event)
    assert live.SERIES_LOBBY not in live.keys_of(event) and live.SERIES_LOBBY in live.keys_of(start)
    assert live.SERIES_LOBBY in live.keys_of(seats) and live.SERIES_LOBBY not in live.keys_of(two)


def test_the_series_stream_carries_its_events_only(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game()  # a two-player game's events are not on a series' stream
    series, _users = _started(django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        play(series.pk, seed=5, stop=lambda engine: engine.ply >= 2)
    response = Client().get(f"/events/game/{series.pk}/", HTTP_LAST_EVENT_ID="0")
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    body = response.content.decode()
    assert body.startswith("retry: 1000\n") and body.count("event: ") == len(series_events(series.pk))
    assert f'"game":{series.pk}' in body and f'"series":{series.series_number}' in body
    assert "event: seats\n" in body and "event: start\n" in body and "event: move\n" in body
    assert f'"game":{game.pk},' not in body and f'"game":{game.pk}}}' not in body
    lobby = Client().get("/events/series/", HTTP_LAST_EVENT_ID="0").content.decode()
    # the seats of open series, every series' start (and end); not the moves, nor a two-player game
    assert lobby.count("event: seats\n") == LiveEvent.objects.filter(kind="seats").count() > 0
    assert lobby.count("event: start\n") == 1 and f'"series":{series.series_number}' in lobby
    assert "event: move\n" not in lobby and f'"game":{game.pk},' not in lobby
    missing = Client().get("/events/game/999999/")
    assert missing.status_code == 404 and missing.json()["field"] == "game"
    refused = Client().get(f"/events/game/{series.pk}/?since=soon")
    assert refused.status_code == 400 and refused.json()["field"] == "since"


@pytest.mark.slow
def test_the_series_pages_are_live(django_capture_on_commit_callbacks):
    ann, bob, cid = (make_user(n) for n in ("ann", "bob", "cid"))
    series = services.game_open(user=ann, seats=3)
    client = logged_in(bob)
    page = client.get(f"/games/{series.pk}/").content.decode()
    series.refresh_from_db()
    assert f'data-live-url="/events/game/{series.pk}/"' in page and 'data-live-mode="game"' in page
    assert 'data-live-ply="-1"' in page and f'data-live-rev="{services.seats_revision(series)}"' in page
    assert "js/live.js" in page
    lobby = client.get("/series/").content.decode()
    assert 'data-live-url="/events/series/"' in lobby and 'data-live-mode="list"' in lobby
    assert 'id="series-open" data-live-region' in lobby and 'id="series-mine" data-live-region' in lobby
    services.game_join(user=bob, game_id=series.pk)
    services.game_join(user=cid, game_id=series.pk, rng=random.Random(2))
    series.refresh_from_db()
    page = client.get(f"/games/{series.pk}/").content.decode()
    assert f'data-live-ply="{series.ply}"' in page and "data-live-rev" not in page
    play(series.pk, seed=2)
    page = client.get(f"/games/{series.pk}/").content.decode()
    assert "data-live-url" not in page, "a finished series does not change any more"
