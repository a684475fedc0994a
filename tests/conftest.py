"""Shared test setup: service markers (PostgreSQL, Redis, chromium) and output folder."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

import pytest
from django.conf import settings

OUTPUT = Path(__file__).resolve().parent.parent / "test-output"
REQUIRE = os.environ.get("POWERBOATS_REQUIRE_SERVICES") == "1"


def _redis_up() -> bool:
    url = settings.CELERY_BROKER_URL
    if not url.startswith("redis://"):
        return False
    host_port = url.split("//", 1)[1].split("/", 1)[0].split("@")[-1]
    host, _, port = host_port.partition(":")
    try:
        socket.create_connection((host or "127.0.0.1", int(port or 6379)), timeout=1).close()
        return True
    except OSError:
        return False


def _missing(marker: str) -> str | None:
    if marker == "postgres" and settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return "needs DATABASE_URL=postgres://..."
    if marker == "redis" and not _redis_up():
        return "needs CELERY_BROKER_URL=redis://... with Redis running"
    if marker == "browser" and not shutil.which("chromium") and not Path("/usr/bin/chromium").exists():
        return "needs Debian's chromium (apt-get install chromium)"
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a parallel run (bin/test: pytest-xdist, ``--dist loadgroup``) the browser tests go to
    one worker, one after another: two Chromiums with their servers on two cores are the load
    under which a page misses its waits, and the rest of the suite fills the other worker.
    ``tryfirst``: xdist names each test's group from its marks in this same hook; run after it, as
    this one did before, the mark came too late and the browser tests were spread over both workers.

    The modules with a slow test (mark ``slow``) are handed out first (after the groups, which xdist sends
    first, the largest first), so that the run does not end with one worker on a long test while
    the other has nothing left to do."""
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group("browser"))
    slow_modules = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_modules)  # stable, a module's tests kept together


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in ("postgres", "redis", "browser"):
        if item.get_closest_marker(marker):
            why = _missing(marker)
            if why:
                if REQUIRE:
                    pytest.fail(f"POWERBOATS_REQUIRE_SERVICES=1 but this test {why}")
                pytest.skip(why)


@pytest.fixture
def output_dir() -> Path:
    OUTPUT.mkdir(exist_ok=True)
    return OUTPUT



@pytest.fixture
def eager():
    """Celery runs tasks in the calling thread (as on_commit callbacks, when those are executed)."""
    from powerboats_site.celery import app

    old = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = old
