"""Vacations (docs/clocks.md): a player stops their clocks, in every game that allows it (of any
ruleset), for some of this calendar year's days. Starting or ending one recomputes the deadlines
where it is their turn (games.clock: one clock for every game)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User, Vacation
from common.errors import Conflict, ServiceError

from . import services
from .selectors import games_to_move


def vacation_days_left(user: Any, now: datetime | None = None) -> timedelta:
    """This calendar year's (UTC) allowance minus the vacation already taken or planned."""
    now = now or timezone.now()
    year_start = now.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    used = timedelta(0)
    for vacation in Vacation.objects.filter(user=user, planned_end__gt=year_start):
        used += min(vacation.end, now if vacation.ended_at else vacation.end) - max(vacation.started_at, year_start)
    return max(timedelta(0), timedelta(days=user.vacation_days_per_year) - used)


def active_vacation(user: Any, now: datetime | None = None) -> Vacation | None:
    now = now or timezone.now()
    for vacation in Vacation.objects.filter(user=user, started_at__lte=now, planned_end__gt=now, ended_at__isnull=True):
        return vacation
    return None


def _recompute_deadlines(user: Any) -> int:
    """Deadlines of the user's active games where it is their turn, after a vacation change
    (in id order: one lock order)."""
    return services.recompute_deadlines(user, list(games_to_move(user).values_list("pk", flat=True)))


@transaction.atomic
def vacation_start(*, user: Any, days: int | None = None, now: datetime | None = None) -> Vacation:
    """Stop the user's clocks (in games that allow vacation) for ``days`` or all days left."""
    now = now or timezone.now()
    User.objects.select_for_update().get(pk=user.pk)  # one vacation change at a time per player
    if active_vacation(user, now):
        raise Conflict(_("you are on vacation already"), "vacation")
    left = vacation_days_left(user, now)
    if left <= timedelta(0):
        raise ServiceError(_("no vacation days are left this year"), "days")
    length = left if days is None else timedelta(days=days)
    if days is not None and not timedelta(0) < length <= left:
        raise ServiceError(_("days must be between 1 and the %(value)s left this year") % {"value": format(left.total_seconds() / 86400, '.1f')}, "days")
    vacation = Vacation.objects.create(user=user, started_at=now, planned_end=now + length)
    User.objects.filter(pk=user.pk).update(vacation_until=vacation.planned_end)
    user.vacation_until = vacation.planned_end
    _recompute_deadlines(user)
    return vacation


@transaction.atomic
def vacation_end(*, user: Any, now: datetime | None = None) -> Vacation:
    """Back from vacation early: the clocks run again from now."""
    now = now or timezone.now()
    vacation = active_vacation(user, now)
    if vacation is None:
        raise Conflict(_("you are not on vacation"), "vacation")
    vacation.ended_at = now
    vacation.save(update_fields=["ended_at"])
    User.objects.filter(pk=user.pk).update(vacation_until=now)
    user.vacation_until = now
    _recompute_deadlines(user)
    return vacation
