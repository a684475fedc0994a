"""Play a series through the services, each seat by a deterministic engine player (tests)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from games import services_series as svc
from games.engine import Phase
from games.engine.players import GreedyPlayer
from games.models_series import SeriesGame


def engine_now(series_id: int) -> Any:
    series = SeriesGame.objects.get(pk=series_id)
    seats = list(series.seats.select_related("user"))
    return series, seats, svc.engine_of(series, seats).series


def play(series_id: int, seed: int = 1, stop: Callable[[Any], bool] | None = None, limit: int = 5000) -> SeriesGame:
    """Every seat plays GreedyPlayer(Random(seed + seat)) until the series is over (or ``stop``)."""
    players: dict[int, GreedyPlayer] = {}
    for _ in range(limit):
        series, seats, engine = engine_now(series_id)
        if series.status != SeriesGame.Status.ACTIVE or (stop and stop(engine)):
            return series
        seat = svc.playing_seats(seats)[series.to_move]
        player = players.setdefault(seat.index, GreedyPlayer(random.Random(seed + seat.index)))
        state = engine.race
        if state.phase is Phase.PLACE:
            cell, heading = player.place(state)
            svc.series_place(user=seat.user, series_id=series_id, ply=series.ply, cell=cell, heading=heading)
        elif state.phase is Phase.DICE:
            svc.series_roll(user=seat.user, series_id=series_id, ply=series.ply, choice=player.dice(state))
        else:
            svc.series_direction(user=seat.user, series_id=series_id, ply=series.ply,
                                 direction=player.direction(state))
    raise AssertionError("the series did not end")
