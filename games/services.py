"""Writes for games and challenges: every game, whatever its ruleset and number of boats (a
two-player game of the online rules, a series of the boxed game: games.rulesets). Every function
owns its transaction.

How a game comes to be: a two-player game when a challenge is accepted (or a tournament pairs
two players: :func:`game_create`); a game of the boxed rules is opened in the lobby
(:func:`game_open`), its seats are taken (:func:`game_join`, :func:`game_add_bot`) or given back
(:func:`game_leave`), and it starts when the last seat is taken or its creator starts it with the
players present (:func:`game_start`), unless the creator cancels it (:func:`game_cancel`).

An action on a game reads as its phases (docs/architecture.md), the same for every game:

1. **load** — the game row is locked (``SELECT … FOR UPDATE OF`` the game row; on SQLite the
   write transaction is taken at BEGIN) and read with its seats and players in one query;
2. **check** — the user plays in it (and has not left it), it is going, the clock of the player
   to move has not run out (if it has, they lose on time now, exactly as the sweep would do it,
   and the action is refused), the ply is current and it is their turn;
3. **decide** — the engine's match (games.engine.match: resumed from the stored columns, or a
   series replayed and kept per process) applies the action and returns a :class:`Step`: the
   new match, the history rows that record it and the answer;
4. **record** — the rows are appended (one per ply: a unique constraint), only the changed
   columns of the game and its seats are written, the clocks move on, and the emails and the
   live event the action causes are recorded in the same transaction (one statement on
   PostgreSQL: common.db.writing);
5. **finish** — if the game is over, :func:`_finish` (the only place that finishes a game)
   rates it and records the game-over emails and its live end;
6. **publish** — after the commit, events (``games.signals``) tell the receivers
   (``games/receivers.py``, ``tournaments/receivers.py``) which queue their tasks.

A refused action changes nothing. With an ``idempotency_key`` a retried request gets the first
answer again.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from common.db.writing import Writes
from common.errors import Conflict, NotAPlayer, NotFound, ServiceError
from games.engine import DiceChoice, EngineError, Phase, SeededDice, Termination, new_course, new_courses
from games.engine.bot import LEVELS
from games.engine.match import Match
from games.engine.record import move_json
from games.engine.rules import Move as EngineMove
from games.engine.rules import Placement

from . import clock, idempotency, plans, vacations
from .errors import GameIsOver, IllegalMoveError, NotYourTurn, StalePly, TimeOver, engine_step
from .house import is_house_bot
from .live import events as live
from .live.models import LiveEvent
from .loading import game_and_seats
from .models import (
    COLORS,
    DAYS_PER_MOVE,
    Challenge,
    ClockShape,
    ColorChoice,
    CourseLetter,
    Game,
    LakeSide,
    Move,
    Plan,
    Ruleset,
    Seat,
)
from .notifications import notices as notifications
from .payloads import option_json, placement_json
from .ratings.services import rate
from .reasons import result_of
from .rulesets import BOXED, rules_of
from .signals import challenge_changed, challenge_made, game_finished, game_started, move_made
from .state import (
    GAME_STATE_FIELDS,
    LETTERS,
    SEAT_STATE_FIELDS,
    course_data,
    end_row,
    place_row,
    playing,
    roll_row,
    store_state,
    stored_course,
    turn_row,
)

User = get_user_model()


# --- challenges ---------------------------------------------------------------------------


def clock_fields(days_per_move: int, grace_days: int, terms: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The clock of a new challenge or game, checked (games.clock.check_terms): its days per move
    and grace (a capped bank: its start) and its other terms (``terms``: games.clock.TERMS, each
    left out as the default: days per move and a grace bank, weekend pause and automatic
    vacation allowed)."""
    terms = dict(terms or {})
    unknown = set(terms) - set(clock.TERMS)
    if unknown:
        raise ServiceError(_("unknown clock term %(value)s") % {"value": ", ".join(sorted(unknown))}, "clock_shape")
    shape = str(terms.get("clock_shape") or ClockShape.MOVE)
    if shape == ClockShape.MOVE and days_per_move not in DAYS_PER_MOVE:
        raise ServiceError(_("days per move must be one of %(value)s") % {"value": ', '.join(map(str, DAYS_PER_MOVE))}, "days_per_move")
    numbers = clock.check_terms(clock_shape=shape, days_per_move=days_per_move, grace_days=grace_days,
                                bank_add_hours=int(terms.get("bank_add_hours") or 0),
                                bank_cap_days=int(terms.get("bank_cap_days") or 0))
    return {**numbers, "clock_shape": shape, "weekend_pause_allowed": bool(terms.get("weekend_pause_allowed", True)),
            "auto_vacation_allowed": bool(terms.get("auto_vacation_allowed", True))}


def _check_challenge_options(color: str, course_letter: str, lake_side: str) -> None:
    if color not in ColorChoice.values:
        raise ServiceError(_("colour must be one of %(value)s") % {"value": ', '.join(ColorChoice.values)}, "color")
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
    terms: Mapping[str, Any] | None = None,
) -> Challenge:
    """An open challenge, or one to a named ``opponent`` (who is told by email), with its clock
    (:func:`clock_fields`)."""
    fields = clock_fields(days_per_move, grace_days, terms)
    _check_challenge_options(color, course_letter, lake_side)
    if opponent is not None and opponent.pk == user.pk:
        raise ServiceError(_("you cannot challenge yourself"), "opponent")
    challenge = Challenge.objects.create(
        created_by=user, opponent=opponent, color=color, course_letter=course_letter, lake_side=lake_side,
        rated=rated, **fields,
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
        terms=clock.terms(challenge),
    )
    challenge.status = Challenge.Status.ACCEPTED
    challenge.game = game
    challenge.save(update_fields=["status", "game"])
    _challenge_changed(challenge)
    return game


def _dice_seed(rng: random.Random | None = None) -> tuple[str, str]:
    """A secret dice seed and its SHA-256 (docs/fair-dice.md); ``rng`` (tests) makes it reproducible."""
    seed = rng.randbytes(32) if rng is not None else secrets.token_bytes(32)
    return seed.hex(), hashlib.sha256(seed).hexdigest()


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
    terms: Mapping[str, Any] | None = None,
) -> Game:
    """A new two-player game (the online rules) between ``yellow`` and ``red``: a validated course
    (R2, R3), a secret dice seed, its clock (:func:`clock_fields`) running for Yellow's placing."""
    fields = clock_fields(days_per_move, grace_days, terms)
    if yellow.pk == red.pk:
        raise ServiceError(_("a game needs two different players"), "opponent")
    if course_json is None:
        course = new_course(lake_side, course_letter or None)
        course_json = course_data(course)
    stored = stored_course(course_json)
    seed, seed_hash = _dice_seed()
    now = timezone.now()
    game = Game(
        ruleset=Ruleset.ONLINE, seats_wanted=2, course=stored, course_letter=stored.letter, lake_side=lake_side,
        rated=rated, vacation_allowed=vacation_allowed, **fields, dice_seed=seed, dice_seed_sha256=seed_hash, bot_to_move=is_house_bot(yellow), status=Game.Status.ACTIVE,
        phase=Game.Phase.PLACE, to_move=0, created_at=now, started_at=now,
    )
    seats = [
        Seat(game=game, index=i, color=c, user=u, grace_seconds=grace_days * 86400, joined_at=now)
        for i, (c, u) in enumerate(zip(COLORS, (yellow, red), strict=True))
    ]
    game.keep_seats(seats)
    clock.start_turn(game, seats, now)
    game.save()
    Seat.objects.bulk_create(seats)
    _started(game, seats)
    return game


def _started(game: Game, seats: Sequence[Seat]) -> None:
    """A game has started: the your-turn email of its first player, its live start and first
    turn (written with it), and ``game_started`` and ``move_made`` after the commit."""
    notifications.record(notifications.your_turn(game), hold=notifications.your_turn_hold(),
                         push_hold=notifications.your_turn_push_hold())
    players = [s.user_id for s in playing(seats)]
    to_move, bot, ply = game.user_id_to_move, game.bot_to_move, game.ply
    LiveEvent.objects.bulk_create([  # with the game: its start, then its first turn (games.live)
        live.new_event(kind=LiveEvent.Kind.START, game_id=game.pk, users=players, **live.series_of(game, ply)),
        live.move_event(game, ply, to_move, True)])
    transaction.on_commit(lambda: game_started.send(sender=Game, game_id=game.pk, player_ids=players))
    transaction.on_commit(lambda: move_made.send(
        sender=Game, game_id=game.pk, ply=ply, user_id_to_move=to_move, turn_passed=True, bot_to_move=bot,
        player_ids=players))


# --- the lobby: games of the boxed rules for 3–6 boats ------------------------------------------


def _check_lobby_options(seats: int, lake_side: str) -> None:
    if not BOXED.min_seats <= seats <= BOXED.max_seats:
        raise ServiceError(_("a series has %(a)d to %(b)d seats") % {"a": BOXED.min_seats, "b": BOXED.max_seats},
                           "seats", "R15")
    if lake_side not in LakeSide.values:
        raise ServiceError(_("lake side must be standard or expert"), "lake_side", "R2")


def _next_series_number() -> int:
    return int(Game.objects.aggregate(last=Max("series_number"))["last"] or 0) + 1


def game_open(*, user: Any, seats: int = 4, days_per_move: int = 3, grace_days: int = 7,
              lake_side: str = LakeSide.STANDARD, rated: bool = True, score_variant: bool = False,
              vacation_allowed: bool = True, terms: Mapping[str, Any] | None = None) -> Game:
    """A game of the boxed rules open in the lobby (a series: its number is the next free one),
    with its creator in the first seat taken, and its clock (:func:`clock_fields`)."""
    _check_lobby_options(seats, lake_side)
    fields = clock_fields(days_per_move, grace_days, terms)
    for attempt in range(5):  # two series opened at once take the same number: the second tries the next
        try:
            with transaction.atomic():
                game = Game.objects.create(
                    ruleset=Ruleset.BOXED, seats_wanted=seats, **fields, lake_side=lake_side, rated=rated, score_variant=score_variant,
                    vacation_allowed=vacation_allowed, created_by=user, series_number=_next_series_number(),
                    status=Game.Status.OPEN, phase=Game.Phase.WAITING, to_move=None, bot_to_move=False,
                )
                seat = Seat.objects.create(game=game, user=user)
                _seats_changed_event(game, "open", [seat])
                return game
        except IntegrityError:
            if attempt == 4:
                raise
    raise AssertionError("unreachable")


def seats_revision(game: Game) -> int:
    """Of a game not started: its ``updated_at`` in microseconds, moved on by every change of its
    seats; its page reloads on a live event with a newer one (static/js/live.js)."""
    return int(game.updated_at.timestamp() * 1_000_000)


def _seats_changed_event(game: Game, action: str, seats: Sequence[Seat]) -> None:
    """The live event of a change of an open game's seats (``open``, ``seats``, ``cancel``),
    written in the change's transaction: it names how many seats are taken and the seats'
    revision (the open game's page reloads on a newer one) and the players concerned."""
    game.save(update_fields=["status", "updated_at"])  # (a cancel: the new status)
    users = sorted({s.user_id for s in seats})
    live.write(live.new_event(kind=LiveEvent.Kind.SEATS, game_id=game.pk, users=users, action=action, ply=game.ply,
                              seats=len(seats), rev=seats_revision(game), **live.series_of(game)))


def _locked_open(game_id: int) -> tuple[Game, list[Seat]]:
    game, seats = _locked(game_id)
    if game.status != Game.Status.OPEN:
        raise Conflict(_("the series is %(status)s: seats can no longer change") % {"status": _status_name(game)},
                       "series")
    return game, seats


def _status_name(game: Game) -> str:
    """The game's status in the active language, to fit "the series is …"."""
    from django.utils.translation import pgettext

    if game.status == Game.Status.FINISHED:
        return pgettext("series", "over")
    return str(game.get_status_display())


def _seats_taken(game: Game, seats: list[Seat], rng: random.Random | None) -> None:
    """A seat was taken: the last free seat starts the game."""
    if len(seats) >= game.seats_wanted:
        _start(game, seats, timezone.now(), rng)
    else:
        _seats_changed_event(game, "seats", seats)


@transaction.atomic
def game_join(*, user: Any, game_id: int, rng: random.Random | None = None) -> Game:
    """Take a free seat; the last free seat starts the game."""
    game, seats = _locked_open(game_id)
    if any(s.user_id == user.pk for s in seats):
        raise Conflict(_("you have a seat in this series already"), "series")
    if is_house_bot(user):
        raise ServiceError(_("house bots take a seat when the creator adds them"), "series")
    seats.append(Seat.objects.create(game=game, user=user))
    _seats_taken(game, seats, rng)
    return game


@transaction.atomic
def game_add_bot(*, user: Any, game_id: int, level: str, rng: random.Random | None = None) -> Game:
    """The creator gives a free seat to a house bot (easy, normal, strong); the last free seat
    starts the game. The site moves the bot (games.bots)."""
    game, seats = _locked_open(game_id)
    if game.created_by_id != user.pk:
        raise NotAPlayer(_("only the player who opened a series can add a bot"), "series")
    if level not in LEVELS:
        raise ServiceError(_("there is no %(level)s bot here: use one of %(value)s")
                           % {"level": level, "value": ", ".join(LEVELS)}, "level")
    bot = User.objects.filter(is_bot=True, bot_level=level).exclude(pk__in=[s.user_id for s in seats]) \
        .order_by("username").first()
    if bot is None:  # each house bot plays once per series: this one has its seat already
        raise Conflict(_("there is no free %s house bot for this series") % level, "level")
    seats.append(Seat.objects.create(game=game, user=bot))
    _seats_taken(game, seats, rng)
    return game


@transaction.atomic
def game_leave(*, user: Any, game_id: int) -> Game:
    """Give your seat back before the start (the creator cancels instead)."""
    game, seats = _locked_open(game_id)
    mine = next((s for s in seats if s.user_id == user.pk), None)
    if mine is None:
        raise NotAPlayer(_("you have no seat in this series"), "series")
    if game.created_by_id == user.pk:
        raise Conflict(_("the creator cancels the series instead of leaving it"), "series")
    mine.delete()
    _seats_changed_event(game, "seats", [s for s in seats if s is not mine])
    return game


@transaction.atomic
def game_cancel(*, user: Any, game_id: int) -> Game:
    """The creator withdraws the game before it starts."""
    game, seats = _locked_open(game_id)
    if game.created_by_id != user.pk:
        raise NotAPlayer(_("only the player who opened a series can cancel it"), "series")
    game.status = Game.Status.CANCELLED
    _seats_changed_event(game, "cancel", seats)
    return game


@transaction.atomic
def game_start(*, user: Any, game_id: int, rng: random.Random | None = None) -> Game:
    """The creator starts the game with the players present (at least three)."""
    game, seats = _locked_open(game_id)
    if game.created_by_id != user.pk:
        raise NotAPlayer(_("only the player who opened a series can start it"), "series")
    if len(seats) < BOXED.min_to_start:
        raise Conflict(_("a series starts with at least %d players") % BOXED.min_to_start, "series", "R15")
    _start(game, seats, timezone.now(), rng)
    return game


def _start(game: Game, seats: list[Seat], now: datetime, rng: random.Random | None) -> None:
    """Seats in the order the players joined (R15: a fixed cycle), each a colour; race A's start
    player by lot; one fresh lake with its A, B and C courses; a secret dice seed. ``rng``
    (tests) makes the lake, the lot and the seed reproducible."""
    draw = rng or random.SystemRandom()
    rules = rules_of(game)
    for i, (seat, color) in enumerate(zip(seats, rules.colors(len(seats)), strict=True)):
        seat.index, seat.color = i, color
        seat.grace_seconds = game.grace_days * 86400
    courses = new_courses(game.lake_side, rng=draw)
    game.course_keys = [stored_course(course_data(c)).key for c in courses]
    game.first_start = draw.randrange(len(seats))
    game.dice_seed, game.dice_seed_sha256 = _dice_seed(draw if rng is not None else None)
    game.status, game.started_at = Game.Status.ACTIVE, now
    game.keep_seats(seats)
    match = rules.start(game, seats)
    store_state(game, seats, match)
    for seat in seats:
        seat.save(update_fields=["index", "color", "grace_seconds", *SEAT_STATE_FIELDS])
    game.turn_started_at = now
    clock.set_deadlines(game, seats)
    game.bot_to_move = is_house_bot(game.player(game.to_move)) if game.to_move is not None else False
    game.save()
    transaction.on_commit(lambda: rules.keep(game, match))
    _started(game, seats)


# --- the move path --------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """What one action did, as the engine decided it: the new match, the history rows that
    record it (one per ply) and the part of the answer that belongs to this action."""

    match: Match
    rows: tuple[Move, ...]
    answer: dict[str, Any]


Decide = Callable[[Game, Seat, Match, datetime], Step]  # the game, the actor's seat, its match, now

GAME_FIELDS = (*GAME_STATE_FIELDS, "turn_started_at", "move_deadline", "deadline", "reminder_at", "finished_at",
               "bot_to_move")
SEAT_FIELDS = (*SEAT_STATE_FIELDS, "grace_seconds")


def _locked(game_id: int) -> tuple[Game, list[Seat]]:
    """Load: the game row locked, with its seats and their players, in one query (only the game
    row is locked: ``FOR UPDATE OF``; games.loading)."""
    found = game_and_seats(game_id, lock=True)
    if found is None:
        raise NotFound(_("no game %(game_id)s") % {"game_id": game_id}, "game")
    return found


class _TakeVacation(Exception):
    """The clock of a player who lets the site spend their vacation days ran out: leave the
    game's lock, take a day (games.vacations.take_automatic, which locks the player, then their
    games), and look again."""

    def __init__(self, user_id: int) -> None:
        super().__init__(user_id)
        self.user_id = user_id


def _vacation_due(game: Game) -> None:
    """Raise :class:`_TakeVacation` when the player to move, whose clock ran out, lets the site
    take a vacation day for them and the game allows it."""
    player = game.user_to_move
    if player is not None and vacations.auto_vacation_applies(game, player):
        raise _TakeVacation(player.pk)


def _play(*, user: Any, game_id: int, ply: int | None, action: str, idempotency_key: str | None,
          decide: Decide, any_turn: bool = False, vacation: bool = True) -> dict[str, Any]:
    """Load, check, decide, record (and finish), publish on commit; or the first answer again
    for a repeated ``idempotency_key``. A late action loses on time (the player to move's) and
    is refused; unless the player to move lets the site take a vacation day for them: then
    the day is taken and the action looked at again (``vacation`` false: once)."""
    now = timezone.now()
    late: int | None = None
    mine: Seat | None = None
    try:
        with transaction.atomic():
            game, seats = _locked(game_id)
            first = idempotency.first_answer(user, idempotency_key, action, game)
            if first is not None:
                return first
            mine = next((s for s in playing(seats) if s.user_id == user.pk), None)
            if mine is None:
                raise NotAPlayer(_("you do not play in this game"), "game")
            _check_going(game, mine)
            if clock.expired(game, now):
                late = game.to_move
                _lost_on_time(game, seats, now, vacation=vacation)
            else:
                if ply is not None and ply != game.ply:
                    raise StalePly(_("the game is at ply %(ply)s, not %(ply2)s: reload and try again")
                                   % {"ply": game.ply, "ply2": ply}, "ply")
                if not any_turn and mine.index != game.to_move:
                    raise NotYourTurn(_("it is %(value)s's turn") % {"value": game.player(game.to_move).username},
                                      "game")
                match = rules_of(game).match_of(game, seats)
                step = decide(game, mine, match, now)  # a refusal changes nothing
                answer = _record(game, seats, step, now)
                _play_plans(game, seats, step.match, now)
                idempotency.remember(user, idempotency_key, action, game, answer)
                return answer
    except IntegrityError as exc:  # another request stored this ply first
        raise StalePly(_("another move was stored for this turn first: reload"), "ply") from exc
    except _TakeVacation as due:
        vacations.take_automatic(user_id=due.user_id, game_id=game_id, now=now)
        return _play(user=user, game_id=game_id, ply=ply, action=action, idempotency_key=idempotency_key,
                     decide=decide, any_turn=any_turn, vacation=False)
    # committed: the player to move ran out of time; the action does not count
    if game.multi_race:
        if mine is not None and late == mine.index:
            raise TimeOver(_("your time ran out: you have left the series (R18)"), "series", "R18")
        raise StalePly(_("the player to move ran out of time and left the series (R18): reload"), "ply", "R18")
    raise _time_over(game)


def _check_going(game: Game, mine: Seat) -> None:
    """The game is being played, and the player is still in it."""
    if game.status == Game.Status.OPEN:
        raise Conflict(_("the series has not started yet"), "series")
    if game.over:
        if game.termination == Termination.TIMEOUT:
            raise _time_over(game)
        raise GameIsOver(_("the game is over: %(result_reason)s") % {"result_reason": result_of(game)}, "game")
    if game.status != Game.Status.ACTIVE:
        raise GameIsOver(_("the series is %(status)s") % {"status": _status_name(game)}, "game")
    if mine.left:
        raise GameIsOver(_("you have left this series"), "series", "R18")


def _time_over(game: Game) -> TimeOver:
    loser = next((s for s in game.seat_list() if s.color and s.color != game.winner_color), None) \
        if game.winner_color else game.seat_at(game.to_move)
    name, color = (loser.user.username, loser.color) if loser is not None else ("?", "?")
    return TimeOver(
        f"the game is over: {name} ({color}) ran out of time"
        + (f" at {game.finished_at:%Y-%m-%d %H:%M} UTC" if game.finished_at else ""),
        "game",
    )


def _values(obj: Any, fields: Sequence[str]) -> list[Any]:
    return [getattr(obj, f) for f in fields]


def _record(game: Game, seats: list[Seat], step: Step, now: datetime) -> dict[str, Any]:
    """Record a step: append its rows, move the clocks on, write only what changed, record
    the emails and the live event it causes, finish the game if it is over, and publish after
    the commit."""
    game_before = _values(game, GAME_FIELDS)
    seats_before = [_values(s, SEAT_FIELDS) for s in seats]
    had_turn, was_over = game.to_move, game.over
    writes = Writes()  # sent together (common.db.writing): one round trip on PostgreSQL
    writes.insert(step.rows)
    store_state(game, seats, step.match)
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
        notifications.record(notifications.your_turn(game), hold=notifications.your_turn_hold(),
                             push_hold=notifications.your_turn_push_hold(), writes=writes)
    writes.insert([live.move_event(game, game.ply, game.user_id_to_move, turn_passed)])
    if finished:
        _finish(game, seats, writes)
    writes.send()
    ply, to_move, bot, players, match = game.ply, game.user_id_to_move, game.bot_to_move, game.player_ids, step.match
    rules = rules_of(game)
    transaction.on_commit(lambda: rules.keep(game, match))
    transaction.on_commit(lambda: move_made.send(
        sender=Game, game_id=game.pk, ply=ply, user_id_to_move=to_move, turn_passed=turn_passed, bot_to_move=bot,
        player_ids=players))
    answer = dict(step.answer)
    answer.update(game=game.pk, ply=game.ply)
    if game.multi_race:
        answer["race"] = LETTERS[game.race]
    answer.update(phase=game.phase, status=game.status, to_move=None if game.over else game.color_of(game.to_move))
    if game.over:
        answer["result"] = {"winner": game.winner_color or None, "reason": game.result_reason}
    return answer


def _finish(game: Game, seats: Sequence[Seat], writes: Writes) -> None:
    """The one place a game is finished, whatever ended it (a finishing move or a series' last
    race, a resignation, a time-out, an adjudication): rate it (in this transaction, in the
    pool of its ruleset), record the game-over emails and its live ``finish`` event (all with the
    move's other writes), and publish ``game_finished`` after the commit (tournaments close their
    rounds)."""
    rate(game, playing(seats), writes)
    notifications.record(notifications.game_over(game), writes=writes)
    players, winner = game.player_ids, game.winner_id
    writes.insert([live.new_event(kind=LiveEvent.Kind.FINISH, game_id=game.pk, users=players, winner=winner,
                                  **live.series_of(game, game.ply))])
    transaction.on_commit(lambda: game_finished.send(sender=Game, game_id=game.pk, player_ids=players,
                                                     winner_id=winner))


def _race(match: Match) -> int:
    return len(match.races) - 1


def _turn_answer(move: EngineMove, row: Move) -> dict[str, Any]:
    return {"move": {**move_json(move), "notation": row.notation}}


def _awaits(match: Match) -> str:
    return str(dict(Game.Phase.choices).get(match.race.phase.value, match.race.phase.value))


def game_place(*, user: Any, game_id: int, ply: int | None, cell: tuple[int, int], heading: int,
               idempotency_key: str | None = None) -> dict[str, Any]:
    """R5, R16: place your boat on a free start cell with a heading."""

    def decide(game: Game, seat: Seat, match: Match, now: datetime) -> Step:
        race = match.race
        if race.phase is not Phase.PLACE:
            raise IllegalMoveError(_("the boats are already placed"), "cell", race.rules.placing_rule)
        where = (int(cell[0]), int(cell[1]))
        new = engine_step(lambda: match.place(where, heading))
        assert seat.index is not None
        row = place_row(game, user, seat.index, Placement(race.to_move, seat.color, where, heading), match.ply,
                        _race(match), now)
        return Step(new, (row,), {"placement": placement_json(row, seat.color)})

    return _play(user=user, game_id=game_id, ply=ply, action="place", idempotency_key=idempotency_key, decide=decide)


def game_roll(*, user: Any, game_id: int, ply: int | None, choice: DiceChoice,
              idempotency_key: str | None = None) -> dict[str, Any]:
    """R6: choose dice and roll them (server-side, from the game's committed seed). When only
    one direction is then allowed the move is made at once (R7): its roll and its turn are
    recorded together."""

    def decide(game: Game, seat: Seat, match: Match, now: datetime) -> Step:
        if match.race.phase is not Phase.DICE:
            raise IllegalMoveError(_("the game awaits %(value)s, not a dice choice") % {"value": _awaits(match)},
                                   "change", "R6")
        before, race = match.ply, _race(match)
        assert seat.index is not None
        dice = SeededDice(bytes.fromhex(game.dice_seed), before)
        new, move = engine_step(lambda: match.choose_dice(choice, dice))
        if move is not None:
            rows = (roll_row(game, user, seat.index, seat.color, move.number, move.choice, move.dice_before,
                             move.rolled, move.dice, before, race, now),
                    turn_row(game, user, seat.index, move, before + 1, race, now))
            return Step(new, rows, {"rolled": list(move.rolled), "dice": list(move.dice), **_turn_answer(move, rows[1])})
        pending = new.race.pending
        assert pending is not None
        row = roll_row(game, user, seat.index, seat.color, new.race.boat.moves + 1, pending.choice,
                       pending.dice_before, pending.rolled, pending.dice, before, race, now)
        return Step(new, (row,), {"rolled": list(pending.rolled), "dice": list(pending.dice), "move": None,
                                  "options": [option_json(o) for o in new.race.options()]})

    return _play(user=user, game_id=game_id, ply=ply, action="roll", idempotency_key=idempotency_key, decide=decide)


def game_choose_direction(*, user: Any, game_id: int, ply: int | None, direction: int,
                          idempotency_key: str | None = None) -> dict[str, Any]:
    """R7: move in one of the allowed directions (R17: passing boats)."""

    def decide(game: Game, seat: Seat, match: Match, now: datetime) -> Step:
        if match.race.phase is not Phase.DIRECTION:
            raise IllegalMoveError(_("the game awaits %(value)s, not a direction: roll first") % {"value": _awaits(match)},
                                   "direction", "R7")
        before = match.ply
        new, move = engine_step(lambda: match.choose_direction(direction))
        assert seat.index is not None and move is not None
        row = turn_row(game, user, seat.index, move, before, _race(match), now)
        return Step(new, (row,), _turn_answer(move, row))

    return _play(user=user, game_id=game_id, ply=ply, action="direction", idempotency_key=idempotency_key,
                 decide=decide)


def game_resign(*, user: Any, game_id: int, idempotency_key: str | None = None) -> dict[str, Any]:
    """Give up, at any time, on either turn, also between a roll and its direction (the roll
    stays in the history). A two-player game is lost (R14: points already scored stand); in a
    series the boat is lifted off and the others play on (R18)."""

    def decide(game: Game, seat: Seat, match: Match, now: datetime) -> Step:
        assert seat.index is not None
        index = seat.index
        new = engine_step(lambda: match.resign(index))
        row = end_row(game, user, index, seat.color, Termination.RESIGN, match.ply, _race(match), now)
        return Step(new, (row,), {})

    return _play(user=user, game_id=game_id, ply=None, action="resign", idempotency_key=idempotency_key,
                 decide=decide, any_turn=True)


def _time_out(game: Game, seats: Sequence[Seat], now: datetime) -> Step:
    """The player to move ran out of time (the caller checked the deadline): they lose the
    two-player game, or leave the series (R18)."""
    match = rules_of(game).match_of(game, seats)
    loser = game.seat_at(game.to_move)
    assert loser is not None and loser.index is not None
    row = end_row(game, loser.user, loser.index, loser.color, Termination.TIMEOUT, match.ply, _race(match), now)
    return Step(match.time_out(loser.index), (row,), {})


# --- plans for the dice (games/plans.py) ------------------------------------------------------------


PLANS_IN_A_ROW = 24  # every player's plan plays at most two turns: a bound, not a limit anyone meets


def _lost_on_time(game: Game, seats: list[Seat], now: datetime, *, vacation: bool) -> None:
    """The player to move is past their deadline (the one place that says what follows, for an
    action, the sweep and an adjudication alike): unless a vacation day is taken for them
    (``vacation``: :class:`_TakeVacation` is raised, and the caller, out of the lock, takes it and
    looks again), they lose on time — the game, or their place in a series (R18) — recorded through
    the one path; then the plan of whoever is to move now plays."""
    if vacation:
        _vacation_due(game)
    step = _time_out(game, seats, now)
    _record(game, seats, step, now)
    _play_plans(game, seats, step.match, now)


def _play_plans(game: Game, seats: list[Seat], match: Match, now: datetime) -> None:
    """After an action, in its transaction: while the player to move has a plan for this turn
    (``Seat.planned``, read with the game: no query otherwise), the site plays it, as the player
    would: the planned dice choice rolled from the committed seed at this ply, then the planned
    way if R7 allows it (careful: and it neither crashes nor sinks). Otherwise it stops after the
    roll: the player chooses the way, and is told it is their turn. Each step is recorded as the
    player's own (marked ``planned``) through the one path (:func:`_record`)."""
    for _turn in range(PLANS_IN_A_ROW):
        if game.status != Game.Status.ACTIVE or game.to_move is None:
            return
        seat = game.seat_at(game.to_move)
        if seat is None or not seat.planned:
            return
        plan = Plan.objects.select_for_update().filter(game=game, seat=game.to_move).first()
        playing = plans.due(plan, game, match, seat) if plan is not None else None
        if playing is not None and playing.rest is not None and plan is not None:
            plan.turns, plan.turn = playing.rest, plan.turn + 1  # the turn after waits for its turn
            plan.save(update_fields=["turns", "turn", "updated_at"])
        else:  # used up now, or stale (a race ended, the player moved in between)
            Plan.objects.filter(game=game, seat=game.to_move).delete()
            Seat.objects.filter(pk=seat.pk).update(planned=False)
            seat.planned = False
        if playing is None:
            return
        assert seat.index is not None
        before, race = match.ply, _race(match)
        try:
            new, move = match.choose_dice(playing.turn.choice, SeededDice(bytes.fromhex(game.dice_seed), before))
        except EngineError:  # the dice choice no longer fits: the player plays the turn
            return
        if move is not None:  # R7: one way only, taken at once
            rows = (roll_row(game, seat.user, seat.index, seat.color, move.number, move.choice, move.dice_before,
                             move.rolled, move.dice, before, race, now),
                    turn_row(game, seat.user, seat.index, move, before + 1, race, now))
        else:
            pending = new.race.pending
            assert pending is not None
            roll = roll_row(game, seat.user, seat.index, seat.color, new.race.boat.moves + 1, pending.choice,
                            pending.dice_before, pending.rolled, pending.dice, before, race, now)
            direction = plans.stop_after_roll(playing.turn, new.race)
            if direction is None:  # stop: the roll stays, the player chooses the way
                roll.planned = True
                _record(game, seats, Step(new, (roll,), {}), now)
                if playing.rest is not None:
                    Plan.objects.filter(game=game, seat=game.to_move).delete()
                    Seat.objects.filter(pk=seat.pk).update(planned=False)
                    seat.planned = False
                notifications.record(notifications.your_turn(game), hold=notifications.your_turn_hold(),
                                     push_hold=notifications.your_turn_push_hold())
                return
            new, move = new.choose_direction(direction)
            assert move is not None
            rows = (roll, turn_row(game, seat.user, seat.index, move, before + 1, race, now))
        for row in rows:
            row.planned = True
        _record(game, seats, Step(new, rows, {}), now)
        match = new


# --- the clock: time-outs, reminders (docs/clocks.md) ------------------------------------------


def game_time_out(*, game_id: int, now: datetime | None = None, vacation: bool = True) -> bool:
    """The player to move is past the deadline: they lose on time (the sweep: the backstop for
    players who never come back; an action after the deadline does the same itself).

    Safe to run twice or from two workers at once, and against a move arriving at the same
    moment: the game row is locked and the deadline checked again, so either the move or
    the time-out happens, never both. Returns whether this call acted. A player who lets the site
    take their vacation days gets one instead, while days are left (games.vacations)."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            found = game_and_seats(game_id, lock=True)
            if found is None:
                return False
            game, seats = found
            if not clock.expired(game, now):
                return False
            _lost_on_time(game, seats, now, vacation=vacation)
            return True
    except _TakeVacation as due:
        taken = vacations.take_automatic(user_id=due.user_id, game_id=game_id, now=now)
        return game_time_out(game_id=game_id, now=now, vacation=False) or taken


def game_remind(*, game_id: int, now: datetime | None = None) -> bool:
    """Send the reminder of the current turn (once per turn); returns whether this call did."""
    now = now or timezone.now()
    with transaction.atomic():
        found = game_and_seats(game_id, lock=True)
        if found is None:
            return False
        game, _seats = found
        if game.status != Game.Status.ACTIVE or game.reminder_at is None or game.reminder_at > now \
                or game.turn_started_at is None:
            return False
        if game.reminder_sent_at is not None and game.reminder_sent_at >= game.turn_started_at:
            return False
        game.reminder_sent_at = now
        game.reminder_at = None  # out of the sweep's index until the next turn
        game.save(update_fields=["reminder_sent_at", "reminder_at"])
        notifications.record(notifications.reminder(game))
        return True


def game_adjudicate(*, game_id: int, now: datetime | None = None, vacation: bool = True) -> bool:
    """End an unfinished two-player game at a tournament round's deadline by the documented rule
    (points, then buoys, then damage). A clock that ran out before the deadline decides
    first: that game is lost on time. Safe to run twice; returns whether this call ended it."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            found = game_and_seats(game_id, lock=True)
            if found is None:
                return False
            game, seats = found
            if game.status != Game.Status.ACTIVE:
                return False
            if clock.expired(game, now):
                _lost_on_time(game, seats, now, vacation=vacation)
                return True
            match = rules_of(game).match_of(game, seats)
            new = engine_step(match.adjudicate)
            row = end_row(game, None, game.to_move or 0, None, Termination.ADJUDICATION, match.ply, _race(match),
                          now)
            _record(game, seats, Step(new, (row,), {}), now)
            return True
    except _TakeVacation as due:
        vacations.take_automatic(user_id=due.user_id, game_id=game_id, now=now)
        return game_adjudicate(game_id=game_id, now=now, vacation=False)
