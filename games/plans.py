"""Plans for the dice (issue 27): a player answers their next turn in advance, and the site plays
it when the turn comes (docs/plans.md).

A plan is the dice choice of the turn (R6: keep, add or remove a die, which to re-roll) and, for
each total that choice can give, a way — 60° left, straight on, 60° right (R7: relative to the
boat's heading then) — or "ask me"; ``careful`` asks the player too when the planned way would
crash or sink the boat (R9, R12). Optionally the same for the turn after. A plan can be made,
changed or cancelled any time before its turn (on the opponents' turns; not while it is the
player's own turn: they play that one).

When the turn passes to a player with a plan (``Seat.planned``, read with the game: the move
path looks a plan up only when there is one), the site plays it in the same transaction
(:func:`play_plans`, called by games.services): it rolls from the game's committed seed exactly
as the player's own roll would, then takes the planned way if R7 allows it, else stops, keeps
the roll, and waits for the player to choose (who is told it is their turn, as usual). The moves
are recorded as the player's, marked ``planned``; the clock charges the turn nothing.

Nothing of a plan is shown to anyone but its player — not its existence either — until it has
played, and a plan never reveals a die before it is rolled: the dice are rolled only at the turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from common.errors import Conflict, NotAPlayer, NotFound, ServiceError
from games.engine import Change, DiceChoice, EngineError, GameState, Phase
from games.engine.hexgrid import left, right
from games.engine.match import Match

from .loading import game_and_seats
from .models import Game, Plan, Seat
from .reasons import refusal_text
from .rulesets import rules_of
from .state import playing

WAYS = ("left", "straight", "right", "ask")
MAX_TURNS = 2  # this turn and the one after


@dataclass(frozen=True)
class PlannedTurn:
    """One turn of a plan: the dice choice, a way per total (``None``: ask me), careful or not."""

    choice: DiceChoice
    ways: Mapping[int, str | None]
    careful: bool = False

    def direction(self, heading: int, total: int) -> int | None:
        way = self.ways.get(total)
        if way is None:
            return None
        return {"left": left(heading), "straight": heading, "right": right(heading)}[way]

    def json(self) -> dict[str, Any]:
        return {"dice": {"change": self.choice.change.value, "remove": self.choice.remove,
                         "reroll": list(self.choice.reroll)},
                "ways": {str(t): (w or "ask") for t, w in sorted(self.ways.items())}, "careful": self.careful}


def turn_of(data: Mapping[str, Any]) -> PlannedTurn:
    dice = data["dice"]
    ways = {int(t): (None if w == "ask" else str(w)) for t, w in data.get("ways", {}).items()}
    return PlannedTurn(DiceChoice(Change(dice["change"]), dice.get("remove"), tuple(dice.get("reroll") or ())), ways,
                       bool(data.get("careful", False)))


# --- the planner's view -------------------------------------------------------------------------


def planner_state(match: Match, seat: Seat) -> GameState | None:
    """The race as it stands, seen as if it were ``seat``'s turn to roll: what their plan is made
    against (their dice, their heading, the boats as they are now). None when their boat is not
    on the water (not placed yet, finished, sunk, or gone from the series)."""
    race = match.race
    if race.over or race.phase is Phase.PLACE:
        return None
    try:
        index = race.seat_of(seat.color)
    except KeyError:
        return None
    boat = race.boats[index]
    if not boat.racing or boat.cell is None:
        return None
    return replace(race, to_move=index, phase=Phase.DICE, pending=None)


def _check_turn(data: Any, field: str, state: GameState | None) -> PlannedTurn:
    """One turn of a plan as sent (the API's and the page's shape), checked: against the dice the
    player holds (``state``: this turn), or for its shape only (the turn after: its dice are not
    known yet)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("dice"), Mapping):
        raise ServiceError(_("a planned turn needs its dice"), f"{field}.dice")
    dice = data["dice"]
    try:
        choice = DiceChoice(Change(dice.get("change")), dice.get("remove"), tuple(dice.get("reroll") or ()))
    except (ValueError, TypeError):
        raise ServiceError(_("change is keep, add or remove"), f"{field}.dice.change", "R6") from None
    if state is not None:
        try:
            choice.check(state.boat.dice, first_move=state.boat.moves == 0)
        except EngineError as exc:
            raise ServiceError(refusal_text(exc.code, exc.params, exc.message), f"{field}.dice.{exc.field or 'change'}",
                               "R6") from None
        possible = set(choice.distribution(state.boat.dice))
    else:
        if choice.change is Change.REMOVE or choice.reroll:
            raise ServiceError(_("the turn after can keep its dice or add one: which die it holds is not known yet"),
                               f"{field}.dice.change", "R6")
        possible = set(range(0, 13))
    ways = data.get("ways", {})
    if not isinstance(ways, Mapping):
        raise ServiceError(_("ways are an object of totals"), f"{field}.ways")
    parsed: dict[int, str | None] = {}
    for key, way in ways.items():
        if not str(key).isascii() or not str(key).isdigit() or int(key) not in possible:
            raise ServiceError(_("%(total)s is not a total this dice choice can give") % {"total": key},
                               f"{field}.ways")
        if way not in WAYS:
            raise ServiceError(_("a way is left, straight, right or ask"), f"{field}.ways.{key}", "R7")
        parsed[int(key)] = None if way == "ask" else way
    careful = data.get("careful", False)
    if not isinstance(careful, bool):
        raise ServiceError(_("careful is true or false"), f"{field}.careful")
    return PlannedTurn(choice, parsed, careful)


# --- writes: making, changing, cancelling --------------------------------------------------------


def _locked_seat(user: Any, game_id: int) -> tuple[Game, list[Seat], Seat]:
    found = game_and_seats(game_id, lock=True)
    if found is None:
        raise NotFound(_("no game %(game_id)s") % {"game_id": game_id}, "game")
    game, seats = found
    mine = next((s for s in playing(seats) if s.user_id == user.pk), None)
    if mine is None or mine.index is None:
        raise NotAPlayer(_("you do not play in this game"), "game")
    return game, seats, mine


@transaction.atomic
def plan_set(*, user: Any, game_id: int, turns: Any) -> Plan:
    """Make or change the player's plan for their next turn (``turns``: that turn, and optionally
    the one after, in the shape :meth:`PlannedTurn.json` gives)."""
    game, seats, mine = _locked_seat(user, game_id)
    if game.status != Game.Status.ACTIVE or mine.left:
        raise Conflict(_("the game is not being played"), "game")
    if game.to_move == mine.index:
        raise Conflict(_("it is your turn: play it (a plan is for a turn to come)"), "game")
    if not isinstance(turns, list) or not 1 <= len(turns) <= MAX_TURNS:
        raise ServiceError(_("a plan is this turn and, if you like, the one after"), "turns")
    match = rules_of(game).match_of(game, seats)
    state = planner_state(match, mine)
    if state is None:
        raise Conflict(_("your boat is not on the water: nothing to plan"), "game")
    checked = [_check_turn(turns[0], "turns.0", state)]
    if len(turns) > 1:
        checked.append(_check_turn(turns[1], "turns.1", None))
    plan, _created = Plan.objects.update_or_create(
        game=game, seat=mine.index, defaults={"user": user, "race": len(match.races) - 1,
                                              "turn": state.boat.moves + 1, "turns": [t.json() for t in checked]})
    if not mine.planned:
        Seat.objects.filter(pk=mine.pk).update(planned=True)
    return plan


@transaction.atomic
def plan_cancel(*, user: Any, game_id: int) -> None:
    _game, _seats, mine = _locked_seat(user, game_id)
    assert mine.index is not None
    if not Plan.objects.filter(game_id=game_id, seat=mine.index).delete()[0]:
        raise NotFound(_("you have no plan in this game"), "plan")
    Seat.objects.filter(pk=mine.pk).update(planned=False)


def plan_of(user: Any, game: Game) -> Plan | None:
    """The player's own plan in the game (nobody else's: a plan is private)."""
    seat = game.seat_of(user)
    if seat is None:
        return None
    return Plan.objects.filter(game=game, seat=seat, user_id=user.pk).first()


# --- playing a plan (inside the transaction of the action that gave the turn) ------------------


@dataclass(frozen=True)
class Playing:
    """What the site does with a plan now that its turn has come: the dice choice to roll with,
    then per total the direction to take or None (stop: the player chooses), and the plan left
    for the turn after (None: it is used up)."""

    turn: PlannedTurn
    rest: list[dict[str, Any]] | None


def due(plan: Plan, game: Game, match: Match, seat: Seat) -> Playing | None:
    """The plan's turn, if it is the one that has come (the same race, the boat's next move); else
    None (it is stale: a race ended, the player moved in between)."""
    race = match.race
    if race.phase is not Phase.DICE or plan.race != len(match.races) - 1:
        return None
    if race.boat.color != seat.color or race.boat.moves + 1 != plan.turn:
        return None
    turns = list(plan.turns)
    return Playing(turn_of(turns[0]), turns[1:] or None)


def stop_after_roll(turn: PlannedTurn, state: GameState) -> int | None:
    """After the planned roll (``state``: awaiting its direction): the planned direction if R7
    allows it (and, careful, it neither crashes nor sinks), else None: the player chooses."""
    assert state.pending is not None
    direction = turn.direction(state.boat.heading, state.pending.total)
    if direction is None or direction not in state.pending.allowed:
        return None
    if turn.careful:
        option = next(o for o in state.options() if o.direction == direction)
        if option.crash or option.sinks:
            return None
    return direction
