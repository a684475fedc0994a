"""Writes for games and challenges. Every function owns its transaction.

Moves: the caller names the game and the ``ply`` it saw. The service locks the game row
(``SELECT … FOR UPDATE``; on SQLite the write transaction is taken at BEGIN), checks that
the user plays in it, that it is still going, that it is their turn and that the ply is
current, then asks the engine. A refused move changes nothing. The history has one row per
ply (a unique constraint), so two moves can never be stored for the same turn. With an
``idempotency_key`` a retried request gets the first answer again.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, models, transaction
from django.utils import timezone

from accounts.models import Vacation
from games.engine import (
    DIRECTION_NAMES,
    DiceChoice,
    EngineError,
    GameState,
    Phase,
    SeededDice,
    new_course,
)
from games.engine.notation import format_move, format_placement
from games.engine.record import move_json
from games.engine.rules import Move as EngineMove
from games.engine.rules import Placement

from . import clock
from .errors import Conflict, GameIsOver, IllegalMoveError, NotAPlayer, NotFound, NotYourTurn, ServiceError, StalePly
from .models import (
    COLORS,
    DAYS_PER_MOVE,
    GRACE_DAYS,
    Challenge,
    ColorChoice,
    CourseLetter,
    Game,
    IdempotentRequest,
    LakeSide,
    Move,
    Seat,
)
from .signals import challenge_made, game_ended, game_finished, move_made, reminder_due
from .state import course_data, state_of, store_state

User = get_user_model()


# --- challenges ---------------------------------------------------------------------------


def _check_challenge_options(color: str, days_per_move: int, course_letter: str, lake_side: str,
                             grace_days: int = 7) -> None:
    if grace_days not in GRACE_DAYS:
        raise ServiceError(f"grace days must be one of {', '.join(map(str, GRACE_DAYS))}", "grace_days")
    if color not in ColorChoice.values:
        raise ServiceError(f"colour must be one of {', '.join(ColorChoice.values)}", "color")
    if days_per_move not in DAYS_PER_MOVE:
        raise ServiceError(f"days per move must be one of {', '.join(map(str, DAYS_PER_MOVE))}", "days_per_move")
    if course_letter not in CourseLetter.values:
        raise ServiceError("course letter must be A, B, C or empty for random", "course_letter", "R3")
    if lake_side not in LakeSide.values:
        raise ServiceError("lake side must be standard or expert", "lake_side", "R2")


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
        raise ServiceError("you cannot challenge yourself", "opponent")
    challenge = Challenge.objects.create(
        created_by=user, opponent=opponent, color=color, days_per_move=days_per_move, grace_days=grace_days,
        course_letter=course_letter, lake_side=lake_side, rated=rated,
    )
    if opponent is not None:
        transaction.on_commit(lambda: challenge_made.send(sender=Challenge, challenge_id=challenge.pk))
    return challenge


def _locked_open_challenge(challenge_id: int) -> Challenge:
    try:
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
    except Challenge.DoesNotExist:
        raise NotFound(f"no challenge {challenge_id}", "challenge") from None
    if challenge.status != Challenge.Status.OPEN:
        raise Conflict(f"the challenge is {challenge.status}", "challenge")
    return challenge


@transaction.atomic
def challenge_cancel(*, user: Any, challenge_id: int) -> Challenge:
    challenge = _locked_open_challenge(challenge_id)
    if challenge.created_by_id != user.pk:
        raise NotAPlayer("only the player who made a challenge can cancel it", "challenge")
    challenge.status = Challenge.Status.CANCELLED
    challenge.save(update_fields=["status"])
    return challenge


@transaction.atomic
def challenge_decline(*, user: Any, challenge_id: int) -> Challenge:
    challenge = _locked_open_challenge(challenge_id)
    if challenge.opponent_id != user.pk:
        raise NotAPlayer("only the challenged player can decline", "challenge")
    challenge.status = Challenge.Status.DECLINED
    challenge.save(update_fields=["status"])
    return challenge


@transaction.atomic
def challenge_accept(*, user: Any, challenge_id: int) -> Game:
    """Accept a challenge: the game is created with a fresh lake and course."""
    challenge = _locked_open_challenge(challenge_id)
    if challenge.created_by_id == user.pk:
        raise Conflict("you cannot accept your own challenge", "challenge")
    if challenge.opponent_id is not None and challenge.opponent_id != user.pk:
        raise NotAPlayer("this challenge is for another player", "challenge")
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
        raise ServiceError("a game needs two different players", "opponent")
    if course_json is None:
        course = new_course(lake_side, course_letter or None)
        course_json = course_data(course)
    seed = secrets.token_bytes(32)
    game = Game.objects.create(
        yellow=yellow, red=red, course=course_json, course_letter=course_json["course"]["letter"],
        lake_side=lake_side, rated=rated, days_per_move=days_per_move, grace_days=grace_days,
        vacation_allowed=vacation_allowed, dice_seed=seed.hex(), dice_seed_sha256=hashlib.sha256(seed).hexdigest(),
    )
    seats = [
        Seat(game=game, index=i, color=c, user=u, grace_seconds=grace_days * 86400)
        for i, (c, u) in enumerate(zip(COLORS, (yellow, red), strict=True))
    ]
    Seat.objects.bulk_create(seats)
    clock.start_turn(game, seats, game.created_at)
    game.save(update_fields=["turn_started_at", "move_deadline", "deadline", "reminder_at"])
    transaction.on_commit(
        lambda: move_made.send(sender=Game, game_id=game.pk, ply=0, user_id_to_move=yellow.pk, turn_passed=True)
    )
    return game


# --- moves --------------------------------------------------------------------------------


Action = Callable[[Game, list[Seat], GameState], dict[str, Any]]


def _act(
    *,
    user: Any,
    game_id: int,
    ply: int | None,
    action: str,
    idempotency_key: str | None,
    apply: Action,
    any_turn: bool = False,
) -> dict[str, Any]:
    """Lock, check, apply, store; or return the first answer for a repeated key."""
    try:
        with transaction.atomic():
            try:
                game = Game.objects.select_for_update().select_related("yellow", "red").get(pk=game_id)
            except Game.DoesNotExist:
                raise NotFound(f"no game {game_id}", "game") from None
            if idempotency_key:
                previous = IdempotentRequest.objects.filter(user=user, key=idempotency_key).first()
                if previous is not None:
                    if previous.game_id != game.pk or previous.action != action:
                        raise Conflict("this Idempotency-Key was used for another request", "Idempotency-Key")
                    return dict(previous.response)
            seat = game.seat_of(user)
            if seat is None:
                raise NotAPlayer("you do not play in this game", "game")
            if game.over:
                raise GameIsOver(f"the game is over: {game.result_reason}", "game")
            if ply is not None and ply != game.ply:
                raise StalePly(f"the game is at ply {game.ply}, not {ply}: reload and try again", "ply")
            if not any_turn and seat != game.to_move:
                raise NotYourTurn(f"it is {game.player(game.to_move).username}'s turn", "game")
            seats = list(game.seats.order_by("index"))
            state = state_of(game, seats)
            was_over = state.over
            had_turn = game.to_move
            now = timezone.now()
            response = apply(game, seats, state)
            if game.over or game.to_move != had_turn:
                clock.end_turn(game, seats, had_turn, now)
                if game.over:
                    clock.set_deadlines(game, seats)
                else:
                    clock.start_turn(game, seats, now)
            response.setdefault("game", game.pk)
            response["ply"] = game.ply
            response["phase"] = game.phase
            response["to_move"] = None if game.over else COLORS[game.to_move]
            response["status"] = game.status
            if game.over:
                response["result"] = {"winner": game.winner_color or None, "reason": game.result_reason}
            game.save()
            for s in seats:
                s.save()
            if game.over and not was_over:
                game_ended.send(sender=Game, game=game)
            if idempotency_key:
                IdempotentRequest.objects.create(
                    user=user, key=idempotency_key, action=action, game=game, response=response
                )
            finished = game.over and not was_over
            to_move = game.user_id_to_move
            passed = not game.over and game.to_move != had_turn
            transaction.on_commit(lambda: move_made.send(
                sender=Game, game_id=game.pk, ply=game.ply, user_id_to_move=to_move, turn_passed=passed))
            if finished:
                transaction.on_commit(lambda: game_finished.send(sender=Game, game_id=game.pk))
            return response
    except IntegrityError as exc:  # another request stored this ply first
        raise StalePly("another move was stored for this turn first: reload", "ply") from exc


def _engine(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except EngineError as exc:
        raise IllegalMoveError(exc.message, exc.field, exc.rule if exc.rule.startswith("R") else None) from exc


def _store_turn(game: Game, seats: list[Seat], state: GameState, move: EngineMove, user: Any) -> dict[str, Any]:
    now = timezone.now()
    Move.objects.create(
        game=game, ply=move.roll_ply, seat=move.seat, user=user, kind=Move.Kind.TURN, number=move.number,
        rolled_at=now, created_at=now, choice=move_json(move)["choice"], dice_before=list(move.dice_before),
        rolled=list(move.rolled), dice=list(move.dice), direction=move.direction, auto=move.auto,
        start=list(move.start), reach=move.reach, path=[list(c) for c in move.path], final=list(move.final),
        heading=move.heading, damage=move.damage, damage_total=move.damage_total, crash=move.crash,
        rounded=list(move.rounded), finished=move.finished, sunk=move.sunk, notation=format_move(move),
    )
    store_state(game, seats, state)
    if state.over:
        game.finished_at = now
    return {"move": {**move_json(move), "notation": format_move(move)}}


def game_place(*, user: Any, game_id: int, ply: int | None, cell: tuple[int, int], heading: int,
               idempotency_key: str | None = None) -> dict[str, Any]:
    """R5: place your boat on a free start/finish-line cell with a heading."""

    def apply(game: Game, seats: list[Seat], state: GameState) -> dict[str, Any]:
        if state.phase is not Phase.PLACE:
            raise IllegalMoveError("the boats are already placed", "cell", "R5")
        seat = state.to_move
        new = _engine(lambda: state.place((int(cell[0]), int(cell[1])), heading))
        placement = Placement(seat, COLORS[seat], (int(cell[0]), int(cell[1])), heading)
        now = timezone.now()
        Move.objects.create(
            game=game, ply=state.ply, seat=seat, user=user, kind=Move.Kind.PLACE, final=list(placement.cell),
            heading=heading, notation=format_placement(placement), created_at=now,
        )
        store_state(game, seats, new)
        return {"placement": {"color": COLORS[seat], "cell": list(placement.cell), "heading": heading,
                              "notation": format_placement(placement)}}

    return _act(user=user, game_id=game_id, ply=ply, action="place", idempotency_key=idempotency_key, apply=apply)


def game_roll(*, user: Any, game_id: int, ply: int | None, choice: DiceChoice,
              idempotency_key: str | None = None) -> dict[str, Any]:
    """R6: choose dice and roll them (server-side, from the game's committed seed). When only
    one direction is then allowed the move is made at once (R7)."""

    def apply(game: Game, seats: list[Seat], state: GameState) -> dict[str, Any]:
        if state.phase is not Phase.DICE:
            raise IllegalMoveError(f"the game awaits {state.phase.value}, not a dice choice", "change", "R6")
        dice = SeededDice(bytes.fromhex(game.dice_seed), state.ply)
        new, move = _engine(lambda: state.choose_dice(choice, dice))
        if move is not None:
            return {"rolled": list(move.rolled), "dice": list(move.dice), **_store_turn(game, seats, new, move, user)}
        store_state(game, seats, new)
        assert new.pending is not None
        return {
            "rolled": list(new.pending.rolled),
            "dice": list(new.pending.dice),
            "move": None,
            "options": [option_json(o) for o in new.options()],
        }

    return _act(user=user, game_id=game_id, ply=ply, action="roll", idempotency_key=idempotency_key, apply=apply)


def game_choose_direction(*, user: Any, game_id: int, ply: int | None, direction: int,
                          idempotency_key: str | None = None) -> dict[str, Any]:
    """R7: move in one of the allowed directions."""

    def apply(game: Game, seats: list[Seat], state: GameState) -> dict[str, Any]:
        if state.phase is not Phase.DIRECTION:
            raise IllegalMoveError(f"the game awaits {state.phase.value}, not a direction: roll first", "direction", "R7")
        new, move = _engine(lambda: state.choose_direction(direction))
        return _store_turn(game, seats, new, move, user)

    return _act(user=user, game_id=game_id, ply=ply, action="direction", idempotency_key=idempotency_key, apply=apply)


def game_resign(*, user: Any, game_id: int, idempotency_key: str | None = None) -> dict[str, Any]:
    """Give up (R14: points already scored stand). Allowed at any time, on either turn."""

    def apply(game: Game, seats: list[Seat], state: GameState) -> dict[str, Any]:
        seat = game.seat_of(user)
        assert seat is not None
        new = state.resign(seat)
        store_state(game, seats, new)
        game.finished_at = timezone.now()
        return {}

    return _act(user=user, game_id=game_id, ply=None, action="resign", idempotency_key=idempotency_key,
                apply=apply, any_turn=True)


def option_json(option: Any) -> dict[str, Any]:
    return {
        "direction": option.direction,
        "name": DIRECTION_NAMES[option.direction],
        "turn": option.turn,
        "allowed": option.allowed,
        "total": option.total,
        "reach": option.reach,
        "path": [list(c) for c in option.path],
        "final": list(option.final),
        "crash": option.crash,
        "damage": option.damage,
        "blocked_by": option.blocked_by,
        "rounded": list(option.rounded),
        "finishes": option.finishes,
        "sinks": option.sinks,
    }


# --- the clock: time-outs, reminders, vacations (docs/clocks.md) ------------------------------


def game_time_out(*, game_id: int, now: datetime | None = None) -> bool:
    """End the game as a loss on time if the player to move is past the deadline.

    Safe to run twice or from two workers at once, and against a move arriving at the same
    moment: the game row is locked and the deadline checked again, so either the move or
    the time-out happens, never both. Returns whether this call ended the game.
    """
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update().select_related("yellow", "red").filter(pk=game_id).first()
        if game is None or game.over or game.deadline is None or game.deadline > now:
            return False
        seats = list(game.seats.order_by("index"))
        loser = game.to_move
        clock.end_turn(game, seats, loser, now)
        new = state_of(game, seats).time_out(loser)
        store_state(game, seats, new)
        game.finished_at = now
        clock.set_deadlines(game, seats)
        game.save()
        for s in seats:
            s.save()
        game_ended.send(sender=Game, game=game)
        transaction.on_commit(lambda: game_finished.send(sender=Game, game_id=game.pk))
        return True


def game_remind(*, game_id: int, now: datetime | None = None) -> bool:
    """Claim the reminder of the current turn (once per turn); returns whether this call did."""
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.over or game.reminder_at is None or game.reminder_at > now:
            return False
        if game.reminder_sent_at is not None and game.reminder_sent_at >= game.turn_started_at:
            return False
        game.reminder_sent_at = now
        game.save(update_fields=["reminder_sent_at"])
        user_id = game.user_id_to_move
        transaction.on_commit(lambda: reminder_due.send(sender=Game, game_id=game.pk, user_id=user_id))
        return True


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
    """Deadlines of the user's active games where it is their turn, after a vacation change."""
    ids = list(
        Game.objects.filter(status=Game.Status.ACTIVE)
        .filter(models.Q(yellow=user, to_move=0) | models.Q(red=user, to_move=1))
        .values_list("pk", flat=True)
    )
    for game in Game.objects.select_for_update().filter(pk__in=ids).order_by("pk"):
        seats = list(game.seats.order_by("index"))
        clock.set_deadlines(game, seats)
        game.save(update_fields=["move_deadline", "deadline", "reminder_at"])
    return len(ids)


@transaction.atomic
def vacation_start(*, user: Any, days: int | None = None, now: datetime | None = None) -> Vacation:
    """Stop the user's clocks (in games that allow vacation) for ``days`` or all days left."""
    now = now or timezone.now()
    User.objects.select_for_update().get(pk=user.pk)  # one vacation change at a time per player
    if active_vacation(user, now):
        raise Conflict("you are on vacation already", "vacation")
    left = vacation_days_left(user, now)
    if left <= timedelta(0):
        raise ServiceError("no vacation days are left this year", "days")
    length = left if days is None else timedelta(days=days)
    if days is not None and not timedelta(0) < length <= left:
        raise ServiceError(f"days must be between 1 and the {left.total_seconds() / 86400:.1f} left this year", "days")
    vacation = Vacation.objects.create(user=user, started_at=now, planned_end=now + length)
    _recompute_deadlines(user)
    return vacation


@transaction.atomic
def vacation_end(*, user: Any, now: datetime | None = None) -> Vacation:
    """Back from vacation early: the clocks run again from now."""
    now = now or timezone.now()
    vacation = active_vacation(user, now)
    if vacation is None:
        raise Conflict("you are not on vacation", "vacation")
    vacation.ended_at = now
    vacation.save(update_fields=["ended_at"])
    _recompute_deadlines(user)
    return vacation


def game_adjudicate(*, game_id: int, now: datetime | None = None) -> bool:
    """End an unfinished game at a tournament round's deadline by the documented rule
    (points, then buoys, then damage). Safe to run twice; returns whether this call ended it."""
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update().select_related("yellow", "red").filter(pk=game_id).first()
        if game is None or game.over:
            return False
        seats = list(game.seats.order_by("index"))
        clock.end_turn(game, seats, game.to_move, now)
        store_state(game, seats, state_of(game, seats).adjudicate())
        game.finished_at = now
        clock.set_deadlines(game, seats)
        game.save()
        for s in seats:
            s.save()
        game_ended.send(sender=Game, game=game)
        transaction.on_commit(lambda: game_finished.send(sender=Game, game_id=game.pk))
        return True
