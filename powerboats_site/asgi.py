"""What bin/run and the Procfile serve (uvicorn): the live streams as async Django views, and
everything else — the pages, the API, the turn path — as the same sync Django app that gunicorn
served, run in a thread pool by a2wsgi (powerboats_site.wsgi_bridge), so that it is no slower
and needs no async code (docs/live.md).

The streams have a handler of their own (games.streams.asgi.StreamHandler): no thread per request,
no database connection per stream, limits on how many a client may open. Each open stream
holds a socket: the process may open as many files as its hard limit allows."""

from __future__ import annotations

import gc
import os
import re
import resource
from typing import Any

from django.core.wsgi import get_wsgi_application

from powerboats_site.wsgi_bridge import Bridge

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "powerboats_site.settings")

_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if _soft < _hard:
    resource.setrlimit(resource.RLIMIT_NOFILE, (_hard, _hard))

site = Bridge(get_wsgi_application(), workers=int(os.environ.get("WEB_THREADS", "2")))

from games.streams.asgi import StreamHandler  # noqa: E402  (after django.setup(), by get_wsgi_application)

streams = StreamHandler()

# Thousands of open streams are hundreds of thousands of long-lived objects: with the default
# thresholds a full collection ran every few seconds while streams opened and stopped the
# process for 0.3-0.6 s each time (5,000 streams, bench/live.py). What was loaded at start-up
# is never garbage: it is frozen out of the collections, and the young generation is collected
# less often than by default. Not much less: nearly every object of a request ends up in a
# reference cycle (the request and its messages, its lazy user, DRF's request and response), so
# a young collection frees a few hundred objects per request it waited for. At 50,000 each one
# stopped the worker for ~100 ms (the turns' p99 170-200 ms, bench/http.py); at 5,000 for
# ~3 ms (at most ~11), and 5,000 streams are held as well (docs/performance.md, docs/live.md).
gc.collect()
gc.freeze()
gc.set_threshold(5_000, 20, 100)
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
