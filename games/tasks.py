"""Celery tasks: each takes ids, calls services, and is safe to run twice."""

from __future__ import annotations

import logging
import smtplib
from datetime import datetime, timedelta
from typing import Any

from celery import shared_task
from django.contrib.auth import get_user_model
from django.db.models import F, Q
from django.utils import timezone

from common.errors import ServiceError

from . import board, bots, services
from .live import events as live
from .models import Challenge, Game
from .notifications.emails import send_logged
from .notifications.models import Notice
from .notifications.notices import notify
from .notifications.push import PushRetry, send_push_logged
from .selectors import games_to_move

log = logging.getLogger(__name__)
User = get_user_model()


@shared_task(
    autoretry_for=(smtplib.SMTPException, OSError),
    retry_backoff=30,
    retry_backoff_max=3600,
    retry_jitter=True,
    max_retries=12,
)
def send_email(entry_id: int) -> bool:
    """Send one recorded email; a failing mail server is retried with back-off (30 s … 1 h)."""
    return send_logged(entry_id)


@shared_task(
    autoretry_for=(PushRetry, OSError),
    retry_backoff=30,
    retry_backoff_max=3600,
    retry_jitter=True,
    max_retries=12,
)
def send_push(entry_id: int) -> int:
    """Send one recorded push to the player's devices (those not reached yet); a push service that
    is busy or down is retried with back-off (30 s … 1 h). Returns how many devices took it."""
    return send_push_logged(entry_id)


SENDERS: dict[str, Any] = {Notice.Channel.EMAIL: send_email, Notice.Channel.PUSH: send_push}


def queue(entry_id: int, channel: str = Notice.Channel.EMAIL, countdown: float = 0.0) -> None:
    """Queue the sending of a recorded email or push (the sweep's; a new one is queued by a
    receiver), after ``countdown`` seconds."""
    try:
        if countdown > 0:
            SENDERS[channel].apply_async((entry_id,), countdown=countdown)
        else:
            SENDERS[channel].delay(entry_id)
    except Exception:  # the broker is down: the sweep queues it again later; the move stands
        log.exception("could not queue %s %s; it will be retried by the sweep", channel, entry_id)


def due_time_outs(now: datetime) -> Any:
    """Active games whose player to move is past the deadline (index ``active_deadline``)."""
    return (Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=now).order_by("deadline")
            .values_list("pk", flat=True))


def due_reminders(now: datetime) -> Any:
    """Active games whose reminder is due and not sent (index ``active_reminder``: a sent
    reminder clears ``reminder_at``)."""
    return (
        Game.objects.filter(status=Game.Status.ACTIVE, reminder_at__lte=now)
        .filter(Q(reminder_sent_at__isnull=True) | Q(reminder_sent_at__lt=F("turn_started_at")))
        .order_by("reminder_at")
        .values_list("pk", flat=True)
    )


def waiting_bots(now: datetime) -> Any:
    """Games where a house bot has been to move for two minutes: its task was lost (the broker
    restarted). Index ``active_bot_to_move``."""
    return (Game.objects.filter(status=Game.Status.ACTIVE, bot_to_move=True, updated_at__lt=now - timedelta(minutes=2))
            .order_by("updated_at").values_list("pk", "ply"))


SENT_BY_TASK = (Notice.Channel.EMAIL, Notice.Channel.PUSH)  # the digest's wait for the digest


def unsent_notices(now: datetime) -> Any:
    """Emails and pushes recorded a quarter of an hour ago, not held back and still not sent
    (index ``email_unsent``): queueing them failed or their task was lost."""
    return (Notice.objects.filter(sent_at__isnull=True, attempts__lt=20, created_at__lt=now - timedelta(minutes=15),
                                  send_after__isnull=True, channel__in=SENT_BY_TASK)
            .order_by("created_at").values_list("pk", "channel")[:200])


def held_notices_due(now: datetime) -> Any:
    """Held-back emails and pushes whose time has come (index ``email_held``)."""
    return (Notice.objects.filter(sent_at__isnull=True, send_after__lte=now).order_by("send_after")
            .values_list("pk", "channel")[:500])


@shared_task
def sweep_clocks() -> dict[str, int]:
    """Every minute (beat): time-outs and reminders that are due, lost bot moves, held-back
    emails whose time has come and unsent emails, each by one indexed query (bench/sweep.py
    shows the plans at scale).

    Each game is handled by a service that locks its row and checks again, so two sweeps
    at once, a sweep run twice, or a move at the same moment give one result."""
    now = timezone.now()
    timed_out = sum(services.game_time_out(game_id=game_id, now=now) for game_id in due_time_outs(now))
    reminded = sum(services.game_remind(game_id=game_id, now=now) for game_id in due_reminders(now))
    for game_id, ply in waiting_bots(now):
        bot_move.delay(game_id, ply)
    due = list(held_notices_due(now))
    Notice.objects.filter(pk__in=[pk for pk, _ in due]).update(send_after=None)  # queued now; lost ones come back
    for entry_id, channel in due:
        queue(entry_id, channel)
    requeued = 0
    for entry_id, channel in unsent_notices(now):
        queue(entry_id, channel)
        requeued += 1
    pruned = live.prune(now)  # live events older than a day (indexed: live_event_created)
    drawings = board.prune_drawings(now)  # stored board drawings older than 30 days (course_drawing_created)
    return {"timed_out": timed_out, "reminded": reminded, "released": len(due), "requeued": requeued,
            "live_pruned": pruned, "drawings_pruned": drawings}


def digest_readers() -> Any:
    """Players who chose one daily digest (index ``user_digest``)."""
    return User.objects.filter(email_mode=User.EmailMode.DIGEST, is_bot=False).exclude(email="").order_by("pk")


@shared_task
def send_digests() -> int:
    """Every 15 minutes (beat): the daily digest of users whose local digest hour has come: the
    games (of every ruleset) where it is their turn, and the notices that waited for it (the
    kinds the player chose to read in the digest: a game over, a challenge, a pairing)."""
    now = timezone.now()
    sent = 0
    for user in digest_readers():
        local_now = timezone.localtime(now, user.tz)
        if local_now.hour < user.digest_hour:
            continue
        today = local_now.date()
        claimed = User.objects.filter(pk=user.pk).filter(
            Q(last_digest_on__isnull=True) | Q(last_digest_on__lt=today)
        ).update(last_digest_on=today)
        if not claimed:
            continue  # another run got it first
        games = list(games_to_move(user).values_list("pk", flat=True))
        waiting = list(Notice.objects.filter(user=user, channel=Notice.Channel.DIGEST, sent_at__isnull=True)
                       .order_by("created_at", "pk").values_list("pk", flat=True)[:100])
        if (games or waiting) and notify(user, "digest", f"digest:{today.isoformat()}",
                                         {"games": games, "notices": waiting}):
            sent += 1
    return sent


@shared_task
def bot_move(game_id: int, ply: int) -> bool:
    """A house bot's action in a game (of any ruleset); does nothing if the game moved on (safe
    twice)."""
    return bots.bot_act(game_id=game_id, ply=ply) is not None


@shared_task
def bot_accept(challenge_id: int) -> int | None:
    """A house bot accepts a challenge made to it by name."""
    challenge = Challenge.objects.select_related("opponent").filter(pk=challenge_id, status="open").first()
    if challenge is None or challenge.opponent is None:
        return None
    try:
        return services.challenge_accept(user=challenge.opponent, challenge_id=challenge_id).pk
    except ServiceError:
        return None
