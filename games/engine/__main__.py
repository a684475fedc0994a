"""Command line: ``python -m games.engine simulate|verify|show``.

    python -m games.engine simulate --games 10 --seed 1 --out records/
    python -m games.engine simulate --boats 4 --series --players strong random --games 5 --out series/
    python -m games.engine verify records/*.json series/*.json
    python -m games.engine show records/game-0001.json [--move N]
    python -m games.engine show series/series-0001.json [--race B] [--move N]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .bot import LEVELS, make_player
from .course import new_course, new_courses
from .dice import RandomDice
from .hexgrid import DIRECTION_NAMES, Hex
from .lake import LETTERS
from .players import GreedyPlayer, Player, RandomPlayer, play_game, play_series
from .record import SERIES_VERSION, course_from_json, courses_from_json, verify
from .route import MapCache
from .series import SERIES_COLORS, Series
from .text import describe, draw

PLAYERS = ("random", "greedy", *LEVELS)


def _player(name: str, rng: random.Random, maps: MapCache) -> Player:
    if name == "random":
        return RandomPlayer(rng)
    if name == "greedy":
        return GreedyPlayer(rng)
    return make_player(name, rng, maps=maps)


def simulate(args: argparse.Namespace) -> int:
    if args.series or args.boats != 2:
        return simulate_series(args)
    rng = random.Random(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results: Counter[str] = Counter()
    kinds = list(args.players) if len(args.players) > 1 else [args.players[0]] * 2
    if len(kinds) != 2:
        print("the online game has two players: give one or two --players")
        return 2
    maps = MapCache()
    for n in range(1, args.games + 1):
        course = new_course(args.side, args.letter, rng)
        names = list(kinds)
        if n % 2 == 0:
            names.reverse()  # alternate colours
        players: list[Player] = [_player(name, rng, maps) for name in names]
        game = play_game(course, players, RandomDice(rng), names=names)
        record = game.record(meta={"simulation_seed": args.seed, "game": n})
        path = out / f"game-{n:04d}.json"
        path.write_text(json.dumps(record, indent=1))
        outcome = game.state.outcome
        assert outcome is not None
        winner = names[outcome.winner] if outcome.winner is not None else "draw"
        results[winner] += 1
        print(f"{path}: {outcome.reason} ({len(game.moves)} moves)")
    summary = ", ".join(f"{k} {v}" for k, v in sorted(results.items()))
    print(f"{args.games} games: {summary}")
    return 0


def simulate_series(args: argparse.Namespace) -> int:
    """Series of three races (``--series``) or single races of the boxed game for 2–6 boats;
    the players' kinds go round the seats, shifted by one seat each series."""
    boats = args.boats
    if not 2 <= boats <= len(SERIES_COLORS):
        print(f"--boats must be 2 to {len(SERIES_COLORS)}")
        return 2
    rng = random.Random(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    wins: Counter[str] = Counter()
    points: defaultdict[str, list[int]] = defaultdict(list)
    maps = MapCache()
    kind = "series" if args.series else "race"
    for n in range(1, args.games + 1):
        letters = LETTERS if args.series else [args.letter or rng.choice(LETTERS)]
        courses = new_courses(args.side, letters, rng)
        names = [args.players[(seat + n - 1) % len(args.players)] for seat in range(boats)]
        series = Series.start(courses, boats, rng.randrange(boats), True if boats == 2 else args.variant)
        players = [_player(name, rng, maps) for name in names]
        game = play_series(series, players, RandomDice(rng), names=names)
        record = game.record(meta={"simulation_seed": args.seed, kind: n})
        path = out / f"{kind}-{n:04d}.json"
        path.write_text(json.dumps(record, indent=1))
        series = game.series
        for standing in series.standings():
            points[names[standing.seat]].append(standing.points)
        winner = series.winner
        wins[names[series.seat_of(winner)] if winner else "shared"] += 1
        moves = sum(len(log.moves) for log in game.logs)
        print(f"{path}: {series.result_text()} ({moves} moves in {len(series.races)} races; "
              + ", ".join(f"{c} {names[i]}" for i, c in enumerate(series.colors)) + ")")
    summary = ", ".join(f"{k} {v}" for k, v in sorted(wins.items()))
    average = ", ".join(f"{k} {sum(v) / len(v):.1f}" for k, v in sorted(points.items()))
    plural = "series" if args.series else "races"
    print(f"{args.games} {plural} of {boats} boats: first place {summary}; average points {average}")
    return 0


def verify_files(args: argparse.Namespace) -> int:
    bad = 0
    for name in args.files:
        try:
            record = json.loads(Path(name).read_text())
        except (OSError, ValueError) as exc:
            print(f"{name}: cannot read: {exc}")
            bad += 1
            continue
        result = verify(record)
        print(f"{name}: {result.message}")
        bad += not result.ok
    return 1 if bad else 0


def show(args: argparse.Namespace) -> int:
    record = json.loads(Path(args.file).read_text())
    if record.get("version") == SERIES_VERSION:
        return show_race(record, args)
    if args.race is not None:
        print("--race is for series records (version 2)")
        return 2
    course = course_from_json(record)
    positions = {p["color"]: (p["cell"][0], p["cell"][1]) for p in record["placements"]}
    moves = record["moves"] if args.move is None else record["moves"][: args.move]
    path: list[tuple[int, int]] = []
    for move in moves:
        positions[move["color"]] = (move["final"][0], move["final"][1])
        path = [(c[0], c[1]) for c in move["path"]]
    print(describe(course))
    print(draw(course, {cell: color for color, cell in positions.items()}, path))
    if moves:
        _print_move(len(moves), moves[-1])
    if record.get("result") and args.move is None:
        print(f"result: {record['result']['reason']}, points {record['result']['points']}")
    return 0


def _print_move(index: int, m: Mapping[str, Any]) -> None:
    print(
        f"after move {index}: {m['color']} {m['number']} rolled {m['dice']} and went "
        f"{DIRECTION_NAMES[m['direction']]} {len(m['path'])} cells"
        + (f", crashed (+{m['damage']} damage)" if m["crash"] else "")
        + (", finished" if m["finished"] else "") + (", sank" if m["sunk"] else "")
    )


def show_race(record: Mapping[str, Any], args: argparse.Namespace) -> int:
    """One race of a series record: the boats on the lake after ``--move`` moves of that race
    (boats lifted off are not drawn, R18), its result and the series table."""
    races = record["races"]
    if args.race is None:
        index = len(races) - 1
    elif args.race.upper() in LETTERS and LETTERS.index(args.race.upper()) < len(races):
        index = LETTERS.index(args.race.upper())
    else:
        print(f"no race {args.race} in this record (it has {', '.join(LETTERS[:len(races)])})")
        return 2
    race = races[index]
    course = courses_from_json(record, [record["courses"][index]])[0]
    moves = race["moves"] if args.move is None else race["moves"][: args.move]
    until = moves[-1]["ply"] if args.move is not None and moves else (-1 if args.move == 0 else None)
    events = [(p["ply"], "place", p) for p in race["placements"]]
    events += [(m["ply"], "move", m) for m in race["moves"]]
    events += [(d["ply"], "leave", d) for d in race["departures"]]
    positions: dict[str, Hex] = {}
    path: list[Hex] = []
    for ply, what, item in sorted(events, key=lambda e: e[0]):
        if until is not None and ply > until:
            break
        if what == "place":
            positions[item["color"]] = (item["cell"][0], item["cell"][1])
        elif what == "move":
            positions[item["color"]] = (item["final"][0], item["final"][1])
            path = [(c[0], c[1]) for c in item["path"]]
            if item["finished"] or item["sunk"]:
                del positions[item["color"]]  # lifted off (R18)
        else:
            positions.pop(item["color"], None)
    print(f"race {LETTERS[index]} of {len(races)} (x{race['multiplier']}), start player {race['start_player']}, "
          f"boats {', '.join(race['boats'])}; carried damage "
          + ", ".join(f"{c} {d}" for c, d in race["carried_damage"].items()))
    print(describe(course))
    print(draw(course, {cell: color for color, cell in positions.items()}, path))
    if moves:
        _print_move(len(moves), moves[-1])
    if race.get("result") and args.move is None:
        result = race["result"]
        print(f"race {LETTERS[index]}: {result['reason']}; points "
              + ", ".join(f"{c} {p}" for c, p in result["points"].items()))
    if record.get("result") and args.move is None:
        print(f"series: {record['result']['reason']}")
        for s in record["result"]["standings"]:
            marks = " ".join("-" if p is None else str(p) for p in s["positions"])
            print(f"  {s['place']}. {s['color']:<7} {s['points']:>3} points  positions {marks}"
                  + (f"  (left: {s['left']})" if s["left"] else ""))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.engine", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("simulate", help="play complete games (or series) and write their records")
    p.add_argument("--games", type=int, default=10, help="how many games, races or series")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="records")
    p.add_argument("--side", choices=("standard", "expert"), default="standard")
    p.add_argument("--letter", choices=LETTERS, default=None, help="the course (a single game or race)")
    p.add_argument(
        "--players", nargs="+", choices=PLAYERS, default=("greedy", "random"),
        help="kinds of player, going round the seats (colours alternate between games): "
             "random, greedy, easy, normal, strong",
    )
    p.add_argument("--boats", type=int, default=2,
                   help="2: the online two-player game (version 1 records) unless --series; 3-6: the boxed game")
    p.add_argument("--series", action="store_true", help="a series of three races, A, B and C (R15-R20)")
    p.add_argument("--variant", action="store_true", help="the score variant of R19 (always on with two boats)")
    p.set_defaults(func=simulate)
    p = sub.add_parser("verify", help="replay records and report the first wrong move")
    p.add_argument("files", nargs="+")
    p.set_defaults(func=verify_files)
    p = sub.add_parser("show", help="draw a record's lake and boats as text")
    p.add_argument("file")
    p.add_argument("--race", default=None, help="series records: the race to draw, A, B or C (default the last)")
    p.add_argument("--move", type=int, default=None, help="show the position after this many moves (of the race)")
    p.set_defaults(func=show)
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
