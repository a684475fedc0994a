"""A race of the boxed game for 2–6 boats (R15–R18): order, start rows, passing several boats,
lifting off, leaving, the cut-off ranking. Each test names the ruling it pins."""

from __future__ import annotations

import random

import pytest

from games.engine import (
    CUTOFF_MOVES,
    Change,
    DiceChoice,
    FixedDice,
    GameOver,
    GameState,
    IllegalMove,
    Phase,
    RaceRules,
    Termination,
    new_course,
)
from games.engine.hexgrid import direction_by_name as d
from games.engine.race import start_rows

from .helpers import Map, open_course

COLORS = ("yellow", "red", "orange", "purple", "black", "green")


@pytest.fixture(scope="module")
def course():
    return new_course("standard", "A", random.Random(7))


def race(course, boats: int, start: int, **rules) -> GameState:
    return GameState.initial(course, COLORS[:boats], RaceRules(**rules), start)


def play(state: GameState, choice: str = "+", rolled=(), direction: str | None = None) -> GameState:
    """One turn: the dice choice (notation), the values rolled and the direction (if asked)."""
    from games.engine.notation import parse_choice

    state, move = state.choose_dice(parse_choice(choice), FixedDice(rolled))
    if move is None:
        state, move = state.choose_direction(d(direction) if direction else state.allowed_directions()[0])
    return state


# --- R15 order ----------------------------------------------------------------------------


def test_r15_the_right_hand_neighbour_of_the_start_player_places_first_and_the_start_player_last(course):
    """R15: "The right-hand neighbor of the start player first places ..., followed counter-
    clockwise by all players in turn (so the start player places last)." Seats go clockwise, so
    with Orange (seat 2) to start of four: Red, Yellow, Purple, Orange."""
    state = race(course, 4, start=2)
    placed = []
    for cell in course.line[:4]:
        assert state.phase is Phase.PLACE
        placed.append(state.boat.color)
        state = state.place(cell, 0)
    assert placed == ["red", "yellow", "purple", "orange"]
    assert state.phase is Phase.DICE and state.boat.color == "orange"  # the start player moves first
    assert state.ply == 4  # one ply per placement


def test_r15_moves_go_clockwise_from_the_start_player_skipping_boats_lifted_off(course):
    """R15: moves from the start player, then each left-hand neighbour; R18 details: boats no
    longer on the lake are skipped, and the round does not restart when the start player leaves."""
    state = race(course, 4, start=2)
    for cell in course.line[:4]:
        state = state.place(cell, 5)
    order = []
    for _ in range(5):
        order.append(state.boat.color)
        state = play(state, "+" if state.boat.moves == 0 else "=", [1] if state.boat.moves == 0 else [])
    assert order == ["orange", "purple", "yellow", "red", "orange"]
    assert state.boat.color == "purple"
    state = state.resign(state.seat_of("orange"))  # the start player leaves while Purple is to move
    order = []
    for _ in range(4):
        order.append(state.boat.color)
        state = play(state, "=")
    assert order == ["purple", "yellow", "red", "purple"]


def test_r15_the_online_rules_keep_yellow_first_and_red_moving_first(course):
    """R5: the two-player online game is the other configuration: no start player drawn."""
    state = GameState.initial(course)
    assert state.rules.placing_order(2, 0) == (0, 1)
    state = state.place(course.line[0], 0).place(course.line[1], 0)
    assert state.boat.color == "red"
    with pytest.raises(ValueError, match="two boats"):
        GameState.initial(course, COLORS[:3])


# --- R16 start --------------------------------------------------------------------------------


def test_r16_with_at_most_as_many_boats_as_line_cells_only_the_line(course):
    state = race(course, 5, start=0)
    assert state.free_start_cells() == list(course.line)
    behind = next(iter(start_rows(course)))
    with pytest.raises(IllegalMove) as err:
        state.place(behind[0], 0)
    assert err.value.rule == "R16" and err.value.field == "cell"


def test_r16_with_more_boats_than_line_cells_the_row_behind_opens_for_anyone_at_any_time(course):
    """R16: six boats, five line cells: the free water cells adjacent to the line on the lake's
    side may be used too, by any player at any time (decided once per race)."""
    state = race(course, 6, start=0)
    behind = next(iter(start_rows(course)))
    assert behind and all(c in course.free and c not in course.line for c in behind)
    assert all(any(abs(c[0] - line[0]) <= 1 and abs(c[1] - line[1]) == 1 for line in course.line) for c in behind)
    assert state.free_start_cells() == [*course.line, *behind]
    state = state.place(behind[0], 1)  # the first to place takes the second row
    assert behind[0] not in state.free_start_cells()
    with pytest.raises(IllegalMove, match="taken") as err:
        state.place(behind[0], 1)
    assert err.value.rule == "R16"


ROWS = """
. . . . . . . . . . . .
 . . . . . . . . 1 . . .
. . . . . . . . . 2 . .
 . . . . . . . . . . 3 .
. . . . . . . . . . . .
 . . . . . . . . . . . .
. # # # # # # . . . . .
 0 = = = = = F . . . . .
"""


def test_r16_when_the_line_and_the_row_behind_are_full_the_next_row_opens():
    """R16 details: "if even that is full, the next row is added". Here the row behind the line
    is all land, so the sixth boat gets the row after it — and only then."""
    m = Map(ROWS)
    rows = list(start_rows(m.course))
    assert rows[0] == ()  # behind the line: land only
    third = rows[1]
    assert len(third) == 7 and all(c[1] == 5 for c in third)
    state = GameState.initial(m.course, COLORS, RaceRules(), 0)
    with pytest.raises(IllegalMove, match="not on the start/finish line or a row"):
        state.place(third[0], 0)
    for cell in m.course.line:
        state = state.place(cell, 0)
    assert state.free_start_cells() == list(third)
    state = state.place(third[3], 0)
    assert state.phase is Phase.DICE and state.boat.color == "yellow"


# --- R17 passing several boats -----------------------------------------------------------------

CHAIN = """
. . . . . . . . . . . .
 . . . . . . . . . . . .
. Y . . O P R # . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 0 = = = = F . . 1 2 3 .
"""


def test_r17_a_boat_ending_on_a_chain_of_boats_stops_on_the_last_free_cell_before_it():
    """R17: "If its last cell is occupied it ends on the last free cell it reached before it
    (R8 applied repeatedly)": Yellow moves 5 east onto Red, behind Purple and Orange, so it ends
    two cells out; the cells it gave up are not on its path."""
    m = Map(CHAIN)
    state = m.state("yellow", {"yellow": {"heading": d("E"), "dice": (3, 2)}, "orange": {}, "purple": {},
                               "red": {}}, rules=RaceRules())
    new, move = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    assert move is not None and move.auto and move.reach == 5
    y = m.boats["yellow"]
    assert move.path == ((y[0] + 1, y[1]), (y[0] + 2, y[1])) and move.final == (y[0] + 2, y[1])
    assert not move.crash and move.damage == 0
    cells = [b.cell for b in new.boats]
    assert len(cells) == len(set(cells))


def test_r17_damage_comes_from_the_reach_not_from_the_shifted_cell():
    """R17, R9: Yellow holds 3 3 (6) against the land 5 cells ahead, the last of them Red's:
    it crashes with 1 damage (6 − 5), and ends behind the chain of boats."""
    m = Map(CHAIN)
    state = m.state("yellow", {"yellow": {"heading": d("E"), "dice": (3, 3)}, "orange": {}, "purple": {},
                               "red": {}}, rules=RaceRules())
    rolled, move = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    if move is None:
        rolled, move = rolled.choose_direction(d("E"))
    assert move.crash and move.reach == 5 and move.damage == 1
    assert move.final == (m.boats["yellow"][0] + 2, m.boats["yellow"][1])


def test_r17_a_boat_behind_a_chain_may_end_where_it_started():
    """R17: "it may end where it started" — Orange, with Purple and Red right ahead, moves 2."""
    m = Map(CHAIN)
    state = m.state("orange", {"yellow": {}, "orange": {"heading": d("E"), "dice": (2,)}, "purple": {},
                               "red": {}}, rules=RaceRules())
    rolled, move = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    if move is None:
        rolled, move = rolled.choose_direction(d("E"))
    assert move.path == () and move.final == m.boats["orange"] and move.heading == d("E")
    assert rolled.boats[rolled.seat_of("orange")].moves == 2


FINISH_THROUGH = """
. . . . . . . . . . . .
 . . . . . . . . . . . .
1 2 3 . . . . . . . . .
 . . . . . . . . . . . .
F = = = = . . . Y . . .
 0 . . . . . . . . . . .
"""


def test_r17_a_boat_finishes_on_the_cell_of_a_boat_it_passes_through():
    """R17 details: "the path includes the cells of boats passed through (a boat can round a gate
    or finish there)". Yellow, buoys rounded, passes Orange on the line and finishes."""
    m = Map(FINISH_THROUGH)
    first_line_cell = m.course.line[-1]  # the east end of the line, the first Yellow enters
    state = m.state("yellow", {"yellow": {"heading": d("W"), "dice": (3, 2), "next_buoy": 4},
                               "orange": {"cell": first_line_cell}, "red": {"cell": (11, 0)}}, rules=RaceRules())
    new, move = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    if move is None:
        new, move = new.choose_direction(d("W"))
    assert move.finished and first_line_cell in move.path and move.final != first_line_cell
    assert new.positions == (new.seat_of("yellow"),) and not new.over


# --- R18 lifting off, positions, leaving, the cut-off ---------------------------------------------

THREE = """
. . . . . . . . . . . .
 . . . . . . . . . . . .
1 2 3 O . . . . . . . .
 . . . . . . . . . . . .
F = = = = . . . Y . . .
 0 . . . . . . . . . . R
"""


def three(**boats) -> GameState:
    m = Map(THREE)
    fields = {"yellow": {"heading": d("W"), "dice": (3, 1), "next_buoy": 4}, "red": {"heading": d("SE")},
              "orange": {"heading": d("SE"), "dice": (1,)}}
    for color, extra in boats.items():
        fields[color] = {**fields[color], **extra}
    return m.state("yellow", fields, rules=RaceRules(), start="yellow")


def test_r18_a_finisher_takes_the_next_position_and_is_lifted_off_and_blocks_nothing():
    """R18: the finisher takes position 1 and is lifted off after its move; the race goes on;
    another boat may end where it stood ("Lifted-off boats block nothing")."""
    state = three()
    state, move = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    if move is None:
        state, move = state.choose_direction(d("W"))
    assert move.finished and state.positions == (0,) and not state.over
    yellow = state.boats[0]
    assert not yellow.racing and yellow.cell == move.final
    assert state.boat.color == "red"  # clockwise: Yellow's left-hand neighbour
    state = play(state, "=")  # Red: speed 0
    assert state.boat.color == "orange"
    # Orange, two cells north-west of it, ends on the cell where Yellow finished
    state = play(state, "+", [1], direction="SE")
    assert state.boats[2].cell == move.final == yellow.cell


def test_r18_the_race_ends_when_no_boat_is_left_with_positions_in_finishing_order():
    state = three(red={"damage": 3, "dice": (2,)}, orange={"next_buoy": 4, "dice": (3,), "heading": d("SW")})
    state = play(state, "=", direction="W")  # Yellow finishes: 1st
    state = play(state, "=")  # Red crashes into the border: 3 + 2 damage, sinks
    red = state.boats[1]
    assert red.sunk and not red.racing and state.positions == (0,)
    state = play(state, "=", direction="SW")  # Orange reaches the line: 2nd
    assert state.over and state.positions == (0, 2)
    assert state.outcome.winner == 0 and state.outcome.termination is Termination.FINISH
    assert state.outcome.reason == "Yellow 1st, Orange 2nd; Red sank"


OPEN = """
. . . . . . . . . . . .
 . . Y . . R . . O . . .
. . . . . . . . . . . .
 . . . P . . . . . . . .
. . . . . . . . . . . .
 0 = = = = F . . 1 2 3 .
"""


def test_r18_resigning_is_not_a_move_and_any_player_may_at_any_time():
    """R18 details: resigning may happen at any time — here Purple resigns while Red has rolled
    and not yet steered, and Red's roll stands; Red then resigns between its roll and direction:
    its turn passes on. Only the player to move loses on time. Each takes one ply."""
    m = Map(OPEN)
    state = m.state("red", {c: {"heading": d("E")} for c in ("yellow", "red", "orange", "purple")},
                    rules=RaceRules(), start="red")
    state, move = state.choose_dice(DiceChoice(Change.ADD), FixedDice([1]))
    assert move is None and state.boat.color == "red" and len(state.allowed_directions()) == 3
    ply = state.ply
    state = state.resign(state.seat_of("purple"))
    assert state.phase is Phase.DIRECTION and state.boat.color == "red" and state.ply == ply + 1
    assert state.boats[3].retired is Termination.RESIGN and not state.boats[3].racing
    state = state.resign(state.seat_of("red"))
    assert state.phase is Phase.DICE and state.boat.color == "orange" and state.pending is None
    with pytest.raises(IllegalMove) as err:
        state.resign(state.seat_of("purple"))
    assert err.value.rule == "R18"
    with pytest.raises(IllegalMove, match="only the player to move") as err:
        state.time_out(state.seat_of("yellow"))
    state = state.time_out(state.seat_of("orange"))
    assert state.boats[2].retired is Termination.TIMEOUT
    assert state.boat.color == "yellow"
    # one boat left: the race goes on (a series ends it: see test_series.py)
    assert not state.over
    state = state.resign(0)
    assert state.over and state.positions == () and state.outcome.winner is None
    assert state.outcome.termination is Termination.RESIGN
    with pytest.raises(GameOver):
        state.resign(0)


def cut_off_state(**boats) -> GameState:
    """Four boats; every one but Orange has made 35 moves; Orange (34, no dice) is to move."""
    m = Map(THREE + "\n . P . . . . . . . . . .\n")
    fields = {
        "yellow": {"moves": CUTOFF_MOVES, "heading": d("E")},
        "red": {"moves": CUTOFF_MOVES, "heading": d("E")},
        "orange": {"moves": CUTOFF_MOVES - 1, "heading": d("E"), "dice": ()},
        "purple": {"moves": CUTOFF_MOVES, "heading": d("E")},
    }
    for color, extra in boats.items():
        fields[color] = {**fields[color], **extra}
    return m.state("orange", fields, rules=RaceRules(), start="red")


def test_r18_at_the_cut_off_boats_are_ranked_by_buoys_then_damage_then_seat_order_from_the_start_player():
    """R18 (R13): when every boat still in the race has made 35 moves they take the positions
    after the finishers: more buoys first, then less damage (carried counters included), then
    seat order from the start player (Red, Orange, Purple, Yellow)."""
    state = cut_off_state(
        yellow={"next_buoy": 3, "damage": 1},  # 2 buoys, 1 damage
        red={"next_buoy": 3, "damage": 1},  # 2 buoys, 1 damage: Red is the start player
        orange={"next_buoy": 4, "damage": 2, "carried": 1},  # 3 buoys
        purple={"next_buoy": 3, "damage": 0},  # 2 buoys, no damage
    )
    end = play(state, "=", direction="E")
    assert end.over and end.outcome.termination is Termination.CUTOFF
    assert [end.boats[s].color for s in end.positions] == ["orange", "purple", "red", "yellow"]
    assert end.outcome.reason.startswith(f"{CUTOFF_MOVES} moves each: Orange 1st (cut off)")


def test_r18_the_cut_off_counts_only_boats_on_the_lake_and_is_checked_after_a_departure():
    """R18 details: with every other boat at 35 moves, Orange (34) resigning ends the race."""
    state = cut_off_state(yellow={"finished": True, "next_buoy": 4, "moves": 20}, red={"next_buoy": 2})
    state = GameState(state.course, state.boats, state.phase, state.to_move, rules=state.rules, start=state.start,
                      positions=(0,))
    end = state.resign(2)
    assert end.over and end.outcome.termination is Termination.CUTOFF
    assert [end.boats[s].color for s in end.positions] == ["yellow", "red", "purple"]


def test_r18_adjudication_ranks_the_boats_still_racing_as_the_cut_off_does():
    state = cut_off_state(red={"next_buoy": 2, "moves": 10}, purple={"next_buoy": 3, "moves": 10})
    end = state.adjudicate()
    assert end.outcome.termination is Termination.ADJUDICATION and end.ply == state.ply + 1
    assert [end.boats[s].color for s in end.positions] == ["purple", "red", "orange", "yellow"]


def test_r18_a_finished_boat_that_crashes_into_four_damage_is_finished_not_sunk():
    """R11, R12, R19: "a boat that reaches 4 damage in the move in which it finishes is
    finished, not sunk" — it keeps its position."""
    lake = open_course({0: (9, 0), 1: (0, 2), 2: (1, 2), 3: (2, 2)}, {1: ("E", "ccw"), 2: ("E", "ccw"),
                                                                      3: ("E", "ccw")},
                       [(-6, 12), (-5, 12), (-4, 12)], width=12, height=13, land=((-3, 11), (-2, 11)))
    m = Map.__new__(Map)
    m.course = lake
    from games.engine import Boat

    yellow = Boat("yellow", (-4, 11), d("SW"), (3, 3), damage=3, next_buoy=4, moves=9)
    red = Boat("red", (5, 5), 0, (), moves=9)
    state = GameState(lake, (yellow, red), Phase.DICE, 0, rules=RaceRules())
    new = play(state, "=")
    boat = new.boats[0]
    assert boat.finished and not boat.sunk and boat.damage >= 4
    assert new.positions == (0,)
