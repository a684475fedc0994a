"""Computer players: expectimax over the dice, on the route distance of a course.

Levels (``make_player``):

* ``easy``   — :class:`~games.engine.players.GreedyPlayer`: one roll ahead, simple prices.
* ``normal`` — :class:`ExpectimaxPlayer` with depth 1: for every dice choice the exact chance of
  every total (dice are 1–3), the best allowed direction for each, valued by the route map.
* ``strong`` — depth 2: after each possible roll and direction, the best expected value of the
  *next* turn as well, with the exact dice then held (so it plans its speed and avoids being
  caught with too many dice in narrow water).

Values are in "moves": the route map's distance to the finish (single-cell moves round the
buoys through their gates, computed once per course) divided by a typical speed, minus a
price for damage that grows as the boat nears sinking (R12), which is priced as a loss.
The opponent is treated as standing still (it only matters for passing, R8).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from math import factorial

from .course import Course
from .dice import DiceChoice, distinct_choices
from .hexgrid import Hex
from .players import GreedyPlayer, Player, RandomPlayer
from .route import UNREACHABLE, MoveMap, RouteMap
from .rules import SINKING_DAMAGE, Boat, GameState, previews

SPEED = 1.0  # cells of distance worth a tenth of a move (breaks ties between equal move counts)
DAMAGE_PRICE = (0.0, 0.6, 1.6, 4.0)  # in moves, for holding 0..3 damage
NO_DICE_PRICE = 1.5  # a boat that lost its dice restarts slowly (and turns on the spot)
WIN = 1000.0


@cache
def roll_outcomes(count: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every multiset of ``count`` 1–2–3 dice with its exact probability."""
    out = []
    for combo in itertools.combinations_with_replacement((1, 2, 3), count):
        c = Counter(combo)
        ways = factorial(count)
        for v in c.values():
            ways //= factorial(v)
        out.append((combo, float(Fraction(ways, 3**count))))
    return tuple(out)


class ExpectimaxPlayer:
    """Expectimax over dice choices and rolls, ``depth`` turns of this boat deep."""

    def __init__(self, depth: int = 2, rng: random.Random | None = None, route: RouteMap | None = None,
                 moves: MoveMap | None = None, no_dice_price: float = NO_DICE_PRICE) -> None:
        self.depth = depth
        self.no_dice_price = no_dice_price
        self.rng = rng or random.Random()
        self.route = route
        self.moves = moves

    # --- evaluation -------------------------------------------------------------------

    def _route(self, course: Course) -> RouteMap:
        if self.route is None or self.route.course is not course:
            self.route = RouteMap(course)
        return self.route

    def _moves(self, course: Course) -> MoveMap:
        if self.moves is None or self.moves.course is not course:
            self.moves = MoveMap(course)
        return self.moves

    def value(self, course: Course, boat: Boat) -> float:
        """Minus the moves still needed (cells break ties), minus the price of damage."""
        if boat.finished:
            return WIN - boat.damage
        if boat.sunk or boat.damage >= SINKING_DAMAGE:
            return -WIN
        assert boat.cell is not None
        entry = boat.entries[boat.next_buoy - 1] if boat.next_buoy <= 3 else 0
        args = (boat.next_buoy, boat.cell, boat.heading, entry, boat.count)
        moves = self._moves(course).distance(*args)
        if moves >= UNREACHABLE:
            return -WIN / 2
        cells = self._route(course).distance(*args)
        value = -moves - cells / (SPEED * 10) - DAMAGE_PRICE[boat.damage]
        if not boat.dice:
            value -= self.no_dice_price
        return value

    # --- search -----------------------------------------------------------------------

    def _after(self, course: Course, boats: Sequence[Boat], seat: int, total: int,
               memo: dict[tuple[object, ...], list[tuple[int, Boat, bool]]]) -> list[tuple[int, Boat, bool]]:
        """The allowed moves with a total: (direction, boat after, crashed)."""
        boat = boats[seat]
        key = (boat.cell, boat.heading, boat.damage, boat.next_buoy, boat.count, boat.entries, total)
        found = memo.get(key)
        if found is None:
            found = [(o.direction, b, o.crash) for b, o in previews(course, boats, seat, total) if o.allowed]
            if total == 0:
                # speed 0 straight on changes nothing and only repeats this decision: turn instead
                found = [f for f in found if f[0] != boat.heading]
            memo[key] = found
        return found

    def _turn(self, course: Course, boats: Sequence[Boat], seat: int, depth: int,
              memo: dict[tuple[object, ...], list[tuple[int, Boat, bool]]],
              vmemo: dict[tuple[object, ...], float]) -> tuple[float, DiceChoice | None]:
        """Best expected value from a dice step, and the choice that gets it."""
        boat = boats[seat]
        key = (boat.cell, boat.heading, boat.damage, boat.next_buoy, boat.count, boat.entries,
               tuple(sorted(boat.dice)), boat.moves == 0, depth)
        best_choice: DiceChoice | None = None
        best = float("-inf")
        totals: dict[int, float] = {}
        for choice in distinct_choices(boat.dice, boat.moves == 0):
            kept = choice.kept_values(boat.dice)
            expected = 0.0
            if depth <= 1:
                # only the total matters at the last level (and whether the dice survive)
                for total, chance in choice.distribution(boat.dice).items():
                    if total not in totals:
                        totals[total] = max(self._leaf(course, boats, seat, b, total, crash, memo)
                                            for _, b, crash in self._after(course, boats, seat, total, memo))
                    expected += float(chance) * totals[total]
            else:
                for rolled, p in roll_outcomes(choice.rolls):
                    dice = tuple(sorted(kept + rolled))
                    total = sum(dice)
                    options = self._after(course, boats, seat, total, memo)
                    expected += p * max(self._deeper(course, boats, seat, b, crash, dice, depth, memo, vmemo)
                                        for _, b, crash in options)
            if expected > best + 1e-9:
                best, best_choice = expected, choice
        if depth > 1:
            vmemo[key] = best
        return best, best_choice

    def _leaf(self, course: Course, boats: Sequence[Boat], seat: int, after: Boat, total: int, crash: bool,
              memo: object) -> float:
        return self.value(course, after if crash else _with_dice(after, (total,) if total else ()))

    def _deeper(self, course: Course, boats: Sequence[Boat], seat: int, after: Boat, crash: bool,
                dice: tuple[int, ...], depth: int, memo: dict[tuple[object, ...], list[tuple[int, Boat, bool]]],
                vmemo: dict[tuple[object, ...], float]) -> float:
        held = () if crash else dice
        boat = _with_dice(after, held)
        if boat.finished or boat.sunk:
            return self.value(course, boat)
        key = (boat.cell, boat.heading, boat.damage, boat.next_buoy, boat.count, boat.entries, tuple(sorted(held)),
               boat.moves == 0, depth - 1)
        if key in vmemo:
            return vmemo[key]
        nxt = list(boats)
        nxt[seat] = boat
        value, _ = self._turn(course, nxt, seat, depth - 1, memo, vmemo)
        vmemo[key] = value
        return value

    # --- the Player protocol ----------------------------------------------------------

    def place(self, state: GameState) -> tuple[Hex, int]:
        return GreedyPlayer(self.rng, self._route(state.course)).place(state)

    def dice(self, state: GameState) -> DiceChoice:
        _, choice = self._turn(state.course, state.boats, state.to_move, self.depth, {}, {})
        assert choice is not None
        return choice

    def direction(self, state: GameState) -> int:
        assert state.pending is not None
        memo: dict[tuple[object, ...], list[tuple[int, Boat, bool]]] = {}
        vmemo: dict[tuple[object, ...], float] = {}
        dice = tuple(sorted(state.pending.dice))
        best_direction, best = state.allowed_directions()[0], float("-inf")
        for boat, option in state.direction_previews():
            if not option.allowed or (option.total == 0 and option.direction == state.boat.heading):
                continue
            if self.depth <= 1:
                value = self.value(state.course, boat if option.crash else _with_dice(boat, dice))
            else:
                value = self._deeper(state.course, state.boats, state.to_move, boat, option.crash, dice,
                                     self.depth, memo, vmemo)
            if value > best + 1e-9:
                best, best_direction = value, option.direction
        return best_direction


def _with_dice(boat: Boat, dice: tuple[int, ...]) -> Boat:
    return boat.with_dice(dice)


LEVELS = ("easy", "normal", "strong")


def make_player(level: str, rng: random.Random | None = None, route: RouteMap | None = None) -> Player:
    """A computer player of a level: easy, normal or strong (or random, for measuring)."""
    rng = rng or random.Random()
    if level == "random":
        return RandomPlayer(rng)
    if level == "easy":
        return GreedyPlayer(rng, route)
    if level == "normal":
        return ExpectimaxPlayer(1, rng, route, no_dice_price=1.5)
    if level == "strong":
        # looking a turn further, it sees for itself how slowly a boat without dice restarts
        return ExpectimaxPlayer(2, rng, route, no_dice_price=0.5)
    raise ValueError(f"unknown level {level!r}: use {', '.join(LEVELS)}")
