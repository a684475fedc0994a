"""powerboats_site.wsgi_bridge: the sync site served in uvicorn's event loop. Its thread hands
the response to the loop without waiting for it, and the client still gets every part, in order."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from a2wsgi import WSGIMiddleware

from powerboats_site.wsgi_bridge import Bridge

PARTS = [f"part {i};".encode() for i in range(40)]  # more than a2wsgi's queue of 10


def body_messages(parts: list[bytes]) -> list[dict[str, Any]]:
    return [{"type": "http.request", "body": p, "more_body": i < len(parts) - 1} for i, p in enumerate(parts)]


def post_through(middleware: Any, messages: list[dict[str, Any]], send: Any) -> None:
    """One POST through the middleware, its body in these messages (taken from the list as the
    middleware receives them), answered to this client's ``send``."""
    length = str(sum(len(m["body"]) for m in messages)).encode()
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
             "scheme": "http", "path": "/", "raw_path": b"/", "query_string": b"", "root_path": "",
             "headers": [(b"host", b"testserver"), (b"content-length", length)],
             "client": ("127.0.0.1", 5000), "server": ("testserver", 80)}

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    async def main() -> None:
        await middleware(scope, receive, send)
        middleware.executor.shutdown(wait=True)

    asyncio.run(main())


def make_app(done: threading.Event, seen_body: list[bytes]):
    def app(environ: dict[str, Any], start_response: Any):
        seen_body.append(environ["wsgi.input"].read())
        start_response("200 OK", [("Content-Type", "text/plain")])
        yield from PARTS
        done.set()  # the app has given its last part

    return app


def serve(middleware_class: type, *, client_waits_for_app: bool) -> tuple[list[dict[str, Any]], list[bytes], bool]:
    """One POST through the middleware. The client's ``send`` may wait (up to 0.5 s) until the
    app's thread has produced its whole response before it takes the first part."""
    done = threading.Event()
    seen_body: list[bytes] = []
    sent: list[dict[str, Any]] = []
    waited_in_vain = False

    async def send(message: dict[str, Any]) -> None:
        nonlocal waited_in_vain
        if client_waits_for_app and not sent:
            for _ in range(50):
                if done.is_set():
                    break
                await asyncio.sleep(0.01)
            else:
                waited_in_vain = True
        sent.append(message)

    post_through(middleware_class(make_app(done, seen_body), workers=1), body_messages([b"he", b"llo"]), send)
    return sent, seen_body, waited_in_vain


def test_every_part_reaches_the_client_in_order():
    sent, seen_body, _ = serve(Bridge, client_waits_for_app=False)
    assert seen_body == [b"hello"]  # the request's body, read in two messages
    assert sent[0] == {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]}
    assert [m["body"] for m in sent[1:-1]] == PARTS and all(m["more_body"] for m in sent[1:-1])
    assert sent[-1] == {"type": "http.response.body", "body": b""}  # the end


def test_the_thread_finishes_without_waiting_for_the_client():
    """A client slow to take the response does not hold the app's thread: with a2wsgi's own
    responder the thread waits for the loop at every part, and stops when its queue of ten is
    full, so it has not finished the response when the client starts taking it."""
    sent, _, waited_in_vain = serve(Bridge, client_waits_for_app=True)
    assert not waited_in_vain and len(sent) == len(PARTS) + 2
    _, _, a2wsgi_waited = serve(WSGIMiddleware, client_waits_for_app=True)
    assert a2wsgi_waited  # the comparison that shows the test can tell the two apart


def read_with(parts: list[bytes]) -> tuple[bytes, int]:
    """POST a body in these parts through the bridge: what the app read, and how many parts the
    loop had already received when the app began."""
    messages = body_messages(parts)
    seen: list[tuple[bytes, int]] = []

    def app(environ: dict[str, Any], start_response: Any):
        given_before = len(parts) - len(messages)
        seen.append((environ["wsgi.input"].read(), given_before))
        start_response("204 No Content", [])
        return []

    async def send(message: dict[str, Any]) -> None:
        pass

    post_through(Bridge(app, workers=1), messages, send)
    return seen[0]


def test_a_small_body_is_read_before_the_app_runs():
    """A move's JSON is read in the event loop before the app's thread starts, so the thread never
    waits for the loop to read it; a large body (over 64 KiB) is still read as the app asks."""
    body, given_before = read_with([b'{"ply": 12, ', b'"direction": 3}'])
    assert body == b'{"ply": 12, "direction": 3}' and given_before == 2
    big = [bytes([65 + i]) * 40_000 for i in range(4)]
    body, given_before = read_with(big)
    assert body == b"".join(big) and given_before == 2  # 80,000 bytes read ahead, the rest on demand
