"""The engine's bots: legal, exact about the dice, careful about sinking."""

from __future__ import annotations

import json
import random

import pytest

from games.engine import Change, DiceChoice, FixedDice, RandomDice, new_course
from games.engine.bot import ExpectimaxPlayer, make_player, roll_outcomes
from games.engine.hexgrid import direction_by_name as d
from games.engine.players import play_game
from games.engine.record import verify
from games.engine.route import MoveMap, RouteMap

from .helpers import Map


def test_roll_outcomes_are_exact():
    for n in range(5):
        outcomes = roll_outcomes(n)
        assert abs(sum(p for _, p in outcomes) - 1) < 1e-12
    assert dict(roll_outcomes(2))[(1, 2)] == pytest.approx(2 / 9)


@pytest.mark.parametrize("level", ["easy", "normal", "strong"])
def test_bots_play_whole_legal_games(level):
    rng = random.Random(3)
    course = new_course("expert", "B", rng)
    game = play_game(course, [make_player(level, random.Random(1)), make_player("easy", random.Random(2))], RandomDice(rng))
    assert game.state.over
    assert verify(json.loads(json.dumps(game.record()))).ok


def test_the_move_map_counts_moves_not_cells():
    course = new_course("standard", "A", random.Random(5))
    moves, cells = MoveMap(course), RouteMap(course)
    start = course.line[2]
    m = min(moves.distance(1, start, h) for h in range(6))
    c = min(cells.distance(1, start, h) for h in range(6))
    assert 0 < m < c  # a move can cover many cells
    assert moves.distance(4, course.line[0], 0) <= 1


NARROW = """
. . . . . . . . . . . .
 . . . . . . . . . . . .
# # # # # # # # # # # #
 . . R . . # . . . . . .
# # # # # # # # # # # #
 . . . . . . . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
0 = = = = F . . 1 2 3 Y
"""


def test_with_three_damage_the_strong_bot_does_not_risk_sinking():
    """R12: Red (3 damage) holds 3 3 in a corridor with two free cells ahead. Keeping the dice
    crashes for sure; re-rolling risks it; removing a die and keeping the other... the bot
    must pick a choice whose every roll is safe when one exists (remove one, keep... total ≤ 2)."""
    m = Map(NARROW)
    state = m.state("red", {"yellow": {}, "red": {"dice": (1, 3), "heading": d("E"), "damage": 3}})
    choice = ExpectimaxPlayer(2, random.Random(0)).dice(state)
    for total in choice.distribution((1, 3)):
        options = state.options_for_total(total)
        assert any(o.allowed and not o.crash for o in options), f"{choice} can crash with total {total}"
    _, move = state.choose_dice(choice, FixedDice([3] * choice.rolls))
    assert not (move and move.sunk)


def test_bots_never_pass_on_the_spot_with_speed_0():
    m = Map(NARROW)
    state = m.state("red", {"yellow": {}, "red": {"dice": (), "heading": d("E"), "moves": 5}})
    rolled, _ = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    for level in ("normal", "strong"):
        assert make_player(level, random.Random(0)).direction(rolled) != d("E")
