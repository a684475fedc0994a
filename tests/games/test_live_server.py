"""The live streams' server (issue 22, docs/live.md): two uvicorn processes on one database, as
two web machines would run, with small limits so that they can be reached.

* limits per address, per client (a player, whatever their tokens) and per process: over one a
  429 (JSON for the API streams, a text/event-stream ``retry:`` for pages), and a stream that
  closes lets the next one in;
* heartbeats, and the end of a stream after ``LIVE_STREAM_SECONDS``;
* no 5xx for anything sent to a stream's address;
* an event committed through one server reaches streams held by the other;
* a series player is told on the API's user stream that it is their turn.

The handler's own parts (the watchdog, the limits' bookkeeping) are tested in-process too.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.sqlite_copy import copy_sqlite

from .live_site import site_env, stop, wait_until_up

ROOT = Path(__file__).resolve().parents[2]
# two ports per xdist worker, apart from the other server tests' ports
PORT_A = 8140 + 2 * int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)
PORT_B = PORT_A + 1
PASSWORD = "sea-spray-and-salt-42"
# the module's two servers (module-scoped) are started once: its tests on one xdist worker
pytestmark = pytest.mark.xdist_group("live_server")
LIMITS = {"LIVE_STREAMS_PER_ADDRESS": "3", "LIVE_STREAMS_PER_CLIENT": "2", "LIVE_STREAMS_PER_PROCESS": "8",
          "LIVE_BUSY_RETRY_SECONDS": "7", "LIVE_HEARTBEAT_SECONDS": "0.5", "LIVE_STREAM_SECONDS": "4"}


def _env(var: Path, port: int) -> dict[str, str]:
    return site_env(var, f"http://127.0.0.1:{port}", ALLOWED_HOSTS="127.0.0.1", SECRET_KEY="live-server-test-not-secret",
                    CELERY_BROKER_URL="memory://", **LIMITS)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path) -> Iterator[tuple[str, str]]:
    var = tmp_path_factory.mktemp("live-server-var")
    python = sys.executable
    copy_sqlite(migrated_sqlite, var / "db.sqlite3")  # a fresh database, migrated (tests/conftest.py)
    log = (var / "servers.log").open("wb")
    processes = [subprocess.Popen([python, "-m", "powerboats_site.serve", "--host", "127.0.0.1",
                                   "--port", str(port), "--timeout-graceful-shutdown", "1",
                                   "--log-level", "warning"], cwd=ROOT, env=_env(var, port), stdout=log,
                                  stderr=subprocess.STDOUT) for port in (PORT_A, PORT_B)]
    try:
        for port in (PORT_A, PORT_B):
            wait_until_up(f"http://127.0.0.1:{port}", var / "servers.log")
        yield f"http://127.0.0.1:{PORT_A}", f"http://127.0.0.1:{PORT_B}"
    finally:
        stop(processes)
        text = (var / "servers.log").read_text()
        assert "Internal Server Error" not in text and "Traceback" not in text, text[-5000:]


def api(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Token {token}"} if token else {})}
    request = urllib.request.Request(base + path, data=json.dumps(body).encode() if body is not None else None,
                                     method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def account(base: str, name: str) -> str:
    status, _ = api(base, "POST", "/api/accounts/", {"username": name, "password": PASSWORD,
                                                     "email": f"{name}@example.com"})
    assert status == 201
    return api(base, "POST", "/api/token/", {"username": name, "password": PASSWORD})[1]["token"]


class Stream:
    """A raw HTTP/1.1 stream from a chosen source address: its status, headers and the lines it
    sends (read in a thread; "END" when the server closes it)."""

    def __init__(self, base: str, path: str, address: str = "127.0.0.1", headers: dict[str, str] | None = None):
        host, port = base.rsplit("/", 1)[-1].split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=10, source_address=(address, 0))
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra}\r\n".encode())
        self.file = self.sock.makefile("rb")
        self.status = int(self.file.readline().split()[1])
        self.headers: dict[str, str] = {}
        while (line := self.file.readline().decode().strip()):
            name, _, value = line.partition(":")
            self.headers[name.lower()] = value.strip()
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            chunked = self.headers.get("transfer-encoding") == "chunked"
            while True:
                if chunked:
                    size = int(self.file.readline().strip() or b"0", 16)
                    if size == 0:
                        break
                    data = self.file.read(size)
                    self.file.readline()
                else:  # one body of Content-Length bytes (the connection stays open: keep-alive)
                    data = self.file.read(int(self.headers.get("content-length", "0")))
                for line in data.decode().split("\n"):
                    if line:
                        self.lines.put((time.perf_counter(), line))
                if "content-length" in self.headers:
                    break
        except OSError:
            pass
        self.lines.put((time.perf_counter(), "END"))

    def until(self, done: Any, timeout: float = 5.0) -> list[str]:
        """Lines until one for which ``done(line)`` is true (included)."""
        seen = []
        end = time.perf_counter() + timeout
        while True:
            _, line = self.lines.get(timeout=max(0.01, end - time.perf_counter()))
            seen.append(line)
            if done(line):
                return seen

    def body(self) -> str:
        return "\n".join(self.until(lambda line: line == "END"))

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def wait_admitted(base: str, path: str, address: str, headers: dict[str, str] | None = None) -> Stream:
    """A stream once the server has let the ones closed before it go (within a second)."""
    for _ in range(50):
        stream = Stream(base, path, address, headers)
        if stream.status == 200:
            return stream
        stream.close()
        time.sleep(0.05)
    raise AssertionError(f"{path} from {address} still refused")


@pytest.mark.slow
def test_a_page_stream_over_the_per_address_limit_gets_a_429_with_retry_and_a_closed_one_lets_the_next_in(servers):
    a, _ = servers
    opened = [Stream(a, "/events/lobby/", "127.0.0.21") for _ in range(3)]
    assert [s.status for s in opened] == [200, 200, 200]
    refused = Stream(a, "/events/lobby/", "127.0.0.21")
    assert refused.status == 429
    assert refused.headers["content-type"].startswith("text/event-stream")
    assert refused.headers["retry-after"] == "7"
    body = refused.body()
    assert "retry: 7000" in body and "Try again in 7 seconds." in body
    other = Stream(a, "/events/lobby/", "127.0.0.22")  # another address is its own client
    assert other.status == 200
    opened[0].close()
    again = wait_admitted(a, "/events/lobby/", "127.0.0.21")
    for stream in [*opened[1:], other, again]:
        stream.close()


@pytest.mark.slow
def test_an_api_stream_over_the_per_client_limit_gets_a_429_in_json(servers):
    a, _ = servers
    token = account(a, "cleo_limits")
    headers = {"Authorization": f"Token {token}"}
    first = [Stream(a, "/api/stream/events/", f"127.0.0.{31 + i}", headers) for i in range(2)]
    assert [s.status for s in first] == [200, 200]
    refused = Stream(a, "/api/stream/events/", "127.0.0.33", headers)  # a third, from a third address
    assert refused.status == 429 and refused.headers["content-type"] == "application/json"
    answer = json.loads(refused.body().split("\n")[-2])
    assert answer["code"] == "throttled" and answer["limit"] == "client" and "7 seconds" in answer["message"]
    # the same player with a second token is the same client
    second = api(a, "POST", "/api/token/", {"username": "cleo_limits", "password": PASSWORD})[1]["token"]
    assert Stream(a, "/api/stream/events/", "127.0.0.34", {"Authorization": f"Token {second}"}).status == 429
    for stream in first:
        stream.close()


def test_a_process_full_of_streams_refuses_the_next_with_a_429_and_never_a_5xx(servers):
    a, b = servers
    held = [wait_admitted(a, "/events/lobby/", f"127.0.1.{i}") for i in range(8)]
    refused = Stream(a, "/events/lobby/", "127.0.1.99")
    assert refused.status == 429 and "as many live streams open as it can hold" in refused.body()
    assert Stream(b, "/events/lobby/", "127.0.1.99").status == 200, "the other process counts its own"
    for stream in held:
        stream.close()
    wait_admitted(a, "/events/lobby/", "127.0.1.99").close()


@pytest.mark.slow
def test_a_server_that_stops_while_streams_are_open_ends_them_without_a_traceback(tmp_path, migrated_sqlite):
    """uvicorn cancels what still runs when its graceful shutdown is over, and an open stream
    always still runs: before, each such stream logged "Exception in ASGI application" with a
    CancelledError at every restart (seen at the end of a loaded test run). The browser
    reconnects with its Last-Event-ID; the server's log stays clean."""
    port = PORT_A + 40
    python = sys.executable
    env = {**_env(tmp_path, port), "LIVE_STREAM_SECONDS": "600", "LOG_LEVEL": "INFO"}
    copy_sqlite(migrated_sqlite, tmp_path / "db.sqlite3")
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen([python, "-m", "powerboats_site.serve", "--host", "127.0.0.1",
                                   "--port", str(port), "--timeout-graceful-shutdown", "1", "--log-level", "info"],
                                  cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_until_up(base, log_path)
            streams = [Stream(base, "/events/lobby/", "127.0.0.1") for _ in range(2)]
            assert all(s.status == 200 for s in streams)
            streams[0].until(lambda line: line == ": connected", timeout=5)
            server.send_signal(signal.SIGTERM)
            assert server.wait(15) in (0, -signal.SIGTERM)  # uvicorn raises the signal again once it has stopped
            for stream in streams:
                stream.until(lambda line: line == "END", timeout=5)
        finally:
            if server.poll() is None:
                server.kill()
    text = log_path.read_text()
    assert "Traceback" not in text and "Exception in ASGI application" not in text, text[-3000:]
    assert "was open when the server stopped" in text


def test_a_quiet_stream_gets_heartbeats_and_ends_after_its_time_for_the_browser_to_resume(servers):
    a, _ = servers
    stream = Stream(a, "/events/lobby/", "127.0.0.41")
    opened = time.perf_counter()
    lines = stream.until(lambda line: line == ": keep-alive", timeout=3)
    assert 1000 <= int(lines[0].removeprefix("retry: ")) <= 3000, "LIVE_RETRY_MS to three times it, at random"
    assert ": connected" in lines
    rest = stream.until(lambda line: line == "END", timeout=8)
    lasted = time.perf_counter() - opened
    assert 1 + rest.count(": keep-alive") >= 3
    assert 3.0 <= lasted <= 6.5, f"ended after {lasted:.1f} s (LIVE_STREAM_SECONDS=4, less at random up to 10 %)"


@pytest.mark.parametrize(("path", "headers", "status"), [
    ("/events/nothing/", {}, 404),
    ("/events/game/abc/", {}, 404),
    ("/events/game/99999999999999999999/", {}, 404),
    ("/events/game/77/", {}, 404),
    ("/events/series/77/", {}, 404),
    ("/events/lobby/?since=%00", {}, 400),
    ("/events/lobby/?since=soon", {}, 400),
    ("/events/lobby/", {"Last-Event-ID": "¹"}, 400),
    ("/events/me/", {}, 401),
    ("/api/stream/events/", {"Authorization": "Token nope"}, 401),
    ("/api/stream/events/", {"Authorization": "Bearer x"}, 401),
    ("/api/games/77/stream/", {}, 404),
    ("/events/lobby/", {"Host": "evil.example"}, 400),
])
def test_whatever_is_sent_to_a_stream_is_answered_in_json_and_never_with_a_5xx(servers, path, headers, status):
    a, _ = servers
    stream = Stream(a, path, "127.0.0.51", headers)
    assert stream.status == status, stream.body()
    assert stream.headers["content-type"] == "application/json"
    answer = json.loads(stream.body().split("\n")[-2])
    assert answer["code"] and answer["message"]


def test_an_event_committed_through_one_server_reaches_streams_held_by_the_other(servers):
    a, b = servers
    ann, bob = account(a, "ann_two_servers"), account(a, "bob_two_servers")
    status, challenge = api(a, "POST", "/api/challenges/", {"opponent": "bob_two_servers", "color": "yellow",
                                                            "rated": False}, ann)
    assert status == 201
    bobs = Stream(b, "/api/stream/events/", "127.0.0.61", {"Authorization": f"Token {bob}"})
    spectator = Stream(b, "/events/lobby/", "127.0.0.62")
    assert bobs.status == spectator.status == 200
    status, game = api(a, "POST", f"/api/challenges/{challenge['id']}/accept/", None, bob)  # through server A
    assert status in (200, 201)
    page = Stream(b, f"/events/game/{game['id']}/", "127.0.0.63")
    state = api(a, "GET", f"/api/games/{game['id']}/", None, ann)[1]
    sent = time.perf_counter()
    status, _ = api(a, "POST", f"/api/games/{game['id']}/place/",
                    {"ply": 0, "cell": state["placements"]["cells"][0], "heading": 0}, ann)
    assert status == 200
    lines = page.until(lambda line: line.startswith("data:") and '"ply":1' in line)
    assert any(line == "event: move" for line in lines)
    print(f"\nthe move on the other server's stream {(time.perf_counter() - sent) * 1000:.0f} ms after the POST")
    told = [json.loads(line) for line in bobs.until(lambda line: '"yourTurn"' in line) if line.startswith("{")]
    assert told[-1] == {"type": "yourTurn", "id": told[-1]["id"], "game": {"id": game["id"], "ply": 1}}
    assert any(line == "event: start" for line in spectator.until(lambda line: line == "event: start"))
    for stream in (bobs, spectator, page):
        stream.close()


def test_a_series_player_is_told_on_the_api_stream_when_it_is_their_turn(servers):
    """A series is a game (issue 25): its players are told ``gameStart`` and ``yourTurn`` by the
    game's id, as for every game, and, for clients of the series API, ``seriesStart`` and the
    ``series`` (its number, as /api/series/<number>/ names it) in ``yourTurn``."""
    a, _ = servers
    tokens = {name: account(a, name) for name in ("sue_series", "tom_series", "una_series")}
    status, series = api(a, "POST", "/api/games/", {"ruleset": "boxed", "seats": 3}, tokens["sue_series"])
    assert status == 201 and series["ruleset"] == "boxed"
    game_id, number = series["id"], series["series"]
    assert api(a, "GET", f"/api/series/{number}/", None, tokens["sue_series"])[1]["id"] == number
    streams = {name: Stream(a, "/api/stream/events/", f"127.0.0.{70 + i}", {"Authorization": f"Token {token}"})
               for i, (name, token) in enumerate(tokens.items())}
    for name in ("tom_series", "una_series"):
        assert api(a, "POST", f"/api/games/{game_id}/join/", None, tokens[name])[0] in (200, 201)
    state = api(a, "GET", f"/api/games/{game_id}/", None, tokens["sue_series"])[1]
    assert (state["id"], state["series"]) == (game_id, number)
    first = next(b["username"] for b in state["boats"] if b["color"] == state["to_move"])
    for stream in streams.values():
        lines = [json.loads(x) for x in stream.until(lambda line: '"seriesStart"' in line) if x.startswith("{")]
        assert lines[-1]["series"] == {"id": number, "ply": 0}
        assert lines[-2]["type"] == "gameStart" and lines[-2]["game"] == {"id": game_id}
        assert lines[-2]["id"] == lines[-1]["id"], "two lines of one event: the series' start"
    told = [json.loads(x) for x in streams[first].until(lambda line: '"yourTurn"' in line) if x.startswith("{")]
    assert told[-1]["game"] == {"id": game_id, "ply": 0} and told[-1]["series"] == {"id": number, "ply": 0}
    # the first player places: the next is told, and only they are
    state = api(a, "GET", f"/api/games/{game_id}/", None, tokens[first])[1]
    body = {"ply": 0, "cell": state["placements"]["cells"][0], "heading": state["placements"]["headings"][0]}
    assert api(a, "POST", f"/api/games/{game_id}/place/", body, tokens[first])[0] == 200
    after = api(a, "GET", f"/api/games/{game_id}/", None, tokens[first])[1]
    second = next(b["username"] for b in after["boats"] if b["color"] == after["to_move"])
    told = [json.loads(x) for x in streams[second].until(lambda line: '"yourTurn"' in line) if x.startswith("{")]
    assert told[-1]["game"] == {"id": game_id, "ply": 1} and told[-1]["series"] == {"id": number, "ply": 1}
    for stream in streams.values():
        stream.close()


# --- in-process: the handler's own parts -----------------------------------------------------------


def test_the_gate_counts_per_client_per_address_and_per_process(settings):
    from games.streams.asgi import Gate

    settings.LIVE_STREAMS_PER_CLIENT, settings.LIVE_STREAMS_PER_ADDRESS, settings.LIVE_STREAMS_PER_PROCESS = 2, 3, 4
    gate = Gate()
    assert [gate.admit("user:1", "10.0.0.1") for _ in range(3)] == [None, None, "client"]
    assert gate.admit(None, "10.0.0.1") is None and gate.admit(None, "10.0.0.1") == "address"
    assert gate.admit(None, "10.0.0.2") is None and gate.admit(None, "10.0.0.3") == "process"
    gate.release("user:1", "10.0.0.1")
    assert gate.admit("user:1", "10.0.0.3") is None
    assert gate.total == 4 and gate.clients["user:1"] == 2


def test_the_limit_per_process_never_exceeds_the_open_file_limit(settings, monkeypatch):
    from games.streams import asgi as live_asgi

    settings.LIVE_STREAMS_PER_PROCESS = 10_000
    monkeypatch.setattr(live_asgi, "open_file_limit", lambda: 1024)
    assert live_asgi.Gate.per_process() == 1024 - 64


@pytest.fixture
def live_connection_closed():
    """The streams' one connection (live.DATABASE) is closed after the test, so that the test
    database can be dropped."""
    from games.live import events as live

    yield
    live.DATABASE.close()


@pytest.mark.django_db(transaction=True)
def test_a_client_that_reads_nothing_is_dropped_and_its_stream_let_go(settings, live_connection_closed):
    """The watchdog: a write that waits longer than LIVE_SEND_TIMEOUT_SECONDS for the client ends
    the stream, and the stream's place under the limits is given back."""
    from games.streams.asgi import GATE, StreamHandler

    settings.LIVE_SEND_TIMEOUT_SECONDS = 1.0
    settings.LIVE_HEARTBEAT_SECONDS = 0.2

    async def run() -> tuple[float, list[str], int]:
        handler = StreamHandler()
        sent: list[str] = []

        async def never() -> None:
            await asyncio.Event().wait()
        first = [True]

        async def receive() -> dict[str, Any]:
            if first[0]:
                first[0] = False
                return {"type": "http.request", "body": b"", "more_body": False}
            await never()  # the client never hangs up
            return {}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message["type"])
            if message["type"] == "http.response.body" and len(sent) > 2:
                await never()  # the client's window is full: this write never completes

        scope = {"type": "http", "method": "GET", "path": "/events/lobby/", "query_string": b"",
                 "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.9", 5), "server": ("127.0.0.1", 80),
                 "scheme": "http", "http_version": "1.1", "root_path": "", "asgi": {"version": "3.0"}}
        begun = time.perf_counter()
        during = []

        async def watch() -> None:
            await asyncio.sleep(0.5)
            during.append(GATE.total)

        watcher = asyncio.create_task(watch())
        await asyncio.wait_for(handler(scope, receive, send), timeout=10)
        await watcher
        return time.perf_counter() - begun, sent, during[0]

    lasted, sent, during = asyncio.run(run())
    from games.streams.asgi import GATE as after

    assert sent[0] == "http.response.start" and "http.response.body" in sent
    assert during == 1 and after.total == 0, "held while open, given back when dropped"
    assert 1.0 <= lasted <= 4.0, f"dropped after {lasted:.1f} s"
