"""Writes for Swiss tournaments (docs/tournaments.md). Every function owns its transaction;
those that move a tournament along lock its row first, so a task that runs twice or two
workers at once pair a round once."""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.names import validate_display_name
from common.errors import Conflict, NotAPlayer, NotFound, ServiceError
from games import clock
from games import services as game_services
from games.engine import new_course
from games.models import COLORS, Game
from games.ratings import glicko2
from games.state import course_data

from .models import Entry, GroupPlayer, Registration, Round, Tournament
from .pairing import PairingError, pair
from .selectors import rating_of, tournament_standings, tournament_trf
from .standings import parse_order

log = logging.getLogger(__name__)

MAX_DAYS = 365  # a round's deadline at most this many days after it is paired (round-robins: the same)
User = get_user_model()
PLAYED = {"1", "0", "="}


# --- setting up ---------------------------------------------------------------------------


def check_clock(fields: dict[str, Any]) -> None:
    """An event's clock, as a challenge's (games.services.clock_fields), stored as it is checked
    (a capped bank has no days per move)."""
    terms = {name: fields[name] for name in clock.TERMS if name in fields}
    fields.update(game_services.clock_fields(fields.get("days_per_move", 3), fields.get("grace_days", 7), terms))


def _check(fields: dict[str, Any]) -> None:
    if not fields.get("name", "").strip():
        raise ServiceError(_("a tournament needs a name"), "name")
    try:
        validate_display_name(fields["name"])  # no control characters (they broke every pairing email)
    except DjangoValidationError as exc:
        raise ServiceError(f"name: {' '.join(exc.messages)}", "name") from None
    if not 1 <= fields.get("rounds", 5) <= 30:
        raise ServiceError(_("rounds must be 1 to 30"), "rounds")
    check_days(fields, "round_days")
    check_clock(fields)
    if fields.get("lake_side", "standard") not in ("standard", "expert"):
        raise ServiceError(_("lake side must be standard or expert"), "lake_side", "R2")
    if fields["registration_closes_at"] > fields["starts_at"]:
        raise ServiceError(_("registration must close before the start"), "registration_closes_at")
    if not 2 <= fields.get("min_players", 4) <= fields.get("max_players", 1000):
        raise ServiceError(_("at least 2 players, and no more than the maximum"), "min_players")
    if fields.get("late_entry_until_round", 0) > fields.get("rounds", 5):
        raise ServiceError(_("late entries can only be allowed up to the last round"), "late_entry_until_round")
    if "tiebreaks" in fields:
        try:
            fields["tiebreaks"] = " ".join(parse_order(fields["tiebreaks"] or ""))
        except ValueError as exc:
            raise ServiceError(str(exc), "tiebreaks") from None


def check_days(fields: dict[str, Any], *names: str) -> None:
    """Each of these deadlines, in days (a Swiss round's; a round-robin's), is 1 to ``MAX_DAYS``."""
    for name in names:
        if not 1 <= fields.get(name, 30) <= MAX_DAYS:
            raise ServiceError(_("%(value)s must be 1 to %(MAX_DAYS)s") % {"value": name.replace("_", " "), "MAX_DAYS": MAX_DAYS},
                               name)


@transaction.atomic
def tournament_create(*, director: Any, invited: list[Any] | None = None, **fields: Any) -> Tournament:
    _check(fields)
    tournament = Tournament.objects.create(director=director, **fields)
    if invited:
        tournament.invited.set(invited)
    return tournament


def _locked(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFound(_("no tournament %(tournament_id)s") % {"tournament_id": tournament_id}, "tournament")
    return tournament


def _rating(user: Any) -> float:
    rating = rating_of(user)
    return rating.rating if rating else glicko2.DEFAULT_RATING


@transaction.atomic
def tournament_register(*, user: Any, tournament_id: int, now: datetime | None = None) -> Registration:
    """Join before the start, or late (if allowed) up to the configured round."""
    now = now or timezone.now()
    t = _locked(tournament_id)
    if t.entry == Tournament.Entry.INVITED and not t.invited.filter(pk=user.pk).exists() and user.pk != t.director_id:
        raise NotAPlayer(_("this tournament is by invitation only"), "tournament")
    if t.registrations.filter(user=user).exists():
        raise Conflict(_("you are registered already"), "tournament")
    if t.registrations.count() >= t.max_players:
        raise Conflict(_("the tournament is full (%(max_players)s players)") % {"max_players": t.max_players}, "tournament")
    if t.status == Tournament.Status.REGISTRATION:
        if now > t.registration_closes_at:
            raise Conflict(_("registration is closed"), "tournament")
        return Registration.objects.create(tournament=t, user=user, rating=_rating(user))
    if t.status != Tournament.Status.RUNNING:
        raise Conflict(_("the tournament is %(status)s") % {"status": t.status}, "tournament")
    joining = t.current_round + 1
    if joining > t.late_entry_until_round:
        raise Conflict(_("late entries were possible up to round %(late_entry_until_round)s") % {"late_entry_until_round": t.late_entry_until_round}, "tournament")
    registration = Registration.objects.create(tournament=t, user=user, rating=_rating(user), joined_round=joining)
    code = "H" if t.late_entry_byes == Tournament.ByePoints.HALF else "Z"
    for rnd in t.round_set.filter(number__lt=joining):
        Entry.objects.create(round=rnd, registration=registration, code=code)
    return registration


@transaction.atomic
def tournament_withdraw(*, user: Any, tournament_id: int, by_director: Any = None) -> None:
    """Before the start the registration goes; during the tournament the player gets no further
    pairings and their results stand (a game under way is played out). ``by_director`` removes."""
    t = _locked(tournament_id)
    registration = t.registrations.filter(user=user).first()
    if registration is None:
        raise NotFound(_("%(user)s is not in this tournament") % {"user": user}, "player")
    if by_director is not None and by_director.pk != t.director_id:
        raise NotAPlayer(_("only the director can remove a player"), "player")
    if t.status == Tournament.Status.REGISTRATION:
        registration.delete()
        return
    if t.status != Tournament.Status.RUNNING:
        raise Conflict(_("the tournament is %(status)s") % {"status": t.status}, "tournament")
    registration.withdrawn_after = t.current_round
    registration.removed = by_director is not None
    registration.save(update_fields=["withdrawn_after", "removed"])


@transaction.atomic
def tournament_set_bye(*, director: Any, tournament_id: int, user: Any, round_number: int) -> Registration:
    """A requested bye for a round not yet paired (scored as configured: ½ or 0)."""
    t = _locked(tournament_id)
    if director.pk != t.director_id:
        raise NotAPlayer(_("only the director can set a bye"), "player")
    registration = t.registrations.filter(user=user).first()
    if registration is None:
        raise NotFound(_("%(user)s is not in this tournament") % {"user": user}, "player")
    if not t.current_round < round_number <= t.rounds:
        raise ServiceError(_("a bye can be set for rounds %(value)s to %(rounds)s") % {"value": t.current_round + 1, "rounds": t.rounds}, "round")
    if round_number not in registration.byes:
        registration.byes = sorted([*registration.byes, round_number])
        registration.save(update_fields=["byes"])
    return registration


# --- running it -----------------------------------------------------------------------------


def _new_round(t: Tournament, number: int, now: datetime) -> Round:
    """Pair round ``number`` from the TRF of the closed rounds; the engine gets the colour drawn
    at the start (``first_color``) in that TRF."""
    data, by_number = tournament_trf(t)
    absent: dict[int, str] = {}
    bye_code = "H" if t.requested_bye_points == Tournament.ByePoints.HALF else "Z"
    for start_number, reg in by_number.items():
        if not reg.plays_in(number):
            absent[start_number] = "Z"
        elif number in reg.byes:
            absent[start_number] = bye_code
    playing = [n for n in by_number if n not in absent]
    course = course_data(new_course(t.lake_side)) if t.course_mode == Tournament.CourseMode.DUPLICATE else None
    rnd = Round.objects.create(tournament=t, number=number, paired_at=now, deadline=now + timedelta(days=t.round_days),
                               course=course)
    for start_number, code in absent.items():
        Entry.objects.create(round=rnd, registration=by_number[start_number], code=code)
    if len(playing) == 1:  # a lone player gets the pairing bye
        Entry.objects.create(round=rnd, registration=by_number[playing[0]], code="U")
    elif playing:
        result = pair(data, absent)
        if result.bye is not None:
            Entry.objects.create(round=rnd, registration=by_number[result.bye], code="U")
        for board, (white, black) in enumerate(result.boards, 1):
            red, yellow = by_number[white], by_number[black]
            game = game_services.game_create(
                yellow=yellow.user, red=red.user, lake_side=t.lake_side, days_per_move=t.days_per_move,
                grace_days=t.grace_days, vacation_allowed=t.vacation_allowed, rated=t.rated, course_json=course,
                terms=clock.terms(t),
            )
            Entry.objects.create(round=rnd, registration=red, board=board, opponent=yellow, color="w", game=game)
            Entry.objects.create(round=rnd, registration=yellow, board=board, opponent=red, color="b", game=game)
            for reg, other, color in ((red, yellow, "red"), (yellow, red, "yellow")):
                transaction.on_commit(partial(_tell_pairing, t, number, reg, other, color, game))
    t.current_round = number
    t.save(update_fields=["current_round"])
    return rnd


def _tell_pairing(t: Tournament, number: int, reg: Registration, other: Registration, color: str, game: Game) -> None:
    from games.notifications.notices import notify

    notify(reg.user, "pairing", f"tournament:{t.pk}:round:{number}", {
        "game": game.pk, "round": number, "tournament_name": t.name, "opponent_name": other.user.username,
        "color": color.capitalize(),
    })


def tournament_start(*, tournament_id: int, now: datetime | None = None) -> bool:
    """At the start time: cancel if too few players, else rank, draw colours and pair round 1."""
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status != Tournament.Status.REGISTRATION or t.starts_at > now:
            return False
        registrations = list(t.registrations.all())
        if len(registrations) < t.min_players:
            t.status = Tournament.Status.CANCELLED
            t.save(update_fields=["status"])
            return True
        for r in registrations:  # the ranking uses the ratings at the start
            r.rating = _rating(r.user)
            r.save(update_fields=["rating"])
        t.status = Tournament.Status.RUNNING
        t.started_at = now
        t.first_color = secrets.choice("wb")  # the initial colour, by lot (C.04.3); the engine is given it
        t.save(update_fields=["status", "started_at", "first_color"])
        try:
            _new_round(t, 1, now)
        except PairingError as exc:
            log.error("tournament %s: %s", t.pk, exc)
            raise
        return True


def _result_code(game: Game, side: Registration | GroupPlayer) -> str:
    """The game's result code (TRF: 1, 0, =, + or -) from the side of ``side``'s player."""
    seat = 0 if game.player_id(0) == side.user_id else 1
    if not game.winner_color:
        return "="
    won = game.winner_color == COLORS[seat]
    if game.termination == "timeout":
        loser = game.seat_at(1 - COLORS.index(game.winner_color))
        if loser is not None and loser.moves == 0:  # the loser never moved: a forfeit
            return "+" if won else "-"
    return "1" if won else "0"


def record_results(rnd: Round) -> int:
    """Copy the results of the round's finished games into its entries; returns how many are open."""
    open_games = 0
    for entry in rnd.entries.select_related("game", "registration").filter(code=""):
        game = entry.game
        if game is None:
            continue
        game.refresh_from_db()
        if not game.over:
            open_games += 1
            continue
        entry.code = _result_code(game, entry.registration)
        entry.save(update_fields=["code"])
    return open_games


def tournament_advance(*, tournament_id: int, now: datetime | None = None) -> str:
    """Move a running tournament along: close the current round when its games are over (or
    adjudicate them at the deadline), then pair the next one (at once or at its scheduled time),
    or finish after the last. Safe to run any number of times. Returns what it did."""
    now = now or timezone.now()
    with transaction.atomic():
        t = _locked(tournament_id)
        if t.status != Tournament.Status.RUNNING:
            return "nothing"
        rnd = t.round_set.filter(number=t.current_round).first()
        if rnd is None:
            return "nothing"
        if rnd.status == Round.Status.PAIRED:
            if record_results(rnd):
                if now < rnd.deadline:
                    return "waiting"
                for game_id in rnd.entries.filter(code="", game__isnull=False).values_list("game_id", flat=True):
                    assert game_id is not None  # game__isnull=False
                    game_services.game_adjudicate(game_id=game_id, now=now)
                record_results(rnd)
            rnd.status = Round.Status.CLOSED
            rnd.closed_at = now
            rnd.save(update_fields=["status", "closed_at"])
            if rnd.number >= t.rounds:
                _finish(t, now)
                return "finished"
        scheduled = t.starts_at + timedelta(days=t.round_days) * rnd.number
        if not t.pair_at_once and now < scheduled:
            return "closed"
        try:
            with transaction.atomic():  # a savepoint: a round that cannot be paired leaves nothing behind
                _new_round(t, rnd.number + 1, now)
        except PairingError as exc:
            # no legal pairing (e.g. every pairing left would repeat a game, C.04.3's absolute
            # criteria): the tournament ends with the rounds played
            log.warning("tournament %s ends after round %s: %s", t.pk, rnd.number, exc)
            _finish(t, now)
            return "finished"
        return "paired"


def _finish(t: Tournament, now: datetime) -> None:
    t.status = Tournament.Status.FINISHED
    t.finished_at = now
    t.save(update_fields=["status", "finished_at"])
    transaction.on_commit(lambda: _tell_winners(t.pk))


def _tell_winners(tournament_id: int) -> None:
    from games.notifications.notices import notify

    t = Tournament.objects.get(pk=tournament_id)
    table = tournament_standings(t)
    podium = ", ".join(f"{row.rank}. {row.registration.user.username} ({row.score:g})" for row in table[:3])
    for row in table:
        notify(row.registration.user, "tournament_over", f"tournament:{t.pk}:over",
               {"tournament": t.pk, "tournament_name": t.name, "rank": row.rank, "score": row.score, "podium": podium,
                "players": len(table)})


def tournament_tick(*, now: datetime | None = None) -> dict[str, int]:
    """The beat task's work: start tournaments that are due, move running ones along."""
    now = now or timezone.now()
    done = {"started": 0, "advanced": 0}
    for tid in Tournament.objects.filter(status=Tournament.Status.REGISTRATION, starts_at__lte=now).values_list(
        "pk", flat=True
    ):
        done["started"] += on_its_own(tournament_start, "tournament", tid, False, tournament_id=tid, now=now)
    for tid in Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("pk", flat=True):
        result = on_its_own(tournament_advance, "tournament", tid, "failed", tournament_id=tid, now=now)
        done["advanced"] += result in ("paired", "finished", "closed")
    return done


def on_its_own(step: Any, what: str, pk: int, failed: Any, **kwargs: Any) -> Any:
    """One event's step of a beat task (each owns its transaction): an error in one is logged with
    its traceback and the task goes on to the others, so that one broken event does not hold up
    every other event's rounds and deadlines. It is tried again at the next beat."""
    try:
        return step(**kwargs)
    except Exception:
        log.exception("the beat could not move %s %s along; the others go on", what, pk)
        return failed
