"""Test data: players, games on fixed courses, and turns played through the services."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.test import APIClient

from games import services
from games.engine import Phase, new_course
from games.engine.players import GreedyPlayer
from games.engine.route import MapCache
from games.models import Game, Move, Seat
from games.state import course_data, state_of

User = get_user_model()
PASSWORD = "a-long-test-password-1"


def make_user(name: str, **extra: Any) -> Any:
    return User.objects.create_user(name, f"{name}@example.com", PASSWORD, **extra)


def client_for(user: Any) -> APIClient:
    """An API client signed in as ``user`` (no token round trip: tests/games/test_api.py has that)."""
    client = APIClient()
    client.force_authenticate(user)
    return client


@lru_cache(maxsize=64)
def _course(seed: int, side: str, letter: str) -> str:
    return json.dumps(course_data(new_course(side, letter, random.Random(seed))))


def fixed_course(seed: int = 3, side: str = "standard", letter: str = "A") -> dict[str, Any]:
    """The same lake and course for the same seed (generated once per test run)."""
    return json.loads(_course(seed, side, letter))


def make_game(yellow: Any = None, red: Any = None, seed: int = 3, **extra: Any) -> Game:
    yellow = yellow or make_user("yvonne")
    red = red or make_user("roland")
    return services.game_create(yellow=yellow, red=red, course_json=fixed_course(seed), **extra)


def placed_game(**kwargs: Any) -> Game:
    game = make_game(**kwargs)
    line = game.course.data["course"]["start_finish_cells"]
    services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    services.game_place(user=game.player(1), game_id=game.pk, ply=1, cell=tuple(line[2]), heading=0)
    game.refresh_from_db()
    return game


# The route maps of the courses the tests play, shared by every greedy player of the process: a
# map is a function of its course alone (~0.13 s of CPU to build), the tests play the same few fixed
# courses again and again, and each seat of a series had built its own (over tests/games and
# tests/tournaments: 156 maps built, 16 with the cache)
ROUTE_MAPS = MapCache(size=16)


def greedy_player(seed: int) -> GreedyPlayer:
    """The engine's greedy player drawing from ``Random(seed)``, with the shared route maps."""
    return GreedyPlayer(random.Random(seed), maps=ROUTE_MAPS)


_PLAYERS: dict[tuple[int, str], GreedyPlayer] = {}


def greedy_action(game: Game) -> dict[str, Any]:
    """One action for the player to move, chosen by the greedy player, through the services."""
    game.refresh_from_db()
    state = state_of(game)
    key = (game.pk, game.dice_seed)  # one player (and its route map) per game
    player = _PLAYERS.get(key)
    if player is None:
        _PLAYERS.clear()
        player = _PLAYERS[key] = greedy_player(game.pk)
    user = game.player(game.to_move)
    if state.phase is Phase.PLACE:
        cell, heading = player.place(state)
        return services.game_place(user=user, game_id=game.pk, ply=game.ply, cell=cell, heading=heading)
    if state.phase is Phase.DICE:
        return services.game_roll(user=user, game_id=game.pk, ply=game.ply, choice=player.dice(state))
    return services.game_choose_direction(user=user, game_id=game.pk, ply=game.ply, direction=player.direction(state))


def play_until(game: Game, done: Any, limit: int = 400) -> Game:
    for _ in range(limit):
        game.refresh_from_db()
        if game.over or done(game):
            return game
        greedy_action(game)
    raise AssertionError("the game did not get there")


def snapshot(game: Game) -> tuple[Any, ...]:
    """Everything stored about a game, to show that a refused request changed nothing."""
    game.refresh_from_db()
    row = {f.attname: getattr(game, f.attname) for f in Game._meta.concrete_fields if f.attname != "updated_at"}
    seats = list(Seat.objects.filter(game=game).order_by("index").values())
    moves = list(Move.objects.filter(game=game).order_by("ply").values_list("pk", "ply", "notation"))
    return (row, seats, moves)


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls in threads released together; their results, or the exceptions they raised.
    Each thread closes its own database connection (for PostgreSQL concurrency tests)."""
    barrier = threading.Barrier(len(calls))
    out: list[Any] = [None] * len(calls)

    def run(i: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            out[i] = call()
        except Exception as exc:
            out[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out
