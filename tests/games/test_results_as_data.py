"""Results as data (issue 25): the engine's outcome has a code and parameters, stored with the
game and the series and said in the reader's language; no English sentence is read back.

* In English, the words said from the code are the engine's own sentence, for every way a
  two-player game ends (played out by bots on many courses, then resigned, lost on time,
  adjudicated);
* the migration that gave the games of before their code (0018) reads each such sentence back
  to the engine's code and parameters;
* a finished game's and series' stored code equals its replay's (the verifiers compare them).
"""

from __future__ import annotations

import importlib
import random
from collections import Counter

import pytest
from django.utils import translation

from games.engine import SeededDice, Termination, new_course
from games.engine.players import GreedyPlayer, RandomPlayer, play_game
from games.engine.rules import ONLINE
from games.reasons import result_text

MIGRATION = importlib.import_module("games.migrations.0018_results_as_data")


def outcomes(n: int = 60):
    for seed in range(n):
        rng = random.Random(seed)
        course = new_course("standard" if seed % 2 else "expert", None, rng)
        players = [GreedyPlayer(random.Random(seed)) if seed % 3 else RandomPlayer(random.Random(seed)),
                   RandomPlayer(random.Random(seed + 1))]
        game = play_game(course, players, SeededDice(bytes([seed % 256]) * 32, 0))
        yield game.state.outcome
        mid = game.state
        for termination in (Termination.RESIGN, Termination.TIMEOUT):
            yield ONLINE.forfeit(mid, seed % 2, termination).outcome
        yield ONLINE.adjudicate(mid).outcome


@pytest.mark.slow
def test_every_outcome_said_from_its_code_reads_as_the_engines_sentence_and_the_migration_reads_it_back():
    seen: Counter[str] = Counter()
    with translation.override("en"):
        for outcome in outcomes():
            assert outcome is not None and outcome.code, outcome
            seen[outcome.code] += 1
            assert result_text(outcome.code, outcome.params, "") == outcome.reason, outcome
            assert MIGRATION.game_result(outcome.reason) == (outcome.code, outcome.params), outcome
    assert {"finished", "resigned", "timeout"} <= set(seen) and any(c.startswith("adjudicated") for c in seen), seen
    with translation.override("de"):
        assert result_text("finished", {"color": "red"}) == "Rot ist im Ziel"
        assert result_text("finished", {"color": "red"}, "Red finished") != "Red finished"


@pytest.mark.slow
@pytest.mark.django_db
def test_a_finished_game_and_series_store_their_result_as_data():
    from games import services
    from games.management.commands.verify_games import check_game
    from games.models import Game

    from .factories import make_game, make_user
    from .series_play import play

    game = make_game()
    services.game_resign(user=game.player(0), game_id=game.pk)
    game = Game.objects.get(pk=game.pk)
    assert (game.result_code, game.result_params) == ("resigned", {"color": "yellow"})
    assert game.result_reason == "Yellow resigned"

    users = [make_user(n) for n in ("ann", "bob", "cid")]
    series = services.game_open(user=users[0], seats=3, rated=False)
    services.game_join(user=users[1], game_id=series.pk)
    services.game_join(user=users[2], game_id=series.pk, rng=random.Random(16))
    series = play(series.pk)
    assert series.result_code in ("series_won", "series_shared")
    assert set(series.result_params) == {"colors", "points", "ended_after"}
    assert MIGRATION.series_result(series.result_reason) == (series.result_code, series.result_params)
    assert check_game(series) is None  # the stored code equals the replay's
    assert check_game(game) is None
