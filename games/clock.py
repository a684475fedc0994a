"""The correspondence clock (docs/clocks.md): days per move plus a grace bank, stopped
while the player to move is on vacation.

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

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.utils import timezone

from accounts.models import User, Vacation

from .house import is_house_bot
from .models import Game, Seat

Interval = tuple[datetime, datetime]


def vacations_of(user: User, since: datetime) -> list[Interval]:
    """The user's vacation intervals that end after ``since``, sorted."""
    return pauses_of([user], since)[user.pk]


def pauses_of(users: Iterable[User], since: datetime) -> dict[int, list[Interval]]:
    """Each user's vacation intervals that end after ``since``, sorted; one query for all, and
    none when no vacation of theirs reaches past ``since`` (``User.vacation_until``)."""
    out: dict[int, list[Interval]] = {user.pk: [] for user in users}
    ids = [user.pk for user in users if user.vacation_until is not None and user.vacation_until > since]
    if ids:
        for v in Vacation.objects.filter(user_id__in=ids, planned_end__gt=since).order_by("started_at"):
            if v.end > since:
                out[v.user_id].append((v.started_at, v.end))
    return out


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
    """The first moment at which ``budget`` of counted time has passed since ``start``."""
    t = start
    left = budget
    for a, b in sorted(pauses):
        if b <= t:
            continue
        if a > t:
            run = a - t
            if run >= left:
                return t + left
            left -= run
        t = max(t, b)
    return t + left


class Clocked(Protocol):
    """What a clock runs on: a game (of any ruleset), the turn's start,
    the time for a move, whether vacations stop it, and the deadlines it sets."""

    turn_started_at: Any
    days_per_move: int
    vacation_allowed: bool
    move_deadline: datetime | None
    deadline: datetime | None
    reminder_at: datetime | None
    reminder_sent_at: datetime | None


class Bank(Protocol):
    """A seat's grace bank: what is left of it, in seconds."""

    grace_seconds: int


def per_move(game: Clocked) -> timedelta:
    return timedelta(days=game.days_per_move)


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
        pauses = vacations_of(user, game.turn_started_at) if game.vacation_allowed else []
    start = game.turn_started_at
    game.move_deadline = moment_when_used(start, per_move(game), pauses)
    game.deadline = moment_when_used(start, per_move(game) + timedelta(seconds=bank.grace_seconds), pauses)
    due = game.deadline - timedelta(hours=user.reminder_hours)
    halfway = start + (game.deadline - start) / 2
    reminded = game.reminder_sent_at is not None and game.reminder_sent_at >= start
    game.reminder_at = None if reminded or not remind else max(due, halfway)


def charge(game: Clocked, user: User, bank: Bank, now: datetime, pauses: Sequence[Interval] | None = None) -> None:
    """``user`` had the turn until ``now``: the time they used (their vacations not counted)
    beyond the time for a move is taken from their grace bank ``bank``."""
    if pauses is None:
        pauses = vacations_of(user, game.turn_started_at) if game.vacation_allowed else []
    over = charged(game.turn_started_at, now, pauses) - per_move(game)
    if over > timedelta(0):
        bank.grace_seconds = max(0, bank.grace_seconds - int(over.total_seconds()))


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
    pauses: dict[int, list[Interval]] = {}
    if game.vacation_allowed:
        users = {mover.user, _seat(seats, game.to_move).user} if going else {mover.user}
        pauses = pauses_of(users, game.turn_started_at)
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
        "days_per_move": game.days_per_move,
        "grace_days": game.grace_days,
        "vacation_allowed": game.vacation_allowed,
        "now": now.isoformat(),
    }
