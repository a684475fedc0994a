"""Live streams under a crowd (issue 22): N spectators on one game, served as the Procfile serves it.

    python bench/live.py [--streams 1000,5000,max] [--moves 20] [--interval 1.0] [--workers 2]
                         [--port 8115] [--json FILE]

For each N the server is started afresh (uvicorn as the Procfile runs it, ``--workers`` worker
processes) on a fresh database: SQLite in var/bench-live (the embedded default), or, when
``DATABASE_URL`` is PostgreSQL, the database ``powerboats_bench_live`` on that server (recreated; ``BENCH_DB_PREFIX`` changes
the prefix, ``BENCH_LIVE_VAR`` the folder).
Then:

1. ``--moves`` moves are played through the API in one game, one every ``--interval`` seconds,
   with no stream open: the CPU they cost the server is the baseline of this run.
2. A crowd (a separate process, asyncio) opens N Server-Sent Event streams on another game's page
   stream (``/events/game/<id>/``), at most 50 from each address 127.0.x.y, as N clients would.
3. The same number of moves in the watched game, while a sampler GETs ``/api/games/<id>/`` every
   50 ms (as in step 1).
4. The crowd closes its streams; 10 s later the database connections are counted again.

Printed per N: memory per open stream (the workers' RSS with the streams open, less before, over
N); CPU per event fanned out (the workers' CPU over the moves with the streams open, less the
same moves without them, per move, and per stream); delivery of each move's event from its
commit (the event's time) to each stream: p50/p99/max over every (stream, event); the API GET's
p50/p99 while the streams were opening and while the events fanned out; the database
connections during and 10 s after (PostgreSQL); the streams refused (429) and any 5xx; and
whether every stream got every move's event exactly once and in order. ``max``: as many streams
as one server process may open files (``--workers 1``, ``LIVE_STREAMS_PER_PROCESS`` lifted so
that the open-file limit is what binds), and 100 more, which must be refused with a 429.

The crowd's own reading takes CPU on the same two cores: the delivery figures include it.
Figures: docs/live.md. A tiny run is part of the test suite (tests/games/test_live_bench.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)  # bench/http.py is beside this file: let ``import http`` find the standard library

import argparse
import asyncio
import http.client
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VAR = Path(os.environ.get("BENCH_LIVE_VAR", ROOT / "var" / "bench-live"))  # the tests give their own
DB_NAME = os.environ.get("BENCH_DB_PREFIX", "powerboats_bench") + "_live"
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
PER_ADDRESS = 50


def raise_file_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith("postgres")


def database_url() -> str:
    if not postgres():
        return f"sqlite:///{VAR / 'db.sqlite3'}"
    return os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/" + DB_NAME


def server_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "CACHE_URL")}
    env.update(POWERBOATS_VAR_DIR=str(VAR), DATABASE_URL=database_url(), DEBUG="false", LOG_LEVEL="WARNING",
               EMAIL_URL="memorymail://", SECRET_KEY="bench-live-not-secret", ALLOWED_HOSTS="127.0.0.1",
               DJANGO_SETTINGS_MODULE="powerboats_site.settings", CELERY_BROKER_URL="memory://",
               YOUR_TURN_EMAIL_DELAY="100000")
    env.update(extra)
    return env


# --- the server and what it costs ------------------------------------------------------------------


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def workers(server: subprocess.Popen[bytes]) -> list[int]:
    """The processes that serve: uvicorn's workers, or uvicorn itself with one worker."""
    return children(server.pid) or [server.pid]


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def rss_bytes(pids: list[int]) -> int:
    return sum(int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE for pid in pids)


def connections() -> int | None:
    if not postgres():
        return None
    import psycopg

    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [DB_NAME]).fetchone()
        return int(row[0]) if row else 0


def call(port: int, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json", **({"Authorization": f"Token {token}"} if token else {})}
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = conn.getresponse()
    raw = response.read()
    conn.close()
    try:
        return response.status, json.loads(raw) if raw else None
    except ValueError:
        return response.status, raw.decode(errors="replace")


def fresh_database() -> None:
    shutil.rmtree(VAR, ignore_errors=True)
    VAR.mkdir(parents=True)
    if postgres():
        import psycopg

        with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
            # BENCH_DB_TEMPLATE: a database already migrated to copy (the suite's tiny runs): migrate then finds nothing to do
            template = os.environ.get("BENCH_DB_TEMPLATE")
            conn.execute(f'CREATE DATABASE "{DB_NAME}"' + (f' TEMPLATE "{template}"' if template else ""))
    elif os.environ.get("BENCH_DB_TEMPLATE"):  # on SQLite: a migrated database file to copy
        import sqlite3

        with sqlite3.connect(os.environ["BENCH_DB_TEMPLATE"]) as src, sqlite3.connect(VAR / "db.sqlite3") as dst:
            src.backup(dst)
        src.close()
        dst.close()
    env = server_env({})
    subprocess.run([sys.executable, "manage.py", "prepare", "--database-only", "-v0"], cwd=ROOT, env=env, check=True)


def new_games(count: int) -> tuple[list[int], dict[str, str]]:
    """(In a child process, on the bench database.) Two players with tokens and ``count`` games
    between them: their ids, and each colour's token."""
    script = (
        "from django.contrib.auth import get_user_model\n"
        "from rest_framework.authtoken.models import Token\n"
        "from games.services import game_create\n"
        "U = get_user_model()\n"
        "a = U.objects.create_user('yvonne', 'y@example.com', None)\n"
        "b = U.objects.create_user('roland', 'r@example.com', None)  # tokens only: no hash to make\n"
        f"games = [game_create(yellow=a, red=b, rated=False).pk for _ in range({count})]\n"
        "import json; print(json.dumps({'games': games, 'yellow': Token.objects.create(user=a).key,"
        " 'red': Token.objects.create(user=b).key}))\n"
    )
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=server_env({}),
                         check=True, capture_output=True, text=True).stdout
    data = json.loads(out.strip().splitlines()[-1])
    return data["games"], {"yellow": data["yellow"], "red": data["red"]}


def start_server(port: int, n_workers: int, extra: dict[str, str]) -> subprocess.Popen[bytes]:
    log = (VAR / "server.log").open("ab")
    server = subprocess.Popen(
        [sys.executable, "-m", "powerboats_site.serve", "--host", "127.0.0.1", "--port",
         str(port), "--workers", str(n_workers), "--timeout-graceful-shutdown", "1",
         "--log-level", "warning", "--backlog", "4096"],
        cwd=ROOT, env=server_env(extra), stdout=log, stderr=subprocess.STDOUT)
    for _ in range(300):
        try:
            if call(port, "GET", "/health/")[0] == 200:
                break
        except OSError:
            time.sleep(0.1)
    else:
        raise SystemExit(f"the server did not start: see {VAR / 'server.log'}")
    return server


def stop(server: subprocess.Popen[bytes]) -> None:
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


# --- moves ------------------------------------------------------------------------------------------


def action(state: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A careful action for the player to move: one die, a direction that does not crash when
    there is one (the boats last many moves)."""
    ply = state["ply"]
    if "placements" in state:
        return "place", {"ply": ply, "cell": state["placements"]["cells"][0], "heading": 0}
    if "dice_options" in state:
        me = next(p for p in state["players"] if p["color"] == state["your_color"])
        return "roll", {"ply": ply, "change": "keep" if me["dice"] else "add", "reroll": []}
    allowed = [o for o in state["options"] if o["allowed"]]
    safe = [o for o in allowed if not o.get("crash")] or allowed
    return "direction", {"ply": ply, "direction": safe[0]["direction"]}


def play(port: int, game_id: int, tokens: dict[str, str], moves: int, interval: float) -> int:
    """Make up to ``moves`` moves, one every ``interval`` seconds; how many were made."""
    made = 0
    next_at = time.monotonic()
    while made < moves:
        _, state = call(port, "GET", f"/api/games/{game_id}/", None, tokens["yellow"])
        if state["status"] != "active":
            break
        token = tokens[state["to_move"]]
        _, state = call(port, "GET", f"/api/games/{game_id}/", None, token)
        kind, body = action(state)
        time.sleep(max(0.0, next_at - time.monotonic()))
        status, answer = call(port, "POST", f"/api/games/{game_id}/{kind}/", body, token)
        if status != 200:
            raise SystemExit(f"{kind} {body}: {status} {answer}")
        made += 1
        next_at += interval
    return made


@dataclass
class Sampler:
    """GETs the game through the API every 50 ms in a thread, while it runs."""

    port: int
    path: str
    token: str
    latencies: list[float] = field(default_factory=list)
    starts: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    running: bool = True

    def __post_init__(self) -> None:
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while self.running:
            self.starts.append(time.time())
            start = time.perf_counter()
            try:
                status, _ = call(self.port, "GET", self.path, None, self.token)
            except OSError:
                status = 0
            self.latencies.append(time.perf_counter() - start)
            self.statuses[status] = self.statuses.get(status, 0) + 1
            time.sleep(0.05)

    def stop(self) -> list[float]:
        self.running = False
        self.thread.join()
        return self.latencies


# --- the crowd (a process of its own) --------------------------------------------------------------


def addresses() -> Any:
    for x in range(1, 255):
        for y in range(1, 255):
            for _ in range(PER_ADDRESS):
                yield f"127.0.{x}.{y}"


ID_LINE = re.compile(rb"(?m)^id: (\d+)\r?\nevent: (?!reset)")  # an event's id (a heartbeat's has none)
PLY = re.compile(rb'(?m)^id: (\d+)\r?\nevent: move\r?\ndata: .*"ply":(\d+)')


async def crowd(port: int, path: str, n: int, part: str | None = None) -> None:
    """Open n streams, report, record each event's arrival until told to stop, then report.
    ``part``: on each move's event, each client also fetches this address with ``?ply=`` (what
    the game page does to apply the move in place, static/js/live.js) and notes when it has it."""
    raise_file_limit()
    statuses: dict[int, int] = {}
    arrivals: list[list[tuple[int, float]]] = []
    applied: list[list[tuple[int, float]]] = []
    fetch_statuses: dict[int, int] = {}
    scheduled: list[int] = []
    pending: set[asyncio.Task[None]] = set()
    writers: list[asyncio.StreamWriter] = []
    errors: list[str] = []
    gate = asyncio.Semaphore(256)

    async def fetch(address: str, event_id: int, ply: int, mine: list[tuple[int, float]]) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
            writer.write(f"GET {part}?ply={ply} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            status = int((await reader.readline()).split()[1])
            await reader.read()  # to the end: the whole part
            writer.close()
        except Exception as error:  # counted and reported
            errors.append(repr(error))
            return
        fetch_statuses[status] = fetch_statuses.get(status, 0) + 1
        mine.append((event_id, time.time()))

    async def read(reader: asyncio.StreamReader, address: str, mine: list[tuple[int, float]],
                   done: list[tuple[int, float]]) -> None:
        buffer = b""
        while True:
            data = await reader.read(65536)
            if not data:
                return
            now = time.time()
            buffer += data
            cut = buffer.rfind(b"\n\n") + 2  # whole events only (a read may end inside one)
            if cut < 2:
                continue
            for match in ID_LINE.finditer(buffer, 0, cut):
                mine.append((int(match.group(1)), now))
            if part is not None:
                for match in PLY.finditer(buffer, 0, cut):
                    scheduled.append(int(match.group(1)))
                    pending.add(asyncio.get_running_loop().create_task(
                        fetch(address, int(match.group(1)), int(match.group(2)), done)))
            buffer = buffer[cut:]

    async def one(address: str) -> None:
        async with gate:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
                writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
                status = int((await reader.readline()).split()[1])
                while (await reader.readline()).strip():
                    pass
            except Exception as error:  # counted and reported
                errors.append(repr(error))
                return
        statuses[status] = statuses.get(status, 0) + 1
        if status != 200:
            writer.close()
            return
        writers.append(writer)
        mine: list[tuple[int, float]] = []
        done: list[tuple[int, float]] = []
        arrivals.append(mine)
        applied.append(done)
        asyncio.get_running_loop().create_task(read(reader, address, mine, done))

    source = addresses()
    await asyncio.gather(*(one(next(source)) for _ in range(n)))
    print(json.dumps({"ready": True, "statuses": statuses, "errors": errors[:5], "error_count": len(errors)}),
          flush=True)
    command = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    if command.startswith("wait"):  # "wait <id>": until every stream has that event (or 60 s), then "stop"
        last, began = int(command.split()[1]), time.monotonic()
        while time.monotonic() - began < 60 and not all(mine and mine[-1][0] >= last for mine in arrivals):
            await asyncio.sleep(0.1)
        caught_up = sum(1 for mine in arrivals if mine and mine[-1][0] >= last)
        print(json.dumps({"caught_up": caught_up, "seconds": time.monotonic() - began}), flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)  # "stop"
    unfinished = [task for task in pending if not task.done()]
    if unfinished:  # the last move's fetches
        await asyncio.wait(unfinished, timeout=10)
    hung = sum(1 for task in pending if not task.done())
    for writer in writers:
        writer.close()
    print(json.dumps({"arrivals": arrivals, "applied": applied, "fetch_statuses": fetch_statuses,
                      "fetch_errors": errors[:5], "scheduled": len(scheduled), "hung": hung}), flush=True)


# --- one size ----------------------------------------------------------------------------------------


def percentiles(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {"p50": float("nan"), "p99": float("nan"), "max": float("nan"), "n": 0}
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=100, method="inclusive") if len(xs) > 1 else xs * 99
    return {"p50": q[49] * 1000, "p99": q[98] * 1000, "max": xs[-1] * 1000, "n": len(xs)}


def event_times(game_id: int) -> dict[int, float]:
    script = (
        "import json\nfrom games.live.models import LiveEvent\n"
        f"print(json.dumps({{e.pk: e.created_at.timestamp() for e in LiveEvent.objects.filter(game_id={game_id})}}))\n"
    )
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=server_env({}),
                         check=True, capture_output=True, text=True).stdout
    return {int(k): v for k, v in json.loads(out.strip().splitlines()[-1]).items()}


def run_size(label: str, n: int, args: argparse.Namespace, extra: dict[str, str], n_workers: int) -> dict[str, Any]:
    fresh_database()
    # one game for the moves without streams (the baseline), one for the crowd to watch
    (alone_id, game_id), tokens = new_games(2)
    server = start_server(args.port, n_workers, extra)
    try:
        pids = workers(server)
        for _ in range(4):  # every worker has served a page, the API and a stream before the baseline
            call(args.port, "GET", f"/games/{game_id}/")
            call(args.port, "GET", f"/api/games/{game_id}/", None, tokens["yellow"])
        warm = subprocess.Popen([sys.executable, __file__, "--crowd", str(args.port), f"/events/game/{game_id}/",
                                 str(4 * n_workers)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True)
        assert warm.stdout is not None and warm.stdin is not None
        warm.stdout.readline()
        warm.communicate("stop\n", timeout=60)

        sampler = Sampler(args.port, f"/api/games/{alone_id}/", tokens["yellow"])  # as in step 3
        cpu0 = cpu_seconds(pids)
        made_before = play(args.port, alone_id, tokens, args.moves, args.interval)
        time.sleep(max(2.0, args.interval))
        cpu_without = cpu_seconds(pids) - cpu0
        without_streams = sampler.stop()
        time.sleep(1)
        rss_before = rss_bytes(pids)

        during: list[int] = []
        counter_stop = threading.Event()

        def count() -> None:
            while not counter_stop.wait(0.5):
                found = connections()
                if found is not None:
                    during.append(found)

        counter = threading.Thread(target=count, daemon=True)
        counter.start()  # while the streams open too: the phase that used to leak connections
        sampler = Sampler(args.port, f"/api/games/{game_id}/", tokens["yellow"])
        opened = time.perf_counter()
        crowd_args = [str(args.port), f"/events/game/{game_id}/", str(n)]
        if args.fetch:
            crowd_args.append(f"/events/game/{game_id}/part/")
        crowd_process = subprocess.Popen([sys.executable, __file__, "--crowd", *crowd_args], cwd=ROOT,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert crowd_process.stdout is not None and crowd_process.stdin is not None
        ready = json.loads(crowd_process.stdout.readline())
        connect_seconds = time.perf_counter() - opened
        while_opening = list(sampler.stop())
        time.sleep(2)
        rss_with = rss_bytes(pids)
        open_streams = ready["statuses"].get("200", 0)

        sampler = Sampler(args.port, f"/api/games/{game_id}/", tokens["yellow"])
        first_id_after = max(event_times(game_id) or {0: 0})
        cpu1 = cpu_seconds(pids)
        made = play(args.port, game_id, tokens, made_before, args.interval)
        time.sleep(max(2.0, args.interval))
        # the last event reaches everyone: with a large crowd its own reading lags (same two cores)
        crowd_process.stdin.write(f"wait {max(event_times(game_id) or {0: 0})}\n")
        crowd_process.stdin.flush()
        caught_up = json.loads(crowd_process.stdout.readline())
        cpu_with = cpu_seconds(pids) - cpu1
        while_moving = sampler.stop()
        slowest = []
        if args.slowest:
            moments = sorted(event_times(game_id).values())
            for latency, began in sorted(zip(sampler.latencies, sampler.starts, strict=True), reverse=True)[:args.slowest]:
                before = [t for t in moments if t <= began]
                slowest.append((latency * 1000, (began - before[-1]) * 1000 if before else None))
        counter_stop.set()
        counter.join()
        crowd_process.stdin.write("stop\n")
        crowd_process.stdin.flush()
        report = json.loads(crowd_process.stdout.readline())
        arrivals = report["arrivals"]
        crowd_process.wait(60)
        closed = time.perf_counter()
        if postgres():  # the connections 10 s later (SQLite has none to count: no wait)
            time.sleep(10)
        after = connections()
        times = event_times(game_id)
        expected = sorted(pk for pk in times if pk > first_id_after)
        delivery = []
        exact = 0
        for mine in arrivals:
            ids = [pk for pk, _ in mine if pk > first_id_after]
            exact += ids == expected
            delivery.extend(at - times[pk] for pk, at in mine if pk in times and pk > first_id_after)
        # the same moves and GETs over the same time, less what they cost without the streams
        applied = [at - times[pk] for done in report["applied"] for pk, at in done if pk in times and pk > first_id_after]
        fan_out = max(0.0, cpu_with - cpu_without * made / max(made_before, 1))
        statuses = {int(k): v for k, v in ready["statuses"].items()}
        for status, count_ in report["fetch_statuses"].items():
            if int(status) >= 500:
                statuses[int(status)] = statuses.get(int(status), 0) + count_
        for status, count_ in sampler.statuses.items():
            if status >= 500:
                statuses[status] = statuses.get(status, 0) + count_
        return {
            "label": label, "streams": n, "workers": n_workers, "open": open_streams, "statuses": statuses,
            "errors": ready["error_count"], "error_examples": ready["errors"], "connect_seconds": connect_seconds,
            "memory_per_stream_kib": (rss_with - rss_before) / max(open_streams, 1) / 1024,
            "rss_before_mib": rss_before / 2**20, "rss_with_mib": rss_with / 2**20,
            "moves": made, "events": len(expected), "exactly_once_in_order": exact,
            "last_event_everywhere_seconds": caught_up["seconds"],
            "cpu_without_ms_per_move": cpu_without / max(made_before, 1) * 1000,
            "cpu_per_event_ms": fan_out / max(len(expected), 1) * 1000,
            "cpu_per_event_per_stream_us": fan_out / max(len(expected), 1) / max(open_streams, 1) * 1e6,
            "delivery": percentiles(delivery), "applied": percentiles(applied) if args.fetch else None,
            "fetches": report["fetch_statuses"], "fetch_errors": report["fetch_errors"],
            "fetches_asked": report["scheduled"], "fetches_hung": report["hung"],
            "api_get_alone": percentiles(without_streams),
            "api_get_opening": percentiles(while_opening),
            "api_get_moving": percentiles(while_moving),
            "api_get_5xx": sum(v for k, v in sampler.statuses.items() if k >= 500 or k == 0),
            "connections_during": max(during) if during else None, "connections_after": after,
            "closed_at": closed, "load": os.getloadavg()[0], "slowest_gets": slowest,
        }
    finally:
        stop(server)


def show(r: dict[str, Any]) -> None:
    d, a, o, z = r["delivery"], r["api_get_moving"], r["api_get_opening"], r["api_get_alone"]
    conns = "" if r["connections_during"] is None else \
        f"; database connections: {r['connections_during']} during, {r['connections_after']} 10 s after"
    print(f"\n{r['label']}: {r['open']} of {r['streams']} streams open on {r['workers']} worker(s) "
          f"in {r['connect_seconds']:.1f} s; answers {r['statuses']}, connection errors {r['errors']}{conns}")
    print(f"  memory per open stream: {r['memory_per_stream_kib']:.1f} KiB "
          f"(workers' RSS {r['rss_before_mib']:.0f} -> {r['rss_with_mib']:.0f} MiB)")
    print(f"  CPU per event fanned out: {r['cpu_per_event_ms']:.1f} ms "
          f"({r['cpu_per_event_per_stream_us']:.1f} us per stream; a move without streams: "
          f"{r['cpu_without_ms_per_move']:.1f} ms)")
    print(f"  delivery, commit -> client: p50 {d['p50']:.0f} ms, p99 {d['p99']:.0f} ms, max {d['max']:.0f} ms "
          f"over {d['n']} (stream, event); {r['exactly_once_in_order']} of {r['open']} streams got all "
          f"{r['events']} events once, in order (the last everywhere {r['last_event_everywhere_seconds']:.1f} s "
          f"after the wait that follows the last move)")
    if r["applied"] is not None:
        p = r["applied"]
        print(f"  applied in place (commit -> the page's part fetched, as live.js does): p50 {p['p50']:.0f} ms, "
              f"p99 {p['p99']:.0f} ms, max {p['max']:.0f} ms over {p['n']} of {r['fetches_asked']}; answers "
              f"{r['fetches']}{'; no answer within 10 s: ' + str(r['fetches_hung']) if r['fetches_hung'] else ''}"
              f"{' ' + str(r['fetch_errors']) if r['fetch_errors'] else ''}")
    print(f"  API GET with no stream open: p50 {z['p50']:.0f} ms, p99 {z['p99']:.0f} ms; "
          f"while opening: p50 {o['p50']:.0f} ms, p99 {o['p99']:.0f} ms (n={o['n']}); "
          f"while fanning out: p50 {a['p50']:.0f} ms, p99 {a['p99']:.0f} ms (n={a['n']}); "
          f"5xx or failed: {r['api_get_5xx']}; load average {r['load']:.1f}")
    for latency, after in r["slowest_gets"]:
        print(f"    a slow API GET: {latency:.0f} ms, begun {after:.0f} ms after a move's event" if after is not None
              else f"    a slow API GET: {latency:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", default="1000,5000,max")
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8115)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--slowest", type=int, default=0, help="show the N slowest API GETs while fanning out")
    parser.add_argument("--fetch", action="store_true",
                        help="each client also fetches the game page's part on each move, as a browser applies it")
    parser.add_argument("--crowd", nargs="+", metavar="ARG", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.crowd:
        try:
            import uvloop

            uvloop.install()
        except ImportError:
            pass
        asyncio.run(crowd(int(args.crowd[0]), args.crowd[1], int(args.crowd[2]),
                          args.crowd[3] if len(args.crowd) > 3 else None))
        return
    hard = raise_file_limit()
    results = []
    for size in args.streams.split(","):
        if size == "max":
            # one worker, allowed as many streams as its open files; 100 more are asked for
            spare = max(64, hard // 20)
            limit = hard - spare
            n = min(limit + 100, hard - 200)  # the crowd needs a file per stream too
            extra = {"LIVE_STREAMS_PER_PROCESS": str(10**6)}
            result = run_size(f"max (open-file limit {hard}: {limit} streams)", n, args, extra, 1)
        else:
            result = run_size(size, int(size), args, {}, args.workers)
        show(result)
        results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
