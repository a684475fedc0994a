"""A pytest plugin: the test suite has a ``var/`` of its own, never the developer's.

Loaded with ``-p powerboats_site.pytest_var`` (pyproject.toml's ``addopts``), so it is imported
before pytest-django loads the settings: it points ``POWERBOATS_VAR_DIR`` at a fresh temporary
folder (or at ``POWERBOATS_TEST_VAR_DIR`` when that is set), whatever the environment says.
The settings then keep the SQLite file, the secret key and the broker folder of the embedded
default (``folder://``) there: a task a test publishes lands in that folder, not in the
``var/broker`` that the developer's ``bin/run`` consumes, and no test reads a message a
``bin/run`` queued. Processes the tests start inherit the variable unless they set their own.
A ``CELERY_BROKER_URL`` in the environment (Redis in CI) is kept. Each process of a parallel
run (pytest-xdist) gets its own folder; it is removed when the process ends. On Redis, each
process also gets its own database number (worker ``gwN``: the given one plus 1 + N), so that
a Celery worker started by one process's test never takes a task another process's test queued
(each process has its own test database too: that task would read the wrong one).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile

import pytest

_given = os.environ.get("POWERBOATS_TEST_VAR_DIR", "")
VAR_DIR = _given or tempfile.mkdtemp(prefix="powerboats-test-var-")
os.environ["POWERBOATS_VAR_DIR"] = VAR_DIR


def _worker_broker(url: str, worker: str) -> str:
    """``redis://host:6379/0`` for worker ``gw1`` → ``redis://host:6379/2``; other URLs as given."""
    number = re.fullmatch(r"gw(\d+)", worker)
    match = re.fullmatch(r"(rediss?://[^/]*)(?:/(\d*))?(\?.*)?", url)
    if number is None or match is None:
        return url
    base, db, query = match.group(1), int(match.group(2) or 0), match.group(3) or ""
    return f"{base}/{(db + 1 + int(number.group(1))) % 16}{query}"


if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("CELERY_BROKER_URL"):
    os.environ["CELERY_BROKER_URL"] = _worker_broker(os.environ["CELERY_BROKER_URL"], os.environ["PYTEST_XDIST_WORKER"])


def pytest_unconfigure(config: pytest.Config) -> None:
    if not _given:
        shutil.rmtree(VAR_DIR, ignore_errors=True)
