"""The grid, lakes (R1, R2), courses (R3, R4), the validator, records and dice."""

from __future__ import annotations

import copy
import hashlib
import hmac
import itertools
import json
import random
from collections import Counter
from fractions import Fraction

import pytest

from games.engine import CourseError, RandomDice, SeededDice, assemble_lake, new_course, validate_course
from games.engine.course import build_course, start_line
from games.engine.dice import sum_distribution
from games.engine.hexgrid import (
    DIRECTIONS,
    axial_to_offset,
    cross,
    distance,
    geometric,
    left,
    neighbor,
    neighbors,
    offset_to_axial,
    right,
    side_of_line,
)
from games.engine.lake import LETTERS, SIDES, TILE_COUNT, load_tiles
from games.engine.players import GreedyPlayer, RandomPlayer, play_game
from games.engine.record import verify
from games.engine.rules import Boat, simulate

from .helpers import open_course

# --- grid ---------------------------------------------------------------------------------


def test_directions_are_counter_clockwise_as_seen_on_the_board():
    for i in range(6):
        assert cross(DIRECTIONS[i], DIRECTIONS[(i + 1) % 6]) > 0
    assert geometric(DIRECTIONS[0])[0] > 0 and geometric(DIRECTIONS[0])[1] == 0  # 0 is east
    assert geometric(DIRECTIONS[1])[1] > 0  # 1 (NE) points up on the drawn board
    assert left(0) == 1 and right(0) == 5


def test_offset_and_axial_round_trip_and_neighbours_are_at_distance_1():
    for col, row in itertools.product(range(8), range(8)):
        cell = offset_to_axial(col, row)
        assert axial_to_offset(cell) == (col, row)
        assert all(distance(cell, n) == 1 for n in neighbors(cell))


def test_a_line_of_cells_is_a_wall():
    """R4: no step goes from one side of an axis line to the other without entering it."""
    origin = (0, 0)
    for d in range(6):
        for cell in itertools.product(range(-5, 6), repeat=2):
            for n in neighbors(cell):
                a, b = side_of_line(origin, d, cell), side_of_line(origin, d, n)
                assert a * b != -1


# --- lakes --------------------------------------------------------------------------------


@pytest.mark.parametrize("side", SIDES)
def test_six_distinct_tiles_per_side_with_four_spots_of_each_letter(side):
    """R2: at least six distinct tiles per side; four A-, B- and C-spots over the lake."""
    tiles = load_tiles(side)
    assert len(tiles) == TILE_COUNT
    assert len({(t.land, tuple(sorted(t.spots.items()))) for t in tiles}) == TILE_COUNT
    letters = Counter(letter for t in tiles for letter in t.spots.values())
    assert letters == {letter: 4 for letter in LETTERS}
    for t in tiles:
        assert t.rotated(1).rotated(1) == t


def test_the_expert_side_has_more_land():
    standard = sum(len(t.land) for t in load_tiles("standard"))
    expert = sum(len(t.land) for t in load_tiles("expert"))
    assert expert > standard * 1.3


def test_lakes_are_assembled_in_random_arrangement_and_orientation():
    """R2: six tiles in the frame, each once, random order and 0°/180° orientation."""
    layouts = set()
    rotations = set()
    for seed in range(30):
        lake = assemble_lake("standard", random.Random(seed))
        assert sorted(t.tile for t in lake.tiles) == list(range(1, 7))
        assert len(lake.cells) == 21 * 12
        assert Counter(lake.spots.values()) == {letter: 4 for letter in LETTERS}
        layouts.add(tuple(t.tile for t in lake.tiles))
        rotations.update(t.rotation for t in lake.tiles)
    assert len(layouts) > 25 and rotations == {0, 180}


# --- courses ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def courses():
    rng = random.Random(2024)
    return [new_course(side, letter, rng) for side in SIDES for letter in LETTERS for _ in range(4)]


def test_the_start_finish_line_runs_along_the_edge_by_buoy_0(courses):
    """R3: a straight row of water cells along the lake edge next to buoy 0, the finish
    buoy beyond its far end."""
    for course in courses:
        rows = {axial_to_offset(c)[1] for c in course.line}
        assert len(rows) == 1 and rows <= {0, course.lake.height - 1}
        assert all(distance(a, b) == 1 for a, b in itertools.pairwise(course.line))
        assert all(c in course.free for c in course.line)
        buoy0 = course.buoys[0]
        edge_row = next(iter(rows))
        assert abs(axial_to_offset(buoy0)[1] - edge_row) < course.lake.height / 2  # the nearer edge
        if course.finish_buoy is not None:
            assert distance(course.finish_buoy, course.line[-1]) == 1
        assert distance(course.line[0], buoy0) <= distance(course.line[-1], buoy0)


def test_rounding_senses_follow_the_route_and_gates_point_away_from_it(courses):
    """R3, R4: leftward where the route turns left; the gate points away from the route."""
    for course in courses:
        middle = course.line[len(course.line) // 2]
        points = [middle, *course.buoys[1:], middle]
        for gate in course.gates:
            prev, here, nxt = points[gate.buoy - 1], points[gate.buoy], points[gate.buoy + 1]
            u = geometric((here[0] - prev[0], here[1] - prev[1]))
            w = geometric((nxt[0] - here[0], nxt[1] - here[1]))
            turn = u[0] * w[1] - u[1] * w[0]
            if abs(turn) > 1e-6:
                assert (gate.sense.value == "ccw") == (turn > 0)
            g = geometric(DIRECTIONS[gate.direction])
            to_prev = geometric((prev[0] - here[0], prev[1] - here[1]))
            to_next = geometric((nxt[0] - here[0], nxt[1] - here[1]))
            norm = lambda v: (v[0] ** 2 + v[1] ** 2) ** 0.5  # noqa: E731
            # the gate is not on the route's side: at most 90° off the outer bisector
            mean = (to_prev[0] / norm(to_prev) + to_next[0] / norm(to_next), to_prev[1] / norm(to_prev) + to_next[1] / norm(to_next))
            assert g[0] * mean[0] + g[1] * mean[1] <= 1e-6


def test_every_generated_course_validates_and_its_witness_is_real(courses):
    """R3: a course is offered only when every buoy can be rounded and the finish reached.
    The witness replays through the engine's own moves with a total of 1."""
    for course in courses:
        check = validate_course(course)
        assert check.ok, check.reason
        boat = Boat("yellow", cell=check.witness[0], heading=check.start_heading, dice=(1,))
        other = Boat("red", cell=(999, 999))
        rounded = []
        for step, cell in enumerate(check.witness[1:], 1):
            direction = next(d for d in range(6) if neighbor(boat.cell, d) == cell)
            boat, option = simulate(course, (boat, other), 0, direction, 1)
            assert not option.crash and boat.cell == cell
            rounded += [step] * len(option.rounded)
        assert boat.finished and boat.points == 4
        assert tuple(rounded) == check.rounded_at


def test_a_buoy_that_cannot_be_rounded_fails_validation():
    """R3: buoy 2 walled in by land: the validator says which buoy."""
    b2 = (10, 3)
    walls = tuple(neighbors(b2)) + tuple((b2[0] + k, b2[1]) for k in range(1, 8))  # and its whole gate
    course = open_course(
        {0: (3, 12), 1: (5, 6), 2: b2, 3: (0, 9)},
        {1: ("E", "ccw"), 2: ("E", "ccw"), 3: ("W", "ccw")},
        [(-6, 12), (-5, 12), (-4, 12)],
        land=walls,
    )
    check = validate_course(course)
    assert not check.ok and "buoy 2" in check.reason


def test_a_start_line_that_would_cross_land_is_rejected():
    lake = assemble_lake("standard", random.Random(3))
    spots = lake.spots_of("A")
    try:
        line, _finish = start_line(lake, spots[0])
    except CourseError:
        return
    assert all(c in lake for c in line)
    for order in itertools.permutations(spots):
        try:
            course = build_course(lake, "A", order)
        except CourseError as err:
            assert err.rule == "R3"
            continue
        assert all(c in course.free for c in course.line)


# --- records ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def record():
    rng = random.Random(5)
    course = new_course("standard", "B", rng)
    game = play_game(course, [GreedyPlayer(rng), GreedyPlayer(rng)], RandomDice(rng))
    return json.loads(json.dumps(game.record()))


def test_a_record_holds_everything_and_verifies(record):
    assert record["format"] == "powerboats-game-record" and record["version"] == 1
    assert record["grid"]["directions"] == [list(d) for d in DIRECTIONS]
    assert len(record["lake"]["cells"]) == 21 * 12
    assert {c["terrain"] for c in record["lake"]["cells"]} == {"water", "land"}
    assert len(record["course"]["gates"]) == 3 and record["course"]["start_finish_cells"]
    assert len(record["placements"]) == 2 and record["moves"] and record["result"]
    result = verify(record)
    assert result.ok, result.message
    assert result.moves_checked == len(record["moves"])


@pytest.mark.parametrize(
    ("field", "value"),
    [("final", [0, 0]), ("damage", 9), ("rolled", [9]), ("direction", 7), ("rounded", [3])],
)
def test_verify_names_the_first_move_that_differs(record, field, value):
    bad = copy.deepcopy(record)
    index = len(bad["moves"]) // 2
    bad["moves"][index][field] = value
    result = verify(bad)
    assert not result.ok and result.first_bad_move == index + 1
    assert f"move {index + 1}" in result.message


def test_verify_refuses_a_gate_that_does_not_follow_from_its_buoy(record):
    bad = copy.deepcopy(record)
    bad["course"]["gates"][0]["cells"] = bad["course"]["gates"][0]["cells"][:-1]
    result = verify(bad)
    assert not result.ok and "R4" in result.message


def test_a_record_with_a_wrong_result_is_refused(record):
    bad = copy.deepcopy(record)
    bad["result"]["points"] = {"yellow": 4, "red": 4}
    assert not verify(bad).ok


def test_random_players_games_verify():
    rng = random.Random(11)
    for _ in range(5):
        course = new_course("expert", None, rng)
        game = play_game(course, [RandomPlayer(rng), RandomPlayer(rng)], RandomDice(rng))
        assert verify(json.loads(json.dumps(game.record()))).ok


# --- dice ---------------------------------------------------------------------------------


def test_seeded_dice_follow_the_documented_derivation():
    """docs/fair-dice.md: HMAC-SHA256(seed, "powerboats/dice/<ply>/<block>"), bytes < 255 → byte % 3 + 1."""
    seed = bytes(range(32))
    digest = hmac.new(seed, b"powerboats/dice/17/0", hashlib.sha256).digest()
    expected = tuple(b % 3 + 1 for b in digest if b < 255)[:5]
    assert SeededDice(seed, 17).roll(5) == expected
    assert SeededDice(seed, 17).roll(5) == expected
    assert SeededDice(seed, 18).roll(5) != expected or SeededDice(seed, 19).roll(5) != expected


def test_seeded_dice_are_uniform():
    counts = Counter()
    for ply in range(3000):
        counts.update(SeededDice(b"k" * 32, ply).roll(3))
    assert set(counts) == {1, 2, 3}
    for face in (1, 2, 3):
        assert abs(counts[face] / 9000 - 1 / 3) < 0.02


def test_sum_distribution_is_exact():
    dist = sum_distribution(2)
    assert dist == {2: Fraction(1, 9), 3: Fraction(2, 9), 4: Fraction(3, 9), 5: Fraction(2, 9), 6: Fraction(1, 9)}
    assert sum(sum_distribution(4).values()) == 1


def test_a_gate_in_an_enclosed_pond_fails_validation_by_search():
    """R3: buoy 2's gate has water, but that water is walled off from the rest of the lake."""
    b2 = (10, 3)
    pond = {(b2[0] + 1, b2[1]), (b2[0] + 2, b2[1])}
    ring = {n for c in pond | {b2} for n in neighbors(c)} - pond - {b2}
    rest_of_gate = {(b2[0] + k, b2[1]) for k in range(3, 9)}
    course = open_course(
        {0: (3, 12), 1: (5, 6), 2: b2, 3: (0, 9)},
        {1: ("E", "ccw"), 2: ("E", "ccw"), 3: ("W", "ccw")},
        [(-6, 12), (-5, 12), (-4, 12)],
        land=tuple(ring | rest_of_gate),
    )
    assert any(c in course.free for c in course.gates[1].cells)
    check = validate_course(course)
    assert not check.ok and check.reason == "R3: buoy 2 cannot be rounded from the start line"
