"""bin/run, README command 1: from nothing it migrates and serves the site with its worker and
scheduler; run again in the same folder, it keeps the site up when one of its processes dies
(powerboats_site/supervise.py): the worker, the web server and the scheduler are each killed in
turn and started again, a task queued while the worker was down is run, and Ctrl-C still stops
everything."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from powerboats_site.supervise import config, procfile

ROOT = Path(__file__).resolve().parents[2]
PORT = int(os.environ.get("SUPERVISE_TEST_PORT", "8351")) + 10 * int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)
FIRST_PORT = 18_700 + int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)


def test_every_line_of_the_procfile_becomes_a_program_that_is_restarted(tmp_path):
    processes = procfile(ROOT / "Procfile", 8123)
    assert [name for name, _ in processes] == ["web", "worker", "beat"]
    assert "--port 8123" in dict(processes)["web"]
    text = config(processes, tmp_path)
    assert text.count("autorestart=true") == 3 and text.count("stopasgroup=true") == 3
    assert "--program worker -- celery -A powerboats_site worker" in text


class Output:
    """bin/run's output, read by a thread."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self.thread.start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self.lines.append(line)

    def wait_for(self, text: str | tuple[str, ...], timeout: float, count: int = 1) -> None:
        """Until ``count`` lines hold ``text`` (each of the texts, when several), or fail."""
        texts = (text,) if isinstance(text, str) else text
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if sum(all(t in line for t in texts) for line in list(self.lines)) >= count:
                return
            time.sleep(0.2)
        pytest.fail(f"no {count} × {text!r} within {timeout} s:\n" + "".join(self.lines[-60:]))


def ctl(var: Path, *args: str) -> str:
    return subprocess.run([str(Path(sys.executable).with_name("supervisorctl")), "-c", str(var / "supervisord.conf"),
                           *args], capture_output=True, text=True, timeout=30).stdout.strip()


def health() -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/health/", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


def first_run(var: Path, env: dict[str, str]) -> None:
    """README command 1 on a new machine: bin/run with no database yet migrates, starts web,
    worker and scheduler, says where the site is, serves it; SIGTERM stops it."""
    port = FIRST_PORT
    proc = subprocess.Popen([str(ROOT / "bin" / "run")], cwd=ROOT, env={**env, "PORT": str(port)},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    out = Output(proc)
    try:
        out.wait_for(f"Powerboats is ready at http://127.0.0.1:{port}/", 180)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=10) as response:
            assert response.status == 200
        out.wait_for(("celery@", "ready"), 60)  # the worker
        assert any("beat" in line for line in out.lines), "the scheduler did not start"
        assert (var / "db.sqlite3").exists()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


@pytest.mark.slow
def test_bin_run_from_nothing_then_again_restarts_a_process_that_dies_and_ctrl_c_stops_them_all(tmp_path):
    """bin/run twice in a row in one folder, as a newcomer runs it: the first time from nothing
    (``first_run``), the second on what the first left (the database, the broker's folder,
    supervisord's files), where each process killed is started again."""
    var = tmp_path / "var"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")}
    env.update(POWERBOATS_VAR_DIR=str(var))
    first_run(var, env)
    env.update(PORT=str(PORT))
    proc = subprocess.Popen([str(ROOT / "bin" / "run")], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    out = Output(proc)
    try:
        out.wait_for(f"Powerboats is ready at http://127.0.0.1:{PORT}/", 180)
        out.wait_for("celery@", 60)
        out.wait_for("entered RUNNING state", 60, count=3)

        # the worker dies; a task queued before it is back is run by the new one
        worker = int(ctl(var, "pid", "worker"))
        os.kill(worker, signal.SIGKILL)
        task_id = f"queued-while-down-{uuid.uuid4().hex[:8]}"
        publish = ("import django; django.setup(); from games.tasks import sweep_clocks;"
                   f"sweep_clocks.apply_async(task_id={task_id!r})")
        subprocess.run([sys.executable, "-c", publish], cwd=ROOT, env={**env, "DJANGO_SETTINGS_MODULE":
                       "powerboats_site.settings"}, check=True, timeout=60)
        out.wait_for("exited: worker (terminated by SIGKILL; not expected)", 30)
        out.wait_for(f"{task_id}] succeeded", 90)
        assert int(ctl(var, "pid", "worker")) not in (0, worker)
        assert health(), "the site stayed up"

        # the web server dies (its worker processes outlive it and hold the port): a new one serves
        web = int(ctl(var, "pid", "web"))
        os.kill(web, signal.SIGKILL)
        out.wait_for("exited: web (terminated by SIGKILL; not expected)", 30)
        out.wait_for("spawned: 'web'", 30, count=2)
        out.wait_for("entered RUNNING state", 60, count=5)
        deadline = time.monotonic() + 60
        while not health() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert health() and int(ctl(var, "pid", "web")) != web
        assert "RUNNING" in ctl(var, "status", "web")

        # the scheduler dies
        beat = int(ctl(var, "pid", "beat"))
        os.kill(beat, signal.SIGKILL)
        out.wait_for("exited: beat (terminated by SIGKILL; not expected)", 30)
        out.wait_for("spawned: 'beat'", 30, count=2)
        groups = [int((var / f"supervise-{name}.pgid").read_text()) for name in ("web", "worker", "beat")]
        assert "Unrecoverable error" not in "".join(out.lines)
    finally:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("Ctrl-C did not stop bin/run")
    deadline = time.monotonic() + 30
    while any(group_alive(g) for g in groups) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(group_alive(g) for g in groups), "Ctrl-C stopped every process"
    assert not health()
