"""Vacations (docs/clocks.md): a player stops their clocks, in every game that allows it (of any
ruleset), for some of this calendar year's days. Starting or ending one recomputes the deadlines
where it is their turn (games.clock: one clock for every game). A player may let the site take
them automatically (``User.auto_vacation``): a day at a time, from the moment a clock would have
run out, for all their games at once (:func:`take_automatic`). Changing the weekend pause
recomputes the deadlines too (:func:`weekend_pause_set`)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User, Vacation
from common.errors import Conflict, ServiceError

from . import clock
from .loading import game_and_seats
from .models import Game
from .notifications.notices import notify
from .selectors import games_to_move

# an automatic vacation tells the player how many days are left once this few are
LOW_ALLOWANCE = timedelta(days=3)


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
    """The deadlines of the user's active games where it is their turn, after their vacation
    started or ended or their weekend pause changed; returns how many. Each is checked again once
    locked, in id order (one lock order)."""
    changed = 0
    for game_id in sorted(games_to_move(user).values_list("pk", flat=True)):
        found = game_and_seats(game_id, lock=True)
        if found is None:
            continue
        game, seats = found
        if game.status == Game.Status.ACTIVE and game.user_id_to_move == user.pk:
            clock.set_deadlines(game, seats)
            game.save(update_fields=["move_deadline", "deadline", "reminder_at", "updated_at"])
            changed += 1
    return changed


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


def auto_vacation_applies(game: Game, user: Any) -> bool:
    """Whether an automatic vacation day of ``user`` would stop their clock in ``game``."""
    return bool(user.auto_vacation and game.vacation_allowed and game.auto_vacation_allowed and not user.is_bot)


def take_automatic(*, user_id: int, game_id: int, now: datetime | None = None) -> bool:
    """``game``'s clock, the user's, ran out (or is about to be found so): take a day of their
    vacation from the moment it ran out, for all their games at once, and again while that clock
    is still out at ``now`` and days are left. The player is told (email and push, by their
    settings), with the days left once they run low. Returns whether a day was taken: False when
    the user does not want it, the game does not allow it, or no day is left; the caller then
    times the game out as before. Locks the user, then their games in id order (the order of
    :func:`vacation_start`): never called with a game locked."""
    now = now or timezone.now()
    taken = False
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=user_id).first()
        game = Game.objects.filter(pk=game_id).first()
        if user is None or game is None or not auto_vacation_applies(game, user):
            return False
        vacation: Vacation | None = None
        for _ in range(400):  # a day at a time; at most a year's allowance
            game.refresh_from_db(fields=["status", "to_move", "deadline"])
            if not clock.expired(game, now) or game.user_id_to_move != user.pk:
                break
            left = vacation_days_left(user, now)
            if left <= timedelta(0):
                break
            assert game.deadline is not None
            start = game.deadline
            length = min(timedelta(days=1), left)
            if vacation is None:
                vacation = (Vacation.objects.filter(user=user, automatic=True, ended_at__isnull=True,
                                                    planned_end=start).first()
                            or Vacation(user=user, automatic=True, started_at=start, planned_end=start))
            vacation.planned_end = max(vacation.planned_end, start) + length
            vacation.save()
            if user.vacation_until is None or user.vacation_until < vacation.planned_end:
                user.vacation_until = vacation.planned_end
                User.objects.filter(pk=user.pk).update(vacation_until=vacation.planned_end)
            _recompute_deadlines(user)
            taken = True
        if taken and vacation is not None:
            left = vacation_days_left(user, now)
            notify(user, "auto_vacation", f"vacation:{vacation.pk}:{vacation.planned_end.isoformat()}",
                   {"game": game.pk, "until": vacation.planned_end.isoformat(),
                    "days_left": round(left.total_seconds() / 86400, 1), "low": left <= LOW_ALLOWANCE})
    return taken


@transaction.atomic
def clock_settings_set(*, user: Any, weekend_pause: bool | None = None, auto_vacation: bool | None = None,
                       time_zone_changed: bool = False) -> int:
    """Change the player's weekend pause and automatic vacation (None: as it is). When their
    weekends moved (the pause turned on or off, or their time zone changed while it is on), the
    deadlines where it is their turn are recomputed, the whole turn counted by the new setting.
    Returns how many games changed."""
    User.objects.select_for_update().filter(pk=user.pk).first()  # one change at a time per player
    fields = {}
    if weekend_pause is not None and weekend_pause != user.weekend_pause:
        fields["weekend_pause"] = weekend_pause
    if auto_vacation is not None and auto_vacation != user.auto_vacation:
        fields["auto_vacation"] = auto_vacation
    if fields:
        User.objects.filter(pk=user.pk).update(**fields)
        for name, value in fields.items():
            setattr(user, name, value)
    if "weekend_pause" in fields or (time_zone_changed and user.weekend_pause):
        return _recompute_deadlines(user)
    return 0
