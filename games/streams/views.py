"""The live streams (docs/live.md): async views, served by the ASGI server through
games.streams.asgi.StreamHandler (powerboats_site/asgi.py).

* ``/events/game/<id>/``, ``/events/me/``, ``/events/lobby/``, ``/events/series/`` (the
  series lobby) — Server-Sent Events for the pages
  (static/js/live.js). A page passes ``since`` (when it was rendered, in ms) so that nothing
  between its render and the connection is missed; the browser's reconnect sends
  ``Last-Event-ID``.
* ``/api/stream/events/`` — the user's events as NDJSON, lichess's bot API names: ``challenge``,
  ``challengeCanceled``, ``challengeDeclined``, ``challengeAccepted``, ``gameStart``,
  ``yourTurn``, ``gameFinish`` for every game (and for a series, as clients of the series API
  know them, ``seriesStart``, ``seriesFinish``, and ``series`` in ``yourTurn``); an empty line
  every ``LIVE_HEARTBEAT_SECONDS`` keeps it open.
* ``/api/games/<id>/stream/`` — a game as NDJSON: ``gameFull`` (the API GET of the game) first,
  then a ``gameState`` (the same, after each move) per move, ending after the game is over.

Everything a stream needs from the database — who is asking (session or token), their
language, whether the game exists, where the stream starts — is read in one call through
``live.DATABASE`` (the process's one live connection) before it starts waiting; while it waits
it holds no connection. The limits (games.streams.asgi.hold) are counted per player or session
and per address: over one, 429 (JSON; a page's stream gets the same status with a
text/event-stream ``retry:``, and live.js waits before it tries again).

Served by a sync (WSGI) server, which cannot hold a connection open without tying up a worker,
each answers at once with what there is (the events after ``Last-Event-ID``, the game's state)
and ends; an EventSource then simply reconnects after ``retry`` milliseconds.
"""

from __future__ import annotations

import asyncio
import random
import time
import weakref
import zoneinfo
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import import_module
from typing import Any, ParamSpec, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import auth
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils import timezone, translation
from django.utils.translation import gettext
from django.views.decorators.http import require_GET
from rest_framework.authtoken.models import Token

from accounts.throttle import client_ip
from common.middleware import use_players_language
from common.text import digits
from games.live import events as live
from games.live.models import LiveEvent
from games.models import Game
from games.selectors import detail_of, game_with_seats
from games.views import SPECTATOR_PARTS, asked_ply, part_key, part_response, spectator_part

from .asgi import address_key, busy, hold

NDJSON = "application/x-ndjson"
P = ParamSpec("P")
R = TypeVar("R")


def _error(status: int, code: str, message: str, field: str | None = None) -> JsonResponse:
    body = {"code": code, "message": message, **({"field": field} if field else {})}
    return JsonResponse(body, status=status)


def _streaming(request: HttpRequest) -> bool:
    return isinstance(request, ASGIRequest)


async def _db(request: HttpRequest, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """Run a read for a stream: on the ASGI server through the process's one live connection;
    under a sync server (which answers at once) in the request's own thread, as its other reads."""
    if _streaming(request):
        return await live.DATABASE.run(fn, *args, **kwargs)
    return await sync_to_async(fn)(*args, **kwargs)


# --- where a stream starts ------------------------------------------------------------------------


def _int_or_none(value: str | None) -> int | None:
    if value is None or value == "":
        return None
    if not digits(value) or len(value) > 18:
        raise ValueError(value)
    return int(value)


@dataclass(frozen=True)
class Start:
    """What the request says about where to start: after an id (``Last-Event-ID``), after a
    time (``since``, ms), or from now; or what is wrong with it."""

    after: int | None = None
    since: datetime | None = None
    error: tuple[str, str] | None = None  # (field, message id)


def _start(request: HttpRequest) -> Start:
    try:
        after = _int_or_none(request.headers.get("Last-Event-ID"))
    except ValueError:
        return Start(error=("Last-Event-ID", "last-event-id"))
    if after is not None:
        return Start(after=after)
    try:  # the same, for a client that opens a new stream itself (live.js after a pause or a refusal)
        after = _int_or_none(request.GET.get("after"))
    except ValueError:
        return Start(error=("after", "after"))
    if after is not None:
        return Start(after=after)
    try:
        since = _int_or_none(request.GET.get("since"))
    except ValueError:
        return Start(error=("since", "since-digits"))
    if since is None:
        return Start()
    if since > 10**14:
        return Start(error=("since", "since-range"))
    return Start(since=datetime.fromtimestamp(since / 1000, tz=UTC))


def _start_error(start: Start) -> JsonResponse | None:
    if start.error is None:
        return None
    field, which = start.error
    message = {
        "last-event-id": gettext("Last-Event-ID must be an event id (digits)"),
        "after": gettext("after must be an event id (digits)"),
        "since-digits": gettext("since must be a time in milliseconds since 1970 (digits)"),
        "since-range": gettext("since must be a time in milliseconds since 1970"),
    }[which]
    return _error(400, "invalid", message, field)


# --- who is asking: read once, before the stream waits ----------------------------------------------


@dataclass
class Opening:
    """What a stream needs from the database, read in one call (``_opening``)."""

    user: Any = None  # the player, or None
    client: str | None = None  # what the per-client limit counts: "user:<id>", "session:<key>"
    bad_token: bool = False  # an Authorization header that names no active player's token
    found: bool = True  # the game asked for exists
    after: int | None = None  # the stream starts after this event id (None: from now)


def _session_user(request: HttpRequest) -> tuple[Any, str | None]:
    if not hasattr(request, "session"):  # the stream handler has no session middleware
        engine = import_module(settings.SESSION_ENGINE)
        request.session = engine.SessionStore(request.COOKIES.get(settings.SESSION_COOKIE_NAME))
    user = auth.get_user(request)
    if user.is_authenticated:
        return user, f"user:{user.pk}"
    key = request.session.session_key  # None unless the cookie names a stored session
    return None, f"session:{key}" if key else None


class _Known:
    """Games known to exist, for a few minutes: a crowd opening streams on one game asks the
    database once (games are not deleted; a stream on one that was gets no event)."""

    def __init__(self, seconds: float = 300.0, size: int = 10_000) -> None:
        self.seconds, self.size = seconds, size
        self.until: dict[int, float] = {}

    def exists(self, pk: int) -> bool:
        key, now = pk, time.monotonic()
        if self.until.get(key, 0.0) > now:
            return True
        if not Game.objects.filter(pk=pk).exists():
            return False
        if len(self.until) >= self.size:
            self.until.clear()
        self.until[key] = now + self.seconds
        return True


_KNOWN = _Known()


def _opening(request: HttpRequest, start: Start, tokens: bool = False, game_id: int | None = None) -> Opening:
    opening = Opening()
    header = request.headers.get("Authorization", "") if tokens else ""
    if header:
        scheme, _, key = header.partition(" ")
        token = None
        if scheme.lower() == "token" and key.strip():
            token = Token.objects.select_related("user").filter(key=key.strip()).first()
        if token is None or not token.user.is_active:
            opening.bad_token = True
            return opening
        opening.user, opening.client = token.user, f"user:{token.user.pk}"
    else:
        opening.user, opening.client = _session_user(request)
    if game_id is not None:
        opening.found = _KNOWN.exists(game_id)
    if start.error is None:
        opening.after = start.after if start.since is None else live.last_id_before(start.since)
    return opening


async def _open(request: HttpRequest, tokens: bool = False, game_id: int | None = None) -> tuple[Start, Opening]:
    start = _start(request)
    opening = await _db(request, _opening, request, start, tokens, game_id)
    if opening.user is not None:
        use_players_language(request, opening.user)
    return start, opening


def _hold(request: HttpRequest, opening: Opening, event_stream: bool) -> HttpResponse | None:
    refused = hold(opening.client, address_key(client_ip(request)))
    return None if refused is None else busy(refused, event_stream)


def _streaming_response(body: AsyncIterator[str] | AsyncIterator[bytes], content_type: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(body, content_type=content_type)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


# --- the pages' streams (Server-Sent Events) ----------------------------------------------------------


KEEP_ALIVE = b": keep-alive\n\n"


async def _sse_stream(channel: live.Channel, after: int | None, seen: live.Mark | None) -> AsyncIterator[bytes]:
    # the browser comes back this long after the stream ends: between LIVE_RETRY_MS and three
    # times that, at random, so that a crowd whose server restarts does not all come back at once
    retry = random.randint(settings.LIVE_RETRY_MS, 3 * settings.LIVE_RETRY_MS)
    yield f"retry: {retry}\n: connected\n\n".encode()
    async for event in live.events(channel, after, settings.LIVE_HEARTBEAT_SECONDS, seen,
                                   settings.LIVE_STREAM_SECONDS):
        if isinstance(event, live.Beat):  # "id:" moves the browser's Last-Event-ID on, to resume from
            yield b"id: %d\n%s" % (event.position, KEEP_ALIVE)
        elif isinstance(event, live.Reset):  # too far back: the page reads the state afresh
            yield b"id: %d\nevent: reset\ndata: {}\n\n" % event.position
        else:
            yield live.sse(event)


def _at_once(channel: live.Channel, after: int | None, seen: live.Mark | None) -> str:
    """A sync server's answer: the events there are, and where to resume."""
    if seen is not None:
        live.mark_seen(*seen)
    start = live.last_id() if after is None else after
    rows, scanned = live.backlog(channel, start)
    # "id:" alone moves the browser's Last-Event-ID on, so its reconnect asks only for newer events
    events = b"".join(live.sse(row) for row in rows).decode()
    return f"retry: {settings.LIVE_RETRY_MS}\n\n{events}id: {scanned}\n\n"


async def _page_stream(request: HttpRequest, opening: Opening, channel: live.Channel,
                       seen_game: int | None = None) -> HttpResponseBase:
    """``seen_game``: the page's game, on which its player is marked "seen live"."""
    seen: live.Mark | None = None
    if opening.user is not None and seen_game is not None:
        seen = (opening.user.pk, seen_game)
    if not _streaming(request):
        body = await _db(request, _at_once, channel, opening.after, seen)
        return HttpResponse(body, content_type="text/event-stream")
    busy = _hold(request, opening, event_stream=True)
    if busy is not None:
        return busy
    return _streaming_response(_sse_stream(channel, opening.after, seen), "text/event-stream")


@require_GET
async def game_events(request: HttpRequest, game_id: int) -> HttpResponseBase:
    start, opening = await _open(request, game_id=game_id)
    if not opening.found:
        return _error(404, "not_found", gettext("no game %(game_id)s") % {"game_id": game_id}, "game")
    return _start_error(start) or await _page_stream(request, opening, live.Channel(game_id=game_id), game_id)


@require_GET
async def my_events(request: HttpRequest) -> HttpResponseBase:
    start, opening = await _open(request)
    if opening.user is None:
        return _error(401, "not_authenticated", gettext("log in to follow your games"))
    return _start_error(start) or await _page_stream(request, opening, live.Channel(user_id=opening.user.pk))


@require_GET
async def lobby_events(request: HttpRequest) -> HttpResponseBase:
    start, opening = await _open(request)
    user_id = opening.user.pk if opening.user is not None else None
    return _start_error(start) or await _page_stream(request, opening, live.Channel(user_id=user_id, lobby=True))


@require_GET
async def series_lobby_events(request: HttpRequest) -> HttpResponseBase:
    """The series lobby: the seats of open series, every series' start and end, and the user's own
    events (it refreshes its lists)."""
    start, opening = await _open(request)
    user_id = opening.user.pk if opening.user is not None else None
    return _start_error(start) or await _page_stream(request, opening,
                                                     live.Channel(user_id=user_id, series_lobby=True))


# --- the API's NDJSON streams -------------------------------------------------------------------


async def _ndjson_user(channel: live.Channel, user_id: int, after: int | None, seen: live.Mark) -> AsyncIterator[str]:
    yield "\n"  # the stream is open (lichess sends nothing until the first event; a line helps proxies)
    async for event in live.events(channel, after, settings.LIVE_HEARTBEAT_SECONDS, seen,
                                   settings.LIVE_STREAM_SECONDS):
        if isinstance(event, live.Beat):
            yield "\n"
        elif isinstance(event, live.Reset):  # too far back to replay: read your games and challenges afresh
            yield live.dumps({"type": "resync", "id": event.position}) + "\n"
        else:
            for line in live.user_event_lines(event, user_id):
                yield live.dumps(line) + "\n"


def _user_lines(channel: live.Channel, user_id: int, after: int | None) -> str:
    live.mark_seen(user_id, None)
    rows = [] if after is None else live.backlog(channel, after)[0]
    return "".join(live.dumps(line) + "\n" for row in rows for line in live.user_event_lines(row, user_id))


@require_GET
async def api_user_events(request: HttpRequest) -> HttpResponseBase:
    start, opening = await _open(request, tokens=True)
    if opening.user is None:
        return _error(401, "not_authenticated", gettext("a token (Authorization: Token …) or a session is needed"))
    refused = _start_error(start)
    if refused is not None:
        return refused
    user_id = opening.user.pk
    channel = live.Channel(user_id=user_id)
    if not _streaming(request):
        return HttpResponse(await _db(request, _user_lines, channel, user_id, opening.after), content_type=NDJSON)
    busy = _hold(request, opening, event_stream=False)
    if busy is not None:
        return busy
    return _streaming_response(_ndjson_user(channel, user_id, opening.after, (user_id, None)), NDJSON)


def _game_json(game_id: int, user: Any) -> dict[str, Any] | None:
    found = game_with_seats(game_id)
    if found is None:
        return None
    game, seats = found
    return detail_of(game, seats, user)


class _States:
    """The game's state after an event, as one viewer sees it, read once for all the game
    streams of this process that show it to the same kind of viewer: every spectator sees
    the same; a player sees their own choices. A crowd watching one game costs one read per
    move, not one per stream (streams asking at once wait for the same read)."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self.entries: OrderedDict[tuple[int, int, int | None, str], asyncio.Future[dict[str, Any] | None]] = \
            OrderedDict()

    async def get(self, game_id: int, event: LiveEvent, user: Any) -> dict[str, Any] | None:
        viewer = user.pk if user is not None and user.pk in live.users_of(event) else None
        key = (game_id, event.pk, viewer, translation.get_language() or "")
        found = self.entries.get(key)
        if found is None:
            found = self.entries[key] = asyncio.ensure_future(
                live.DATABASE.run(_game_json, game_id, user if viewer is not None else None))
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)
        try:
            return await asyncio.shield(found)
        except Exception:
            self.entries.pop(key, None)  # asked again by the next stream
            raise


_STATES = _States()


async def _ndjson_game(game_id: int, user: Any, first: dict[str, Any], after: int | None,
                       seen: live.Mark | None) -> AsyncIterator[str]:
    yield live.dumps({"type": "gameFull", **first}) + "\n"
    if first.get("status") != Game.Status.ACTIVE:
        return
    ply = int(first["ply"])
    async for event in live.events(live.Channel(game_id=game_id), after, settings.LIVE_HEARTBEAT_SECONDS, seen,
                                   settings.LIVE_STREAM_SECONDS):
        if not isinstance(event, LiveEvent):  # a heartbeat (it never resumes before now: no reset)
            yield "\n"
            continue
        if event.kind not in (LiveEvent.Kind.MOVE, LiveEvent.Kind.FINISH) or event.data.get("ply", ply + 1) <= ply:
            continue
        state = await _STATES.get(game_id, event, user)
        if state is None:
            return
        if state["ply"] > ply or state["status"] != Game.Status.ACTIVE:
            ply = state["ply"]
            yield live.dumps({"type": "gameState", **state}) + "\n"
        if state["status"] != Game.Status.ACTIVE:
            return


def _game_opening(request: HttpRequest, tokens: bool, game_id: int) -> tuple[Opening, dict[str, Any] | None]:
    opening = _opening(request, Start(), tokens)
    if opening.bad_token:
        return opening, None
    # from the last event now: a move made while the state below is read comes after it
    opening.after = live.last_id()
    return opening, _game_json(game_id, opening.user)


@require_GET
async def api_game_stream(request: HttpRequest, game_id: int) -> HttpResponseBase:
    tokens = bool(request.headers.get("Authorization"))
    opening, first = await _db(request, _game_opening, request, tokens, game_id)
    if opening.user is not None:
        use_players_language(request, opening.user)
    if opening.bad_token:
        return _error(401, "not_authenticated", gettext("invalid token"))
    if first is None:
        return _error(404, "not_found", gettext("no game %(game_id)s") % {"game_id": game_id}, "game")
    if not _streaming(request):
        return HttpResponse(live.dumps({"type": "gameFull", **first}) + "\n", content_type=NDJSON)
    busy = _hold(request, opening, event_stream=False)
    if busy is not None:
        return busy
    seen = (opening.user.pk, game_id) if opening.user is not None else None
    return _streaming_response(_ndjson_game(game_id, opening.user, first, opening.after, seen), NDJSON)


# --- the game page's part, for spectators -------------------------------------------------------


_RENDERING: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Any, asyncio.Future[Any]]] = \
    weakref.WeakKeyDictionary()


def _render_part(game_id: int, at: str, language: str, time_zone: str) -> Any:
    with translation.override(language), timezone.override(zoneinfo.ZoneInfo(time_zone)):
        return spectator_part(game_id, at)


@require_GET
async def game_part(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game page's changing part as every spectator sees it (templates/games/_game.html):
    what a spectator's open page morphs in on a live event (static/js/live.js; a player's page
    asks the site's games.views.game_live, which has their forms). Kept per move, replayed
    position, language and time zone in the process (games.views.SPECTATOR_PARTS): a crowd
    costs one render per move, each spectator a lookup here, with no thread and, unless they
    are logged in (their time zone), no query. An ordinary short request: no limit applies."""
    at = request.GET.get("at", "")
    if at and not digits(at):
        at = ""
    time_zone = "UTC"
    if request.COOKIES.get(settings.SESSION_COOKIE_NAME):
        user, _ = await _db(request, _session_user, request)
        if user is not None:
            use_players_language(request, user)
            time_zone = user.tz.key
    language = translation.get_language() or settings.LANGUAGE_CODE
    asked = asked_ply(request.GET.get("ply", ""))
    with timezone.override(zoneinfo.ZoneInfo(time_zone)):
        key = part_key(game_id, -1 if asked is None else asked, at)
    kept = SPECTATOR_PARTS.get(key)
    if kept is None:
        # the crowd asks at once: one render, which every spectator asking meanwhile waits for
        flights = live.per_loop(_RENDERING, dict)
        flight = flights.get(key)
        if flight is None:
            flight = flights[key] = asyncio.ensure_future(_db(request, _render_part, game_id, at, language, time_zone))
            flight.add_done_callback(lambda _: flights.pop(key, None))
        kept = await asyncio.shield(flight)
    if kept is None:
        return _error(404, "not_found", gettext("no game %(game_id)s") % {"game_id": game_id}, "game")
    return part_response(kept.html)
