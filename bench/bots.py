"""Bot strength, measured: matches between levels on freshly generated courses.

    python bench/bots.py [--games 400] [--pairs strong:random strong:easy normal:easy] [--workers 2]
    python bench/bots.py --boats 4 [--series] [--games 100] [--pairs strong:random strong:easy]

Each match alternates colours and lake sides; every game gets a new lake and course. Prints
each side's win rate with a 95% Wilson interval (draws count half), average moves to finish
(games that finished), average damage, and the time per move (dice + direction) on one core.
Goals (issue 5): strong beats random > 99% and easy (greedy) > 75% of 400 games, normal beats
easy > 60%, and a strong move takes under 1 s.

With ``--boats N`` (3 to 6) a pair ``a:b`` is one ``a`` against N − 1 ``b`` in races of the boxed
game (R15–R19; ``--series``: series of three races, R20), the ``a`` seat going round the table
and the start player drawn. It prints how often ``a`` is first (race or series; a shared first
place counts by share) against the 1/N of an equal player, its average position, points (R19:
race points with k = 1, or series points) beside the average of the ``b`` players, and how often
it finishes and sinks. ``strong-plain`` is the strong bot valuing a race as the two-player game.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.pop(0)  # not bench/: its http.py would hide the standard library's
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import RandomDice, Series, new_course, new_courses
from games.engine.bot import make_player
from games.engine.lake import LETTERS
from games.engine.players import play_game, play_series
from games.engine.route import MapCache, RouteMap

GOALS = {("strong", "random"): 0.99, ("strong", "easy"): 0.75, ("normal", "easy"): 0.60}


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def one_game(args: tuple[str, str, int, int]) -> dict[str, object]:
    a, b, index, seed = args
    rng = random.Random(seed * 1_000_003 + index)
    course = new_course("standard" if index % 2 else "expert", None, rng)
    route = RouteMap(course)
    names = [a, b] if index % 2 == 0 else [b, a]  # alternate colours: seat 0 is Yellow
    players = [make_player(n, random.Random(rng.random()), route) for n in names]
    timing = {a: [0.0, 0, 0.0], b: [0.0, 0, 0.0]} if a != b else {a: [0.0, 0, 0.0]}
    pending: dict[str, float] = {}
    for name, player in zip(names, players, strict=True):
        for method in ("dice", "direction"):
            inner = getattr(player, method)

            def timed(state, inner=inner, name=name, method=method):  # type: ignore[no-untyped-def]
                start = time.perf_counter()
                out = inner(state)
                spent = time.perf_counter() - start
                timing[name][0] += spent
                if method == "dice":
                    timing[name][1] += 1
                    pending[name] = spent
                else:  # a move is its dice step and its direction step
                    spent += pending.pop(name, 0.0)
                timing[name][2] = max(timing[name][2], spent)
                return out

            setattr(player, method, timed)
    game = play_game(course, players, RandomDice(rng))
    outcome = game.state.outcome
    assert outcome is not None
    boats = game.state.boats
    return {
        "winner": names[outcome.winner] if outcome.winner is not None else None,
        "termination": outcome.termination.value,
        "finish_moves": {names[i]: boats[i].moves for i in range(2) if boats[i].finished},
        "damage": {names[i]: boats[i].damage for i in range(2)},
        "timing": timing,
    }


def match(a: str, b: str, games: int, seed: int, workers: int) -> dict[str, object]:
    jobs = [(a, b, i, seed) for i in range(games)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(one_game, jobs, chunksize=4))
    else:
        results = [one_game(j) for j in jobs]
    score = sum(1.0 if r["winner"] == a else 0.5 if r["winner"] is None else 0.0 for r in results)
    low, high = wilson(score, games)
    finish = [r["finish_moves"][a] for r in results if a in r["finish_moves"]]  # type: ignore[operator,index]
    damage = [r["damage"][a] for r in results]  # type: ignore[index]
    seconds = sum(r["timing"][a][0] for r in results)  # type: ignore[index]
    moves = sum(r["timing"][a][1] for r in results)  # type: ignore[index]
    worst = max(r["timing"][a][2] for r in results)  # type: ignore[index]
    endings: dict[str, int] = {}
    for r in results:
        key = f"{r['winner'] or 'draw'} by {r['termination']}"
        endings[key] = endings.get(key, 0) + 1
    return {
        "a": a, "b": b, "games": games, "score": score, "rate": score / games, "low": low, "high": high,
        "finish": statistics.mean(finish) if finish else float("nan"), "finished": len(finish),
        "damage": statistics.mean(damage), "ms": 1000 * seconds / max(moves, 1), "worst": worst, "endings": endings,
    }


def one_race(args: tuple[str, str, int, int, int, bool]) -> dict[str, object]:
    """One ``a`` against ``boats`` − 1 ``b`` in a race (or a series) of the boxed game."""
    a, b, boats, index, seed, series = args
    rng = random.Random(seed * 1_000_003 + index)
    letters = LETTERS if series else [rng.choice(LETTERS)]
    courses = new_courses("standard" if index % 2 else "expert", letters, rng)
    seat = index % boats  # the a seat goes round the table
    names = [a if i == seat else b for i in range(boats)]
    maps = MapCache()
    players = [make_player(n, random.Random(rng.random()), maps=maps) for n in names]
    spent = [0.0, 0]
    inner_dice, inner_direction = players[seat].dice, players[seat].direction

    def timed_dice(state):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        out = inner_dice(state)
        spent[0] += time.perf_counter() - start
        spent[1] += 1
        return out

    def timed_direction(state):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        out = inner_direction(state)
        spent[0] += time.perf_counter() - start
        return out

    players[seat].dice, players[seat].direction = timed_dice, timed_direction  # type: ignore[method-assign]
    game = play_series(Series.start(courses, boats, rng.randrange(boats)), players, RandomDice(rng))
    table = {s.seat: s for s in game.series.standings()}
    firsts = [s for s in table.values() if s.place == 1]
    races = game.series.scores()
    mine = [next(x for x in race if x.color == game.series.colors[seat]) for race in races]
    return {
        "first": (1 / len(firsts)) if table[seat].place == 1 else 0.0,
        "position": [x.position for x in mine],
        "points": table[seat].points,
        "others": sum(s.points for i, s in table.items() if i != seat) / (boats - 1),
        "finished": sum(x.finished for x in mine), "sunk": sum(x.sunk for x in mine), "races": len(mine),
        "seconds": spent[0], "moves": spent[1],
    }


def race_match(a: str, b: str, boats: int, games: int, seed: int, workers: int, series: bool) -> dict[str, object]:
    jobs = [(a, b, boats, i, seed, series) for i in range(games)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(one_race, jobs, chunksize=2))
    else:
        results = [one_race(j) for j in jobs]
    first = sum(r["first"] for r in results)  # type: ignore[misc]
    low, high = wilson(first, games)
    positions = [p for r in results for p in r["position"] if p is not None]  # type: ignore[attr-defined]
    races = sum(r["races"] for r in results)  # type: ignore[misc]
    return {
        "first": first / games, "low": low, "high": high,
        "position": statistics.mean(positions) if positions else float("nan"),
        "points": statistics.mean(r["points"] for r in results),  # type: ignore[misc]
        "others": statistics.mean(r["others"] for r in results),  # type: ignore[misc]
        "finished": sum(r["finished"] for r in results) / races,  # type: ignore[misc]
        "sunk": sum(r["sunk"] for r in results) / races,  # type: ignore[misc]
        "ms": 1000 * sum(r["seconds"] for r in results) / max(sum(r["moves"] for r in results), 1),  # type: ignore[misc]
    }


def races(args: argparse.Namespace) -> None:
    kind = "series of three races" if args.series else "single races"
    print(f"{args.games} {kind} of {args.boats} boats per match (one a against {args.boats - 1} b), fresh lakes, "
          f"seed {args.seed}; an equal player is first {1 / args.boats:.0%} of the time")
    print(f"{'match':<24}{'first':>7}{'95% CI':>17}{'position':>10}{'points':>8}{'b points':>10}{'finished':>10}"
          f"{'sunk':>7}{'ms/move':>9}")
    for pair in args.pairs:
        a, b = pair.split(":")
        start = time.perf_counter()
        r = race_match(a, b, args.boats, args.games, args.seed, args.workers, args.series)
        print(f"{a + ' v ' + str(args.boats - 1) + ' ' + b:<24}{r['first']:>7.1%}   [{r['low']:.1%}, {r['high']:.1%}]"
              f"{r['position']:>10.2f}{r['points']:>8.2f}{r['others']:>10.2f}{r['finished']:>10.1%}{r['sunk']:>7.1%}"
              f"{r['ms']:>9.1f}   ({time.perf_counter() - start:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--pairs", nargs="+", default=None)
    parser.add_argument("--boats", type=int, default=2, help="3-6: races of the boxed game, one a against b's")
    parser.add_argument("--series", action="store_true", help="with --boats: series of three races")
    args = parser.parse_args()
    if args.boats > 2:
        args.pairs = args.pairs or ["strong:random", "strong:easy"]
        races(args)
        return
    args.pairs = args.pairs or ["strong:random", "strong:easy", "normal:easy", "normal:random", "easy:random"]
    print(f"{args.games} games per match, fresh courses, colours and lake sides alternating, seed {args.seed}")
    print(f"{'match':<18}{'score':>9}{'win rate':>10}{'95% CI':>17}{'goal':>7}{'finish in':>11}{'damage':>8}"
          f"{'ms/move':>9}{'slowest':>9}")
    for pair in args.pairs:
        a, b = pair.split(":")
        start = time.perf_counter()
        r = match(a, b, args.games, args.seed, args.workers)
        goal = GOALS.get((a, b))
        mark = "" if goal is None else (f"{goal:.0%} " + ("ok" if r["rate"] > goal else "MISSED"))
        print(
            f"{a + ' v ' + b:<18}{r['score']:>9.1f}{r['rate']:>10.1%}   [{r['low']:.1%}, {r['high']:.1%}]"
            f"{mark:>10}{r['finish']:>9.1f} mv{r['damage']:>8.2f}{r['ms']:>9.1f}{1000 * r['worst']:>7.0f}ms"
            f"   ({time.perf_counter() - start:.0f} s; {', '.join(f'{k} {v}' for k, v in sorted(r['endings'].items()))})"
        )


if __name__ == "__main__":
    main()
