"""The sync site (pages, API, the turn path) in uvicorn: a2wsgi's WSGI-to-ASGI middleware with two
changes.

a2wsgi runs the WSGI app in a thread pool. Its thread waits for the event loop every time it
needs it: to read the request's body, and to hand over each part of the response (its start, the
body, the end) through a bounded queue. Each wait is a round trip between the thread and the loop;
together they cost ~0.3-0.5 ms of CPU a request on two busy cores (docs/performance.md). Here:

- the loop reads a small request's body (up to 64 KiB: a move's JSON is a few dozen bytes) before
  the thread starts; a larger one is read as the app asks, as in a2wsgi;
- the thread puts each part of the response on an unbounded queue without waiting, and the loop
  sends the parts in order, as a2wsgi's own sender does. If the client has gone, the sender's
  error is raised when the response ends, as in a2wsgi.

A POST to a trivial app under uvicorn: 560 µs of the server's CPU through a2wsgi, 225 µs through
this. The price is memory: a response's parts wait in the queue until the loop sends them.
Everything served here is a page, an API answer or a static file of the project (a few hundred
KiB at most); the live streams, which never end, have their own async handler
(games.streams.asgi), not this. The responder uses a2wsgi's ``Body``, ``build_environ``,
``start_response``, ``wsgi`` and ``sender`` as they are (a2wsgi is pinned in constraints.txt;
tests/site/test_wsgi_bridge.py serves through it)."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

from a2wsgi import WSGIMiddleware
from a2wsgi.wsgi import Body, WSGIResponder, build_environ

BODY_READ_AHEAD = 64 * 1024


class Responder(WSGIResponder):
    """a2wsgi's responder: a small body read ahead, and ``send`` (called in the app's thread)
    without waiting for the loop."""

    def __init__(self, bridge: Bridge) -> None:
        # a queue size of 0: unbounded (asyncio.Queue), so that put_nowait never fails
        super().__init__(bridge.app, bridge.executor, 0)
        self.bridge = bridge

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        body = Body(self.loop, receive)
        # read ahead (here, in the loop) a small request's body: a move's JSON is a few dozen bytes
        # and a2wsgi's thread would wait for the loop to read it
        while body._has_more and len(body.buffer) < BODY_READ_AHEAD:
            message = await receive()
            body.buffer.extend(message.get("body", b""))
            body._has_more = message.get("more_body", False)
        environ = build_environ(scope, body)
        sender = self.loop.create_task(self.sender(send))
        try:
            context = contextvars.copy_context()
            # counted from here (its body read ahead: a client slow to send it holds no thread, and
            # is not counted) until its thread is free (the response may still be on its way)
            try:
                self.bridge.busy_changed(+1)
                await self.loop.run_in_executor(self.executor, context.run, self.wsgi, environ, self.start_response)
            finally:
                self.bridge.busy_changed(-1)
            self.send_queue.put_nowait(None)
            await sender  # raises what sending raised (the client gone)
            if self.exc_info is not None:
                raise self.exc_info[1].with_traceback(self.exc_info[2])
        finally:
            if not sender.done():
                sender.cancel()

    def send(self, message: Any) -> None:
        self.loop.call_soon_threadsafe(self.send_queue.put_nowait, message)


class Bridge(WSGIMiddleware):
    """The WSGI app in ``workers`` threads. ``busy`` counts the requests handed to the threads and
    not done with them (running, or waiting for a thread); ``on_busy``, when set, hears each
    change, on the event loop's thread (powerboats_site.serve: a worker takes new connections
    only while it is below ``threads + 1``)."""

    def __init__(self, app: Any, workers: int) -> None:
        super().__init__(app, workers)
        self.threads = workers
        self.busy = 0
        self.on_busy: Callable[[int], None] | None = None

    def busy_changed(self, by: int) -> None:
        self.busy += by
        if self.on_busy is not None:
            self.on_busy(self.busy)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await Responder(self)(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)
