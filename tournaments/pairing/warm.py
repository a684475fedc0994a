"""The pairing engine kept loaded: a process that imports gacrux once and forks a child for each
pairing (``tournaments.pairing.run_engine`` starts it, one per process that pairs).

Each pairing still runs in a process of its own, as ``python -m gacrux.pairingchecker ARGS``
would: a child forked from this one, whose standard output and error are files, killed when it
runs past its time. What the fork saves is the engine's imports (networkx most of them), some
0.2–0.45 s of CPU a pairing, which a new interpreter paid every time.

It reads one request a line on its standard input, JSON ``{"args": [...], "timeout": seconds}``,
and answers one line on its standard output, JSON ``{"returncode": n, "stdout": "...", "stderr":
"..."}`` (``returncode`` as ``subprocess`` gives it: negative for a signal). It exits at the end
of its input, i.e. when the process that started it closes the pipe or dies, and after
``IDLE`` seconds without a request (its first argument; pairings come in bursts, when rounds
close, and the next one starts it again), so that a worker does not keep its memory between
them. It imports nothing of the site, and this file is run by its path, so it needs no project
on ``sys.path``.
"""

from __future__ import annotations

import io
import json
import os
import runpy
import select
import signal
import sys
import tempfile
import traceback
from typing import IO, Any

import gacrux.pairingchecker  # noqa: F401  (loaded here once, for every child to inherit)

ENGINE = "gacrux.pairingchecker"


def _child(args: list[str], out: IO[bytes], err: IO[bytes]) -> None:
    """In the forked child: run the engine's command line with its output in ``out`` and
    ``err``, then leave at once (``os._exit``: nothing of the parent's is closed or flushed)."""
    code = 1
    try:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8")
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8")
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        sys.argv = [ENGINE, *args]
        try:
            runpy.run_module(ENGINE, run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as stop:  # as the interpreter turns it into a status
            if stop.code is None or isinstance(stop.code, int):
                code = stop.code or 0
            else:
                print(stop.code, file=sys.stderr)
        except BaseException:  # reported as a traceback, as the interpreter would
            traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def run(args: list[str], timeout: float) -> dict[str, Any]:
    """One pairing in a forked child: its status and its output."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:
            _child(args, out, err)
        pidfd = os.pidfd_open(pid)
        try:
            ready, _, _ = select.select([pidfd], [], [], timeout)
            if not ready:
                os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
        finally:
            os.close(pidfd)
        out.seek(0)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
        if not ready:
            stderr += f"\nthe pairing engine ran past {timeout:g} s and was stopped"
        return {"returncode": os.waitstatus_to_exitcode(status), "stdout": out.read().decode("utf-8", "replace"),
                "stderr": stderr}


def main(idle: float) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is for the process that started it
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    while select.select([requests], [], [], idle)[0]:  # one request at a time: nothing read ahead
        line = requests.readline()
        if not line:
            break
        try:
            request = json.loads(line)
            answer = run([str(a) for a in request["args"]], float(request["timeout"]))
        except Exception as exc:  # a bad request gets an answer, not the end of the process
            answer = {"returncode": 1, "stdout": "", "stderr": f"the pairing engine's process: {exc!r}"}
        answers.write(json.dumps(answer).encode() + b"\n")
        answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(float(sys.argv[1]) if len(sys.argv) > 1 else 300.0))
