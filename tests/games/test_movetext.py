"""The long form of each move (issue 13, "the board reads like the box"): a pure function of the
recorded values, checked against the compact notation (docs/notation.md) it spells out."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.test import Client
from django.utils.translation import override

from games.engine.dice import Change, DiceChoice
from games.movetext import describe_dice, describe_end, describe_turn, long_forms
from games.selectors import history

from .factories import placed_game, play_until

ADD = DiceChoice(Change.ADD)


@pytest.fixture(autouse=True)
def english():
    with override("en"):
        yield


def test_a_turn_reads_as_a_sentence():
    assert describe_turn(color="red", choice=ADD, dice=(2, 3), direction=1, previous_heading=0, cells=5,
                         rounded=(1,)) == "Red rolls 2+3 (added a die), turns left to NE, moves 5 cells, rounds buoy 1"


@pytest.mark.parametrize(("direction", "before", "words"), [
    (0, 0, "goes straight on E"), (1, 0, "turns left to NE"), (5, 0, "turns right to SE"),
    (0, 5, "turns left to E"), (0, 1, "turns right to E"), (3, None, "goes straight on W"),
])
def test_left_and_right_follow_the_engine_direction_order(direction, before, words):
    # directions are counter-clockwise from east (games/engine/hexgrid.py): d+1 is left (R7)
    text = describe_turn(color="yellow", choice=ADD, dice=(1,), direction=direction, previous_heading=before, cells=1)
    assert f", {words}, moves 1 cell" in text


def test_crash_round_finish_and_sink_are_spelled_out():
    text = describe_turn(color="yellow", choice=DiceChoice(Change.KEEP, reroll=(0, 1)), dice=(3, 3), direction=2,
                         previous_heading=2, cells=2, auto=True, crash=True, damage=4, rounded=(2, 3), finished=True,
                         sunk=False)
    assert text == ("Yellow rolls 3+3 (re-rolled dice 1 and 2), goes straight on NW (the only way allowed), "
                    "moves 2 cells, crashes: 4 damage, rounds buoys 2 and 3, finishes")
    sunk = describe_turn(color="red", choice=DiceChoice(Change.KEEP), dice=(), direction=4, previous_heading=3,
                         cells=0, crash=True, damage=0, sunk=True)
    assert sunk == "Red holds no dice, turns left to SW, does not move, crashes: 0 damage, sinks"


@pytest.mark.parametrize(("choice", "dice", "words"), [
    (DiceChoice(Change.KEEP), (2, 1), "Red keeps 2+1"),
    (DiceChoice(Change.REMOVE, remove=1), (2,), "Red keeps 2 (removed die 2)"),
    (DiceChoice(Change.REMOVE, remove=0, reroll=(1,)), (3,), "Red rolls 3 (removed die 1, re-rolled die 2)"),
    (DiceChoice(Change.ADD, reroll=(0,)), (3, 1), "Red rolls 3+1 (added a die, re-rolled die 1)"),
])
def test_the_dice_choice_r6(choice, dice, words):
    assert describe_dice(color="red", choice=choice, dice=dice) == words


def test_endings():
    assert describe_end(termination="resign", color="yellow") == "Yellow resigns"
    assert describe_end(termination="timeout", color="red") == "Red loses on time"
    assert describe_end(termination="adjudication", color=None) == "The game is adjudicated"


def row(**values):
    base = {"seat": 0, "termination": "", "choice": None, "dice": [], "direction": None, "auto": False, "path": [],
            "final": None, "heading": None, "damage": 0, "crash": False, "rounded": [], "finished": False,
            "sunk": False}
    return SimpleNamespace(**{**base, **values})


def test_long_forms_follow_each_boats_heading_through_the_history():
    rows = [
        row(kind="place", seat=0, final=[1, 5], heading=0),
        row(kind="place", seat=1, final=[3, 5], heading=3),
        row(kind="roll", seat=1, choice={"change": "add", "remove": None, "reroll": []}, dice=[2]),
        row(kind="turn", seat=1, choice={"change": "add", "remove": None, "reroll": []}, dice=[2], direction=4,
            path=[[2, 6], [1, 7]], heading=4),
        row(kind="turn", seat=0, choice={"change": "add", "remove": None, "reroll": []}, dice=[1], direction=5,
            path=[[1, 6]], heading=5),
        row(kind="roll", seat=1, choice={"change": "keep", "remove": None, "reroll": [0]}, dice=[3]),
        row(kind="end", seat=1, termination="resign"),
    ]
    texts = long_forms(rows, ("yellow", "red"), {(1, 5): 1, (3, 5): 3})
    assert texts == [
        "Yellow starts on line cell 1, heading E",
        "Red starts on line cell 3, heading W",
        "Red rolls 2 (added a die) …",
        "Red rolls 2 (added a die), turns left to SW, moves 2 cells",  # W (3) -> SW (4) is left
        "Yellow rolls 1 (added a die), turns right to SE, moves 1 cell",  # E (0) -> SE (5) is right
        "Red rolls 3 (re-rolled die 1) …",
        "Red resigns",
    ]


@pytest.mark.django_db
def test_the_move_list_shows_both_forms_for_every_turn():
    game = play_until(placed_game(), lambda g: g.moves.filter(kind="turn").count() >= 4)
    page = Client().get(f"/games/{game.pk}/").content.decode()
    turns = [r for r in history(game) if r.kind == "turn"]
    for turn in turns:
        assert f'<code class="notation">{turn.notation}</code>' in page
    texts = long_forms(history(game), ("yellow", "red"))
    # each turn's sentence agrees with its notation: cells, crash and buoys
    for turn, text in zip([r for r in history(game)], texts, strict=True):
        if turn.kind != "turn":
            continue
        assert f"moves {len(turn.path)} cell" in text or (not turn.path and "does not move" in text)
        assert ("crashes" in text) == turn.crash
        assert text in page


@pytest.mark.django_db
def test_the_kept_words_of_a_game_grow_with_its_history_and_say_what_long_forms_says():
    """The page's move list says its rows from KEPT_LONG_FORMS (games/movetext.py): after each
    action only the new rows are said, from the boats' headings kept with the words (a turn's
    "turns left" depends on the heading before it), and the words are long_forms' own. A game id
    used again by another game (another dice commitment), another language and an older read each
    get their own words."""
    from games.movetext import KeptLongForms

    kept = KeptLongForms()
    game = placed_game()
    colors = ("yellow", "red")
    said: list[list[str]] = []
    while game.moves.filter(kind="turn").count() < 6:
        play_until(game, lambda g, n=game.ply: g.ply > n)
        game.refresh_from_db()
        rows = history(game)
        words = kept.of(game.pk, game.dice_seed_sha256, rows, colors)
        assert words == long_forms(rows, colors)
        said.append(words)
    assert any("turns" in w for w in said[-1]), "a turn said from a kept heading"
    rows = history(game)
    # an older read (fewer rows than kept): the first of the kept words, the kept ones left as they are
    assert kept.of(game.pk, game.dice_seed_sha256, rows[:3], colors) == said[-1][:3]
    assert kept.of(game.pk, game.dice_seed_sha256, rows, colors) == said[-1]
    # the same id with another game's commitment, with other rows: said afresh
    other = [SimpleNamespace(**{**vars(r), "seat": 1 - r.seat}) for r in rows]
    assert kept.of(game.pk, "another game", other, colors) == long_forms(other, colors) != said[-1]
    with override("de"):
        german = kept.of(game.pk, game.dice_seed_sha256, rows, colors)
    assert german != said[-1]
    with override("de"):
        assert german == long_forms(rows, colors)
