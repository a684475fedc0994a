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


# --- races of the boxed game (R15-R19) --------------------------------------------------------------


def test_bots_play_a_whole_series_of_three_boats_legally():
    from games.engine import Series, new_courses
    from games.engine.players import play_series
    from games.engine.route import MapCache

    rng = random.Random(8)
    maps = MapCache()
    series = Series.start(new_courses("standard", rng=rng), 3, 1)
    players = [make_player(level, random.Random(i), maps=maps) for i, level in enumerate(("strong", "normal", "easy"))]
    game = play_series(series, players, RandomDice(rng))
    assert game.series.over
    result = verify(json.loads(json.dumps(game.record())))
    assert result.ok, result.message


def race_state():
    """Three boats on an open lake (buoys 1, 2, 3 rounded by going north across their gates, the
    bottom row the line, as in test_series.py): Yellow to move, Red and Orange its rivals."""
    from games.engine import Boat, GameState, Phase, RaceRules
    from games.engine.hexgrid import offset_to_axial

    from .helpers import open_course

    buoys = {0: offset_to_axial(20, 0), 1: offset_to_axial(1, 9), 2: offset_to_axial(1, 7), 3: offset_to_axial(1, 5)}
    course = open_course(buoys, {1: ("E", "ccw"), 2: ("E", "ccw"), 3: ("E", "ccw")},
                         [offset_to_axial(c, 12) for c in range(21)], 21, 13)
    boats = (Boat("yellow", (0, 10), d("NE"), (2,), moves=3), Boat("red", (4, 10), d("NE"), (3,), moves=3),
             Boat("orange", (8, 6), d("NE"), (1, 1), next_buoy=3, moves=3))
    return GameState(course, boats, Phase.DICE, 0, rules=RaceRules(2, False))


def test_in_a_race_the_bot_values_the_points_at_stake():
    """R18, R19: in points, a finished boat is worth its position's points, a sunk boat less
    than any boat afloat, and a boat is worth more the further its rivals are behind."""
    from games.engine import Boat

    bot = ExpectimaxPlayer(2, random.Random(0))
    state = race_state()
    stakes = bot.stakes(state)
    assert stakes is not None and (stakes.n, stakes.k, stakes.taken) == (3, 2, 0) and len(stakes.rivals) == 2
    me = state.boat
    finished = Boat("yellow", me.cell, finished=True, next_buoy=4, moves=me.moves + 1)
    sunk = Boat("yellow", me.cell, sunk=True, damage=4, moves=me.moves + 1)
    afloat = me.with_dice((2,))
    assert stakes.value(finished, 0) == 2 * (3 - 1) - stakes.progress * finished.moves
    assert stakes.value(sunk, 0) < stakes.value(afloat, 60) < stakes.value(afloat, 10) < stakes.value(finished, 0)
    ahead = stakes.value(afloat, min(stakes.rivals) - 5)
    behind = stakes.value(afloat, max(stakes.rivals) + 5)
    assert ahead - behind > 2  # most of the difference between 1st (4 points) and 3rd (0)
    from dataclasses import replace

    from games.engine import ONLINE

    assert bot.stakes(replace(state, rules=ONLINE)) is None  # the online game: no positions


def test_the_bots_n_follows_the_races_rules_version():
    """R19's n in the bot's stakes is the race's own: a fourth boat whose player left before
    placing it is not counted from rules version 2 (n = 3), and is in version 1 (n = 4), so a bot
    in a series started before the change values positions as that series scores them."""
    from dataclasses import replace

    from games.engine import Boat, RaceRules, Termination

    bot = ExpectimaxPlayer(2, random.Random(0))
    state = race_state()
    state = replace(state, boats=(*state.boats, Boat("purple", None, retired=Termination.RESIGN)))
    for version, n in ((1, 4), (2, 3)):
        stakes = bot.stakes(replace(state, rules=RaceRules(2, False, version)))
        assert stakes is not None and (stakes.n, stakes.k, len(stakes.rivals)) == (n, 2, 2)


def test_in_a_race_other_boats_are_obstacles_for_this_move_only_and_close_rivals_can_be_blocked():
    """R17: boats are passed but not ended on; by the bot's next turn they will have moved, so its
    look-ahead leaves them out; the cells where a close rival would land are worth ending on."""
    bot = ExpectimaxPlayer(2, random.Random(0))
    state = race_state()
    search = bot._search(state)
    assert search.later is not None and [b.cell for b in search.later] == [state.boat.cell, None, None]
    red = state.boats[1]
    rivals_landing = {state.course.rays[red.cell][x][2] for x in (d("NE"), d("NW"), d("E"))}
    assert rivals_landing and rivals_landing <= set(search.stakes.block)
    assert all(v > 0 for v in search.stakes.block.values())
    choice = bot.dice(state)  # and it plays
    assert choice in state.legal_dice_choices()
