"""What bin/run and the Procfile serve (uvicorn): the live streams as async Django views, and
everything else — the pages, the API, the turn path — as the same sync Django app that gunicorn
served, run in a thread pool by a2wsgi, so that it is no slower and needs no async code
(docs/live.md)."""

from __future__ import annotations

import os
import re
from typing import Any

from a2wsgi import WSGIMiddleware
from django.core.asgi import get_asgi_application
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "powerboats_site.settings")

streams = get_asgi_application()
site = WSGIMiddleware(get_wsgi_application(), workers=int(os.environ.get("WEB_THREADS", "2")))  # type: ignore[arg-type]
STREAM_PATHS = re.compile(r"^/(events/|api/stream/|api/games/[^/]+/stream/$)")


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] == "http" and STREAM_PATHS.match(scope["path"]):
        await streams(scope, receive, send)
    else:
        await site(scope, receive, send)
