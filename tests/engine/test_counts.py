"""Counted regression data for races of the boxed game (python-chess's perft, STYLE.md): on a fixed
course and start, the number of legal outcomes after each number of turns — every legal dice
choice by index (R6), every sequence of rolled values, every allowed direction (R7) — with the
distinct positions reached, the crashes (R9) and the moves cut short by boats in the way (R17).
Any drift in the rules changes a count at once.

The boats stand side by side on the start line (the top row) heading east along it: the first
mover (Red with three boats: it starts and places last, R15) goes east, towards the finish buoy
two cells away (a 3 crashes), and the boats behind it pass through, and end behind, one another.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from functools import cache

import pytest

from games.engine import FixedDice, GameState, RaceRules, new_course
from games.engine.race import start_rows

COLORS = ("yellow", "red", "orange", "purple", "black", "green")


@cache
def course():
    return new_course("standard", "B", random.Random(16))


def start(boats: int, start_player: int) -> GameState:
    state = GameState.initial(course(), COLORS[:boats], RaceRules(), start_player)
    for cell in course().line[:boats]:
        state = state.place(cell, 0)
    return state


def perft(state: GameState, depth: int, seen: set[object], stats: Counter[str]) -> int:
    if depth == 0 or state.over:
        seen.add(state.boats)
        return 1
    leaves = 0
    for choice in state.legal_dice_choices():
        for rolled in itertools.product((1, 2, 3), repeat=choice.rolls):
            rolled_state, move = state.choose_dice(choice, FixedDice(rolled))
            if move is not None:
                moves = [(rolled_state, move)]
            else:
                moves = [rolled_state.choose_direction(d) for d in rolled_state.allowed_directions()]
            for after, made in moves:
                assert made is not None
                stats["crashes"] += made.crash
                stats["cut short"] += len(made.path) < made.reach
                leaves += perft(after, depth - 1, seen, stats)
    return leaves


# (boats, start player, turns): (outcomes, distinct positions, crashes, moves cut short)
COUNTS = {
    (3, 1, 1): (3, 3, 1, 0),
    (3, 1, 2): (12, 12, 1, 3),
    (3, 1, 3): (72, 72, 1, 15),
    (3, 1, 4): (1440, 662, 1081, 111),
    (3, 1, 5): (32160, 5823, 20071, 4253),
    (4, 2, 1): (6, 6, 4, 0),
    (4, 2, 2): (18, 18, 10, 6),
    (4, 2, 3): (72, 72, 10, 33),
    (4, 2, 4): (432, 432, 10, 132),
    (4, 2, 5): (5832, 4248, 1306, 132),
}


@pytest.mark.parametrize(("boats", "start_player", "turns"), list(COUNTS))
def test_counted_outcomes_of_the_first_turns_of_a_race(boats, start_player, turns):
    seen: set[object] = set()
    stats: Counter[str] = Counter()
    leaves = perft(start(boats, start_player), turns, seen, stats)
    assert (leaves, len(seen), stats["crashes"], stats["cut short"]) == COUNTS[(boats, start_player, turns)]


def test_counted_start_cells_for_six_boats():
    """R16: six boats on a five-cell line: the row behind opens from the first placement on."""
    state = GameState.initial(course(), COLORS, RaceRules(), 0)
    behind = next(iter(start_rows(course())))
    counts = []
    while state.phase.value == "place":
        cells = state.free_start_cells()
        counts.append(len(cells))
        state = state.place(cells[0], 0)
    assert counts == [5 + len(behind) - k for k in range(6)]
    assert len(behind) == 5  # one cell behind the line is land
