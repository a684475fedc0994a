"""Accounts: a player is a Django user with preferences for email, clocks and vacation."""

from __future__ import annotations

import zoneinfo
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from .names import USERNAME_HELP, name_key, validate_username, validate_username_available


def validate_time_zone(value: str) -> None:
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValidationError(_("%(value)r is not a time zone (e.g. Europe/Amsterdam)") % {"value": value}) from None


class User(AbstractUser):
    """A player. ``is_bot`` marks accounts played by a program (house bots or a
    user's own bot, like lichess BOT accounts).

    ``name_key`` is the username with case and look-alike letters folded away
    (accounts/names.py); its unique index keeps ``demo`` and ``dеmo`` (Cyrillic е) apart."""

    class EmailMode(models.TextChoices):
        EACH = "each", _("every event, immediately")
        DIGEST = "digest", _("one daily digest of the games where it is my turn")
        NONE = "none", _("no email")

    username = models.CharField(
        _("username"),
        max_length=150,  # names from before the 30-character rule stay valid
        unique=True,
        help_text=USERNAME_HELP,
        validators=[validate_username, validate_username_available],
        error_messages={"unique": _("A user with that username already exists.")},
    )
    name_key = models.TextField(
        unique=True, editable=False, help_text="the username's TR39 skeleton with case folded (accounts/names.py)"
    )
    is_bot = models.BooleanField(default=False, help_text="played by a program")
    bot_level = models.CharField(
        max_length=8, blank=True, default="", help_text="house bots only: easy, normal or strong (moved by the site)"
    )
    time_zone = models.CharField(_("time zone"), max_length=64, default="UTC", validators=[validate_time_zone])
    language = models.CharField(
        _("language"), max_length=8, blank=True, default="", choices=settings.LANGUAGES,
        help_text=_("the language of the pages and of your emails; empty: your browser's"),
    )
    bot_turn_emails = models.BooleanField(
        _("email \"your turn\" in bot games"), default=False,
        help_text=_("also email \"your turn\" in games against the house bots"),
    )
    bot_hints = models.BooleanField(
        _("the strong bot's advice"), default=False,
        help_text=_("in casual games against the house bots, show what the strong bot would do"),
    )
    guide_done = models.BooleanField(
        default=False, help_text="the player dismissed the first game's hints (games/guide: a new account's game "
                                 "against a house bot)",
    )
    email_mode = models.CharField(max_length=6, choices=EmailMode.choices, default=EmailMode.EACH)
    digest_hour = models.PositiveSmallIntegerField(default=8, help_text=_("local hour (0–23) of the daily digest"))
    reminder_hours = models.PositiveSmallIntegerField(default=24, help_text=_("remind me when this many hours are left"))
    last_digest_on = models.DateField(null=True, blank=True, help_text="local date of the last digest")
    vacation_days_per_year = models.PositiveSmallIntegerField(default=14)
    unsubscribe_version = models.PositiveIntegerField(
        default=0,
        help_text="signed into every unsubscribe link (games.notifications): a link that makes a change raises "
                  "it, so that link and every one sent before it stop working",
    )
    vacation_until = models.DateTimeField(
        null=True, blank=True,
        help_text="the end of the player's latest vacation (its planned end, or when it was ended early): a clock "
                  "that started after it has no pause to count, and needs no look at the vacations",
    )

    class Meta:
        ordering = ["username"]
        indexes = [
            # the digest task (every 15 minutes) reads only the players who chose a daily digest
            models.Index(fields=["digest_hour"], condition=models.Q(email_mode="digest"), name="user_digest"),
        ]

    def __str__(self) -> str:
        return self.username

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Keep ``name_key`` in step with ``username``, whichever way the user is saved."""
        update_fields = kwargs.get("update_fields")
        if update_fields is None or "username" in update_fields:
            key = name_key(self.username)
            # a clash from before the rule keeps its "#id" suffix (migration 0006)
            if self.name_key.partition("#")[0] != key:
                self.name_key = key
                if update_fields is not None:
                    kwargs["update_fields"] = {*update_fields, "name_key"}
        super().save(*args, **kwargs)

    @property
    def tz(self) -> zoneinfo.ZoneInfo:
        try:
            return zoneinfo.ZoneInfo(self.time_zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return zoneinfo.ZoneInfo("UTC")

    def wants_email(self, event: str) -> bool:
        if self.is_bot or not self.email:
            return False
        if self.email_mode == User.EmailMode.EACH:
            return True
        # with a digest, only what cannot wait a day comes at once
        return self.email_mode == User.EmailMode.DIGEST and event in {
            "digest", "game_over", "challenge", "pairing", "tournament_over", "group_start", "group_over"}


class Vacation(models.Model):
    """A stretch of time during which the player's clocks stop (docs/clocks.md).

    ``planned_end`` is fixed when it starts (the start plus the allowance left this year);
    ``ended_at`` is set when the player ends it early."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="vacations")
    started_at = models.DateTimeField()
    planned_end = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.user} on vacation from {self.started_at:%Y-%m-%d}"

    @property
    def end(self) -> datetime:
        return min(self.ended_at, self.planned_end) if self.ended_at else self.planned_end
