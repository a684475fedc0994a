"""Idempotency keys for every game (issue 25: what a two-player game has, a series has): an
action POSTed again with the same ``Idempotency-Key`` (a phone that lost the answer and
retries) gets the first answer and makes no second action; a key used for another action is
refused with 409 naming the header; a malformed key is refused with 400 and changes nothing.
One key space per player over games and series."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
from rest_framework.test import APIClient

from games import services
from games.models import Move

from .factories import client_for, make_user, placed_game
from .series_play import play

pytestmark = pytest.mark.django_db



@dataclass
class Turn:
    """A game of one kind with a player to move: where they roll, and how its history is counted."""

    user: Any
    client: APIClient
    roll: str  # the URL of a roll
    resign: str
    ply: int
    history: Any  # a callable: the number of history rows

    def post(self, url: str, body: dict[str, Any], key: str | None):
        headers = {} if key is None else {"HTTP_IDEMPOTENCY_KEY": key}
        return self.client.post(url, body, format="json", **headers)


def a_game(**players: Any) -> Turn:
    game = placed_game(**players)
    return Turn(game.player(1), client_for(game.player(1)), f"/api/games/{game.pk}/roll/", f"/api/games/{game.pk}/resign/", game.ply,
                lambda: Move.objects.filter(game=game).count())


def a_series(old_paths: bool = False) -> Turn:
    """A series with its player to move to roll, acted on at /api/games/<pk>/ (or, with
    ``old_paths``, at the series API kept by its number, /api/series/<number>/)."""
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    series = services.game_open(user=users[0], seats=3)
    for user in users[1:]:
        services.game_join(user=user, game_id=series.pk, rng=random.Random(5))
    series.refresh_from_db()
    # every boat placed: the player to move rolls
    play(series.pk, seed=1, stop=lambda engine: engine.race.phase.value == "dice")
    series.refresh_from_db()
    mover = series.seats.get(index=series.to_move).user
    base = f"/api/series/{series.series_number}" if old_paths else f"/api/games/{series.pk}"
    return Turn(mover, client_for(mover), f"{base}/roll/", f"{base}/resign/", series.ply,
                lambda: Move.objects.filter(game=series).count())


KINDS = {"game": a_game, "series": a_series, "series-old-paths": lambda: a_series(old_paths=True)}


@pytest.mark.parametrize("kind", KINDS)
def test_a_retried_action_gets_its_first_answer_and_acts_once(kind):
    turn = KINDS[kind]()
    before = turn.history()
    body = {"ply": turn.ply, "change": "add"}
    first = turn.post(turn.roll, body, "retry-1")
    again = turn.post(turn.roll, body, "retry-1")
    assert first.status_code == again.status_code == 200, first.json()
    assert first.json() == again.json()
    assert turn.history() > before
    after = turn.history()
    assert turn.post(turn.roll, body, "retry-1").json() == first.json() and turn.history() == after


@pytest.mark.parametrize("kind", KINDS)
def test_a_key_used_for_another_action_is_refused_and_changes_nothing(kind):
    turn = KINDS[kind]()
    assert turn.post(turn.roll, {"ply": turn.ply, "change": "add"}, "once").status_code == 200
    after = turn.history()
    other = turn.post(turn.resign, {"confirm": True}, "once")
    assert other.status_code == 409 and other.json()["field"] == "Idempotency-Key"
    assert turn.history() == after


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("key", ["", "with space", "x" * 101, "é"])
def test_a_malformed_key_is_refused_and_changes_nothing(kind, key):
    turn = KINDS[kind]()
    before = turn.history()
    refused = turn.post(turn.roll, {"ply": turn.ply, "change": "add"}, key)
    assert refused.status_code == 400 and refused.json()["field"] == "Idempotency-Key"
    assert turn.history() == before


def test_one_key_space_over_games_and_series():
    series = a_series()
    game = a_game(red=series.user)  # the series' player to move is red, to roll
    assert game.post(game.roll, {"ply": game.ply, "change": "add"}, "shared").status_code == 200
    reused = series.post(series.roll, {"ply": series.ply, "change": "add"}, "shared")
    assert reused.status_code == 409 and reused.json()["field"] == "Idempotency-Key"
