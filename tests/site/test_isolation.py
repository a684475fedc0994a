"""The test suite keeps out of the developer's var/ (powerboats_site/pytest_var.py): a task a test
publishes lands in the run's own broker folder, and var/broker is left as it was found."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import uuid
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
DEVELOPER_VAR = ROOT / "var"


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with a hash of its content."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in folder.rglob("*") if p.is_file()}


def bin_run_is_running_here() -> bool:
    pid = DEVELOPER_VAR / "supervisord.pid"
    try:
        os.kill(int(pid.read_text()), 0)
        return True
    except (OSError, ValueError):
        return False


def test_this_run_has_a_var_of_its_own():
    assert DEVELOPER_VAR.resolve() not in (settings.VAR_DIR.resolve(), *settings.VAR_DIR.resolve().parents)
    if settings.CELERY_BROKER_URL == "folder://":
        folder = Path(str(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])).resolve()
        assert DEVELOPER_VAR.resolve() not in folder.parents


def test_a_run_publishes_into_its_own_folder_and_leaves_var_broker_as_it_found_it(tmp_path):
    """A pytest run that publishes a task, with POWERBOATS_VAR_DIR pointing at the developer's
    var/ as a shell that runs bin/run may have it: the task lands in the run's own folder."""
    marker = f"isolation-{uuid.uuid4().hex}"
    test = tmp_path / "test_publishes.py"
    test.write_text(
        "def test_publish():\n"
        "    from games.tasks import sweep_clocks\n"
        f"    sweep_clocks.apply_async(task_id={marker!r})\n"
    )
    before = snapshot(DEVELOPER_VAR / "broker")
    run_var = tmp_path / "run-var"
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DATABASE_URL")}
    env.update(POWERBOATS_VAR_DIR=str(DEVELOPER_VAR), POWERBOATS_TEST_VAR_DIR=str(run_var))
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "--rootdir", str(ROOT),
                          "-c", str(ROOT / "pyproject.toml"), str(test)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    published = [p for p in (run_var / "broker" / "queue").glob("*.msg") if marker in p.read_text()]
    assert len(published) == 1, "the task went to the run's own broker folder"
    assert not any(marker in p.read_text(errors="replace") for p in (DEVELOPER_VAR / "broker").rglob("*.msg"))
    if not bin_run_is_running_here():  # a bin/run of this checkout changes var/broker by itself
        assert snapshot(DEVELOPER_VAR / "broker") == before
