"""The turn path over HTTP, against a bare Django + DRF baseline, in the same run.

    python bench/http.py [--games 1200] [--seconds 8] [--rounds 3] [--connections 16] [--keep]

Serves the project exactly as the Procfile does (powerboats_site.serve: uvicorn's server, two
workers; ``--server uvicorn``: uvicorn's own command, as the Procfile ran it before;
``--server gunicorn``: two sync gunicorn workers, as before issue 13) on
PostgreSQL (``DATABASE_URL``'s server, database ``powerboats_bench_http``) with Redis as the
broker (db 15, nothing consumes it: the tasks a move queues are part of its cost), and beside it
the bare baseline in ``bench/baseline/`` (same gunicorn command, same server, database
``powerboats_bench_base``): Django + DRF with token authentication, a POST that locks one row
with ``select_for_update``, inserts a move and updates the row, and a GET of one row.

One load generator drives both with the same number of connections, in interleaved rounds
(baseline POST, project turns, baseline GET, project API GET, project HTML page), over at least
1,000 active games so that they do not run out. Scenarios:

* **turns** — roll and direction requests (``/api/games/<id>/roll/`` and ``…/direction/``),
  each with the right player's token and ply; every request counts;
* **api get** — ``GET /api/games/<id>/`` of a random game with a player's token;
* **html** — ``GET /games/<id>/`` of a random game, logged in as one of its players.

Printed per scenario: requests/s, p50 and p99 latency, server CPU per request (user + system
time of the server's workers from /proc), the CPU PostgreSQL's processes spent on that server's
database per request (DB ms/req, from /proc when PostgreSQL runs on this machine: the cores are
shared, so a request that costs the database more leaves less to everyone) and the ratio to the
baseline. The goals (issue 10):
turns >= 60% of the baseline POST with p99 < 150 ms, API GET >= 50% and the page >= 33% of the
baseline GET. Figures go to docs/performance.md, not into timed tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)  # this file is called http.py: let ``import http`` find the standard library

import argparse
import http.client
import json
import os
import random
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# BENCH_DB_PREFIX, BENCH_PORT, BENCH_REDIS_DB and BENCH_VAR_DIR let two people (or the suite's
# tiny run) bench on one machine at once
PROJECT_DB = os.environ.get("BENCH_DB_PREFIX", "powerboats_bench") + "_http"
BASE_DB = os.environ.get("BENCH_DB_PREFIX", "powerboats_bench") + "_base"
PROJECT_PORT = int(os.environ.get("BENCH_PORT", "8091"))
BASE_PORT = PROJECT_PORT + 1
REDIS_DB = os.environ.get("BENCH_REDIS_DB", "15")
# where the games' list, the servers' logs and the result go (bench/profile_turn.py reads it too)
VAR = Path(os.environ.get("BENCH_VAR_DIR", str(ROOT / "var" / "bench-http")))
BROKER = f"redis://127.0.0.1:6379/{REDIS_DB}"
GOALS = {"turns": 0.60, "api get": 0.50, "html": 0.33}
TICK = os.sysconf("SC_CLK_TCK")


# --- databases and data --------------------------------------------------------------------


def database_url(name: str) -> str:
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres").rsplit("/", 1)[0]
    return f"{base}/{name}"


def recreate(name: str, template: str | None = None) -> None:
    import psycopg

    with psycopg.connect(database_url("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))


def project_env() -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": database_url(PROJECT_DB),
        "CELERY_BROKER_URL": BROKER,
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECRET_KEY": "bench-http-not-secret",
        "LOG_LEVEL": "WARNING",
        "POWERBOATS_VAR_DIR": str(VAR),
    }


def base_env() -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": database_url(BASE_DB), "DJANGO_SETTINGS_MODULE": "bench.baseline.settings",
            "PYTHONPATH": str(ROOT)}


def _course(seed: int) -> dict[str, Any]:
    from games.engine import new_course
    from games.state import course_data

    return course_data(new_course("standard" if seed % 3 else "expert", None, random.Random(seed)))


def fill_project(games: int, out: Path) -> None:
    """(In a subprocess with the project's settings.) Players, tokens, sessions, and ``games``
    games on their own courses with both boats placed: every game waits for Red's first roll."""
    import multiprocessing

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from games import services

    call_command("migrate", verbosity=0)
    User = get_user_model()
    players = max(40, games // 6)
    # no password (unusable): the bench signs in with tokens and sessions, and a password's hash
    # (PBKDF2, ~0.5 s of CPU each) was most of a tiny run's time
    users = [User.objects.create_user(f"bench{i:04d}", f"bench{i}@example.com", None) for i in range(players)]
    tokens = {u.pk: Token.objects.create(user=u).key for u in users}
    sessions = {}
    store = import_module(settings.SESSION_ENGINE).SessionStore  # the site's, as a login makes them
    for u in users:
        s = store()
        s[SESSION_KEY], s[BACKEND_SESSION_KEY] = str(u.pk), settings.AUTHENTICATION_BACKENDS[-1]
        s[HASH_SESSION_KEY] = u.get_session_auth_hash()
        s.create()
        sessions[u.pk] = s.session_key
    with multiprocessing.get_context("fork").Pool(os.cpu_count() or 2) as pool:
        courses = pool.map(_course, range(games), chunksize=16)
    rows, keys = [], []
    for i, course in enumerate(courses):
        yellow, red = users[(2 * i) % players], users[(2 * i + 1 + i // players) % players]
        if yellow.pk == red.pk:
            red = users[(2 * i + 2) % players]
        game = services.game_create(yellow=yellow, red=red, course_json=course, days_per_move=14, grace_days=21)
        line = course["course"]["start_finish_cells"]
        services.game_place(user=yellow, game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
        services.game_place(user=red, game_id=game.pk, ply=1, cell=tuple(line[-1]), heading=0)
        rows.append({"id": game.pk, "tokens": [tokens[yellow.pk], tokens[red.pk]],
                     "sessions": [sessions[yellow.pk], sessions[red.pk]]})
        keys.append(game.course_id)
    # each game's page shown once, as its players see it when it starts: its board's drawing is
    # stored (games.board.static_layers), as on a site in use; the page scenario measures views
    from django.utils.translation import override

    from games.board import static_layers
    from games.state import course_by_key

    with override("en"):
        for key in keys:
            static_layers(course_by_key(key), key)
    out.write_text(json.dumps(rows))


def fill_base(games: int, out: Path) -> None:
    """(In a subprocess with the baseline's settings.) One user with a token and the rows."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from bench.baseline.models import BareGame

    call_command("migrate", run_syncdb=True, verbosity=0)
    users = [get_user_model().objects.create_user(f"bare{i}", password=None) for i in range(40)]  # tokens only
    tokens = [Token.objects.create(user=u).key for u in users]
    BareGame.objects.bulk_create([BareGame(data={"n": i}) for i in range(games)])
    out.write_text(json.dumps({"ids": list(BareGame.objects.values_list("pk", flat=True)), "tokens": tokens}))


# --- servers -------------------------------------------------------------------------------


@dataclass
class Server:
    name: str
    port: int
    process: subprocess.Popen[bytes]

    def workers(self) -> list[int]:
        path = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(p) for p in path.read_text().split()]

    def cpu_seconds(self) -> float:
        return sum(process_cpu(pid) for pid in self.workers())

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def process_cpu(pid: int) -> float:
    """The CPU seconds a process has spent (user + system, from /proc; OSError when it is not
    on this machine or has ended)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14, 15 of stat)


class DatabaseCPU:
    """The CPU of the PostgreSQL server's processes serving one database (from /proc: the server
    runs on this machine; elsewhere None), which the servers' own CPU leaves out: a request that
    costs the database more leaves less of the shared cores to everyone."""

    def __init__(self, name: str) -> None:
        import psycopg

        self.name = name
        self.conn = psycopg.connect(database_url("postgres"), autocommit=True)

    def sample(self) -> dict[int, float] | None:
        rows = self.conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [self.name]).fetchall()
        seen: dict[int, float] = {}
        for (pid,) in rows:
            try:
                seen[pid] = process_cpu(pid)
            except OSError:
                return None  # not on this machine
        return seen

    @staticmethod
    def spent(before: dict[int, float] | None, after: dict[int, float] | None) -> float | None:
        """CPU seconds between two samples (a process that started in between counts from
        nothing; one that ended in between is lost: the servers keep their connections)."""
        if before is None or after is None:
            return None
        return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def start(name: str, module: str, port: int, env: dict[str, str], cwd: Path, log: Path,
          server: str = "gunicorn") -> Server:
    """gunicorn, two sync workers, access log on stdout (the baseline, and the project before
    issue 13); or the Procfile's web command (``serve``: powerboats_site.serve, uvicorn's server in
    two workers that accept a connection only while they can start on it, the ASGI app that serves
    the site through a2wsgi and the live streams, docs/live.md); or ``uvicorn``'s own command
    (two workers that accept every connection, as the Procfile ran before)."""
    if server == "serve":
        command = [sys.executable, "-m", "powerboats_site.serve", "--host", "127.0.0.1", "--port", str(port),
                   "--workers", "2"]
    elif server == "uvicorn":
        command = [sys.executable, "-m", "uvicorn", module, "--host", "127.0.0.1", "--port", str(port),
                   "--workers", "2", "--no-proxy-headers"]
    else:
        command = [sys.executable, "-m", "gunicorn", module, "--bind", f"127.0.0.1:{port}", "--workers", "2",
                   "--access-logfile", "-"]
    try:  # a server left over from an interrupted run would answer instead of this one
        http.client.HTTPConnection("127.0.0.1", port, timeout=1).connect()
        raise SystemExit(f"port {port} is in use (a server of an earlier run?): stop it, or set BENCH_PORT")
    except OSError:
        pass
    process = subprocess.Popen(command, env=env, cwd=cwd, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    for _ in range(200):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/nothing-here/")
            conn.getresponse().read()
            return Server(name, port, process)
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{name} did not start; see {log}")


# --- load ----------------------------------------------------------------------------------


def call(port: int, method: str, path: str, body: dict[str, Any] | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, bytes, float]:
    data = json.dumps(body).encode() if body is not None else None
    headers = dict(headers or {})
    if data is not None:
        headers["Content-Type"] = "application/json"
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, body=data, headers=headers)
    response = conn.getresponse()
    payload = response.read()
    conn.close()
    return response.status, payload, time.perf_counter() - t0


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: dict[int, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, status: int, seconds: float) -> None:
        with self.lock:
            self.latencies.append(seconds)
            if status >= 300:
                self.errors[status] = self.errors.get(status, 0) + 1


class TurnPlayer:
    """One connection's share of the project's games: roll, then direction, with the right
    token and ply, following each game from the answers."""

    def __init__(self, games: list[dict[str, Any]]) -> None:
        self.games = games
        self.index = 0
        self.state: dict[int, dict[str, Any]] = {}
        self.ran_out = False  # every game of this connection ended: its turns figure is too low
        # the answered turn requests, and those that ended their game: such a request costs far
        # more than another (ratings, the game-over emails, the tournament), and the bench's boats
        # crash until one sinks, so a run that plays games on (--keep) has many more of them
        self.answered = 0
        self.ended = 0

    def game(self) -> dict[str, Any] | None:
        """The next game of this connection still being played; None when all have ended (a
        short run on few games: before, this looked for one for ever, and the run never ended)."""
        for _ in range(len(self.games)):
            game = self.games[self.index % len(self.games)]
            state = self.state.setdefault(game["id"], {"ply": 2, "to_move": 1, "phase": "dice", "dice": 0,
                                                       "options": None, "over": False})
            if not state["over"]:
                return game
            self.index += 1
        return None

    def step(self, tally: Tally) -> None:
        game = self.game()
        if game is None:
            self.ran_out = True
            time.sleep(0.05)  # nothing left to play on this connection: idle until the round ends
            return
        s = self.state[game["id"]]
        token = game["tokens"][s["to_move"]]
        headers = {"Authorization": f"Token {token}"}
        if s["phase"] == "dice":
            n = s["dice"]
            body: dict[str, Any] = {"ply": s["ply"], "change": "add", "reroll": []}
            if n >= 2:
                body = {"ply": s["ply"], "change": "keep", "reroll": list(range(n))}
            status, payload, seconds = call(PROJECT_PORT, "POST", f"/api/games/{game['id']}/roll/", body, headers)
        else:
            allowed = [o["direction"] for o in s["options"] if o["allowed"]]
            body = {"ply": s["ply"], "direction": allowed[0]}
            status, payload, seconds = call(PROJECT_PORT, "POST", f"/api/games/{game['id']}/direction/", body, headers)
        tally.add(status, seconds)
        if status != 200:
            self.resync(game)
            return
        self.follow(game, json.loads(payload))
        self.answered += 1
        self.ended += s["over"]
        if s["phase"] == "dice":
            self.index += 1  # the turn passed: go on with the next game of this connection

    def follow(self, game: dict[str, Any], data: dict[str, Any]) -> None:
        s = self.state[game["id"]]
        s["ply"] = data["ply"]
        s["over"] = data["status"] != "active"
        if data["phase"] == "direction":
            s["phase"], s["options"] = "direction", data["options"]
            s["dice"] = len(data["dice"])
            return
        move = data.get("move") or {}
        s["phase"] = "dice"
        # the player to move now holds the dice they held before: tracked per colour
        mover = 0 if move.get("color") == "yellow" else 1
        s.setdefault("held", [0, 0])[mover] = 0 if move.get("crash") else len(move.get("dice", []))
        s["to_move"] = 0 if data["to_move"] == "yellow" else 1
        s["dice"] = s["held"][s["to_move"]]

    def resync(self, game: dict[str, Any]) -> None:
        token = game["tokens"][0]
        _, payload, _ = call(PROJECT_PORT, "GET", f"/api/games/{game['id']}/", None,
                             {"Authorization": f"Token {token}"})
        data = json.loads(payload)
        s = self.state[game["id"]]
        s.update(ply=data["ply"], over=data["status"] != "active", phase=data["phase"],
                 to_move=0 if data["to_move"] == "yellow" else 1)
        if s["phase"] == "direction":
            _status, payload, _ = call(PROJECT_PORT, "GET", f"/api/games/{game['id']}/", None,
                                      {"Authorization": f"Token {game['tokens'][s['to_move']]}"})
            s["options"] = json.loads(payload)["options"]
        held = [len(p["dice"]) for p in data["players"]]
        s["held"] = held
        s["dice"] = held[s["to_move"]] if s["to_move"] in (0, 1) else 0


def run_scenario(name: str, connections: int, seconds: float, work: Any) -> tuple[Tally, float]:
    """``work(i)`` returns a callable doing one request on connection ``i``."""
    tally = Tally()
    stop = time.perf_counter() + seconds
    steps = [work(i) for i in range(connections)]

    def loop(step: Any) -> None:
        while time.perf_counter() < stop:
            step(tally)

    threads = [threading.Thread(target=loop, args=(s,)) for s in steps]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return tally, time.perf_counter() - t0


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


# --- main ----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1200)
    parser.add_argument("--seconds", type=float, default=8.0, help="per scenario and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--keep", action="store_true", help="reuse the databases of the last run (games move on)")
    parser.add_argument("--server", choices=["serve", "uvicorn", "gunicorn"], default="serve",
                        help="the project's server: the Procfile's (powerboats_site.serve), uvicorn's own command "
                             "(every worker accepts every connection), or the sync gunicorn of before")
    parser.add_argument("--fill", choices=["project", "base"], help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fill == "project":
        sys.path.insert(0, str(ROOT))
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "powerboats_site.settings")
        return fill_project(args.games, args.out)
    if args.fill == "base":
        sys.path.insert(0, str(ROOT))
        return fill_base(args.games, args.out)

    args.connections = max(1, min(args.connections, args.games))  # a connection with no game of its own idles
    var = VAR
    var.mkdir(parents=True, exist_ok=True)
    project_data, base_data = var / "project.json", var / "base.json"
    if not (args.keep and project_data.exists() and base_data.exists()):
        t0 = time.perf_counter()
        # BENCH_DB_TEMPLATE: a database already migrated to copy for the project's (the suite's tiny runs):
        # migrate then finds nothing to do
        recreate(PROJECT_DB, os.environ.get("BENCH_DB_TEMPLATE"))
        recreate(BASE_DB)
        subprocess.run([sys.executable, __file__, "--fill", "project", "--games", str(args.games), "--out",
                        str(project_data)], env=project_env(), cwd=ROOT, check=True)
        subprocess.run([sys.executable, __file__, "--fill", "base", "--games", str(args.games), "--out",
                        str(base_data)], env=base_env(), cwd=ROOT, check=True)
        print(f"filled {args.games} games in each database in {time.perf_counter() - t0:.0f} s")
    games = json.loads(project_data.read_text())
    base = json.loads(base_data.read_text())
    subprocess.run(["redis-cli", "-n", REDIS_DB, "flushdb"], capture_output=True)

    module = "powerboats_site.wsgi" if args.server == "gunicorn" else "powerboats_site.asgi:application"
    project = start("project", module, PROJECT_PORT, project_env(), ROOT, var / "project.log", args.server)
    bare = start("baseline", "bench.baseline.wsgi", BASE_PORT, base_env(), ROOT, var / "base.log")
    load_before = os.getloadavg()
    databases: dict[str, DatabaseCPU] = {}
    try:
        rng = random.Random(1)
        shares = [games[i::args.connections] for i in range(args.connections)]
        players = [TurnPlayer(share) for share in shares]
        base_ply: dict[int, int] = {}

        def base_post(i: int) -> Any:
            ids = base["ids"][i::args.connections]
            headers = {"Authorization": f"Token {base['tokens'][i % len(base['tokens'])]}"}
            position = [0]

            def step(tally: Tally) -> None:
                gid = ids[position[0] % len(ids)]
                position[0] += 1
                status, payload, seconds = call(BASE_PORT, "POST", f"/games/{gid}/move/",
                                                {"ply": base_ply.get(gid, 0), "value": 1}, headers)
                tally.add(status, seconds)
                if status == 200:
                    base_ply[gid] = json.loads(payload)["ply"]
            return step

        def base_get(i: int) -> Any:
            headers = {"Authorization": f"Token {base['tokens'][i % len(base['tokens'])]}"}

            def step(tally: Tally) -> None:
                status, _, seconds = call(BASE_PORT, "GET", f"/games/{rng.choice(base['ids'])}/", None, headers)
                tally.add(status, seconds)
            return step

        def turns(i: int) -> Any:
            return players[i].step

        def api_get(i: int) -> Any:
            def step(tally: Tally) -> None:
                game = rng.choice(games)
                headers = {"Authorization": f"Token {game['tokens'][rng.randrange(2)]}"}
                status, _, seconds = call(PROJECT_PORT, "GET", f"/api/games/{game['id']}/", None, headers)
                tally.add(status, seconds)
            return step

        def html(i: int) -> Any:
            def step(tally: Tally) -> None:
                game = rng.choice(games)
                headers = {"Cookie": f"sessionid={game['sessions'][rng.randrange(2)]}"}
                status, _, seconds = call(PROJECT_PORT, "GET", f"/games/{game['id']}/", None, headers)
                tally.add(status, seconds)
            return step

        if args.keep:  # the games moved on in the last run: read where each one stands, not counted
            def catch_up(i: int) -> None:
                for game in players[i].games:
                    players[i].state[game["id"]] = {"ply": 0, "to_move": 0, "phase": "dice", "dice": 0,
                                                    "options": None, "over": False}
                    players[i].resync(game)
                for gid in base["ids"][i::args.connections]:
                    _, payload, _ = call(BASE_PORT, "GET", f"/games/{gid}/", None,
                                         {"Authorization": f"Token {base['tokens'][0]}"})
                    base_ply[gid] = json.loads(payload)["ply"]
            helpers = [threading.Thread(target=catch_up, args=(i,)) for i in range(args.connections)]
            for t in helpers:
                t.start()
            for t in helpers:
                t.join()

        scenarios = [("baseline post", bare, base_post), ("turns", project, turns), ("baseline get", bare, base_get),
                     ("api get", project, api_get), ("html", project, html)]
        # warm both servers up (imports, connections) on every scenario, not counted
        for _, _, work in scenarios:
            run_scenario("warm-up", args.connections, 1.0, work)
        results: dict[str, dict[str, Any]] = {name: {"latencies": [], "requests": 0, "seconds": 0.0, "cpu": 0.0,
                                                     "db": 0.0, "errors": {}} for name, _, _ in scenarios}
        databases.update({bare.name: DatabaseCPU(BASE_DB), project.name: DatabaseCPU(PROJECT_DB)})
        for r in range(args.rounds):
            for name, server, work in scenarios:
                cpu0, db0 = server.cpu_seconds(), databases[server.name].sample()
                tally, elapsed = run_scenario(name, args.connections, args.seconds, work)
                cpu = server.cpu_seconds() - cpu0
                db = DatabaseCPU.spent(db0, databases[server.name].sample())
                res = results[name]
                res["db"] = None if db is None or res["db"] is None else res["db"] + db
                res["latencies"] += tally.latencies
                res["requests"] += len(tally.latencies)
                res["seconds"] += elapsed
                res["cpu"] += cpu
                for status, n in tally.errors.items():
                    res["errors"][status] = res["errors"].get(status, 0) + n
            print(f"round {r + 1}/{args.rounds} done", flush=True)
    finally:
        project.stop()
        bare.stop()
        for database in databases.values():
            database.conn.close()
    load_after = os.getloadavg()

    def figures(name: str) -> dict[str, float]:
        res = results[name]
        return {
            "rps": res["requests"] / res["seconds"],
            "p50": percentile(res["latencies"], 0.50) * 1000,
            "p99": percentile(res["latencies"], 0.99) * 1000,
            "cpu": res["cpu"] * 1000 / max(1, res["requests"]),
            "db": float("nan") if res["db"] is None else res["db"] * 1000 / max(1, res["requests"]),
        }

    table = {name: figures(name) for name in results}
    print()
    print(f"{args.connections} connections, {args.rounds} rounds x {args.seconds:.0f} s per scenario, "
          f"{len(games)} games, {os.cpu_count()} cores")
    print(f"load average before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
          f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    print(f"{'scenario':<14} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'CPU ms/req':>11} {'DB ms/req':>10} {'ratio':>7} "
          f"{'goal':>6}  errors")
    against = {"turns": "baseline post", "api get": "baseline get", "html": "baseline get"}
    for name, f in table.items():
        ratio = ""
        goal = ""
        if name in against:
            ratio = f"{f['rps'] / table[against[name]]['rps']:.0%}"
            goal = f">={GOALS[name]:.0%}"
        errors = results[name]["errors"]
        print(f"{name:<14} {f['rps']:>8.0f} {f['p50']:>8.1f} {f['p99']:>8.1f} {f['cpu']:>11.2f} {f['db']:>10.2f} {ratio:>7} "
              f"{goal:>6}  {errors or ''}")
    answered, ended = sum(p.answered for p in players), sum(p.ended for p in players)
    print(f"turn requests that ended their game (warm-up included): {ended} of {answered} "
          f"({ended / max(1, answered):.1%})")
    if any(p.ran_out for p in players):
        print("note: some connections played all their games to the end (the warm-up plays too): the turns "
              "figure is too low; give more --games")
    (var / "result.json").write_text(json.dumps({"table": table, "load": [load_before, load_after],
                                                 "turns_ending_a_game": [ended, answered],
                                                 "errors": {k: v['errors'] for k, v in results.items()}}, indent=1))


if __name__ == "__main__":
    main()
