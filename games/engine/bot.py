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
In the online game the opponent is treated as standing still (it only matters for passing, R8).

In a race of the boxed game (:class:`~games.engine.race.RaceRules`, R15–R19) the same search is
valued in *points at stake* (:class:`Stakes`): the chance of beating each rival still on the
lake follows from the moves each still needs, so the bot knows the expected position and the
points it brings (R19), what sinking would cost, and, with the score variant, what each move
sooner is worth. Other boats are exact obstacles for the move being chosen (they may be passed
but not ended on, R17) and are taken as gone from where they stand for the turn after (they
will have moved); a move that ends where a close rival would like to end (blocking it: R17
makes it stop short) is preferred when all else is equal.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache
from math import factorial

from .course import Course
from .dice import DiceChoice, distinct_choices
from .hexgrid import Hex, left, right
from .players import GreedyPlayer, Player, RandomPlayer
from .race import RaceRules
from .route import UNREACHABLE, MapCache, MoveMap, RouteMap
from .rules import SINKING_DAMAGE, Boat, GameState, previews

SPEED = 1.0  # cells of distance worth a tenth of a move (breaks ties between equal move counts)
DAMAGE_PRICE = (0.0, 0.6, 1.6, 4.0)  # in moves, for holding 0..3 damage
NO_DICE_PRICE = 1.5  # a boat that lost its dice restarts slowly (and turns on the spot)
WIN = 1000.0

# races of the boxed game (Stakes)
SPREAD = 2.5  # moves: how uncertain the race between two boats is (the logistic's scale)
PROGRESS = 0.05  # points per move sooner, without the score variant (keeps a boat going when the race is decided)
VARIANT_PROGRESS = 1.0  # with the score variant a finisher scores one point per move before the last (R19)
SINK_MOVES = 20.0  # a sunk boat is valued as this many moves behind the slowest boat afloat (R12, R19)
MOST_MOVES = 60.0  # a boat further from the finish than this is as good as out of the race
BLOCK_POINTS = 0.05  # per close rival whose likely landing cell the move ends on (R17), times k


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


@dataclass
class Stakes:
    """What a race of the boxed game puts at stake for the boat to move (R18, R19), as seen
    when it chooses: ``n`` is R19's n (which boats count follows the race's rules version,
    :meth:`~games.engine.race.RaceRules.boats_counted`), positions score ``k`` per place below
    the last, ``taken`` positions are gone already, and each rival still on the lake needs about
    ``rivals[j]`` more moves. Values are in points."""

    n: int
    k: int
    taken: int
    rivals: list[float]
    progress: float  # points per move sooner
    moves_now: int  # the boat's move count when choosing
    block: dict[Hex, float] = field(default_factory=dict)  # landing cells of close rivals, and the bonus

    def value(self, boat: Boat, eta: float) -> float:
        """Expected points of the boat after a move of the search: its position points by the
        chance of finishing before each rival, less the moves it still needs (``eta``)."""
        if boat.finished:
            return self.k * (self.n - self.taken - 1) - self.progress * boat.moves
        if boat.sunk or boat.damage >= SINKING_DAMAGE:  # no position (R18), worse than the slowest boat afloat
            return -self.progress * (boat.moves + MOST_MOVES + SINK_MOVES)
        eta = min(eta, MOST_MOVES)
        ahead = boat.moves - self.moves_now - 1  # rivals' moves made since our first one in the search
        behind = 0.0  # expected number of rivals that finish before this boat
        for rival in self.rivals:
            # a rival needing as many moves finishes first: it moves before this boat's next turn
            behind += _logistic((eta - (rival - ahead) + 0.5) / SPREAD)
        position = self.taken + 1 + behind
        return self.k * (self.n - position) - self.progress * (boat.moves + eta)


def _logistic(x: float) -> float:
    if x < -30:
        return 0.0
    if x > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


Memo = dict[tuple[object, ...], list[tuple[int, Boat, bool]]]


@dataclass
class _Search:
    """One decision's search: the course, the seat, the memos; in a race the stakes, and the
    boats as they will be for this boat's later turns (the others gone from where they are)."""

    course: Course
    seat: int
    stakes: Stakes | None = None
    later: tuple[Boat, ...] | None = None
    memo: Memo = field(default_factory=dict)
    later_memo: Memo = field(default_factory=dict)
    values: dict[tuple[object, ...], float] = field(default_factory=dict)


class ExpectimaxPlayer:
    """Expectimax over dice choices and rolls, ``depth`` turns of this boat deep."""

    def __init__(self, depth: int = 2, rng: random.Random | None = None, route: RouteMap | None = None,
                 moves: MoveMap | None = None, no_dice_price: float = NO_DICE_PRICE,
                 maps: MapCache | None = None, race_aware: bool = True) -> None:
        self.depth = depth
        self.race_aware = race_aware  # False: value a race like the two-player game (for measuring)
        self.no_dice_price = no_dice_price
        self.rng = rng or random.Random()
        self.route = route
        self.moves = moves
        self.maps = maps

    # --- evaluation -------------------------------------------------------------------

    def _route(self, course: Course) -> RouteMap:
        if self.route is None or self.route.course is not course:
            self.route = self.maps.route(course) if self.maps else RouteMap(course)
        return self.route

    def _moves(self, course: Course) -> MoveMap:
        if self.moves is None or self.moves.course is not course:
            self.moves = self.maps.moves(course) if self.maps else MoveMap(course)
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

    def _value(self, search: _Search, boat: Boat) -> float:
        if search.stakes is None:
            return self.value(search.course, boat)
        if boat.finished or boat.sunk or boat.damage >= SINKING_DAMAGE:
            return search.stakes.value(boat, 0.0)
        return search.stakes.value(boat, -self.value(search.course, boat))

    def stakes(self, state: GameState) -> Stakes | None:
        """In a race of the boxed game, what is at stake for the boat to move (None otherwise)."""
        rules = state.rules
        if not isinstance(rules, RaceRules) or not self.race_aware:
            return None
        course = state.course
        me = state.boat
        mine = min(-self.value(course, me), MOST_MOVES)
        rivals = []
        block: dict[Hex, float] = {}
        for seat, boat in enumerate(state.boats):
            if seat == state.to_move or not boat.racing or boat.cell is None:
                continue
            eta = min(-self.value(course, boat), MOST_MOVES)
            rivals.append(eta)
            # blocking (R17): the cells where this rival lands if it keeps its speed; worth most
            # when it is close to this boat in the race
            closeness = 4 * _logistic((eta - mine) / SPREAD) * (1 - _logistic((eta - mine) / SPREAD))
            total = sum(boat.dice)
            if total and closeness > 0.05:
                for d in (boat.heading, left(boat.heading), right(boat.heading)):
                    run = course.rays[boat.cell][d]
                    if len(run) >= total:
                        block[run[total - 1]] = block.get(run[total - 1], 0.0) + BLOCK_POINTS * rules.multiplier * closeness
        progress = VARIANT_PROGRESS if rules.score_variant else PROGRESS
        return Stakes(rules.boats_counted(state.boats), rules.multiplier, len(state.positions), rivals, progress,
                      me.moves, block)

    def _search(self, state: GameState) -> _Search:
        stakes = self.stakes(state)
        later = None
        if stakes is not None:
            # the other boats will have moved by this boat's next turn: not obstacles then
            later = tuple(b if i == state.to_move else replace(b, cell=None) for i, b in enumerate(state.boats))
        return _Search(state.course, state.to_move, stakes, later)

    # --- search -----------------------------------------------------------------------

    def _after(self, search: _Search, boats: Sequence[Boat], total: int, memo: Memo) -> list[tuple[int, Boat, bool]]:
        """The allowed moves with a total: (direction, boat after, crashed)."""
        seat = search.seat
        boat = boats[seat]
        key = (boat.cell, boat.heading, boat.damage, boat.next_buoy, boat.count, boat.entries, total)
        found = memo.get(key)
        if found is None:
            found = [(o.direction, b, o.crash) for b, o in previews(search.course, boats, seat, total) if o.allowed]
            if total == 0:
                # speed 0 straight on changes nothing and only repeats this decision: turn instead
                found = [f for f in found if f[0] != boat.heading]
            memo[key] = found
        return found

    def _turn(self, search: _Search, boats: Sequence[Boat], depth: int, top: bool) -> tuple[float, DiceChoice | None]:
        """Best expected value from a dice step, and the choice that gets it."""
        boat = boats[search.seat]
        key = (boat.cell, boat.heading, boat.damage, boat.next_buoy, boat.count, boat.entries,
               tuple(sorted(boat.dice)), boat.moves == 0, depth)
        memo = search.memo if top or search.later is None else search.later_memo
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
                        totals[total] = max(self._leaf(search, b, total, crash, top)
                                            for _, b, crash in self._after(search, boats, total, memo))
                    expected += float(chance) * totals[total]
            else:
                for rolled, p in roll_outcomes(choice.rolls):
                    dice = tuple(sorted(kept + rolled))
                    total = sum(dice)
                    options = self._after(search, boats, total, memo)
                    expected += p * max(self._deeper(search, boats, b, crash, dice, depth, top)
                                        for _, b, crash in options)
            if expected > best + 1e-9:
                best, best_choice = expected, choice
        if depth > 1 and not top:
            search.values[key] = best
        return best, best_choice

    def _block(self, search: _Search, after: Boat, top: bool) -> float:
        if not top or search.stakes is None or not search.stakes.block or after.finished:
            return 0.0
        return search.stakes.block.get(after.cell, 0.0) if after.cell is not None else 0.0

    def _leaf(self, search: _Search, after: Boat, total: int, crash: bool, top: bool = False) -> float:
        boat = after if crash else after.with_dice((total,) if total else ())
        return self._value(search, boat) + self._block(search, after, top)

    def _deeper(self, search: _Search, boats: Sequence[Boat], after: Boat, crash: bool, dice: tuple[int, ...],
                depth: int, top: bool = False) -> float:
        held = () if crash else dice
        boat = after.with_dice(held)
        bonus = self._block(search, after, top)
        if boat.finished or boat.sunk:
            return self._value(search, boat) + bonus
        key = (boat.cell, boat.heading, boat.damage, boat.next_buoy, boat.count, boat.entries, tuple(sorted(held)),
               boat.moves == 0, depth - 1)
        value = search.values.get(key)
        if value is None:
            nxt = list(search.later if search.later is not None else boats)
            nxt[search.seat] = boat
            value, _ = self._turn(search, nxt, depth - 1, False)
            search.values[key] = value
        return value + bonus

    # --- the Player protocol ----------------------------------------------------------

    def place(self, state: GameState) -> tuple[Hex, int]:
        return GreedyPlayer(self.rng, self._route(state.course)).place(state)

    def dice(self, state: GameState) -> DiceChoice:
        _, choice = self._turn(self._search(state), state.boats, self.depth, True)
        assert choice is not None
        return choice

    def direction(self, state: GameState) -> int:
        assert state.pending is not None
        search = self._search(state)
        dice = tuple(sorted(state.pending.dice))
        best_direction, best = state.allowed_directions()[0], float("-inf")
        for boat, option in state.direction_previews():
            if not option.allowed or (option.total == 0 and option.direction == state.boat.heading):
                continue
            if self.depth <= 1:
                value = self._value(search, boat if option.crash else boat.with_dice(dice))
                value += self._block(search, boat, True)
            else:
                value = self._deeper(search, state.boats, boat, option.crash, dice, self.depth, True)
            if value > best + 1e-9:
                best, best_direction = value, option.direction
        return best_direction


LEVELS = ("easy", "normal", "strong")


def make_player(level: str, rng: random.Random | None = None, route: RouteMap | None = None,
                maps: MapCache | None = None) -> Player:
    """A computer player of a level: easy, normal or strong (or random, for measuring).
    ``maps`` shares route and move maps between players and courses."""
    rng = rng or random.Random()
    if level == "random":
        return RandomPlayer(rng)
    if level == "easy":
        return GreedyPlayer(rng, route, maps)
    if level == "normal":
        return ExpectimaxPlayer(1, rng, route, no_dice_price=1.5, maps=maps)
    if level == "strong":
        # looking a turn further, it sees for itself how slowly a boat without dice restarts
        return ExpectimaxPlayer(2, rng, route, no_dice_price=0.5, maps=maps)
    if level == "strong-plain":  # strong, valuing a race as the two-player game (for measuring)
        return ExpectimaxPlayer(2, rng, route, no_dice_price=0.5, maps=maps, race_aware=False)
    raise ValueError(f"unknown level {level!r}: use {', '.join(LEVELS)}")
