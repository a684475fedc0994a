"""Games in the database: challenges, courses, games, seats, the append-only move history,
and the ratings that finished games move.

The stored state of a game (``Game`` + its two ``Seat`` rows) always equals the replay of
its ``Move`` rows through the rules engine; ``manage.py verify_games`` checks it. All
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

from . import glicko2
from .appendonly import AppendOnly, AppendOnlyRows

COLORS = ("yellow", "red")
PROVISIONAL_DEVIATION = 110.0


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


class Challenge(models.Model):
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


class Game(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        FINISHED = "finished"

    class Phase(models.TextChoices):
        PLACE = "place"
        DICE = "dice"
        DIRECTION = "direction"
        OVER = "over"

    yellow = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games_as_yellow")
    red = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games_as_red")
    course = models.ForeignKey(LakeCourse, on_delete=models.PROTECT, related_name="games")
    course_letter = models.CharField(max_length=1)
    lake_side = models.CharField(max_length=8, choices=LakeSide.choices)
    rated = models.BooleanField(default=True)

    status = models.CharField(max_length=8, choices=Status.choices, default=Status.ACTIVE, db_index=True)
    phase = models.CharField(max_length=9, choices=Phase.choices, default=Phase.PLACE)
    to_move = models.PositiveSmallIntegerField(default=0, help_text="seat to act: 0 yellow, 1 red")
    ply = models.PositiveIntegerField(default=0, help_text="actions so far; a client sends the ply it saw")
    pending = models.JSONField(null=True, blank=True, help_text="a roll awaiting its direction")

    winner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="games_won"
    )
    winner_color = models.CharField(max_length=6, blank=True)
    termination = models.CharField(max_length=12, blank=True)
    result_reason = models.CharField(max_length=200, blank=True, help_text="the result in English (records, logs)")
    result_code = models.CharField(max_length=24, blank=True,
                                   help_text="the result as data, with result_params (games.engine.rules.Outcome); "
                                             "pages and emails say it in the reader's language")
    result_params = models.JSONField(default=dict, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    dice_seed = models.CharField(max_length=64, help_text="secret until the game ends (docs/fair-dice.md)")
    dice_seed_sha256 = models.CharField(max_length=64)

    # the clock (docs/clocks.md)
    days_per_move = models.PositiveSmallIntegerField(default=3)
    grace_days = models.PositiveSmallIntegerField(default=7, help_text="each player's grace bank at the start")
    vacation_allowed = models.BooleanField(default=True)
    turn_started_at = models.DateTimeField(default=timezone.now, help_text="when the player to move got the turn")
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
        return f"game {self.pk}: {self.yellow} (Y) v {self.red} (R)"

    @property
    def over(self) -> bool:
        return self.status == Game.Status.FINISHED

    def player(self, seat: int) -> Any:
        return self.yellow if seat == 0 else self.red

    def player_id(self, seat: int) -> int:
        return int(self.yellow_id if seat == 0 else self.red_id)

    def seat_of(self, user: Any) -> int | None:
        if user is None or not getattr(user, "pk", None):
            return None
        if user.pk == self.yellow_id:
            return 0
        if user.pk == self.red_id:
            return 1
        return None

    @property
    def user_to_move(self) -> Any:
        return None if self.over else self.player(self.to_move)

    @property
    def user_id_to_move(self) -> int | None:
        if self.over:
            return None
        return int(self.yellow_id if self.to_move == 0 else self.red_id)


class Seat(models.Model):
    """One boat's stored state (mirrors ``games.engine.Boat``)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    color = models.CharField(max_length=6)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats")
    q = models.IntegerField(null=True, blank=True)
    r = models.IntegerField(null=True, blank=True)
    heading = models.PositiveSmallIntegerField(default=0)
    dice = models.JSONField(default=list)
    damage = models.PositiveSmallIntegerField(default=0)
    next_buoy = models.PositiveSmallIntegerField(default=1)
    count = models.SmallIntegerField(default=0)
    entries = models.JSONField(default=list)
    finished = models.BooleanField(default=False)
    sunk = models.BooleanField(default=False)
    moves = models.PositiveSmallIntegerField(default=0)
    points = models.PositiveSmallIntegerField(default=0)
    grace_seconds = models.PositiveIntegerField(default=0, help_text="what is left of the grace bank")

    class Meta:
        ordering = ["game", "index"]
        constraints = [models.UniqueConstraint(fields=["game", "index"], name="one_seat_per_index")]

    def __str__(self) -> str:
        return f"{self.color} in game {self.game_id}"

    @property
    def buoys(self) -> int:
        return self.next_buoy - 1


class Move(AppendOnlyRows, models.Model):
    """One action of the history, never changed; one row per ply (docs/architecture.md).

    * ``place`` — a boat placed (R5);
    * ``roll`` — the dice chosen and rolled (R6): ``choice``, ``dice_before``, ``rolled``, ``dice``;
    * ``turn`` — the direction taken and the whole turn as it happened (R7–R14), at the ply
      after its roll (a turn whose only allowed direction was taken at once, R7, is stored
      as its roll and its turn in the same request);
    * ``end`` — the game ended other than by a move: ``termination`` is ``resign`` or
      ``timeout`` (``seat`` lost) or ``adjudication``.
    """

    history_name = "move history"

    class Kind(models.TextChoices):
        PLACE = "place"
        ROLL = "roll"
        TURN = "turn"
        END = "end"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    ply = models.PositiveIntegerField(help_text="the game's ply before this action")
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
    notation = models.CharField(max_length=40)

    class Meta:
        ordering = ["game", "ply"]
        constraints = [models.UniqueConstraint(fields=["game", "ply"], name="one_action_per_ply")]

    def __str__(self) -> str:
        return f"game {self.game_id} ply {self.ply}: {self.notation}"



class EmailLog(models.Model):
    """One row per email that should go out: makes sending idempotent (exactly once)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    event = models.CharField(max_length=20)
    key = models.CharField(max_length=100, help_text="what the email is about, e.g. game:12:ply:30")
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    send_after = models.DateTimeField(
        null=True, blank=True,
        help_text="held back until then: a your-turn email waits a little, in case the player is there already",
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "event", "key"], name="one_email_per_event")]
        indexes = [
            # the sweep re-queues unsent emails: only those are in this index
            models.Index(fields=["created_at"], condition=models.Q(sent_at__isnull=True, attempts__lt=20),
                         name="email_unsent"),
            # and sends the held-back ones whose time has come
            models.Index(fields=["send_after"], condition=models.Q(sent_at__isnull=True), name="email_held"),
        ]

    def __str__(self) -> str:
        return f"{self.event} to {self.user} ({self.key})"


class IdempotentRequest(models.Model):
    """The first answer to a request made with an Idempotency-Key, returned again on retries: a
    game's action or a series' (one key space per player)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=100)
    action = models.CharField(max_length=40)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, null=True, blank=True)
    series = models.ForeignKey("games.SeriesGame", on_delete=models.CASCADE, null=True, blank=True,
                               help_text="a series action's key (games.services_series)")
    status = models.PositiveSmallIntegerField(default=200)
    response = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="one_answer_per_key")]


# --- ratings (docs/ratings.md) ----------------------------------------------------------------
# They belong with games: finishing a game rates it in the same transaction (games.services).
# The tables keep the names they had when ratings lived in the tournaments app.


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
        db_table = "tournaments_rating"
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

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
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


# --- what players do around a game (issue 13): chat with moderation, rematches ----------------

CHAT_MAX_LENGTH = 500


class ChatMessage(models.Model):
    """A line of a game's chat, written by one of its two players, read by everyone who can see
    the game (spectators read, they do not write). Kept with the game; never edited."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages")
    text = models.CharField(max_length=CHAT_MAX_LENGTH)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "created_at", "id"]
        indexes = [models.Index(fields=["game", "-created_at"], name="chat_by_game")]

    def __str__(self) -> str:
        return f"{self.user} in game {self.game_id}: {self.text[:40]}"


class ChatMute(models.Model):
    """A player has muted the opponent's chat in one game: the opponent's lines are hidden from
    that player (spectators and the opponent still see them; the opponent is not told)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat_mutes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+",
                             help_text="the player who muted")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="one_mute_per_game_and_player")]

    def __str__(self) -> str:
        return f"{self.user} muted the chat of game {self.game_id}"


class ChatReport(models.Model):
    """A player reported a chat line to the staff (listed in the Django admin)."""

    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    resolved = models.BooleanField(default=False, help_text="a staff member has dealt with it")

    class Meta:
        ordering = ["resolved", "-created_at"]
        constraints = [models.UniqueConstraint(fields=["message", "reporter"], name="one_report_per_message")]

    def __str__(self) -> str:
        return f"report by {self.reporter} of chat line {self.message_id}"


class LiveEvent(models.Model):
    """The append-only log of live events (docs/live.md): one row per move, game start, game end
    or change of a challenge, written after the commit of what caused it (games.live.publish).
    The streams of every web process read it by id (Last-Event-ID replay); the sweep prunes
    rows older than a day. No foreign keys: the row is written outside the move's transaction
    and must never wait for or block a lock."""

    class Kind(models.TextChoices):
        MOVE = "move"
        START = "start"
        FINISH = "finish"
        CHALLENGE = "challenge"
        CHAT = "chat"  # a line in a game's chat: the game page reloads its chat
        SERIES = "series"  # a series changed (issue 16): data["action"] says how, see games.live

    created_at = models.DateTimeField(default=timezone.now)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    game_id = models.BigIntegerField(null=True, blank=True)
    challenge_id = models.BigIntegerField(null=True, blank=True)
    series_id = models.BigIntegerField(null=True, blank=True)  # kind "series" only
    # the people the event concerns (the two players, or a challenge's maker and named opponent)
    user_a = models.BigIntegerField(null=True, blank=True)
    user_b = models.BigIntegerField(null=True, blank=True)
    data = models.JSONField(default=dict)

    class Meta:
        indexes = [models.Index(fields=["created_at"], name="live_event_created")]

    def __str__(self) -> str:
        return f"{self.pk} {self.kind} game={self.game_id} challenge={self.challenge_id} series={self.series_id}"


class LiveSeen(models.Model):
    """A player had a game live in front of them (its page's stream), a series (its page's
    stream, ``series_id``), or every game (the API event stream: neither) at ``at``; refreshed
    at most once a minute while connected. A held your-turn email for a move made while they
    were there is dropped (games.notifications)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    game_id = models.BigIntegerField(null=True, blank=True, help_text="empty: a series, or the user's event stream")
    series_id = models.BigIntegerField(null=True, blank=True, help_text="a series' page (issue 24)")
    at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game_id"], name="live_seen_once"),
            models.UniqueConstraint(fields=["user", "series_id"], name="live_seen_series_once"),
            models.UniqueConstraint(fields=["user"], condition=models.Q(game_id__isnull=True, series_id__isnull=True),
                                    name="live_seen_stream_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} saw {self.game_id or 'all'} at {self.at}"


# --- series of the boxed game for 2-6 players (issue 16): models in their own module ---------
from .models_series import (  # noqa: E402,F401
    SeriesAction,
    SeriesGame,
    SeriesRating,
    SeriesRatingChange,
    SeriesSeat,
)
