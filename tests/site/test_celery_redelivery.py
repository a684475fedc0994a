"""A task whose worker is killed mid-run runs again within minutes, not an hour (Redis):
the whole worker killed → delivered again after the visibility timeout (shortened here);
a worker's child process killed → put back at once (task_reject_on_worker_lost)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from powerboats_site.celery import Task, app

ROOT = Path(__file__).resolve().parents[2]
PROBE = "tests.site.celery_probe.probe"


def test_a_retry_never_waits_past_the_visibility_timeout(monkeypatch):
    from celery.app.task import Task as CeleryTask

    from games.tasks import send_email

    asked = []
    monkeypatch.setattr(CeleryTask, "retry", lambda self, *args: asked.append(args[5]))
    before = app.conf.broker_transport_options
    try:
        app.conf.broker_transport_options = {"visibility_timeout": 300}  # Redis
        assert isinstance(send_email, Task)
        send_email.retry(countdown=3600)
        send_email.retry(countdown=30)
        app.conf.broker_transport_options = {}  # the folder broker: no limit
        send_email.retry(countdown=3600)
    finally:
        app.conf.broker_transport_options = before
    assert asked == [240, 30, 3600]


def start_worker(queue: str, log: Path, pool: str, visibility: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PROBE_VISIBILITY_TIMEOUT": str(visibility)}
    command = [sys.executable, "-m", "celery", "-A", "tests.site.celery_probe", "worker", "-Q", queue,
               "--pool", pool, "--concurrency", "1", "--without-heartbeat", "--without-mingle", "--without-gossip",
               "--loglevel", "INFO", "--hostname", f"probe-{uuid.uuid4().hex[:8]}@%h"]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def wait_for(path: Path, text: str, count: int, timeout: float, worker_log: Path) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().count(text) >= count:
            return time.monotonic()
        time.sleep(0.2)
    seen = path.read_text() if path.exists() else "(no runs)"
    pytest.fail(f"no {count} × {text!r} within {timeout} s; runs: {seen}\nworker:\n{worker_log.read_text()[-3000:]}")


def stop(worker: subprocess.Popen[bytes]) -> None:
    if worker.poll() is None:
        os.killpg(worker.pid, signal.SIGKILL)
    worker.wait(timeout=30)


@pytest.fixture
def queue():
    name = f"powerboats-probe-{uuid.uuid4().hex[:8]}"
    yield name
    with app.connection_for_write() as connection:
        try:
            connection.default_channel.queue_delete(name)
        except Exception:
            pass


@pytest.mark.redis
def test_a_task_whose_worker_is_killed_runs_again_after_the_visibility_timeout(tmp_path, queue):
    runs, worker_log = tmp_path / "runs.txt", tmp_path / "worker.log"
    app.send_task(PROBE, args=[str(runs), 120], queue=queue)
    first = start_worker(queue, worker_log, "solo", visibility=5)
    try:
        wait_for(runs, "start ", 1, 90, worker_log)
    finally:
        os.killpg(first.pid, signal.SIGKILL)  # the worker dies mid-task: no ack, no reject
        first.wait(timeout=30)
    killed_at = time.monotonic()
    second = start_worker(queue, worker_log, "solo", visibility=5)
    try:
        again = wait_for(runs, "start ", 2, 120, worker_log)
        wait_for(runs, "done ", 1, 30, worker_log)
    finally:
        stop(second)
    lines = runs.read_text().split("\n")
    assert [line.split()[0] for line in lines if line] == ["start", "start", "done"]
    assert lines[0].split()[1] == str(first.pid) and lines[1].split()[1] == str(second.pid)
    assert again - killed_at < 60, "delivered again a few seconds after the visibility timeout"


@pytest.mark.redis
def test_a_task_whose_worker_process_is_killed_is_put_back_at_once(tmp_path, queue):
    runs, worker_log = tmp_path / "runs.txt", tmp_path / "worker.log"
    app.send_task(PROBE, args=[str(runs), 120], queue=queue)
    worker = start_worker(queue, worker_log, "prefork", visibility=3600)  # the timeout plays no part
    try:
        wait_for(runs, "start ", 1, 90, worker_log)
        child = int(runs.read_text().split()[1])
        assert child != worker.pid
        os.kill(child, signal.SIGKILL)  # e.g. the kernel's out-of-memory killer
        killed_at = time.monotonic()
        again = wait_for(runs, "start ", 2, 60, worker_log)
        wait_for(runs, "done ", 1, 30, worker_log)
    finally:
        stop(worker)
    assert again - killed_at < 30
    assert "WorkerLostError" in worker_log.read_text()
