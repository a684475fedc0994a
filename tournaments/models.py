"""Ratings (Glicko-2, docs/ratings.md) and Swiss tournaments (issue 7)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from . import glicko2

PROVISIONAL_DEVIATION = 110.0


class Rating(models.Model):
    """A player's current rating, and counters for the leaderboard."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating")
    rating = models.FloatField(default=glicko2.DEFAULT_RATING)
    deviation = models.FloatField(default=glicko2.DEFAULT_DEVIATION)
    volatility = models.FloatField(default=glicko2.DEFAULT_VOLATILITY)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    points = models.PositiveIntegerField(default=0, help_text="sum of game points (R14) in rated games")
    points_per_game = models.FloatField(default=0.0)
    last_rated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["-rating"], name="rating_desc"),
            models.Index(fields=["last_rated_at"], name="rating_last_rated"),
            models.Index(fields=["-points_per_game", "-games"], name="rating_ppg"),
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.rating:.0f} ± {self.deviation:.0f}"

    @property
    def provisional(self) -> bool:
        return self.deviation >= PROVISIONAL_DEVIATION

    @property
    def value(self) -> glicko2.Rating:
        return glicko2.Rating(self.rating, self.deviation, self.volatility)



class RatingChange(models.Model):
    """What one rated game did to one player's rating (the history; one row per game and player)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes")
    opponent = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    score = models.FloatField(help_text="1 win, 0.5 draw, 0 loss")
    rating_before = models.FloatField()
    deviation_before = models.FloatField()
    volatility_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_after = models.FloatField()
    volatility_after = models.FloatField()
    opponent_rating = models.FloatField()
    opponent_deviation = models.FloatField()
    points = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["user", "created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="one_change_per_game_and_player")]
        indexes = [models.Index(fields=["user", "-created_at"], name="rating_history")]

    @property
    def delta(self) -> float:
        return self.rating_after - self.rating_before
