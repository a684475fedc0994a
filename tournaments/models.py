"""Ratings (Glicko-2, docs/ratings.md) and Swiss tournaments (issue 7)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

# Ratings live with games (finishing a game rates it); re-exported for the leaderboards here.
from games.models import PROVISIONAL_DEVIATION, Rating, RatingChange

from .standings import DEFAULT_ORDER, parse_order

__all__ = ["PROVISIONAL_DEVIATION", "Entry", "Rating", "RatingChange", "Registration", "Round", "Tournament"]


# --- Swiss tournaments (docs/tournaments.md) --------------------------------------------------


class Tournament(models.Model):
    class Status(models.TextChoices):
        REGISTRATION = "registration"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    class CourseMode(models.TextChoices):
        RANDOM = "random", "a new random course for every game"
        DUPLICATE = "duplicate", "one course per round, shared by every board"

    class Entry(models.TextChoices):
        OPEN = "open", "anyone"
        INVITED = "invited", "invited players only"

    class ByePoints(models.TextChoices):
        HALF = "half", "half a point"
        ZERO = "zero", "no points"

    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    director = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="directed_tournaments")
    rounds = models.PositiveSmallIntegerField(default=5)
    days_per_move = models.PositiveSmallIntegerField(default=3)
    grace_days = models.PositiveSmallIntegerField(default=7)
    vacation_allowed = models.BooleanField(default=False)
    registration_closes_at = models.DateTimeField()
    starts_at = models.DateTimeField()
    round_days = models.PositiveSmallIntegerField(default=30, help_text="a round's deadline, in days after pairing")
    pair_at_once = models.BooleanField(default=True, help_text="pair the next round as soon as a round closes")
    rated = models.BooleanField(default=True)
    lake_side = models.CharField(max_length=8, default="standard")
    course_mode = models.CharField(max_length=9, choices=CourseMode.choices, default=CourseMode.RANDOM)
    min_players = models.PositiveSmallIntegerField(default=4)
    max_players = models.PositiveIntegerField(default=1000)
    entry = models.CharField(max_length=7, choices=Entry.choices, default=Entry.OPEN)
    invited = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="invitations")
    late_entry_until_round = models.PositiveSmallIntegerField(
        default=0, help_text="late entries may join up to this round (0: none after the start)"
    )
    late_entry_byes = models.CharField(max_length=4, choices=ByePoints.choices, default=ByePoints.ZERO,
                                       help_text="what a late entrant scores for each round missed")
    requested_bye_points = models.CharField(max_length=4, choices=ByePoints.choices, default=ByePoints.HALF)
    tiebreaks = models.CharField(
        max_length=60, blank=True, default=" ".join(DEFAULT_ORDER),
        help_text="tie-breaks after the score, in order: FIDE C.07 codes (docs/tournaments.md)",
    )

    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTRATION, db_index=True)
    current_round = models.PositiveSmallIntegerField(default=0)
    first_color = models.CharField(
        max_length=1, default="w",
        help_text="the initial colour, drawn by lot at the start (C.04.3): Red (w) or Yellow (b) for the "
                  "higher-ranked player of each round-1 board with an odd pairing number; given to the "
                  "pairing engine and written to the TRF (XXC, 152)")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-starts_at"]

    def __str__(self) -> str:
        return self.name

    @property
    def tiebreak_order(self) -> tuple[str, ...]:
        return parse_order(self.tiebreaks)

    def ranking(self) -> list[Registration]:
        """The initial ranking: rating at entry, then name. TRF start numbers follow it."""
        return sorted(self.registrations.select_related("user"), key=lambda r: (-r.rating, r.user.username.lower()))


# what a director chooses when creating a tournament (the form and the API take these)
TOURNAMENT_SETTINGS = [
    "name", "description", "rounds", "days_per_move", "grace_days", "vacation_allowed", "registration_closes_at",
    "starts_at", "round_days", "pair_at_once", "rated", "lake_side", "course_mode", "min_players", "max_players",
    "entry", "late_entry_until_round", "late_entry_byes", "requested_bye_points", "tiebreaks",
]


class Registration(models.Model):
    """A player in a tournament. ``seed`` is the place in the initial ranking (rating, then name)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="registrations")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="registrations")
    rating = models.FloatField(default=1500.0, help_text="the rating the initial ranking used")
    joined_round = models.PositiveSmallIntegerField(default=1)
    withdrawn_after = models.PositiveSmallIntegerField(null=True, blank=True,
                                                       help_text="no pairings after this round")
    removed = models.BooleanField(default=False, help_text="removed by the director")
    byes = models.JSONField(default=list, help_text="rounds with a requested bye")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-rating", "user__username"]
        constraints = [models.UniqueConstraint(fields=["tournament", "user"], name="one_registration_per_player")]

    def __str__(self) -> str:
        return f"{self.user} in {self.tournament}"

    def plays_in(self, round_number: int) -> bool:
        if self.removed or round_number < self.joined_round:
            return False
        return self.withdrawn_after is None or round_number <= self.withdrawn_after


class Round(models.Model):
    class Status(models.TextChoices):
        PAIRED = "paired"
        CLOSED = "closed"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=6, choices=Status.choices, default=Status.PAIRED)
    paired_at = models.DateTimeField(default=timezone.now)
    deadline = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    course = models.JSONField(null=True, blank=True, help_text="the shared course in duplicate mode")

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="one_round_per_number")]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"


class Entry(models.Model):
    """One player's round, as a TRF cell: opponent, colour (w = Red, b = Yellow) and result code
    (``1 0 =`` played, ``+ -`` forfeit, ``U`` pairing bye, ``H`` half-point bye, ``Z`` absent;
    empty while the game is going)."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="entries")
    registration = models.ForeignKey(Registration, on_delete=models.CASCADE, related_name="entries")
    board = models.PositiveSmallIntegerField(default=0)
    opponent = models.ForeignKey(Registration, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    color = models.CharField(max_length=1, default="-")
    code = models.CharField(max_length=1, blank=True, default="")
    game = models.ForeignKey("games.Game", on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="tournament_entries")

    class Meta:
        ordering = ["round", "board"]
        constraints = [models.UniqueConstraint(fields=["round", "registration"], name="one_entry_per_round")]
