"""The correspondence clock (docs/clocks.md): days per move plus a grace bank, or a capped bank
(a start bank, hours added per move, a cap); stopped while the player to move is on vacation
and, if they asked for it and the game allows it, at their weekends.

Only the clock of the player to move runs. When the turn passes, the time the player used
(minus any vacation) beyond the time for a move is taken from their grace bank. The
deadline is the moment the time for the move and the whole grace bank would be used up;
the timeout sweep ends games past it. Vacations planned ahead are known (a vacation has a
planned end), so every deadline is an exact moment, recomputed when a vacation starts or
ends early.

One clock for every game: :func:`run` sets the deadlines of the player to move and
:func:`charge` takes their overtime from their grace bank; the functions below them pass the turn
in a game of any number of boats (the player to move is the seat ``Game.to_move`` names).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User, Vacation
from common.errors import ServiceError

from .house import is_house_bot
from .models import GRACE_DAYS, ClockShape, Game, Seat

Interval = tuple[datetime, datetime]

# the terms a challenge or a tournament hands on to its games besides days_per_move, grace_days
# and vacation_allowed (games.models.ClockTerms)
TERMS = ("clock_shape", "bank_add_hours", "bank_cap_days", "weekend_pause_allowed", "auto_vacation_allowed")
# a capped bank: its start (grace_days), what a move adds and its cap stay within these
BANK_DAYS_MAX = 60
BANK_ADD_HOURS_MAX = 240
# Little Golem's bank: 10 days to start, 36 hours more per move, never above 10 days
PRESETS: dict[str, tuple[int, int, int]] = {"bank-10-36-10": (10, 36, 10), "bank-5-24-7": (5, 24, 7),
                                            "bank-3-12-3": (3, 12, 3)}
# weekends are laid out this far ahead of a turn's start: beyond any deadline (at most 14 days per
# move, a bank of 60 days, and a year's vacation, stretched by weekends)
WEEKENDS_AHEAD = timedelta(days=800)


def terms(source: Any) -> dict[str, Any]:
    """The clock terms of a challenge, a game or a tournament, to create a game with."""
    return {name: getattr(source, name) for name in TERMS}


def with_terms(data: Mapping[str, Any]) -> dict[str, Any]:
    """A service's keyword arguments from validated input (a form's, the API's): ``data`` with the
    clock's terms (:data:`TERMS`) gathered under ``terms``, as the services take them."""
    terms = {name: data[name] for name in TERMS if name in data}
    return {**{k: v for k, v in data.items() if k not in terms}, "terms": terms}


def check_terms(*, clock_shape: str, days_per_move: int, grace_days: int, bank_add_hours: int = 0,
                bank_cap_days: int = 0) -> dict[str, int]:
    """Raise ServiceError naming the field when the terms do not make a clock; else the numbers to
    store: a capped bank has no days per move (0), days per move and a grace bank no bank terms."""
    if clock_shape not in ClockShape.values:
        raise ServiceError(_("clock_shape must be one of %(value)s") % {"value": ", ".join(ClockShape.values)},
                           "clock_shape")
    if clock_shape == ClockShape.MOVE:
        if grace_days not in GRACE_DAYS:
            raise ServiceError(_("grace days must be one of %(value)s") % {"value": ', '.join(map(str, GRACE_DAYS))},
                               "grace_days")
        return {"days_per_move": days_per_move, "grace_days": grace_days, "bank_add_hours": 0, "bank_cap_days": 0}
    if not 1 <= grace_days <= BANK_DAYS_MAX:
        raise ServiceError(_("a bank starts with 1 to %(value)s days (grace_days)") % {"value": BANK_DAYS_MAX},
                           "grace_days")
    if not 1 <= bank_add_hours <= BANK_ADD_HOURS_MAX:
        raise ServiceError(_("a move adds 1 to %(value)s hours to a bank") % {"value": BANK_ADD_HOURS_MAX},
                           "bank_add_hours")
    if not grace_days <= bank_cap_days <= BANK_DAYS_MAX:
        raise ServiceError(_("a bank's cap is between its start (%(start)s days) and %(value)s days")
                           % {"start": grace_days, "value": BANK_DAYS_MAX}, "bank_cap_days")
    return {"days_per_move": 0, "grace_days": grace_days, "bank_add_hours": bank_add_hours,
            "bank_cap_days": bank_cap_days}


def vacations_of(user: User, since: datetime) -> list[Interval]:
    """The user's vacation intervals that end after ``since``, sorted."""
    return pauses_of([user], since)[user.pk]


def weekends(zone: str, since: datetime, until: datetime) -> list[Interval]:
    """Saturday 00:00 to Monday 00:00 in the time zone ``zone``, each weekend that ends after
    ``since`` and starts before ``until`` (daylight saving time as it falls: a weekend is 47, 48
    or 49 hours)."""
    tz = ZoneInfo(zone)
    day: date = since.astimezone(tz).date()
    saturday = day - timedelta(days=(day.weekday() - 5) % 7)
    out: list[Interval] = []
    while True:
        start = datetime.combine(saturday, time(0), tzinfo=tz)
        if start >= until:
            return out
        end = datetime.combine(saturday + timedelta(days=2), time(0), tzinfo=tz)
        if end > since:
            out.append((start.astimezone(UTC), end.astimezone(UTC)))
        saturday += timedelta(days=7)


def merged(intervals: Iterable[Interval]) -> list[Interval]:
    """Sorted, with overlapping or touching intervals joined (a vacation over a weekend counts once)."""
    out: list[Interval] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def pauses_of(users: Iterable[User], since: datetime, *, vacations: bool = True, automatic: bool = True,
              weekends_allowed: bool = False) -> dict[int, list[Interval]]:
    """Each user's pauses that end after ``since``, sorted and merged: their vacations (when
    ``vacations``; without the automatic ones when ``automatic`` is false: a game that forbids
    them), and their weekends when they asked for a weekend pause and ``weekends_allowed``. One
    query for all the vacations, and none when no vacation of theirs reaches past ``since``
    (``User.vacation_until``)."""
    users = list(users)
    out: dict[int, list[Interval]] = {user.pk: [] for user in users}
    ids = [user.pk for user in users
           if vacations and user.vacation_until is not None and user.vacation_until > since]
    if ids:
        found = Vacation.objects.filter(user_id__in=ids, planned_end__gt=since)
        if not automatic:
            found = found.filter(automatic=False)
        for v in found.order_by("started_at"):
            if v.end > since:
                out[v.user_id].append((v.started_at, v.end))
    if weekends_allowed:
        for user in users:
            if user.weekend_pause:
                out[user.pk] = merged([*out[user.pk], *weekends(user.time_zone, since, since + WEEKENDS_AHEAD)])
    return out


def game_pauses(game: Clocked, users: Iterable[User], since: datetime) -> dict[int, list[Interval]]:
    """The pauses of these players that stop their clocks in ``game``, by its terms."""
    return pauses_of(users, since, vacations=game.vacation_allowed, automatic=game.auto_vacation_allowed,
                     weekends_allowed=game.weekend_pause_allowed)


def expired(game: Game, now: datetime) -> bool:
    """Whether the player to move has used up the time for the move and the grace bank
    (vacations counted: the deadline includes them). From that moment they have lost on time
    (the two-player game, or their place in a series), whether the sweep has recorded it yet or
    an action arrives first."""
    return game.status == Game.Status.ACTIVE and game.deadline is not None and game.deadline <= now


def charged(start: datetime, end: datetime, pauses: Iterable[Interval]) -> timedelta:
    """Time between ``start`` and ``end`` that counts: all of it but the pauses."""
    if end <= start:
        return timedelta(0)
    total = end - start
    for a, b in pauses:
        lo, hi = max(a, start), min(b, end)
        if hi > lo:
            total -= hi - lo
    return total


def moment_when_used(start: datetime, budget: timedelta, pauses: Sequence[Interval]) -> datetime:
    """The moment at which ``budget`` of counted time has passed since ``start``. A pause that
    begins the very moment the time runs out comes first: the clock stops at zero and runs out
    when the pause ends (a clock out at Saturday 00:00 of a player who pauses at weekends runs out
    on Monday at 00:00; an automatic vacation day taken from the moment a clock ran out moves
    its deadline by the day)."""
    t = start
    left = budget
    for a, b in sorted(pauses):
        if b <= t:
            continue
        if a > t:
            run = a - t
            if run > left:
                return t + left
            left -= run  # a pause that begins as the time runs out stops the clock at zero
        t = max(t, b)
    return t + left


class Clocked(Protocol):
    """What a clock runs on: a game (of any ruleset), the turn's start, its shape, the time for a
    move, what stops it, and the deadlines it sets."""

    turn_started_at: Any
    clock_shape: str
    days_per_move: int
    bank_add_hours: int
    bank_cap_days: int
    vacation_allowed: bool
    weekend_pause_allowed: bool
    auto_vacation_allowed: bool
    move_deadline: datetime | None
    deadline: datetime | None
    reminder_at: datetime | None
    reminder_sent_at: datetime | None


class Bank(Protocol):
    """A seat's grace bank: what is left of it, in seconds."""

    grace_seconds: int


def per_move(game: Clocked) -> timedelta:
    """The time for a move before the bank is drawn on: none with a capped bank."""
    return timedelta(0) if game.clock_shape == ClockShape.BANK else timedelta(days=game.days_per_move)


def stop(game: Clocked) -> None:
    """No clock runs (the game is over, or not started)."""
    game.move_deadline = game.deadline = game.reminder_at = None


def run(game: Clocked, user: User, bank: Bank, pauses: Sequence[Interval] | None = None, *,
        remind: bool = True) -> None:
    """The deadlines of ``user``, the player to move, whose grace bank is ``bank``: the time for
    a move, then the grace bank, from the turn's start, with their vacations not counted (read
    unless ``pauses`` are given). One reminder per turn, ``user.reminder_hours`` before the
    deadline and not before half the time is gone; none when ``remind`` is false (a house bot)."""
    if pauses is None:
        pauses = game_pauses(game, [user], game.turn_started_at)[user.pk]
    start = game.turn_started_at
    game.deadline = moment_when_used(start, per_move(game) + timedelta(seconds=bank.grace_seconds), pauses)
    # with a capped bank the move's time is the bank: its end is the deadline
    game.move_deadline = game.deadline if game.clock_shape == ClockShape.BANK \
        else moment_when_used(start, per_move(game), pauses)
    due = game.deadline - timedelta(hours=user.reminder_hours)
    halfway = start + (game.deadline - start) / 2
    reminded = game.reminder_sent_at is not None and game.reminder_sent_at >= start
    game.reminder_at = None if reminded or not remind else max(due, halfway)


def charge(game: Clocked, user: User, bank: Bank, now: datetime, pauses: Sequence[Interval] | None = None) -> None:
    """``user`` had the turn until ``now``: the time they used (their pauses not counted)
    beyond the time for a move is taken from their grace bank ``bank``; with a capped bank, all of
    it, and then ``bank_add_hours`` is added, up to ``bank_cap_days``."""
    if pauses is None:
        pauses = game_pauses(game, [user], game.turn_started_at)[user.pk]
    over = charged(game.turn_started_at, now, pauses) - per_move(game)
    if over > timedelta(0):
        bank.grace_seconds = max(0, bank.grace_seconds - int(over.total_seconds()))
    if game.clock_shape == ClockShape.BANK:
        bank.grace_seconds = min(game.bank_cap_days * 86400, bank.grace_seconds + game.bank_add_hours * 3600)


# --- a game: the player to move is the seat ``game.to_move`` names -------------------------------


def _seat(seats: Sequence[Seat], index: int | None) -> Seat:
    found = next((s for s in seats if s.index == index), None)
    assert found is not None, f"no seat {index}"
    return found


def start_turn(game: Game, seats: Sequence[Seat], now: datetime | None = None,
               pauses: Sequence[Interval] | None = None) -> None:
    """The player to move starts thinking now: set the turn start and the deadlines."""
    game.turn_started_at = now or timezone.now()
    set_deadlines(game, seats, pauses)


def pass_turn(game: Game, seats: Sequence[Seat], had_turn: int | None, now: datetime) -> None:
    """The turn (or the game) ended at ``now``: charge the player who had it, then start the
    clock of the player to move now. The vacations of both are read in one query."""
    if had_turn is None or game.turn_started_at is None:
        set_deadlines(game, seats)
        return
    mover = _seat(seats, had_turn)
    going = game.status == Game.Status.ACTIVE and game.to_move is not None
    users = {mover.user, _seat(seats, game.to_move).user} if going else {mover.user}
    pauses = game_pauses(game, users, game.turn_started_at)
    charge(game, mover.user, mover, now, pauses.get(mover.user_id, []))
    if going:
        start_turn(game, seats, now, pauses.get(_seat(seats, game.to_move).user_id, []))
    else:
        set_deadlines(game, seats)


def set_deadlines(game: Game, seats: Sequence[Seat], pauses: Sequence[Interval] | None = None) -> None:
    """Deadlines of the player to move, from the turn start, grace bank and vacations; none when
    no clock runs (the game is over or not started)."""
    if game.status != Game.Status.ACTIVE or game.to_move is None or game.turn_started_at is None:
        stop(game)
    else:
        mover = _seat(seats, game.to_move)
        run(game, mover.user, mover, pauses, remind=not is_house_bot(mover.user))


def remaining(game: Game, seats: Sequence[Seat], now: datetime | None = None) -> dict[str, object]:
    """The clock as shown: the deadlines and each player's grace bank (for the API and the page)."""
    now = now or timezone.now()
    return {
        "turn_started_at": game.turn_started_at.isoformat() if game.turn_started_at and not game.over else None,
        "move_deadline": game.move_deadline.isoformat() if game.move_deadline and not game.over else None,
        "deadline": game.deadline.isoformat() if game.deadline and not game.over else None,
        "grace_seconds": {s.color: s.grace_seconds for s in seats if s.color},
        "clock_shape": game.clock_shape,
        "days_per_move": game.days_per_move,
        "grace_days": game.grace_days,
        "bank_add_hours": game.bank_add_hours,
        "bank_cap_days": game.bank_cap_days,
        "vacation_allowed": game.vacation_allowed,
        "weekend_pause_allowed": game.weekend_pause_allowed,
        "auto_vacation_allowed": game.auto_vacation_allowed,
        "now": now.isoformat(),
    }
