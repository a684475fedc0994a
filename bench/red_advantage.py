"""Does moving first help? Red's score in games between equal players.

    python bench/red_advantage.py [--games 400] [--level strong]

Plays bot self-play games on fresh courses (equal players, so any difference is the colour)
and prints Red's score with a 95% Wilson interval, and what a rating system would see: the
Elo-equivalent advantage 400·log10(s / (1 − s)). docs/ratings.md uses the figure to decide
whether the expected score should account for it. ``manage.py red_advantage`` prints the same
from the site's finished rated games.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.pop(0)  # not bench/: its http.py would hide the standard library's
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bots import wilson  # bench/ is not on sys.path (see above); the project root is
from games.engine import RandomDice, new_course
from games.engine.bot import make_player
from games.engine.players import play_game
from games.engine.route import RouteMap


def red_score(args: tuple[str, int, int]) -> float:
    level, index, seed = args
    rng = random.Random(seed * 7_919 + index)
    course = new_course("standard" if index % 2 else "expert", None, rng)
    route = RouteMap(course)
    game = play_game(course, [make_player(level, random.Random(rng.random()), route) for _ in range(2)], RandomDice(rng))
    outcome = game.state.outcome
    assert outcome is not None
    return 0.5 if outcome.winner is None else 1.0 if outcome.winner == 1 else 0.0


def elo_equivalent(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return 400 * math.log10(score / (1 - score))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--level", default="strong")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with ProcessPoolExecutor(2) as pool:
        scores = list(pool.map(red_score, [(args.level, i, args.seed) for i in range(args.games)], chunksize=4))
    total = sum(scores)
    low, high = wilson(total, len(scores))
    print(f"{args.games} {args.level} v {args.level} games: Red scores {total / len(scores):.1%} "
          f"[{low:.1%}, {high:.1%}], Elo-equivalent {elo_equivalent(total / len(scores)):+.0f} "
          f"[{elo_equivalent(low):+.0f}, {elo_equivalent(high):+.0f}]")


if __name__ == "__main__":
    main()
