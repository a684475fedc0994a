"""The live event log (games/live/events.py): what is published, when, and to whom."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from common.errors import ServiceError
from games import services
from games.live import events as live
from games.live.models import LiveEvent

from .factories import PASSWORD, make_game, make_user

pytestmark = pytest.mark.django_db


def kinds() -> list[tuple[str, dict]]:
    return [(e.kind, e.data) for e in LiveEvent.objects.order_by("pk")]


def test_a_game_start_and_a_move_are_written_with_them_in_their_transaction():
    """A move's event is written in the move's own transaction, with its other writes (one
    statement on PostgreSQL: common.db.writing): it exists exactly when the move does."""
    game = make_game()
    assert [k for k, _ in kinds()] == ["start", "move"], "a new game: its start, then its first turn"
    line = game.course.data["course"]["start_finish_cells"]
    with CaptureQueriesContext(connection) as queries:
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    writes = [q["sql"] for q in queries.captured_queries if "games_liveevent" in q["sql"]]
    assert len(writes) == 1 and "INSERT" in writes[0], writes
    if connection.vendor == "postgresql":
        assert "games_move" in writes[0], "one statement with the move's other writes"
    event = LiveEvent.objects.latest("pk")
    assert (event.kind, event.game_id, event.users) == ("move", game.pk, [game.player_id(0), game.player_id(1)])
    assert event.data == {"ply": 1, "to_move": game.player_id(1), "turn_passed": True}


def test_a_refused_move_publishes_nothing(django_capture_on_commit_callbacks):
    game = make_game()
    before = LiveEvent.objects.count()
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(ServiceError):
        services.game_place(user=game.player(1), game_id=game.pk, ply=0, cell=(0, 0), heading=0)
    assert LiveEvent.objects.count() == before


def test_a_games_end_is_written_with_its_last_move():
    """A resignation (like any end: games.services._finish) writes the move's event and then the
    game's ``finish`` event, with the winner, in the move's own writes."""
    game = make_game()
    with CaptureQueriesContext(connection) as queries:
        services.game_resign(user=game.player(1), game_id=game.pk)
    move, finish = LiveEvent.objects.order_by("-pk")[:2][::-1]
    assert (move.kind, move.data["to_move"]) == ("move", None)
    assert (finish.kind, finish.game_id, finish.users, finish.data) == (
        "finish", game.pk, [game.player_id(0), game.player_id(1)], {"winner": game.player_id(0)})
    assert live.user_event_json(finish, game.player_id(0))["game"]["outcome"] == "won"
    if connection.vendor == "postgresql":
        (writes,) = [q["sql"] for q in queries.captured_queries if "games_liveevent" in q["sql"]]
        assert writes.count('INSERT INTO "games_liveevent"') == 2 and "games_move" in writes


def test_a_move_that_fails_leaves_no_event():
    """The event and the move are one: a move whose writes fail after its history row and its
    game's update were sent (here its your-turn email, whose key is taken) leaves neither."""
    from games.models import Move
    from games.notifications.models import Notice

    game = make_game()
    line = game.course.data["course"]["start_finish_cells"]
    Notice.objects.create(user=game.player(1), event="your_turn", key=f"game:{game.pk}:ply:1", data={})
    before, moves = LiveEvent.objects.count(), Move.objects.filter(game=game).count()
    with CaptureQueriesContext(connection) as queries, pytest.raises(ServiceError):
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    sent = "\n".join(q["sql"] for q in queries.captured_queries)
    assert sent.index("INSERT INTO \"games_move\"") < sent.index("UPDATE \"games_game\"") < sent.index(
        "INSERT INTO \"games_emaillog\""), "the email fails after the move's other writes were sent"
    assert LiveEvent.objects.count() == before and Move.objects.filter(game=game).count() == moves
    game.refresh_from_db()
    assert game.ply == 0


def test_the_hub_hands_out_rows_committed_out_of_order_once_each():
    """Transactions commit in any order, so a row with a lower id can become visible after one
    with a higher id: the hub hands out each row once, as soon as it sees it. Without a horizon
    (SQLite) it goes past a missing id after waiting ``GAP_SECONDS`` for it."""
    hub = live.Hub()
    hub.seen = 10
    row = lambda pk: LiveEvent(pk=pk, kind="move", game_id=1)  # noqa: E731
    assert [r.pk for r in hub.take([row(12), row(13)], now=0.0)] == [12, 13]
    assert hub.seen == 10 and list(hub.missing) == [11], "11 is still committing: the watermark waits"
    assert [r.pk for r in hub.take([row(12), row(13)], now=1.0)] == [], "read again: not handed out twice"
    assert [r.pk for r in hub.take([row(11), row(12), row(13), row(14)], now=2.0)] == [11, 14]
    assert hub.seen == 14 and not hub.ahead and not hub.missing
    assert [r.pk for r in hub.take([row(16)], now=3.0)] == [16] and hub.seen == 14
    hub.take([], now=3.0 + live.GAP_SECONDS - 0.1)
    assert hub.seen == 14, "not given up yet"
    hub.take([], now=3.0 + live.GAP_SECONDS)
    assert hub.seen == 16 and not hub.missing, "15 never came (rolled back): given up"
    assert hub.take([row(15)], now=99.0) == [], "below the watermark: too late"
    far = 16 + live.IN_FLIGHT + 5
    assert [r.pk for r in hub.take([row(far)], now=100.0)] == [far]
    assert hub.seen == far - live.IN_FLIGHT and len(hub.missing) == live.IN_FLIGHT - 1, (
        "ids long before the newest are not waited for (an emptied log, a sequence that jumped)")


def test_on_postgresql_the_hub_waits_for_a_missing_id_as_long_as_its_transaction_may_commit():
    """With a horizon (the xmin and xmax of a snapshot) a missing id is given up only once every
    transaction running after it was noticed has ended: a long transaction (a tournament round
    pairing its games) is waited for however long it takes, a rolled-back one not for ever."""
    hub = live.Hub()
    hub.seen = 10
    row = lambda pk: LiveEvent(pk=pk, kind="move", game_id=1)  # noqa: E731
    assert [r.pk for r in hub.take([row(12)], now=0.0, seen_from=(500, 505))] == [12]
    assert hub.missing[11].xmax is None, "stamped by the next read, made after the gap was seen"
    hub.take([row(12)], now=1.0, seen_from=(500, 507))
    assert hub.missing[11].xmax == 507 and hub.seen == 10
    hub.take([row(12)], now=1000.0, seen_from=(506, 520))
    assert hub.seen == 10, "a transaction older than 507 may still run: waited for, whatever the time"
    assert [r.pk for r in hub.take([row(11), row(12)], now=1001.0, seen_from=(506, 521))] == [11], (
        "it committed: handed out")
    assert hub.seen == 12 and not hub.missing
    hub.take([row(14)], now=1002.0, seen_from=(530, 540))
    hub.take([row(14)], now=1003.0, seen_from=(535, 541))
    assert hub.seen == 12 and hub.missing[13].xmax == 541
    hub.take([row(14)], now=1004.0, seen_from=(541, 541))
    assert hub.seen == 14 and not hub.missing, "every transaction that could hold 13 has ended: it never comes"


@pytest.mark.postgres  # SQLite has one writer at a time: nothing commits out of order there
@pytest.mark.django_db(transaction=True)
def test_the_hub_sees_an_event_whose_transaction_commits_after_a_later_one():
    """On the real database: a move's event gets its id in the move's transaction, and a later
    move can commit first. The hub's next reads hand out both."""
    import threading

    from django.db import connections, transaction

    hub = live.Hub()
    probe = live.new_event(kind="move", game_id=0)
    probe.save()
    hub.seen = probe.pk  # where the ids are now
    def held(game_id: int, roll_back: bool) -> tuple[threading.Event, threading.Event]:
        """A transaction in another thread that writes an event and waits for ``release``
        before it commits (or rolls back); ``done`` once it has ended."""
        inserted, release, done = threading.Event(), threading.Event(), threading.Event()

        def run() -> None:
            try:
                with transaction.atomic():
                    live.new_event(kind="move", game_id=game_id).save()
                    inserted.set()
                    release.wait(10)
                    if roll_back:
                        raise RuntimeError("rolled back")
            except RuntimeError:
                pass
            finally:
                connections.close_all()
                done.set()

        threading.Thread(target=run).start()
        assert inserted.wait(10)
        return release, done

    release, done = held(1, roll_back=False)
    later = live.new_event(kind="move", game_id=2)
    later.save()
    first = step(hub, 0.0)
    assert [r.game_id for r in first] == [2], "the earlier id is not visible yet"
    assert hub.missing, "and is waited for"
    release.set()
    assert done.wait(10)
    second = step(hub, 1.0)
    assert sorted(r.game_id for r in first + second) == [1, 2], "each once"
    assert hub.seen == later.pk and not hub.ahead and not hub.missing

    # a transaction that takes an id and rolls back: given up once it has ended, not before
    release, done = held(3, roll_back=True)
    last = live.new_event(kind="move", game_id=4)
    last.save()
    assert [r.game_id for r in step(hub, 2.0)] == [4]
    for _ in range(3):
        step(hub, 3.0)
    assert hub.seen < last.pk, "the transaction is still running: its id is waited for"
    release.set()
    assert done.wait(10)
    for _ in range(50):  # until the horizon has passed it (other transactions of the cluster may run)
        step(hub, 4.0)
        if hub.seen == last.pk:
            break
        time.sleep(0.1)
    assert hub.seen == last.pk and not hub.missing, "rolled back: it never comes, the watermark goes on"


def test_a_reconnect_resumes_before_a_recent_gap():
    """The sync server's stream tells the browser where to resume (its next Last-Event-ID):
    not past a missing id followed by recent events, whose transaction may still commit; past
    one whose followers are older than ``GAP_SECONDS`` (rolled back, or pruned)."""
    a, gap, b = (live.publish(kind="move", game_id=n) for n in (1, 2, 3))
    gap.delete()
    rows, position = live.backlog(live.Channel(game_id=3), a.pk - 1)
    assert [r.pk for r in rows] == [b.pk] and position == a.pk, "b is sent, and sent again next time"
    LiveEvent.objects.filter(pk=b.pk).update(created_at=timezone.now() - timedelta(seconds=live.GAP_SECONDS + 1))
    assert live.backlog(live.Channel(game_id=3), a.pk - 1)[1] == b.pk


def step(hub: live.Hub, now: float) -> list[LiveEvent]:
    """One read of the log as the hub makes it (the horizon, then the rows), and what it hands out."""
    seen_from, rows = live._new_rows(hub.seen)
    return hub.take(rows, now, seen_from)


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
    assert (events[1].users, events[1].data["created_by"], events[1].data["opponent"]) == ([ann.pk, bob.pk], ann.pk,
                                                                                         bob.pk)
    assert LiveEvent.objects.filter(kind="start").count() == 1


def test_who_is_told_what():
    move = LiveEvent(pk=5, kind="move", game_id=7, users=[1, 2], data={"ply": 3, "to_move": 2, "turn_passed": True})
    challenge = LiveEvent(pk=6, kind="challenge", challenge_id=9, users=[3], data={"status": "open", "created_by": 3,
                                                                                  "opponent": None})
    assert live.Channel(game_id=7).concerns(move) and not live.Channel(game_id=8).concerns(move)
    assert live.Channel(user_id=1).concerns(move) and not live.Channel(user_id=3).concerns(move)
    assert live.Channel(lobby=True).concerns(challenge) and not live.Channel(lobby=True).concerns(move)
    assert live.user_event_json(move, 2) == {"type": "yourTurn", "id": 5, "game": {"id": 7, "ply": 3}}
    assert live.user_event_json(move, 1) is None, "the mover is not told it is the other's turn"
    finish = LiveEvent(pk=8, kind="finish", game_id=7, users=[1, 2], data={"winner": 1})
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
    # ?after= is the same for a page that opens a new stream itself (live.js, after a pause)
    same = Client().get(f"/events/game/{game.pk}/", {"after": first.pk}).content.decode()
    assert "event: move\n" in same and f"id: {first.pk}\n" not in same
    refused = Client().get(f"/events/game/{game.pk}/", {"after": "x1"})
    assert refused.status_code == 400 and refused.json()["field"] == "after"
    make_user("lobbyist")
    client = Client()
    client.login(username="lobbyist", password=PASSWORD)
    assert client.get("/events/lobby/?since=0").status_code == 200
    refused = client.get("/events/lobby/?since=yesterday")
    assert refused.status_code == 400 and refused.json()["field"] == "since"
    for odd in ("¹", "٣"):  # digits to str.isdigit, not to the API
        refused = client.get("/events/lobby/", {"since": odd})
        assert refused.status_code == 400 and refused.json()["field"] == "since", odd


def test_a_page_of_a_game_in_progress_is_live_and_a_finished_one_is_not(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game()
    client = Client()
    client.login(username=game.player(0).username, password=PASSWORD)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f'data-live-url="/events/game/{game.pk}/"' in page and 'data-live-ply="0"' in page
    assert "js/live.js" in page
    services.game_resign(user=game.player(0), game_id=game.pk)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f'data-live-url="/events/game/{game.pk}/"' not in page, "the game changes no more: no game stream"
    assert 'data-live-url="/events/me/" data-live-mode="rematch"' in page, "its players follow rematch offers"
    spectator = Client().get(f"/games/{game.pk}/").content.decode()
    assert "data-live-url" not in spectator, "nothing changes any more for a spectator: no stream at all"
    assert 'data-live-url="/events/me/"' in client.get("/games/").content.decode()
    assert 'data-live-url="/events/lobby/"' in client.get("/lobby/").content.decode()


def test_a_chat_line_is_published_for_the_game_page_only(django_capture_on_commit_callbacks):
    from games.social import services as social

    game = make_game()
    LiveEvent.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        message = social.chat_post(user=game.player(0), game_id=game.pk, text="good luck")
    event = LiveEvent.objects.get()
    assert (event.kind, event.game_id, event.data) == ("chat", game.pk, {"message": message.pk, "by": game.player_id(0)})
    assert live.Channel(game_id=game.pk).concerns(event)
    # the players' other pages, the lobby and the API's user stream are not told
    assert not live.Channel(user_id=game.player_id(0)).concerns(event)
    assert not live.Channel(lobby=True).concerns(event)
    assert live.user_event_json(event, game.player_id(1)) is None
