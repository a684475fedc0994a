"""Live events (docs/live.md): an append-only log in the database, read by every web process.

Publishing is one INSERT of a ``LiveEvent`` row. A move's event, a game's end, and a new
game's start and first turn are written in the move's (the game's) own transaction, with its
other writes (games.writing): the event exists exactly when the move does, and costs the turn
no statement of its own. Other events (a challenge's change, a chat line, a series' change)
are published by the receivers in ``games/receivers.py`` after their commit.

Reading is done by the async stream views (``games/live_views.py``) under the ASGI server. Each
server process has one ``Hub`` per event loop: a single task that polls the log for rows newer
than the last it saw (one indexed query every ``LIVE_POLL_SECONDS``, whatever the number of
connections) and hands each row to the queues of the connections it concerns. Rows may become
visible out of id order (transactions commit in any order), so the hub waits for a missing id
as long as the transaction that took it may still commit (``Hub.take``). A connection that comes back sends
``Last-Event-ID`` and is first given the rows after it from the log itself, so a web process
restart or a dropped connection loses nothing (but an event committed out of order within the
moment of the reconnection, ~ms).

Who sees what (``concerns``):
* a game's stream: that game's moves, start and end (anyone may watch, as the game page);
* a user's stream: the games they play and the challenges they made or were named in;
* the lobby: every challenge change, every game start and end, and the user's own events;
* a series' stream: that series' changes (kind ``series``: open, seats, start, move, finish,
  cancel); the series lobby: every series' changes. Series events name no user, so the
  two-player pages and the API's user stream never see them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from .models import LiveEvent, LiveSeen
from .writing import Writes

log = logging.getLogger(__name__)

# --- publishing (sync, after commit) ----------------------------------------------------------


def publish(*, kind: str, game_id: int | None = None, challenge_id: int | None = None,
            user_a: int | None = None, user_b: int | None = None, series_id: int | None = None,
            **data: Any) -> LiveEvent | None:
    """Append one event to the log (one INSERT). Never raises: a failed publish must not undo
    or fail the move that committed already; the pages catch up on their next event or load."""
    try:
        event = new_event(kind=kind, game_id=game_id, challenge_id=challenge_id, user_a=user_a, user_b=user_b,
                          series_id=series_id, **data)
        writes = Writes()  # its SQL put together once per process (~0.2 ms of CPU less than objects.create)
        writes.insert([event])
        writes.send()
        return event
    except Exception:
        log.exception("could not publish the live event %s (game %s, challenge %s, series %s)", kind, game_id,
                      challenge_id, series_id)
        return None


def new_event(*, kind: str, game_id: int | None = None, challenge_id: int | None = None, user_a: int | None = None,
              user_b: int | None = None, series_id: int | None = None, **data: Any) -> LiveEvent:
    """An event (not saved): for a change whose event is written in its own transaction, as a
    move's is (games.services: with the move's other writes, so the event exists exactly when
    the move does and costs no statement of its own)."""
    return LiveEvent(kind=kind, game_id=game_id, challenge_id=challenge_id, user_a=user_a, user_b=user_b,
                     series_id=series_id, data=data)


def move_event(game_id: int, players: tuple[int, int], ply: int, to_move: int | None, turn_passed: bool
               ) -> LiveEvent:
    """The event of a move (or of a game's start, at ply 0): who is to move now."""
    return new_event(kind=LiveEvent.Kind.MOVE, game_id=game_id, user_a=players[0], user_b=players[1], ply=ply,
                     to_move=to_move, turn_passed=turn_passed)


def prune(now: datetime | None = None) -> int:
    """Drop events older than a day (the sweep): a client gone longer reloads its page."""
    cutoff = (now or timezone.now()) - timedelta(days=1)
    return LiveEvent.objects.filter(created_at__lt=cutoff).delete()[0]


# --- what an event looks like to a client ------------------------------------------------------


def event_json(event: LiveEvent) -> dict[str, Any]:
    """The event as the page's stream sends it (SSE ``data:``)."""
    out: dict[str, Any] = {"id": event.pk, "type": event.kind, "at": event.created_at.isoformat()}
    if event.game_id is not None:
        out["game"] = event.game_id
    if event.challenge_id is not None:
        out["challenge"] = event.challenge_id
    if event.series_id is not None:
        out["series"] = event.series_id
    out.update(event.data)
    return out


def user_event_json(event: LiveEvent, user_id: int) -> dict[str, Any] | None:
    """The event as the API's user stream sends it, with lichess's names (``challenge``,
    ``challengeCanceled``, ``challengeDeclined``, ``gameStart``, ``yourTurn``, ``gameFinish``);
    None for an event this user is not told about (a move that does not give them the turn)."""
    if event.kind == LiveEvent.Kind.CHALLENGE:
        status = event.data.get("status")
        kind = {"open": "challenge", "cancelled": "challengeCanceled", "declined": "challengeDeclined",
                "accepted": "challengeAccepted"}.get(status, "challenge")
        return {"type": kind, "id": event.pk, "challenge": {
            "id": event.challenge_id, "status": status, "created_by": event.user_a, "opponent": event.user_b,
            "game": event.data.get("game")}}
    if event.kind == LiveEvent.Kind.START:
        return {"type": "gameStart", "id": event.pk, "game": {"id": event.game_id}}
    if event.kind == LiveEvent.Kind.FINISH:
        winner = event.data.get("winner")
        outcome = "draw" if winner is None else "won" if winner == user_id else "lost"
        return {"type": "gameFinish", "id": event.pk, "game": {"id": event.game_id, "outcome": outcome}}
    if event.kind == LiveEvent.Kind.MOVE and event.data.get("to_move") == user_id and event.data.get("turn_passed"):
        return {"type": "yourTurn", "id": event.pk, "game": {"id": event.game_id, "ply": event.data.get("ply")}}
    return None


# --- who sees what -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Channel:
    """What one connection listens to: a game, a user's games and challenges, the lobby; a
    series (its page), the series lobby (every change of every series)."""

    game_id: int | None = None
    user_id: int | None = None
    lobby: bool = False
    series_id: int | None = None
    series_lobby: bool = False

    def concerns(self, event: LiveEvent) -> bool:
        if self.series_id is not None:
            return event.kind == LiveEvent.Kind.SERIES and event.series_id == self.series_id
        if self.series_lobby:
            return event.kind == LiveEvent.Kind.SERIES
        if self.game_id is not None:
            return event.game_id == self.game_id
        if self.user_id is not None and self.user_id in (event.user_a, event.user_b):
            return True
        if self.lobby:
            return event.kind in (LiveEvent.Kind.CHALLENGE, LiveEvent.Kind.START, LiveEvent.Kind.FINISH)
        return False


def _fresh() -> None:
    """A long-lived stream is one request to Django: drop a connection that is broken or older
    than CONN_MAX_AGE before reading (as a request start would); never inside a transaction."""
    if not connection.in_atomic_block:
        close_old_connections()


def backlog(channel: Channel, after: int, limit: int = 1000) -> tuple[list[LiveEvent], int]:
    """The events after id ``after`` that concern the channel (a reconnect: Last-Event-ID),
    among the next ``limit`` of the log, and the position to resume from: the last id looked
    at, but not past a missing id followed by events younger than ``GAP_SECONDS`` (a
    transaction may still be committing it; the events after it are sent again next time)."""
    _fresh()
    rows = list(LiveEvent.objects.filter(pk__gt=after).order_by("pk")[:limit])
    recent = timezone.now() - timedelta(seconds=GAP_SECONDS)
    position = after
    for row in rows:
        if row.pk > position + 1 and row.created_at > recent:
            break
        position = row.pk
    return [row for row in rows if channel.concerns(row)], position


def last_id_before(when: datetime) -> int:
    """The id of the last event created before ``when`` (0 if none): a page rendered at
    ``when`` starts its stream there, so that nothing between the render and the connection
    is missed."""
    row = LiveEvent.objects.filter(created_at__lt=when).order_by("-pk").values_list("pk", flat=True).first()
    return row or 0


def last_id() -> int:
    return LiveEvent.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


Horizon = tuple[int, int]  # PostgreSQL: the xmin and xmax of a snapshot


def horizon() -> Horizon | None:
    """PostgreSQL: the oldest transaction still running and the next to begin, as a snapshot
    taken now sees them (every transaction older than the first has ended); None elsewhere."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_snapshot_xmin(s)::text::bigint, pg_snapshot_xmax(s)::text::bigint "
                       "FROM pg_current_snapshot() s")
        xmin, xmax = cursor.fetchone()
    return int(xmin), int(xmax)


def _new_rows(after: int, limit: int = 1000) -> tuple[Horizon | None, list[LiveEvent]]:
    """The horizon, then the rows after ``after`` (read in that order: a transaction the
    horizon says has ended is visible to the read, if it committed)."""
    _fresh()
    seen_from = horizon()
    return seen_from, list(LiveEvent.objects.filter(pk__gt=after).order_by("pk")[:limit])


# --- the hub: one poller per event loop --------------------------------------------------------


@dataclass(eq=False)
class Subscription:
    channel: Channel
    queue: asyncio.Queue[LiveEvent] = field(default_factory=asyncio.Queue)


GAP_SECONDS = 10.0  # without a horizon (SQLite): how long a missing id is waited for
IN_FLIGHT = 10_000  # ids further back than this behind the newest are not waited for
START_BACK = 1000  # a hub that starts looks this many ids back for ones still committing


@dataclass
class Missing:
    noticed: float  # when (the loop's clock)
    xmax: int | None = None  # PostgreSQL: the horizon's xmax at the next read after that


class Hub:
    """Polls the log once per ``LIVE_POLL_SECONDS`` for the whole process and fans rows out.

    Ids are handed out by the database when a row is inserted, but rows become visible when
    their transaction commits, which is not always in id order: a move's event is written in
    the move's transaction, and two moves commit in either order. So the hub keeps a
    watermark ``seen`` (every id up to it was handed out, or never came), the ids above it
    it has handed out already (``ahead``) and the ones it has not seen yet (``missing``); it
    reads from the watermark on and hands each row out once, as soon as it sees it. A missing
    id is waited for as long as the transaction that took it may still commit: on PostgreSQL
    until every transaction that was running after it was noticed has ended (the horizon's
    xmin passes the xmax read after it was noticed: then it was rolled back, or pruned), so a
    long transaction (a tournament round pairing its games) is waited for; elsewhere (SQLite
    has one writer at a time: ids commit in order) for ``GAP_SECONDS``."""

    def __init__(self) -> None:
        self.subscriptions: set[Subscription] = set()
        self.seen = -1  # the watermark; -1 until the first poll
        self.ahead: set[int] = set()  # ids above the watermark handed out already
        self.missing: dict[int, Missing] = {}  # ids above the watermark not seen yet
        self.task: asyncio.Task[None] | None = None
        self.started = asyncio.Event()

    def take(self, rows: list[LiveEvent], now: float, seen_from: Horizon | None = None) -> list[LiveEvent]:
        """Of rows read after the watermark (in id order, after ``seen_from``: the horizon),
        those not handed out yet; moves the watermark over what is complete and over the
        missing ids that can no longer come."""
        for gap in self.missing.values():
            if seen_from is not None and gap.xmax is None:
                gap.xmax = seen_from[1]  # read after the rows in which the gap was noticed
        new = [row for row in rows if row.pk > self.seen and row.pk not in self.ahead]
        for row in new:
            self.ahead.add(row.pk)
            self.missing.pop(row.pk, None)
        if self.ahead:
            top = max(self.ahead)
            if top - IN_FLIGHT > self.seen:
                self.seen = top - IN_FLIGHT
                self.ahead = {pk for pk in self.ahead if pk > self.seen}
                self.missing = {pk: gap for pk, gap in self.missing.items() if pk > self.seen}
            for pk in range(self.seen + 1, top):
                if pk not in self.ahead and pk not in self.missing:
                    self.missing[pk] = Missing(now)
        while True:
            following = self.seen + 1
            if following in self.ahead:
                self.ahead.discard(following)
            elif following in self.missing and self._gone(self.missing[following], now, seen_from):
                del self.missing[following]
            else:
                break
            self.seen = following
        return new

    @staticmethod
    def _gone(gap: Missing, now: float, seen_from: Horizon | None) -> bool:
        if seen_from is None:
            return now - gap.noticed >= GAP_SECONDS
        return gap.xmax is not None and seen_from[0] >= gap.xmax

    async def subscribe(self, channel: Channel) -> tuple[Subscription, int, frozenset[int]]:
        """A subscription, and what the hub had handed out when it began (the watermark and
        the ids above it): the queue gets exactly what is handed out after that."""
        sub = Subscription(channel)
        self.subscriptions.add(sub)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())
        if not self.started.is_set():
            await self.started.wait()  # the hub sets it before its first read: no row in between
        return sub, self.seen, frozenset(self.ahead)

    def unsubscribe(self, sub: Subscription) -> None:
        self.subscriptions.discard(sub)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                # what is in the log is the past; an id still committing near its end is not
                start = max(await sync_to_async(last_id)() - START_BACK, 0)
                seen_from, rows = await sync_to_async(_new_rows)(start, START_BACK + 1)
                break
            except Exception:  # the database is away: the subscribers wait, then go on
                log.exception("live: could not read the event log")
                await asyncio.sleep(1)
        self.seen = start
        self.ahead.clear()
        self.missing.clear()
        self.take(rows, loop.time(), seen_from)  # not handed out: no one was listening yet
        self.started.set()
        interval = settings.LIVE_POLL_SECONDS
        while self.subscriptions:
            await asyncio.sleep(interval)
            try:
                seen_from, rows = await sync_to_async(_new_rows)(self.seen)
            except Exception:
                log.exception("live: could not read the event log")
                await asyncio.sleep(1)
                continue
            for row in self.take(rows, loop.time(), seen_from):
                for sub in list(self.subscriptions):
                    if sub.channel.concerns(row):
                        sub.queue.put_nowait(row)
        self.started = asyncio.Event()  # the next subscriber starts a fresh poller


_hubs: dict[int, Hub] = {}


def hub() -> Hub:
    loop = asyncio.get_running_loop()
    found = _hubs.get(id(loop))
    if found is None:
        found = _hubs[id(loop)] = Hub()
    return found


async def events(channel: Channel, after: int | None, heartbeat: float,
                 seen: Callable[[], Any] | None = None) -> AsyncIterator[LiveEvent | None]:
    """The events of a channel as they happen: first those after id ``after`` from the log
    (a reconnect), then live ones; ``None`` every ``heartbeat`` seconds of silence (the caller
    writes a keep-alive). ``seen`` is awaited at most once a minute (LiveSeen)."""
    h = hub()
    # what the hub had handed out when this subscription began comes from the log, what it
    # hands out from then on through the queue: each row once
    sub, watermark, ahead = await h.subscribe(channel)
    try:
        if after is not None and (after < watermark or any(pk > after for pk in ahead)):
            rows, _ = await sync_to_async(backlog)(channel, after, 100_000)
            for row in rows:
                if row.pk <= watermark or row.pk in ahead:
                    yield row
        loop = asyncio.get_running_loop()
        next_seen = 0.0
        while True:
            if seen is not None and loop.time() >= next_seen:
                next_seen = loop.time() + 60
                with contextlib.suppress(Exception):
                    await seen()
            try:
                row = await asyncio.wait_for(sub.queue.get(), timeout=heartbeat)
            except TimeoutError:
                yield None
                continue
            if after is not None and row.pk <= after:
                continue  # a reconnect to a process whose hub is behind: the client has it
            yield row
    finally:
        h.unsubscribe(sub)


# --- "seen live" (emails that respect people) --------------------------------------------------


def mark_seen(user_id: int, game_id: int | None) -> None:
    """Record that the user has this game (or, with None, their event stream) live now."""
    _fresh()
    LiveSeen.objects.update_or_create(user_id=user_id, game_id=game_id, defaults={"at": timezone.now()})


def saw_live(user_id: int, game_id: int, since: datetime) -> bool:
    """Was the user connected live to the game (its page) or to their event stream at
    ``since`` or after? A connection refreshes its row every minute, so one open at ``since``
    has a row no older than a minute before it."""
    from django.db.models import Q

    return LiveSeen.objects.filter(Q(game_id=game_id) | Q(game_id__isnull=True), user_id=user_id,
                                   at__gte=since - timedelta(seconds=settings.LIVE_SEEN_SECONDS)).exists()


def dumps(data: Any) -> str:
    from rest_framework.utils.encoders import JSONEncoder

    return json.dumps(data, cls=JSONEncoder, separators=(",", ":"))
