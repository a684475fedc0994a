"""Placing, dice, directions, crashes, sinking, the cut-off and points (R5–R9, R12–R14)."""

from __future__ import annotations

import random

import pytest

from games.engine import (
    CUTOFF_MOVES,
    Boat,
    Change,
    DiceChoice,
    FixedDice,
    GameOver,
    GameState,
    IllegalMove,
    Phase,
    Termination,
    new_course,
)
from games.engine.hexgrid import direction_by_name as d
from games.engine.hexgrid import left, right

from .helpers import Map

OPEN = """
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 . . . . . R . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
0 = = = = F . . 1 2 3 Y
"""


@pytest.fixture(scope="module")
def course():
    return new_course("standard", "A", random.Random(7))


def test_yellow_places_first_then_red_and_red_moves_first(course):
    """R5."""
    state = GameState.initial(course)
    assert state.phase is Phase.PLACE and state.boat.color == "yellow"
    state = state.place(course.line[0], 1)
    assert state.boat.color == "red"
    state = state.place(course.line[1], 2)
    assert state.phase is Phase.DICE and state.boat.color == "red"
    assert state.ply == 2


def test_placing_off_the_line_or_on_a_taken_cell_is_refused(course):
    """R5: a free start/finish-line cell, a heading 0..5; the error names the rule."""
    state = GameState.initial(course)
    off_line = next(c for c in course.free if c not in course.line_set)
    with pytest.raises(IllegalMove) as err:
        state.place(off_line, 0)
    assert err.value.rule == "R5" and err.value.field == "cell"
    with pytest.raises(IllegalMove) as err:
        state.place(course.line[0], 6)
    assert err.value.field == "heading"
    state = state.place(course.line[0], 0)
    with pytest.raises(IllegalMove, match="taken"):
        state.place(course.line[0], 0)


def placed(course) -> GameState:
    return GameState.initial(course).place(course.line[0], 0).place(course.line[3], 0)


def test_first_move_is_forced_to_add_one_die(course):
    """R6: "The first turn you automatically roll 1 die." """
    state = placed(course)
    assert state.legal_dice_choices() == [DiceChoice(Change.ADD)]
    with pytest.raises(IllegalMove) as err:
        state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    assert err.value.rule == "R6" and "first move" in err.value.message
    new, move = state.choose_dice(DiceChoice(Change.ADD), FixedDice([2]))
    boat = (move and new.boats[1]) or new.boat
    assert boat.dice == (2,)


def test_dice_choices_keep_add_remove_and_reroll_any_subset():
    """R6: keep, add one or remove one (naming which), and re-roll any subset."""
    m = Map(OPEN)
    state = m.state("red", {"yellow": {}, "red": {"dice": (3, 1)}})
    choices = state.legal_dice_choices()
    # keep: 4 subsets, add: 4 subsets, remove die 0 or 1: 2 subsets each
    assert len(choices) == 4 + 4 + 2 + 2
    assert DiceChoice(Change.REMOVE, remove=1, reroll=(0,)) in choices
    distinct = state.distinct_dice_choices()
    effects = {(c.kept_values((3, 1)), c.rolls) for c in choices}
    assert {(tuple(sorted(c.kept_values((3, 1)))), c.rolls) for c in distinct} == {
        (tuple(sorted(k)), n) for k, n in effects
    }


@pytest.mark.parametrize(
    ("choice", "field"),
    [
        (DiceChoice(Change.REMOVE, remove=5), "remove"),
        (DiceChoice(Change.REMOVE), "remove"),
        (DiceChoice(Change.KEEP, remove=0), "remove"),
        (DiceChoice(Change.KEEP, reroll=(2,)), "reroll"),
        (DiceChoice(Change.REMOVE, remove=0, reroll=(0,)), "reroll"),
    ],
)
def test_illegal_dice_choices_name_the_rule_and_change_nothing(choice, field):
    m = Map(OPEN)
    state = m.state("red", {"yellow": {}, "red": {"dice": (3, 1)}})
    with pytest.raises(IllegalMove) as err:
        state.choose_dice(choice, FixedDice([1, 1, 1]))
    assert err.value.rule == "R6" and err.value.field == field
    assert state.phase is Phase.DICE and state.boat.dice == (3, 1)


def test_rolled_dice_come_from_the_source_and_must_be_1_to_3():
    """R6: a die shows 1, 2 or 3; a source giving anything else is refused."""
    m = Map(OPEN)
    state = m.state("red", {"yellow": {}, "red": {"dice": (3,)}})
    with pytest.raises(IllegalMove, match="1 to 3"):
        state.choose_dice(DiceChoice(Change.ADD), FixedDice([4]))


def test_no_dice_after_a_crash_and_speed_0_only_turns():
    """R6, R7: with no dice the total is 0: the boat turns (or keeps) its heading, does
    not move, takes no damage; that still counts as a move."""
    m = Map(OPEN)
    state = m.state("red", {"yellow": {}, "red": {"dice": (), "heading": d("E"), "moves": 4}})
    rolled, move = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    assert move is None
    options = rolled.options()
    assert all(o.allowed and o.reach == 0 and not o.crash for o in options)
    new, move = rolled.choose_direction(left(d("E")))
    assert move is not None and move.path == () and move.final == m.boats["red"]
    red = new.boats[1]
    assert red.heading == d("NE") and red.moves == 5 and red.damage == 0


def test_when_every_direction_is_blocked_the_boat_turns_and_crashes_with_the_total():
    """R7, R9: every reach 0: all three allowed, the boat turns, does not move, takes T damage."""
    m = Map(
        """
. . . . . . . . . . . .
 . . # # . . . . . . . .
. . . R # . . . . . . .
 . . # # . . . . . . . .
"""
        + OPEN
    )
    state = m.state("red", {"yellow": {}, "red": {"dice": (2,), "heading": d("E")}})
    rolled, move = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    assert move is None and all(o.allowed and o.reach == 0 for o in rolled.options())
    new, move = rolled.choose_direction(right(d("E")))
    assert move is not None and move.crash and move.damage == 2 and move.final == m.boats["red"]
    assert new.boats[1].heading == d("SE") and new.boats[1].dice == ()


def test_a_direction_that_is_not_allowed_is_refused_with_the_allowed_ones():
    """R7: the error says which directions are allowed and why."""
    m = Map(
        """
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 . R . # . . . . . . . .
"""
        + OPEN
    )
    state = m.state("red", {"yellow": {}, "red": {"dice": (3,), "heading": d("E")}})
    rolled, move = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    assert move is None
    with pytest.raises(IllegalMove) as err:
        rolled.choose_direction(d("E"))
    assert err.value.rule == "R7" and err.value.field == "direction"
    assert "reaches only 1 of 3" in err.value.message and "Allowed: NE, SE" in err.value.message
    with pytest.raises(IllegalMove, match="turn 60"):
        rolled.choose_direction(d("W"))
    assert rolled.phase is Phase.DIRECTION  # nothing changed


def test_actions_out_of_phase_are_refused(course):
    state = placed(course)
    with pytest.raises(IllegalMove) as err:
        state.choose_direction(0)
    assert err.value.rule == "turn"
    over = state.resign(1)
    with pytest.raises(GameOver):
        over.choose_dice(DiceChoice(Change.ADD), FixedDice([1]))


def test_four_damage_sinks_and_the_opponent_wins():
    """R12: 4 or more damage (not finished) sinks the boat; the opponent wins."""
    m = Map(
        """
. . . . . . . . . . . .
 . R # . . . . . . . . .
. . # . . . . . . . . .
"""
        + OPEN
    )
    state = m.state("red", {"yellow": {}, "red": {"dice": (3,), "heading": d("E"), "damage": 3}})
    rolled, move = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    if move is None:
        rolled, move = rolled.choose_direction(rolled.allowed_directions()[0])
    assert move is not None and move.sunk and move.damage_total >= 4
    assert rolled.over and rolled.outcome is not None
    assert rolled.outcome.termination is Termination.SINK and rolled.outcome.winner == 0


def cutoff_state(yellow: dict, red: dict) -> GameState:
    """Red has made 35 moves, Yellow 34 and is to move with speed 0."""
    m = Map(OPEN)
    yellow = {"moves": CUTOFF_MOVES - 1, "dice": (), **yellow}
    red = {"moves": CUTOFF_MOVES, **red}
    return m.state("yellow", {"yellow": yellow, "red": red})


def finish_turn(state: GameState) -> GameState:
    rolled, move = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    if move is None:
        rolled, move = rolled.choose_direction(rolled.boat.heading)
    return rolled


@pytest.mark.parametrize(
    ("yellow", "red", "winner", "why"),
    [
        ({"next_buoy": 3}, {"next_buoy": 2}, "yellow", "rounded more buoys"),
        ({"next_buoy": 2, "damage": 2}, {"next_buoy": 2, "damage": 1}, "red", "less damage"),
        ({"next_buoy": 2, "damage": 1}, {"next_buoy": 2, "damage": 1}, None, "draw"),
    ],
)
def test_cutoff_after_35_moves_each(yellow, red, winner, why):
    """R13: after each player's 35th move the game ends: more buoys, then less damage, else a draw."""
    state = cutoff_state(yellow, red)
    assert not state.over
    end = finish_turn(state)
    assert end.over and end.outcome is not None and end.outcome.termination is Termination.CUTOFF
    assert (end.boats[end.outcome.winner].color if end.outcome.winner is not None else None) == winner
    assert why in end.outcome.reason


def test_points_per_buoy_and_for_finishing():
    """R14: a point per buoy rounded and one for finishing."""
    assert Boat("red", next_buoy=1).points == 0
    assert Boat("red", next_buoy=3).points == 2
    assert Boat("red", next_buoy=4).points == 3
    assert Boat("red", next_buoy=4, finished=True).points == 4


def test_resigning_and_timing_out_lose_but_points_stand():
    """R14: resigning or losing on time loses the game; points already scored stand."""
    m = Map(OPEN)
    state = m.state("red", {"yellow": {"next_buoy": 3}, "red": {"next_buoy": 2}})
    over = state.resign(0)
    assert over.outcome is not None and over.outcome.winner == 1 and over.outcome.termination is Termination.RESIGN
    assert over.boats[0].points == 2
    over = state.time_out(1)
    assert over.outcome is not None and over.outcome.winner == 0
    assert "ran out of time" in over.outcome.reason
