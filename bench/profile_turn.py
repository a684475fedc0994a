"""Where a turn request's time goes, in-process: the whole Django stack (middleware, DRF,
services, the database) without a server, profiled with cProfile.

    python bench/profile_turn.py [--requests 600] [--top 30] [--scenario turns|api|html]

Runs after ``bench/http.py --keep`` has filled its project database (``powerboats_bench_http``)
and plays on the same games with Django's test client. Prints the CPU and wall time per request
and the functions with the most cumulative time. A figure here is one process on an idle
machine: compare two versions by running both, not with bench/http.py's figures.
"""

from __future__ import annotations

import sys
from pathlib import Path

if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)  # bench/http.py would shadow the standard library's http

import argparse
import cProfile
import json
import os
import pstats
import random
import time
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=600)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--scenario", choices=["turns", "api", "html"], default="turns")
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--no-profile", action="store_true", help="only time the requests (CPU and wall)")
    parser.add_argument("--plain-token", action="store_true", help="DRF's own TokenAuthentication: what ours costs")
    parser.add_argument("--without", action="append", default=[],
                        help="leave out a middleware (dotted path; repeatable): what it costs")
    parser.add_argument("--callees", help="also print what the functions matching this call")
    parser.add_argument("--callers", help="also print the callers of the functions matching this")
    args = parser.parse_args()

    prefix = os.environ.get("BENCH_DB_PREFIX", "powerboats_bench")
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres").rsplit("/", 1)[0]
    os.environ["DATABASE_URL"] = f"{base}/{prefix}_http"
    os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "powerboats_site.settings")
    var = Path(os.environ.get("BENCH_VAR_DIR", str(ROOT / "var" / "bench-http")))  # as bench/http.py
    os.environ.setdefault("POWERBOATS_VAR_DIR", str(var))
    os.environ["LOG_LEVEL"] = "WARNING"
    # the settings bench/http.py serves with: its sessions are signed with its key (another key
    # makes every session "corrupted" and every page a visitor's)
    os.environ.update(SECRET_KEY="bench-http-not-secret", DEBUG="false", ALLOWED_HOSTS="127.0.0.1,localhost")
    sys.path.insert(0, str(ROOT))
    import django
    from django.conf import settings

    if args.without:
        settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if m not in args.without]
    if args.plain_token:
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_AUTHENTICATION_CLASSES": [
            "rest_framework.authentication.TokenAuthentication", "rest_framework.authentication.SessionAuthentication"]}
    django.setup()
    from django.test import Client

    games = json.loads((var / "project.json").read_text())
    client = Client(HTTP_HOST="127.0.0.1")
    rng = random.Random(2)

    def get(game: dict, seat: int) -> dict:
        r = client.get(f"/api/games/{game['id']}/", HTTP_AUTHORIZATION=f"Token {game['tokens'][seat]}")
        return r.json()

    def turn(game: dict) -> int:
        """One player's turn on the game, a roll then its direction, as two timed requests
        (one when the game waits for a direction); 0 when the game is over."""
        data = get(game, 0)
        if data["status"] != "active":
            return 0
        seat = 0 if data["to_move"] == "yellow" else 1
        token = f"Token {game['tokens'][seat]}"
        done = 0
        if data["phase"] == "dice":
            held = len(data["players"][seat]["dice"])
            body = {"ply": data["ply"], "change": "add" if held < 2 else "keep",
                    "reroll": [] if held < 2 else list(range(held))}
            answer = timed(client.post, f"/api/games/{game['id']}/roll/", body, content_type="application/json",
                           HTTP_AUTHORIZATION=token)
            done += 1
            if answer.get("phase") != "direction":
                return done
        else:
            answer = get(game, seat)
        allowed = [o["direction"] for o in answer["options"] if o["allowed"]] or [answer["options"][0]["direction"]]
        body = {"ply": answer["ply"], "direction": allowed[0]}
        timed(client.post, f"/api/games/{game['id']}/direction/", body, content_type="application/json",
              HTTP_AUTHORIZATION=token)
        return done + 1

    profiler = cProfile.Profile()
    spent = {"cpu": 0.0, "wall": 0.0}

    def timed(call: Any, *call_args: Any, **kwargs: Any) -> dict:
        c0, w0 = time.process_time(), time.perf_counter()
        if args.no_profile:
            response = call(*call_args, **kwargs)
        else:
            profiler.enable()
            response = call(*call_args, **kwargs)
            profiler.disable()
        spent["cpu"] += time.process_time() - c0
        spent["wall"] += time.perf_counter() - w0
        assert response.status_code == 200, response.content[:300]
        return response.json() if response.get("Content-Type", "").startswith("application/json") else {}

    # warm up: imports, connections, and the per-process caches of courses and board drawings
    # as a server's processes have them after the benchmark's first seconds (every game seen)
    for game in games if args.scenario == "html" else games[:20]:
        if args.scenario == "html":
            client.cookies["sessionid"] = game["sessions"][0]
            client.get(f"/games/{game['id']}/")
        else:
            get(game, 0)
    done = 0
    order = games[:]
    rng.shuffle(order)
    i = 0
    done_before_pass = -1
    while done < args.requests:
        if i % len(order) == 0:
            if done == done_before_pass:  # a pass over every game played no turn: all are over
                if done == 0:
                    raise SystemExit("every game is over: fill again with python bench/http.py (without --keep)")
                print(f"every game is over after {done} of the {args.requests} requests asked")
                break
            done_before_pass = done
        game = order[i % len(order)]
        i += 1
        if args.scenario == "turns":
            done += turn(game)
        elif args.scenario == "api":
            seat = rng.randrange(2)
            timed(client.get, f"/api/games/{game['id']}/", HTTP_AUTHORIZATION=f"Token {game['tokens'][seat]}")
            done += 1
        else:
            client.cookies["sessionid"] = game["sessions"][rng.randrange(2)]
            timed(client.get, f"/games/{game['id']}/")
            done += 1
    print(f"{args.scenario}: {done} requests, CPU {spent['cpu'] * 1000 / done:.2f} ms and wall "
          f"{spent['wall'] * 1000 / done:.2f} ms per request "
          + ("" if args.no_profile else " (profiled: slower than bare)"))
    if args.no_profile:
        return
    stats = pstats.Stats(profiler).sort_stats(args.sort)
    by_package: dict[str, float] = {}
    for (filename, _line, _name), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        parts = filename.split("site-packages/")
        key = parts[1].split("/")[0] if len(parts) > 1 else filename.replace(str(ROOT) + "/", "").split("/")[0]
        if key.startswith("{") or key.startswith("<"):
            key = "builtins"
        elif "python3.11" in key or key.startswith("/"):
            key = "stdlib"
        by_package[key] = by_package.get(key, 0.0) + tottime
    total = sum(by_package.values())
    print("own time by package (profiled):")
    for key, seconds in sorted(by_package.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {key:28} {seconds * 1000 / done:6.2f} ms/request  {seconds / total:5.1%}")
    stats.print_stats(args.top)
    if args.callers:
        stats.print_callers(args.callers)
    if args.callees:
        stats.print_callees(args.callees)


if __name__ == "__main__":
    main()
