"""Leaderboard and profile speed at scale, on PostgreSQL.

    python bench/leaderboard.py [--players 100000] [--games 1000000] [--keep]

Creates (or reuses, with --keep) the database ``powerboats_bench`` on the PostgreSQL server of
``DATABASE_URL`` (default postgres://postgres@127.0.0.1:5432), fills it with players and finished
rated games whose ratings come from Glicko-2 in game order, then times, server side (Django's test
client, no network): the leaderboard's first page (HTML and API), a profile page (HTML and API)
of a busy player, and ``recompute_ratings`` over all games. Goal (issue 6): under 50 ms per page.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.pop(0)  # not bench/: its http.py would hide the standard library's
sys.path.insert(0, str(ROOT))


def setup_database(url: str, name: str, keep: bool) -> str:
    import psycopg

    base = url.rsplit("/", 1)[0]
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if exists and not keep:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            exists = None
        if not exists:
            # BENCH_DB_TEMPLATE: a database already migrated to copy (the suite's tiny runs): migrate then finds nothing to do
            template = os.environ.get("BENCH_DB_TEMPLATE")
            conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    return f"{base}/{name}"


def fill(players: int, games: int, seed: int) -> None:
    from django.db import connection

    from accounts.models import User
    from accounts.names import name_key
    from bench._fill import Copy
    from games.engine import new_course
    from games.models import Game, Seat
    from games.ratings import glicko2
    from games.ratings.models import Rating, RatingChange
    from games.ratings.services import MAX_DEVIATION, MIN_DEVIATION, RATING_PERIOD
    from games.state import course_data, stored_course

    rng = random.Random(seed)
    course = stored_course(course_data(new_course("standard", "A", random.Random(seed))))  # every game's
    now = datetime.now(UTC)
    start = now - timedelta(days=365)
    strength = [rng.gauss(0, 1) for _ in range(players)]
    t0 = time.perf_counter()
    with connection.cursor() as cursor:
        raw = cursor.connection
        with Copy(raw, User, "id, password, is_superuser, username, first_name, last_name, email, is_staff, "
            "is_active, date_joined, is_bot, bot_level, time_zone, email_mode, digest_hour, reminder_hours, "
            "vacation_days_per_year, name_key") as copy:
            for i in range(players):
                copy.write_row((100 + i, "!", False, f"player{i:06d}", "", "", f"p{i}@example.com", False, True,
                                start, False, "", "UTC", "each", 8, 24, 14, name_key(f"player{i:06d}")))
        print(f"  {players:,} players in {time.perf_counter() - t0:.1f} s")
        # the games, in time order, rated as they happen
        t0 = time.perf_counter()
        ratings = [glicko2.Rating() for _ in range(players)]
        last: list[datetime | None] = [None] * players
        stats = [[0, 0, 0, 0, 0] for _ in range(players)]  # games, wins, draws, losses, points
        step = timedelta(days=365) / games
        game_rows: list[tuple[object, ...]] = []
        seat_rows: list[tuple[object, ...]] = []
        change_rows: list[tuple[object, ...]] = []

        def flush() -> None:  # one COPY at a time per connection
            for model, columns, rows in (
                (Game, "id, course_id, course_letter, lake_side, rated, status, phase, to_move, "
                 "ply, winner_id, winner_color, termination, result_reason, finished_at, dice_seed, dice_seed_sha256, "
                 "days_per_move, grace_days, vacation_allowed, turn_started_at, created_at, updated_at", game_rows),
                (Seat, "game_id, index, color, user_id, heading, dice, damage, next_buoy, count, entries, "
                 "finished, sunk, moves, points, grace_seconds", seat_rows),
                (RatingChange, "game_id, user_id, opponent_id, score, rating_before, deviation_before, "
                 "volatility_before, rating_after, deviation_after, volatility_after, opponent_rating, "
                 "opponent_deviation, points, created_at", change_rows),
            ):
                with Copy(raw, model, columns) as copy:
                    for row in rows:
                        copy.write_row(row)
                rows.clear()

        for g in range(games):
            a = rng.randrange(players)
            b = rng.randrange(players - 1)
            b += b >= a
            at = start + step * g
            p_a = 1 / (1 + 10 ** ((strength[b] - strength[a]) * 0.5))
            roll = rng.random()
            score_a = 0.5 if roll < 0.03 else (1.0 if roll < 0.03 + 0.97 * p_a else 0.0)
            winner = None if score_a == 0.5 else (a if score_a == 1.0 else b)
            befores = []
            for u in (a, b):
                value = ratings[u]
                previous = last[u]
                if previous is not None:
                    periods = (at - previous) // RATING_PERIOD
                    if periods:
                        value = glicko2.idle(value, periods)
                value = glicko2.Rating(value.rating, min(MAX_DEVIATION, max(MIN_DEVIATION, value.deviation)),
                                       value.volatility)
                befores.append(value)
            points = (3 if score_a == 1 else rng.randrange(3), 3 if score_a == 0 else rng.randrange(3))
            game_rows.append((
                g + 1, course.key, "A", "standard", True, "finished", "over", 0, 60,
                None if winner is None else 100 + winner, "" if winner is None else ("yellow" if winner == a else "red"),
                "finish", "bench", at, "0" * 64, "0" * 64, 3, 7, True, at, at - timedelta(days=10), at,
            ))
            for k, (u, o) in enumerate(((a, b), (b, a))):
                seat_rows.append((g + 1, k, ("yellow", "red")[k], 100 + u, 0, "[]", 0, min(4, points[k] + 1), 0,
                                  "[0, 0, 0]", points[k] == 3, False, 30, points[k], 0))
                s = score_a if k == 0 else 1 - score_a
                new = glicko2.rate(befores[k], [(befores[1 - k], s)])
                new = glicko2.Rating(new.rating, min(MAX_DEVIATION, max(MIN_DEVIATION, new.deviation)), new.volatility)
                change_rows.append((g + 1, 100 + u, 100 + o, s, befores[k].rating, befores[k].deviation,
                                    befores[k].volatility, new.rating, new.deviation, new.volatility,
                                    befores[1 - k].rating, befores[1 - k].deviation, points[k], at))
                ratings[u] = new
                last[u] = at
                st = stats[u]
                st[0] += 1
                st[1 + (0 if s == 1 else 1 if s == 0.5 else 2)] += 1
                st[4] += points[k]
            if len(game_rows) >= 50_000:
                flush()
                print(f"  {g + 1:,} games ({time.perf_counter() - t0:.0f} s)")
        flush()
        with Copy(raw, Rating, "user_id, rating, deviation, volatility, games, wins, draws, losses, points, "
            "points_per_game, last_rated_at") as copy:
            for u in range(players):
                st = stats[u]
                r = ratings[u]
                copy.write_row((100 + u, r.rating, r.deviation, r.volatility, st[0], st[1], st[2], st[3], st[4],
                                st[4] / st[0] if st[0] else 0.0, last[u]))
        cursor.execute("SELECT setval('accounts_user_id_seq', (SELECT max(id) FROM accounts_user))")
        cursor.execute("SELECT setval('games_game_id_seq', (SELECT max(id) FROM games_game))")
        cursor.execute("ANALYZE")
    print(f"  {games:,} games and {2 * games:,} rating changes in {time.perf_counter() - t0:.1f} s")


def timed(client: object, url: str, runs: int = 30) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        response = client.get(url)  # type: ignore[attr-defined]
        times.append(time.perf_counter() - start)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(times) * 1000, max(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="reuse a filled bench database")
    parser.add_argument("--database", default="powerboats_bench")
    args = parser.parse_args()
    server = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    os.environ["DATABASE_URL"] = setup_database(server, args.database, args.keep)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "powerboats_site.settings")
    os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost")
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    from games.ratings.models import Rating

    if not (args.keep and Rating.objects.exists()):
        print(f"filling {args.database}: {args.players:,} players, {args.games:,} games")
        call_command("migrate", verbosity=0)
        from accounts.models import User

        User.objects.filter(bot_level__in=["easy", "normal", "strong"]).delete()  # keep the ids simple
        fill(args.players, args.games, args.seed)
    client = Client()
    busy = Rating.objects.order_by("-games").select_related("user").first()
    assert busy is not None
    name = busy.user.username
    print(f"server-side times, median (max) of 30 requests; profile of {name} ({busy.games} games):")
    for label, url in [
        ("leaderboard, first page (HTML)", "/leaderboard/"),
        ("leaderboard, first page (API)", "/api/leaderboard/"),
        ("points table, first page (HTML)", "/leaderboard/?by=points"),
        (f"profile page of {name} (HTML)", f"/players/{name}/"),
        (f"player {name} with rating history (API)", f"/api/players/{name}/"),
    ]:
        median, worst = timed(client, url)
        print(f"  {label:<46}{median:8.1f} ms  ({worst:.1f} ms)   goal 50 ms: {'ok' if median < 50 else 'MISSED'}")
    start = time.perf_counter()
    call_command("recompute_ratings", stdout=open(os.devnull, "w"))
    print(f"  recompute_ratings over {args.games:,} games: {time.perf_counter() - start:.1f} s, no differences")


if __name__ == "__main__":
    main()
