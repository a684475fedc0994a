"""Command line: ``python -m games.engine simulate|verify|show``.

    python -m games.engine simulate --games 10 --seed 1 --out records/
    python -m games.engine verify records/*.json
    python -m games.engine show records/game-0001.json [--move N]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from .course import new_course
from .dice import RandomDice
from .hexgrid import DIRECTION_NAMES
from .players import GreedyPlayer, Player, RandomPlayer, play_game
from .record import course_from_json, verify
from .text import describe, draw

PLAYERS = {"random": RandomPlayer, "greedy": GreedyPlayer}


def simulate(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results: Counter[str] = Counter()
    for n in range(1, args.games + 1):
        course = new_course(args.side, args.letter, rng)
        names = list(args.players)
        if n % 2 == 0:
            names.reverse()  # alternate colours
        players: list[Player] = [PLAYERS[name](rng) for name in names]
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
        m = moves[-1]
        print(
            f"after move {len(moves)}: {m['color']} {m['number']} rolled {m['dice']} and went "
            f"{DIRECTION_NAMES[m['direction']]} {len(m['path'])} cells"
            + (f", crashed (+{m['damage']} damage)" if m["crash"] else "")
        )
    if record.get("result") and args.move is None:
        print(f"result: {record['result']['reason']}, points {record['result']['points']}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.engine", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("simulate", help="play complete games and write their records")
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="records")
    p.add_argument("--side", choices=("standard", "expert"), default="standard")
    p.add_argument("--letter", choices=("A", "B", "C"), default=None)
    p.add_argument(
        "--players", nargs=2, choices=sorted(PLAYERS), default=("greedy", "random"),
        help="two of: random, greedy (colours alternate between games)",
    )
    p.set_defaults(func=simulate)
    p = sub.add_parser("verify", help="replay records and report the first wrong move")
    p.add_argument("files", nargs="+")
    p.set_defaults(func=verify_files)
    p = sub.add_parser("show", help="draw a record's lake and boats as text")
    p.add_argument("file")
    p.add_argument("--move", type=int, default=None, help="show the position after this many moves")
    p.set_defaults(func=show)
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
