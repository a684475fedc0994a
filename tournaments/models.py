"""Swiss tournaments (issue 7), round-robin tournaments and the Competition (issue 15). Ratings
are the ratings app's (games.ratings)."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.models import ClockTerms

from .standings import DEFAULT_ORDER, parse_order

__all__ = [
    "Competition", "CompetitionMember", "Entry", "Group", "GroupGame", "GroupPlayer", "Registration", "Round", "RoundRobin", "RoundRobinEntry", "Season", "Tournament",
]


# --- Swiss tournaments (docs/tournaments.md) --------------------------------------------------


class Tournament(ClockTerms):
    class Status(models.TextChoices):
        REGISTRATION = "registration"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    class CourseMode(models.TextChoices):
        RANDOM = "random", _("a new random course for every game")
        DUPLICATE = "duplicate", _("one course per round, shared by every board")

    class Entry(models.TextChoices):
        OPEN = "open", _("anyone")
        INVITED = "invited", _("invited players only")

    class ByePoints(models.TextChoices):
        HALF = "half", _("half a point")
        ZERO = "zero", _("no points")

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
    "clock_shape", "bank_add_hours", "bank_cap_days", "weekend_pause_allowed", "auto_vacation_allowed",
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


# --- round-robin groups and the Competition (docs/tournaments.md) ------------------------------


class Pace(models.TextChoices):
    AT_ONCE = "at_once", _("every game of a group starts at once")
    ROUNDS = "rounds", _("round by round, each round with a deadline")


class RoundRobin(ClockTerms):
    """A round-robin tournament: one group of 3-20 players, or several groups seeded by rating in
    snake order, single or double; optionally a final group of the group winners."""

    class Status(models.TextChoices):
        REGISTRATION = "registration"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    director = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                 related_name="directed_round_robins")
    double = models.BooleanField(default=False, help_text="every pair plays twice, once with each colour")
    group_count = models.PositiveSmallIntegerField(default=1, help_text="groups, seeded by rating in snake order")
    final_group = models.BooleanField(default=False, help_text="the group winners play a final group")
    pace = models.CharField(max_length=7, choices=Pace.choices, default=Pace.AT_ONCE)
    days_per_move = models.PositiveSmallIntegerField(default=3)
    grace_days = models.PositiveSmallIntegerField(default=7)
    vacation_allowed = models.BooleanField(default=False)
    rated = models.BooleanField(default=True)
    lake_side = models.CharField(max_length=8, default="standard")
    course_mode = models.CharField(max_length=9, choices=Tournament.CourseMode.choices,
                                   default=Tournament.CourseMode.RANDOM)
    deadline_days = models.PositiveSmallIntegerField(
        default=120, help_text="every game at once: a group's games must end this many days after its start")
    round_days = models.PositiveSmallIntegerField(
        default=30, help_text="round by round: a round's deadline, in days after it starts")
    registration_closes_at = models.DateTimeField()
    starts_at = models.DateTimeField()
    min_players = models.PositiveSmallIntegerField(default=3)
    max_players = models.PositiveSmallIntegerField(default=20)
    entry = models.CharField(max_length=7, choices=Tournament.Entry.choices, default=Tournament.Entry.OPEN)
    invited = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="round_robin_invitations")

    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTRATION)
    courses = models.JSONField(default=dict, blank=True,
                               help_text="duplicate mode: round number → the course every board of that round races")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-starts_at"]
        indexes = [models.Index(fields=["status", "starts_at"], name="round_robin_status_start")]

    def __str__(self) -> str:
        return self.name


# what a director chooses when creating a round-robin (the form and the API take these)
ROUND_ROBIN_SETTINGS = [
    "name", "description", "double", "group_count", "final_group", "pace", "days_per_move", "grace_days",
    "vacation_allowed", "rated", "lake_side", "course_mode", "deadline_days", "round_days", "registration_closes_at",
    "starts_at", "min_players", "max_players", "entry",
    "clock_shape", "bank_add_hours", "bank_cap_days", "weekend_pause_allowed", "auto_vacation_allowed",
]


class RoundRobinEntry(models.Model):
    """A player registered for a round-robin."""

    round_robin = models.ForeignKey(RoundRobin, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="round_robin_entries")
    rating = models.FloatField(default=1500.0, help_text="the rating the seeding used (taken at the start)")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-rating", "user__username"]
        constraints = [models.UniqueConstraint(fields=["round_robin", "user"], name="one_entry_per_round_robin")]


class Competition(ClockTerms):
    """The perpetual Competition: levels of round-robin groups (level 1 one group, level 2 two,
    level 3 four, ...), seasons with promotion and relegation, one after the other."""

    DEFAULT_NAME = "The Competition"

    name = models.CharField(max_length=100, default=DEFAULT_NAME)
    description = models.TextField(blank=True)
    # at least 5 a group: a level that lends the one below its last players (docs) keeps groups of 3 or more
    group_size = models.PositiveSmallIntegerField(default=11, validators=[MinValueValidator(5), MaxValueValidator(20)],
                                                  help_text="players in a group, at most (5-20)")
    promote = models.PositiveSmallIntegerField(default=2, validators=[MaxValueValidator(10)],
                                               help_text="the top of each group moving up a level (at most a third)")
    relegate = models.PositiveSmallIntegerField(default=4, validators=[MaxValueValidator(10)],
                                                help_text="the bottom of each group moving down (at most half)")
    break_days = models.PositiveSmallIntegerField(default=3, validators=[MaxValueValidator(90)],
                                                  help_text="days between one season's end and the next")
    season_days = models.PositiveSmallIntegerField(
        default=150, validators=[MinValueValidator(1), MaxValueValidator(365)],
        help_text="a season's games must end this many days after its start (then adjudicated)")
    min_players = models.PositiveSmallIntegerField(default=3, validators=[MinValueValidator(3)],
                                                   help_text="players needed to start a season")
    days_per_move = models.PositiveSmallIntegerField(default=3)
    grace_days = models.PositiveSmallIntegerField(default=7)
    vacation_allowed = models.BooleanField(default=True)
    rated = models.BooleanField(default=True)
    lake_side = models.CharField(max_length=8, default="standard")
    next_season_at = models.DateTimeField(
        null=True, blank=True, help_text="when the next season starts (empty: one is playing, or too few players)")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["next_season_at"], condition=models.Q(next_season_at__isnull=False),
                                name="competition_next_season")]

    @property
    def title(self) -> str:
        """The name to show: the site's own Competition in the reader's language, any other as named."""
        return gettext("The Competition") if self.name == self.DEFAULT_NAME else self.name

    def __str__(self) -> str:
        return self.name


class CompetitionMember(models.Model):
    """A player registered for the Competition. ``active``: in the next season. A player who leaves,
    or is removed for losing on time in most games, is kept (history) with ``active`` off."""

    class Removal(models.TextChoices):
        NONE = "", _("registered")
        LEFT = "left", _("left")
        TIMEOUTS = "timeouts", _("lost on time in most games")

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="competition_memberships")
    active = models.BooleanField(default=True)
    removal = models.CharField(max_length=8, choices=Removal.choices, blank=True, default="")
    joined_at = models.DateTimeField(default=timezone.now)
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["competition", "user__username"]
        constraints = [models.UniqueConstraint(fields=["competition", "user"], name="one_membership_per_player")]


class Season(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing"
        CLOSED = "closed"

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=7, choices=Status.choices, default=Status.PLAYING)
    started_at = models.DateTimeField(default=timezone.now)
    deadline = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["competition", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "number"], name="one_season_per_number"),
            # two workers cannot start two seasons at once; its index serves the beat's "playing" query
            models.UniqueConstraint(fields=["competition"], condition=models.Q(status="playing"),
                                    name="one_playing_season"),
        ]

    def __str__(self) -> str:
        return f"{self.competition} season {self.number}"


class Group(models.Model):
    """A round-robin group: of a round-robin tournament (its groups and its final) or of a season
    of the Competition (one per level and place). Its games follow the Berger tables."""

    class Status(models.TextChoices):
        WAITING = "waiting", "drawn, games not created yet"
        PLAYING = "playing"
        FINISHED = "finished"

    round_robin = models.ForeignKey(RoundRobin, on_delete=models.CASCADE, null=True, blank=True,
                                    related_name="groups")
    season = models.ForeignKey(Season, on_delete=models.CASCADE, null=True, blank=True, related_name="groups")
    number = models.PositiveSmallIntegerField(help_text="1, 2, ... within its tournament, or within its level")
    level = models.PositiveSmallIntegerField(default=0, help_text="the Competition's level (1 is the top)")
    final = models.BooleanField(default=False, help_text="the final group of a round-robin's group winners")
    double = models.BooleanField(default=False)
    pace = models.CharField(max_length=7, choices=Pace.choices, default=Pace.AT_ONCE)
    rounds = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.WAITING)
    current_round = models.PositiveSmallIntegerField(default=0, help_text="round by round: the round being played")
    deadline = models.DateTimeField(null=True, blank=True, help_text="the group's (or the current round's) deadline")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["level", "final", "number"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(round_robin__isnull=False, season__isnull=True)
                | models.Q(round_robin__isnull=True, season__isnull=False),
                name="group_of_one_event"),
            models.UniqueConstraint(fields=["round_robin", "final", "number"], condition=models.Q(season__isnull=True),
                                    name="one_round_robin_group_per_number"),
            models.UniqueConstraint(fields=["season", "level", "number"], condition=models.Q(season__isnull=False),
                                    name="one_season_group_per_place"),
        ]
        indexes = [
            models.Index(fields=["deadline"], condition=models.Q(status="playing"), name="group_playing_deadline"),
            models.Index(fields=["created_at"], condition=models.Q(status="waiting"), name="group_waiting"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def letter(self) -> str:
        return chr(ord("A") + self.number - 1) if self.number <= 26 else str(self.number)

    @property
    def name(self) -> str:
        if self.final:
            return "Final"
        if self.season_id:
            return f"Level {self.level}" + (f", group {self.letter}" if self.level > 1 else "")
        return f"Group {self.letter}"


class GroupPlayer(models.Model):
    """A player in a group, with the start number of the Berger table (drawn by lot). The place
    and score are written when the group finishes (the history reads them), and in the
    Competition what the season's end did: up, down, stay or out."""

    class Move(models.TextChoices):
        NONE = "", "not decided yet"
        UP = "up", "promoted"
        STAY = "stay", "stays"
        DOWN = "down", "relegated"
        OUT = "out", "leaves the Competition"

    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="group_places")
    number = models.PositiveSmallIntegerField(help_text="the start number in the Berger table")
    rating = models.FloatField(default=1500.0)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    games = models.PositiveSmallIntegerField(default=0)
    timeouts = models.PositiveSmallIntegerField(default=0, help_text="games lost on time")
    move = models.CharField(max_length=4, choices=Move.choices, blank=True, default="")

    class Meta:
        ordering = ["group", "number"]
        constraints = [
            models.UniqueConstraint(fields=["group", "user"], name="one_place_per_group"),
            models.UniqueConstraint(fields=["group", "number"], name="one_start_number_per_group"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.group}"


class GroupGame(models.Model):
    """One pairing of a group's schedule: the round, Red and Yellow, the game once created, and
    the result from Red's side (``1 0 =``, ``+ -`` forfeits; empty while going) once it ended."""

    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="games")
    round = models.PositiveSmallIntegerField()
    red = models.ForeignKey(GroupPlayer, on_delete=models.CASCADE, related_name="+")
    yellow = models.ForeignKey(GroupPlayer, on_delete=models.CASCADE, related_name="+")
    game = models.OneToOneField("games.Game", on_delete=models.SET_NULL, null=True, blank=True,
                                related_name="group_game")
    result = models.CharField(max_length=1, blank=True, default="")

    class Meta:
        ordering = ["group", "round", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["group", "round", "red"], name="one_red_game_per_round"),
            models.UniqueConstraint(fields=["group", "round", "yellow"], name="one_yellow_game_per_round"),
        ]
        # the beat's backstop ("games over whose result is not recorded") reads only open pairings
        indexes = [models.Index(fields=["game"], condition=models.Q(result=""), name="group_game_open")]
