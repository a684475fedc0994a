"""Simulated tournaments for testing and for arbiters (manage.py simulate_tournament)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from games import services as game_services
from games.ratings.models import Rating

from . import services
from .models import Round, Tournament

User = get_user_model()


def end_game(game: Any, outcome: str, now: datetime) -> None:
    """Finish a freshly paired game with a chosen result: 'white'/'black' win (Red/Yellow),
    'draw' (adjudicated at once: equal points), or 'forfeit-white'/'forfeit-black' (the named
    colour loses on time without having moved)."""
    if outcome == "draw":
        game_services.game_adjudicate(game_id=game.pk, now=now)
    elif outcome in ("white", "black"):
        loser = game.player(0) if outcome == "white" else game.player(1)
        game_services.game_resign(user=loser, game_id=game.pk)
    elif outcome == "forfeit-black":  # Yellow (to place first) never moves
        game_services.game_time_out(game_id=game.pk, now=game.deadline + timedelta(seconds=1))
    elif outcome == "forfeit-white":  # Yellow places, then Red never moves
        line = game.course.data["course"]["start_finish_cells"]
        game_services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
        game.refresh_from_db()
        game_services.game_time_out(game_id=game.pk, now=game.deadline + timedelta(seconds=1))
    else:
        raise ValueError(outcome)


def simulate(
    *,
    players: int,
    rounds: int,
    seed: int,
    draws: float = 0.15,
    forfeits: float = 0.0,
    withdrawals: int = 0,
    late_entries: int = 0,
    byes: int = 0,
    course_mode: str = "duplicate",
    name: str | None = None,
) -> Tournament:
    """Register players with random ratings, play every round with random results (the
    stronger player more likely to win), and return the finished tournament. ``byes`` requested
    byes are set by the director before the start, in random rounds (round 1 included: players
    absent before their first pairing); ``withdrawals`` players withdraw along the way and
    ``late_entries`` join after the start."""
    rng = random.Random(seed)
    now = timezone.now()
    director, _ = User.objects.get_or_create(username=f"sim{seed}-director")
    t = services.tournament_create(
        director=director, name=name or f"Simulated Swiss {seed}", rounds=rounds, min_players=2,
        registration_closes_at=now, starts_at=now, course_mode=course_mode, round_days=30,
        late_entry_until_round=max(1, rounds // 2) if late_entries else 0,
    )

    def new_player(i: int) -> Any:
        user, _ = User.objects.get_or_create(username=f"sim{seed}-p{i:04d}")
        Rating.objects.update_or_create(user=user, defaults={"rating": round(rng.gauss(1500, 200)), "deviation": 80})
        return user

    for i in range(players):
        services.tournament_register(user=new_player(i), tournament_id=t.pk, now=now - timedelta(seconds=1))
    registered = list(t.registrations.select_related("user").order_by("pk"))
    for _ in range(byes):
        services.tournament_set_bye(director=director, tournament_id=t.pk, user=rng.choice(registered).user,
                                    round_number=rng.randint(1, rounds))
    services.tournament_start(tournament_id=t.pk, now=now)
    late = list(range(players, players + late_entries))
    while True:
        t.refresh_from_db()
        if t.status != Tournament.Status.RUNNING:
            return t
        rnd = t.round_set.get(number=t.current_round)
        for entry in rnd.entries.filter(color="w", game__isnull=False).select_related("game", "registration",
                                                                                          "opponent"):
            game = entry.game
            x = rng.random()
            if x < forfeits:
                outcome = rng.choice(["forfeit-white", "forfeit-black"])
            elif x < forfeits + draws:
                outcome = "draw"
            else:
                white, black = entry.registration, entry.opponent
                assert white is not None and black is not None  # a paired game: both players are known
                gap = (white.rating - black.rating) / 400
                outcome = "white" if rng.random() < 1 / (1 + 10 ** -gap) else "black"
            end_game(game, outcome, now)
        if withdrawals and rnd.number < rounds:
            active = [r for r in t.registrations.all() if r.plays_in(rnd.number + 1)]
            for reg in rng.sample(active, min(len(active) - 2, rng.randint(0, withdrawals))):
                services.tournament_withdraw(user=reg.user, tournament_id=t.pk)
                withdrawals -= 1
        if late and rnd.number < t.late_entry_until_round:
            services.tournament_register(user=new_player(late.pop()), tournament_id=t.pk, now=now)
        services.tournament_advance(tournament_id=t.pk, now=now)
        if Round.objects.filter(tournament=t, number=rnd.number, status=Round.Status.PAIRED).exists():
            raise RuntimeError(f"round {rnd.number} did not close")
