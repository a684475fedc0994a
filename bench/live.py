"""Live event latency: from a move's commit to the event arriving at a connected client.

    python bench/live.py [--events 300] [--port 8115]

Starts the web server as the Procfile does (uvicorn, two workers, powerboats_site.asgi) on a
fresh SQLite database in var/bench-live (the embedded default; give ``DATABASE_URL`` for
PostgreSQL: its database is flushed), makes games between two players, and plays them through
the API while a spectator follows each game on its Server-Sent Events stream
(``/events/game/<id>/``). Each event carries the time it was written (right after the move's
commit); the client notes when the event arrives. Printed: p50/p90/p99/max of commit → client,
and of the POST's return → client (what a player waiting for the other sees), over
``--events`` moves. Figures: docs/live.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)  # bench/http.py is beside this file: let ``import http`` find the standard library

import argparse
import http.client
import json
import os
import queue
import random
import shutil
import signal
import statistics
import subprocess
import threading
import time
from datetime import datetime
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VAR = ROOT / "var" / "bench-live"


def env() -> dict[str, str]:
    return {**os.environ, "POWERBOATS_VAR_DIR": str(VAR), "DEBUG": "false", "LOG_LEVEL": "WARNING",
            "EMAIL_URL": "memorymail://", "SECRET_KEY": "bench-live-not-secret", "ALLOWED_HOSTS": "127.0.0.1",
            "DJANGO_SETTINGS_MODULE": "powerboats_site.settings"}


def call(port: int, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json", **({"Authorization": f"Token {token}"} if token else {})}
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = conn.getresponse()
    raw = response.read()
    conn.close()
    return response.status, json.loads(raw) if raw else None


class Spectator:
    """Follows one game's SSE stream in a thread: (arrival time, event) per event."""

    def __init__(self, port: int, game_id: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.conn.request("GET", f"/events/game/{game_id}/")
        self.response = self.conn.getresponse()
        self.events: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                line = self.response.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    self.events.put((time.time(), json.loads(line[6:])))
        except Exception:
            return

    def close(self) -> None:
        self.conn.close()


def action(state: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A reasonable action for the player to move (as docs/live_client.py plays)."""
    ply = state["ply"]
    if "placements" in state:
        return "place", {"ply": ply, "cell": state["placements"]["cells"][0], "heading": 0}
    if "dice_options" in state:
        me = next(p for p in state["players"] if p["color"] == state["your_color"])
        return "roll", {"ply": ply, "change": "add" if len(me["dice"]) < 2 else "keep", "reroll": []}
    return "direction", {"ply": ply, "direction": next(o["direction"] for o in state["options"] if o["allowed"])}


def setup(players: int) -> list[str]:
    """(In this process, on the bench database.) Players with tokens."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    User = get_user_model()
    tokens = []
    for i in range(players):
        user = User.objects.create_user(f"bench{i}", f"bench{i}@example.com", "bench-not-secret-42")
        tokens.append(Token.objects.create(user=user).key)
    return tokens


def percentiles(xs: list[float]) -> str:
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=100, method="inclusive") if len(xs) > 1 else xs * 99
    return f"p50 {q[49] * 1000:6.1f} ms   p90 {q[89] * 1000:6.1f} ms   p99 {q[98] * 1000:6.1f} ms   " \
           f"max {xs[-1] * 1000:6.1f} ms   (n={len(xs)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--port", type=int, default=8115)
    args = parser.parse_args()
    shutil.rmtree(VAR, ignore_errors=True)
    VAR.mkdir(parents=True)
    os.environ.update(env())
    sys.path.insert(0, str(ROOT))
    if os.environ.get("DATABASE_URL", "").startswith("postgres"):
        subprocess.run([sys.executable, "manage.py", "flush", "--noinput"], cwd=ROOT, check=False)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, check=True)
    subprocess.run([sys.executable, "manage.py", "createcachetable"], cwd=ROOT, check=True)
    tokens = setup(2)
    log = (VAR / "server.log").open("wb")
    server = subprocess.Popen([sys.executable, "-m", "uvicorn", "powerboats_site.asgi:application", "--host",
                               "127.0.0.1", "--port", str(args.port), "--workers", "2", "--no-proxy-headers",
                               "--timeout-graceful-shutdown", "1", "--log-level", "warning"],
                              cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(200):
            try:
                call(args.port, "GET", "/health/")
                break
            except OSError:
                time.sleep(0.1)
        rng = random.Random(1)
        from_commit: list[float] = []
        from_post: list[float] = []
        while len(from_commit) < args.events:
            status, challenge = call(args.port, "POST", "/api/challenges/",
                                     {"opponent": "bench1", "color": "yellow", "rated": False}, tokens[0])
            status, game = call(args.port, "POST", f"/api/challenges/{challenge['id']}/accept/", None, tokens[1])
            spectator = Spectator(args.port, game["id"])
            time.sleep(0.3)  # connected
            seat_token = {"yellow": tokens[0], "red": tokens[1]}
            while len(from_commit) < args.events:
                _, state = call(args.port, "GET", f"/api/games/{game['id']}/", None, tokens[0])
                if state["status"] != "active":
                    break
                token = seat_token[state["to_move"]]
                _, state = call(args.port, "GET", f"/api/games/{game['id']}/", None, token)
                kind, body = action(state)
                time.sleep(rng.uniform(0, 0.25))  # not in step with the servers' polls (as real players are not)
                status, answer = call(args.port, "POST", f"/api/games/{game['id']}/{kind}/", body, token)
                returned = time.time()
                if status != 200:
                    raise SystemExit(f"{kind} {body}: {status} {answer}")
                while True:  # the event of this action (a finishing move also sends "finish")
                    arrived, event = spectator.events.get(timeout=10)
                    if event["type"] == "move" and event["ply"] >= answer["ply"]:
                        break
                committed = datetime.fromisoformat(event["at"]).timestamp()
                from_commit.append(arrived - committed)
                from_post.append(max(0.0, arrived - returned))
            spectator.close()
        load = os.getloadavg()
        print(f"{len(from_commit)} moves, server: uvicorn x2 on {os.environ.get('DATABASE_URL', 'SQLite')}, "
              f"poll every {os.environ.get('LIVE_POLL_SECONDS', '0.2')} s; load average {load[0]:.1f}")
        print(f"commit -> client:        {percentiles(from_commit)}")
        print(f"POST returned -> client: {percentiles(from_post)}")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
