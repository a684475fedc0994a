"""What players do around a game (issue 13), in the database: a game's chat, its mutes and the
reports of its lines to the staff. Its own app (label ``social``); the tables keep the names they
had in the games app. A game is named by its label; rematches are challenges (games.models)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

CHAT_MAX_LENGTH = 500


class ChatMessage(models.Model):
    """A line of a game's chat, written by one of its two players, read by everyone who can see
    the game (spectators read, they do not write). Kept with the game; never edited."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="chat")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages")
    text = models.CharField(max_length=CHAT_MAX_LENGTH)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "games_chatmessage"  # the name it had in the games app
        ordering = ["game", "created_at", "id"]
        indexes = [models.Index(fields=["game", "-created_at"], name="chat_by_game")]

    def __str__(self) -> str:
        return f"{self.user} in game {self.game_id}: {self.text[:40]}"


class ChatMute(models.Model):
    """A player has muted the opponent's chat in one game: the opponent's lines are hidden from
    that player (spectators and the opponent still see them; the opponent is not told)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="chat_mutes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+",
                             help_text="the player who muted")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "games_chatmute"
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
        db_table = "games_chatreport"
        ordering = ["resolved", "-created_at"]
        constraints = [models.UniqueConstraint(fields=["message", "reporter"], name="one_report_per_message")]

    def __str__(self) -> str:
        return f"report by {self.reporter} of chat line {self.message_id}"
