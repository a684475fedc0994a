"""Writes for series of the boxed game (issue 16, R15–R20). Every function owns its transaction.

The lobby: :func:`series_create` opens a series for 3–6 seats, :func:`series_join` takes a seat
(the series starts when the last seat is taken), :func:`series_leave` gives a seat back before
the start, :func:`series_start` lets the creator start with the players present (at least
three: two players have the two-player game, and a series of two would force the score
variant on them, R19), :func:`series_cancel` withdraws it.

Play follows the phases of two-player games (docs/architecture.md): **load** (the series row
locked, its seats read), **check** (a player still in it, the series going, the clock of the
player to move — a late player loses on time and leaves the series, R18 —, the ply, the turn),
**decide** (the engine's :class:`~games.engine.game.SeriesGame` replayed from the history
applies the action), **record** (one ``SeriesAction`` row, the cached columns, the clocks,
the emails), **finish** (the series table is final: ratings, game-over emails), all in one
transaction. A refused action changes nothing.

The replay is kept per process by ``(series id, ply)`` (the history is append-only, so that key
names one state forever): an action replays the history only when this process has not seen the
series at its current ply. The threads of a process share it under a lock, and a kept replay is
never changed: an action works on a fork of it (its own logs), so a page reading it meanwhile
sees one state.
"""

from __future__ import annotations

import hashlib
import random
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from games.engine import (
    SERIES_COLORS,
    DiceChoice,
    EngineError,
    FixedDice,
    Phase,
    SeededDice,
    Series,
    Termination,
    new_courses,
)
from games.engine.game import SeriesGame as EngineSeries
from games.engine.notation import format_end, format_move, format_placement, format_roll
from games.engine.record import choice_from_json, choice_json, move_json
from games.engine.rules import Placement

from . import clock, idempotency, live, notifications
from .errors import (
    Conflict,
    GameIsOver,
    IllegalMoveError,
    NotAPlayer,
    NotFound,
    NotYourTurn,
    ServiceError,
    StalePly,
    TimeOver,
    engine_step,
)
from .house import is_house_bot
from .models import DAYS_PER_MOVE, GRACE_DAYS, LakeSide, LiveEvent
from .models_series import MAX_SEATS, MIN_SEATS, MIN_TO_START, SeriesAction, SeriesGame, SeriesSeat
from .payloads import option_json
from .reasons import result_of
from .selectors import series_to_move
from .signals import series_bot_to_move
from .state import course_by_key, course_data, stored_course

# --- the replay ---------------------------------------------------------------------------------

CACHE_SIZE = 256
# Kept replays, shared by the threads of a web process: only touched under _CACHE_LOCK; a kept
# replay is never changed (pages may be reading it): an action goes on from a fork of it.
_CACHE: OrderedDict[tuple[int, str, int], EngineSeries] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def _key(series: SeriesGame, ply: int) -> tuple[int, str, int]:
    """A cache key that names one committed state forever: the id, the series' own random seed
    (an id reused after a rollback is another series) and the ply."""
    return series.pk, series.dice_seed_sha256, ply


def _cache_put(series: SeriesGame, game: EngineSeries) -> None:
    key = _key(series, game.series.ply)
    with _CACHE_LOCK:
        _CACHE[key] = game
        _CACHE.move_to_end(key)
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)


def playing_seats(seats: Sequence[SeriesSeat]) -> list[SeriesSeat]:
    """The seats of a started series in seat order (R15)."""
    return sorted((s for s in seats if s.index is not None), key=lambda s: s.index or 0)


def new_engine(series: SeriesGame, seats: Sequence[SeriesSeat]) -> EngineSeries:
    playing = playing_seats(seats)
    courses = tuple(course_by_key(k) for k in series.course_keys)
    colors = [s.color for s in playing]
    assert series.first_start is not None
    start = Series.start(courses, colors, series.first_start, series.score_variant,
                         rules_version=series.rules_version)
    return EngineSeries(start, players={s.color: s.user.username for s in playing})


def apply_action(game: EngineSeries, action: SeriesAction) -> Any:
    """One stored action through the engine (rolls with their recorded dice); returns the move."""
    data = action.data
    if action.kind == SeriesAction.Kind.PLACE:
        game.place((int(data["cell"][0]), int(data["cell"][1])), int(data["heading"]))
        return None
    if action.kind == SeriesAction.Kind.ROLL:
        return game.choose_dice(choice_from_json(data["choice"]), FixedDice(data["rolled"]))
    if action.kind == SeriesAction.Kind.DIRECTION:
        return game.choose_direction(int(data["direction"]))
    if data["termination"] == Termination.RESIGN.value:
        game.resign(action.seat)
    else:
        game.time_out(action.seat)
    return None


def replay(series: SeriesGame, seats: Sequence[SeriesSeat], actions: Sequence[SeriesAction] | None = None
           ) -> EngineSeries:
    """The series as its history makes it (the truth; the stored columns are a cache of it)."""
    if actions is None:
        actions = list(series.actions.order_by("ply"))
    game = new_engine(series, seats)
    for action in actions:
        if action.ply != game.series.ply:
            raise ValueError(f"action at ply {action.ply}, but the series is at ply {game.series.ply}")
        apply_action(game, action)
    return game


def engine_of(series: SeriesGame, seats: Sequence[SeriesSeat]) -> EngineSeries:
    """The engine's series at the stored ply: from this process's cache, or replayed. Callers
    that change it take it out of the cache (:func:`_take`) first."""
    with _CACHE_LOCK:
        game = _CACHE.get(_key(series, series.ply))
    if game is None:
        game = replay(series, seats)
        _cache_put(series, game)
    return game


def _take(series: SeriesGame, seats: Sequence[SeriesSeat]) -> EngineSeries:
    """The series to change: a fork of the kept replay (which a page may be reading), or a new
    replay; the caller owns it and keeps it once its action committed."""
    with _CACHE_LOCK:
        game = _CACHE.get(_key(series, series.ply))
    return game.fork() if game is not None else replay(series, seats)


# --- the lobby -------------------------------------------------------------------------------------


def _check_options(seats: int, days_per_move: int, grace_days: int, lake_side: str) -> None:
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ServiceError(_("a series has %(a)d to %(b)d seats") % {"a": MIN_SEATS, "b": MAX_SEATS}, "seats", "R15")
    if days_per_move not in DAYS_PER_MOVE:
        raise ServiceError(_("days per move must be one of %s") % ", ".join(map(str, DAYS_PER_MOVE)), "days_per_move")
    if grace_days not in GRACE_DAYS:
        raise ServiceError(_("grace days must be one of %s") % ", ".join(map(str, GRACE_DAYS)), "grace_days")
    if lake_side not in LakeSide.values:
        raise ServiceError(_("lake side must be standard or expert"), "lake_side", "R2")


@transaction.atomic
def series_create(*, user: Any, seats: int = 4, days_per_move: int = 3, grace_days: int = 7,
                  lake_side: str = LakeSide.STANDARD, rated: bool = True, score_variant: bool = False,
                  vacation_allowed: bool = True) -> SeriesGame:
    """An open series in the lobby, with its creator in the first seat taken."""
    _check_options(seats, days_per_move, grace_days, lake_side)
    series = SeriesGame.objects.create(
        created_by=user, seats_wanted=seats, days_per_move=days_per_move, grace_days=grace_days,
        lake_side=lake_side, rated=rated, score_variant=score_variant, vacation_allowed=vacation_allowed,
    )
    seat = SeriesSeat.objects.create(series=series, user=user)
    _changed(series, "open", [seat], taken=1)
    return series


def _status_name(series: SeriesGame) -> str:
    """The series' status in the active language, to fit "the series is …" (a finished one is "over")."""
    if series.status == SeriesGame.Status.FINISHED:
        return pgettext("series", "over")
    return str(series.get_status_display())


def _phase_name(phase: Phase) -> str:
    """What the series waits for (place, dice, direction) in the active language."""
    return str(dict(SeriesGame.Phase.choices).get(phase.value, phase.value))


def seats_revision(series: SeriesGame) -> int:
    """Of a series not started: its ``updated_at`` in microseconds, moved on by every change of
    its seats; its page reloads on a live event with a newer one (static/js/live.js)."""
    return int(series.updated_at.timestamp() * 1_000_000)


def _changed(series: SeriesGame, action: str, seats: Sequence[SeriesSeat], taken: int | None = None,
             turn_passed: bool = False) -> None:
    """The live event of a series action, written in the action's transaction (docs/live.md): it
    exists exactly when the action does. It names the players concerned (``users``: every seat's
    player), and in play the player to move (``to_move``) and whether the turn passed to them
    (the API's user stream tells them ``yourTurn``). ``taken``: before the start, how many seats
    are taken (a change that moves ``updated_at`` on: the event carries the seats' revision)."""
    data: dict[str, Any] = {"action": action, "ply": series.ply}
    if taken is not None:
        series.save(update_fields=["status", "updated_at"])  # (a cancel: the new status)
        data.update(seats=taken, rev=seats_revision(series))
    data["users"] = sorted({seat.user_id for seat in seats})
    if series.status == SeriesGame.Status.ACTIVE and series.to_move is not None:
        data["to_move"] = playing_seats(seats)[series.to_move].user_id
        data["turn_passed"] = turn_passed
    live.write(live.new_event(kind=LiveEvent.Kind.SERIES, series_id=series.pk, **data))


def _seats_changed(series: SeriesGame, seats: list[SeriesSeat], rng: random.Random | None) -> None:
    """A seat was taken or given back: the last free seat starts the series."""
    if len(seats) >= series.seats_wanted:
        _start(series, seats, timezone.now(), rng)
    else:
        _changed(series, "seats", seats, taken=len(seats))


def _locked(series_id: int) -> tuple[SeriesGame, list[SeriesSeat]]:
    series = SeriesGame.objects.select_for_update().filter(pk=series_id).first()
    if series is None:
        raise NotFound(_("no series %d") % series_id, "series")
    seats = list(series.seats.select_related("user").order_by("index", "joined_at", "pk"))
    return series, seats


def _locked_open(series_id: int) -> tuple[SeriesGame, list[SeriesSeat]]:
    series, seats = _locked(series_id)
    if series.status != SeriesGame.Status.OPEN:
        raise Conflict(_("the series is %s: seats can no longer change") % _status_name(series), "series")
    return series, seats


@transaction.atomic
def series_join(*, user: Any, series_id: int, rng: random.Random | None = None) -> SeriesGame:
    """Take a free seat; the last free seat starts the series."""
    series, seats = _locked_open(series_id)
    if any(s.user_id == user.pk for s in seats):
        raise Conflict(_("you have a seat in this series already"), "series")
    if is_house_bot(user):
        raise ServiceError(_("house bots take a seat when the creator adds them"), "series")
    seats.append(SeriesSeat.objects.create(series=series, user=user))
    _seats_changed(series, seats, rng)
    return series


@transaction.atomic
def series_add_bot(*, user: Any, series_id: int, level: str, rng: random.Random | None = None) -> SeriesGame:
    """The creator gives a free seat to a house bot (easy, normal, strong); the last free seat
    starts the series. The site moves the bot (games/tasks_series.py)."""
    from .bots import house_bots

    series, seats = _locked_open(series_id)
    if series.created_by_id != user.pk:
        raise NotAPlayer(_("only the player who opened a series can add a bot"), "series")
    bot = house_bots().filter(bot_level=level).exclude(pk__in=[s.user_id for s in seats]).first()
    if bot is None:
        raise ServiceError(_("there is no free %s house bot for this series") % level, "level")
    seats.append(SeriesSeat.objects.create(series=series, user=bot))
    _seats_changed(series, seats, rng)
    return series


@transaction.atomic
def series_leave(*, user: Any, series_id: int) -> SeriesGame:
    """Give your seat back before the start (the creator cancels instead)."""
    series, seats = _locked_open(series_id)
    mine = next((s for s in seats if s.user_id == user.pk), None)
    if mine is None:
        raise NotAPlayer(_("you have no seat in this series"), "series")
    if series.created_by_id == user.pk:
        raise Conflict(_("the creator cancels the series instead of leaving it"), "series")
    mine.delete()
    rest = [s for s in seats if s is not mine]
    _changed(series, "seats", rest, taken=len(rest))
    return series


@transaction.atomic
def series_cancel(*, user: Any, series_id: int) -> SeriesGame:
    series, _seats = _locked_open(series_id)
    if series.created_by_id != user.pk:
        raise NotAPlayer(_("only the player who opened a series can cancel it"), "series")
    series.status = SeriesGame.Status.CANCELLED
    _changed(series, "cancel", _seats, taken=len(_seats))
    return series


@transaction.atomic
def series_start(*, user: Any, series_id: int, rng: random.Random | None = None) -> SeriesGame:
    """The creator starts the series with the players present (at least three)."""
    series, seats = _locked_open(series_id)
    if series.created_by_id != user.pk:
        raise NotAPlayer(_("only the player who opened a series can start it"), "series")
    if len(seats) < MIN_TO_START:
        raise Conflict(_("a series starts with at least %d players") % MIN_TO_START, "series", "R15")
    _start(series, seats, timezone.now(), rng)
    return series


def _start(series: SeriesGame, seats: list[SeriesSeat], now: datetime, rng: random.Random | None) -> None:
    """Seats in the order the players joined (R15: a fixed cycle), each a colour; race A's start
    player by lot; one fresh lake with its A, B and C courses; a secret dice seed. ``rng``
    (tests) makes the lake, the lot and the seed reproducible."""
    draw = rng or random.SystemRandom()
    for i, seat in enumerate(seats):
        seat.index, seat.color = i, SERIES_COLORS[i]
        seat.grace_seconds = series.grace_days * 86400
    courses = new_courses(series.lake_side, rng=draw)
    series.course_keys = [stored_course(course_data(c)).key for c in courses]
    series.first_start = draw.randrange(len(seats))
    seed = draw.randbytes(32) if rng is not None else secrets.token_bytes(32)
    series.dice_seed, series.dice_seed_sha256 = seed.hex(), hashlib.sha256(seed).hexdigest()
    series.status, series.started_at = SeriesGame.Status.ACTIVE, now
    game = new_engine(series, seats)
    _store(series, seats, game)
    for seat in seats:
        seat.save(update_fields=["index", "color", "grace_seconds", "points", "place", "left"])
    series.turn_started_at = now
    _set_deadlines(series, seats)
    _bot_turn(series, seats)
    series.save()
    transaction.on_commit(lambda: _cache_put(series, game))
    _your_turn(series, seats)
    _changed(series, "start", seats, turn_passed=True)


# --- the stored state and the clock ------------------------------------------------------------


def _store(series: SeriesGame, seats: Sequence[SeriesSeat], game: EngineSeries) -> None:
    """The cached columns from the engine's series: phase, race, whose turn, the table."""
    s = game.series
    playing = playing_seats(seats)
    series.ply = s.ply
    series.race = len(s.races) - 1
    table = {t.seat: t for t in s.standings()}
    left = {d.seat: d.termination.value for d in s.departures}
    for seat in playing:
        assert seat.index is not None
        line = table[seat.index]
        seat.points, seat.place, seat.left = line.points, line.place, left.get(seat.index, "")
    if s.over:
        series.status, series.phase, series.to_move = SeriesGame.Status.FINISHED, SeriesGame.Phase.OVER, None
        series.result_reason = s.result_text()[:200]
        series.result_code, series.result_params = s.result()
        winner = s.winner
        series.winner = playing[s.seat_of(winner)].user if winner else None
    else:
        series.phase, series.to_move = s.phase.value, s.to_move


def _set_deadlines(series: SeriesGame, seats: Sequence[SeriesSeat]) -> None:
    """The clock of the player to move (games.clock.run); no reminder for a house bot."""
    if series.status != SeriesGame.Status.ACTIVE or series.to_move is None or series.turn_started_at is None:
        clock.stop(series)
        return
    mover = playing_seats(seats)[series.to_move]
    clock.run(series, mover.user, mover, remind=not is_house_bot(mover.user))


def _charge(series: SeriesGame, seats: Sequence[SeriesSeat], seat: int, now: datetime) -> None:
    """The player who had the turn: time over the time for a move drains the grace bank."""
    if series.turn_started_at is not None:
        mover = playing_seats(seats)[seat]
        clock.charge(series, mover.user, mover, now)


def recompute_deadlines(user: Any) -> int:
    """The deadlines of the user's series where it is their turn, after their vacation started
    or ended (games.vacations); returns how many. Each is checked again once locked."""
    changed = 0
    for series_id in sorted(series_to_move(user).values_list("pk", flat=True)):
        series, seats = _locked(series_id)
        playing = playing_seats(seats)
        if series.to_move is not None and playing[series.to_move].user_id == user.pk:
            _set_deadlines(series, seats)
            series.save(update_fields=["move_deadline", "deadline", "reminder_at", "updated_at"])
            changed += 1
    return changed


def expired(series: SeriesGame, now: datetime) -> bool:
    return series.status == SeriesGame.Status.ACTIVE and series.deadline is not None and series.deadline <= now


# --- the move path ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """What an action did: the history row and the answer's own part."""

    row: SeriesAction
    answer: dict[str, Any]


Decide = Callable[[SeriesGame, SeriesSeat, EngineSeries, datetime], Decision]


SEAT_COLUMNS = ("points", "place", "left", "grace_seconds")  # what an action may change of a seat


def _seat_columns(seat: SeriesSeat) -> tuple[Any, ...]:
    return tuple(getattr(seat, name) for name in SEAT_COLUMNS)


def _record(series: SeriesGame, seats: list[SeriesSeat], game: EngineSeries, decision: Decision,
            now: datetime) -> dict[str, Any]:
    """Append the row, store the new state, move the clocks on, record the emails; finish the
    series if it is over."""
    had_turn = series.to_move
    kept = {seat.pk: _seat_columns(seat) for seat in seats}
    decision.row.save()
    _store(series, seats, game)
    finished = series.status == SeriesGame.Status.FINISHED
    turn_passed = not finished and series.to_move != had_turn
    if (finished or turn_passed) and had_turn is not None:
        _charge(series, seats, had_turn, now)
    if turn_passed:
        series.turn_started_at = now
    if finished:
        series.finished_at = now
    _set_deadlines(series, seats)
    _bot_turn(series, seats)
    series.save()
    for seat in playing_seats(seats):  # only the seats the action changed: most change none
        if _seat_columns(seat) != kept.get(seat.pk):
            seat.save(update_fields=list(SEAT_COLUMNS))
    if finished:
        _finish(series, seats, game)
    elif turn_passed:
        _your_turn(series, seats)
    transaction.on_commit(lambda: _cache_put(series, game))
    _changed(series, "finish" if finished else "move", seats, turn_passed=turn_passed)
    answer = dict(decision.answer)
    answer.update(series=series.pk, ply=series.ply, race="ABC"[series.race], phase=series.phase,
                  status=series.status, to_move=None if series.to_move is None else
                  playing_seats(seats)[series.to_move].color)
    if finished:
        answer["result"] = series.result_reason
    return answer


def _finish(series: SeriesGame, seats: Sequence[SeriesSeat], game: EngineSeries) -> None:
    """The one place a series is finished: rate it, record the game-over emails."""
    from .ratings_series import rate_series

    rate_series(series, playing_seats(seats))
    notifications.record([(s.user, "series_over", f"series:{series.pk}", {"series": series.pk})
                          for s in playing_seats(seats)])


def _bot_turn(series: SeriesGame, seats: Sequence[SeriesSeat]) -> None:
    """Whether a house bot is to act; if so it is told after the commit (games/receivers.py)."""
    mover = playing_seats(seats)[series.to_move].user if series.to_move is not None else None
    series.bot_to_move = bool(series.status == SeriesGame.Status.ACTIVE and mover is not None and is_house_bot(mover))
    if series.bot_to_move:
        series_id, ply = series.pk, series.ply
        transaction.on_commit(lambda: series_bot_to_move.send(sender=SeriesGame, series_id=series_id, ply=ply))


def _your_turn(series: SeriesGame, seats: Sequence[SeriesSeat]) -> None:
    """The player to move is emailed as in two-player games: held, dropped when seen live or acted."""
    notifications.record(notifications.series_your_turn(series, playing_seats(seats)),
                         hold=notifications.your_turn_hold())


def _time_out_decision(series: SeriesGame, seats: Sequence[SeriesSeat], game: EngineSeries,
                       now: datetime) -> Decision:
    assert series.to_move is not None
    loser = playing_seats(seats)[series.to_move]
    ply = game.series.ply
    game.time_out(series.to_move)
    row = SeriesAction(series=series, ply=ply, race=series.race, seat=series.to_move, user=loser.user,
                       kind=SeriesAction.Kind.LEAVE, data={"termination": Termination.TIMEOUT.value},
                       notation=format_end(Termination.TIMEOUT.value, loser.color), created_at=now)
    return Decision(row, {})


def _play(*, user: Any, series_id: int, ply: int | None, decide: Decide, action: str,
          idempotency_key: str | None = None, any_turn: bool = False) -> dict[str, Any]:
    """Load, check, decide, record (and finish), as a game's action (games.services._play); or the
    first answer again for a repeated ``idempotency_key``. A late action takes the player to move
    out of the series on time (R18) and is refused."""
    now = timezone.now()
    late_seat: int | None = None
    mine_index: int | None = None
    try:
        with transaction.atomic():
            series, seats = _locked(series_id)
            first = idempotency.first_answer(user, idempotency_key, action, series)
            if first is not None:
                return first
            mine = next((s for s in playing_seats(seats) if s.user_id == user.pk), None)
            if mine is None:
                raise NotAPlayer(_("you do not play in this series"), "series")
            if series.status == SeriesGame.Status.OPEN:
                raise Conflict(_("the series has not started yet"), "series")
            if series.status != SeriesGame.Status.ACTIVE:
                raise GameIsOver(_("the series is over: %s") % result_of(series), "series")
            mine_index = mine.index
            if mine.left:
                raise GameIsOver(_("you have left this series"), "series", "R18")
            if expired(series, now):
                late_seat = series.to_move
                game = _take(series, seats)
                _record(series, seats, game, _time_out_decision(series, seats, game, now), now)
            else:
                if ply is not None and ply != series.ply:
                    raise StalePly(_("the series is at ply %(now)d, not %(sent)d: reload and try again")
                                   % {"now": series.ply, "sent": ply}, "ply")
                if not any_turn and mine.index != series.to_move:
                    raise NotYourTurn(_("it is not your turn"), "series")
                game = _take(series, seats)
                decision = decide(series, mine, game, now)  # a refusal leaves the kept replay as it was
                answer = _record(series, seats, game, decision, now)
                idempotency.remember(user, idempotency_key, action, series, answer)
                return answer
    except IntegrityError as exc:
        raise StalePly(_("another action was stored for this turn first: reload"), "ply") from exc
    # committed: the player to move ran out of time and left the series; the action does not count
    if late_seat == mine_index:
        raise TimeOver(_("your time ran out: you have left the series (R18)"), "series", "R18")
    raise StalePly(_("the player to move ran out of time and left the series (R18): reload"), "ply", "R18")


def _row(series: SeriesGame, seat: SeriesSeat, game: EngineSeries, kind: str, data: dict[str, Any], notation: str,
         now: datetime, ply: int) -> SeriesAction:
    assert seat.index is not None  # a playing seat
    return SeriesAction(series=series, ply=ply, race=len(game.series.races) - 1, seat=seat.index, user=seat.user,
                        kind=kind, data=data, notation=notation[:60], created_at=now)


def series_place(*, user: Any, series_id: int, ply: int | None, cell: tuple[int, int], heading: int,
                 idempotency_key: str | None = None) -> dict[str, Any]:
    """R15, R16: place your boat on a free start cell."""

    def decide(series: SeriesGame, seat: SeriesSeat, game: EngineSeries, now: datetime) -> Decision:
        if game.series.phase is not Phase.PLACE:
            raise IllegalMoveError(_("the boats are already placed"), "cell", "R16")
        before = game.series.ply
        race = len(game.series.races) - 1
        where = (int(cell[0]), int(cell[1]))
        engine_step(lambda: game.place(where, heading))
        row = _row(series, seat, game, SeriesAction.Kind.PLACE, {"cell": list(where), "heading": heading},
                   format_placement(Placement(seat.index or 0, seat.color, where, heading)), now, before)
        row.race = race
        return Decision(row, {"placement": {"color": seat.color, "cell": list(where), "heading": heading}})

    return _play(user=user, series_id=series_id, ply=ply, decide=decide, action="place",
                 idempotency_key=idempotency_key)


def series_roll(*, user: Any, series_id: int, ply: int | None, choice: DiceChoice,
                idempotency_key: str | None = None) -> dict[str, Any]:
    """R6: choose dice and roll them (the server rolls from the series' secret seed); with only
    one direction allowed the move is made at once (R7)."""

    def decide(series: SeriesGame, seat: SeriesSeat, game: EngineSeries, now: datetime) -> Decision:
        if game.series.phase is not Phase.DICE:
            raise IllegalMoveError(_("the series awaits %s, not a dice choice") % _phase_name(game.series.phase), "change",
                                   "R6")
        before = game.series.ply
        race = len(game.series.races) - 1
        dice = SeededDice(bytes.fromhex(series.dice_seed), before)
        move = engine_step(lambda: game.choose_dice(choice, dice))
        if move is not None:
            rolled, held = list(move.rolled), list(move.dice)
            answer: dict[str, Any] = {"rolled": rolled, "dice": held, "move": move_json(move), "options": []}
            notation = format_move(move)
        else:
            pending = game.series.race.pending
            assert pending is not None
            rolled, held = list(pending.rolled), list(pending.dice)
            answer = {"rolled": rolled, "dice": held, "move": None,
                      "options": [option_json(o) for o in game.series.race.options()]}
            notation = format_roll(game.series.race.boat.moves + 1, seat.color, choice, pending.dice)
        row = _row(series, seat, game, SeriesAction.Kind.ROLL,
                   {"choice": choice_json(choice), "rolled": rolled, "dice": held},
                   notation, now, before)
        row.race = race
        return Decision(row, answer)

    return _play(user=user, series_id=series_id, ply=ply, decide=decide, action="roll",
                 idempotency_key=idempotency_key)


def series_direction(*, user: Any, series_id: int, ply: int | None, direction: int,
                     idempotency_key: str | None = None) -> dict[str, Any]:
    """R7: move in one of the allowed directions (R17: passing several boats)."""

    def decide(series: SeriesGame, seat: SeriesSeat, game: EngineSeries, now: datetime) -> Decision:
        if game.series.phase is not Phase.DIRECTION:
            raise IllegalMoveError(_("the series awaits %s, not a direction: roll first") % _phase_name(game.series.phase),
                                   "direction", "R7")
        before = game.series.ply
        race = len(game.series.races) - 1
        move = engine_step(lambda: game.choose_direction(direction))
        row = _row(series, seat, game, SeriesAction.Kind.DIRECTION, {"direction": direction},
                   format_move(move), now, before)
        row.race = race
        return Decision(row, {"move": move_json(move)})

    return _play(user=user, series_id=series_id, ply=ply, decide=decide, action="direction",
                 idempotency_key=idempotency_key)


def series_resign(*, user: Any, series_id: int, idempotency_key: str | None = None) -> dict[str, Any]:
    """Leave the series at any time (R18): your boat is lifted off, the others play on; points
    already scored stand."""

    def decide(series: SeriesGame, seat: SeriesSeat, game: EngineSeries, now: datetime) -> Decision:
        before = game.series.ply
        race = len(game.series.races) - 1
        index = seat.index
        assert index is not None
        engine_step(lambda: game.resign(index))
        row = _row(series, seat, game, SeriesAction.Kind.LEAVE, {"termination": Termination.RESIGN.value},
                   format_end(Termination.RESIGN.value, seat.color), now, before)
        row.race = race
        return Decision(row, {})

    return _play(user=user, series_id=series_id, ply=None, decide=decide, action="resign",
                 idempotency_key=idempotency_key, any_turn=True)


def series_time_out(*, series_id: int, now: datetime | None = None) -> bool:
    """The sweep: the player to move is past the deadline and leaves the series (R18). Safe to
    run twice: the row is locked and the deadline checked again. Returns whether it acted."""
    now = now or timezone.now()
    with transaction.atomic():
        try:
            series, seats = _locked(series_id)
        except NotFound:
            return False
        if not expired(series, now):
            return False
        game = _take(series, seats)
        _record(series, seats, game, _time_out_decision(series, seats, game, now), now)
        return True


def series_remind(*, series_id: int, now: datetime | None = None) -> bool:
    """The sweep: remind the player to move that their time runs out (once per turn; safe to
    run twice: the row is locked and checked again). Returns whether this call did."""
    now = now or timezone.now()
    with transaction.atomic():
        series = SeriesGame.objects.select_for_update().filter(pk=series_id).first()
        if (series is None or series.status != SeriesGame.Status.ACTIVE or series.to_move is None
                or series.reminder_at is None or series.reminder_at > now or series.turn_started_at is None):
            return False
        if series.reminder_sent_at is not None and series.reminder_sent_at >= series.turn_started_at:
            return False
        series.reminder_sent_at = now
        series.reminder_at = None  # out of the sweep's index until the next turn
        series.save(update_fields=["reminder_sent_at", "reminder_at"])
        seats = list(series.seats.select_related("user").order_by("index"))
        user = playing_seats(seats)[series.to_move].user
        notifications.record([(user, "series_reminder", f"series:{series.pk}:turn:{series.turn_started_at.isoformat()}",
                               {"series": series.pk})])
        return True


def verify(series: SeriesGame) -> str | None:
    """Why the stored state differs from the replay of the history (None: it does not), and
    whether every roll is the one the committed seed gives."""
    if series.status in (SeriesGame.Status.OPEN, SeriesGame.Status.CANCELLED):
        return None
    seats = list(series.seats.select_related("user"))
    actions = list(series.actions.order_by("ply"))
    try:
        game = replay(series, seats, actions)
    except (EngineError, ValueError, KeyError, TypeError) as exc:
        return f"the history does not replay: {exc}"
    for action in actions:
        if action.kind == SeriesAction.Kind.ROLL:
            dice = SeededDice(bytes.fromhex(series.dice_seed), action.ply)
            if list(dice.roll(len(action.data["rolled"]))) != action.data["rolled"]:
                return f"ply {action.ply}: the roll is not the seed's"
    copy = SeriesGame(pk=series.pk, status=series.status)
    stored = {f: getattr(series, f) for f in ("ply", "race", "phase", "to_move", "status", "result_reason",
                                              "result_code", "result_params")}
    copy_seats = [SeriesSeat(index=s.index, color=s.color, user=s.user) for s in seats]
    copy.status = SeriesGame.Status.ACTIVE
    _store(copy, copy_seats, game)
    replayed = {f: getattr(copy, f) for f in stored}
    if stored != replayed:
        return f"stored {stored} but the replay gives {replayed}"
    mine = {(s.index, s.points, s.place, s.left) for s in playing_seats(seats)}
    theirs = {(s.index, s.points, s.place, s.left) for s in playing_seats(copy_seats)}
    if mine != theirs:
        return f"seats: stored {sorted(mine)}, the replay gives {sorted(theirs)}"
    return None
