"""A series of the boxed game (R15–R20): points by position and race (R19), the score variant,
the series tie-break, carried damage (R20), the start player moving on (R15), players leaving
(R18), a scripted series whose every figure is checked, and series records (version 2)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from games.engine import (
    Boat,
    Course,
    FixedDice,
    GameOver,
    GameState,
    IllegalMove,
    Phase,
    RaceRules,
    Series,
    Termination,
    new_courses,
    race_scores,
    validate_course,
)
from games.engine.__main__ import main
from games.engine.dice import RandomDice
from games.engine.game import SeriesGame
from games.engine.hexgrid import DIRECTION_NAMES, offset_to_axial
from games.engine.hexgrid import direction_by_name as d
from games.engine.notation import parse_choice
from games.engine.players import GreedyPlayer, RandomPlayer, play_series
from games.engine.race import RULES_V1, RULES_V2, RULES_VERSION, boats_started
from games.engine.record import verify

from .helpers import open_course

COLORS = ("yellow", "red", "orange", "purple", "black", "green")


def finished_race(k: int, boats: list[dict[str, object]], positions: list[str], variant: bool = False) -> GameState:
    """A race that is over, with boats as given (by colour, in seat order) and the positions.
    Every boat was placed on the lake (a cell of its own) unless it says ``"cell": None``."""
    made = tuple(Boat(**{"cell": (i, 0), **b}) for i, b in enumerate(boats))  # type: ignore[arg-type]
    seats = [b.color for b in made]
    from games.engine import Outcome

    return GameState(None, made, Phase.OVER, 0, None, Outcome(None, Termination.FINISH, ""), 0,  # type: ignore[arg-type]
                     RaceRules(k, variant), 0, tuple(seats.index(c) for c in positions))


# --- R19 points -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("k", "expected"), [(1, [4, 3, 2, 1, 0]), (2, [8, 6, 4, 2, 0]), (3, [12, 9, 6, 3, 0])])
def test_r19_points_by_position_times_the_race(k, expected):
    """R19: "In case of 5 players you get in race-A: 4, 3, 2, 1 points, in race-B: 8, 6, 4, 2
    points and in race-C: 12, 9, 6, 3 points." """
    boats = [{"color": c, "finished": True, "next_buoy": 4, "moves": 20 + i} for i, c in enumerate(COLORS[:5])]
    state = finished_race(k, boats, list(COLORS[:5]))
    assert [s.points for s in race_scores(state)] == expected


def test_r19_sunk_and_retired_boats_score_nothing_and_n_counts_every_boat_that_started():
    """R19: n is the number of boats that started the race; boats without a position score 0."""
    boats = [
        {"color": "yellow", "finished": True, "next_buoy": 4, "moves": 18},
        {"color": "red", "sunk": True, "damage": 4, "moves": 9},
        {"color": "orange", "retired": Termination.RESIGN, "moves": 3},
        {"color": "purple", "finished": True, "next_buoy": 4, "moves": 21},
    ]
    scores = race_scores(finished_race(2, boats, ["yellow", "purple"]))
    assert [(s.position, s.points) for s in scores] == [(1, 6), (None, 0), (None, 0), (2, 4)]


def test_r19_n_counts_only_the_boats_placed_on_the_lake():
    """R19 details: "n in R19 is the number of boats that started the race: those placed on the
    lake (a player who leaves before placing their boat is not counted)". Orange's player left
    before placing: of the four boats of this race B (k = 2) three started, so the positions
    score (3 − 1) × 2 and (3 − 2) × 2, not (4 − p) × 2."""
    boats = [
        {"color": "yellow", "finished": True, "next_buoy": 4, "moves": 18},
        {"color": "red", "sunk": True, "damage": 4, "moves": 9},
        {"color": "orange", "retired": Termination.RESIGN, "cell": None},
        {"color": "purple", "finished": True, "next_buoy": 4, "moves": 21},
    ]
    race = finished_race(2, boats, ["yellow", "purple"])
    assert boats_started(race.boats) == 3
    assert [(s.position, s.points) for s in race_scores(race)] == [(1, 4), (None, 0), (None, 0), (2, 2)]


def red_leaves_before_placing(rules_version: int = RULES_VERSION) -> SeriesGame:
    """Four players, start player Yellow: Red leaves while race A is being placed (placing order
    Purple, Orange, Red, Yellow; Red has not placed yet); the other three play race A out with
    the engine's greedy player (fixed seed) and race B begins."""
    game = SeriesGame(Series.start(scripted_courses(), COLORS[:4], start=0, rules_version=rules_version))
    game.resign(1)
    rng = random.Random(1)
    player, dice = GreedyPlayer(rng), RandomDice(rng)
    while len(game.series.races) == 1:
        state = game.state
        if state.phase is Phase.PLACE:
            game.place(*player.place(state))
        elif state.phase is Phase.DICE:
            game.choose_dice(player.dice(state), dice)
        else:
            game.choose_direction(player.direction(state))
    return game


def test_r19_n_leaves_out_a_player_who_left_before_placing_in_a_played_race():
    """R19 details, R18: Red leaves while race A is being placed; the other three play it out
    (the engine's greedy player, fixed seed): Purple 1st, Orange 2nd, Yellow 3rd score
    (3 − p) × 1 = 2, 1, 0 (three boats started it), not 3, 2, 1; race B has the three boats that
    stay; the record replays to the same points."""
    game = red_leaves_before_placing()
    race_a = game.series.races[0]
    assert race_a.boats[1].cell is None and boats_started(race_a.boats) == 3
    scores = race_scores(race_a)
    assert [(s.color, s.position, s.points) for s in scores] == [
        ("yellow", 3, 0), ("red", None, 0), ("orange", 2, 1), ("purple", 1, 2)]
    assert [b.color for b in game.series.race.boats] == ["yellow", "orange", "purple"]
    record = json.loads(json.dumps(game.record()))
    assert record["races"][0]["result"]["position_points"] == {s.color: s.position_points for s in scores}
    assert verify(record).ok, verify(record).message


def test_r19_score_variant_moves_before_the_last_finisher_and_five_per_sunk_boat():
    """R19 score variant: a finisher also scores the moves it finished before the last boat with a
    position, and 5 per boat that sank (not multiplied by k); boats placed at the cut-off score no
    variant points; a resignation is not a sinking."""
    boats = [
        {"color": "yellow", "finished": True, "next_buoy": 4, "moves": 20},
        {"color": "red", "finished": True, "next_buoy": 4, "moves": 23},
        {"color": "orange", "sunk": True, "damage": 5, "moves": 12},
        {"color": "purple", "next_buoy": 3, "moves": 35},  # cut off: 3rd
        {"color": "black", "retired": Termination.TIMEOUT, "moves": 7},
    ]
    scores = race_scores(finished_race(2, boats, ["yellow", "red", "purple"], variant=True))
    by = {s.color: s for s in scores}
    # n = 5, k = 2: positions 1, 2, 3 score 8, 6, 4; the reference is purple's 35 moves
    assert (by["yellow"].position_points, by["yellow"].variant_points) == (8, 35 - 20 + 5)
    assert (by["red"].position_points, by["red"].variant_points) == (6, 35 - 23 + 5)
    assert (by["purple"].position_points, by["purple"].variant_points) == (4, 0)
    assert by["orange"].points == 0 and by["black"].points == 0


def test_r19_a_lone_finisher_scores_only_the_sinking_bonus_in_the_variant():
    boats = [
        {"color": "yellow", "finished": True, "next_buoy": 4, "moves": 14},
        {"color": "red", "sunk": True, "damage": 4, "moves": 9},
    ]
    (yellow, red) = race_scores(finished_race(1, boats, ["yellow"], variant=True))
    assert (yellow.position_points, yellow.variant_points) == (1, 0 + 5) and red.points == 0


def test_r19_two_boats_always_count_the_score_variant():
    courses = new_courses("standard", rng=random.Random(3))
    assert Series.start(courses, 2, 0).score_variant
    with pytest.raises(IllegalMove) as err:
        Series.start(courses, 2, 0, score_variant=False)
    assert err.value.rule == "R19"
    assert not Series.start(courses, 3, 0).score_variant and Series.start(courses, 3, 0, True).score_variant


def series_of(races: list[GameState], colors=COLORS[:4], left=()) -> Series:
    from games.engine import Departure

    return Series((None,) * len(races), tuple(colors), 0, False, tuple(races),  # type: ignore[arg-type]
                  tuple(Departure(colors.index(c), Termination.RESIGN, len(races) - 1) for c in left))


def test_r19_a_tie_is_broken_by_the_last_race_then_the_one_before_else_shared():
    """R19: "If tied scores exist after the final race, then the finishing positions in the last
    race determine the order"; details: a position beats none, then the race before; still equal,
    the place is shared. Players who left rank below everyone who stayed."""
    def boats(**moves):
        return [{"color": c, "finished": c in moves, "next_buoy": 4 if c in moves else 2, "moves": moves.get(c, 35)}
                for c in COLORS[:4]]
    a = finished_race(1, boats(yellow=20, red=21, orange=22, purple=23), ["yellow", "red", "orange", "purple"])
    # race B: red 1st (6), orange 2nd (4), yellow 3rd (2), purple 4th
    b = finished_race(2, boats(red=20, orange=21, yellow=22, purple=23), ["red", "orange", "yellow", "purple"])
    table = series_of([a, b]).standings()
    # yellow 3 + 2 = 5, red 2 + 6 = 8, orange 1 + 4 = 5, purple 0: orange was ahead in race B
    assert [(s.color, s.points, s.place) for s in table] == [
        ("red", 8, 1), ("orange", 5, 2), ("yellow", 5, 3), ("purple", 0, 4)]
    # equal points, equal positions in every race: a shared place
    c = finished_race(1, boats(yellow=20, red=21), ["yellow", "red"])
    table = series_of([c, c]).standings()
    assert [(s.color, s.place) for s in table][:2] == [("yellow", 1), ("red", 2)]
    same = finished_race(1, [{"color": x, "moves": 35, "next_buoy": 2} for x in COLORS[:2]], [])
    table = series_of([same], COLORS[:2]).standings()
    assert [s.place for s in table] == [1, 1]
    # a position beats none; a player who left ranks last whatever the points
    table = series_of([a, b], left=["red"]).standings()
    assert [s.color for s in table] == ["orange", "yellow", "purple", "red"] and table[-1].left is Termination.RESIGN


# --- a scripted series: every figure of the table by R19 and R20 ----------------------------------


def scripted_courses() -> list[Course]:
    """An open 21 × 13 lake; buoys 1, 2, 3 in the west with gates pointing east (rounded by going
    north across them), the whole bottom row a start/finish line. Races A, B and C use the same
    buoys: the series needs only that the three courses share the lake."""
    buoys = {0: offset_to_axial(20, 0), 1: offset_to_axial(1, 9), 2: offset_to_axial(1, 7), 3: offset_to_axial(1, 5)}
    gates = {1: ("E", "ccw"), 2: ("E", "ccw"), 3: ("E", "ccw")}
    first = open_course(buoys, gates, [offset_to_axial(c, 12) for c in range(21)], 21, 13)
    return [first] + [Course(first.lake, x, first.buoys, first.line, first.gates, None) for x in "BC"]


SEATS = {"Y": 0, "R": 1, "O": 2}

# Race A (k = 1), start player Yellow: placing Orange, Red, Yellow; moving Yellow, Red, Orange.
# Yellow goes NE 3 and 6 (rounding 1, 2, 3), E 6, SE 9 onto the line: finished in 4 moves.
# Red, in the south-east corner, crashes twice (2, then 3 damage) and sinks. Orange, in the
# south-west corner, crashes once (1 damage), then finishes in 7 moves.
RACE_A = """
O@-6,12 SW | R@14,12 SE | Y@-4,12 NE
Y + 3 NE | R + 2 SE | O + 1 SE
Y + 3 NE | R + 3 SE | O + 3 E
Y = E | O + 3 NE
Y + 3 SE | O -1 NE
O = E
O + 3 SE
O -1 SE
"""
# Race B (k = 2), start player Red (Yellow's left-hand neighbour): placing Yellow, Orange, Red;
# moving Red, Orange, Yellow. Red finishes in 4; Yellow, later by a slow start, in 5 — on the
# cell where Red finished (a boat lifted off blocks nothing); Orange crashes in its corner again
# (1 damage: 2 with the carried counter) and finishes in 7.
RACE_B = """
Y@0,12 NE | O@-6,12 SW | R@-2,12 NE
R + 3 NE | O + 1 SE | Y + 1 NE
R + 3 NE | O + 3 E | Y + 3 NE
R = E | O + 3 NE | Y = NE
R + 3 SE | O -1 NE | Y = E
O = E | Y +/1 33 SE
O + 3 SE
O -1 SE
"""
# Race C (k = 3), start player Orange: placing Red, Yellow, Orange; moving Orange, Yellow, Red.
# Orange carries 2 damage counters: its first crash (2) sinks it. Red rolls and resigns before
# steering (it leaves the series). Yellow finishes alone in 4.
RACE_C = """
R@-2,12 NE | Y@-4,12 NE | O@-6,12 SW
O + 2 SE | Y + 3 NE | R + 3 NE
Y + 3 NE | R + 3 roll | R resigns
Y = E
Y + 3 SE
"""


def run_script(game: SeriesGame, script: str) -> None:
    for action in (a.strip() for line in script.strip().splitlines() for a in line.split("|")):
        who, rest = action[0], action[1:].split()
        seat = SEATS[who]
        if who + "@" in action:
            q, r = map(int, action.split("@")[1].split()[0].split(","))
            assert game.series.to_move == seat, action
            game.place((q, r), d(rest[-1]))
        elif rest[0] == "resigns":
            game.resign(seat)
        else:
            assert game.series.to_move == seat, action
            rolled = [int(c) for c in rest[1]] if len(rest) > 1 and rest[1].isdigit() else []
            move = game.choose_dice(parse_choice(rest[0]), FixedDice(rolled))
            if rest[-1] == "roll":
                assert move is None, action
                continue
            if move is None:
                move = game.choose_direction(d(rest[-1]))
            assert DIRECTION_NAMES[move.direction] == rest[-1], (action, move)


@pytest.fixture(scope="module")
def scripted() -> SeriesGame:
    game = SeriesGame(Series.start(scripted_courses(), COLORS[:3], start=0, score_variant=True))
    for script in (RACE_A, RACE_B, RACE_C):
        run_script(game, script)
    return game


def test_scripted_series_positions_and_points_of_every_race_by_r18_r19(scripted):
    """Every figure of the series table, worked out by hand (n = 3, score variant on):

    race A (k 1): Yellow 1st in 4 moves: 2 + (7 − 4) + 5 (Red sank) = 10; Orange 2nd in 7:
    1 + 0 + 5 = 6; Red sank: 0.
    race B (k 2): Red 1st in 4: 4 + (7 − 4) = 7; Yellow 2nd in 5: 2 + (7 − 5) = 4; Orange 3rd in
    7: 0 + 0 = 0 (nobody sank).
    race C (k 3): Yellow 1st, alone, in 4: 6 + 0 + 5 (Orange sank) = 11; Orange sank: 0; Red
    resigned: 0.
    """
    series = scripted.series
    assert series.over and len(series.races) == 3
    rows = [{s.color: (s.position, s.position_points, s.variant_points) for s in race} for race in series.scores()]
    assert rows[0] == {"yellow": (1, 2, 8), "red": (None, 0, 0), "orange": (2, 1, 5)}
    assert rows[1] == {"yellow": (2, 2, 2), "red": (1, 4, 3), "orange": (3, 0, 0)}
    assert rows[2] == {"yellow": (1, 6, 5), "red": (None, 0, 0), "orange": (None, 0, 0)}
    moves = [{s.color: s.moves for s in race} for race in series.scores()]
    assert moves == [{"yellow": 4, "red": 2, "orange": 7}, {"yellow": 5, "red": 4, "orange": 7},
                     {"yellow": 4, "red": 1, "orange": 1}]


def test_scripted_series_start_players_and_carried_damage_by_r15_r20(scripted):
    """R15: the start player moves one seat left each race (Yellow, Red, Orange). R20: a counter
    for each race in which the damage rose: Red sank in A (1 for B, none taken in B: 1 for C);
    Orange crashed in A and B (1 for B, 2 for C), and with 2 carried its first crash of 2 sinks it."""
    series = scripted.series
    assert [r.boats[r.start].color for r in series.races] == ["yellow", "red", "orange"]
    assert [series.carried(i) for i in range(3)] == [
        {"yellow": 0, "red": 0, "orange": 0},
        {"yellow": 0, "red": 1, "orange": 1},
        {"yellow": 0, "red": 1, "orange": 2},
    ]
    took = [{s.color: s.took_damage for s in race} for race in series.scores()]
    assert took == [{"yellow": False, "red": True, "orange": True}, {"yellow": False, "red": False, "orange": True},
                    {"yellow": False, "red": False, "orange": True}]
    orange_c = series.races[2].boats[2]
    assert orange_c.sunk and orange_c.damage == 4 and orange_c.carried == 2


def test_scripted_series_table_and_winner_by_r19_r18(scripted):
    """Totals 25 (Yellow), 7 (Red), 6 (Orange); Red left the series in race C, so it ranks
    below Orange although it has more points (R18 details)."""
    series = scripted.series
    table = [(s.place, s.color, s.points, s.race_points, s.positions, s.left) for s in series.standings()]
    assert table == [
        (1, "yellow", 25, (10, 4, 11), (1, 2, 1), None),
        (2, "orange", 6, (6, 0, 0), (2, 3, None), None),
        (3, "red", 7, (0, 7, 0), (None, 1, None), Termination.RESIGN),
    ]
    assert series.winner == "yellow" and series.result_text() == "Yellow wins the series with 25 points"
    assert [r.outcome.reason for r in series.races] == [
        "Yellow 1st, Orange 2nd; Red sank", "Red 1st, Yellow 2nd, Orange 3rd", "Yellow 1st; Red resigned, Orange sank"]


def test_scripted_series_plies_run_on_from_race_to_race(scripted):
    """One ply per placement, two per turn (its roll and its direction), one per departure; a
    race starts at the ply where the one before ended."""
    logs = scripted.logs
    plies = []
    for log in logs:
        plies += [p for p, _ in log.placements] + [p for p, _ in log.moves] + [m.roll_ply for _, m in log.moves]
        plies += [x.ply for x in log.departures] + [x.roll.ply for x in log.departures if x.roll]
    assert sorted(plies) == list(range(scripted.series.ply))
    # race A: 3 placements and 13 turns; race B: 3 placements and 16 turns
    assert [log.first_ply for log in logs] == [0, 3 + 2 * 13, 3 + 2 * 13 + 3 + 2 * 16]


def test_scripted_series_record_verifies_and_holds_the_table(scripted):
    record = json.loads(json.dumps(scripted.record()))
    assert record["version"] == 2 and [r["letter"] for r in record["races"]] == ["A", "B", "C"]
    result = verify(record)
    assert result.ok, result.message
    assert result.message == "ok: 35 moves in 3 races replay"
    c = record["races"][2]
    assert c["departures"] == [{"color": "red", "termination": "resign", "ply": c["departures"][0]["ply"],
                                "roll": {"choice": {"change": "add", "remove": None, "reroll": []},
                                         "dice_before": [3], "rolled": [3], "dice": [3, 3],
                                         "roll_ply": c["departures"][0]["ply"] - 1}}]
    assert record["races"][1]["carried_damage"] == {"yellow": 0, "red": 1, "orange": 1}
    assert record["races"][0]["result"]["points"] == {"yellow": 10, "red": 0, "orange": 6}
    assert record["result"]["standings"][2] == {"place": 3, "color": "red", "points": 7, "race_points": [0, 7, 0],
                                                "positions": [None, 1, None], "left": "resign"}


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("races", 0, "moves", 3, "final"), [0, 0], "race A move 2 (yellow): recorded final"),
        (("races", 1, "carried_damage", "red"), 0, "race B: recorded carried_damage"),
        (("races", 1, "start_player"), "yellow", "race B: recorded start_player"),
        (("races", 0, "result", "points", "orange"), 7, "race A result"),
        (("races", 2, "departures", 0, "ply"), 9999, "race C"),
        (("result", "standings", 0, "points"), 26, "result: recorded"),
        (("series", "score_variant"), False, "race A result: recorded"),
        (("series", "start_player"), "purple", "cannot set up the series"),
    ],
)
def test_verify_names_what_differs_in_a_series_record(scripted, path, value, message):
    record = json.loads(json.dumps(scripted.record()))
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    result = verify(record)
    assert not result.ok and message in result.message, result.message


# --- series flow --------------------------------------------------------------------------------


def test_a_series_of_three_courses_on_one_lake():
    """Races A, B and C use the A-, B- and C-spots of one lake, each course validated (R2, R3)."""
    courses = new_courses("expert", rng=random.Random(11))
    assert [c.letter for c in courses] == ["A", "B", "C"]
    assert courses[0].lake is courses[1].lake is courses[2].lake
    assert all(validate_course(c).ok for c in courses)
    with pytest.raises(ValueError, match="one lake"):
        Series.start([courses[0], new_courses(rng=random.Random(1))[1]], 3, 0)


def test_r18_a_player_who_leaves_takes_no_part_in_later_races_and_the_start_player_skips_them():
    """R18 details: the seat of a player who left is skipped for placing, moving and choosing
    the start player (R15); a player whose boat already finished may leave too: its result in
    that race stands."""
    courses = scripted_courses()
    game = SeriesGame(Series.start(courses, COLORS[:4], start=0))
    game.resign(1)  # Red leaves during race A's placing: Yellow is the start player
    assert game.series.race.boats[1].retired is Termination.RESIGN
    rng = random.Random(5)
    player = RandomPlayer(rng)
    dice = RandomDice(rng)
    while len(game.series.races) == 1:
        state = game.state
        if state.phase is Phase.PLACE:
            game.place(*player.place(state))
        elif state.phase is Phase.DICE:
            game.choose_dice(player.dice(state), dice)
        else:
            game.choose_direction(player.direction(state))
    race_b = game.series.race
    assert [b.color for b in race_b.boats] == ["yellow", "orange", "purple"]
    # Yellow started race A; its left-hand neighbour Red left: Orange starts race B
    assert race_b.boats[race_b.start].color == "orange"
    assert game.series.to_move == game.series.seat_of("yellow")  # Yellow (right of Orange) places first
    with pytest.raises(IllegalMove, match="already left") as err:
        game.resign(1)
    assert err.value.rule == "R18"
    record = json.loads(json.dumps(game.record()))
    assert verify(record).ok, verify(record).message


def test_r18_the_series_ends_when_fewer_than_two_players_are_left():
    """With one player left the race ends where it stands (the boats still in it ranked as at the
    cut-off) and so does the series; the player who stayed wins whatever the points."""
    game = SeriesGame(Series.start(scripted_courses(), COLORS[:3], start=0))
    run_script(game, "O@-6,12 SW | R@14,12 SE | Y@-4,12 NE\nY + 3 NE | R + 2 SE | O + 1 SE")
    game.resign(1)
    assert not game.series.over
    game.resign(0)
    series = game.series
    assert series.over and len(series.races) == 1
    race = series.race
    assert race.outcome.termination is Termination.RESIGN
    assert [race.boats[s].color for s in race.positions] == ["orange"]
    assert [s.color for s in series.standings()] == ["orange", "yellow", "red"]
    assert series.winner == "orange"
    assert "fewer than two players left" in series.result_text()
    with pytest.raises(GameOver):
        series.resign(2)
    assert verify(json.loads(json.dumps(game.record()))).ok


# Race A of the scripted series up to Yellow finishing (its 4th move); Red has sunk, Orange races on
RACE_A_TO_YELLOWS_FINISH = "\n".join(RACE_A.strip().splitlines()[:4]) + "\nY + 3 SE"


def test_r18_a_finished_boat_keeps_its_position_and_points_when_its_player_leaves_later_in_the_race():
    """R18 details: "a boat that had already finished keeps its position and points (R14: what is
    scored stands)". Yellow finishes race A first, then its player resigns while Orange is still
    racing: Yellow keeps 1st place, with the score variant's points, and takes no part in race B;
    the player ranks below everyone who stayed, with the points scored."""
    game = SeriesGame(Series.start(scripted_courses(), COLORS[:3], start=0, score_variant=True))
    run_script(game, RACE_A_TO_YELLOWS_FINISH)
    race = game.series.race
    assert race.boats[0].finished and race.boats[1].sunk and race.positions == (0,)
    game.resign(0)
    race = game.series.race
    assert race.positions == (0,) and race.boats[0].finished and race.boats[0].retired is None
    assert not race.over and game.series.to_move == 2  # Orange races on (two players are left)
    run_script(game, "O -1 NE\nO = E\nO + 3 SE\nO -1 SE")  # Orange finishes in 7
    race_a = game.series.races[0]
    assert race_a.over and [race_a.boats[s].color for s in race_a.positions] == ["yellow", "orange"]
    # R19, score variant: (3 − 1) × 1 + (7 − 4) moves before the last finisher + 5 for Red's sinking
    scores = {s.color: s for s in race_scores(race_a)}
    assert (scores["yellow"].position, scores["yellow"].position_points, scores["yellow"].variant_points) == (1, 2, 8)
    assert (scores["orange"].position, scores["orange"].points) == (2, 1 + 0 + 5)
    assert [b.color for b in game.series.race.boats] == ["red", "orange"]  # race B without Yellow
    table = game.series.standings()
    assert [(t.color, t.points, t.positions, t.left) for t in table] == [
        ("orange", 6, (2, None), None), ("red", 0, (None, None), None),
        ("yellow", 10, (1, None), Termination.RESIGN)]
    record = json.loads(json.dumps(game.record()))
    assert record["races"][0]["result"]["points"]["yellow"] == 10
    assert verify(record).ok, verify(record).message


def test_r18_with_fewer_than_two_players_left_the_race_ends_at_once_as_at_the_cut_off():
    """R18 details: "With fewer than two players left the series ends: the race in play ends at
    once, and the boats still on the lake take the positions after the finishers as at the
    cut-off". Yellow has rolled and awaits its direction when Red and then Orange resign: the race
    ends with the second departure, not at Yellow's next move; Yellow is ranked as at the cut-off
    and scores (n − 1) × 1 with n = 3 boats placed; the series is over."""
    game = SeriesGame(Series.start(scripted_courses(), COLORS[:3], start=0))
    run_script(game, "O@-6,12 SW | R@14,12 SE | Y@-4,12 NE")
    assert game.choose_dice(parse_choice("+"), FixedDice([1])) is None  # three directions: awaiting one
    game.resign(1)
    assert not game.series.over and game.state.phase is Phase.DIRECTION
    ply = game.series.ply
    game.resign(2)
    series = game.series
    assert series.over and series.race.over and series.race.pending is None
    assert series.ply == ply + 1  # the departure is the last action: closing the race adds none
    assert series.race.outcome.reason == "Yellow 1st (cut off); Red resigned, Orange resigned"
    assert [(s.color, s.position, s.points) for s in race_scores(series.race)] == [
        ("yellow", 1, 2), ("red", None, 0), ("orange", None, 0)]
    with pytest.raises(GameOver):
        series.choose_direction(series.race.boats[0].heading)
    assert len(series.races) == 1 and series.winner == "yellow"
    assert verify(json.loads(json.dumps(game.record()))).ok


def test_r18_a_boat_not_yet_placed_takes_no_position_when_the_race_ends_during_placing():
    """R18 details: "a seat whose boat was not yet placed (the race ended during placing) was
    never on the lake and takes no position"; R19: n counts the boats placed. Placing order from
    start player Yellow: Orange, Red, Yellow."""
    # Orange placed, Red leaves before placing, Orange leaves: Yellow, never placed, stays alone
    game = SeriesGame(Series.start(scripted_courses(), COLORS[:3], start=0))
    run_script(game, "O@-6,12 SW")
    game.resign(1)
    game.resign(2)
    series = game.series
    assert series.over and series.race.positions == ()
    assert [(s.position, s.points) for s in race_scores(series.race)] == [(None, 0)] * 3
    assert series.race.outcome.reason == "no boat finished; Red resigned, Orange resigned"
    assert [(t.color, t.place, t.points) for t in series.standings()] == [
        ("yellow", 1, 0), ("red", 2, 0), ("orange", 2, 0)]
    assert series.result_text() == "Yellow wins the series with 0 points (ended after race A: fewer than two players left)"
    assert verify(json.loads(json.dumps(game.record()))).ok
    # Orange and Red placed, Red leaves, Yellow leaves before placing: Orange, on the lake, is 1st
    # of the n = 2 boats that started (Yellow's was never placed): (2 − 1) × 1
    game = SeriesGame(Series.start(scripted_courses(), COLORS[:3], start=0))
    run_script(game, "O@-6,12 SW | R@14,12 SE")
    game.resign(1)
    game.resign(0)
    race = game.series.race
    assert race.over and [race.boats[s].color for s in race.positions] == ["orange"]
    assert boats_started(race.boats) == 2
    assert [(s.color, s.position, s.points) for s in race_scores(race)] == [
        ("yellow", None, 0), ("red", None, 0), ("orange", 1, 1)]
    assert verify(json.loads(json.dumps(game.record()))).ok


# --- rules versions: series started before R18/R19's details changed keep the old ones ------------


def test_rules_version_1_counts_every_boat_in_r19s_n_and_replays_by_it():
    """A series started under version 1 of R18/R19's details (before n counted only the boats
    placed) keeps it: Red left before placing, yet n = 4 in race A, so Purple 1st, Orange 2nd,
    Yellow 3rd score (4 − p) × 1 = 3, 2, 1, as they were scored then. The same actions under
    version 2 give the same race and positions but 2, 1, 0 (n = 3). Each record states its
    version and replays by it; a record stating none is read as version 1."""
    old, new = red_leaves_before_placing(RULES_V1), red_leaves_before_placing(RULES_V2)
    assert old.series.rules_version == RULES_V1 and new.series.rules_version == RULES_V2 == RULES_VERSION
    assert all(r.rules.rules_version == RULES_V1 for r in old.series.races)  # race B too
    assert all(r.rules.rules_version == RULES_V2 for r in new.series.races)
    old_a, new_a = old.series.races[0], new.series.races[0]
    assert old_a.positions == new_a.positions and old_a.boats == new_a.boats
    assert old_a.rules.boats_counted(old_a.boats) == 4 and new_a.rules.boats_counted(new_a.boats) == 3
    assert [(s.color, s.position, s.points) for s in race_scores(old_a)] == [
        ("yellow", 3, 1), ("red", None, 0), ("orange", 2, 2), ("purple", 1, 3)]
    assert [(s.color, s.position, s.points) for s in race_scores(new_a)] == [
        ("yellow", 3, 0), ("red", None, 0), ("orange", 2, 1), ("purple", 1, 2)]
    record = json.loads(json.dumps(old.record()))
    assert record["series"]["rules_version"] == 1
    assert record["races"][0]["result"]["points"] == {"yellow": 1, "red": 0, "orange": 2, "purple": 3}
    assert verify(record).ok, verify(record).message
    del record["series"]["rules_version"]  # as written before there were versions
    assert verify(record).ok, verify(record).message
    newer = json.loads(json.dumps(new.record()))
    assert newer["series"]["rules_version"] == 2 and verify(newer).ok
    # the version is what the replay follows: each record read by the other version differs
    record["series"]["rules_version"] = 2
    assert verify(record).message.startswith("race A result: recorded")
    del newer["series"]["rules_version"]
    assert verify(newer).message.startswith("race A result: recorded")


def test_rules_version_1_ranks_a_boat_not_yet_placed_when_the_race_ends_during_placing():
    """Version 1 (as before the change): a race that ends because fewer than two players are
    left ranks every boat still in it as at the cut-off, placed or not, and n is every boat of
    the race. Orange placed, Red and Orange leave: Yellow, never placed, is 1st of 3 and scores
    (3 − 1) × 1 = 2 (version 2: no position, 0). Orange and Red placed, Red and Yellow leave:
    Orange is 1st of 3, 2 points (version 2: of the 2 placed, 1 point)."""
    game = SeriesGame(Series.start(scripted_courses(), COLORS[:3], start=0, rules_version=RULES_V1))
    run_script(game, "O@-6,12 SW")
    game.resign(1)
    game.resign(2)
    series = game.series
    assert series.over and series.race.outcome.reason == "Yellow 1st (cut off); Red resigned, Orange resigned"
    assert [(s.color, s.position, s.points) for s in race_scores(series.race)] == [
        ("yellow", 1, 2), ("red", None, 0), ("orange", None, 0)]
    assert series.result_text() == "Yellow wins the series with 2 points (ended after race A: fewer than two players left)"
    record = json.loads(json.dumps(game.record()))
    assert record["series"]["rules_version"] == 1 and verify(record).ok
    game = SeriesGame(Series.start(scripted_courses(), COLORS[:3], start=0, rules_version=RULES_V1))
    run_script(game, "O@-6,12 SW | R@14,12 SE")
    game.resign(1)
    game.resign(0)
    race = game.series.race
    assert race.over and [race.boats[s].color for s in race.positions] == ["orange"]
    assert [(s.color, s.position, s.points) for s in race_scores(race)] == [
        ("yellow", None, 0), ("red", None, 0), ("orange", 1, 2)]
    assert verify(json.loads(json.dumps(game.record()))).ok


RECORDS_BEFORE_VERSIONS = Path(__file__).with_name("series_records_before_rules_versions.json")


@pytest.mark.parametrize("name", ["left-before-placing", "ended-during-placing"])
def test_series_records_written_before_rules_versions_verify_as_version_1(name):
    """Two records exported by the engine before R18/R19's details changed (commit e0948c6, the
    file's ``meta.written_by``): Red left before placing and the others played race A out
    (:func:`red_leaves_before_placing`, n = 4 then), and race A ended during placing with Yellow
    never placed (ranked 1st then). They state no rules version, so they replay by version 1
    and verify again; by version 2 they would not (their points were scored by version 1).

    Written with ``git archive e0948c6 games/engine tests/engine`` unpacked apart, by the
    scenarios of this module's rules-version tests and ``json.dumps(game.record())``."""
    record = json.loads(RECORDS_BEFORE_VERSIONS.read_text())[name]
    assert "rules_version" not in record["series"] and record["meta"] == {"written_by": "engine at e0948c6"}
    result = verify(record)
    assert result.ok, result.message
    assert result.series is not None and result.series.rules_version == RULES_V1
    points = {"left-before-placing": {"yellow": 1, "red": 0, "orange": 2, "purple": 3},
              "ended-during-placing": {"yellow": 2, "red": 0, "orange": 0}}[name]
    assert record["races"][0]["result"]["points"] == points
    record["series"]["rules_version"] = RULES_V2
    assert not verify(record).ok


@pytest.mark.parametrize("version", [0, 3, "1", True, None])
def test_an_unknown_rules_version_is_refused(version):
    with pytest.raises(ValueError, match="rules version"):
        Series.start(scripted_courses(), 3, 0, rules_version=version)  # type: ignore[arg-type]
    record = json.loads(json.dumps(SeriesGame(Series.start(scripted_courses(), 3, 0)).record()))
    record["series"]["rules_version"] = version
    result = verify(record)
    assert not result.ok and result.message.startswith("cannot set up the series") and "rules" in result.message


def test_only_the_player_to_move_loses_on_time_in_a_series():
    game = SeriesGame(Series.start(scripted_courses(), COLORS[:3], start=1))
    with pytest.raises(IllegalMove) as err:
        game.time_out(2)
    assert err.value.rule == "R18"
    assert game.series.to_move == 0  # start Red: Yellow (its right-hand neighbour) places first
    game.time_out(0)
    assert game.series.left == {0} and game.series.to_move == 2


@pytest.mark.parametrize("boats", [2, 3, 4, 5, 6])
def test_random_series_of_2_to_6_boats_verify(boats):
    rng = random.Random(boats)
    courses = new_courses("standard", rng=rng)
    game = play_series(Series.start(courses, boats, rng.randrange(boats)), [RandomPlayer(rng)] * boats,
                       RandomDice(rng))
    record = json.loads(json.dumps(game.record()))
    result = verify(record)
    assert result.ok, result.message
    assert len(record["races"]) == 3 and record["result"]["standings"]


def test_the_command_line_simulates_verifies_and_shows_series(tmp_path, capsys):
    out = tmp_path / "series"
    assert main(["simulate", "--boats", "3", "--series", "--games", "2", "--players", "easy", "random",
                 "--seed", "4", "--out", str(out)]) == 0
    files = sorted(str(p) for p in out.glob("series-*.json"))
    assert len(files) == 2
    assert main(["verify", *files]) == 0
    assert main(["show", files[0], "--race", "B", "--move", "3"]) == 0
    shown = capsys.readouterr().out
    assert "race B of 3 (x2)" in shown and "after move 3:" in shown
    assert main(["show", files[0]]) == 0
    assert "series:" in capsys.readouterr().out
    assert main(["simulate", "--boats", "4", "--games", "1", "--out", str(tmp_path / "race")]) == 0
    race_file = str(next((tmp_path / "race").glob("race-*.json")))
    assert main(["verify", race_file]) == 0
    assert json.loads(open(race_file).read())["series"]["races"] == 1


def test_a_refused_departure_leaves_the_roll_awaiting_its_direction_in_the_record():
    game = SeriesGame(Series.start(scripted_courses(), COLORS[:3], start=0))
    run_script(game, "O@-6,12 SW | R@14,12 SE | Y@-4,12 NE")
    assert game.choose_dice(parse_choice("+"), FixedDice([1])) is None  # Yellow: three directions
    with pytest.raises(IllegalMove):
        game.time_out(2)  # Orange is not to move
    record = json.loads(json.dumps(game.record()))
    assert record["races"][0]["pending"]["roll_ply"] == 3 and record["races"][0]["departures"] == []
    assert verify(record).ok
    game.resign(0)  # Yellow leaves between its roll and its direction: the roll goes with it
    record = json.loads(json.dumps(game.record()))
    assert record["races"][0]["pending"] is None
    assert record["races"][0]["departures"][0]["roll"]["roll_ply"] == 3
    assert verify(record).ok, verify(record).message
