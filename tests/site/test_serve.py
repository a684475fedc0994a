"""powerboats_site.serve, the Procfile's web process: a worker takes a new connection only while
its sync site has fewer requests in hand than its threads plus one, so a connection waits in the
kernel's queue for a free worker instead of behind a busy one; the parent starts the workers,
starts again one that dies, stops one that cannot start, and stops them all on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from powerboats_site.serve import STARTUP_FAILURE, AcceptGate
from powerboats_site.wsgi_bridge import Bridge
from tests.games.live_site import site_env, wait_until_up
from tests.sqlite_copy import copy_sqlite

ROOT = Path(__file__).resolve().parents[2]
# the ports of this module (two per xdist worker), away from those of the other tests that serve
PORT = 8420 + 2 * int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)


class Worker:
    """An event loop in a thread with a gate on ``sock``, as one web worker; records the
    connections it was given."""

    def __init__(self, sock: socket.socket, limit: int = 3) -> None:
        self.loop = asyncio.new_event_loop()
        self.connections: list[asyncio.Transport] = []
        worker = self

        class Recorder(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                worker.connections.append(transport)  # type: ignore[arg-type]

        self.gate = AcceptGate(self.loop, [sock], Recorder, limit=limit)
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def busy(self, n: int) -> None:
        """As the sync site says when a request starts or ends (on the loop's thread)."""
        done = threading.Event()
        self.loop.call_soon_threadsafe(lambda: (self.gate.update(n), done.set()))
        assert done.wait(2)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.gate.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(2)


@pytest.fixture
def listening() -> Iterator[socket.socket]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    yield sock
    sock.close()


def connect(sock: socket.socket) -> socket.socket:
    return socket.create_connection(sock.getsockname(), timeout=2)  # the kernel completes it: it waits to be accepted


def until(condition, seconds: float = 2.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def test_a_worker_at_its_limit_leaves_a_connection_waiting_until_a_request_ends(listening):
    worker = Worker(listening, limit=3)
    try:
        worker.busy(0)  # open: it accepts
        first = connect(listening)
        assert until(lambda: len(worker.connections) == 1)
        worker.busy(3)  # two threads at work and one request waiting for them: at its limit
        second = connect(listening)
        assert not until(lambda: len(worker.connections) > 1, seconds=0.5), "accepted while at its limit"
        worker.busy(2)  # a request ended
        assert until(lambda: len(worker.connections) == 2)
        first.close()
        second.close()
    finally:
        worker.stop()


def test_a_connection_goes_to_the_free_worker_not_the_busy_one(listening):
    """Two workers on one socket, as the Procfile's two processes: while one is at its limit,
    every new connection goes to the other (uvicorn's own workers each took whatever they saw,
    and the busiest took most, docs/performance.md)."""
    busy, free = Worker(listening), Worker(listening)
    clients = []
    try:
        busy.busy(3)
        free.busy(1)
        clients = [connect(listening) for _ in range(6)]
        assert until(lambda: len(free.connections) == 6)
        assert busy.connections == []
        free.busy(3)
        busy.busy(0)
        clients.append(connect(listening))
        assert until(lambda: len(busy.connections) == 1) and len(free.connections) == 6
    finally:
        for client in clients:
            client.close()
        busy.stop()
        free.stop()


def test_the_bridge_tells_how_many_requests_it_has_in_hand():
    """What the gate hears: one more when a request reaches the sync site, one fewer when its
    response has been handed over, also when the app fails."""
    heard: list[int] = []

    def app(environ, start_response):
        if environ["PATH_INFO"] == "/fail":
            raise RuntimeError("the app failed")
        start_response("204 No Content", [])
        return []

    bridge = Bridge(app, workers=2)
    bridge.on_busy = heard.append

    async def request(path: str) -> None:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
                 "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 5000), "server": ("testserver", 80)}

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            pass

        try:
            await bridge(scope, receive, send)
        except RuntimeError:
            pass

    async def main() -> None:
        await asyncio.gather(request("/a"), request("/b"))
        await request("/fail")

    asyncio.run(main())
    bridge.executor.shutdown(wait=True)
    assert heard[:2] == [1, 2] and heard[-2:] == [1, 0] and bridge.busy == 0
    assert max(heard) == 2 and len(heard) == 6


def accept_queue(port: int) -> int:
    """How many connections wait in the kernel for a worker to accept them (``ss``: a listening
    socket's Recv-Q)."""
    out = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    return sum(int(line.split()[1]) for line in out.splitlines() if line.strip())


def stalled_upload(port: int, token: str) -> socket.socket:
    """An API POST whose body stops after 70 KB of 200 KB: past what the bridge reads ahead, so
    its request goes to a thread, which waits in DRF's read of the body for the rest."""
    client = socket.create_connection(("127.0.0.1", port), timeout=5)
    client.sendall(b"POST /api/challenges/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token "
                   + token.encode() + b"\r\nContent-Type: application/json\r\nContent-Length: 200000\r\n\r\n"
                   + b" " * 70_000)
    return client


@pytest.mark.slow
def test_the_site_s_threads_close_the_gate_and_a_connection_waits_in_the_kernel(tmp_path, migrated_sqlite):
    """The gate as the site drives it, on uvloop: one thread (WEB_THREADS=1), so a limit of two
    requests; two uploads that stall hold the thread and the place after it, and a new
    connection then waits in the kernel's queue (not in the worker) until one of them ends.
    (Without the gate it would be taken at once and wait in the worker.)"""
    port = PORT + 1
    base = f"http://127.0.0.1:{port}"
    copy_sqlite(migrated_sqlite, tmp_path / "db.sqlite3")
    script = ("from accounts.models import User; from rest_framework.authtoken.models import Token; "
              "print(Token.objects.create(user=User.objects.create_user('gate', None, None)).key)")
    token = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=site_env(tmp_path, base),
                           capture_output=True, text=True, check=True).stdout.split()[-1]
    log_path = tmp_path / "web.log"
    with log_path.open("wb") as log:
        web = subprocess.Popen([sys.executable, "-m", "powerboats_site.serve", "--host", "127.0.0.1", "--port",
                                str(port), "--timeout-graceful-shutdown", "1"], cwd=ROOT,
                               env={**site_env(tmp_path, base), "WEB_THREADS": "1"}, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
        uploads: list[socket.socket] = []
        try:
            wait_until_up(base, log_path)
            assert accept_queue(port) == 0
            uploads = [stalled_upload(port, token) for _ in range(2)]
            time.sleep(1)  # both reach the site: one in the thread, one waiting for it
            waiting = socket.create_connection(("127.0.0.1", port), timeout=10)
            waiting.sendall(b"GET /health/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert until(lambda: accept_queue(port) == 1, 3), "the worker took the connection at its limit"
            time.sleep(0.5)
            assert accept_queue(port) == 1
            uploads.pop(0).close()  # the thread's request ends: the other one takes the thread, a place is free
            assert until(lambda: accept_queue(port) == 0, 10), "not accepted when a place was free"
            uploads.pop(0).close()  # and the thread is free for it
            answer = waiting.recv(200)
            assert answer.startswith(b"HTTP/1.1 200"), answer
            waiting.close()
        finally:
            for upload in uploads:
                upload.close()
            os.killpg(web.pid, signal.SIGKILL)
            web.wait(10)
    assert "Traceback" not in log_path.read_text()


def workers_of(pid: int) -> set[int]:
    return {int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}


@pytest.mark.slow
def test_the_web_process_starts_again_a_worker_that_dies_and_stops_on_sigterm(tmp_path, migrated_sqlite):
    base = f"http://127.0.0.1:{PORT}"
    log_path = tmp_path / "web.log"
    web = start_web(tmp_path, migrated_sqlite, PORT, log_path)
    try:
        wait_until_up(base, log_path)
        assert until(lambda: len(workers_of(web.pid)) == 2, 10), (workers_of(web.pid), log_path.read_text()[-3000:])
        first = workers_of(web.pid)
        killed = min(first)
        os.kill(killed, signal.SIGKILL)  # as the kernel's OOM killer would
        assert until(lambda: len(workers_of(web.pid)) == 2 and killed not in workers_of(web.pid), 10)
        for _ in range(6):  # both workers serve (the new one once it has loaded the site)
            assert urllib.request.urlopen(f"{base}/health/", timeout=10).status == 200
        serving = workers_of(web.pid)
        web.send_signal(signal.SIGTERM)
        assert web.wait(15) == 0
        assert still_running(serving) == [], "a worker outlived the web process"
    finally:
        if web.poll() is None:
            os.killpg(web.pid, signal.SIGKILL)  # its workers too
            web.wait(10)
    text = log_path.read_text()
    assert f"Web worker [{killed}] died: starting another" in text, text[-2000:]
    assert "Traceback" not in text, text[-3000:]


def still_running(pids: set[int]) -> list[int]:
    """Those of ``pids`` still running (not zombies) after a moment."""
    def alive(pid: int) -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    until(lambda: not any(alive(p) for p in pids), 5)
    return [p for p in pids if alive(p)]


def test_a_worker_that_cannot_start_stops_the_web_process(tmp_path):
    """A site that does not load (here: settings that do not exist) fails the same way in every
    new worker: the parent stops with uvicorn's start-up failure status instead of starting
    workers for ever (supervisord then restarts the program, with its back-off)."""
    env = {**site_env(tmp_path, f"http://127.0.0.1:{PORT}"), "DJANGO_SETTINGS_MODULE": "tests.no_such_settings"}
    started = time.monotonic()
    web = subprocess.run([sys.executable, "-m", "powerboats_site.serve", "--host", "127.0.0.1", "--port",
                          str(PORT + 1), "--workers", "2"], cwd=ROOT, env=env, capture_output=True, timeout=60)
    assert web.returncode == STARTUP_FAILURE, web.stdout.decode()[-2000:]
    assert time.monotonic() - started < 30
    assert b"failed to start" in web.stdout + web.stderr


def start_web(tmp_path: Path, migrated_sqlite: Path, port: int, log_path: Path) -> subprocess.Popen[bytes]:
    copy_sqlite(migrated_sqlite, tmp_path / "db.sqlite3")
    with log_path.open("wb") as log:
        return subprocess.Popen([sys.executable, "-m", "powerboats_site.serve", "--host", "127.0.0.1", "--port",
                                 str(port), "--workers", "2", "--timeout-graceful-shutdown", "1"], cwd=ROOT,
                                env=site_env(tmp_path, f"http://127.0.0.1:{port}"), stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)


@pytest.mark.slow
def test_a_stop_while_the_workers_start_stops_them_all(tmp_path, migrated_sqlite):
    """SIGTERM as soon as the first worker is forked: before, a worker forked with the parent's
    handler could swallow the parent's SIGTERM and serve on, and the parent waited for it for
    ever. The signals are blocked around each fork and a worker still there after the grace
    period is killed."""
    log_path = tmp_path / "web.log"
    web = start_web(tmp_path, migrated_sqlite, PORT + 1, log_path)
    try:
        assert until(lambda: "Started web worker" in log_path.read_text(), 20)
        web.send_signal(signal.SIGTERM)
        assert web.wait(20) == 0
        forked = {int(line.split("[")[1].split("]")[0]) for line in log_path.read_text().splitlines()
                  if "Started web worker" in line}
        assert forked and still_running(forked) == []
    finally:
        if web.poll() is None:
            os.killpg(web.pid, signal.SIGKILL)
            web.wait(10)


@pytest.mark.slow
def test_workers_stop_when_their_parent_is_killed(tmp_path, migrated_sqlite):
    """A parent killed with SIGKILL (or by the kernel) leaves no worker serving its port: each is
    sent SIGTERM when its parent dies (PR_SET_PDEATHSIG)."""
    log_path = tmp_path / "web.log"
    web = start_web(tmp_path, migrated_sqlite, PORT + 1, log_path)
    try:
        wait_until_up(f"http://127.0.0.1:{PORT + 1}", log_path)
        assert until(lambda: len(workers_of(web.pid)) == 2, 10)
        serving = workers_of(web.pid)
        web.kill()
        web.wait(10)
        assert still_running(serving) == [], "a worker outlived its parent"
    finally:
        if still_running(workers_of_group(web.pid)):
            os.killpg(web.pid, signal.SIGKILL)


def workers_of_group(pgid: int) -> set[int]:
    """The processes of the group ``pgid`` (a web process started in a session of its own)."""
    pids = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            pids.add(int(stat.parent.name))
    return pids
