"""The engine's refusals reach a player in their language by code, not by parsing its English
(issue 25: outcomes as data): every code the engine gives has words in games/reasons.py, every
word there has a code the engine gives, and a refusal the old sentence-matching missed (a series
placement off the rows open for placing, R16) now arrives in German too."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from games import services
from games.engine import EngineError, IllegalMove
from games.errors import IllegalMoveError, engine_step
from games.reasons import REFUSALS, refusal_text

from .factories import client_for, greedy_action, make_user, placed_game

pytestmark = pytest.mark.django_db
ENGINE = Path(settings.BASE_DIR) / "games" / "engine"


def engine_codes() -> set[str]:
    """The codes of the engine's refusals: IllegalMove's fourth argument (or ``code=``), a
    ``code = "..."`` set for it in the function that raises it, and the rules' ``placing_refusal``."""
    def refusals(tree: ast.AST) -> list[ast.Call]:
        return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "IllegalMove"]

    codes = set()
    for path in ENGINE.glob("*.py"):
        module = ast.parse(path.read_text())
        for call in refusals(module):
            args = [*call.args[3:4], *(k.value for k in call.keywords if k.arg == "code")]
            codes |= {a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
        for node in ast.walk(module):
            if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "placing_refusal":
                codes.add(node.value.value)
            if isinstance(node, ast.FunctionDef) and refusals(node):
                for assign in (n for n in ast.walk(node) if isinstance(n, ast.Assign)):
                    for target in assign.targets:
                        names = target.elts if isinstance(target, ast.Tuple) else [target]
                        values = assign.value.elts if isinstance(assign.value, ast.Tuple) else [assign.value]
                        for name, value in zip(names, values, strict=False):
                            if getattr(name, "id", None) == "code" and isinstance(value, ast.Constant):
                                codes.add(value.value)
    return codes


def test_every_code_has_words_and_all_words_have_a_code():
    assert engine_codes() == set(REFUSALS)


def test_a_refusal_keeps_its_rule_and_field_and_speaks_the_readers_language():
    def refuse():
        raise IllegalMove("R6", "re-roll index 4 is not one of your 2 dice", "reroll", "reroll_index",
                          {"index": 4, "n": 2})

    with translation.override("it"), pytest.raises(IllegalMoveError) as info:
        engine_step(refuse)
    error = info.value
    assert (error.field, error.rule) == ("reroll", "R6")
    assert error.message == "l’indice 4 da ritirare non è uno dei tuoi 2 dadi"
    plain = EngineError("turn", "no seat 9", "seat")
    assert refusal_text(plain.code, plain.params, plain.message) == "no seat 9", "no words: the engine's English"


def test_a_series_placement_off_the_open_rows_is_refused_in_german():
    users = [make_user(n, language="de") for n in ("ann", "bob", "cid")]
    series = services.game_open(user=users[0], seats=3)
    for user in users[1:]:
        services.game_join(user=user, game_id=series.pk, rng=random.Random(5))
    series.refresh_from_db()
    mover = series.seats.get(index=series.to_move).user
    client = client_for(mover)
    # at the game's address and at the series' old one (by its number): the same refusal
    for url in (f"/api/games/{series.pk}/place/", f"/api/series/{series.series_number}/place/"):
        answer = client.post(url, {"ply": 0, "cell": [-40, -40], "heading": 0}, format="json",
                             HTTP_ACCEPT_LANGUAGE="de")
        assert answer.status_code == 400, url
        body = answer.json()
        assert body["rule"] == "R16" and body["field"] == "cell", url
        assert body["message"] == "(-40, -40) liegt weder auf der Start-/Ziellinie noch in einer zum Einsetzen " \
                                  "geöffneten Reihe dahinter", url


def test_a_direction_not_allowed_is_explained_in_italian():
    """Played on by the greedy player until a roll leaves a direction that is not allowed (R7)."""
    game = placed_game()
    for _ in range(200):
        game.refresh_from_db()
        assert not game.over, "no roll in this game left a direction that is not allowed"
        mover = game.player(game.to_move)
        client = client_for(mover)
        state = client.get(f"/api/games/{game.pk}/").json()
        refused = [o for o in state.get("options") or [] if not o["allowed"]]
        if state["phase"] == "direction" and refused:
            break
        greedy_action(game)
    answer = client.post(f"/api/games/{game.pk}/direction/", {"ply": state["ply"], "direction": refused[0]["direction"]},
                         format="json", HTTP_ACCEPT_LANGUAGE="it")
    body = answer.json()
    assert answer.status_code == 400 and body["rule"] == "R7" and body["field"] == "direction"
    assert body["message"].startswith("la direzione "), body["message"]
    assert "is not allowed" not in body["message"]
