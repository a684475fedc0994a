"""Gate crossings (R4, R10) and finishing (R11).

Buoy 1 stands in the middle of an open lake with its gate pointing east and a leftward
(counter-clockwise) rounding: the gate is crossed in the scoring direction from south
(the side clockwise of east) to north.
"""

from __future__ import annotations

from games.engine import Boat, Change, DiceChoice, FixedDice, GameState, Phase, Termination
from games.engine.hexgrid import direction_by_name as d
from games.engine.rules import simulate

from .helpers import cells_from, open_course, walk

B1 = (5, 6)  # the middle of the 17 × 13 lake
G2 = (B1[0] + 2, B1[1])  # second gate cell east of buoy 1
SOUTH = (G2[0], G2[1] + 1)  # SE of the gate cell: side -1
NORTH = (G2[0], G2[1] - 1)  # NW of the gate cell: side +1
FAR = {0: (3, 12), 2: (13, 1), 3: (-2, 10)}
LINE = [(-6, 12), (-5, 12), (-4, 12)]


def course(**changes):
    buoys = {0: FAR[0], 1: B1, 2: FAR[2], 3: FAR[3]}
    gates = {1: ("E", "ccw"), 2: ("W", "ccw"), 3: ("W", "ccw")}
    buoys.update(changes.get("buoys", {}))
    gates.update(changes.get("gates", {}))
    return open_course(buoys, gates, LINE)


def test_gate_cells_run_from_the_buoy_to_the_edge():
    """R4: the gate is buoy + k·d for k = 1, 2, ... up to the lake edge."""
    c = course()
    cells = c.gates[0].cells
    assert cells[0] == (B1[0] + 1, B1[1]) and cells[1] == G2
    assert all(cell in c.lake for cell in cells)
    beyond = (cells[-1][0] + 1, cells[-1][1])
    assert beyond not in c.lake
    assert c.gates[0].side(SOUTH) == -1 and c.gates[0].side(NORTH) == 1 and c.gates[0].scoring_from == -1


def test_clean_rounding():
    """R10: stepping off the gate onto the other side, in the scoring direction: rounded."""
    next_buoy, count, _, rounded = walk(course(), cells_from(SOUTH, "NW NW"))
    assert rounded == [1] and next_buoy == 2 and count == 0


def test_wrong_way_then_back_the_right_way_does_not_score():
    """R10 / online rules: "if you pass these chevrons in the wrong way, then turn around
    and cross them in the right way, it will NOT count"."""
    next_buoy, count, _, rounded = walk(course(), cells_from(NORTH, "SE SE NW NW"))
    assert rounded == [] and next_buoy == 1 and count == 0


def test_wrong_way_then_all_the_way_round_scores():
    """R10: "You really have to go around the buoy": wrong way (-1), back (0), then a
    full leftward loop round the buoy and across the gate again (+1)."""
    path = cells_from(NORTH, "SE SE NW NW W W W SW SE E E E NE NE")
    assert B1 not in path
    next_buoy, _count, _, rounded = walk(course(), path)
    assert rounded == [1] and next_buoy == 2


def test_the_line_on_the_far_side_of_the_buoy_is_not_the_gate():
    """R4: the gate runs from the buoy outwards; crossing the line through the buoy on
    the other side counts for nothing."""
    far_south = (B1[0] - 2, B1[1] + 1)
    _next_buoy, count, entries, rounded = walk(course(), cells_from(far_south, "NW NW"))
    assert rounded == [] and count == 0 and entries == (0, 0, 0)


def test_stopping_on_a_gate_cell_then_going_on_scores():
    """R10: a boat may stop on the gate; the side it entered from is kept between moves."""
    c = course()
    yellow = Boat("yellow", cell=SOUTH, heading=d("NW"), dice=(1,), moves=3)
    red = Boat("red", cell=(0, 12), moves=3)
    after_first, option = simulate(c, (yellow, red), 0, d("NW"), 1)
    assert after_first.cell == G2 and option.rounded == () and after_first.entries[0] == -1
    after_second, option = simulate(c, (after_first, red), 0, d("NW"), 1)
    assert option.rounded == (1,) and after_second.next_buoy == 2


def test_stopping_on_a_gate_cell_then_going_back_does_not_score():
    """R10: stepping off the gate to the side it was entered from is not a crossing."""
    c = course()
    on_gate = walk(c, cells_from(SOUTH, "NW"))
    assert on_gate[2][0] == -1
    next_buoy, count, entries, rounded = walk(c, cells_from(G2, "SW"), *on_gate[:3])
    assert rounded == [] and count == 0 and entries[0] == 0 and next_buoy == 1


def test_starting_on_a_gate_cell_has_no_entry_side():
    """R10: a boat placed on a gate cell has not entered it from either side."""
    next_buoy, count, _, rounded = walk(course(), cells_from(G2, "NW"))
    assert rounded == [] and count == 0 and next_buoy == 1


def test_buoy_2_gate_before_buoy_1_does_not_count():
    """R10: only the next buoy's gate counts. Buoy 2's gate, 4 rows north of buoy 1's,
    crossed in its own scoring direction while buoy 1 is next: nothing."""
    c = course(buoys={2: (B1[0], B1[1] - 4)}, gates={2: ("E", "ccw")})
    start = (G2[0], G2[1] - 3)  # just south of buoy 2's gate
    next_buoy, count, _, rounded = walk(c, cells_from(start, "NW NW"))
    assert rounded == [] and next_buoy == 1 and count == 0
    # after rounding buoy 1, crossing buoy 2's gate the same way does count
    next_buoy, count, _, rounded = walk(c, cells_from(SOUTH, "NW NW NW NW NW NW"))
    assert rounded == [1, 2]


def test_two_buoys_in_one_move():
    """R10: several buoys can be rounded in one move, checked cell by cell."""
    c = course(buoys={2: (B1[0], B1[1] - 3)}, gates={2: ("E", "ccw")})
    yellow = Boat("yellow", cell=SOUTH, heading=d("NW"), dice=(3, 2), moves=5)
    red = Boat("red", cell=(0, 12), moves=5)
    boat, option = simulate(c, (yellow, red), 0, d("NW"), 5)
    assert option.rounded == (1, 2) and boat.next_buoy == 3 and not option.crash


def test_a_boat_standing_on_the_next_gate_keeps_its_entry_side():
    """R10: the step that rounds buoy 1 lands on buoy 2's gate; the side it entered buoy
    2's gate from is kept, so stepping off on the far side rounds buoy 2 as well."""
    b2 = (G2[0] + 3, G2[1] - 1)  # its westward gate runs along the row north of buoy 1
    c = course(buoys={2: b2}, gates={2: ("W", "cw")})
    assert NORTH in c.gates[1].cells
    path = cells_from(SOUTH, "NW NW NW")
    _, _, entries, rounded = walk(c, path[:3])
    assert rounded == [1] and entries[1] == c.gates[1].scoring_from
    next_buoy, _, _, rounded = walk(c, path[2:], 2, 0, entries)
    assert rounded == [2] and next_buoy == 3


def test_within_one_step_gates_are_checked_1_then_2():
    """R10: where gates 1 and 2 overlap, one step off them rounds 1 and then 2."""
    c = course(buoys={2: (B1[0] + 6, B1[1])}, gates={2: ("W", "cw")})
    assert G2 in c.gates[0].cells and G2 in c.gates[1].cells
    _, _, _, rounded = walk(c, cells_from(SOUTH, "NW NW"))
    assert rounded == [1, 2]


def finishing_position(next_buoy: int, damage: int = 0, dice=(2,)):
    """Yellow two cells east of the start/finish line, heading west along it."""
    c = open_course(
        {0: FAR[0], 1: B1, 2: FAR[2], 3: FAR[3]},
        {1: ("E", "ccw"), 2: ("W", "ccw"), 3: ("W", "ccw")},
        [(-6, 12), (-5, 12), (-4, 12)],
        finish=(-7, 12),
        land=((-2, 11),),  # north-west of Yellow: going along the line is the only way
    )
    yellow = Boat("yellow", cell=(-2, 12), heading=d("W"), dice=dice, damage=damage, next_buoy=next_buoy, moves=20)
    red = Boat("red", cell=(4, 0), moves=20)
    return GameState(c, (yellow, red), Phase.DICE, 0), c


def test_finishing_only_after_buoy_3():
    """R11: entering the line before buoy 3 is rounded is not a finish."""
    state, c = finishing_position(next_buoy=3)
    boat, option = simulate(c, state.boats, 0, d("W"), 3)
    assert boat.cell in c.line_set and not boat.finished and not option.finishes
    state, c = finishing_position(next_buoy=4)
    boat, option = simulate(c, state.boats, 0, d("W"), 2)
    assert boat.finished and option.finishes and boat.points == 4


def test_finishing_then_sinking_still_wins():
    """R11, R12: Yellow (3 damage) enters the line, goes on and crashes into the finish
    buoy with 3 more damage in the same move: the move is carried out, the damage counts,
    the boat does not sink, and Yellow wins."""
    state, _c = finishing_position(next_buoy=4, damage=3, dice=(3, 3, 3))
    options = {o.name: o for o in state.options_for_total(9)}
    assert options["W"].reach == 4 and options["W"].crash and options["W"].allowed
    assert options["W"].finishes and not options["W"].sinks
    new, move = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    assert move is not None and move.auto and move.direction == d("W")
    assert move.finished and move.crash and move.damage == 5
    assert not move.sunk
    yellow = new.boats[0]
    assert yellow.damage == 8 and yellow.finished and not yellow.sunk
    assert new.outcome is not None and new.outcome.winner == 0
    assert new.outcome.termination is Termination.FINISH

