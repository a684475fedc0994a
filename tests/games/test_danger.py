"""Danger before the dice (issue 24): for the player about to choose their dice, what each total
would then allow in each direction (R7–R12), what it forces (every allowed direction crashing,
R9, or sinking, R12), and each dice choice's chance of such a forced outcome (R6) — in the API's
``dice_options`` and on the game page, before anything is rolled."""

from __future__ import annotations

from fractions import Fraction

import pytest

from games.engine import Change, DiceChoice
from games.engine.hexgrid import direction_by_name as d
from games.payloads import dice_options, forced, outcomes
from tests.engine.helpers import Map

BOXED = """
. . . . . . . . . . . .
 . . # # . . . . . . . .
. . . R # . . . . . . .
 . . # # . . . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
0 = = = = F . . 1 2 3 Y
"""

OPEN = """
. . . . . . . . . . . . . . . . . . . .
 . . . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . . .
 . . . R . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . . .
 . . . . . . . . . . . . . . . . . . . .
0 = = = = F . . 1 2 3 Y . . . . . . . .
"""


def choice(options: dict, change: str, remove: int | None = None, reroll: tuple[int, ...] = ()) -> dict:
    return next(c for c in options["choices"]
                if c["change"] == change and c["remove"] == remove and tuple(c["reroll"]) == reroll)


def test_a_boat_boxed_in_by_land_is_told_which_choices_crash_or_sink_it():
    """Red points E with land ahead, left and right: every direction reaches 0 cells, so any total
    above 0 is a crash of that total (R7, R9); with damage 4 or more it sinks (R12)."""
    state = Map(BOXED).state("red", {"yellow": {}, "red": {"dice": (2,), "heading": d("E")}})
    options = dice_options(state)
    by_total = {row["total"]: row for row in options["outcomes"]}
    assert set(by_total) == {0, 1, 2, 3, 4, 5, 6}, "every total some choice can give (6: add one, roll both)"
    assert by_total[0]["forced"] is None, "no dice: the boat only turns, nothing happens to it"
    assert [by_total[t]["forced"] for t in (1, 2, 3)] == ["crash"] * 3
    assert [by_total[t]["forced"] for t in (4, 5, 6)] == ["sinks"] * 3
    assert all(o["crash"] and o["damage"] == 3 and o["allowed"] for o in by_total[3]["options"])
    # keep the 2: a crash for sure, not a sinking
    assert choice(options, "keep")["risk"] == {"crash": 1.0, "sinks": 0.0}
    # add a die: 3, 4 or 5, each a third: a crash always, a sinking two times in three
    added = choice(options, "add")["risk"]
    assert added["crash"] == 1.0 and Fraction(added["sinks"]).limit_denominator(100) == Fraction(2, 3)
    # give the die up: total 0, no move, no damage
    assert choice(options, "remove", 0)["risk"] == {"crash": 0.0, "sinks": 0.0}
    # roll it again: 1, 2 or 3, a crash always, never a sinking
    assert choice(options, "keep", None, (0,))["risk"] == {"crash": 1.0, "sinks": 0.0}


def test_a_boat_already_damaged_sinks_with_a_smaller_total():
    state = Map(BOXED).state("red", {"yellow": {}, "red": {"dice": (1,), "heading": d("E"), "damage": 2}})
    rows = {row["total"]: row["forced"] for row in dice_options(state)["outcomes"]}
    assert rows[1] == "crash" and rows[2] == "sinks" and rows[4] == "sinks"


def test_in_open_water_no_choice_forces_anything():
    state = Map(OPEN).state("red", {"yellow": {}, "red": {"dice": (2, 3), "heading": d("E")}})
    options = dice_options(state)
    assert all(row["forced"] is None for row in options["outcomes"])
    assert all(c["risk"] == {"crash": 0.0, "sinks": 0.0} for c in options["choices"])
    assert max(row["total"] for row in options["outcomes"]) == 9, "3 dice showing 3"


def test_forced_needs_every_allowed_direction_and_only_the_allowed_ones():
    """R7: a direction that is not allowed is not a way out; one safe allowed direction is."""

    class Way:
        def __init__(self, allowed: bool, crash: bool = False, sinks: bool = False) -> None:
            self.allowed, self.crash, self.sinks = allowed, crash, sinks

    assert forced([Way(True, crash=True), Way(True, crash=True, sinks=True), Way(False)]) == "crash"
    assert forced([Way(True, crash=True, sinks=True), Way(False), Way(False)]) == "sinks"
    assert forced([Way(True, crash=True), Way(True)]) is None
    assert forced([]) is None


def test_the_outcomes_are_the_engines_own_for_each_total():
    state = Map(BOXED).state("red", {"yellow": {}, "red": {"dice": (2,), "heading": d("E")}})
    for row in outcomes(state, [2, 5]):
        engine = state.options_for_total(row["total"])
        assert [(o["direction"], o["reach"], o["crash"], o["damage"], o["sinks"]) for o in row["options"]] == \
            [(o.direction, o.reach, o.crash, o.damage, o.sinks) for o in engine]
    # and a roll of that choice gives what the table said
    from games.engine import FixedDice

    rolled, _ = state.choose_dice(DiceChoice(Change.KEEP), FixedDice([]))
    assert [o.damage for o in rolled.options()] == [o["damage"] for o in outcomes(state, [2])[0]["options"]]


@pytest.mark.django_db
def test_the_api_gives_the_danger_to_the_player_about_to_choose_dice(client):
    from rest_framework.authtoken.models import Token

    from .factories import placed_game, play_until

    game = placed_game()
    game = play_until(game, lambda g: g.phase == "dice")
    mover = game.player(game.to_move)
    token = Token.objects.create(user=mover)
    answer = client.get(f"/api/games/{game.pk}/", HTTP_AUTHORIZATION=f"Token {token.key}").json()
    dice = answer["dice_options"]
    totals = {row["total"] for row in dice["outcomes"]}
    assert totals == {int(t) for c in dice["choices"] for t in c["totals"]}
    assert all(set(c["risk"]) == {"crash", "sinks"} and 0 <= c["risk"]["sinks"] <= c["risk"]["crash"] <= 1
               for c in dice["choices"])
    assert all(len(row["options"]) == 3 for row in dice["outcomes"])


def test_the_tables_rows_say_each_outcome_in_the_players_language_and_keep_the_plans_way():
    """The danger table's rows as the page shows them (games_extras.danger_rows, written in Python
    for speed: docs/performance.md): per total its forced outcome, the three directions in the
    order 60° left, straight on, 60° right, in the player's language, every value escaped; on the
    plan panel a way per total with the plan's way selected."""
    from django.utils import translation

    from games.templatetags.games_extras import danger_rows, plan_then_ways
    from games.turn_forms import WAY_CHOICES

    state = Map(BOXED).state("red", {"yellow": {}, "red": {"dice": (2,), "heading": d("E")}})
    rows = dice_options(state)["outcomes"]
    html = danger_rows(rows)
    assert html.count("<tr ") == 7 and 'data-total="4" data-forced="sinks"' in html
    assert 'data-total="0" data-forced=""' in html and "<select" not in html
    four = html.split('data-total="4"')[1].split("</tr>")[0]
    assert four.count('<td class="way sinks">sinks!</td>') == 3
    three = html.split('data-total="3"')[1].split("</tr>")[0]
    assert three.count('<td class="way crash">crash +3</td>') == 3

    # a buoy rounded, two buoys, a way not allowed (R7), in German; the plan's way for each total
    made = [{"total": 5, "forced": None, "way": "right", "options": [
        {"turn": "right", "allowed": True, "reach": 5, "rounded": [1, 2]},
        {"turn": "left", "allowed": False, "reach": 2, "rounded": []},
        {"turn": "straight", "allowed": True, "reach": 1, "rounded": [3]}]}]
    with translation.override("de"):
        html = danger_rows(made, True, WAY_CHOICES)
        then = plan_then_ways([(1, "ask"), (2, "left")], WAY_CHOICES)
    cells = html.split('<td class="chance">–</td>')[1]
    assert cells.index("nicht erlaubt") < cells.index("1 Feld") < cells.index("5 Felder"), "left, straight, right"
    assert "umrundet die Bojen 1 &amp; 2" in cells and "umrundet Boje 3" in cells
    assert '<option value="right" selected>' in html and html.count(" selected") == 1
    assert 'name="way_5"' in html and 'name="then_way_2"' in then
    assert '<option value="left" selected>' in then.split('name="then_way_2"')[1]


def test_the_players_rows_say_each_boat_in_the_players_language_with_every_value_escaped():
    """The players table's rows of a two-player game's page (games_extras.player_rows, written in
    Python for speed: docs/performance.md): the chip's letter, the player's name linked to their
    profile, the rating, the dice (a dash for none), damage and "sunk", the buoys with "+ finish"
    or the next buoy, the points, and the mark of the boat to move."""
    from types import SimpleNamespace

    from django.urls import reverse
    from django.utils import translation

    from games.templatetags.games_extras import player_rows

    name = '<b>"&x'
    players = [
        {"color": "yellow", "user": SimpleNamespace(username=name), "rating": "1500?", "dice": [], "damage": 4,
         "buoys": 3, "points": 4, "finished": True, "sunk": True, "to_move": False, "next_buoy": 4},
        {"color": "red", "user": SimpleNamespace(username="bob"), "rating": "1612", "dice": [1, 3], "damage": 1,
         "buoys": 2, "points": 2, "finished": False, "sunk": False, "to_move": True, "next_buoy": 3},
    ]
    with translation.override("de"):
        html = str(player_rows(players))
    yellow, red = html.split("<tr ")[1:]
    assert '<span class="chip yellow">Y</span>' in yellow and "&lt;b&gt;&quot;&amp;x</a>" in yellow
    assert f'href="{reverse("profile", args=[name]).replace("&", "&amp;")}"' in yellow
    assert '<td class="dice">–</td>' in yellow and 'data-damage="4">4 gesunken</td>' in yellow
    assert 'data-buoys="3">3 + Ziel</td>' in yellow and "turn-mark" not in yellow and 'class="yellow"' in yellow
    assert 'class="red to-move"' in red and 'title="am Zug">◀</span>' in red and '<small class="rating">1612</small>' in red
    assert '<span class="face">1</span><span class="face">3</span>' in red and 'data-damage="1">1</td>' in red
    assert 'data-buoys="2">2 (nächste 3)</td>' in red and '<td class="points">2</td>' in red
    assert "<b>" not in html
