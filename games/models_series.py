"""Series of the boxed game (issue 16): 2–6 players, three races on the A, B and C courses of
one lake (R15–R20), played by correspondence.

As for two-player games the history is the truth: ``SeriesAction`` rows are append-only, one per
action a player (or the clock) took, keyed by the series' ply before it. The engine replays them
(``games.services_series.replay``) into a :class:`games.engine.Series`; the columns of
``SeriesGame`` and ``SeriesSeat`` (phase, whose turn, race, points, places) are a cache of that
replay, and ``manage.py verify_series`` checks that they equal it. A series keeps the version of
R18/R19's details it was created with (``SeriesGame.rules_version``), by which it is replayed;
series created before versions existed have version 1 (migration 0016). All writes go through
``games.services_series``. Ratings of series are a pool of their own (``SeriesRating``), apart
from the two-player rating (docs/ratings.md).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engine import RULES_VERSION

from . import glicko2
from .appendonly import AppendOnlyRows

MIN_SEATS = 3  # an open lobby series; the two-player game covers two
MAX_SEATS = 6
MIN_TO_START = 3  # the creator may start early with this many players present


class SeriesGame(models.Model):
    """A series: open in the lobby until its seats are filled (or its creator starts it), then
    played race after race until the series table is final."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        ACTIVE = "active", _("being played")
        FINISHED = "finished", _("finished")
        CANCELLED = "cancelled", _("cancelled")

    class Phase(models.TextChoices):
        WAITING = "waiting", _("waiting for players")
        PLACE = "place", _("place")
        DICE = "dice", _("dice")
        DIRECTION = "direction", _("direction")
        OVER = "over", _("over")

    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="series_made")
    seats_wanted = models.PositiveSmallIntegerField(default=4, help_text="3 to 6: the series starts when filled")
    days_per_move = models.PositiveSmallIntegerField(default=3)
    grace_days = models.PositiveSmallIntegerField(default=7, help_text="each player's grace bank at the start")
    vacation_allowed = models.BooleanField(default=True)
    lake_side = models.CharField(max_length=8, default="standard")
    rated = models.BooleanField(default=True)
    score_variant = models.BooleanField(default=False, help_text="R19's score variant, fixed per series")
    rules_version = models.PositiveSmallIntegerField(
        default=RULES_VERSION,
        help_text="the version of R18/R19's details it is played, scored and replayed by (games.engine.race), "
                  "fixed when it is created; 1 for series created before versions existed")

    status = models.CharField(max_length=9, choices=Status.choices, default=Status.OPEN, db_index=True)
    course_keys = models.JSONField(default=list, help_text="LakeCourse keys of races A, B, C (one lake)")
    first_start = models.PositiveSmallIntegerField(null=True, blank=True, help_text="race A's start player (R15, by lot)")
    phase = models.CharField(max_length=9, choices=Phase.choices, default=Phase.WAITING)
    race = models.PositiveSmallIntegerField(default=0, help_text="0-based index of the race being played")
    to_move = models.PositiveSmallIntegerField(null=True, blank=True, help_text="series seat to act")
    ply = models.PositiveIntegerField(default=0, help_text="actions so far over the whole series")
    result_reason = models.CharField(max_length=200, blank=True, help_text="the result in English (records, logs)")
    result_code = models.CharField(max_length=24, blank=True, help_text="series_won or series_shared (result_params)")
    result_params = models.JSONField(default=dict, blank=True)
    winner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                               related_name="series_won")

    bot_to_move = models.BooleanField(default=False, help_text="a house bot is to act (the site moves it)")
    dice_seed = models.CharField(max_length=64, blank=True, help_text="secret until the series ends")
    dice_seed_sha256 = models.CharField(max_length=64, blank=True)

    # the clock: as for two-player games (docs/clocks.md), of the seat to move
    turn_started_at = models.DateTimeField(null=True, blank=True)
    move_deadline = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True, help_text="when the player to move loses on time")
    # one reminder email per turn, as for two-player games (games.clock.set_deadlines)
    reminder_at = models.DateTimeField(null=True, blank=True, help_text="when the player to move is reminded")
    reminder_sent_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [
            models.Index(fields=["deadline"], condition=models.Q(status="active"), name="series_active_deadline"),
            models.Index(fields=["reminder_at"], condition=models.Q(status="active"), name="series_active_reminder"),
            models.Index(fields=["updated_at"], condition=models.Q(status="active", bot_to_move=True),
                         name="series_active_bot_to_move"),
        ]

    def __str__(self) -> str:
        return f"series {self.pk}"

    @property
    def over(self) -> bool:
        return self.status == SeriesGame.Status.FINISHED


class SeriesSeat(models.Model):
    """A player's seat in a series (R15: the index is the place round the virtual table)."""

    series = models.ForeignKey(SeriesGame, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField(null=True, blank=True, help_text="seat order once the series starts")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="series_seats")
    color = models.CharField(max_length=6, blank=True)
    joined_at = models.DateTimeField(default=timezone.now)
    grace_seconds = models.PositiveIntegerField(default=0, help_text="what is left of the grace bank")
    left = models.CharField(max_length=12, blank=True, help_text="resign or timeout: left the series (R18)")
    points = models.PositiveSmallIntegerField(default=0)
    place = models.PositiveSmallIntegerField(null=True, blank=True, help_text="in the series table")

    class Meta:
        ordering = ["series", "index", "joined_at"]
        constraints = [
            models.UniqueConstraint(fields=["series", "user"], name="one_seat_per_player_in_series"),
            models.UniqueConstraint(fields=["series", "index"], name="one_player_per_series_seat"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in series {self.series_id}"


class SeriesAction(AppendOnlyRows, models.Model):
    """One action of a series, never changed: ``place`` {cell, heading}; ``roll`` {choice,
    rolled, dice}; ``direction`` {direction}; ``leave`` {termination: resign | timeout}.
    ``ply`` is the series' ply before it (a roll whose only direction was taken at once counts
    two plies, as in the engine)."""

    history_name = "series history"

    class Kind(models.TextChoices):
        PLACE = "place"
        ROLL = "roll"
        DIRECTION = "direction"
        LEAVE = "leave"

    series = models.ForeignKey(SeriesGame, on_delete=models.CASCADE, related_name="actions")
    ply = models.PositiveIntegerField()
    race = models.PositiveSmallIntegerField(default=0)
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True,
                             blank=True)
    kind = models.CharField(max_length=9, choices=Kind.choices)
    data = models.JSONField(default=dict)
    notation = models.CharField(max_length=60, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["series", "ply"]
        constraints = [models.UniqueConstraint(fields=["series", "ply"], name="one_series_action_per_ply")]



class SeriesRating(models.Model):
    """A player's multi-player rating: its own pool, apart from the two-player ``Rating``."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="series_rating")
    rating = models.FloatField(default=glicko2.DEFAULT_RATING)
    deviation = models.FloatField(default=glicko2.DEFAULT_DEVIATION)
    volatility = models.FloatField(default=glicko2.DEFAULT_VOLATILITY)
    series = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0, help_text="series won outright")
    last_rated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["-rating"], name="series_rating_desc")]

    def __str__(self) -> str:
        return f"{self.user}: {self.rating:.0f} ± {self.deviation:.0f} (series)"

    @property
    def value(self) -> glicko2.Rating:
        return glicko2.Rating(self.rating, self.deviation, self.volatility)


class SeriesRatingChange(models.Model):
    """What one rated series did to one player's multi-player rating."""

    series_game = models.ForeignKey(SeriesGame, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="series_rating_changes")
    place = models.PositiveSmallIntegerField()
    score = models.FloatField(help_text="pairwise wins + half draws, out of the other players")
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_after = models.FloatField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["series_game", "user"], name="one_change_per_series_and_player")]
