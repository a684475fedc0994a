"""Every script in bench/ runs at a tiny size in the suite, so that none rots when the code or the
schema moves (bench/live.py has its own: tests/games/test_live_bench.py). Each is run as a person
would run it, in its own process, and must exit 0 and print the figures its docstring promises;
the figures themselves are for the docs, not asserted here. The PostgreSQL ones use databases of
their own (``BENCH_DB_PREFIX``) on the server the suite runs on."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)
PREFIX = f"powerboats_tinybench{WORKER}"
SCRIPTS = sorted(p.name for p in (ROOT / "bench").glob("*.py") if not p.name.startswith("_"))  # _fill.py: a helper


def run(*args: str, env: dict[str, str] | None = None, timeout: int = 300) -> str:
    environment = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")}
    environment.update(env or {})
    done = subprocess.run([sys.executable, *args], cwd=ROOT, env=environment, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{' '.join(args)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def server() -> str:
    from django.conf import settings

    db = settings.DATABASES["default"]
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def test_every_bench_script_has_a_tiny_run_here_or_beside_it():
    beside = {"live.py": "tests/games/test_live_bench.py", "broker.py": "tests/site/test_broker.py",
              "soak.py": "tests/site/test_soak.py", "push.py": "tests/games/test_push_bench.py"}
    for script, test in beside.items():
        assert f"{script}" in (ROOT / test).read_text(), f"{test} no longer runs bench/{script}"
    tested = set(TINY) | set(TINY_POSTGRES) | set(beside) | NOT_YET | {"http.py", "profile_turn.py"}
    assert set(SCRIPTS) == tested, f"bench scripts without a tiny run: {sorted(set(SCRIPTS) - tested)}"


NOT_YET: set[str] = set()

TINY = {
    "engine.py": (["--seconds", "0.3"], r"turns per second .*: [\d,]+ over"),
    "bots.py": (["--games", "2", "--workers", "1", "--pairs", "easy:random"], r"2 games per match.*\n.*\neasy v random"),
    "red_advantage.py": (["--games", "2", "--level", "easy"], r"Red scores \d+(\.\d+)?% \["),
    "swiss.py": (["--sizes", "24"], r"24 players, round 5 of 9 .*boards"),
    "pairing_check.py": (["--tournaments", "1"], r"pairs agree in \d+/\d+ rounds of 1 random tournaments"),
    "trf_check.py": (["--tournaments", "1", "--repeat", "1"], r"1 tournaments, \d+ rounds: re-paired from the export"),
}


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(TINY))
def test_an_engine_bench_runs_at_a_tiny_size(script, request):
    args, expected = TINY[script]
    # trf_check.py's throw-away database: a copy of the migrated one (tests/conftest.py), not migrated afresh
    env = {"BENCH_DB_TEMPLATE": str(request.getfixturevalue("migrated_sqlite"))} if script == "trf_check.py" else {}
    out = run(f"bench/{script}", *args, env=env)
    assert re.search(expected, out, re.I), out[-2000:]


TINY_POSTGRES = {
    "sweep.py": ["--games", "400", "--emails", "400", "--players", "60"],
    "leaderboard.py": ["--players", "40", "--games", "200", "--database", f"{PREFIX}_leaderboard"],
}


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.django_db
def test_the_postgres_benches_run_at_a_tiny_size(migrated_postgres):
    env = {"DATABASE_URL": server(), "BENCH_DB_PREFIX": PREFIX, "BENCH_DB_TEMPLATE": migrated_postgres}
    outputs = {script: run(f"bench/{script}", *TINY_POSTGRES[script], env=env, timeout=600)
               for script in ("sweep.py", "leaderboard.py")}
    assert re.search(r"query +ms +index", outputs["sweep.py"]), outputs["sweep.py"][-2000:]
    assert re.search(r"[\d.]+ ms +\([\d.]+ ms\) +goal 50 ms", outputs["leaderboard.py"]), outputs["leaderboard.py"][-2000:]


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db
def test_the_http_bench_and_the_turn_profile_run_at_a_tiny_size(tmp_path, migrated_postgres):
    """bench/http.py serves the project and the baseline, fills 48 games and drives every scenario
    for a second (its connections once spun for ever looking for a game still going when all of
    theirs had ended); bench/profile_turn.py then plays on the same games in-process. Enough games
    that the warm-up and the measured second cannot play them all to the end (with 8, a fast run
    once measured no turn at all; the bench now says so)."""
    redis_db = str(14 - WORKER)
    env = {"DATABASE_URL": server(), "BENCH_DB_PREFIX": PREFIX, "BENCH_PORT": str(8191 + 2 * WORKER),
           "BENCH_REDIS_DB": redis_db, "BENCH_VAR_DIR": str(tmp_path), "BENCH_DB_TEMPLATE": migrated_postgres,
           "CELERY_BROKER_URL": f"redis://127.0.0.1:6379/{redis_db}"}
    out = run("bench/http.py", "--games", "48", "--seconds", "1", "--rounds", "1", "--connections", "4", env=env,
              timeout=600)
    for scenario in ("baseline post", "turns", "baseline get", "api get", "html"):
        # requests/s, p50, p99, the server's CPU and the database's (PostgreSQL on this machine)
        assert re.search(rf"^{scenario} +\d+ +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ ", out, re.M), out[-2000:]
    assert re.search(r"^turns .* >=60%", out, re.M), out[-2000:]
    assert "note: some connections played all their games" not in out, out[-2000:]
    ended = re.search(r"^turn requests that ended their game \(warm-up included\): (\d+) of (\d+) ", out, re.M)
    assert ended and 0 <= int(ended[1]) <= 48 and int(ended[2]) > 0, out[-2000:]
    profiled = run("bench/profile_turn.py", "--requests", "20", "--top", "5", "--scenario", "api", env=env)
    assert re.search(r"per request", profiled), profiled[-2000:]
