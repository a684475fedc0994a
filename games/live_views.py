"""The live streams (docs/live.md): async views, served by the ASGI server (powerboats_site/asgi.py).

* ``/events/game/<id>/``, ``/events/me/``, ``/events/lobby/``, ``/events/series/<id>/``,
  ``/events/series/`` (the series lobby) — Server-Sent Events for the pages
  (static/js/live.js). A page passes ``since`` (when it was rendered, in ms) so that nothing
  between its render and the connection is missed; the browser's reconnect sends
  ``Last-Event-ID``.
* ``/api/stream/events/`` — the user's events as NDJSON, lichess's bot API names: ``challenge``,
  ``challengeCanceled``, ``challengeDeclined``, ``challengeAccepted``, ``gameStart``,
  ``yourTurn``, ``gameFinish``; an empty line every ``LIVE_HEARTBEAT_SECONDS`` keeps it open.
* ``/api/games/<id>/stream/`` — a game as NDJSON: ``gameFull`` (the API GET of the game) first,
  then a ``gameState`` (the same, after each move) per move, ending after the game is over.

Served by a sync (WSGI) server, which cannot hold a connection open without tying up a worker,
each answers at once with what there is (the events after ``Last-Event-ID``, the game's state)
and ends; an EventSource then simply reconnects after ``retry`` milliseconds.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET
from rest_framework.authtoken.models import Token

from powerboats_site.strict import digits

from . import live
from .models import Game, LiveEvent
from .payloads import game_detail
from .selectors import MOVE_LIST_COLUMNS, game_with_seats, history

NDJSON = "application/x-ndjson"


def _error(status: int, code: str, message: str, field: str | None = None) -> JsonResponse:
    body = {"code": code, "message": message, **({"field": field} if field else {})}
    return JsonResponse(body, status=status)


def _int_or_none(value: str | None) -> int | None:
    if value is None or value == "":
        return None
    if not digits(value) or len(value) > 18:
        raise ValueError(value)
    return int(value)


async def _start(request: HttpRequest) -> int | JsonResponse | None:
    """Where a stream starts: after ``Last-Event-ID`` (a reconnect), else after the last event
    before ``since`` (ms since the epoch: when the page was rendered), else from now (None)."""
    try:
        after = _int_or_none(request.headers.get("Last-Event-ID"))
    except ValueError:
        return _error(400, "invalid", gettext("Last-Event-ID must be an event id (digits)"), "Last-Event-ID")
    if after is not None:
        return after
    try:
        since = _int_or_none(request.GET.get("since"))
    except ValueError:
        return _error(400, "invalid", gettext("since must be a time in milliseconds since 1970 (digits)"), "since")
    if since is None:
        return None
    if since > 10**14:
        return _error(400, "invalid", gettext("since must be a time in milliseconds since 1970"), "since")
    when = datetime.fromtimestamp(since / 1000, tz=UTC)
    return await sync_to_async(live.last_id_before)(when)


async def _api_user(request: HttpRequest) -> Any:
    """The user of a token (``Authorization: Token …``) or of the session, or None."""
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _, key = header.partition(" ")
        if scheme.lower() != "token" or not key.strip():
            return None
        token = await Token.objects.select_related("user").filter(key=key.strip()).afirst()
        return token.user if token and token.user.is_active else None
    user = await request.auser()  # type: ignore[attr-defined]
    return user if user.is_authenticated else None


def _streaming(request: HttpRequest) -> bool:
    return isinstance(request, ASGIRequest)


def _sse(event: LiveEvent) -> str:
    return f"id: {event.pk}\nevent: {event.kind}\ndata: {live.dumps(live.event_json(event))}\n\n"


async def _sse_stream(channel: live.Channel, after: int | None, seen: Any) -> AsyncIterator[str]:
    yield f"retry: {settings.LIVE_RETRY_MS}\n: connected\n\n"
    async for event in live.events(channel, after, settings.LIVE_HEARTBEAT_SECONDS, seen):
        yield ": keep-alive\n\n" if event is None else _sse(event)


async def _page_stream(request: HttpRequest, channel: live.Channel, seen: Any = None) -> HttpResponse:
    start = await _start(request)
    if isinstance(start, JsonResponse):
        return start
    if not _streaming(request):  # a sync server: what there is, then the browser reconnects
        if seen is not None:
            await seen()
        if start is None:
            start = await sync_to_async(live.last_id)()
        rows, scanned = await sync_to_async(live.backlog)(channel, start)
        # "id:" alone moves the browser's Last-Event-ID on, so its reconnect asks only for newer events
        position = f"id: {scanned}\n\n"
        body = f"retry: {settings.LIVE_RETRY_MS}\n\n" + "".join(_sse(row) for row in rows) + position
        return HttpResponse(body, content_type="text/event-stream")
    response = StreamingHttpResponse(_sse_stream(channel, start, seen), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


def _seen(user: Any, game_id: int | None) -> Any:
    if user is None or not user.is_authenticated:
        return None

    async def seen() -> None:
        await sync_to_async(live.mark_seen)(user.pk, game_id)

    return seen


@require_GET
async def game_events(request: HttpRequest, game_id: int) -> HttpResponse:
    if not await Game.objects.filter(pk=game_id).aexists():
        return _error(404, "not_found", gettext("no game %(game_id)s") % {"game_id": game_id}, "game")
    user = await request.auser()  # type: ignore[attr-defined]
    return await _page_stream(request, live.Channel(game_id=game_id), _seen(user, game_id))


@require_GET
async def my_events(request: HttpRequest) -> HttpResponse:
    user = await request.auser()  # type: ignore[attr-defined]
    if not user.is_authenticated:
        return _error(401, "not_authenticated", gettext("log in to follow your games"))
    return await _page_stream(request, live.Channel(user_id=user.pk))


@require_GET
async def lobby_events(request: HttpRequest) -> HttpResponse:
    user = await request.auser()  # type: ignore[attr-defined]
    return await _page_stream(request, live.Channel(user_id=user.pk if user.is_authenticated else None, lobby=True))


@require_GET
async def series_events(request: HttpRequest, series_id: int) -> HttpResponse:
    """A series' page (issue 16): its changes, as the game page's stream."""
    from .models_series import SeriesGame

    if not await SeriesGame.objects.filter(pk=series_id).aexists():
        return _error(404, "not_found", f"no series {series_id}", "series")
    return await _page_stream(request, live.Channel(series_id=series_id))


@require_GET
async def series_lobby_events(request: HttpRequest) -> HttpResponse:
    """The series lobby: every change of every series (it refreshes its lists)."""
    return await _page_stream(request, live.Channel(series_lobby=True))


# --- the API's NDJSON streams -------------------------------------------------------------------


async def _ndjson_user(channel: live.Channel, user_id: int, after: int | None, seen: Any) -> AsyncIterator[str]:
    yield "\n"  # the stream is open (lichess sends nothing until the first event; a line helps proxies)
    async for event in live.events(channel, after, settings.LIVE_HEARTBEAT_SECONDS, seen):
        if event is None:
            yield "\n"
            continue
        out = live.user_event_json(event, user_id)
        if out is not None:
            yield live.dumps(out) + "\n"


@require_GET
async def api_user_events(request: HttpRequest) -> HttpResponse:
    user = await _api_user(request)
    if user is None:
        return _error(401, "not_authenticated", gettext("a token (Authorization: Token …) or a session is needed"))
    start = await _start(request)
    if isinstance(start, JsonResponse):
        return start
    channel = live.Channel(user_id=user.pk)
    seen = _seen(user, None)
    if not _streaming(request):
        await seen()
        rows = [] if start is None else (await sync_to_async(live.backlog)(channel, start))[0]
        lines = [live.user_event_json(row, user.pk) for row in rows]
        return HttpResponse("".join(live.dumps(x) + "\n" for x in lines if x is not None), content_type=NDJSON)
    response = StreamingHttpResponse(_ndjson_user(channel, user.pk, start, seen), content_type=NDJSON)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


def _game_json(game_id: int, user: Any) -> dict[str, Any] | None:
    from django.contrib.auth.models import AnonymousUser
    live._fresh()
    found = game_with_seats(game_id)
    if found is None:
        return None
    game, seats = found
    return game_detail(game, user or AnonymousUser(), seats, moves=history(game, MOVE_LIST_COLUMNS))


async def _ndjson_game(game_id: int, user: Any, first: dict[str, Any], after: int | None,
                       seen: Any) -> AsyncIterator[str]:
    yield live.dumps({"type": "gameFull", **first}) + "\n"
    if first.get("status") != Game.Status.ACTIVE:
        return
    ply = first.get("ply")
    async for event in live.events(live.Channel(game_id=game_id), after, settings.LIVE_HEARTBEAT_SECONDS, seen):
        if event is None:
            yield "\n"
            continue
        if event.kind not in (LiveEvent.Kind.MOVE, LiveEvent.Kind.FINISH) or event.data.get("ply", ply + 1) <= ply:
            continue
        state = await sync_to_async(_game_json)(game_id, user)
        if state is None:
            return
        if state["ply"] > ply or state["status"] != Game.Status.ACTIVE:
            ply = state["ply"]
            yield live.dumps({"type": "gameState", **state}) + "\n"
        if state["status"] != Game.Status.ACTIVE:
            return


@require_GET
async def api_game_stream(request: HttpRequest, game_id: int) -> HttpResponse:
    user = None
    if request.headers.get("Authorization"):
        user = await _api_user(request)
        if user is None:
            return _error(401, "not_authenticated", gettext("invalid token"))
    else:
        session_user = await request.auser()  # type: ignore[attr-defined]
        user = session_user if session_user.is_authenticated else None
    # from the last event now: a move made while the state below is read comes after it
    after = await sync_to_async(live.last_id)()
    first = await sync_to_async(_game_json)(game_id, user)
    if first is None:
        return _error(404, "not_found", gettext("no game %(game_id)s") % {"game_id": game_id}, "game")
    if not _streaming(request):
        return HttpResponse(live.dumps({"type": "gameFull", **first}) + "\n", content_type=NDJSON)
    response = StreamingHttpResponse(_ndjson_game(game_id, user, first, after, _seen(user, game_id)),
                                     content_type=NDJSON)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
