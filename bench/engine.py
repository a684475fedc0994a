"""Rules-engine speed on one core: turns per second and complete games per second.

    python bench/engine.py [--seconds 5] [--turns-only]

A *turn* is the dice choice and roll, the legal directions (R7) and applying one of them.
It is measured twice: as the rules need it, and with the full previews of all three directions
(reach, path, crash, damage, buoys, finish) that the game page and the API show. The dice
policy is trivial (hold two dice, re-roll both) so that the figure measures the engine, not a
player. Goal (issue 2): at least 20,000 turns/s (two boats, the online rules). The same turn is
also measured in races of four boats of the boxed game (R15–R18), and whole random series.

The first figure is also the machine's speed: ``--turns-only`` prints only it, and .ci/run does
so before and after its run, so that a CI run's time can be read against the machine it ran on
(docs/performance.md, "The test suite's time").
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path

sys.path.pop(0)  # not bench/: its http.py would hide the standard library's
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import Change, DiceChoice, GameState, Phase, RaceRules, RandomDice, Series, new_course, new_courses
from games.engine.players import RandomPlayer, play_game, play_series

GOAL_TURNS = 20_000


def turns_per_second(seconds: float, rng: random.Random, with_previews: bool = False, boats: int = 2) -> tuple[float, int]:
    courses = [new_course("standard" if i % 2 else "expert", None, rng) for i in range(8)]
    dice = RandomDice(rng)
    turns = 0
    elapsed = 0.0
    index = 0
    while elapsed < seconds:
        course = courses[index % len(courses)]
        index += 1
        if boats == 2:
            state = GameState.initial(course).place(course.line[0], 0).place(course.line[2], 0)
        else:
            colors = ("yellow", "red", "orange", "purple", "black", "green")[:boats]
            state = GameState.initial(course, colors, RaceRules(), index % boats)
            for cell in course.line[:boats]:
                state = state.place(cell, 0)
        start = time.perf_counter()
        while not state.over:
            held = len(state.boat.dice)
            if state.boat.moves == 0 or held < 2:
                choice = DiceChoice(Change.ADD)
            elif held > 2:
                choice = DiceChoice(Change.REMOVE, remove=0, reroll=tuple(range(1, held)))
            else:
                choice = DiceChoice(Change.KEEP, reroll=(0, 1))
            state, move = state.choose_dice(choice, dice)
            if move is None:
                if with_previews:
                    allowed = [o.direction for o in state.options() if o.allowed]
                else:
                    allowed = state.allowed_directions()
                state, move = state.choose_direction(allowed[turns % len(allowed)])
            turns += 1
            assert state.phase in (Phase.DICE, Phase.OVER)
        elapsed += time.perf_counter() - start
    return turns / elapsed, turns


def games_per_second(seconds: float, rng: random.Random) -> tuple[float, float]:
    courses = [new_course("standard", None, rng) for _ in range(8)]
    games = 0
    moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        course = courses[games % len(courses)]
        game = play_game(course, [RandomPlayer(rng), RandomPlayer(rng)], RandomDice(rng))
        games += 1
        moves += len(game.moves)
    return games / (time.perf_counter() - start), moves / games


def series_per_second(seconds: float, rng: random.Random, boats: int = 4) -> tuple[float, float]:
    lakes = [new_courses("standard", rng=rng) for _ in range(3)]
    done = 0
    moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        series = Series.start(lakes[done % len(lakes)], boats, done % boats)
        game = play_series(series, [RandomPlayer(rng)] * boats, RandomDice(rng))
        done += 1
        moves += sum(len(log.moves) for log in game.logs)
    return done / (time.perf_counter() - start), moves / done


def courses_per_second(count: int, rng: random.Random) -> float:
    start = time.perf_counter()
    for i in range(count):
        new_course("standard" if i % 2 else "expert", None, rng)
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--turns-only", action="store_true",
                        help="the first figure only: the machine's speed, which .ci/run prints beside its time")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    rng = random.Random(args.seed)
    print(f"Python {platform.python_version()} ({platform.python_implementation()}), one core")
    tps, turns = turns_per_second(args.seconds, rng)
    print(f"turns per second (dice + roll + legal directions + move): {tps:,.0f} over {turns:,} turns "
          f"— {tps / GOAL_TURNS:.2f}× the goal of {GOAL_TURNS:,}")
    if args.turns_only:
        return
    tps, turns = turns_per_second(args.seconds, rng, with_previews=True)
    print(f"turns per second with all three previews as shown to players: {tps:,.0f} over {turns:,} turns")
    gps, avg = games_per_second(args.seconds, rng)
    print(f"complete random games per second: {gps:,.1f} (average {avg:.1f} moves per game)")
    tps, turns = turns_per_second(args.seconds, rng, boats=4)
    print(f"turns per second in races of four boats (R15-R18): {tps:,.0f} over {turns:,} turns")
    sps, avg = series_per_second(args.seconds, rng)
    print(f"complete random series of four boats per second: {sps:,.1f} (average {avg:.0f} moves per series)")
    print(f"new validated courses per second (lake + course + validator): {courses_per_second(40, rng):,.1f}")


if __name__ == "__main__":
    main()
