"""The clock sweep's queries at scale, on PostgreSQL, with their plans.

    python bench/sweep.py [--games 1000000] [--emails 2000000] [--players 50000] [--keep]

Creates (or reuses, with --keep) the database ``powerboats_bench_sweep`` on the server of
``DATABASE_URL`` (default postgres://postgres@127.0.0.1:5432), fills it by COPY with players,
``--games`` games (most finished, 5% going on, with deadlines and reminders spread over the next
weeks, a few overdue, a few waiting for a house bot) and ``--emails`` email-log rows (a few
unsent), analyses the tables, then runs every query of the beat tasks (``sweep_clocks`` each
minute, ``send_digests`` every 15 minutes) with EXPLAIN (ANALYZE, BUFFERS) and prints each plan,
whether it reads an index and how long it took. Goal (issue 10): every query uses an index and
takes < 100 ms.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.pop(0)  # not bench/: its http.py would hide the standard library's
sys.path.insert(0, str(ROOT))
NAME = os.environ.get("BENCH_DB_PREFIX", "powerboats_bench") + "_sweep"  # the suite's tiny run gives its own


def setup_database(url: str, keep: bool) -> tuple[str, bool]:
    import psycopg

    base = url.rsplit("/", 1)[0]
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (NAME,)).fetchone()
        if exists and not keep:
            conn.execute(f'DROP DATABASE "{NAME}" WITH (FORCE)')
            exists = None
        if not exists:
            # BENCH_DB_TEMPLATE: a database already migrated to copy (the suite's tiny runs): migrate then finds nothing to do
            template = os.environ.get("BENCH_DB_TEMPLATE")
            conn.execute(f'CREATE DATABASE "{NAME}"' + (f' TEMPLATE "{template}"' if template else ""))
    return f"{base}/{NAME}", bool(exists)


def fill(players: int, games: int, emails: int, seed: int) -> None:
    from django.core.management import call_command
    from django.db import connection

    from accounts.models import User
    from accounts.names import name_key
    from bench._fill import Copy
    from games.engine import new_course
    from games.models import Game
    from games.notifications.models import Notice
    from games.state import course_data, stored_course

    call_command("migrate", verbosity=0)
    rng = random.Random(seed)
    now = datetime.now(UTC)
    data = course_data(new_course("standard", "A", random.Random(seed)))
    course = stored_course(data)
    t0 = time.perf_counter()
    with connection.cursor() as cursor:
        raw = cursor.connection
        with Copy(raw, User, "id, password, is_superuser, username, name_key, first_name, last_name, email, "
            "is_staff, is_active, date_joined, is_bot, bot_level, time_zone, email_mode, digest_hour, "
            "reminder_hours, vacation_days_per_year") as copy:
            for i in range(players):
                mode = "digest" if rng.random() < 0.05 else "each"
                name = f"sweeper{i:06d}"
                copy.write_row((1000 + i, "!", False, name, name_key(name), "", "", f"s{i}@example.com",
                                False, True, now, False, "", "UTC", mode, rng.randrange(24), 24, 14))
        print(f"{players} players in {time.perf_counter() - t0:.0f} s", flush=True)
        t0 = time.perf_counter()
        seed_hex = "00" * 32
        sha = hashlib.sha256(bytes(32)).hexdigest()
        with Copy(raw, Game, "id, course_id, course_letter, lake_side, rated, status, phase, "
            "to_move, ply, winner_color, termination, result_reason, finished_at, dice_seed, dice_seed_sha256, "
            "days_per_move, grace_days, vacation_allowed, turn_started_at, move_deadline, deadline, reminder_at, "
            "reminder_sent_at, bot_to_move, created_at, updated_at") as copy:
            for i in range(games):
                created = now - timedelta(days=rng.uniform(1, 700))
                if rng.random() < 0.05:  # going on; deadlines over the next weeks, a few passed since the last sweep
                    started = now - timedelta(hours=rng.uniform(0, 72))
                    deadline = now + timedelta(minutes=rng.uniform(-5, 60 * 24 * 20))
                    reminder = deadline - timedelta(hours=24)
                    sent = reminder < now - timedelta(minutes=5)  # the sweep sent those due before its last run
                    bot = rng.random() < 0.02
                    updated = now - timedelta(seconds=rng.uniform(0, 300)) if bot else started
                    copy.write_row((i + 1, course.key, "A", "standard", True, "active", "dice",
                                    rng.randrange(2), 40, "", "", "", None, seed_hex, sha, 3, 7, True, started,
                                    started + timedelta(days=3), deadline, None if sent else reminder,
                                    reminder if sent else None,
                                    bot, created, updated))
                    continue
                else:
                    finished = created + timedelta(days=rng.uniform(1, 60))
                    copy.write_row((i + 1, course.key, "A", "standard", True, "finished", "over",
                                    rng.randrange(2), 50, "yellow", "finish", "Yellow finished", finished, seed_hex,
                                    sha, 3, 7, True, finished, None, None, None, None, False, created, finished))
        print(f"{games} games in {time.perf_counter() - t0:.0f} s", flush=True)
        t0 = time.perf_counter()
        with Copy(raw, Notice, "id, user_id, event, key, data, created_at, sent_at, attempts, send_after") as copy:
            for i in range(emails):
                created = now - timedelta(minutes=rng.uniform(0, 60 * 24 * 700))
                unsent = rng.random() < 0.0005
                held = now + timedelta(seconds=rng.uniform(-60, 120)) if rng.random() < 0.0002 else None
                if held:  # your-turn emails of the last two minutes, waiting for the sweep
                    created, unsent = held - timedelta(minutes=2), True
                copy.write_row((i + 1, 1000 + rng.randrange(players), "your_turn", f"game:{i}:ply:1",
                                json.dumps({"game": i}), created, None if unsent else created + timedelta(seconds=3),
                                0 if held else rng.randrange(3) if unsent else 1, held))
        print(f"{emails} email-log rows in {time.perf_counter() - t0:.0f} s", flush=True)
        for table, column in (("accounts_user", "id"), ("games_game", "id"), ("games_emaillog", "id")):
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), (SELECT max({column}) FROM {table}))")
        cursor.execute("VACUUM ANALYZE")


def explain(label: str, queryset: object) -> tuple[float, bool]:
    """Run a query with EXPLAIN (ANALYZE, BUFFERS); print the plan; (milliseconds, index used)."""
    plan = queryset.explain(analyze=True, buffers=True)  # type: ignore[attr-defined]
    ms = float(plan.rsplit("Execution Time:", 1)[1].split("ms")[0])
    indexed = "Index" in plan and "Seq Scan" not in plan
    print(f"\n--- {label}: {ms:.2f} ms, {'index' if indexed else 'NO INDEX'}")
    print("\n".join("    " + line for line in plan.splitlines()))
    return ms, indexed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--emails", type=int, default=2_000_000)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="reuse the database of the last run")
    args = parser.parse_args()

    url, existed = setup_database(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres"),
                                  args.keep)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "powerboats_site.settings")
    os.environ.setdefault("POWERBOATS_VAR_DIR", str(ROOT / "var" / "bench-sweep"))
    import django

    django.setup()
    if not existed:
        t0 = time.perf_counter()
        fill(args.players, args.games, args.emails, args.seed)
        print(f"filled in {time.perf_counter() - t0:.0f} s")

    from django.utils import timezone

    from games.models import Game
    from games.notifications.models import Notice
    from games.tasks import digest_readers, due_reminders, due_time_outs, held_notices_due, unsent_notices, waiting_bots

    now = timezone.now()
    print(f"\n{Game.objects.count()} games ({Game.objects.filter(status='active').count()} going on), "
          f"{Notice.objects.count()} email-log rows; load average {os.getloadavg()[0]:.2f}")
    results = {
        "time-outs due (sweep_clocks)": explain("time-outs due", due_time_outs(now)),
        "reminders due (sweep_clocks)": explain("reminders due", due_reminders(now)),
        "house bots waiting (sweep_clocks)": explain("house bots waiting", waiting_bots(now)),
        "unsent notices (sweep_clocks)": explain("unsent notices", unsent_notices(now)),
        "held notices due (sweep_clocks)": explain("held notices due", held_notices_due(now)),
        "digest readers (send_digests)": explain("digest readers", digest_readers()),
    }
    print("\nquery                                  ms      index   goal < 100 ms")
    for label, (ms, indexed) in results.items():
        print(f"{label:<36} {ms:>8.2f}   {'yes' if indexed else 'NO':<5}   {'ok' if ms < 100 and indexed else 'MISSED'}")


if __name__ == "__main__":
    main()
