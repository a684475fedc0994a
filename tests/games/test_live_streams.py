"""The rules of a live stream (issue 22, docs/live.md), in-process: where a reconnect resumes,
what it is given from the log and what through the hub, each event once; the heartbeat's
position; a client that leaves early; the limits' address; a stalled client's connection; the
game page's changing part, rendered once per move for all its spectators."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from django.test import Client

from games.live import events as live
from games.live.models import LiveEvent
from games.streams import asgi as live_asgi

from .factories import make_game


@pytest.fixture
def live_connections_closed():
    """The streams' connections (live.DATABASE, live.HUB_DATABASE) are closed after the test,
    so that the test database can be dropped."""
    yield
    live.DATABASE.close()
    live.HUB_DATABASE.close()


def events_of(game_id: int, count: int) -> list[LiveEvent]:
    return [LiveEvent.objects.create(kind="move", game_id=game_id, data={"ply": i}) for i in range(count)]


async def take(stream: Any, n: int, timeout: float = 5.0) -> list[Any]:
    out = []
    for _ in range(n):
        out.append(await asyncio.wait_for(stream.__anext__(), timeout))
    return out


@pytest.mark.django_db(transaction=True)
def test_a_resume_far_back_is_told_to_start_afresh_and_a_near_one_is_replayed(monkeypatch, live_connections_closed):
    """Last-Event-ID (or ``since``) more than BACKLOG_MAX ids back: not replayed from the log (a
    page left open for days, ``since=0`` from anyone) but a Reset with the position to go on
    from; nearer: the events after it that concern the stream, from the log."""
    monkeypatch.setattr(live, "BACKLOG_MAX", 5)
    rows = events_of(7, 8)
    channel = live.Channel(game_id=7)

    async def run(after: int) -> list[Any]:
        stream = live.events(channel, after, 60.0)
        try:
            return await take(stream, 1)
        finally:
            await stream.aclose()

    [first] = asyncio.run(run(0))
    assert first == live.Reset(rows[-1].pk)
    replayed = asyncio.run(run(rows[4].pk))
    assert [r.pk for r in replayed] == [rows[5].pk]


@pytest.mark.django_db(transaction=True)
def test_an_event_given_from_the_log_is_not_given_again_through_the_hub(live_connections_closed):
    """A stream that resumes while the hub fans a batch out gets the batch from the log; the rest
    of the batch reaches its queue too: each event once."""
    rows = events_of(8, 3)
    late = LiveEvent(pk=rows[-1].pk + 1, kind="move", game_id=8, data={"ply": 9})  # handed out by the hub later

    async def run() -> list[int]:
        hub = live.hub()
        stream = live.events(live.Channel(game_id=8), rows[0].pk - 1, 60.0)
        got = [r.pk for r in await take(stream, 3)]  # from the log: the hub had handed them out
        sub = next(iter(hub.subscriptions))
        for row in rows[1:]:  # the rest of a sliced fan-out reaching the new subscription
            sub.queue.put_nowait(row)
        sub.queue.put_nowait(late)
        got += [r.pk for r in await take(stream, 1)]
        await stream.aclose()
        return got

    assert asyncio.run(run()) == [rows[0].pk, rows[1].pk, rows[2].pk, rows[2].pk + 1]


@pytest.mark.django_db(transaction=True)
def test_a_heartbeat_carries_the_position_to_resume_from(settings, monkeypatch, live_connections_closed):
    settings.LIVE_POLL_SECONDS = 0.05
    monkeypatch.setattr(live, "GAP_SECONDS", 0.1)  # the ids of the tests before (flushed) are not waited for
    rows = events_of(9, 2)

    async def run() -> list[Any]:
        """Heartbeats until one carries the last row's id. The hub reads at most a batch of ids
        per poll: after many tests (a parallel run's worker) the ids before these rows are more
        than a batch, and a first beat may come while the hub is still on its way there."""
        stream = live.events(live.Channel(game_id=9), None, 0.1)
        beats: list[Any] = []
        try:
            while not beats or beats[-1] != live.Beat(rows[-1].pk):
                beats += await take(stream, 1, timeout=5.0)
            return beats
        finally:
            await stream.aclose()

    beats = asyncio.run(asyncio.wait_for(run(), 20))
    assert all(isinstance(b, live.Beat) for b in beats), "no event of another game"
    positions = [b.position for b in beats]
    assert positions == sorted(positions) and positions[-1] == rows[-1].pk, "every id up to it is behind the stream"


@pytest.mark.django_db(transaction=True)
def test_a_client_that_leaves_while_the_hub_starts_leaves_nothing_behind(monkeypatch, live_connections_closed):
    original = live.last_id

    def slow_last_id() -> int:
        import time

        time.sleep(0.5)
        return original()

    monkeypatch.setattr(live, "last_id", slow_last_id)

    async def run() -> tuple[int, int]:
        hub = live.hub()
        streams = [live.events(live.Channel(game_id=10), None, 60.0) for _ in range(5)]
        waiting = [asyncio.ensure_future(s.__anext__()) for s in streams]
        await asyncio.sleep(0.1)
        during = len(hub.subscriptions)
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        return during, len(hub.subscriptions)

    during, after = asyncio.run(run())
    assert during == 5 and after == 0


def test_the_per_address_limit_counts_ipv6_by_its_64_and_ipv4_mapped_as_ipv4():
    assert live_asgi.address_key("203.0.113.9") == "203.0.113.9"
    assert live_asgi.address_key("::ffff:203.0.113.9") == "203.0.113.9"
    assert live_asgi.address_key("2001:db8:1:2:aaaa::1") == live_asgi.address_key("2001:db8:1:2:ffff::9") == \
        "2001:db8:1:2::/64"
    assert live_asgi.address_key("2001:db8:1:3::1") != live_asgi.address_key("2001:db8:1:2::1")
    assert live_asgi.address_key(None) is None and live_asgi.address_key("not an address") == "not an address"


@pytest.mark.django_db(transaction=True)
def test_a_stalled_clients_connection_is_aborted_not_left_to_drain(settings, live_connections_closed):
    """The server closes a connection gently, waiting for its buffer to be read: never, by a
    client that reads nothing. The handler aborts the transport of uvicorn's request cycle."""
    settings.LIVE_SEND_TIMEOUT_SECONDS = 1.0
    settings.LIVE_HEARTBEAT_SECONDS = 0.2

    class Transport:
        aborted = False

        def abort(self) -> None:
            self.aborted = True

    class Cycle:  # what uvicorn's send is a method of
        def __init__(self) -> None:
            self.transport = Transport()
            self.sent = 0

        async def send(self, message: dict[str, Any]) -> None:
            self.sent += 1
            if self.sent > 2:
                await asyncio.Event().wait()  # the client's window is full

    async def run() -> Cycle:
        cycle = Cycle()
        first = [True]

        async def receive() -> dict[str, Any]:
            if first[0]:
                first[0] = False
                return {"type": "http.request", "body": b"", "more_body": False}
            await asyncio.Event().wait()
            return {}

        scope = {"type": "http", "method": "GET", "path": "/events/lobby/", "query_string": b"",
                 "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.9", 5), "server": ("127.0.0.1", 80),
                 "scheme": "http", "http_version": "1.1", "root_path": "", "asgi": {"version": "3.0"}}
        await asyncio.wait_for(live_asgi.StreamHandler()(scope, receive, cycle.send), timeout=10)
        return cycle

    assert asyncio.run(run()).transport.aborted


@pytest.mark.django_db
def test_the_game_pages_changing_part_is_rendered_once_per_move_for_every_spectator(
        django_assert_num_queries, django_capture_on_commit_callbacks):
    from games.views import SPECTATOR_PARTS

    SPECTATOR_PARTS.parts.clear()
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game()
    first = Client().get(f"/events/game/{game.pk}/part/?ply={game.ply}")
    assert first.status_code == 200 and first["Cache-Control"] == "no-store"
    html = first.content.decode()
    assert html.lstrip().startswith('<div class="game" id="game" data-live-root') and "<html" not in html
    with django_assert_num_queries(0):  # another spectator: kept, whichever door they come by
        again = Client().get(f"/events/game/{game.pk}/part/?ply={game.ply}")
        through_the_site = Client().get(f"/games/{game.pk}/live/?ply={game.ply}")
    assert again.content == first.content == through_the_site.content
    # a player's part is their own (their turn's forms): rendered for them by the site, never kept
    player = Client()
    player.force_login(game.player(0))
    mine = player.get(f"/games/{game.pk}/live/?ply={game.ply}").content.decode()
    assert 'id="place-form"' in mine and 'id="place-form"' not in html
    assert 'id="place-form"' not in player.get(f"/events/game/{game.pk}/part/?ply={game.ply}").content.decode(), \
        "the spectators' door never gives a player's part"
    # another language is another part
    german = Client(headers={"Accept-Language": "de"}).get(f"/events/game/{game.pk}/part/?ply={game.ply}")
    assert german.content != first.content and "Partie" in german.content.decode()
    # what a client sends is looked up, never trusted as what is rendered
    assert Client().get(f"/events/game/{game.pk}/part/?ply=¹&at=x").status_code == 200
    missing = Client().get("/events/game/999999/part/?ply=0")
    assert missing.status_code == 404 and missing.json()["field"] == "game"
    # the page points each viewer at their door
    assert f'data-live-src="/events/game/{game.pk}/part/"' in Client().get(f"/games/{game.pk}/").content.decode()
    assert f'data-live-src="/games/{game.pk}/live/"' in player.get(f"/games/{game.pk}/").content.decode()
