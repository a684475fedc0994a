"""Account services (writes)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from .models import EMAIL_PRESETS, Kind, User, validate_notify

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo"
DEMO_EMAIL = "demo@example.invalid"


@transaction.atomic
def user_ensure_demo() -> User:
    """The demo player, created if missing; its password is reset to 'demo'."""
    user, _ = User.objects.get_or_create(username=DEMO_USERNAME, defaults={"email": DEMO_EMAIL})
    user.set_password(DEMO_PASSWORD)
    user.save(update_fields=["password"])
    return user


@transaction.atomic
def user_disable_demo() -> bool:
    """Where no demo account belongs (``settings.DEMO_ACCOUNT`` is false), one made by an
    earlier run can no longer log in. A person who chose the name "demo" is left alone: only
    the account with the demo's own email address is touched. True if one was disabled."""
    user = User.objects.select_for_update().filter(username=DEMO_USERNAME, email=DEMO_EMAIL).first()
    if user is None or not user.has_usable_password():
        return False
    user.set_unusable_password()
    user.save(update_fields=["password"])
    return True


@transaction.atomic
def user_set_language(*, user: User, language: str) -> None:
    """Store the player's language (a code of ``settings.LANGUAGES``, or "" for the browser's)."""
    if language and language not in dict(settings.LANGUAGES):
        raise ValueError(f"unknown language {language!r}")
    user.language = language
    user.save(update_fields=["language"])


HOUSE_BOTS = {
    "bot-easy": ("easy", "Greedy: looks one roll ahead."),
    "bot-normal": ("normal", "Weighs every dice choice by the exact chances of every total."),
    "bot-strong": ("strong", "Looks a turn further ahead and plans its speed round the course."),
}


@transaction.atomic
def user_ensure_house_bots() -> list[User]:
    """The house bots (one per level), created if missing; nobody can log in as one."""
    bots = []
    for username, (level, about) in HOUSE_BOTS.items():
        user, created = User.objects.get_or_create(
            username=username, defaults={"is_bot": True, "bot_level": level, "first_name": about}
        )
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        bots.append(user)
    return bots


@transaction.atomic
def user_set_email_mode(*, user: User, mode: str) -> User:
    """Apply an email preset to every kind of notice (the unsubscribe link: ``none``; back:
    ``each``; ``digest``: the games to move in a daily digest, the rest at once). The choices of
    push per kind stay as they were."""
    if mode not in User.EmailMode.values:
        raise ValueError(f"unknown email mode {mode!r}")
    pushes = {k: user.channels(k)["push"] for k in Kind.values}
    notify = None if all(pushes.values()) else {k: {"email": EMAIL_PRESETS[mode][k], "push": pushes[k]}
                                               for k in Kind.values}
    User.objects.filter(pk=user.pk).update(email_mode=mode, notify=notify)
    user.email_mode, user.notify = mode, notify
    return user


@transaction.atomic
def user_set_notifications(*, user: User, notify: dict[str, dict[str, Any]] | None = None,
                           quiet: tuple[int | None, int | None] | None = None,
                           next_game_link: bool | None = None) -> User:
    """Store a player's choices of notifications: per kind its email (each, digest, none) and
    push (on, off) — the kinds and channels named, the others as they were — the quiet hours
    (both hours, or neither: none), and whether the menu has the "Next game" link."""
    fields = []
    if notify is not None:
        merged = {k: user.channels(k) for k in Kind.values}
        for kind, ways in notify.items():
            merged[kind] = {**merged[kind], **ways}
        validate_notify(merged)
        user.notify = merged
        fields.append("notify")
    if quiet is not None:
        start, end = quiet
        if (start is None) != (end is None):
            raise ValueError("quiet hours need both hours, or neither")
        if any(h is not None and not 0 <= h <= 23 for h in (start, end)):
            raise ValueError("an hour is 0 to 23")
        user.quiet_from, user.quiet_to = start, end
        fields += ["quiet_from", "quiet_to"]
    if next_game_link is not None:
        user.next_game_link = next_game_link
        fields.append("next_game_link")
    if fields:
        user.save(update_fields=fields)
    return user
