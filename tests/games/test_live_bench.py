"""bench/live.py (issue 22) at a tiny size on the embedded default, so that it keeps working as
the code moves; and, on PostgreSQL, the crowd of issue 22's "done when": 600 spectators on one
game served as the Procfile serves it hold at most 12 database connections during and 10 s after,
every stream gets every move's event exactly once and in order, and every spectator's page
fetches the part it applies in place for each move (static/js/live.js). The timings it prints
are for docs/live.md, not asserted here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# its own port per xdist worker, apart from the other server tests' ports
PORT = 8170 + int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)


def bench(tmp_path: Path, *args: str, database: str | None = None, template: str | None = None) -> list[dict]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")}
    env.update(BENCH_LIVE_VAR=str(tmp_path / "var"), BENCH_DB_PREFIX=f"powerboats_test{PORT}")
    if database:
        env["DATABASE_URL"] = database
    if template:
        env["BENCH_DB_TEMPLATE"] = template  # a migrated database to copy (tests/conftest.py)
    out = tmp_path / "live.json"
    run = subprocess.run([sys.executable, "bench/live.py", "--port", str(PORT), "--json", str(out), *args],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    print(run.stdout[-3000:])
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return json.loads(out.read_text())


@pytest.mark.slow
def test_the_live_bench_runs_at_a_tiny_size(tmp_path, migrated_sqlite):
    [result] = bench(tmp_path, "--streams", "12", "--moves", "3", "--interval", "0.3", "--fetch",
                     template=str(migrated_sqlite))
    assert result["open"] == 12 and result["statuses"] == {"200": 12}
    assert result["events"] >= 3 and result["exactly_once_in_order"] == 12
    assert result["delivery"]["n"] == 12 * result["events"]
    assert result["applied"]["n"] == result["fetches_asked"] == 12 * result["events"], "every page applied every move"
    assert result["fetches"] == {"200": 12 * result["events"]} and result["fetches_hung"] == 0
    assert result["api_get_5xx"] == 0


@pytest.mark.slow
@pytest.mark.postgres
def test_six_hundred_spectators_hold_few_database_connections_and_get_every_move_once(tmp_path, migrated_postgres):
    from django.conf import settings

    db = settings.DATABASES["default"]
    server = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    [result] = bench(tmp_path, "--streams", "600", "--moves", "6", "--interval", "0.5", "--fetch", database=server,
                      template=migrated_postgres)
    assert result["open"] == 600 and result["errors"] == 0
    assert all(int(status) < 500 for status in result["statuses"])
    assert result["exactly_once_in_order"] == 600, "every stream got every move's event, once, in order"
    assert result["applied"]["n"] == 600 * result["events"], "every spectator's page fetched every move's part"
    assert result["connections_during"] <= 12 and result["connections_after"] <= 12, result
    assert result["api_get_5xx"] == 0
