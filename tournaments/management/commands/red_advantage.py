"""How much does moving first (Red) help? Measured from the site's finished rated games."""

from __future__ import annotations

import math
from typing import Any

from django.core.management.base import BaseCommand
from django.db.models import Exists, OuterRef

from games.models import Seat
from games.ratings.glicko2 import Rating, expected_score
from games.ratings.models import RatingChange


class Command(BaseCommand):
    help = "Red's score in finished rated games, against what the ratings expected."

    def handle(self, *args: Any, **options: Any) -> None:
        red = Seat.objects.filter(game=OuterRef("game"), user=OuterRef("user"), index=1)  # Red moves first
        rows = RatingChange.objects.filter(Exists(red))
        games = 0
        score = expected = 0.0
        for change in rows.iterator(chunk_size=2000):
            games += 1
            score += change.score
            expected += expected_score(
                Rating(change.rating_before, change.deviation_before),
                Rating(change.opponent_rating, change.opponent_deviation),
            )
        if not games:
            self.stdout.write("no finished rated games yet")
            return
        actual = score / games
        half = 1.96 * math.sqrt(max(actual * (1 - actual), 1e-9) / games)
        self.stdout.write(
            f"{games} rated games: Red scored {actual:.1%} (± {half:.1%}), the ratings expected {expected / games:.1%}"
        )
