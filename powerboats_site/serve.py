"""The web process (the Procfile's ``web``): uvicorn serving powerboats_site.asgi, in worker
processes that take a new connection only while they can start on it.

    python -m powerboats_site.serve --host 127.0.0.1 --port 8000 --workers 2

Why: uvicorn's workers share one listening socket and each accepts every connection it sees, as
fast as it can. The busiest worker's event loop is awake most often, so it wins most accepts:
one worker held 9-16 requests while the other held 1-8 (bench/http.py, an in-flight count per
worker), and a request that landed in the long queue waited for it. The turns' p99 was 185-210
ms under uvicorn against 125-135 ms under gunicorn's sync workers, which accept only when free
(docs/performance.md). Here each worker accepts, one connection at a time, only while the sync
site (pages, API, the turn path: powerboats_site.wsgi_bridge) has fewer requests in hand than its
threads plus one; otherwise it stops listening until one ends, and the connection waits in the
kernel's queue for whichever worker is free first. The live streams (async, no thread) are not
counted: a worker holding thousands of streams still takes new connections.

What uvicorn does is otherwise unchanged (its ``Server``, its HTTP protocol, its signals and
graceful shutdown): its server is started with no socket to listen on, and the gate accepts and
hands each connection over with the event loop's ``connect_accepted_socket``. The parent binds
the socket, starts the workers (forked; each stops when the parent dies), starts again one that
dies, stops when one cannot start, and on SIGTERM, SIGINT, SIGHUP or SIGQUIT stops them (each
finishes what it serves within ``--timeout-graceful-shutdown``; one still there 10 s later is
killed). Not kept from uvicorn's own command: its other options, its health pings of the
workers, its rolling restart on SIGHUP (docs/live.md)."""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import errno
import logging
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE

APP = "powerboats_site.asgi:application"
ACCEPT_RETRY_SECONDS = 1.0  # out of file descriptors: try again after a second, as asyncio does
# what accept(2) may return for a connection that failed before it was taken: try the next one
ACCEPT_TRANSIENT = {errno.ECONNABORTED, errno.EPROTO, errno.ENETDOWN, errno.ENOPROTOOPT, errno.EHOSTDOWN,
                    errno.ENONET, errno.EHOSTUNREACH, errno.EOPNOTSUPP, errno.ENETUNREACH}
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
KILL_AFTER_SECONDS = 10.0  # beyond the graceful shutdown: a worker still there then is killed
PR_SET_PDEATHSIG = 1

logger = logging.getLogger("uvicorn.error")


class AcceptGate:
    """Accepts connections on ``sockets`` while ``busy`` is below ``limit``, and hands each to
    ``protocol_factory``'s protocol on ``loop``. ``update(busy)`` is called by the sync site each
    time a request is handed to its threads or leaves them (on the loop's thread).

    Not exact: a connection counts once its request reaches the threads, a few turns of the loop
    after it was accepted, so a burst can take a worker a request or two past its limit; and the
    requests of a connection the worker already holds (HTTP keep-alive) are always taken."""

    def __init__(self, loop: asyncio.AbstractEventLoop, sockets: Sequence[socket.socket],
                 protocol_factory: Callable[[], asyncio.Protocol], limit: int) -> None:
        self.loop = loop
        self.sockets = list(sockets)
        self.protocol_factory = protocol_factory
        self.limit = limit
        self.busy = 0
        self.listening = False
        self.closed = False
        self.resting = False  # out of file descriptors: listening again after ACCEPT_RETRY_SECONDS
        self.connecting: set[asyncio.Task[Any]] = set()
        for sock in self.sockets:
            sock.setblocking(False)

    def open(self) -> None:
        if not self.listening and not self.closed and not self.resting:
            for sock in self.sockets:
                self.loop.add_reader(sock.fileno(), self._accept, sock)
            self.listening = True

    def pause(self) -> None:
        if self.listening:
            for sock in self.sockets:
                self.loop.remove_reader(sock.fileno())
            self.listening = False

    def close(self) -> None:
        self.pause()
        self.closed = True
        for task in self.connecting:
            task.cancel()

    def update(self, busy: int) -> None:
        self.busy = busy
        if busy >= self.limit:
            self.pause()
        else:
            self.open()

    def _rested(self) -> None:
        self.resting = False
        self.update(self.busy)

    def _accept(self, sock: socket.socket) -> None:
        # one connection per wake-up: the next waits for the loop's next turn, by which time this
        # one's request has usually reached the site and counts in ``busy``
        try:
            conn, _ = sock.accept()
        except (BlockingIOError, InterruptedError):
            return  # another worker took it
        except OSError as exc:
            if exc.errno in ACCEPT_TRANSIENT:
                return  # that connection failed before it was taken: the next one may be fine
            # out of file descriptors or memory: rest, as asyncio's own server does
            logger.error("Cannot accept a connection (%s): trying again in %.0f s", exc, ACCEPT_RETRY_SECONDS)
            self.pause()
            if not self.resting:
                self.resting = True
                self.loop.call_later(ACCEPT_RETRY_SECONDS, self._rested)
            return
        conn.setblocking(False)
        try:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as asyncio's and uvloop's servers do
        except OSError:
            pass  # not TCP (a Unix socket)
        task = self.loop.create_task(self._connect(conn))
        self.connecting.add(task)
        task.add_done_callback(self.connecting.discard)

    async def _connect(self, conn: socket.socket) -> None:
        try:
            await self.loop.connect_accepted_socket(self.protocol_factory, conn)
        except (OSError, asyncio.CancelledError):
            conn.close()  # the client went away before its transport was made, or we are stopping


class GatedServer(uvicorn.Server):
    """uvicorn's server, with the gate in place of its listening server."""

    gate: AcceptGate | None = None
    own_sockets: Sequence[socket.socket] = ()  # those it bound itself (one worker, no parent)

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        if sockets is None:  # one worker, run without the parent: it binds, and closes when it stops
            sockets = self.own_sockets = [_listening(self.config)]
        await super().startup(sockets=[])  # the lifespan, and nothing listening: the gate accepts
        if self.should_exit:
            return
        from powerboats_site.asgi import site  # loaded by now (config.load, before startup)

        config, state, app_state = self.config, self.server_state, self.lifespan.state

        def protocol() -> asyncio.Protocol:
            # as uvicorn makes its protocol for each connection (uvicorn.Server.startup)
            return config.http_protocol_class(config=config, server_state=state, app_state=app_state)  # type: ignore[call-arg]  # typed as asyncio.Protocol

        self.gate = AcceptGate(asyncio.get_running_loop(), sockets, protocol, limit=site.threads + 1)
        site.on_busy = self.gate.update
        self.gate.open()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.gate is not None:
            self.gate.close()
        for sock in self.own_sockets:
            sock.close()  # a new connection is refused at once, not left waiting
        await super().shutdown(sockets)


def _listening(config: uvicorn.Config) -> socket.socket:
    sock = config.bind_socket()
    sock.listen(config.backlog)  # uvicorn's own server would (asyncio's create_server)
    return sock


def _die_with(parent: int) -> None:
    """In a worker: be sent SIGTERM when the parent dies (Linux), so that a parent killed with
    SIGKILL leaves no worker serving its port."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        return  # not Linux: bin/run's supervisor still kills what a dead parent left
    if os.getppid() != parent:  # it died before the call
        os.kill(os.getpid(), signal.SIGTERM)


def _run_worker(config: uvicorn.Config, sock: socket.socket, parent: int) -> None:
    """In a forked child (the stop signals blocked): serve until told to stop. uvicorn raises
    the stop signal again once it has stopped, so a worker told to stop ends by that signal;
    otherwise it leaves with STARTUP_FAILURE if it never served (the app did not load, say),
    else 1."""
    for sig in (*STOP_SIGNALS, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    _die_with(parent)
    server = GatedServer(config)
    code = 0
    try:
        server.run(sockets=[sock])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        logger.exception("The web worker stopped")
        code = 1
    if not server.started:
        code = STARTUP_FAILURE
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _fork(config: uvicorn.Config, sock: socket.socket) -> int:
    """A worker, forked with the stop signals blocked: a stop that arrives meanwhile waits for the
    parent (which then stops the new worker too), never for the child's inherited handler."""
    parent = os.getpid()
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        pid = os.fork()
        if pid == 0:
            _run_worker(config, sock, parent)  # never returns
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    logger.info("Started web worker [%d]", pid)
    return pid


def _stop(workers: dict[int, float], seconds: float) -> None:
    """SIGTERM to every worker; SIGKILL to those still there after ``seconds``."""
    for pid in workers:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + seconds
    left = set(workers)
    while left and time.monotonic() < deadline:
        for pid in list(left):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                left.discard(pid)
        time.sleep(0.05)
    for pid in left:
        logger.error("Web worker [%d] did not stop in %.0f s: killed", pid, seconds)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def serve(config: uvicorn.Config) -> int:
    """Bind, fork ``config.workers`` workers, keep them running until a stop signal (SIGTERM,
    SIGINT, SIGHUP, SIGQUIT)."""
    if config.workers <= 1:
        server = GatedServer(config)
        server.run()
        return 0 if server.started else STARTUP_FAILURE
    sock = _listening(config)
    stopping: list[int] = []

    def stop(signum: int, _frame: Any) -> None:
        stopping.append(signum)

    for sig in STOP_SIGNALS:
        signal.signal(sig, stop)
    workers: dict[int, float] = {}  # pid: when it was started
    for _ in range(config.workers):
        if not stopping:
            workers[_fork(config, sock)] = time.monotonic()
    status = 0
    while workers and not stopping:
        time.sleep(0.2)
        while workers and not stopping:
            pid, code = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            started = workers.pop(pid, time.monotonic())
            if os.WIFEXITED(code) and os.WEXITSTATUS(code) == STARTUP_FAILURE:
                # it failed before serving (the app, the socket): every new one would fail alike
                logger.error("Web worker [%d] failed to start: stopping", pid)
                stopping.append(signal.SIGTERM)
                status = STARTUP_FAILURE
                break
            logger.warning("Web worker [%d] died: starting another", pid)
            if time.monotonic() - started < 1:
                time.sleep(1)  # one that dies at once: not a restart loop at full speed
            if not stopping:
                workers[_fork(config, sock)] = time.monotonic()
    sock.close()  # the workers' copies close as they stop: new connections are refused then
    _stop(workers, config.timeout_graceful_shutdown + KILL_AFTER_SECONDS
          if config.timeout_graceful_shutdown is not None else KILL_AFTER_SECONDS)
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=1, help="worker processes (the Procfile: 2)")
    parser.add_argument("--timeout-graceful-shutdown", type=int, default=3,
                        help="seconds a stopping worker gives the requests it serves (open live streams are "
                             "then ended)")
    parser.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug",
                                                                 "trace"])
    parser.add_argument("--backlog", type=int, default=2048, help="connections the kernel holds for the workers")
    args = parser.parse_args(argv)
    config = uvicorn.Config(APP, host=args.host, port=args.port, workers=args.workers,
                            timeout_graceful_shutdown=args.timeout_graceful_shutdown, log_level=args.log_level,
                            backlog=args.backlog,
                            # the site reads X-Forwarded-For and -Proto itself (PROXY_COUNT, SITE_URL), so
                            # that a client cannot pick its address: never uvicorn
                            proxy_headers=False)
    return serve(config)


if __name__ == "__main__":
    sys.exit(main())
