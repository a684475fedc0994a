"""A Celery app for tests/site/test_celery_redelivery.py: the site's app, with the visibility
timeout from PROBE_VISIBILITY_TIMEOUT, and one task that writes each of its runs to a file.
Run by worker processes the test starts (``celery -A tests.site.celery_probe worker``)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from powerboats_site.celery import app

if "PROBE_VISIBILITY_TIMEOUT" in os.environ:  # only in the test's worker processes
    app.conf.broker_transport_options = {
        **app.conf.broker_transport_options,
        "visibility_timeout": int(os.environ["PROBE_VISIBILITY_TIMEOUT"]),
        "unacked_restore_interval": 1,  # look for overdue messages every second, not every ~100 s
        "unacked_restore_throttle": 1,
    }


@app.task(name="tests.site.celery_probe.probe")
def probe(path: str, seconds: float) -> None:
    """The first run sleeps ``seconds`` (long enough to be killed); later runs finish at once."""
    log = Path(path)
    with log.open("a") as f:
        f.write(f"start {os.getpid()}\n")
    runs = log.read_text().count("start ")
    time.sleep(seconds if runs == 1 else 0)
    with log.open("a") as f:
        f.write(f"done {os.getpid()}\n")
