"""Emails in the database: one ``EmailLog`` row per email that must go out (docs/architecture.md).
Its own app (label ``notifications``); the table keeps the name it had in the games app."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


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
        db_table = "games_emaillog"  # the name it had in the games app
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
