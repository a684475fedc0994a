"""Ratings in the database (docs/ratings.md): the two-player pool (``Rating``, a ``RatingChange``
per rated game and player: their tables keep the names they had when ratings lived in the
tournaments app) and the multi-player pool of series (``SeriesRating``, a ``SeriesRatingChange``
per rated series and player). A change points to its game; nothing of the games app is imported
(its model is named by its label)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from . import glicko2

PROVISIONAL_DEVIATION = 110.0


class Glicko(models.Model):
    """A Glicko-2 rating: its value and when it last moved (games.ratings), in either pool."""

    rating = models.FloatField(default=glicko2.DEFAULT_RATING)
    deviation = models.FloatField(default=glicko2.DEFAULT_DEVIATION)
    volatility = models.FloatField(default=glicko2.DEFAULT_VOLATILITY)
    last_rated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def provisional(self) -> bool:
        """Shown with a question mark, and left off the leaderboards, while its deviation is high."""
        return self.deviation >= PROVISIONAL_DEVIATION

    @property
    def value(self) -> glicko2.Rating:
        return glicko2.Rating(self.rating, self.deviation, self.volatility)


class Rating(Glicko):
    """A player's current two-player rating, and counters for the leaderboard."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating")
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    points = models.PositiveIntegerField(default=0, help_text="sum of game points (R14) in rated games")
    points_per_game = models.FloatField(default=0.0)

    class Meta:
        db_table = "tournaments_rating"
        indexes = [
            models.Index(fields=["-rating"], name="rating_desc"),
            models.Index(fields=["last_rated_at"], name="rating_last_rated"),
            models.Index(fields=["-points_per_game", "-games"], name="rating_ppg"),
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.rating:.0f} ± {self.deviation:.0f}"


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
        db_table = "tournaments_ratingchange"
        ordering = ["user", "created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="one_change_per_game_and_player")]
        indexes = [models.Index(fields=["user", "-created_at"], name="rating_history")]

    @property
    def delta(self) -> float:
        return self.rating_after - self.rating_before


class SeriesRating(Glicko):
    """A player's multi-player rating (games of the boxed rules): its own pool, apart from the
    two-player ``Rating`` (docs/ratings.md)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="series_rating")
    series = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0, help_text="series won outright")

    class Meta:
        db_table = "games_seriesrating"  # the name it had in the games app
        indexes = [models.Index(fields=["-rating"], name="series_rating_desc")]

    def __str__(self) -> str:
        return f"{self.user}: {self.rating:.0f} ± {self.deviation:.0f} (series)"


class SeriesRatingChange(models.Model):
    """What one rated series (a game of the boxed rules) did to one player's multi-player rating."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="series_rating_changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="series_rating_changes")
    place = models.PositiveSmallIntegerField()
    score = models.FloatField(help_text="pairwise wins + half draws, out of the other players")
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_after = models.FloatField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "games_seriesratingchange"
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="one_change_per_series_and_player")]
