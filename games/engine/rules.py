"""The state of a game and the turn (R5–R18), as immutable values.

A :class:`GameState` knows the course, the boats, whose turn it is and which step of
the turn is awaited (:class:`Phase`), and the :class:`Rules` it is played by: the online
two-player rules (:data:`ONLINE`, the default) or a race of the boxed game
(:class:`~games.engine.race.RaceRules`). Every action returns a new state and leaves the
old one untouched:

* ``place(cell, heading)`` — R5 (Yellow first, then Red) or R15/R16;
* ``choose_dice(choice, source)`` — R6; when only one direction is then allowed it is
  applied at once (R7) and the :class:`Move` is returned with the new state;
* ``choose_direction(direction)`` — R7–R14, returns the :class:`Move`;
* ``resign(seat)`` / ``time_out(seat)`` / ``adjudicate()``.

``options()`` previews the three directions after a roll (reach, path, crash, damage,
buoys rounded, finish, sinking) and says which are allowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, ClassVar, NamedTuple

from .course import FINISHED_ROUNDING, NO_ENTRIES, Course, Entries
from .dice import Change, DiceChoice, DiceSource, all_choices, distinct_choices
from .errors import GameOver, IllegalMove
from .hexgrid import DIRECTION_NAMES, DIRECTIONS, Hex, left, right

CUTOFF_MOVES = 35  # R13
SINKING_DAMAGE = 4  # R12
COLORS = ("yellow", "red")


class Phase(StrEnum):
    PLACE = "place"  # a boat is to be placed on the start/finish line (R5)
    DICE = "dice"  # the player to move chooses and rolls dice (R6)
    DIRECTION = "direction"  # the player to move picks a direction (R7)
    OVER = "over"


class Termination(StrEnum):
    FINISH = "finish"  # R11
    SINK = "sink"  # R12
    CUTOFF = "cutoff"  # R13
    RESIGN = "resign"
    TIMEOUT = "timeout"
    ADJUDICATION = "adjudication"  # a tournament round's deadline passed


@dataclass(frozen=True, slots=True)
class Outcome:
    """How the game ended: the winning seat (None for a draw), why, and in words: ``reason`` in
    English (records, logs), ``code`` and ``params`` as data that a reader's language says
    (games.reasons.result_text; docs/game-record.md lists the codes). A two-player game's codes:
    ``finished`` {color}, ``sank`` {color, damage}, ``all_sank``, ``resigned`` {color},
    ``timeout`` {color}, ``cutoff_buoys`` {color, a, b}, ``cutoff_damage`` {color, buoys, a, b},
    ``cutoff_draw`` {buoys, damage}, ``adjudicated_points`` / ``_buoys`` / ``_damage`` {color, a,
    b}, ``adjudicated_draw`` {points}; colours as their names (``yellow``). A race of a series:
    ``race``."""

    winner: int | None
    termination: Termination
    reason: str
    code: str = ""
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Boat:
    """One boat. ``next_buoy`` is 1–3, or 4 once buoy 3 is rounded; ``count`` is the
    crossing count of the next buoy's gate and ``entries`` the side each gate was
    entered from while the boat stands on it (R10)."""

    color: str
    cell: Hex | None = None
    heading: int = 0
    dice: tuple[int, ...] = ()
    damage: int = 0
    next_buoy: int = 1
    count: int = 0
    entries: Entries = NO_ENTRIES
    finished: bool = False
    sunk: bool = False
    moves: int = 0
    retired: Termination | None = None  # left the race by resigning or losing on time (R18)
    carried: int = 0  # damage counters carried into this race (R20), included in ``damage``

    @property
    def racing(self) -> bool:
        """Still in the race: not finished, sunk or retired (R18 lifts those off the lake)."""
        return not (self.finished or self.sunk or self.retired is not None)

    @property
    def buoys(self) -> int:
        """Buoys rounded (0–3)."""
        return self.next_buoy - 1

    @property
    def points(self) -> int:
        """R14: a point per buoy rounded and one for finishing."""
        return self.buoys + (1 if self.finished else 0)

    @property
    def speed(self) -> int:
        return sum(self.dice)

    def with_dice(self, dice: tuple[int, ...]) -> Boat:
        """The same boat holding other dice (cheaper than ``dataclasses.replace``)."""
        return Boat(self.color, self.cell, self.heading, dice, self.damage, self.next_buoy, self.count, self.entries,
                    self.finished, self.sunk, self.moves, self.retired, self.carried)


@dataclass(frozen=True, slots=True)
class Option:
    """What choosing one direction would do (R7–R12). ``allowed`` follows R7."""

    direction: int
    turn: str  # "straight", "left" or "right"
    total: int
    reach: int
    allowed: bool
    path: tuple[Hex, ...]
    final: Hex
    crash: bool
    damage: int
    blocked_by: str | None  # what stops the boat: "land", "buoy", "border" (None if it is not stopped)
    rounded: tuple[int, ...]
    finishes: bool
    sinks: bool

    @property
    def name(self) -> str:
        return DIRECTION_NAMES[self.direction]


@dataclass(frozen=True, slots=True)
class Pending:
    """A dice choice that has been rolled; the direction is still to be chosen.

    ``reaches`` are the three candidate directions with their reach (all R7 needs); the full
    previews (boat after the move and the option shown) are computed on first request and kept
    in ``cache``. ``roll_ply`` is the ply of the roll (None: the ply just before the state's).
    """

    choice: DiceChoice
    dice_before: tuple[int, ...]
    rolled: tuple[int, ...]
    dice: tuple[int, ...]
    reaches: tuple[tuple[int, int], ...] = field(default=(), compare=False, repr=False)  # (direction, reach)
    cache: list[tuple[tuple[Boat, Option], ...]] = field(default_factory=list, compare=False, repr=False)
    roll_ply: int | None = field(default=None, compare=False)

    @property
    def allowed(self) -> list[int]:
        """R7: the directions that reach the full total, or else those with the greatest reach."""
        best = max(r for _, r in self.reaches)
        return [d for d, r in self.reaches if r == best]

    @property
    def total(self) -> int:
        return sum(self.dice)


@dataclass(frozen=True, slots=True)
class Move:
    """One complete turn of one boat, as recorded."""

    seat: int
    color: str
    number: int  # this boat's move number, 1..35
    choice: DiceChoice
    dice_before: tuple[int, ...]
    rolled: tuple[int, ...]
    dice: tuple[int, ...]  # after the roll
    direction: int
    auto: bool  # only one direction was allowed, so it was applied without asking (R7)
    start: Hex
    reach: int
    path: tuple[Hex, ...]
    final: Hex
    heading: int
    damage: int  # taken in this move
    damage_total: int
    crash: bool
    rounded: tuple[int, ...]
    finished: bool
    sunk: bool
    roll_ply: int = 0  # the state's ply when the dice were rolled (fair dice: docs/fair-dice.md)

    @property
    def total(self) -> int:
        return sum(self.dice)


@dataclass(frozen=True, slots=True)
class Placement:
    seat: int
    color: str
    cell: Hex
    heading: int


class Step(NamedTuple):
    state: GameState
    move: Move | None


def simulate(
    course: Course, boats: Sequence[Boat], seat: int, direction: int, total: int, allowed: bool = True,
    others: frozenset[Hex] | None = None,
) -> tuple[Boat, Option]:
    """The boat after moving ``total`` along ``direction`` (R8–R12), and the preview.

    ``allowed`` is only copied into the option; :func:`previews` decides it (R7).
    """
    boat = boats[seat]
    start = boat.cell
    assert start is not None
    run = course.rays[start][direction]
    reach = total if total <= len(run) else len(run)
    end = reach
    if end:
        if others is None:
            others = _other_cells(boats, seat)
        while end and run[end - 1] in others:  # R8: end behind the boat in the way
            end -= 1
    path = run[:end]
    crash = reach < total
    damage = total - reach if crash else 0  # R9: the passing shift does not change the damage
    blocked_by = _blocker(course, start, direction, reach) if crash else None
    next_buoy, count, entries = boat.next_buoy, boat.count, boat.entries
    finished = boat.finished
    rounded: tuple[int, ...] = ()
    prev = start
    line = course.line_set
    for cell in path:
        next_buoy, count, entries, now = course.step(prev, cell, next_buoy, count, entries)
        if now:
            rounded += now
        if not finished and next_buoy == FINISHED_ROUNDING and cell in line:
            finished = True  # R11: the cell where buoy 3 is rounded counts
        prev = cell
    damage_total = boat.damage + damage
    sunk = damage_total >= SINKING_DAMAGE and not finished  # R12 (a finished boat does not sink)
    final = path[-1] if path else start
    new_boat = Boat(
        boat.color,
        final,
        direction,
        () if crash else boat.dice,
        damage_total,
        next_buoy,
        count,
        entries,
        finished,
        sunk,
        boat.moves + 1,
        boat.retired,
        boat.carried,
    )
    turn = "straight" if direction == boat.heading else "left" if direction == left(boat.heading) else "right"
    option = Option(
        direction, turn, total, reach, allowed, path, final, crash, damage, blocked_by, rounded,
        finished and not boat.finished, sunk,
    )
    return new_boat, option


def _other_cells(boats: Sequence[Boat], seat: int) -> frozenset[Hex]:
    """Cells of the other boats on the lake (they can be passed but not ended on, R8, R17); boats
    lifted off (finished in a race, sunk, retired: R18) block nothing."""
    return frozenset(b.cell for i, b in enumerate(boats)
                     if i != seat and b.cell is not None and not (b.finished or b.sunk or b.retired))


def previews(course: Course, boats: Sequence[Boat], seat: int, total: int) -> tuple[tuple[Boat, Option], ...]:
    """Straight on, 60° left and 60° right, each simulated, with ``allowed`` set by R7:
    the directions that reach the full total, or else those with the greatest reach."""
    pairs = reaches(course, boats[seat], total)
    best = max(r for _, r in pairs)
    others = _other_cells(boats, seat)
    return tuple(simulate(course, boats, seat, d, total, r == best, others) for d, r in pairs)


def reaches(course: Course, boat: Boat, total: int) -> tuple[tuple[int, int], ...]:
    """Straight on, 60° left, 60° right, each with its reach (R7; boats do not count, R8)."""
    assert boat.cell is not None
    heading = boat.heading
    rays = course.rays[boat.cell]
    out = []
    for d in (heading, left(heading), right(heading)):
        run = len(rays[d])
        out.append((d, total if total <= run else run))
    return tuple(out)


def _blocker(course: Course, start: Hex, direction: int, reach: int) -> str | None:
    """What stops a boat that crashes after ``reach`` cells (boats never do, R8)."""
    dq, dr = DIRECTIONS[direction]
    cell = (start[0] + dq * (reach + 1), start[1] + dr * (reach + 1))
    return course.obstacle(cell)


# --- rulesets --------------------------------------------------------------------------------


class Rules:
    """A configuration of the one engine: what differs between rulesets (docs/rules.md, "Rulesets").

    Dice, directions, passing, crashes, rounding, finishing and sinking (R6–R12, R17) are the same
    code for every ruleset. A ruleset says in which order the boats are placed (the boat placed
    last moves first; then play goes clockwise, to the next seat, skipping boats no longer in the
    race: R5, R15), where they may be placed (R5, R16), and how the race ends and is decided
    (R11–R13 or R18), also when a player resigns, loses on time or the game is adjudicated.
    """

    __slots__ = ()

    ruleset: ClassVar[str] = ""
    placing_rule: ClassVar[str] = "R5"
    placing_area: ClassVar[str] = "the start/finish line"
    placing_refusal: ClassVar[str] = "not_on_line"  # the refusal's code (EngineError.code)
    ranked: ClassVar[bool] = False  # boats take finishing positions (R18) instead of one winner

    def check_boats(self, count: int) -> None:
        raise NotImplementedError

    def placing_order(self, count: int, start: int) -> tuple[int, ...]:
        """The seats in the order they place; the last one moves first."""
        raise NotImplementedError

    def start_area(self, state: GameState) -> tuple[Hex, ...]:
        """The cells a boat may be placed on now, taken or not."""
        raise NotImplementedError

    def end_of_move(self, boats: Sequence[Boat], seat: int, positions: tuple[int, ...],
                    start: int) -> tuple[Outcome | None, tuple[int, ...]]:
        """After ``seat`` moved: the outcome if the race is over, and the finishing positions."""
        raise NotImplementedError

    def forfeit(self, state: GameState, seat: int, termination: Termination) -> GameState:
        """``seat`` resigns or loses on time."""
        raise NotImplementedError

    def adjudicate(self, state: GameState) -> GameState:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class OnlineRules(Rules):
    """The online two-player rules (R5, R11–R14): Yellow places first, then Red, on the line; Red
    moves first. The first boat to finish wins and ends the game; a boat that sinks, resigns or
    loses on time loses it; after 35 moves each more buoys, then less damage wins, else a draw."""

    ruleset: ClassVar[str] = "online two-player rules with rulings R1-R14"

    def check_boats(self, count: int) -> None:
        if count != 2:
            raise ValueError("the online rules are for two boats (R5); a race of 2-6 boats uses RaceRules (R15-R18)")

    def placing_order(self, count: int, start: int) -> tuple[int, ...]:
        return tuple(range(count))  # R5: Yellow, then Red; Red (placed last) moves first

    def start_area(self, state: GameState) -> tuple[Hex, ...]:
        return state.course.line

    def end_of_move(self, boats: Sequence[Boat], seat: int, positions: tuple[int, ...],
                    start: int) -> tuple[Outcome | None, tuple[int, ...]]:
        return _outcome(boats, seat), positions

    def forfeit(self, state: GameState, seat: int, termination: Termination) -> GameState:
        if len(state.boats) != 2:
            raise IllegalMove("R5", "the online rules are for two boats; a race of more uses RaceRules (R18)", "seat")
        if not 0 <= seat < 2:
            raise IllegalMove("turn", f"no seat {seat}", "seat")
        verb = "resigned" if termination is Termination.RESIGN else "ran out of time"
        outcome = Outcome(1 - seat, termination, f"{_name(state.boats[seat])} {verb}",
                          "resigned" if termination is Termination.RESIGN else "timeout",
                          {"color": state.boats[seat].color})
        return replace(state, phase=Phase.OVER, pending=None, outcome=outcome, ply=state.ply + 1)

    def adjudicate(self, state: GameState) -> GameState:
        """More points (R14), then more buoys, then less damage wins, as the 35-move cut-off
        does; else a draw (docs/tournaments.md)."""
        boats = state.boats
        ranked = sorted(range(len(boats)), key=lambda i: (-boats[i].points, -boats[i].buoys, boats[i].damage))
        first, second = boats[ranked[0]], boats[ranked[1]]
        key = (first.points, first.buoys, -first.damage)
        if key == (second.points, second.buoys, -second.damage):
            outcome = Outcome(None, Termination.ADJUDICATION,
                              f"adjudicated at the round deadline: equal points ({first.points}) and damage, a draw",
                              "adjudicated_draw", {"points": first.points})
        else:
            by, a, b = (("points", first.points, second.points) if first.points != second.points
                        else ("buoys", first.buoys, second.buoys) if first.buoys != second.buoys
                        else ("damage", first.damage, second.damage))
            why = f"less damage ({a} to {b})" if by == "damage" else f"more {by} ({a} to {b})"
            outcome = Outcome(ranked[0], Termination.ADJUDICATION,
                              f"adjudicated at the round deadline: {_name(first)} has {why}",
                              f"adjudicated_{by}", {"color": first.color, "a": a, "b": b})
        return replace(state, phase=Phase.OVER, pending=None, outcome=outcome, ply=state.ply + 1)


ONLINE = OnlineRules()


# --- the state ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameState:
    """The whole position. ``ply`` counts actions (placements, rolls, moves, resignations and
    time-outs); a client sends the ``ply`` it saw so that a stale or repeated request is refused.

    ``rules`` is the ruleset (:data:`ONLINE` by default); ``start`` the start player of a race
    (R15: places last, moves first; the online rules fix the order and ignore it); ``positions``
    the seats that have taken finishing positions, in order (R18; empty in the online game).
    """

    course: Course
    boats: tuple[Boat, ...]
    phase: Phase
    to_move: int
    pending: Pending | None = None
    outcome: Outcome | None = None
    ply: int = 0
    rules: Rules = ONLINE
    start: int = 0
    positions: tuple[int, ...] = ()

    @classmethod
    def initial(cls, course: Course, colors: Sequence[str] = COLORS, rules: Rules = ONLINE, start: int = 0,
                carried: Sequence[int] = (), ply: int = 0) -> GameState:
        """Boats of ``colors`` (in seat order, clockwise) waiting to be placed; ``carried`` are the
        damage counters each brings into a race (R20), ``ply`` the first ply (a series goes on
        counting from race to race)."""
        if len(colors) < 2 or len(set(colors)) != len(colors):
            raise ValueError("a game needs two or more boats of different colours")
        rules.check_boats(len(colors))
        if not 0 <= start < len(colors):
            raise ValueError(f"no seat {start} to start")
        carried = tuple(carried) or (0,) * len(colors)
        boats = tuple(Boat(c, damage=d, carried=d) for c, d in zip(colors, carried, strict=True))
        first = rules.placing_order(len(boats), start)[0]
        return cls(course, boats, Phase.PLACE, first, None, None, ply, rules, start)

    # --- reading ---------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def race(self) -> GameState:
        """The race being played: this state itself (a series' is its last race; the two read
        alike, games.engine.match)."""
        return self

    @property
    def races(self) -> tuple[GameState, ...]:
        """Every race of the game: this one."""
        return (self,)

    @property
    def boat(self) -> Boat:
        """The boat to move (or to place)."""
        return self.boats[self.to_move]

    def seat_of(self, color: str) -> int:
        for i, b in enumerate(self.boats):
            if b.color == color:
                return i
        raise KeyError(color)

    def free_start_cells(self) -> list[Hex]:
        """The cells the boat to place may take (R5, R16)."""
        taken = self._taken()
        return [c for c in self.rules.start_area(self) if c not in taken]

    def legal_dice_choices(self) -> list[DiceChoice]:
        """Every legal dice choice (R6), by die index. See :meth:`distinct_dice_choices`."""
        self._expect(Phase.DICE)
        return all_choices(self.boat.dice, self.boat.moves == 0)

    def distinct_dice_choices(self) -> list[DiceChoice]:
        """One legal dice choice per different effect (kept values, number rolled)."""
        self._expect(Phase.DICE)
        return distinct_choices(self.boat.dice, self.boat.moves == 0)

    def options(self) -> tuple[Option, ...]:
        """The three directions after the roll, each with its outcome, ``allowed`` per R7."""
        return tuple(option for _, option in self.direction_previews())

    def direction_previews(self) -> tuple[tuple[Boat, Option], ...]:
        """For the three directions after the roll: the boat after the move and the option."""
        self._expect(Phase.DIRECTION)
        pending = self.pending
        assert pending is not None
        if not pending.cache:
            pending.cache.append(previews(self.course, self.boats, self.to_move, pending.total))
        return pending.cache[0]

    def options_for_total(self, total: int) -> tuple[Option, ...]:
        """What each direction would do with a given total (for planning a dice choice)."""
        return tuple(option for _, option in previews(self.course, self.boats, self.to_move, total))

    def allowed_directions(self) -> list[int]:
        """R7: the directions the player may choose after the roll (cheap: reaches only)."""
        self._expect(Phase.DIRECTION)
        assert self.pending is not None
        return self.pending.allowed

    # --- acting ----------------------------------------------------------------------

    def place(self, cell: Hex, heading: int) -> GameState:
        """R5, R16: put the boat to place on a free start cell with a heading."""
        self._expect(Phase.PLACE)
        rule = self.rules.placing_rule
        if not isinstance(heading, int) or not 0 <= heading < 6:
            raise IllegalMove(rule, "the heading must point to a side of the cell: 0..5", "heading", "heading_range")
        if cell not in self.rules.start_area(self):
            raise IllegalMove(rule, f"{cell} is not on {self.rules.placing_area}", "cell", self.rules.placing_refusal,
                              {"cell": str(cell)})
        if cell in self._taken():
            raise IllegalMove(rule, f"{cell} is taken by another boat", "cell", "cell_taken", {"cell": str(cell)})
        boats = list(self.boats)
        boats[self.to_move] = replace(self.boat, cell=cell, heading=heading)
        nxt = self._next_to_place(boats)
        if nxt is not None:
            return replace(self, boats=tuple(boats), to_move=nxt, ply=self.ply + 1)
        # the boat placed last moves first: Red, after Yellow placed first (R5); the start player (R15)
        return replace(self, boats=tuple(boats), phase=Phase.DICE, to_move=self._first_to_move(boats),
                       ply=self.ply + 1)

    def choose_dice(self, choice: DiceChoice, source: DiceSource) -> Step:
        """R6: apply the dice choice and roll. If then only one direction is allowed (R7)
        the move is made at once and returned."""
        self._expect(Phase.DICE)
        if not isinstance(choice, DiceChoice):
            raise IllegalMove("R6", "a dice choice is needed", "choice", "choice_needed")
        boat = self.boat
        choice.check(boat.dice, first_move=boat.moves == 0)
        dice, rolled = choice.apply(boat.dice, source, checked=True)
        boats = list(self.boats)
        seat = self.to_move
        rolled_boat = boats[seat] = boat.with_dice(dice)
        total = sum(dice)
        pending = Pending(choice, boat.dice, rolled, dice, reaches(self.course, rolled_boat, total), [], self.ply)
        allowed = pending.allowed
        if len(allowed) == 1:  # R7: applied at once (the rolled state is never needed)
            return self._moved(boats, pending, simulate(self.course, boats, seat, allowed[0], total, True),
                               self.ply + 1, auto=True)
        rolled_state = GameState(self.course, tuple(boats), Phase.DIRECTION, seat, pending, None, self.ply + 1,
                                 self.rules, self.start, self.positions)
        return Step(rolled_state, None)

    def choose_direction(self, direction: int) -> Step:
        """R7: move in an allowed direction (R8–R14) and pass the turn."""
        self._expect(Phase.DIRECTION)
        boat = self.boat
        candidates = (boat.heading, left(boat.heading), right(boat.heading))
        if not isinstance(direction, int) or direction not in candidates:
            names = ", ".join(DIRECTION_NAMES[d] for d in candidates)
            shown = DIRECTION_NAMES[direction] if isinstance(direction, int) and 0 <= direction < 6 else repr(direction)
            raise IllegalMove(
                "R7",
                f"the boat heads {DIRECTION_NAMES[boat.heading]}: it can keep that heading or turn 60° "
                f"left or right ({names}), not {shown}",
                "direction", "not_a_heading", {"heading": DIRECTION_NAMES[boat.heading], "names": names, "shown": shown},
            )
        assert self.pending is not None
        if direction in self.pending.allowed:
            return self._moved(list(self.boats), self.pending, self._preview(direction), self.ply, auto=False)
        options = self.options()
        chosen = options[candidates.index(direction)]
        if not chosen.allowed:
            allowed = [o for o in options if o.allowed]
            total = chosen.total
            names = ", ".join(o.name for o in allowed)
            params: dict[str, object] = {"direction": chosen.name, "reach": chosen.reach, "total": total, "names": names,
                                         "allowed": names}
            if allowed[0].reach == total:
                code = "not_as_far_as_the_dice"
                why = f"{chosen.name} reaches only {chosen.reach} of {total}, and {names} reach{'es' if len(allowed) == 1 else ''} all {total}: you must move as far as your dice say"
            else:
                code, params["longest"] = "not_the_longest_way", allowed[0].reach
                why = f"no direction reaches {total}; {chosen.name} reaches {chosen.reach}, {names} reach{'es' if len(allowed) == 1 else ''} {allowed[0].reach}: you must take the longest way"
            raise IllegalMove("R7", f"direction {chosen.name} is not allowed: {why}. Allowed: {names}", "direction",
                              code, params)
        raise AssertionError("an allowed direction was not taken above")

    @classmethod
    def resume(
        cls,
        course: Course,
        boats: Sequence[Boat],
        phase: Phase,
        to_move: int,
        ply: int,
        pending: tuple[DiceChoice, tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None = None,
        outcome: Outcome | None = None,
        rules: Rules = ONLINE,
        start: int = 0,
        positions: Sequence[int] = (),
        roll_ply: int | None = None,
    ) -> GameState:
        """A state rebuilt from storage; a pending roll (choice, dice before, rolled, dice)
        gets its direction previews computed again. ``roll_ply`` is the roll's ply when other
        actions came between it and now (a resignation in a race)."""
        boats = tuple(boats)
        stored = None
        if pending is not None:
            choice, before, rolled, dice = pending
            stored = Pending(choice, before, rolled, dice, reaches(course, boats[to_move], sum(dice)),
                             roll_ply=roll_ply)
        return cls(course, boats, phase, to_move, stored, outcome, ply, rules, start, tuple(positions))

    def adjudicate(self) -> GameState:
        """End an unfinished game by the documented rule: in the online game more points (R14),
        then more buoys, then less damage wins (docs/tournaments.md); a race ranks the boats
        still in it as the cut-off does (R18)."""
        if self.phase is Phase.OVER:
            raise GameOver("over", "the game is over", "phase")
        return self.rules.adjudicate(self)

    def resign(self, seat: int) -> GameState:
        """The player in ``seat`` gives up: the opponent wins (R14: points scored stand); in a
        race the boat is lifted off without a position (R18)."""
        return self._forfeit(seat, Termination.RESIGN)

    def time_out(self, seat: int) -> GameState:
        """The player in ``seat`` ran out of time: as :meth:`resign`."""
        return self._forfeit(seat, Termination.TIMEOUT)

    # --- internals -------------------------------------------------------------------

    def _expect(self, phase: Phase) -> None:
        if self.phase is Phase.OVER:
            raise GameOver("over", "the game is over", "phase")
        if self.phase is not phase:
            raise IllegalMove("turn", f"the game awaits {self.phase.value}, not {phase.value}", "phase")

    def _forfeit(self, seat: int, termination: Termination) -> GameState:
        if self.phase is Phase.OVER:
            raise GameOver("over", "the game is over", "phase")
        return self.rules.forfeit(self, seat, termination)

    def _taken(self) -> set[Hex]:
        return {b.cell for b in self.boats if b.cell is not None and b.racing}

    def _next_to_place(self, boats: Sequence[Boat]) -> int | None:
        """The next seat in placing order whose boat is still to be placed (R5, R15)."""
        for seat in self.rules.placing_order(len(boats), self.start):
            if boats[seat].cell is None and boats[seat].racing:
                return seat
        return None

    def _first_to_move(self, boats: Sequence[Boat]) -> int:
        """The boat placed last moves first (R5: Red; R15: the start player), or the next one
        clockwise still in the race."""
        last = self.rules.placing_order(len(boats), self.start)[-1]
        return last if boats[last].racing else _next_seat(boats, last)

    def _preview(self, direction: int) -> tuple[Boat, Option]:
        """The move in one allowed direction (from the previews if they were computed)."""
        pending = self.pending
        assert pending is not None
        if pending.cache:
            return next(p for p in pending.cache[0] if p[1].direction == direction)
        return simulate(self.course, self.boats, self.to_move, direction, pending.total, True)

    def _moved(self, boats: list[Boat], pending: Pending, preview: tuple[Boat, Option], ply: int, auto: bool) -> Step:
        """The move of the boat to move, which holds its rolled dice in ``boats``, made at ``ply``."""
        seat = self.to_move
        boat = boats[seat]
        assert boat.cell is not None
        new_boat, option = preview
        direction = option.direction
        boats[seat] = new_boat
        roll_ply = ply - 1 if pending.roll_ply is None else pending.roll_ply
        move = Move(
            seat, boat.color, new_boat.moves, pending.choice, pending.dice_before, pending.rolled, pending.dice,
            direction, auto, boat.cell, option.reach, option.path, option.final, direction, option.damage,
            new_boat.damage, option.crash, option.rounded, option.finishes, new_boat.sunk, roll_ply,
        )
        rules = self.rules
        outcome, positions = rules.end_of_move(boats, seat, self.positions, self.start)
        if outcome is not None:
            state = GameState(self.course, tuple(boats), Phase.OVER, seat, None, outcome, ply + 1,
                              rules, self.start, positions)
        else:
            state = GameState(self.course, tuple(boats), Phase.DICE, _next_seat(boats, seat), None, None,
                              ply + 1, rules, self.start, positions)
        return Step(state, move)


def _next_seat(boats: Sequence[Boat], seat: int) -> int:
    """The next seat clockwise whose boat is still in the race (R15: left-hand neighbour)."""
    n = len(boats)
    for k in range(1, n + 1):
        candidate = (seat + k) % n
        boat = boats[candidate]
        if not (boat.finished or boat.sunk or boat.retired):  # racing, inlined: this runs every turn
            return candidate
    return seat


def _name(boat: Boat) -> str:
    return boat.color.capitalize()


def _outcome(boats: Sequence[Boat], seat: int) -> Outcome | None:
    """The end of the online game after ``seat`` moved, if it has ended (R11–R13)."""
    mover = boats[seat]
    if mover.finished:  # R11: ends at once, even after a crash later in the move
        return Outcome(seat, Termination.FINISH, f"{_name(mover)} finished", "finished", {"color": mover.color})
    afloat = [i for i, b in enumerate(boats) if not b.sunk]
    if mover.sunk:  # R12
        if len(afloat) == 1:
            return Outcome(afloat[0], Termination.SINK, f"{_name(mover)} sank with {mover.damage} damage",
                           "sank", {"color": mover.color, "damage": mover.damage})
        if not afloat:
            return Outcome(None, Termination.SINK, "every boat sank", "all_sank")
    if all(boats[i].moves >= CUTOFF_MOVES for i in afloat):  # R13
        ranked = sorted(afloat, key=lambda i: (-boats[i].buoys, boats[i].damage))
        first, second = boats[ranked[0]], boats[ranked[1]]
        if first.buoys > second.buoys:
            why = f"{_name(first)} rounded more buoys ({first.buoys} to {second.buoys})"
            code, params = "cutoff_buoys", {"color": first.color, "a": first.buoys, "b": second.buoys}
        elif first.damage < second.damage:
            why = f"equal buoys ({first.buoys}); {_name(first)} has less damage ({first.damage} to {second.damage})"
            code, params = "cutoff_damage", {"color": first.color, "buoys": first.buoys, "a": first.damage,
                                             "b": second.damage}
        else:
            return Outcome(
                None, Termination.CUTOFF,
                f"{CUTOFF_MOVES} moves each: equal buoys ({first.buoys}) and equal damage ({first.damage}), a draw",
                "cutoff_draw", {"buoys": first.buoys, "damage": first.damage},
            )
        return Outcome(ranked[0], Termination.CUTOFF, f"{CUTOFF_MOVES} moves each: {why}", code, params)
    return None


__all__ = [
    "ONLINE",
    "Boat",
    "Change",
    "GameState",
    "Move",
    "OnlineRules",
    "Option",
    "Outcome",
    "Pending",
    "Phase",
    "Placement",
    "Rules",
    "Step",
    "Termination",
    "previews",
    "reaches",
    "simulate",
]
