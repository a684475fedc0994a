"""Test data for round-robins and the Competition: players with ratings, events created through
the services, games ended with chosen results."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import time_machine
from django.contrib.auth import get_user_model

from games.models import Game
from games.ratings.models import Rating
from tests.games.factories import make_user
from tournaments import services_formats as services
from tournaments.models import Group, GroupGame, RoundRobin
from tournaments.simulate import end_game

User = get_user_model()
T0 = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)


def players(count: int, prefix: str = "player", ratings: list[float] | None = None) -> list[Any]:
    users = [make_user(f"{prefix}{i}") for i in range(count)]
    for u, r in zip(users, ratings or [], strict=False):
        Rating.objects.create(user=u, rating=r)
    return users


def round_robin(count: int = 5, ratings: list[float] | None = None, prefix: str = "player",
                **fields: Any) -> tuple[RoundRobin, list[Any]]:
    """A round-robin starting at T0 with ``count`` registered players."""
    director = User.objects.filter(username="director").first() or make_user("director")
    options: dict[str, Any] = dict(name="Autumn round-robin", registration_closes_at=T0 - timedelta(hours=1),
                                   starts_at=T0)
    options.update(fields)
    users = players(count, prefix, ratings=ratings)
    with time_machine.travel(T0 - timedelta(days=2), tick=False):
        rr = services.round_robin_create(director=director, **options)
        for u in users:
            services.round_robin_register(user=u, round_robin_id=rr.pk)
    return rr, users


Outcome = Callable[[GroupGame], str]  # "white" (Red wins), "black" (Yellow), "draw", "forfeit-white", ...


def red_wins(_: GroupGame) -> str:
    return "white"


def lower_number_wins(g: GroupGame) -> str:
    """The player with the lower start number wins."""
    return "white" if g.red.number < g.yellow.number else "black"


def finish(group: Group, outcome: Outcome = red_wins, now: datetime | None = None) -> None:
    """End every created, unfinished game of ``group`` with the outcome chosen for it."""
    for g in group.games.filter(game__status=Game.Status.ACTIVE).select_related("game", "red", "yellow"):
        assert g.game is not None
        end_game(g.game, outcome(g), now or T0 + timedelta(hours=1))
