"""The live event log in the database (docs/live.md): ``LiveEvent`` rows, and ``LiveSeen``, who had
a game live in front of them. Its own app (label ``live``); the tables keep the names they had in
the games app. No foreign key to a game: an event never waits for or blocks a lock."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class LiveEvent(models.Model):
    """The append-only log of live events (docs/live.md): one row per action of a game, a game's
    start and end, a change of an open game's seats, of a challenge, a chat line. An action's,
    a start's, an end's and a seat change's row is written in the transaction of what caused it
    (with its other writes: common.db.writing); a challenge's and a chat line's after the commit
    (games.live.events.publish). The streams of every web process read it by id (Last-Event-ID replay);
    the sweep prunes rows older than a day. No foreign keys: an event never waits for or blocks
    a lock, and outlives nothing."""

    class Kind(models.TextChoices):
        MOVE = "move"  # an action of a game (data: ply, to_move, turn_passed)
        START = "start"
        FINISH = "finish"
        SEATS = "seats"  # an open game's seats changed (data: action open, seats or cancel; seats, rev)
        CHALLENGE = "challenge"
        CHAT = "chat"  # a line in a game's chat: the game page reloads its chat

    created_at = models.DateTimeField(default=timezone.now)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    game_id = models.BigIntegerField(null=True, blank=True)
    challenge_id = models.BigIntegerField(null=True, blank=True)
    # who is told on their own streams (My games, the lobbies, the API's user stream): a game's
    # players, a challenge's maker and named opponent. Not the list of a game's players (its seats)
    users = models.JSONField(default=list, blank=True)
    data = models.JSONField(default=dict)

    class Meta:
        db_table = "games_liveevent"  # the name it had in the games app
        indexes = [models.Index(fields=["created_at"], name="live_event_created")]

    def __str__(self) -> str:
        return f"{self.pk} {self.kind} game={self.game_id} challenge={self.challenge_id}"


class LiveSeen(models.Model):
    """A player had a game live in front of them (its page's stream), or every game (the API
    event stream: no game) at ``at``; refreshed at most once a minute while connected. A held
    your-turn email for a move made while they were there is dropped (games.notifications)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    game_id = models.BigIntegerField(null=True, blank=True, help_text="empty: the user's event stream")
    at = models.DateTimeField()

    class Meta:
        db_table = "games_liveseen"
        constraints = [
            models.UniqueConstraint(fields=["user", "game_id"], name="live_seen_once"),
            models.UniqueConstraint(fields=["user"], condition=models.Q(game_id__isnull=True),
                                    name="live_seen_stream_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} saw {self.game_id or 'all'} at {self.at}"
