"""The sync site (pages, API, the turn path) in uvicorn: a2wsgi's WSGI-to-ASGI middleware with one
change.

a2wsgi runs the WSGI app in a thread pool and hands each part of the response (its start, the
body, the end) to the event loop through a bounded queue, waiting for the loop each time: three
blocking round trips between the thread and the loop per response, which cost ~0.3-0.5 ms of CPU
a request on two busy cores (bench/http.py: the same requests cost that much less under gunicorn;
docs/performance.md). Here the thread puts each part on an unbounded queue without waiting, and
the loop sends the parts in order as a2wsgi's own sender does. Nothing is lost if the client has
gone: the sender's error is raised when the response ends, as in a2wsgi.

The price is memory: a response's parts wait in the queue until the loop sends them. Everything
this middleware serves is a page, an API answer or a static file of the project (a few hundred
KiB at most); the live streams, which never end, are served by their own async handler
(games.streams.asgi), not through here."""

from __future__ import annotations

from typing import Any

from a2wsgi import WSGIMiddleware
from a2wsgi.wsgi import WSGIResponder


class Responder(WSGIResponder):
    """a2wsgi's responder; ``send`` (called in the app's thread) does not wait for the loop."""

    def send(self, message: Any) -> None:
        self.loop.call_soon_threadsafe(self.send_queue.put_nowait, message)


class Bridge(WSGIMiddleware):
    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            # a queue size of 0: unbounded (asyncio.Queue), so that put_nowait never fails
            await Responder(self.app, self.executor, 0)(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)
