"""Accounts: a player is a Django user with preferences for email, clocks and vacation."""

from __future__ import annotations

import zoneinfo
from datetime import datetime, timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.sessions.base_session import AbstractBaseSession
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from .names import USERNAME_HELP, name_key, validate_username, validate_username_available


def validate_time_zone(value: str) -> None:
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValidationError(_("%(value)r is not a time zone (e.g. Europe/Amsterdam)") % {"value": value}) from None


class Kind(models.TextChoices):
    """What a player may be told of (Settings, "Notifications"): each kind has its channels."""

    YOUR_TURN = "your_turn", _("Your turn")
    REMINDER = "reminder", _("A reminder before your deadline")
    GAME_OVER = "game_over", _("A game is over")
    CHALLENGE = "challenge", _("A challenge to you")
    TOURNAMENT = "tournament", _("Tournaments: a new pairing, a start, an end")
    VACATION = "vacation", _("A vacation day used for you automatically")


class EmailWay(models.TextChoices):
    """How a kind of notice comes by email."""

    EACH = "each", _("each at once")
    DIGEST = "digest", _("in the daily digest")
    NONE = "none", _("none")


# the kind of each notice the site sends (games.notifications; the digest is a channel, not a kind)
KIND_OF = {
    "your_turn": Kind.YOUR_TURN, "reminder": Kind.REMINDER, "game_over": Kind.GAME_OVER,
    "challenge": Kind.CHALLENGE, "pairing": Kind.TOURNAMENT, "tournament_over": Kind.TOURNAMENT,
    "group_start": Kind.TOURNAMENT, "group_over": Kind.TOURNAMENT, "auto_vacation": Kind.VACATION,
}
# the email presets of before per-kind settings, still what ``email_mode`` sets (the unsubscribe
# link, PATCH /api/me/): every kind at once, none, or the games to move in a daily digest
EMAIL_PRESETS: dict[str, dict[str, str]] = {
    "each": {k: EmailWay.EACH for k in Kind.values},
    "digest": {k: (EmailWay.DIGEST if k in (Kind.YOUR_TURN, Kind.REMINDER) else EmailWay.EACH) for k in Kind.values},
    "none": {k: EmailWay.NONE for k in Kind.values},
}


def validate_notify(value: Any) -> None:
    """``User.notify``: for some kinds, ``{"email": "each" | "digest" | "none", "push": bool}``."""
    if value is None:
        return
    if not isinstance(value, dict):
        raise ValidationError(_("notifications are an object of kinds"))
    for kind, ways in value.items():
        if kind not in Kind.values:
            raise ValidationError(_("%(value)r is not a kind of notification") % {"value": kind})
        if not isinstance(ways, dict) or set(ways) - {"email", "push"}:
            raise ValidationError(_("each kind has email and push"))
        if "email" in ways and ways["email"] not in EmailWay.values:
            raise ValidationError(_("email is each, digest or none"))
        if "push" in ways and not isinstance(ways["push"], bool):
            raise ValidationError(_("push is true or false"))


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
    email_mode = models.CharField(
        max_length=6, choices=EmailMode.choices, default=EmailMode.EACH,
        help_text="a summary of the emails chosen per kind (``notify``), kept by save(): digest when any kind "
                  "comes in the daily digest (the digest task's index), none when no kind is emailed, else "
                  "each; setting it (user_set_email_mode: the unsubscribe link, the API) applies its preset")
    notify = models.JSONField(
        null=True, blank=True, validators=[validate_notify],
        help_text="per kind of notice (Kind), its channels: {kind: {email: each|digest|none, push: bool}}; a "
                  "kind or channel left out: email as email_mode's preset, push on (docs/notifications.md)")
    push_devices = models.PositiveSmallIntegerField(
        default=0, db_default=0, help_text="devices subscribed to web push (games.notifications.push keeps it): "
                                           "the move path knows without a query whether to record a push")
    quiet_from = models.PositiveSmallIntegerField(
        _("quiet from"), null=True, blank=True,
        help_text=_("local hour (0–23) from which nothing is pushed or emailed at once; empty: no quiet hours"))
    quiet_to = models.PositiveSmallIntegerField(
        _("quiet until"), null=True, blank=True, help_text=_("local hour (0–23) when the quiet hours end"))
    next_game_link = models.BooleanField(
        _("the “Next game” link"), default=True, db_default=True,
        help_text=_("in the menu: straight to the game that waits for your move with the nearest deadline"))
    digest_hour = models.PositiveSmallIntegerField(default=8, help_text=_("local hour (0–23) of the daily digest"))
    reminder_hours = models.PositiveSmallIntegerField(default=24, help_text=_("remind me when this many hours are left"))
    last_digest_on = models.DateField(null=True, blank=True, help_text="local date of the last digest")
    vacation_days_per_year = models.PositiveSmallIntegerField(default=14)
    unsubscribe_version = models.PositiveIntegerField(
        default=0,
        help_text="signed into every unsubscribe link (games.notifications): a link that makes a change raises "
                  "it, so that link and every one sent before it stop working",
    )
    weekend_pause = models.BooleanField(
        _("stop my clocks at weekends"), default=False, db_default=False,
        help_text=_("from Saturday 00:00 to Monday 00:00 in your time zone, in games whose terms allow it"))
    auto_vacation = models.BooleanField(
        _("use my vacation days when a clock would run out"), default=False, db_default=False,
        help_text=_("a day at a time, for all your games at once, while days are left; tournaments may forbid it"))
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
        """Keep ``name_key`` in step with ``username``, and ``email_mode`` with ``notify``, whichever
        way the user is saved."""
        update_fields = kwargs.get("update_fields")
        if self.notify is not None and (update_fields is None or "notify" in update_fields):
            self.email_mode = self.email_summary()
            if update_fields is not None:
                kwargs["update_fields"] = update_fields = {*update_fields, "email_mode"}
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

    # --- notifications: per kind, by email (each, in the digest, none) and by push ------------

    def channels(self, kind: str) -> dict[str, Any]:
        """A kind's channels as chosen, the defaults filled in: email as ``email_mode``'s preset
        (each, unless the player chose otherwise before there were kinds), push on. With no
        choice per kind (``notify`` empty) the preset is all there is."""
        chosen = (self.notify or {}).get(kind, {})
        preset = EMAIL_PRESETS.get(self.email_mode, EMAIL_PRESETS["each"])[kind]
        return {"email": chosen.get("email", preset), "push": chosen.get("push", True)}

    def email_way(self, kind: str) -> str:
        if self.is_bot or not self.email:
            return EmailWay.NONE
        return str(self.channels(kind)["email"])

    def email_summary(self) -> str:
        """``email_mode`` as the per-kind choices give it."""
        ways = {self.channels(k)["email"] for k in Kind.values}
        if EmailWay.DIGEST in ways:
            return User.EmailMode.DIGEST
        return User.EmailMode.NONE if ways == {EmailWay.NONE} else User.EmailMode.EACH

    def wants_email(self, event: str) -> bool:
        """An email for ``event`` goes out at once (the digest itself: to a player with an address)."""
        if event == "digest":
            return not self.is_bot and bool(self.email)
        kind = KIND_OF.get(event)
        return kind is not None and self.email_way(kind) == EmailWay.EACH

    def wants_in_digest(self, event: str) -> bool:
        """``event`` waits for the daily digest (your turn and reminders: the digest lists the games
        to move; the other kinds: what happened since the last one)."""
        kind = KIND_OF.get(event)
        return kind is not None and self.email_way(kind) == EmailWay.DIGEST

    def wants_push(self, event: str) -> bool:
        """A push for ``event`` goes to this player's devices (they have one, and want this kind)."""
        kind = KIND_OF.get(event)
        return (kind is not None and not self.is_bot and self.push_devices > 0
                and bool(self.channels(kind)["push"]))

    def quiet_until(self, now: datetime) -> datetime | None:
        """The end of the player's quiet hours when ``now`` falls in them (their time zone; a
        window may run over midnight), else None."""
        start, end = self.quiet_from, self.quiet_to
        if start is None or end is None or start == end:
            return None
        local = now.astimezone(self.tz)
        hour = local.hour
        inside = start <= hour < end if start < end else (hour >= start or hour < end)
        if not inside:
            return None
        day = local.date() + timedelta(days=1) if start > end and hour >= start else local.date()
        naive = datetime(day.year, day.month, day.day, end)
        return naive.replace(tzinfo=self.tz).astimezone(now.tzinfo)


class Vacation(models.Model):
    """A stretch of time during which the player's clocks stop (docs/clocks.md).

    ``planned_end`` is fixed when it starts (the start plus the allowance left this year);
    ``ended_at`` is set when the player ends it early."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="vacations")
    started_at = models.DateTimeField()
    planned_end = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    automatic = models.BooleanField(default=False, db_default=False,
                                    help_text="taken by the site when a clock would have run out (User.auto_vacation)")

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.user} on vacation from {self.started_at:%Y-%m-%d}"

    @property
    def end(self) -> datetime:
        return min(self.ended_at, self.planned_end) if self.ended_at else self.planned_end


class PlayerSession(AbstractBaseSession):
    """Django's database session (the same key, data and expiry) with its player's id in a column
    of its own, set whenever the session is saved (powerboats_site.sessions): a page reads the
    session and its player in one query (docs/performance.md). The id in the session's data is
    still the one Django's checks use; the column only finds the row. A player deleted takes
    their sessions with them."""

    # no database constraint: the data may name a player deleted since (a save must not fail);
    # deleting a player still deletes their sessions (Django's collector)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                             related_name="+", db_constraint=False)

    def __str__(self) -> str:
        # never the key (Django's says it): the admin lists a player's sessions before deleting them
        return f"a session of player {self.user_id} until {self.expire_date:%Y-%m-%d}"

    @classmethod
    def get_session_store_class(cls) -> Any:
        return import_module(settings.SESSION_ENGINE).SessionStore
