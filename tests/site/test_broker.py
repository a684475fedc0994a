"""The embedded default's broker folder (powerboats_site/broker.py, docs/broker.md): concurrent
publishers and consumers lose nothing and get nothing twice; a consumer killed while it holds a
message gives it back; a message that cannot be read is set aside and logged, and consuming
goes on."""

from __future__ import annotations

import json
import logging
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from kombu import Connection, Exchange, Queue

from powerboats_site import broker
from tests.sqlite_copy import copy_sqlite

ROOT = Path(__file__).resolve().parents[2]


def bench(folder: Path, *args: str) -> dict[str, int]:
    """bench/broker.py, small."""
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "broker.py"), "--dir", str(folder), *args],
                         cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def folder_options(folder: Path) -> dict[str, object]:
    for sub in ("queue", "processed", "control"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    return {"data_folder_in": str(folder / "queue"), "data_folder_out": str(folder / "queue"),
            "processed_folder": str(folder / "processed"), "control_folder": str(folder / "control"),
            "polling_interval": 0.01}


def test_the_embedded_default_is_the_folder_broker(settings):
    assert settings.CELERY_BROKER_URL == "folder://" or not settings.CELERY_BROKER_URL.startswith(("filesystem", "folder"))
    with Connection("folder://") as conn:
        assert isinstance(conn.transport, broker.Transport)


def test_concurrent_publishers_and_consumers_lose_nothing_and_get_nothing_twice(tmp_path):
    result = bench(tmp_path / "b", "--publishers", "3", "--consumers", "3", "--messages", "600")
    assert result["lost"] == 0 and result["twice"] == 0, result
    assert result["consumers_crashed"] == 0 and result["set_aside"] == 0, result
    assert not list((tmp_path / "b" / "queue").glob("*.msg")), "every message was taken"


def test_a_consumer_killed_holding_a_message_gives_it_back(tmp_path):
    """Each kill leaves one message taken and not acknowledged: it is delivered again, once."""
    result = bench(tmp_path / "b", "--publishers", "2", "--consumers", "2", "--messages", "200", "--kill", "40")
    assert result["consumers_killed"] >= 3, result
    assert result["lost"] == 0 and result["consumers_crashed"] == 0, result
    assert result["twice"] <= result["consumers_killed"], result
    claimed = tmp_path / "b" / "claimed"
    assert not list(claimed.glob("*/*.msg")), "no message is left in a dead consumer's folder"


def _take_and_die(options: dict[str, object]) -> None:
    with Connection("folder://", transport_options=options) as conn:
        queue = conn.SimpleQueue("held")
        queue.get(timeout=10)  # taken, never acknowledged
        os.kill(os.getpid(), signal.SIGKILL)


def test_a_message_held_by_a_dead_consumer_goes_back_to_the_queue(tmp_path, caplog):
    options = folder_options(tmp_path)
    with Connection("folder://", transport_options=options) as conn:
        conn.SimpleQueue("held").put({"n": 1})
    child = mp.get_context("spawn").Process(target=_take_and_die, args=(options,))
    child.start()
    child.join(30)
    assert child.exitcode == -signal.SIGKILL
    assert not list((tmp_path / "queue").glob("*.msg")) and len(list((tmp_path / "claimed").glob("*/*.msg"))) == 1
    broker.Channel._last_recovery = 0.0  # look now, not within RECOVER_EVERY_SECONDS
    with caplog.at_level(logging.WARNING, "powerboats.broker"), Connection("folder://", transport_options=options) as conn:
        queue = conn.SimpleQueue("held")
        message = queue.get(timeout=5)
        assert message.payload == {"n": 1}
        message.ack()
    assert "put 1 message(s) back" in caplog.text
    assert not list((tmp_path / "claimed").glob("*/*.msg")), "acknowledged: deleted"


def test_an_unreadable_message_is_set_aside_and_logged_and_the_next_is_taken(tmp_path, caplog):
    options = folder_options(tmp_path)
    queue_dir = tmp_path / "queue"
    # named to sort before the message put below (names start with the time in ns)
    (queue_dir / "0_a_empty.plain.msg").write_bytes(b"")  # what kombu's transport let a reader see
    (queue_dir / "0_b_cut.plain.msg").write_bytes(b'{"body": "eyJh')  # cut short
    (queue_dir / "0_c_list.plain.msg").write_bytes(b"[1, 2]")  # JSON, not a message
    with caplog.at_level(logging.ERROR, "powerboats.broker"), Connection("folder://", transport_options=options) as conn:
        queue = conn.SimpleQueue("plain")
        queue.put({"n": 4})
        message = queue.get(timeout=5)
        assert message.payload == {"n": 4}
        message.ack()
    assert sorted(p.name for p in (tmp_path / "bad").iterdir()) == ["0_a_empty.plain.msg", "0_b_cut.plain.msg",
                                                                    "0_c_list.plain.msg"]
    assert caplog.text.count("set aside a message that cannot be read") == 3


def test_a_message_is_never_seen_half_written(tmp_path, monkeypatch):
    """The file appears in the queue only when whole: here the write is stopped half-way."""
    options = folder_options(tmp_path)
    real_write = broker.write_atomically
    seen: list[list[str]] = []

    def slow_write(path: Path, data: bytes, tmp_dir: Path) -> None:
        seen.append(sorted(os.listdir(path.parent)))  # the queue while the message is being written
        real_write(path, data, tmp_dir)

    monkeypatch.setattr(broker, "write_atomically", slow_write)
    with Connection("folder://", transport_options=options) as conn:
        conn.SimpleQueue("whole").put({"n": 1})
    assert seen and not any(name.endswith(".msg") for name in seen[0])
    assert [p.name for p in (tmp_path / "queue").iterdir()] == [next((tmp_path / "queue").glob("*.whole.msg")).name]
    assert not list((tmp_path / "tmp").glob("*.tmp"))


def _bind(options: dict[str, object], n: int) -> None:
    with Connection("folder://", transport_options=options) as conn:
        Queue(f"q{n}", Exchange("fan", type="fanout"))(conn.default_channel).declare()


def test_concurrent_bindings_of_a_fanout_exchange_all_land(tmp_path):
    """Celery's remote control binds each worker's queue to a fanout exchange, in a file."""
    options = folder_options(tmp_path)
    ctx = mp.get_context("spawn")
    processes = [ctx.Process(target=_bind, args=(options, n)) for n in range(6)]
    for p in processes:
        p.start()
    for p in processes:
        p.join(60)
    table = json.loads((tmp_path / "control" / "fan.exchange").read_text())
    assert sorted(row[2] for row in table) == [f"q{n}" for n in range(6)]


@pytest.mark.slow
def test_a_celery_worker_keeps_consuming_past_an_unreadable_message(tmp_path, migrated_sqlite):
    """A real worker on the folder broker: an empty message file before a task, the task runs."""
    var = tmp_path / "var"
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DATABASE_URL")}
    env.update(POWERBOATS_VAR_DIR=str(var), DJANGO_SETTINGS_MODULE="powerboats_site.settings")
    publish = ("import django; django.setup(); from games.tasks import sweep_clocks;"
               "sweep_clocks.apply_async(task_id='after-the-empty-one')")
    copy_sqlite(migrated_sqlite, var / "db.sqlite3")  # a fresh database, migrated (tests/conftest.py)
    (var / "broker" / "queue").mkdir(parents=True, exist_ok=True)
    (var / "broker" / "queue" / "0_empty.celery.msg").write_bytes(b"")
    subprocess.run([sys.executable, "-c", publish], cwd=ROOT, env=env, check=True)
    log = tmp_path / "worker.log"
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "powerboats_site", "worker", "--pool", "solo", "--loglevel", "INFO",
         "--without-heartbeat", "--without-mingle", "--without-gossip"],
        cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "after-the-empty-one] succeeded" not in log.read_text():
            assert worker.poll() is None, log.read_text()[-3000:]
            time.sleep(0.2)
        text = log.read_text()
        assert "after-the-empty-one] succeeded" in text, text[-3000:]
        assert "set aside a message that cannot be read" in text and "Unrecoverable error" not in text
        assert (var / "broker" / "bad" / "0_empty.celery.msg").exists()
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            pytest.fail("the worker did not stop on SIGTERM")
