"""Play a series (a game of the boxed rules) through the services, each seat by a deterministic
engine player (tests)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games import services
from games.engine import Phase
from games.engine.players import GreedyPlayer
from games.models import Game
from games.rulesets import match_of
from games.selectors import game_with_seats

from .factories import greedy_player


def engine_now(game_id: int) -> Any:
    """The game, its seats and the engine's series as they stand."""
    found = game_with_seats(game_id)
    assert found is not None
    game, seats = found
    return game, seats, match_of(game, seats) if game.status in (Game.Status.ACTIVE, Game.Status.FINISHED) else None


def started(users: list[Any], seed: int = 16, **options: Any) -> Game:
    """A series opened by the first user and joined by the others in order (the last seat starts
    it, with ``seed`` for its lake, lot and dice)."""
    game = services.game_open(user=users[0], seats=len(users), **options)
    for user in users[1:-1]:
        services.game_join(user=user, game_id=game.pk)
    services.game_join(user=users[-1], game_id=game.pk, rng=random.Random(seed))
    game.refresh_from_db()
    return game


def play(game_id: int, seed: int = 1, stop: Callable[[Any], bool] | None = None, limit: int = 5000) -> Game:
    """Every seat plays GreedyPlayer(Random(seed + seat)) until the series is over (or ``stop``)."""
    players: dict[int, GreedyPlayer] = {}
    for _ in range(limit):
        game, _seats, engine = engine_now(game_id)
        if game.status != Game.Status.ACTIVE or (stop and stop(engine)):
            return game
        seat = game.seat_at(game.to_move)
        assert seat is not None and seat.index is not None
        player = players.setdefault(seat.index, greedy_player(seed + seat.index))
        state = engine.race
        if state.phase is Phase.PLACE:
            cell, heading = player.place(state)
            services.game_place(user=seat.user, game_id=game_id, ply=game.ply, cell=cell, heading=heading)
        elif state.phase is Phase.DICE:
            services.game_roll(user=seat.user, game_id=game_id, ply=game.ply, choice=player.dice(state))
        else:
            services.game_choose_direction(user=seat.user, game_id=game_id, ply=game.ply,
                                           direction=player.direction(state))
    raise AssertionError("the series did not end")
