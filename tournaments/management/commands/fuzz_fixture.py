"""Data for the API fuzz stage (bin/fuzz): a player with a token and something to look at —
games in each phase, challenges, a tournament — so that generated requests reach real objects.
Prints the player's token."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.utils import timezone
from rest_framework.authtoken.models import Token

from games import services
from games.engine import Change, DiceChoice


class Command(BaseCommand):
    help = "Create the fuzz stage's player, opponents, games, challenges and a tournament; print the token."

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        me = User.objects.create_user("fuzzer", "fuzzer@example.com", "fuzz-password-1")
        others = [User.objects.create_user(f"rival{i}", f"rival{i}@example.com", "fuzz-password-1") for i in range(3)]
        fresh = services.game_create(yellow=me, red=others[0])
        placed = services.game_create(yellow=others[1], red=me)
        assert placed.course is not None
        line = placed.course.data["course"]["start_finish_cells"]
        services.game_place(user=others[1], game_id=placed.pk, ply=0, cell=tuple(line[0]), heading=0)
        services.game_place(user=me, game_id=placed.pk, ply=1, cell=tuple(line[2]), heading=0)
        services.game_roll(user=me, game_id=placed.pk, ply=2, choice=DiceChoice(Change.ADD))
        services.challenge_create(user=me)
        services.challenge_create(user=others[2], opponent=me)
        services.challenge_create(user=others[1])
        from tournaments import services as tournament_services

        now = timezone.now()
        tournament_services.tournament_create(
            director=me, name="Fuzz Open", rounds=3, starts_at=now + timedelta(days=2),
            registration_closes_at=now + timedelta(days=1),
        )
        # series of the boxed game (issue 16): 1 open (the fuzzer may join), 2 being played by the
        # fuzzer and two rivals, 3 opened by the fuzzer
        import random

        open_series = services.game_open(user=others[0], seats=4)
        playing = services.game_open(user=others[1], seats=3)
        services.game_join(user=me, game_id=playing.pk)
        services.game_join(user=others[2], game_id=playing.pk, rng=random.Random(5))
        services.game_open(user=me, seats=5)
        del fresh, open_series
        self.stdout.write(Token.objects.create(user=me).key)
