"""Notices in the database: one ``Notice`` row per notice that must reach a player by one channel
(an email at once, a web push, a line of the next daily digest), and the devices that take
pushes (``PushSubscription``). Its own app (label ``notifications``); the table of notices keeps
the name it had in the games app, from when it held emails only (docs/notifications.md)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Notice(models.Model):
    """One row per notice that should reach a player by one channel: recorded in the transaction
    of what caused it, it makes sending idempotent (exactly once per user, event, key and channel)."""

    class Channel(models.TextChoices):
        EMAIL = "email", "email"
        PUSH = "push", "push"
        DIGEST = "digest", "digest"  # waits for the player's next daily digest (sent with it)

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    event = models.CharField(max_length=20)
    channel = models.CharField(max_length=6, choices=Channel.choices, default=Channel.EMAIL, db_default="email")
    key = models.CharField(max_length=100, help_text="what the notice is about, e.g. game:12:ply:30")
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    send_after = models.DateTimeField(
        null=True, blank=True,
        help_text="held back until then: a your-turn notice waits a little, in case the player is there "
                  "already; anything waits for the end of the player's quiet hours",
    )

    class Meta:
        db_table = "games_emaillog"  # the name it had in the games app, when it held emails only
        constraints = [models.UniqueConstraint(fields=["user", "event", "key", "channel"],
                                               name="one_notice_per_event_and_channel")]
        indexes = [
            # the sweep re-queues unsent emails and pushes: only those are in this index
            models.Index(fields=["created_at"], condition=models.Q(sent_at__isnull=True, attempts__lt=20),
                         name="email_unsent"),
            # and sends the held-back ones whose time has come
            models.Index(fields=["send_after"], condition=models.Q(sent_at__isnull=True), name="email_held"),
        ]

    def __str__(self) -> str:
        return f"{self.event} by {self.channel} to {self.user} ({self.key})"


class PushSubscription(models.Model):
    """A device (a browser, an installed app) that takes web pushes for its player: the push
    service's endpoint and the keys a push is encrypted with (RFC 8291), as the browser's
    ``PushManager.subscribe`` gave them. Removed by its player, or when the push service says it
    is gone (404, 410)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions")
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=100, help_text="the device's public key (base64url, P-256)")
    auth = models.CharField(max_length=40, help_text="the device's authentication secret (base64url)")
    name = models.CharField(max_length=80, blank=True, help_text="what the player calls it (else: the browser's)")
    created_at = models.DateTimeField(default=timezone.now)
    last_pushed_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.name or 'a device'} of {self.user}"
