"""How the live streams are served (docs/live.md): Django's ASGI handler, fitted for thousands
of connections that each last for hours.

The site's handler would run a stream through the site's middleware, which is sync: Django then
gives every request a thread of its own for as long as it lasts (asgiref's
ThreadSensitiveContext), and the session's and the player's reads open a database connection in
the request's context that outlives the stream. So the stream paths (``powerboats_site/asgi.py``)
get ``StreamHandler``:

* **No per-request thread, no database.** No ThreadSensitiveContext, and no middleware but
  ``stream_middleware`` (async, no query): the host is checked against ``ALLOWED_HOSTS``, input
  no view can use is refused as everywhere (common.middleware.bad_input), and the
  language is the switcher's cookie or the browser's. What a stream needs from the database
  (the session or token, the player and their language, where it starts) the views read
  through ``live.DATABASE``, the process's one live connection, before the stream waits.
* **Limits** (``Gate``): open streams per process (``LIVE_STREAMS_PER_PROCESS``, never above
  the process's open-file limit), per client (``LIVE_STREAMS_PER_CLIENT``: a player, whatever
  their sessions and tokens, or an anonymous session) and per address
  (``LIVE_STREAMS_PER_ADDRESS``); over one, the view answers 429. Each process counts its own.
* **A client that reads nothing is dropped**: a write that waits more than
  ``LIVE_SEND_TIMEOUT_SECONDS`` for the client ends the stream (``Watchdog``; its queue is
  bounded too, and every stream ends after ``LIVE_STREAM_SECONDS``: live.Hub.tend).
"""

from __future__ import annotations

import asyncio
import contextvars
import ipaddress
import logging
import re
import resource
import weakref
import zoneinfo
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.exception import convert_exception_to_response
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse, QueryDict
from django.http.cookie import parse_cookie
from django.utils import timezone, translation
from django.utils.translation import gettext, ngettext

from accounts.throttle import client_ip
from common.middleware import bad_input
from games.live.events import per_loop

log = logging.getLogger(__name__)
security = logging.getLogger("django.security.DisallowedHost")

Middleware = Callable[[HttpRequest], Awaitable[HttpResponseBase]]


def stream_middleware(get_response: Middleware) -> Middleware:
    """What the site's middleware does that a stream needs, without a thread or a query."""

    async def middleware(request: HttpRequest) -> HttpResponseBase:
        try:
            request.get_host()
        except DisallowedHost as error:
            security.error(str(error))
            return JsonResponse({"code": "bad_host", "message": "this host is not served here", "field": "Host"},
                                status=400)
        request.urlconf = "games.streams.urls"  # type: ignore[attr-defined]  # the streams' patterns alone (Django reads it)
        refusal = bad_input(request, as_json=True)
        if refusal is not None:
            return refusal
        translation.activate(translation.get_language_from_request(request))
        request.LANGUAGE_CODE = translation.get_language()
        full = None if request.path_info.endswith("/part/") else GATE.full(address_key(client_ip(request)))
        if full is not None:  # refused before anything is read: a flood costs no query
            return busy(full, event_stream=not request.path_info.startswith("/api/"))
        response = await get_response(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response

    return middleware


def busy(limit: str, event_stream: bool) -> HttpResponse:
    """A 429 for a stream over a limit: JSON for the API, a text/event-stream for a page."""
    seconds = settings.LIVE_BUSY_RETRY_SECONDS
    message = {
        "process": gettext("This server has as many live streams open as it can hold."),
        "client": gettext("You have too many live pages open."),
        "address": gettext("Too many live pages are open from your address."),
    }[limit] + " " + ngettext("Try again in %(n)d second.", "Try again in %(n)d seconds.", seconds) % {"n": seconds}
    if event_stream:
        response = HttpResponse(f"retry: {seconds * 1000}\n: {message}\n\n", status=429,
                                content_type="text/event-stream")
    else:
        response = JsonResponse({"code": "throttled", "message": message, "limit": limit}, status=429)
    response["Retry-After"] = str(seconds)
    response["Cache-Control"] = "no-store"
    # not logged one by one (Django logs every 4xx): a flood of refusals would flood the log
    response._has_been_logged = True  # type: ignore[attr-defined]
    REFUSED[limit] += 1
    return response


REFUSED: Counter[str] = Counter()  # streams refused by this process, by limit (Watchdog logs them)


def address_key(address: str | None) -> str | None:
    """What the per-address limit counts: an IPv4 address (also when written IPv4-mapped in
    IPv6), or an IPv6 address's /64 (one client holds a whole /64)."""
    if address is None:
        return None
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def open_file_limit() -> int:
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


@dataclass
class Gate:
    """The streams open in this process, counted per client and per address."""

    total: int = 0
    clients: Counter[str] = field(default_factory=Counter)
    addresses: Counter[str] = field(default_factory=Counter)

    @staticmethod
    def per_process() -> int:
        """``LIVE_STREAMS_PER_PROCESS``, but never so many that the process runs out of file
        descriptors (one per stream; some are kept for the database, the pages and the logs)."""
        files = open_file_limit()
        spare = max(64, files // 20)
        return max(1, min(int(settings.LIVE_STREAMS_PER_PROCESS), files - spare))

    def full(self, address: str | None) -> str | None:
        """Whether a stream from this address would be refused whoever asks: ``process``,
        ``address`` or None."""
        if self.total >= self.per_process():
            return "process"
        if address is not None and self.addresses[address] >= settings.LIVE_STREAMS_PER_ADDRESS:
            return "address"
        return None

    def admit(self, client: str | None, address: str | None) -> str | None:
        """None: admitted (``release`` it when the stream ends); else the limit that refuses
        it: ``process``, ``client`` or ``address``."""
        if self.total >= self.per_process():
            return "process"
        if client is not None and self.clients[client] >= settings.LIVE_STREAMS_PER_CLIENT:
            return "client"
        if address is not None and self.addresses[address] >= settings.LIVE_STREAMS_PER_ADDRESS:
            return "address"
        self.total += 1
        if client is not None:
            self.clients[client] += 1
        if address is not None:
            self.addresses[address] += 1
        return None

    def release(self, client: str | None, address: str | None) -> None:
        self.total -= 1
        for counter, key in ((self.clients, client), (self.addresses, address)):
            if key is not None:
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]


GATE = Gate()
# what to undo when the request in whose context it was set ends (set by StreamHandler)
_releases: contextvars.ContextVar[list[Callable[[], None]] | None] = contextvars.ContextVar("live_releases",
                                                                                            default=None)


def hold(client: str | None, address: str | None) -> str | None:
    """Count a stream about to open against the limits: None if admitted (it is let go when
    its request ends, however it ends), else the limit that refuses it. Served by another
    handler (a sync server, which answers a stream at once) nothing is held."""
    releases = _releases.get()
    if releases is None:
        return None
    refused = GATE.admit(client, address)
    if refused is None:
        releases.append(lambda: GATE.release(client, address))
    return refused


@dataclass
class Watchdog:
    """The writes of this event loop's streams that are waiting for their client: once a
    second, a stream whose write has waited more than ``LIVE_SEND_TIMEOUT_SECONDS`` is ended
    (its task cancelled). A write costs two dict operations, no timer of its own."""

    sending: dict[asyncio.Task[Any], tuple[float, dict[str, bool]]] = field(default_factory=dict)
    requests: int = 0
    task: asyncio.Task[None] | None = None

    def begin(self) -> None:
        self.requests += 1
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    def finish(self) -> None:
        self.requests -= 1

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while self.requests > 0:
            await asyncio.sleep(1.0)
            if REFUSED:
                log.warning("live: refused %s", ", ".join(f"{n} over the {k} limit" for k, n in REFUSED.items()))
                REFUSED.clear()
            limit = loop.time() - settings.LIVE_SEND_TIMEOUT_SECONDS
            for task, (since, state) in list(self.sending.items()):
                if since < limit:
                    state["stalled"] = True
                    self.sending.pop(task, None)
                    task.cancel()


_watchdogs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Watchdog] = weakref.WeakKeyDictionary()


def watchdog() -> Watchdog:
    return per_loop(_watchdogs, Watchdog)


PART_PATH = re.compile(r"^/events/game/([0-9]{1,18})/part/$")


def _kept_part(scope: dict[str, Any]) -> tuple[bytes, str] | None:
    """A spectator's kept part of a game page (games.views.SPECTATOR_PARTS), when the request
    can be answered from it without Django's request cycle: no session (a logged-in viewer's
    time zone needs it), a host this site serves, plain digits. None: the view answers."""
    from games.views import SPECTATOR_PARTS, asked_ply, part_key

    found = PART_PATH.match(scope.get("path", ""))
    if found is None or scope.get("method") != "GET":
        return None
    headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", ())}
    request = HttpRequest()
    request.META = {"HTTP_HOST": headers.get("host", ""), "HTTP_ACCEPT_LANGUAGE": headers.get("accept-language", ""),
                    "SERVER_NAME": "", "SERVER_PORT": ""}
    request.COOKIES = parse_cookie(headers.get("cookie", ""))
    if settings.SESSION_COOKIE_NAME in request.COOKIES:
        return None
    try:
        request.get_host()
    except DisallowedHost:
        return None
    query = QueryDict(scope.get("query_string", b"").decode("latin-1"))
    asked, at = asked_ply(query.get("ply", "")), query.get("at", "")
    if asked is None or (at and not at.isascii()) or (at and not at.isdigit()):
        return None
    language = translation.get_language_from_request(request)
    with translation.override(language), timezone.override(zoneinfo.ZoneInfo("UTC")):
        kept = SPECTATOR_PARTS.get(part_key(int(found.group(1)), asked, at))
    return None if kept is None else (kept.body, language)


class StreamHandler(ASGIHandler):
    """Django's ASGI handler for the stream paths only: ``stream_middleware`` instead of the
    site's middleware, no thread per request, the limits released when a request ends, and a
    write that waits too long for the client ends the stream (``Watchdog``)."""

    def load_middleware(self, is_async: bool = False) -> None:
        # BaseHandler.load_middleware builds this chain from settings.MIDDLEWARE; these views
        # need none of it (no view, template-response or exception middleware either)
        self._view_middleware: list[Any] = []
        self._template_response_middleware: list[Any] = []
        self._exception_middleware: list[Any] = []
        # BaseHandler._get_response_async: Django's (missing from django-stubs), a coroutine
        inner = convert_exception_to_response(self._get_response_async)  # type: ignore[attr-defined]
        self._middleware_chain = convert_exception_to_response(stream_middleware(inner))  # type: ignore[arg-type]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"the stream handler serves HTTP, not {scope['type']}")
        kept = _kept_part(scope)
        if kept is not None:
            # a crowd of spectators applying a move: each answered from the kept part at once,
            # without Django's request cycle (its two hops to a thread cost more than the answer)
            body, language = kept
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"), (b"content-language", language.encode()),
                (b"x-content-type-options", b"nosniff"), (b"vary", b"Accept-Language, Cookie")]})
            await send({"type": "http.response.body", "body": body})
            return
        releases: list[Callable[[], None]] = []
        token = _releases.set(releases)
        dog = watchdog()
        loop = asyncio.get_running_loop()
        state = {"stalled": False}

        async def watched_send(message: Mapping[str, Any]) -> None:
            task = asyncio.current_task()
            assert task is not None
            dog.sending[task] = (loop.time(), state)
            try:
                await send(message)
            finally:
                dog.sending.pop(task, None)

        dog.begin()
        try:
            await self.handle(scope, receive, watched_send)
        except asyncio.CancelledError:
            # the server stopping cancels what still runs once its graceful shutdown is over
            # (uvicorn's --timeout-graceful-shutdown), and an open stream always does: the browser
            # reconnects to the next server with its Last-Event-ID. Nothing went wrong: no traceback
            # ("Exception in ASGI application") at every restart
            log.info("live: %s was open when the server stopped", scope.get("path"))
        finally:
            dog.finish()
            _releases.reset(token)
            for release in releases:
                release()
        if state["stalled"]:
            # the server would close the connection gently, waiting for its buffer to be read:
            # never, by such a client. uvicorn's send is a method of the request's cycle, which
            # holds the connection's transport: abort it (the socket and its buffers go at once)
            transport = getattr(getattr(send, "__self__", None), "transport", None)
            if transport is not None and hasattr(transport, "abort"):
                transport.abort()
            log.info("live: %s read nothing for %.0f s: its connection is closed", scope.get("client"),
                     settings.LIVE_SEND_TIMEOUT_SECONDS)
