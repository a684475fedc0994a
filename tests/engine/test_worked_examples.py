"""The worked examples of the boxed rules (seeds 000/004, "TURNS" to "END OF A COURSE"),
each reproduced on a small lake. ``*`` marks the cell where the boat must end."""

from __future__ import annotations

from games.engine import Change, DiceChoice, FixedDice, Phase, Termination
from games.engine.hexgrid import direction_by_name as d

from .helpers import Map

BOTTOM = """
. . . . . . . . . . . .
 . . . . . . . . . . . .
0 = = = = F . . 1 2 3 .
"""


def test_yellow_3_1_3_must_turn_right_and_moves_7():
    """R6, R7: "Yellow holds the 3, re-rolls the 2 and rolls a new die ... 3 1 3, giving 7.
    By turning to the left the boat would crash onto land directly, and going straight on
    it would crash after 6 spaces. So Yellow must turn to the right." Then it moves 7
    spaces and keeps the direction it moved."""
    m = Map(
        """
. . # . . . . . . . . .
 . Y . . . . . . # . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . * . . . . . .
"""
        + BOTTOM
    )
    state = m.state("yellow", {"yellow": {"heading": d("E"), "dice": (3, 2)}, "red": {}})
    choice = DiceChoice(Change.ADD, reroll=(1,))  # hold the 3, re-roll the 2, add a die
    rolled = state.choose_dice(choice, FixedDice([1, 3]))
    move = rolled.move
    assert move is not None, "only one direction is allowed, so it is applied at once (R7)"
    assert move.dice == (3, 1, 3) and move.total == 7
    assert move.auto
    options = rolled.state  # the turn has passed
    assert options.phase is Phase.DICE and options.boat.color == "red"
    assert move.direction == d("SE")  # turned right
    assert move.reach == 7 and len(move.path) == 7
    assert move.final == m.cell("*")
    assert move.heading == d("SE")  # "the boat must stay in the direction it moved"
    assert not move.crash and move.damage == 0


def test_yellow_3_1_3_previews_show_why():
    """R7: the preview of each direction names its reach; only the full one is allowed."""
    m = Map(
        """
. . # . . . . . . . . .
 . Y . . . . . . # . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
"""
        + BOTTOM
    )
    state = m.state("yellow", {"yellow": {"heading": d("E"), "dice": (3, 1, 3)}, "red": {}})
    by_name = {o.name: o for o in state.options_for_total(7)}
    assert (by_name["NE"].reach, by_name["E"].reach, by_name["SE"].reach) == (0, 6, 7)
    assert [o.name for o in by_name.values() if o.allowed] == ["SE"]
    assert by_name["E"].crash and by_name["E"].damage == 1 and by_name["E"].blocked_by == "land"
    assert by_name["NE"].turn == "left" and by_name["SE"].turn == "right"


def test_red_2_3_with_longest_path_3_crashes_with_2_damage_and_loses_dice():
    """R6, R7, R9: "Red has 3 2 2 ... holds a 2, removes 1 die and re-rolls the other die,
    getting a 3. So now Red has 2 3, giving a total of 5. The longest path for Red is 3
    spaces. So Red must turn to the right and crashes on land. Red receives 2 damage
    counters (5 minus 3), and loses both dice." """
    m = Map(
        """
. . . . . . . . . . . .
 . R . . # . . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . * . . . . . . . .
 . . . # . . . . . . . .
"""
        + BOTTOM
    )
    state = m.state("red", {"yellow": {}, "red": {"heading": d("E"), "dice": (3, 2, 2)}})
    choice = DiceChoice(Change.REMOVE, remove=0, reroll=(2,))  # put back the 3, hold a 2, re-roll a 2
    new, move = state.choose_dice(choice, FixedDice([3]))
    assert move is not None and move.auto
    assert move.dice == (2, 3) and move.total == 5
    assert move.direction == d("SE") and move.reach == 3
    assert move.crash and move.damage == 2
    assert move.final == m.cell("*")
    red = new.boats[new.seat_of("red")]
    assert red.damage == 2 and red.dice == ()
    assert new.boat.color == "yellow"


def test_orange_passing_into_yellows_cell_ends_one_short_without_damage():
    """R8: "Orange has 3 2 1. Orange removes the 3 and doesn't re-roll the remaining two
    dice. Turning to the right and moving 3 spaces would bring Orange into the same space
    as Yellow ... So Orange moves to the last free space." No damage: not a crash."""
    m = Map(
        """
. . # . . . . . . . . .
 . O # . . . . . . . . .
. . . . . . . . . . . .
 . . * . . . . . . . . .
. . . Y . . . . . . . .
 . . . . . . . . . . . .
"""
        + BOTTOM
    )
    state = m.state("orange", {"yellow": {}, "orange": {"heading": d("E"), "dice": (3, 2, 1)}})
    new, move = state.choose_dice(DiceChoice(Change.REMOVE, remove=0), FixedDice([]))
    assert move is not None and move.auto
    assert move.dice == (2, 1) and move.direction == d("SE")
    assert move.reach == 3  # the boat in the way is not an obstacle
    assert move.final == m.cell("*") and len(move.path) == 2  # Yellow's cell was not entered
    assert m.boats["yellow"] not in move.path
    assert not move.crash and move.damage == 0
    assert new.boats[new.seat_of("orange")].dice == (2, 1)


def test_yellow_passes_orange_and_purple():
    """R8: "Yellow has 2 1, doesn't add or remove a die and re-rolls both. Yellow rolls
    3 2 and passes Orange and Purple." """
    m = Map(
        """
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 Y . O P . * . . . . . .
. . . . . . . . . . . .
"""
        + BOTTOM
    )
    state = m.state("yellow", {"yellow": {"heading": d("E"), "dice": (2, 1)}, "orange": {}, "purple": {}})
    new, move = state.choose_dice(DiceChoice(Change.KEEP, reroll=(0, 1)), FixedDice([3, 2]))
    if move is None:
        new, move = new.choose_direction(d("E"))
    assert move is not None
    assert move.dice == (3, 2)
    assert m.boats["orange"] in move.path and m.boats["purple"] in move.path
    assert move.final == m.cell("*") and not move.crash


def test_red_3_with_two_free_cells_takes_1_damage_and_ends_behind_purple():
    """R8, R9: "Red has 3 3. To avoid a crash, Red removes one die and re-rolls the other.
    But again it is 3. In each possible direction Red has only 2 spaces before crashing on
    land. Red chooses to move straight ahead, receives 1 damage counter and must remove
    the die. Since you can't end in a space with another boat, Red actually ends 1 space
    behind Purple. Purple gets no damage." """
    m = Map(
        """
. . . . # . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 . . R * P # . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . # . . . . . . .
"""
        + BOTTOM
    )
    state = m.state("red", {"purple": {}, "red": {"heading": d("E"), "dice": (3, 3)}})
    rolled, move = state.choose_dice(DiceChoice(Change.REMOVE, remove=0, reroll=(1,)), FixedDice([3]))
    assert move is None, "all three directions reach 2, so Red chooses"
    options = rolled.options()
    assert [o.reach for o in options] == [2, 2, 2] and all(o.allowed for o in options)
    new, move = rolled.choose_direction(d("E"))
    assert move is not None
    assert move.crash and move.damage == 1  # the passing shift does not change the damage
    assert move.final == m.cell("*") and move.path == (m.cell("*"),)
    purple = new.boats[new.seat_of("purple")]
    assert purple.damage == 0 and purple.cell == m.boats["purple"]
    assert new.boats[new.seat_of("red")].dice == ()


def test_yellow_1_3_keeps_the_dice_moves_4_and_finishes():
    """R11, R14: "Yellow has 1 3 and doesn't add, remove or re-roll dice. Yellow moves 4
    spaces and finishes." The game ends at once and Yellow wins with 4 points."""
    m = Map(
        """
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
1 2 3 . . . . . . . . .
 . . . . . . . . . . . .
F = = = = . . . Y . . .
 0 . . . . . . . . . . .
""",
    )
    state = m.state(
        "yellow",
        {"yellow": {"heading": d("W"), "dice": (1, 3), "next_buoy": 4}, "red": {}},
    )
    new, move = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    if move is None:
        new, move = new.choose_direction(d("W"))
    assert move is not None
    assert move.total == 4 and move.finished
    assert new.over
    assert new.outcome is not None and new.outcome.termination is Termination.FINISH
    assert new.boats[new.outcome.winner].color == "yellow"
    assert new.boats[new.seat_of("yellow")].points == 4
