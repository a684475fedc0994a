"""The live event log (games/live.py): what is published, when, and to whom."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import live, services
from games.errors import ServiceError
from games.models import LiveEvent

from .factories import PASSWORD, make_game, make_user

pytestmark = pytest.mark.django_db


def kinds() -> list[tuple[str, dict]]:
    return [(e.kind, e.data) for e in LiveEvent.objects.order_by("pk")]


def test_a_game_start_and_a_move_are_published_after_the_commit(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        game = make_game()
    assert LiveEvent.objects.count() == 0, "nothing before the commit"
    for callback in callbacks:
        callback()
    assert [k for k, _ in kinds()] == ["start", "move"]
    line = game.course.data["course"]["start_finish_cells"]
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
        services.game_place(user=game.yellow, game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    inserts = [q["sql"] for q in queries.captured_queries if "games_liveevent" in q["sql"]]
    assert len(inserts) == 1 and inserts[0].startswith("INSERT"), "publishing is one INSERT"
    event = LiveEvent.objects.latest("pk")
    assert (event.kind, event.game_id, event.user_a, event.user_b) == ("move", game.pk, game.yellow_id, game.red_id)
    assert event.data == {"ply": 1, "to_move": game.red_id, "turn_passed": True}


def test_a_refused_move_publishes_nothing(django_capture_on_commit_callbacks):
    game = make_game()
    before = LiveEvent.objects.count()
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ServiceError):
        services.game_place(user=game.red, game_id=game.pk, ply=0, cell=(0, 0), heading=0)
    assert LiveEvent.objects.count() == before


def test_a_challenge_is_published_at_each_change(django_capture_on_commit_callbacks):
    ann, bob = make_user("ann"), make_user("bob")
    with django_capture_on_commit_callbacks(execute=True):
        open_one = services.challenge_create(user=ann)
        named = services.challenge_create(user=ann, opponent=bob)
        services.challenge_cancel(user=ann, challenge_id=open_one.pk)
        services.challenge_accept(user=bob, challenge_id=named.pk)
    events = list(LiveEvent.objects.filter(kind="challenge").order_by("pk"))
    assert [(e.challenge_id, e.data["status"]) for e in events] == [
        (open_one.pk, "open"), (named.pk, "open"), (open_one.pk, "cancelled"), (named.pk, "accepted")]
    assert (events[1].user_a, events[1].user_b) == (ann.pk, bob.pk)
    assert LiveEvent.objects.filter(kind="start").count() == 1


def test_who_is_told_what():
    move = LiveEvent(pk=5, kind="move", game_id=7, user_a=1, user_b=2, data={"ply": 3, "to_move": 2,
                                                                             "turn_passed": True})
    challenge = LiveEvent(pk=6, kind="challenge", challenge_id=9, user_a=3, user_b=None, data={"status": "open"})
    assert live.Channel(game_id=7).concerns(move) and not live.Channel(game_id=8).concerns(move)
    assert live.Channel(user_id=1).concerns(move) and not live.Channel(user_id=3).concerns(move)
    assert live.Channel(lobby=True).concerns(challenge) and not live.Channel(lobby=True).concerns(move)
    assert live.user_event_json(move, 2) == {"type": "yourTurn", "id": 5, "game": {"id": 7, "ply": 3}}
    assert live.user_event_json(move, 1) is None, "the mover is not told it is the other's turn"
    finish = LiveEvent(pk=8, kind="finish", game_id=7, user_a=1, user_b=2, data={"winner": 1})
    assert live.user_event_json(finish, 1)["game"]["outcome"] == "won"
    assert live.user_event_json(finish, 2)["game"]["outcome"] == "lost"


def test_old_events_are_pruned_by_the_sweep():
    live.publish(kind="move", game_id=1)
    old = live.publish(kind="move", game_id=2)
    LiveEvent.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=2))
    from games.tasks import sweep_clocks

    assert sweep_clocks()["live_pruned"] == 1
    assert list(LiveEvent.objects.values_list("game_id", flat=True)) == [1]


def test_served_by_a_sync_server_a_stream_answers_at_once_with_the_events_after_last_event_id(
        django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game()
    first = LiveEvent.objects.order_by("pk").first()
    response = Client().get(f"/events/game/{game.pk}/", HTTP_LAST_EVENT_ID=str(first.pk))
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    body = response.content.decode()
    assert body.startswith("retry: 1000\n") and "event: move\n" in body and f'"game":{game.pk}' in body
    assert f"id: {first.pk}\n" not in body, "only the events after it"
    make_user("lobbyist")
    client = Client()
    client.login(username="lobbyist", password=PASSWORD)
    assert client.get("/events/lobby/?since=0").status_code == 200
    refused = client.get("/events/lobby/?since=yesterday")
    assert refused.status_code == 400 and refused.json()["field"] == "since"


def test_a_page_of_a_game_in_progress_is_live_and_a_finished_one_is_not(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game()
    client = Client()
    client.login(username=game.yellow.username, password=PASSWORD)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f'data-live-url="/events/game/{game.pk}/"' in page and 'data-live-ply="0"' in page
    assert "js/live.js" in page
    services.game_resign(user=game.yellow, game_id=game.pk)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "data-live-url" not in page, "nothing changes any more: no stream (and no reload on its end event)"
    assert 'data-live-url="/events/me/"' in client.get("/games/").content.decode()
    assert 'data-live-url="/events/lobby/"' in client.get("/lobby/").content.decode()


def test_a_chat_line_is_published_for_the_game_page_only(django_capture_on_commit_callbacks):
    from games import services_social

    game = make_game()
    LiveEvent.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        message = services_social.chat_post(user=game.yellow, game_id=game.pk, text="good luck")
    event = LiveEvent.objects.get()
    assert (event.kind, event.game_id, event.data) == ("chat", game.pk, {"message": message.pk, "by": game.yellow_id})
    assert live.Channel(game_id=game.pk).concerns(event)
    # the players' other pages, the lobby and the API's user stream are not told
    assert not live.Channel(user_id=game.yellow_id).concerns(event)
    assert not live.Channel(lobby=True).concerns(event)
    assert live.user_event_json(event, game.red_id) is None
