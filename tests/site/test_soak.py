"""bench/soak.py, small: three clients play house bots for ~20 s against a bin/run of its own
(its own port and var/, the embedded default): no task lost, no process restarted, no
message set aside, every bot answered."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sqlite_copy import copy_sqlite

ROOT = Path(__file__).resolve().parents[2]
PORT = int(os.environ.get("SOAK_TEST_PORT", "8352")) + 10 * int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)


@pytest.mark.slow
def test_a_short_soak_loses_no_task_and_no_process(tmp_path, migrated_sqlite):
    figures = tmp_path / "soak.json"
    # a database already migrated (tests/conftest.py): bin/run's migrate finds nothing to do, as on
    # every run after a newcomer's first (which tests/site/test_supervise.py runs from nothing)
    copy_sqlite(migrated_sqlite, tmp_path / "var" / "db.sqlite3")
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "soak.py"), "--clients", "3", "--seconds", "20", "--port", str(PORT),
         "--var", str(tmp_path / "var"), "--json", str(figures)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert figures.exists(), out.stdout[-3000:] + out.stderr[-3000:]
    result = json.loads(figures.read_text())
    assert out.returncode == 0, result
    assert result["sign_ups"] >= 3 and result["actions"] > 0 and result["bot_replies"] > 0, result
    assert result["tasks_published"] > 0 and result["tasks_lost"] == 0 and result["tasks_still_queued"] == 0, result
    assert result["tasks_received"] == result["tasks_published"] == result["tasks_finished"], result
    assert result["processes_restarted"] == 0 and result["unrecoverable_errors"] == 0, result
    assert result["set_aside"] == 0 and not result.get("client_errors") and not result.get("bot_never_answered"), result
    assert not result.get("http_5xx"), result
