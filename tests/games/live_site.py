"""The site as bin/run serves it, for the live tests (issue 13, docs/live.md): the Procfile's web
process (powerboats_site.serve: uvicorn's server, two worker processes) and a Celery worker on the folder broker, over a fresh SQLite
database in a temporary var/, so that a house bot's move is made in another process than the one
that streams it to the page. One per run and xdist worker (the ``site`` fixture of
tests/games/conftest.py): the live modules share it, each with players of its own, as players
share the real site; starting it took some 5 s of CPU and stopping it 4 s (the Celery worker's
warm shutdown), once per module before. The push test serves its own (``serve``: another port,
its push service) with the same code."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.sqlite_copy import copy_sqlite

ROOT = Path(__file__).resolve().parents[2]
# one site per xdist worker (gw0, gw1, …), each on its own port
PORT = int(os.environ.get("LIVE_TEST_PORT", "8114")) + int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)
BASE = f"http://127.0.0.1:{PORT}"


def site_env(var: Path, base: str = BASE, **settings: str) -> dict[str, str]:
    """The environment of a site on ``base`` with its var/ in ``var``, and any other settings."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL",
                                                             "DJANGO_SETTINGS_MODULE")}
    env.update(POWERBOATS_VAR_DIR=str(var), SITE_URL=base, ALLOWED_HOSTS="127.0.0.1,localhost", DEBUG="false",
               LOG_LEVEL="WARNING", EMAIL_URL="memorymail://", SECRET_KEY="live-test-not-secret",
               DJANGO_SETTINGS_MODULE="tests.fast_hashing_settings")
    env.update(settings)
    return env


def wait_until_up(base: str, log: Path) -> None:
    """Until ``base`` answers its health check (30 s at most; then fail with what ``log`` says)."""
    for _ in range(150):
        try:
            urllib.request.urlopen(f"{base}/health/", timeout=1).read()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(log.read_text())


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM to each, then wait for each (10 s, then kill)."""
    for process in processes:
        process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


@contextmanager
def serve(var: Path, migrated_sqlite: Path, port: int = PORT, web_workers: int = 2, **settings: str) -> Iterator[str]:
    """The site on ``port`` (its address) over a copy of ``migrated_sqlite`` (tests/conftest.py),
    with any other ``settings``, until the end; what it logged is in ``var``/site.log."""
    base = f"http://127.0.0.1:{port}"
    env = site_env(var, base, **settings)
    python = sys.executable
    copy_sqlite(migrated_sqlite, var / "db.sqlite3")
    log = (var / "site.log").open("wb")
    web = subprocess.Popen([python, "-m", "powerboats_site.serve", "--host", "127.0.0.1", "--port", str(port),
                            "--workers", str(web_workers), "--timeout-graceful-shutdown", "1", "--log-level",
                            "warning"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    worker = subprocess.Popen([python, "-m", "celery", "-A", "powerboats_site", "worker", "--concurrency", "1",
                               "--loglevel", "WARNING", "--pool", "solo"], cwd=ROOT, env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        wait_until_up(base, var / "site.log")
        yield base
    finally:
        stop([web, worker])
        log.close()
