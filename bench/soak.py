"""Soak the embedded default: clients play house bots against ``bin/run`` for a long time.

    python bench/soak.py [--clients 8] [--minutes 30 | --seconds S] [--port 8390] [--var DIR] [--json FILE]

Starts ``bin/run`` as a newcomer does (SQLite, the folder broker, no DATABASE_URL or
CELERY_BROKER_URL) on its own port and its own ``POWERBOATS_VAR_DIR`` (a temporary folder
unless ``--var``), then ``--clients`` clients, each in a loop: sign up (a new account through
``POST /api/accounts/``), then either play a game against a house bot (``POST /api/bots/play/``)
or open a series of three with two house bots (easy and normal) (``POST /api/series/``, ``…/bots/``), and play it
to the end with random legal actions, polling the game between its own actions. Every action
that hands the turn to a bot queues a Celery task that the worker must run; the time until
the client's turn comes back is measured (over 30 s counts as *late*: the clock sweep, not the
task, brought the bot's move; the client gives a game up after 180 s).

Counted at the end, after the queue has drained:

* **published**: messages that entered ``var/broker/queue`` for the task queue (watched with
  inotify, so nothing in the site is instrumented); **received** / **finished**: the worker's
  ``Task …[id] received`` lines, and its ``succeeded`` / ``raised`` / ``retry`` lines;
  **lost** = published − received − still queued; **set aside**: files in ``broker/bad/``;
* **processes restarted**: supervisord's ``exited: … not expected`` lines; **unrecoverable**:
  the worker's ``Unrecoverable error`` lines;
* HTTP errors (5xx, refused connections), bot replies (count, median, max, late), load average
  (sampled every 10 s, and ``uptime`` at the end).

``--broker filesystem://`` runs the same against kombu's own filesystem transport (the
embedded default before issue 23). Figures in docs/broker.md; tests/site/test_soak.py runs it for ~30 s with 3 clients.
"""

from __future__ import annotations

import sys
from pathlib import Path

if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)  # bench/http.py would hide the standard library's http

import argparse
import ctypes
import json
import os
import random
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LATE_SECONDS = 30.0
GIVE_UP_SECONDS = 180.0


# --- the queue, watched -------------------------------------------------------------------
class QueueWatch:
    """Names of the message files that enter a folder (inotify: created, or renamed into it)."""

    IN_CLOSE_WRITE, IN_MOVED_TO = 0x8, 0x80

    def __init__(self, folder: Path, suffix: str) -> None:
        self.names: set[str] = set()
        self.suffix = suffix
        self.libc = ctypes.CDLL("libc.so.6", use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK)
        if self.fd < 0 or self.libc.inotify_add_watch(self.fd, str(folder).encode(),
                                                      self.IN_MOVED_TO | self.IN_CLOSE_WRITE) < 0:
            raise OSError(ctypes.get_errno(), "inotify")
        self.overflowed = False
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopped.is_set():
            ready, _, _ = select.select([self.fd], [], [], 0.5)
            if not ready:
                continue
            data = os.read(self.fd, 1 << 20)
            offset = 0
            while offset < len(data):
                _wd, mask, _cookie, length = struct.unpack_from("iIII", data, offset)
                name = data[offset + 16:offset + 16 + length].rstrip(b"\0").decode()
                offset += 16 + length
                if mask & 0x4000:  # IN_Q_OVERFLOW
                    self.overflowed = True
                if name.endswith(self.suffix):
                    self.names.add(name)

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(5)
        os.close(self.fd)


# --- one client ------------------------------------------------------------------------------
class Client(threading.Thread):
    def __init__(self, base: str, number: int, deadline: float, stats: dict[str, Any], lock: threading.Lock) -> None:
        super().__init__(daemon=True)
        self.base, self.number, self.deadline = base, number, deadline
        self.stats, self.lock = stats, lock
        self.random = random.Random(number)
        self.token = ""

    def add(self, key: str, value: Any = 1) -> None:
        with self.lock:
            if isinstance(value, float):
                self.stats.setdefault(key, []).append(value)
            else:
                self.stats[key] = self.stats.get(key, 0) + value

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        request = urllib.request.Request(self.base + path, method=method, headers=headers,
                                         data=json.dumps(body).encode() if body is not None else None)
        for attempt in range(30):
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    self.add("requests")
                    return response.status, json.loads(response.read() or b"null")
            except urllib.error.HTTPError as error:
                self.add("requests")
                if error.code >= 500:
                    self.add("http_5xx")
                    time.sleep(1)
                    continue
                return error.code, json.loads(error.read() or b"null")
            except OSError:
                self.add("refused")  # the web server was down or did not answer
                time.sleep(min(2.0, 0.2 * (attempt + 1)))
        raise RuntimeError(f"{method} {path}: no answer after 30 tries")

    def sign_up(self) -> None:
        self.token = ""
        name = f"soak{self.number}_{uuid.uuid4().hex[:10]}"
        status, body = self.call("POST", "/api/accounts/", {"username": name, "password": "soak-password-1",
                                                            "email": f"{name}@example.com"})
        if status != 201:
            raise RuntimeError(f"sign-up: {status} {body}")
        self.token = body["token"]
        self.add("sign_ups")

    def act(self, path: str, state: dict[str, Any]) -> int:
        """One random legal action; returns the HTTP status."""
        ply = state["ply"]
        if "placements" in state:
            cell = self.random.choice(state["placements"]["cells"])
            status, _ = self.call("POST", f"{path}place/", {"ply": ply, "cell": cell, "heading": self.random.randrange(6)})
        elif "dice_options" in state:
            changes = [c["change"] for c in state["dice_options"]["changes"] if c["change"] in ("keep", "add")]
            status, _ = self.call("POST", f"{path}roll/", {"ply": ply, "change": self.random.choice(changes),
                                                           "reroll": []})
        elif "options" in state:
            allowed = [o["direction"] for o in state["options"] if o.get("allowed")]
            status, _ = self.call("POST", f"{path}direction/", {"ply": ply, "direction": self.random.choice(allowed)})
        else:
            return 0
        self.add("actions")
        return status

    def play(self, path: str, kind: str) -> None:
        """Play one game or series to its end (or to the deadline), timing the bots' replies."""
        waiting_since: float | None = None
        while time.time() < self.deadline:
            status, state = self.call("GET", path)
            if status != 200:
                raise RuntimeError(f"GET {path}: {status} {state}")
            if state["status"] != "active":
                self.add(f"{kind}_finished")
                return
            if state["your_turn"]:
                if waiting_since is not None:
                    waited = time.monotonic() - waiting_since
                    self.add("bot_reply_seconds", waited)
                    if waited > LATE_SECONDS:
                        self.add("bot_late")
                waiting_since = None
                if self.act(path, state) == 200:
                    waiting_since = time.monotonic()
                continue
            if waiting_since is None:
                waiting_since = time.monotonic()  # the bot moves first
            elif time.monotonic() - waiting_since > GIVE_UP_SECONDS:
                self.add("bot_never_answered")
                self.call("POST", f"{path}resign/", {})
                return
            time.sleep(0.3)

    def run(self) -> None:
        try:
            while time.time() < self.deadline:
                self.sign_up()
                if self.random.random() < 0.5:
                    status, game = self.call("POST", "/api/bots/play/", {"level": self.random.choice(["easy", "normal"]),
                                                                          "days_per_move": 3})
                    if status != 201:
                        raise RuntimeError(f"play a bot: {status} {game}")
                    self.add("games_started")
                    self.play(f"/api/games/{game['id']}/", "games")
                else:
                    status, series = self.call("POST", "/api/series/", {"seats": 3})
                    if status != 201:
                        raise RuntimeError(f"open a series: {status} {series}")
                    for level in ("easy", "normal"):  # each house bot sits once in a series
                        status, body = self.call("POST", f"/api/series/{series['id']}/bots/", {"level": level})
                        if status != 200:
                            raise RuntimeError(f"add a bot: {status} {body}")
                    self.add("series_started")
                    self.play(f"/api/series/{series['id']}/", "series")
        except Exception as error:  # a failed client is a finding, reported
            with self.lock:
                self.stats.setdefault("client_errors", []).append(f"client {self.number}: {error!r}")


# --- the site --------------------------------------------------------------------------------
def start_site(port: int, var: Path, log: Path, broker: str = "") -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL",
                                                            "EMAIL_URL", "SITE_URL")}
    env.update(PORT=str(port), POWERBOATS_VAR_DIR=str(var))
    if broker:
        env["CELERY_BROKER_URL"] = broker
    return subprocess.Popen([str(ROOT / "bin" / "run")], cwd=ROOT, env=env, stdout=log.open("ab"),
                            stderr=subprocess.STDOUT, start_new_session=True)


def wait_for_text(log: Path, text: str, timeout: float, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    raise RuntimeError(f"bin/run did not say {text!r}:\n" + log.read_text(errors="replace")[-3000:])


WORKER_LINE = re.compile(r"Task ([\w.]+)\[([\w-]+)\] (received|succeeded|raised|retry|failed)")


def worker_counts(text: str) -> dict[str, Any]:
    counts: dict[str, Any] = {"received": 0, "finished": 0, "by_task": {}}
    for name, _id, what in WORKER_LINE.findall(text):
        short = name.rsplit(".", 1)[-1]
        if what == "received":
            counts["received"] += 1
            counts["by_task"][short] = counts["by_task"].get(short, 0) + 1
        else:
            counts["finished"] += 1
    return counts


def queued(var: Path) -> int:
    return len(list((var / "broker" / "queue").glob("*.celery.msg")))


def soak(clients: int, seconds: float, port: int, var: Path | None = None, quiet: bool = False,
         broker: str = "") -> dict[str, Any]:
    owned = var is None
    var = Path(tempfile.mkdtemp(prefix="powerboats-soak-")) / "var" if var is None else var
    var.mkdir(parents=True, exist_ok=True)
    log = var.parent / f"soak-{port}.log"
    log.write_bytes(b"")  # bin/run's output of this run only
    proc = start_site(port, var, log, broker)
    stats: dict[str, Any] = {}
    loads: list[tuple[float, float, float]] = []
    try:
        wait_for_text(log, f"Powerboats is ready at http://127.0.0.1:{port}/", 300, proc)
        wait_for_text(log, "celery@", 120, proc)
        watch = QueueWatch(var / "broker" / "queue", ".celery.msg")
        started = time.time()
        lock = threading.Lock()
        threads = [Client(f"http://127.0.0.1:{port}", n, started + seconds, stats, lock) for n in range(clients)]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            loads.append(os.getloadavg())
            for t in threads:
                t.join(10 / max(1, len(threads)))
        # drain: the queue empties and every task the worker took is finished
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            counts = worker_counts(log.read_text(errors="replace"))
            if queued(var) == 0 and counts["received"] == counts["finished"]:
                time.sleep(2)  # beat may be publishing right now
                if queued(var) == 0:
                    break
            time.sleep(1)
        elapsed = time.time() - started
        watch.stop()
        uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
        text = log.read_text(errors="replace")
        counts = worker_counts(text)
        still = queued(var)
        replies = stats.pop("bot_reply_seconds", [])
        supervisord = (var / "supervisord.log").read_text(errors="replace") if (var / "supervisord.log").exists() else ""
        result = {
            "clients": clients, "seconds": round(elapsed), **{k: v for k, v in sorted(stats.items())},
            "tasks_published": len(watch.names), "tasks_received": counts["received"],
            "tasks_finished": counts["finished"], "tasks_still_queued": still,
            "tasks_lost": len(watch.names) - counts["received"] - still,
            "tasks_by_name": counts["by_task"], "inotify_overflow": watch.overflowed,
            "set_aside": len(list((var / "broker" / "bad").iterdir())) if (var / "broker" / "bad").exists() else 0,
            "processes_restarted": supervisord.count("not expected"),
            "unrecoverable_errors": text.count("Unrecoverable error"),
            "bot_replies": len(replies),
            "bot_reply_median_s": round(statistics.median(replies), 2) if replies else None,
            "bot_reply_max_s": round(max(replies), 2) if replies else None,
            "load_1min_mean": round(statistics.mean(x[0] for x in loads), 2) if loads else None,
            "load_1min_max": round(max(x[0] for x in loads), 2) if loads else None,
            "uptime": uptime,
        }
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        if owned:
            shutil.rmtree(var.parent, ignore_errors=True)
    if not quiet:
        print(json.dumps(result, indent=1))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--seconds", type=float, default=None, help="instead of --minutes")
    parser.add_argument("--port", type=int, default=int(os.environ.get("BENCH_PORT", "8390")))
    parser.add_argument("--var", type=Path, default=None, help="the site's var/ (kept); default: a temporary one")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--broker", default="", help="a CELERY_BROKER_URL instead of the embedded default "
                                                     "(filesystem://: kombu's transport, as before issue 23)")
    args = parser.parse_args()
    result = soak(args.clients, args.seconds if args.seconds is not None else args.minutes * 60, args.port, args.var,
                  broker=args.broker)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    sys.exit(0 if result["tasks_lost"] == 0 and result["processes_restarted"] == 0
             and not result.get("client_errors") else 1)


if __name__ == "__main__":
    main()
