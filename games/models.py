"""Games in the database: challenges, courses, games for any number of boats with their seats
and the append-only move history. Ratings, chat: their own apps (games.ratings, games.social).

A two-player game of the online rules and a series of the boxed game are one ``Game`` with its
``Seat`` rows (its players) and ``Move`` rows (its history); the stored state always equals the
replay of the history through the rules engine (``manage.py verify_games`` checks it). All
writes go through ``games.services``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engine import RULES_VERSION

from .appendonly import AppendOnly, AppendOnlyRows

COLORS = ("yellow", "red")


class LakeSide(models.TextChoices):
    STANDARD = "standard", _("standard (dark blue)")
    EXPERT = "expert", _("expert (light blue, more islands)")


class ColorChoice(models.TextChoices):
    YELLOW = "yellow", _("Yellow (places first)")
    RED = "red", _("Red (moves first)")
    RANDOM = "random", _("random")


class CourseLetter(models.TextChoices):
    RANDOM = "", _("random")
    A = "A", "A"
    B = "B", "B"
    C = "C", "C"


DAYS_PER_MOVE = (1, 2, 3, 5, 7, 14)
GRACE_DAYS = (0, 1, 3, 5, 7, 14, 21)


class ClockShape(models.TextChoices):
    """How a game's clock gives time (docs/clocks.md, games.clock)."""

    MOVE = "move", _("days per move and a grace bank")
    BANK = "bank", _("a capped bank")


class ClockTerms(models.Model):
    """The clock's terms besides ``days_per_move``, ``grace_days`` and ``vacation_allowed`` (which
    each model has, with its own defaults): shared by a challenge, a game and a tournament of every
    format, which hand them on to the games they create (games.clock.terms)."""

    clock_shape = models.CharField(max_length=4, choices=ClockShape.choices, default=ClockShape.MOVE,
                                   db_default=ClockShape.MOVE)
    bank_add_hours = models.PositiveSmallIntegerField(
        default=0, db_default=0, help_text="a capped bank: hours added to the mover's bank after each move")
    bank_cap_days = models.PositiveSmallIntegerField(
        default=0, db_default=0, help_text="a capped bank: the most a bank holds, in days (it starts at grace_days)")
    weekend_pause_allowed = models.BooleanField(
        default=True, db_default=True, help_text="players who asked for it have their clocks stopped at weekends")
    auto_vacation_allowed = models.BooleanField(
        default=True, db_default=True,
        help_text="a clock about to run out may take a vacation day of a player who asked for it")

    class Meta:
        abstract = True


class Challenge(ClockTerms):
    """An offer to play: open to anyone, or to one named player."""

    class Status(models.TextChoices):
        OPEN = "open"
        ACCEPTED = "accepted"
        CANCELLED = "cancelled"
        DECLINED = "declined"

    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_made")
    opponent = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="challenges_received"
    )
    color = models.CharField(max_length=6, choices=ColorChoice.choices, default=ColorChoice.RANDOM)
    days_per_move = models.PositiveSmallIntegerField(default=3, choices=[(d, f"{d} days") for d in DAYS_PER_MOVE])
    grace_days = models.PositiveSmallIntegerField(default=7, choices=[(d, f"{d} days") for d in GRACE_DAYS])
    course_letter = models.CharField(max_length=1, choices=CourseLetter.choices, blank=True, default="")
    lake_side = models.CharField(max_length=8, choices=LakeSide.choices, default=LakeSide.STANDARD)
    rated = models.BooleanField(default=True)
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.OPEN, db_index=True)
    created_at = models.DateTimeField(default=timezone.now)
    game = models.OneToOneField("Game", on_delete=models.SET_NULL, null=True, blank=True, related_name="challenge")
    rematch_of = models.ForeignKey(
        "Game", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematches",
        help_text="a rematch offered after this game (same settings, colours swapped)",
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # one rematch offer at a time per game (the second player's offer accepts the first)
            models.UniqueConstraint(fields=["rematch_of"], condition=models.Q(status="open"),
                                    name="one_open_rematch_per_game"),
        ]

    def __str__(self) -> str:
        to = f" to {self.opponent}" if self.opponent_id else ""
        return f"challenge {self.pk} by {self.created_by}{to}"


class LakeCourse(models.Model):
    """A lake and its course in the game record format (docs/game-record.md), stored once.

    Immutable: the key is the SHA-256 of the canonical JSON, so games on the same board (the
    boards of a duplicate round) share one row, and a process can cache the parsed course by
    key (``games.state.course_of``) without ever reading it again."""

    key = models.CharField(max_length=64, primary_key=True)
    data = models.JSONField(help_text='{"lake": ..., "course": ...} as in the game record')
    compact = models.TextField(help_text="the same, as games.engine.compact writes it: what a process reads to play")
    letter = models.CharField(max_length=1)
    side = models.CharField(max_length=8, choices=LakeSide.choices)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"course {self.letter} on a {self.side} lake ({self.key[:8]})"

    @staticmethod
    def key_of(data: dict[str, Any]) -> str:
        canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(canonical.encode()).hexdigest()

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnly("a stored course never changes")
        super().save(*args, **kwargs)


class CourseDrawing(models.Model):
    """The static layers of a stored course's board (the ``<svg>`` element's attributes, the
    lake, islands, spots and line, the buoys and their gates) in one language, drawn once for
    every process (games.board.static_layers). A cache: rows can be deleted at any time and
    are drawn again when next shown; ``version`` changes with the drawing code and with the
    words of the language, so a stale drawing is never shown. The sweep drops drawings older than
    ``DRAWING_DAYS`` (games.board.prune_drawings): a course still shown is drawn again."""

    course = models.ForeignKey(LakeCourse, on_delete=models.CASCADE, related_name="drawings")
    language = models.CharField(max_length=16)
    version = models.CharField(max_length=32)
    svg = models.BinaryField(help_text="zlib of the three layers, separated by NUL")
    box = models.JSONField(help_text="the viewBox: x, y, width, height")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["course", "language", "version"],
                                               name="one_drawing_per_course_language_version")]
        indexes = [models.Index(fields=["created_at"], name="course_drawing_created")]  # the sweep's prune

    def __str__(self) -> str:
        return f"drawing of {self.course_id[:8]} in {self.language} ({self.version})"


class Ruleset(models.TextChoices):
    """What a game is played by (games.rulesets): the online two-player rules (two boats, one race,
    R1-R14) or the boxed game (2-6 boats, three races on the A, B and C courses of one lake, R15-R20)."""

    ONLINE = "online", _("online rules (two boats)")
    BOXED = "boxed", _("boxed game (2-6 boats, three races)")


class Game(ClockTerms):
    """A game of Powerboats for any number of boats the ruleset allows: a two-player game of the
    online rules (one race) or a series of the boxed game (up to three races). Its players are its
    seats (``Seat``); its history the append-only ``Move`` rows; the columns below and its seats'
    are a cache of the replay of that history (``manage.py verify_games``). A game of the boxed
    rules is open in the lobby (``OPEN``) until its seats are filled or its creator starts it; a
    two-player game starts when it is created (a challenge accepted, a tournament's pairing)."""

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

    ruleset = models.CharField(max_length=8, choices=Ruleset.choices, default=Ruleset.ONLINE)
    seats_wanted = models.PositiveSmallIntegerField(default=2, help_text="the boats it is played with")
    score_variant = models.BooleanField(default=False, help_text="R19's score variant (the boxed game), fixed")
    rules_version = models.PositiveSmallIntegerField(
        default=RULES_VERSION,
        help_text="the boxed game: the version of R18/R19's details it is played, scored and replayed by "
                  "(games.engine.race), fixed when it is created; 1 for series created before versions existed")
    series_number = models.PositiveIntegerField(
        null=True, blank=True, unique=True,
        help_text="a game of the boxed rules: its number as a series (/series/<n>/, /api/series/<n>/; the id a "
                  "series had before issue 25 moved series into games)")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True,
                                   related_name="games_made", help_text="who opened it in the lobby (the boxed game)")
    course = models.ForeignKey(LakeCourse, on_delete=models.PROTECT, related_name="games", null=True, blank=True,
                               help_text="the course of the race being played (none before the start)")
    course_keys = models.JSONField(default=list, blank=True, help_text="LakeCourse keys of every race (one lake)")
    course_letter = models.CharField(max_length=1, blank=True)
    lake_side = models.CharField(max_length=8, choices=LakeSide.choices, default=LakeSide.STANDARD)
    rated = models.BooleanField(default=True)

    status = models.CharField(max_length=9, choices=Status.choices, default=Status.ACTIVE, db_index=True)
    phase = models.CharField(max_length=9, choices=Phase.choices, default=Phase.PLACE)
    race = models.PositiveSmallIntegerField(default=0, help_text="0-based index of the race being played")
    first_start = models.PositiveSmallIntegerField(null=True, blank=True,
                                                   help_text="the boxed game: race A's start player (R15, by lot)")
    to_move = models.PositiveSmallIntegerField(null=True, blank=True, default=0,
                                               help_text="the seat (Seat.index) to act; none before the start and "
                                                         "once a series is over")
    ply = models.PositiveIntegerField(default=0, help_text="actions so far; a client sends the ply it saw")
    pending = models.JSONField(null=True, blank=True, help_text="a roll awaiting its direction")

    winner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="games_won"
    )
    winner_color = models.CharField(max_length=6, blank=True)
    termination = models.CharField(max_length=12, blank=True)
    result_reason = models.CharField(max_length=200, blank=True, help_text="the result in English (records, logs)")
    result_code = models.CharField(max_length=24, blank=True,
                                   help_text="the result as data, with result_params (games.engine.rules.Outcome, "
                                             "games.engine.Series.result); pages and emails say it in the reader's "
                                             "language")
    result_params = models.JSONField(default=dict, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    dice_seed = models.CharField(max_length=64, blank=True, help_text="secret until the game ends (docs/fair-dice.md)")
    dice_seed_sha256 = models.CharField(max_length=64, blank=True)

    # the clock (docs/clocks.md)
    days_per_move = models.PositiveSmallIntegerField(default=3)
    grace_days = models.PositiveSmallIntegerField(default=7, help_text="each player's grace bank at the start")
    vacation_allowed = models.BooleanField(default=True)
    turn_started_at = models.DateTimeField(null=True, blank=True, help_text="when the player to move got the turn")
    move_deadline = models.DateTimeField(null=True, blank=True, help_text="end of the time for this move")
    deadline = models.DateTimeField(null=True, blank=True, help_text="when the player to move loses on time")
    reminder_at = models.DateTimeField(null=True, blank=True, help_text="cleared once the reminder is sent")
    reminder_sent_at = models.DateTimeField(null=True, blank=True)
    bot_to_move = models.BooleanField(default=False, help_text="a house bot is to act (the site moves it)")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [
            models.Index(fields=["status", "updated_at"]),
            # every query of the clock sweep reads one of these (docs/clocks.md, bench/sweep.py)
            models.Index(fields=["deadline"], condition=models.Q(status="active"), name="active_deadline"),
            models.Index(fields=["reminder_at"], condition=models.Q(status="active"), name="active_reminder"),
            models.Index(fields=["updated_at"], condition=models.Q(status="active", bot_to_move=True),
                         name="active_bot_to_move"),
        ]

    def __str__(self) -> str:
        if self.series_number is not None:
            return f"series {self.series_number} (game {self.pk})"
        return f"game {self.pk}"

    # --- its players: its seats ----------------------------------------------------------------
    # The seats are read with the game (games.loading, or prefetched with their users by the
    # selectors as ``seats``); these read them, with one query when they were not.

    def refresh_from_db(self, *args: Any, **kwargs: Any) -> None:
        self.__dict__.pop("_seat_list", None)  # the seats as they are now, next time they are asked for
        super().refresh_from_db(*args, **kwargs)

    @property
    def over(self) -> bool:
        return self.status == Game.Status.FINISHED

    @property
    def multi_race(self) -> bool:
        """A series of the boxed game (its number, its table, its races) rather than a two-player game."""
        return self.ruleset == Ruleset.BOXED

    def seat_list(self) -> list[Seat]:
        """The seats in seat order (before the start: in the order they were taken)."""
        cached: list[Seat] | None = self.__dict__.get("_seat_list")
        if cached is None:
            prefetched = getattr(self, "_prefetched_objects_cache", {}).get("seats")
            found = prefetched if prefetched is not None else self.seats.select_related("user")
            cached = self._seat_list = sorted(found, key=seat_order)
        return cached

    def keep_seats(self, seats: list[Seat]) -> None:
        """The seats as the caller read them (with their users): no query for them again."""
        self._seat_list = sorted(seats, key=seat_order)

    def seat_at(self, index: int | None) -> Seat | None:
        """The seat with this index (the player to move's: ``seat_at(to_move)``)."""
        if index is None:
            return None
        return next((s for s in self.seat_list() if s.index == index), None)

    @property
    def players(self) -> list[Any]:
        """The players in seat order."""
        return [s.user for s in self.seat_list()]

    @property
    def player_ids(self) -> list[int]:
        return [int(s.user_id) for s in self.seat_list()]

    def player(self, seat: int | None) -> Any:
        found = self.seat_at(seat)
        return found.user if found is not None else None

    def player_id(self, seat: int) -> int:
        found = self.seat_at(seat)
        assert found is not None, f"no seat {seat} in {self}"
        return int(found.user_id)

    def seat_of(self, user: Any) -> int | None:
        """The seat index of ``user`` in this game once it has started (None: not a player)."""
        uid = getattr(user, "pk", None) if user is not None else None
        if not uid:
            return None
        return next((s.index for s in self.seat_list() if s.user_id == uid), None)

    def color_of(self, seat: int | None) -> str | None:
        found = self.seat_at(seat)
        return found.color if found is not None else None

    @property
    def user_to_move(self) -> Any:
        return None if self.status != Game.Status.ACTIVE else self.player(self.to_move) if self.to_move is not None \
            else None

    @property
    def user_id_to_move(self) -> int | None:
        if self.status != Game.Status.ACTIVE or self.to_move is None:
            return None
        found = self.seat_at(self.to_move)
        return int(found.user_id) if found is not None else None


def seat_order(seat: Seat) -> tuple[int, Any, int]:
    """Seats in seat order; before the start (no index yet) in the order they were taken."""
    return (seat.index if seat.index is not None else 99, seat.joined_at, seat.pk or 0)


class Seat(models.Model):
    """A player's seat in a game: their boat in the race being played (mirrors ``games.engine.Boat``;
    empty once they left a series or before the start), their points, their place in a series'
    table, how they left (R18) and their grace bank. The seats are the list of a game's players."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField(null=True, blank=True,
                                             help_text="seat order (R15: round the table); none before the start")
    color = models.CharField(max_length=6, blank=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats")
    joined_at = models.DateTimeField(default=timezone.now)
    q = models.IntegerField(null=True, blank=True)
    r = models.IntegerField(null=True, blank=True)
    heading = models.PositiveSmallIntegerField(default=0)
    dice = models.JSONField(default=list)
    damage = models.PositiveSmallIntegerField(default=0)
    carried = models.PositiveSmallIntegerField(default=0, help_text="damage counters carried into this race (R20)")
    next_buoy = models.PositiveSmallIntegerField(default=1)
    count = models.SmallIntegerField(default=0)
    entries = models.JSONField(default=list)
    finished = models.BooleanField(default=False)
    sunk = models.BooleanField(default=False)
    moves = models.PositiveSmallIntegerField(default=0)
    points = models.PositiveSmallIntegerField(default=0, help_text="R14 in a two-player game; a series' total (R19)")
    place = models.PositiveSmallIntegerField(null=True, blank=True, help_text="in a series' table (R19)")
    left = models.CharField(max_length=12, blank=True, help_text="resign or timeout: left a series (R18)")
    grace_seconds = models.PositiveIntegerField(default=0, help_text="what is left of the grace bank")
    planned = models.BooleanField(default=False, db_default=False,
                                  help_text="the player has a plan for their next turn (Plan): read with the game, so "
                                            "the move path looks one up only when there is one; never shown")

    class Meta:
        ordering = ["game", "index", "joined_at"]
        constraints = [
            models.UniqueConstraint(fields=["game", "index"], name="one_seat_per_index"),
            models.UniqueConstraint(fields=["game", "user"], name="one_seat_per_player"),
        ]

    def __str__(self) -> str:
        return f"{self.color or 'a seat'} in game {self.game_id}"

    @property
    def buoys(self) -> int:
        return self.next_buoy - 1


class Move(AppendOnlyRows, models.Model):
    """One action of the history, never changed; one row per ply (docs/architecture.md), in every
    game (a two-player game's one race, or a series' three: ``race``).

    * ``place`` — a boat placed (R5, R16);
    * ``roll`` — the dice chosen and rolled (R6): ``choice``, ``dice_before``, ``rolled``, ``dice``;
    * ``turn`` — the direction taken and the whole turn as it happened (R7–R14, R17), at the ply
      its direction was chosen (a turn whose only allowed direction was taken at once, R7, is
      stored as its roll and its turn in the same request, at the roll's ply and the next);
    * ``end`` — ``termination`` is ``resign`` or ``timeout`` (``seat`` lost the two-player game, or
      left the series, R18) or ``adjudication``.
    """

    history_name = "move history"

    class Kind(models.TextChoices):
        PLACE = "place"
        ROLL = "roll"
        TURN = "turn"
        END = "end"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    ply = models.PositiveIntegerField(help_text="the game's ply before this action")
    race = models.PositiveSmallIntegerField(default=0, help_text="the race it happened in (0-based)")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="moves", null=True,
                             blank=True, help_text="who acted (none for an adjudication)")
    kind = models.CharField(max_length=5, choices=Kind.choices)
    termination = models.CharField(max_length=12, blank=True, help_text="end rows: resign, timeout, adjudication")
    number = models.PositiveSmallIntegerField(default=0, help_text="the boat's move number (0 for placing)")
    rolled_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    choice = models.JSONField(null=True, blank=True)
    dice_before = models.JSONField(default=list)
    rolled = models.JSONField(default=list)
    dice = models.JSONField(default=list)
    direction = models.PositiveSmallIntegerField(null=True, blank=True)
    auto = models.BooleanField(default=False)
    start = models.JSONField(null=True, blank=True)
    reach = models.PositiveSmallIntegerField(default=0)
    path = models.JSONField(default=list)
    final = models.JSONField(null=True, blank=True)
    heading = models.PositiveSmallIntegerField(null=True, blank=True)
    damage = models.PositiveSmallIntegerField(default=0)
    damage_total = models.PositiveSmallIntegerField(default=0)
    crash = models.BooleanField(default=False)
    rounded = models.JSONField(default=list)
    finished = models.BooleanField(default=False)
    sunk = models.BooleanField(default=False)
    notation = models.CharField(max_length=60)
    planned = models.BooleanField(default=False, db_default=False,
                                  help_text="played by the site from the player's plan (issue 27), not by the player")

    class Meta:
        ordering = ["game", "ply"]
        constraints = [models.UniqueConstraint(fields=["game", "ply"], name="one_action_per_ply")]

    def __str__(self) -> str:
        return f"game {self.game_id} ply {self.ply}: {self.notation}"


class Plan(models.Model):
    """A player's plan for their next turn of a game, and optionally the turn after (issue 27,
    "plans for the dice", games/plans.py): the dice choice, and for each total it can give a way
    (60° left, straight on, 60° right) or "ask me"; ``careful``: ask me too when the planned way
    would crash or sink the boat. When the turn comes the site plays it in the transaction of the
    move that gave the turn: it rolls from the committed seed and takes the planned way if it is
    allowed, else stops and waits for the player. Private: only its player sees it, and nothing of
    it is shown to anyone until it has played (its moves are then marked ``planned``)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="plans")
    seat = models.PositiveSmallIntegerField(help_text="the planner's seat (Seat.index)")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="plans")
    race = models.PositiveSmallIntegerField(default=0, help_text="the race it is for (a series' races)")
    turn = models.PositiveSmallIntegerField(help_text="the boat's move number it plays (its moves so far + 1)")
    turns = models.JSONField(help_text='[{"dice": {"change", "remove", "reroll"}, "ways": {total: way}, '
                                       '"careful": bool}, …]: this turn, and optionally the one after')
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seat"], name="one_plan_per_seat")]

    def __str__(self) -> str:
        return f"plan of seat {self.seat} in game {self.game_id} for move {self.turn}"


class IdempotentRequest(models.Model):
    """The first answer to a request made with an Idempotency-Key, returned again on retries: an
    action of any game (one key space per player)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=100)
    action = models.CharField(max_length=40)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, null=True, blank=True)
    status = models.PositiveSmallIntegerField(default=200)
    response = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="one_answer_per_key")]
