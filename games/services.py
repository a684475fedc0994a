"""Writes for games and challenges. Every function owns its transaction.

An action on a game reads as its phases (docs/architecture.md):

1. **load** — the game row is locked (``SELECT … FOR UPDATE OF`` the game row; on SQLite the
   write transaction is taken at BEGIN) and read with its players and seats in one query;
2. **check** — the user plays in it, it is still going, the clock of the player to move has
   not run out (if it has, the game is lost on time now, exactly as the sweep would do it,
   and the action is refused with ``time_over``), the ply is current and it is their turn;
3. **decide** — the engine applies the action and returns a :class:`Step`: the new state, the
   history rows that record it and the answer;
4. **record** — the rows are appended (one per ply: a unique constraint), only the changed
   columns of the game and its seats are written, the clocks move on, and the emails the
   action causes are recorded in the same transaction;
5. **finish** — if the game is over, :func:`_finish` (the only place that finishes a game)
   rates it and records the game-over emails;
6. **publish** — after the commit, events (``games.signals``) tell the receivers
   (``games/receivers.py``, ``tournaments/receivers.py``) which queue their tasks.

A refused action changes nothing. With an ``idempotency_key`` a retried request gets the first
answer again.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.engine import DiceChoice, GameState, Phase, SeededDice, Termination, new_course
from games.engine.record import move_json
from games.engine.rules import Move as EngineMove
from games.engine.rules import Placement

from . import clock, idempotency, live, notifications, ratings
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
from .loading import game_and_seats
from .models import (
    COLORS,
    DAYS_PER_MOVE,
    GRACE_DAYS,
    Challenge,
    ColorChoice,
    CourseLetter,
    Game,
    LakeSide,
    LiveEvent,
    Move,
    Seat,
)
from .payloads import option_json, placement_json
from .reasons import result_of
from .signals import challenge_changed, challenge_made, game_finished, game_started, move_made
from .state import (
    GAME_STATE_FIELDS,
    SEAT_STATE_FIELDS,
    course_data,
    end_row,
    place_row,
    roll_row,
    state_of,
    store_state,
    stored_course,
    turn_row,
)
from .writing import Writes

User = get_user_model()


# --- challenges ---------------------------------------------------------------------------


def _check_challenge_options(color: str, days_per_move: int, course_letter: str, lake_side: str,
                             grace_days: int = 7) -> None:
    if grace_days not in GRACE_DAYS:
        raise ServiceError(_("grace days must be one of %(value)s") % {"value": ', '.join(map(str, GRACE_DAYS))}, "grace_days")
    if color not in ColorChoice.values:
        raise ServiceError(_("colour must be one of %(value)s") % {"value": ', '.join(ColorChoice.values)}, "color")
    if days_per_move not in DAYS_PER_MOVE:
        raise ServiceError(_("days per move must be one of %(value)s") % {"value": ', '.join(map(str, DAYS_PER_MOVE))}, "days_per_move")
    if course_letter not in CourseLetter.values:
        raise ServiceError(_("course letter must be A, B, C or empty for random"), "course_letter", "R3")
    if lake_side not in LakeSide.values:
        raise ServiceError(_("lake side must be standard or expert"), "lake_side", "R2")


@transaction.atomic
def challenge_create(
    *,
    user: Any,
    color: str = ColorChoice.RANDOM,
    days_per_move: int = 3,
    grace_days: int = 7,
    course_letter: str = "",
    lake_side: str = LakeSide.STANDARD,
    rated: bool = True,
    opponent: Any = None,
) -> Challenge:
    """An open challenge, or one to a named ``opponent`` (who is told by email)."""
    _check_challenge_options(color, days_per_move, course_letter, lake_side, grace_days)
    if opponent is not None and opponent.pk == user.pk:
        raise ServiceError(_("you cannot challenge yourself"), "opponent")
    challenge = Challenge.objects.create(
        created_by=user, opponent=opponent, color=color, days_per_move=days_per_move, grace_days=grace_days,
        course_letter=course_letter, lake_side=lake_side, rated=rated,
    )
    _challenge_changed(challenge)
    if opponent is not None:
        notifications.record(notifications.challenge(challenge))
        to_bot = is_house_bot(opponent)
        transaction.on_commit(
            lambda: challenge_made.send(sender=Challenge, challenge_id=challenge.pk, opponent_is_bot=to_bot)
        )
    return challenge


def _challenge_changed(challenge: Challenge) -> None:
    """Publish the challenge's new status after the commit (live lobby, API event streams)."""
    kwargs = {"challenge_id": challenge.pk, "status": challenge.status, "created_by_id": challenge.created_by_id,
              "opponent_id": challenge.opponent_id, "game_id": challenge.game_id}
    transaction.on_commit(lambda: challenge_changed.send(sender=Challenge, **kwargs))


def _locked_open_challenge(challenge_id: int) -> Challenge:
    try:
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
    except Challenge.DoesNotExist:
        raise NotFound(_("no challenge %(challenge_id)s") % {"challenge_id": challenge_id}, "challenge") from None
    if challenge.status != Challenge.Status.OPEN:
        raise Conflict(_("the challenge is %(status)s") % {"status": challenge.status}, "challenge")
    return challenge


@transaction.atomic
def challenge_cancel(*, user: Any, challenge_id: int) -> Challenge:
    challenge = _locked_open_challenge(challenge_id)
    if challenge.created_by_id != user.pk:
        raise NotAPlayer(_("only the player who made a challenge can cancel it"), "challenge")
    challenge.status = Challenge.Status.CANCELLED
    challenge.save(update_fields=["status"])
    _challenge_changed(challenge)
    return challenge


@transaction.atomic
def challenge_decline(*, user: Any, challenge_id: int) -> Challenge:
    challenge = _locked_open_challenge(challenge_id)
    if challenge.opponent_id != user.pk:
        raise NotAPlayer(_("only the challenged player can decline"), "challenge")
    challenge.status = Challenge.Status.DECLINED
    challenge.save(update_fields=["status"])
    _challenge_changed(challenge)
    return challenge


@transaction.atomic
def challenge_accept(*, user: Any, challenge_id: int) -> Game:
    """Accept a challenge: the game is created with a fresh lake and course."""
    challenge = _locked_open_challenge(challenge_id)
    if challenge.created_by_id == user.pk:
        raise Conflict(_("you cannot accept your own challenge"), "challenge")
    if challenge.opponent_id is not None and challenge.opponent_id != user.pk:
        raise NotAPlayer(_("this challenge is for another player"), "challenge")
    color = challenge.color
    if color == ColorChoice.RANDOM:
        color = secrets.choice(COLORS)
    creator = challenge.created_by
    yellow, red = (creator, user) if color == "yellow" else (user, creator)
    game = game_create(
        yellow=yellow, red=red, lake_side=challenge.lake_side, course_letter=challenge.course_letter,
        days_per_move=challenge.days_per_move, grace_days=challenge.grace_days, rated=challenge.rated,
    )
    challenge.status = Challenge.Status.ACCEPTED
    challenge.game = game
    challenge.save(update_fields=["status", "game"])
    _challenge_changed(challenge)
    return game


@transaction.atomic
def game_create(
    *,
    yellow: Any,
    red: Any,
    lake_side: str = LakeSide.STANDARD,
    course_letter: str = "",
    days_per_move: int = 3,
    grace_days: int = 7,
    vacation_allowed: bool = True,
    rated: bool = True,
    course_json: dict[str, Any] | None = None,
) -> Game:
    """A new game between two players: a validated course (R2, R3), a secret dice seed, and
    Yellow's clock running for placing."""
    if yellow.pk == red.pk:
        raise ServiceError(_("a game needs two different players"), "opponent")
    if course_json is None:
        course = new_course(lake_side, course_letter or None)
        course_json = course_data(course)
    stored = stored_course(course_json)
    seed = secrets.token_bytes(32)
    game = Game(
        yellow=yellow, red=red, course=stored, course_letter=stored.letter, lake_side=lake_side, rated=rated,
        days_per_move=days_per_move, grace_days=grace_days, vacation_allowed=vacation_allowed,
        dice_seed=seed.hex(), dice_seed_sha256=hashlib.sha256(seed).hexdigest(), bot_to_move=is_house_bot(yellow),
    )
    seats = [
        Seat(game=game, index=i, color=c, user=u, grace_seconds=grace_days * 86400)
        for i, (c, u) in enumerate(zip(COLORS, (yellow, red), strict=True))
    ]
    clock.start_turn(game, seats, game.created_at)
    game.save()
    Seat.objects.bulk_create(seats)
    notifications.record(notifications.your_turn(game), hold=notifications.your_turn_hold())
    bot, players = game.bot_to_move, (yellow.pk, red.pk)
    LiveEvent.objects.bulk_create([  # with the game: its start, then its first turn (games.live)
        live.new_event(kind=LiveEvent.Kind.START, game_id=game.pk, user_a=yellow.pk, user_b=red.pk),
        live.move_event(game.pk, players, 0, yellow.pk, True)])
    transaction.on_commit(lambda: game_started.send(sender=Game, game_id=game.pk, player_ids=players))
    transaction.on_commit(lambda: move_made.send(
        sender=Game, game_id=game.pk, ply=0, user_id_to_move=yellow.pk, turn_passed=True, bot_to_move=bot,
        player_ids=players))
    return game


# --- the move path --------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """What one action did, as the engine decided it: the new state, the history rows that
    record it (one per ply) and the part of the answer that belongs to this action."""

    state: GameState
    rows: tuple[Move, ...]
    answer: dict[str, Any]


Decide = Callable[[Game, int, GameState, datetime], Step]  # the game, the actor's seat, its state, now

GAME_FIELDS = (*GAME_STATE_FIELDS, "turn_started_at", "move_deadline", "deadline", "reminder_at", "finished_at",
               "bot_to_move")
SEAT_FIELDS = (*SEAT_STATE_FIELDS, "grace_seconds")


def _locked(game_id: int) -> tuple[Game, list[Seat]]:
    """Load: the game row locked, with its players and its seats, in one query (only the game
    row is locked: ``FOR UPDATE OF``; games.loading)."""
    found = game_and_seats(game_id, lock=True)
    if found is None:
        raise NotFound(_("no game %(game_id)s") % {"game_id": game_id}, "game")
    return found


def _play(*, user: Any, game_id: int, ply: int | None, action: str, idempotency_key: str | None,
          decide: Decide, any_turn: bool = False) -> dict[str, Any]:
    """Load, check, decide, record (and finish), publish on commit; or the first answer again
    for a repeated ``idempotency_key``. A late action loses the game on time and is refused."""
    now = timezone.now()
    try:
        with transaction.atomic():
            game, seats = _locked(game_id)
            first = idempotency.first_answer(user, idempotency_key, action, game)
            if first is not None:
                return first
            seat = game.seat_of(user)
            if seat is None:
                raise NotAPlayer(_("you do not play in this game"), "game")
            _check_not_over(game)
            late = clock.expired(game, now)
            if late:
                _record(game, seats, _time_out(game, seats, now), now)
            else:
                if ply is not None and ply != game.ply:
                    raise StalePly(_("the game is at ply %(ply)s, not %(ply2)s: reload and try again") % {"ply": game.ply, "ply2": ply}, "ply")
                if not any_turn and seat != game.to_move:
                    raise NotYourTurn(_("it is %(value)s's turn") % {"value": game.player(game.to_move).username}, "game")
                answer = _record(game, seats, decide(game, seat, state_of(game, seats), now), now)
                idempotency.remember(user, idempotency_key, action, game, answer)
                return answer
    except IntegrityError as exc:  # another request stored this ply first
        raise StalePly(_("another move was stored for this turn first: reload"), "ply") from exc
    raise _time_over(game)  # committed: the game is lost on time, the action does not count


def _check_not_over(game: Game) -> None:
    if game.over:
        if game.termination == Termination.TIMEOUT:
            raise _time_over(game)
        raise GameIsOver(_("the game is over: %(result_reason)s") % {"result_reason": result_of(game)}, "game")


def _time_over(game: Game) -> TimeOver:
    loser = COLORS.index(game.winner_color) ^ 1 if game.winner_color else game.to_move
    return TimeOver(
        f"the game is over: {game.player(loser).username} ({COLORS[loser]}) ran out of time"
        + (f" at {game.finished_at:%Y-%m-%d %H:%M} UTC" if game.finished_at else ""),
        "game",
    )


def _values(obj: Any, fields: Sequence[str]) -> list[Any]:
    return [getattr(obj, f) for f in fields]


def _record(game: Game, seats: list[Seat], step: Step, now: datetime) -> dict[str, Any]:
    """Record a step: append its rows, move the clocks on, write only what changed, record
    the emails it causes, finish the game if it is over, and publish after the commit."""
    game_before = _values(game, GAME_FIELDS)
    seats_before = [_values(s, SEAT_FIELDS) for s in seats]
    had_turn, was_over = game.to_move, game.over
    writes = Writes()  # sent together (games.writing): one round trip on PostgreSQL
    writes.insert(step.rows)
    store_state(game, seats, step.state)
    finished = game.over and not was_over
    turn_passed = not game.over and game.to_move != had_turn
    if finished or turn_passed:
        clock.pass_turn(game, seats, had_turn, now)
    game.bot_to_move = not game.over and is_house_bot(game.player(game.to_move))
    if finished:
        game.finished_at = now
    for seat, before in zip(seats, seats_before, strict=True):
        changed = [f for f, v in zip(SEAT_FIELDS, before, strict=True) if getattr(seat, f) != v]
        if changed:
            writes.update(seat, changed)
    changed = [f for f, v in zip(GAME_FIELDS, game_before, strict=True) if getattr(game, f) != v]
    writes.update(game, [*changed, "updated_at"])
    if turn_passed:
        notifications.record(notifications.your_turn(game), hold=notifications.your_turn_hold(), writes=writes)
    players = (game.yellow_id, game.red_id)
    writes.insert([live.move_event(game.pk, players, game.ply, game.user_id_to_move, turn_passed)])
    if finished:
        _finish(game, seats, writes)
    writes.send()
    ply, to_move, bot = game.ply, game.user_id_to_move, game.bot_to_move
    transaction.on_commit(lambda: move_made.send(
        sender=Game, game_id=game.pk, ply=ply, user_id_to_move=to_move, turn_passed=turn_passed, bot_to_move=bot,
        player_ids=players))
    answer = dict(step.answer)
    answer.update(game=game.pk, ply=game.ply, phase=game.phase, status=game.status,
                  to_move=None if game.over else COLORS[game.to_move])
    if game.over:
        answer["result"] = {"winner": game.winner_color or None, "reason": game.result_reason}
    return answer


def _finish(game: Game, seats: Sequence[Seat], writes: Writes) -> None:
    """The one place a game is finished, whatever ended it (a finishing move, a resignation,
    a time-out, an adjudication): rate it (in this transaction), record the game-over emails
    and its live ``finish`` event (all with the move's other writes), and publish
    ``game_finished`` after the commit (tournaments close their rounds)."""
    ratings.rate_game(game, seats, writes)
    notifications.record(notifications.game_over(game), writes=writes)
    players, winner = (game.yellow_id, game.red_id), game.winner_id
    writes.insert([live.new_event(kind=LiveEvent.Kind.FINISH, game_id=game.pk, user_a=players[0], user_b=players[1],
                                  winner=winner)])
    transaction.on_commit(lambda: game_finished.send(sender=Game, game_id=game.pk, player_ids=players,
                                                     winner_id=winner))


def _turn_rows(game: Game, user: Any, move: EngineMove, now: datetime, with_roll: bool) -> tuple[Move, ...]:
    turn = turn_row(game, user, move, now)
    if not with_roll:
        return (turn,)
    roll = roll_row(game, user, move.seat, move.number, move.choice, move.dice_before, move.rolled, move.dice,
                    move.roll_ply, now)
    return (roll, turn)


def _turn_answer(move: EngineMove, row: Move) -> dict[str, Any]:
    return {"move": {**move_json(move), "notation": row.notation}}


def game_place(*, user: Any, game_id: int, ply: int | None, cell: tuple[int, int], heading: int,
               idempotency_key: str | None = None) -> dict[str, Any]:
    """R5: place your boat on a free start/finish-line cell with a heading."""

    def decide(game: Game, seat: int, state: GameState, now: datetime) -> Step:
        if state.phase is not Phase.PLACE:
            raise IllegalMoveError(_("the boats are already placed"), "cell", "R5")
        where = (int(cell[0]), int(cell[1]))
        new = engine_step(lambda: state.place(where, heading))
        row = place_row(game, user, Placement(seat, COLORS[seat], where, heading), state.ply, now)
        return Step(new, (row,), {"placement": placement_json(row)})

    return _play(user=user, game_id=game_id, ply=ply, action="place", idempotency_key=idempotency_key, decide=decide)


def game_roll(*, user: Any, game_id: int, ply: int | None, choice: DiceChoice,
              idempotency_key: str | None = None) -> dict[str, Any]:
    """R6: choose dice and roll them (server-side, from the game's committed seed). When only
    one direction is then allowed the move is made at once (R7): its roll and its turn are
    recorded together."""

    def decide(game: Game, seat: int, state: GameState, now: datetime) -> Step:
        if state.phase is not Phase.DICE:
            raise IllegalMoveError(_("the game awaits %(value)s, not a dice choice") % {"value": state.phase.value}, "change", "R6")
        dice = SeededDice(bytes.fromhex(game.dice_seed), state.ply)
        new, move = engine_step(lambda: state.choose_dice(choice, dice))
        if move is not None:
            rows = _turn_rows(game, user, move, now, with_roll=True)
            return Step(new, rows, {"rolled": list(move.rolled), "dice": list(move.dice), **_turn_answer(move, rows[1])})
        pending = new.pending
        assert pending is not None
        row = roll_row(game, user, seat, new.boat.moves + 1, pending.choice, pending.dice_before, pending.rolled,
                       pending.dice, state.ply, now)
        return Step(new, (row,), {"rolled": list(pending.rolled), "dice": list(pending.dice), "move": None,
                                  "options": [option_json(o) for o in new.options()]})

    return _play(user=user, game_id=game_id, ply=ply, action="roll", idempotency_key=idempotency_key, decide=decide)


def game_choose_direction(*, user: Any, game_id: int, ply: int | None, direction: int,
                          idempotency_key: str | None = None) -> dict[str, Any]:
    """R7: move in one of the allowed directions."""

    def decide(game: Game, seat: int, state: GameState, now: datetime) -> Step:
        if state.phase is not Phase.DIRECTION:
            raise IllegalMoveError(_("the game awaits %(value)s, not a direction: roll first") % {"value": state.phase.value}, "direction",
                                   "R7")
        new, move = engine_step(lambda: state.choose_direction(direction))
        rows = _turn_rows(game, user, move, now, with_roll=False)
        return Step(new, rows, _turn_answer(move, rows[0]))

    return _play(user=user, game_id=game_id, ply=ply, action="direction", idempotency_key=idempotency_key,
                 decide=decide)


def game_resign(*, user: Any, game_id: int, idempotency_key: str | None = None) -> dict[str, Any]:
    """Give up (R14: points already scored stand). Allowed at any time, on either turn, also
    between a roll and its direction (the roll stays in the history)."""

    def decide(game: Game, seat: int, state: GameState, now: datetime) -> Step:
        return Step(state.resign(seat), (end_row(game, user, seat, Termination.RESIGN, state.ply, now),), {})

    return _play(user=user, game_id=game_id, ply=None, action="resign", idempotency_key=idempotency_key,
                 decide=decide, any_turn=True)


def _time_out(game: Game, seats: Sequence[Seat], now: datetime) -> Step:
    """The player to move ran out of time (the caller checked the deadline)."""
    state = state_of(game, seats)
    loser = game.to_move
    row = end_row(game, game.player(loser), loser, Termination.TIMEOUT, state.ply, now)
    return Step(state.time_out(loser), (row,), {})


# --- the clock: time-outs, reminders, vacations (docs/clocks.md) ------------------------------


def game_time_out(*, game_id: int, now: datetime | None = None) -> bool:
    """End the game as a loss on time if the player to move is past the deadline (the sweep:
    the backstop for players who never come back; an action after the deadline does the same
    itself).

    Safe to run twice or from two workers at once, and against a move arriving at the same
    moment: the game row is locked and the deadline checked again, so either the move or
    the time-out happens, never both. Returns whether this call ended the game.
    """
    now = now or timezone.now()
    with transaction.atomic():
        try:
            game, seats = _locked(game_id)
        except NotFound:
            return False
        if not clock.expired(game, now):
            return False
        _record(game, seats, _time_out(game, seats, now), now)
        return True


def game_remind(*, game_id: int, now: datetime | None = None) -> bool:
    """Send the reminder of the current turn (once per turn); returns whether this call did."""
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update(of=("self",)).select_related("yellow", "red").filter(pk=game_id).first()
        if game is None or game.over or game.reminder_at is None or game.reminder_at > now:
            return False
        if game.reminder_sent_at is not None and game.reminder_sent_at >= game.turn_started_at:
            return False
        game.reminder_sent_at = now
        game.reminder_at = None  # out of the sweep's index until the next turn
        game.save(update_fields=["reminder_sent_at", "reminder_at"])
        notifications.record(notifications.reminder(game))
        return True


def game_adjudicate(*, game_id: int, now: datetime | None = None) -> bool:
    """End an unfinished game at a tournament round's deadline by the documented rule
    (points, then buoys, then damage). A clock that ran out before the deadline decides
    first: that game is lost on time. Safe to run twice; returns whether this call ended it."""
    now = now or timezone.now()
    with transaction.atomic():
        try:
            game, seats = _locked(game_id)
        except NotFound:
            return False
        if game.over:
            return False
        if clock.expired(game, now):
            _record(game, seats, _time_out(game, seats, now), now)
            return True
        state = state_of(game, seats)
        row = end_row(game, None, game.to_move, Termination.ADJUDICATION, state.ply, now)
        _record(game, seats, Step(state.adjudicate(), (row,), {}), now)
        return True
