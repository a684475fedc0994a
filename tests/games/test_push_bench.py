"""bench/push.py at a tiny size (issue 26), run as a person would run it, so that it never rots:
it must send every push it recorded (it asserts so itself) and print its figures."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_push_bench_runs_at_a_tiny_size():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")}
    done = subprocess.run([sys.executable, "bench/push.py", "--pushes", "5", "--repeat", "1"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert re.search(r"baseline, a plain POST of \d+ bytes: +\d+/s", done.stdout), done.stdout
    assert re.search(r"send_push, one worker process: +\d+ pushes/s = \d+% of the baseline POST", done.stdout)
