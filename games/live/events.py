"""Live events (docs/live.md): an append-only log in the database, read by every web process.

Publishing is one INSERT of a ``LiveEvent`` row. A move's event, a game's end, a new game's
start and first turn, and a change of an open game's seats are written in the transaction of
what caused them, with its other writes (common.db.writing): the event exists exactly when the move
does, and costs the turn no statement of its own; every game, of any ruleset, the same way.
Other events (a challenge's change, a chat line) are published by the receivers in
``games/receivers.py`` after their commit.

Reading is done by the async stream views (``games/streams/views.py``) under the ASGI server
(``games/streams/asgi.py``: Django's ASGI handler without the site's middleware and without a
thread per request). Every database read and write a stream makes — who is asking, where it
starts, its backlog, "seen live" — and the hub's polls go through ``DATABASE``: one thread and
one context per process, so one connection per process however many streams are open (a
stream never holds one while it waits). Each server process has one ``Hub`` per event loop: a single task that polls the log for rows newer
than the last it saw (one indexed query every ``LIVE_POLL_SECONDS``, whatever the number of
connections) and hands each row to the queues of the connections it concerns. Rows may become
visible out of id order (transactions commit in any order), so the hub waits for a missing id
as long as the transaction that took it may still commit (``Hub.take``). A connection that comes back sends
``Last-Event-ID`` and is first given the rows after it from the log itself, so a web process
restart or a dropped connection loses nothing (but an event committed out of order within the
moment of the reconnection, ~ms).

Who sees what (``concerns``):
* a game's stream: that game's moves, start and end, and an open game's seat changes (anyone
  may watch, as the game page);
* a user's stream: the games they play (an event names them in ``users``) and the challenges
  they made or were named in;
* the lobby: every challenge change, every game start and end, and the user's own events;
* the series lobby: every change of an open series' seats, every series' start and end.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import json
import logging
import random
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ParamSpec, TypeVar

from django.conf import settings
from django.db import close_old_connections, connection
from django.db.models import Q
from django.utils import timezone

from common.db.writing import Writes

from .models import LiveEvent, LiveSeen

log = logging.getLogger(__name__)

# --- publishing (sync, after commit) ----------------------------------------------------------


def publish(*, kind: str, game_id: int | None = None, challenge_id: int | None = None,
            users: Iterable[int] = (), **data: Any) -> LiveEvent | None:
    """Append one event to the log (one INSERT). Never raises: a failed publish must not undo
    or fail the move that committed already; the pages catch up on their next event or load."""
    try:
        event = new_event(kind=kind, game_id=game_id, challenge_id=challenge_id, users=users, **data)
        writes = Writes()  # its SQL put together once per process (~0.2 ms of CPU less than objects.create)
        writes.insert([event])
        writes.send()
        return event
    except Exception:
        log.exception("could not publish the live event %s (game %s, challenge %s)", kind, game_id, challenge_id)
        return None


def new_event(*, kind: str, game_id: int | None = None, challenge_id: int | None = None, users: Iterable[int] = (),
              **data: Any) -> LiveEvent:
    """An event (not saved): for a change whose event is written in its own transaction, as a
    move's is (games.services: with the move's other writes, so the event exists exactly when
    the move does and costs no statement of its own). ``users``: who is told on their own
    streams."""
    return LiveEvent(kind=kind, game_id=game_id, challenge_id=challenge_id, users=[int(u) for u in users], data=data)


def series_of(game: Any, ply: int | None = None) -> dict[str, Any]:
    """What an event of a game of the boxed rules also says: its number as a series, and for its
    start and end the ply (the API's user stream tells clients of the series API ``seriesStart``,
    ``yourTurn`` and ``seriesFinish`` by them)."""
    if game.series_number is None:
        return {}
    return {"series": game.series_number, **({"ply": ply} if ply is not None else {})}


def move_event(game: Any, ply: int, to_move: int | None, turn_passed: bool) -> LiveEvent:
    """The event of an action (or of a game's start, at ply 0): who is to move now, and whether
    the turn passed to them."""
    return new_event(kind=LiveEvent.Kind.MOVE, game_id=game.pk, users=game.player_ids, ply=ply, to_move=to_move,
                     turn_passed=turn_passed, **series_of(game))


def write(event: LiveEvent) -> None:
    """Write an event in the caller's transaction (one INSERT): it exists exactly when the
    change does. Unlike ``publish`` an error is not swallowed, since it fails the transaction."""
    writes = Writes()
    writes.insert([event])
    writes.send()


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
    out.update(event.data)  # (who is told, ``users``, is the server's business)
    return out


def sse(event: LiveEvent) -> bytes:
    """The event as one Server-Sent Event, made (and encoded) once per event however many
    streams send it."""
    data: bytes | None = getattr(event, "_sse", None)
    if data is None:
        data = f"id: {event.pk}\nevent: {event.kind}\ndata: {dumps(event_json(event))}\n\n".encode()
        event._sse = data  # type: ignore[attr-defined]
    return data


def user_event_json(event: LiveEvent, user_id: int) -> dict[str, Any] | None:
    """The event as the API's user stream sends it, with lichess's names (``challenge``,
    ``challengeCanceled``, ``challengeDeclined``, ``challengeAccepted``, ``gameStart``,
    ``yourTurn``, ``gameFinish``); None for an event this user is not told about (a move that
    does not give them the turn). Every game alike; a series' ``yourTurn`` also names it as
    ``series`` (its number and ply), for clients of the series API."""
    data = event.data
    if event.kind == LiveEvent.Kind.CHALLENGE:
        status = data.get("status")
        kind = {"open": "challenge", "cancelled": "challengeCanceled", "declined": "challengeDeclined",
                "accepted": "challengeAccepted"}.get(status, "challenge")
        return {"type": kind, "id": event.pk, "challenge": {
            "id": event.challenge_id, "status": status, "created_by": data.get("created_by"),
            "opponent": data.get("opponent"), "game": data.get("game")}}
    if event.kind == LiveEvent.Kind.START:
        return {"type": "gameStart", "id": event.pk, "game": {"id": event.game_id}}
    if event.kind == LiveEvent.Kind.FINISH:
        winner = data.get("winner")
        outcome = "draw" if winner is None else "won" if winner == user_id else "lost"
        return {"type": "gameFinish", "id": event.pk, "game": {"id": event.game_id, "outcome": outcome}}
    if event.kind == LiveEvent.Kind.MOVE and data.get("to_move") == user_id and data.get("turn_passed"):
        line: dict[str, Any] = {"type": "yourTurn", "id": event.pk, "game": {"id": event.game_id,
                                                                             "ply": data.get("ply")}}
        if data.get("series") is not None:
            line["series"] = {"id": data["series"], "ply": data.get("ply")}
        return line
    return None


def user_event_lines(event: LiveEvent, user_id: int) -> list[dict[str, Any]]:
    """What the API's user stream tells this user of an event: ``user_event_json``'s line, and for
    a series (a game of the boxed rules) the line clients of the series API know besides a
    game's start and end: ``seriesStart`` and ``seriesFinish`` with its number."""
    if user_id not in users_of(event):
        return []
    line = user_event_json(event, user_id)
    lines = [] if line is None else [line]
    series = event.data.get("series")
    if series is not None and event.kind in (LiveEvent.Kind.START, LiveEvent.Kind.FINISH):
        kind = "seriesStart" if event.kind == LiveEvent.Kind.START else "seriesFinish"
        lines.append({"type": kind, "id": event.pk, "series": {"id": series, "ply": event.data.get("ply")}})
    return lines


# --- who sees what -----------------------------------------------------------------------------

Key = tuple[str, int]  # what the hub files a subscription under: ("game", id), ("user", id), ...
LOBBY: Key = ("lobby", 0)
SERIES_LOBBY: Key = ("series-lobby", 0)


@dataclass(frozen=True)
class Channel:
    """What one connection listens to: a game, a user's games and challenges, the lobby, the
    series lobby (the seats of open series, every series' start and end)."""

    game_id: int | None = None
    user_id: int | None = None
    lobby: bool = False
    series_lobby: bool = False

    def concerns(self, event: LiveEvent) -> bool:
        if self.series_lobby and in_series_lobby(event):
            return True
        if self.game_id is not None:
            return event.game_id == self.game_id
        if self.user_id is not None and self.user_id in users_of(event):
            return True
        if self.lobby:
            return event.kind in (LiveEvent.Kind.CHALLENGE, LiveEvent.Kind.START, LiveEvent.Kind.FINISH)
        return False

    def keys(self) -> list[Key]:
        """Where the hub files this channel: every event it concerns has one of these keys."""
        if self.game_id is not None:
            return [("game", self.game_id)]
        keys: list[Key] = [("user", self.user_id)] if self.user_id is not None else []
        if self.series_lobby:
            keys.append(SERIES_LOBBY)
        return [*keys, LOBBY] if self.lobby else keys


def in_series_lobby(event: LiveEvent) -> bool:
    """What the series lobby shows changed: an open series' seats, a series' start or end."""
    return event.kind == LiveEvent.Kind.SEATS or (
        event.kind in (LiveEvent.Kind.START, LiveEvent.Kind.FINISH) and event.data.get("series") is not None)


def users_of(event: LiveEvent) -> list[int]:
    """The people an event concerns on their own streams: a game's players, a challenge's maker
    and named opponent."""
    return [u for u in (event.users or ()) if isinstance(u, int)]


def keys_of(event: LiveEvent) -> list[Key]:
    """The keys under which the channels an event may concern are filed (Channel.keys)."""
    keys: list[Key] = [("user", u) for u in users_of(event)]
    if event.game_id is not None:
        keys.append(("game", event.game_id))
    if in_series_lobby(event):
        keys.append(SERIES_LOBBY)
    if event.kind in (LiveEvent.Kind.CHALLENGE, LiveEvent.Kind.START, LiveEvent.Kind.FINISH):
        keys.append(LOBBY)
    return keys


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
    seen_from = horizon()
    return seen_from, list(LiveEvent.objects.filter(pk__gt=after).order_by("pk")[:limit])


# --- the streams' one database connection per process ------------------------------------------

P = ParamSpec("P")
R = TypeVar("R")


class Database:
    """Where every database read and write of the live streams of this process runs: one
    thread, and in it one ``contextvars.Context`` that is never left. Django keeps its
    connections per context (asgiref's Local): so all streams share one connection, kept
    (``CONN_MAX_AGE``) and checked (``_fresh``) as a request's would be, and none is made per
    stream — Django's own ``sync_to_async`` would make one in each request's context, and keep
    it after the stream closed. The work is short (a stream's first reads, a poll, a batch of
    "seen" marks) and runs one at a time, in the order asked."""

    def __init__(self) -> None:
        self._executor: ThreadPoolExecutor | None = None
        self._context = contextvars.Context()
        self._lock = threading.Lock()
        self._checked = 0.0

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-db")
            return self._executor

    def _call(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        now = time.monotonic()
        if now - self._checked >= 1.0:  # as a request's start would (a health check costs a query)
            self._checked = now
            _fresh()
        try:
            return fn(*args, **kwargs)
        except Exception:
            self._checked = 0.0  # look at the connection again before the next call
            raise

    async def run(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        call = functools.partial(self._context.run, self._call, fn, *args, **kwargs)  # type: ignore[arg-type]
        return await asyncio.get_running_loop().run_in_executor(self._pool(), call)

    def close(self) -> None:
        """Close this process's live connection (tests; a server's shutdown)."""
        with self._lock:
            executor = self._executor
        if executor is not None:
            # ``connection`` looked up in the live thread's context, not this one's
            executor.submit(self._context.run, lambda: connection.close()).result()


DATABASE = Database()  # the streams' first reads and backlogs
HUB_DATABASE = Database()  # the hub's polls and "seen live" marks: never queued behind a crowd's reconnects


# --- the hub: one poller per event loop --------------------------------------------------------

# (user, game): a game's page, or with none the user's event stream
Mark = tuple[int, int | None]


END = object()  # put in a subscription's queue: its stream ends
BACKLOG_MAX = 1000  # a client that resumes further back than this many ids is told to start afresh


@dataclass(frozen=True)
class Beat:
    """A heartbeat, with the position a client may resume from (every id up to it is behind it)."""

    position: int


@dataclass(frozen=True)
class Reset:
    """The client resumed too far back to be given what it missed one event at a time: it should
    read the state afresh (a page fetches itself; an API client reads its games), then go on from
    ``position``."""

    position: int


@dataclass(eq=False)
class Subscription:
    """One open stream, as the hub tends it: its queue (live events; ``None``, a heartbeat; or
    ``END``), when it was last given something, when it ends, and whose "seen live" it marks."""

    channel: Channel
    heartbeat: float
    last: float  # the loop's clock when it was last given an event or a heartbeat
    end: float | None = None  # its stream ends then (the loop's clock)
    seen: Mark | None = None
    next_seen: float = 0.0
    queue: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)
    done: bool = False


GAP_SECONDS = 10.0  # without a horizon (SQLite): how long a missing id is waited for
IN_FLIGHT = 10_000  # ids further back than this behind the newest are not waited for
START_BACK = 1000  # a hub that starts looks this many ids back for ones still committing
SEEN_EVERY = 60.0  # an open stream marks its player "seen live" this often (LiveSeen)
SEEN_FLUSH = 1.0  # the hub writes the marks of all its streams at most this often, together
FAN_SLICE = 200  # the hub lets the loop run other work after offering an event to this many streams
TEND_EVERY = 1.0  # the hub gives heartbeats, ends streams and marks "seen live" this often


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
    has one writer at a time: ids commit in order) for ``GAP_SECONDS``.

    Subscriptions are filed by key (``Channel.keys``), so an event is offered only to the
    streams it may concern, not to every open stream. Once a second (``tend``) the hub gives a
    heartbeat to each stream that was quiet for its heartbeat interval, ends the streams whose
    time is up, and marks "seen live" the players whose mark is due: a waiting stream holds
    no timer of its own. The marks of all streams are written together, at most every
    ``SEEN_FLUSH`` seconds, in one batch."""

    def __init__(self) -> None:
        self.subscriptions: set[Subscription] = set()
        self.by_key: dict[Key, set[Subscription]] = {}
        self.seen = -1  # the watermark; -1 until the first poll
        self.ahead: set[int] = set()  # ids above the watermark handed out already
        self.missing: dict[int, Missing] = {}  # ids above the watermark not seen yet
        self.task: asyncio.Task[None] | None = None
        self.started = asyncio.Event()
        self.marks: dict[Mark, datetime] = {}
        self.flushed = 0.0
        self.tended = 0.0

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

    async def subscribe(self, channel: Channel, heartbeat: float, lifetime: float | None = None,
                        seen: Mark | None = None) -> tuple[Subscription, int, frozenset[int]]:
        """A subscription, and what the hub had handed out when it began (the watermark and
        the ids above it): the queue gets exactly what is handed out after that. It ends
        after ``lifetime`` seconds (a little less, at random, so that streams opened together
        do not all come back together); ``seen`` is marked now and every ``SEEN_EVERY``."""
        now = asyncio.get_running_loop().time()
        end = None if lifetime is None else now + lifetime * random.uniform(0.9, 1.0)
        sub = Subscription(channel, heartbeat, now, end, seen, now + SEEN_EVERY)
        if seen is not None:
            self.mark_seen(*seen)
        self.subscriptions.add(sub)
        for key in channel.keys():
            self.by_key.setdefault(key, set()).add(sub)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())
        if not self.started.is_set():
            try:
                await self.started.wait()  # the hub sets it before its first read: no row in between
            except BaseException:  # the client left while the hub started: nothing of it stays
                self.unsubscribe(sub)
                raise
        return sub, self.seen, frozenset(self.ahead)

    def unsubscribe(self, sub: Subscription) -> None:
        self.subscriptions.discard(sub)
        for key in sub.channel.keys():
            subs = self.by_key.get(key)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self.by_key[key]

    @staticmethod
    def end(sub: Subscription) -> None:
        """End a stream now: what waits in its queue is dropped (the client resumes after the
        last event it got, with Last-Event-ID)."""
        if sub.done:
            return
        sub.done = True
        while not sub.queue.empty():
            sub.queue.get_nowait()
        sub.queue.put_nowait(END)

    def tend(self, now: float) -> None:
        """Heartbeats for quiet streams, the end of streams whose time is up, due marks."""
        for sub in self.subscriptions:
            if sub.done:
                continue
            if sub.end is not None and now >= sub.end:
                self.end(sub)
                continue
            if now - sub.last >= sub.heartbeat:
                sub.last = now
                if sub.queue.empty():
                    # every id up to the watermark is in the queues by now (tend runs after the
                    # last fan-out): a client may resume from it
                    sub.queue.put_nowait(Beat(self.seen))
            if sub.seen is not None and now >= sub.next_seen:
                sub.next_seen = now + SEEN_EVERY
                self.mark_seen(*sub.seen)

    def mark_seen(self, user_id: int, game_id: int | None) -> None:
        """A stream's player has the game (none: their event stream) live now: written with the
        other streams' marks at the next flush (LiveSeen; a held your-turn email is dropped for a
        move seen live)."""
        self.marks[(user_id, game_id)] = timezone.now()

    async def fan_out(self, rows: Iterable[LiveEvent], now: float = 0.0) -> None:
        """Offer each row to the streams it concerns. After every ``FAN_SLICE`` of them the
        loop runs what else is ready (those streams' writes, the pages and API answers of this
        process): a crowd of thousands on one game does not hold up everything else for the
        whole of its fan-out."""
        limit = settings.LIVE_QUEUE_EVENTS
        given = 0
        for row in rows:
            offered: set[Subscription] = set()
            for key in keys_of(row):
                offered.update(self.by_key.get(key, ()))
            for sub in offered:
                if sub.done or not sub.channel.concerns(row):
                    continue
                if sub.queue.qsize() >= limit:
                    self.end(sub)  # the client reads too slowly: it resumes from the log
                    continue
                sub.queue.put_nowait(row)
                sub.last = now
                given += 1
                if given % FAN_SLICE == 0:
                    await asyncio.sleep(0)

    async def _flush_marks(self, now: float) -> None:
        if not self.marks or now - self.flushed < SEEN_FLUSH:
            return
        marks, self.marks, self.flushed = self.marks, {}, now
        try:
            await HUB_DATABASE.run(mark_seen_many, marks)
        except Exception:
            log.exception("live: could not record %d seen-live marks", len(marks))

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                # what is in the log is the past; an id still committing near its end is not
                start = max(await HUB_DATABASE.run(last_id) - START_BACK, 0)
                seen_from, rows = await HUB_DATABASE.run(_new_rows, start, START_BACK + 1)
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
        while self.subscriptions or self.marks:
            await asyncio.sleep(interval)
            now = loop.time()
            if now - self.tended >= TEND_EVERY:
                self.tended = now
                self.tend(now)
            await self._flush_marks(now)
            if not self.subscriptions:
                continue
            try:
                seen_from, rows = await HUB_DATABASE.run(_new_rows, self.seen)
            except Exception:
                log.exception("live: could not read the event log")
                await asyncio.sleep(1)
                continue
            now = loop.time()
            await self.fan_out(self.take(rows, now, seen_from), now)
        self.started = asyncio.Event()  # the next subscriber starts a fresh poller


T = TypeVar("T")


def per_loop(registry: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T], make: Callable[[], T]) -> T:
    """The one ``T`` of the running event loop (a server process has one loop; tests make many,
    and a closed loop's is dropped with it)."""
    loop = asyncio.get_running_loop()
    found = registry.get(loop)
    if found is None:
        found = registry[loop] = make()
    return found


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def hub() -> Hub:
    return per_loop(_hubs, Hub)


async def events(channel: Channel, after: int | None, heartbeat: float, seen: Mark | None = None,
                 lifetime: float | None = None) -> AsyncIterator[LiveEvent | Beat | Reset]:
    """The events of a channel as they happen: first those after id ``after`` from the log (a
    reconnect; ``Reset`` instead when that is more than ``BACKLOG_MAX`` ids back: a page that
    was left for days, ``since=0``), then live ones; a ``Beat`` after about ``heartbeat`` seconds
    of silence (the caller writes a keep-alive, with the position to resume from). ``seen``: the
    player and game marked "seen live" when it begins and every ``SEEN_EVERY`` seconds. It ends
    after about ``lifetime`` seconds, or when the client reads so slowly that
    ``LIVE_QUEUE_EVENTS`` events wait for it: the client resumes from the log with
    ``Last-Event-ID``. (The hub's ``tend`` gives the heartbeats and the end: waiting costs no
    timer.)"""
    h = hub()
    # what the hub had handed out when this subscription began comes from the log, what it
    # hands out from then on through the queue: each row once
    sub, watermark, ahead = await h.subscribe(channel, heartbeat, lifetime, seen)
    replayed: set[int] = set()
    try:
        top = max([watermark, *ahead])  # the newest id handed out so far
        if after is not None and top - after > BACKLOG_MAX:
            yield Reset(top)  # the client reads the state afresh: what came before now is in it
            after = top
        elif after is not None and (after < watermark or any(pk > after for pk in ahead)):
            rows, _ = await DATABASE.run(backlog, channel, after, top - after + 1)
            for row in rows:
                if row.pk <= watermark or row.pk in ahead:
                    replayed.add(row.pk)
                    yield row
        floor = after or 0
        while True:
            item = await sub.queue.get()
            if item is END:
                return
            if isinstance(item, Beat):
                yield Beat(max(item.position, floor))
                continue
            if item.pk in replayed or (after is not None and item.pk <= after):
                # given from the log already (a fan-out that let this stream subscribe halfway
                # through it), or a reconnect to a process whose hub is behind: the client has it
                continue
            yield item
    finally:
        h.unsubscribe(sub)


# --- "seen live" (emails that respect people) --------------------------------------------------


def mark_seen(user_id: int, game_id: int | None) -> None:
    """Record that the user has this game (none: their event stream) live now."""
    mark_seen_many({(user_id, game_id): timezone.now()})


def mark_seen_many(marks: dict[Mark, datetime]) -> None:
    """Record many "seen live" marks at once: one UPDATE of the rows there are, one INSERT of
    the others (a stream's hub writes its streams' marks together)."""
    items = list(marks.items())
    for start in range(0, len(items), 500):
        chunk = dict(items[start:start + 500])
        where = Q()
        for user_id, game_id in chunk:
            where |= Q(user_id=user_id, game_id__isnull=game_id is None,
                       **({"game_id": game_id} if game_id is not None else {}))
        # the oldest time of the batch for all: a mark is never later than its stream was there
        at = min(chunk.values())
        found = {(u, g): pk for pk, u, g in LiveSeen.objects.filter(where).values_list("pk", "user_id", "game_id")}
        if found:
            LiveSeen.objects.filter(pk__in=found.values()).update(at=at)
        new = [LiveSeen(user_id=u, game_id=g, at=at) for (u, g) in chunk if (u, g) not in found]
        if new:
            LiveSeen.objects.bulk_create(new, ignore_conflicts=True)


def _recent(since: datetime) -> datetime:
    return since - timedelta(seconds=settings.LIVE_SEEN_SECONDS)


def saw_live(user_id: int, game_id: int, since: datetime) -> bool:
    """Was the user connected live to the game (its page) or to their event stream at
    ``since`` or after? A connection refreshes its row every minute, so one open at ``since``
    has a row no older than a minute before it."""
    return LiveSeen.objects.filter(Q(game_id=game_id) | Q(game_id__isnull=True), user_id=user_id,
                                   at__gte=_recent(since)).exists()


def dumps(data: Any) -> str:
    from rest_framework.utils.encoders import JSONEncoder

    return json.dumps(data, cls=JSONEncoder, separators=(",", ":"))
