"""A race of the boxed game for 2–6 boats (R15–R19): one configuration of the engine.

:class:`RaceRules` plugs into :class:`~games.engine.rules.GameState` the rules that differ from
the online two-player game; dice, directions, passing, crashes, rounding, finishing and sinking
are the engine's own (R6–R12, R17).

* **R15 order.** The start player's right-hand neighbour (the previous seat) places first, then
  on to the right; the start player places last and moves first; then play goes clockwise (the
  next seat), skipping boats no longer on the lake.
* **R16 start.** Boats are placed on the line; with more boats than line cells also on the row
  of free water cells behind it (on the lake's side), and when even that is full on the next.
* **R18 end and positions.** A finishing boat takes the next position and is lifted off; a sunk
  or retired (resigned, timed-out) boat is lifted off without one. The race ends when no boat
  is left, or when every boat still in it has made 35 moves (R13): those are ranked after the
  finishers by buoys (more first), damage (less first, carried counters included), then seat
  order from the start player.
* **R19 points.** Position p of n scores (n − p) × k (k = 1, 2, 3 for the series' races A, B, C),
  n being the boats that started the race: those placed on the lake (:func:`boats_started`);
  with the score variant a finisher also scores the moves it finished before the last boat with
  a position, and 5 per boat that sank. See :func:`race_scores`.

**Rules versions.** The details of R18 and R19 where the box is silent changed once; a series
keeps the version it was started with (``RaceRules.rules_version``), so that a series scored
under the old details replays to what its players saw:

* version 1 (:data:`RULES_V1`, series started before the change): R19's n is every boat of the
  race, also one whose player left before placing it; a race that ends because fewer than two
  players are left ranks every boat still in it as at the cut-off, placed or not.
* version 2 (:data:`RULES_V2`, :data:`RULES_VERSION`: new series): R19's n counts only the boats
  placed on the lake (:func:`boats_started`), and a boat not yet placed when the race ends
  during placing takes no position.

>>> RaceRules().placing_order(4, 1)
(0, 3, 2, 1)
>>> RaceRules(rules_version=1).boats_counted(()), RaceRules().rules_version
(0, 2)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from .course import Course
from .errors import GameOver, IllegalMove
from .hexgrid import Hex, neighbors
from .rules import (
    CUTOFF_MOVES,
    Boat,
    GameState,
    Outcome,
    Phase,
    Rules,
    Termination,
    _next_seat,
)

MIN_BOATS = 2
MAX_BOATS = 6
SINK_BONUS = 5  # R19, score variant: points per boat that sank, to every finisher

# The versions of R18/R19's details (the module's docstring, "Rules versions"); a series keeps its own.
RULES_V1 = 1  # n is every boat of the race; closing a race early ranks unplaced boats too
RULES_V2 = 2  # n counts the boats placed on the lake; a boat not yet placed takes no position
RULES_VERSIONS = (RULES_V1, RULES_V2)
RULES_VERSION = RULES_V2  # what a new series is played by


@dataclass(frozen=True, slots=True)
class RaceRules(Rules):
    """A race of the boxed game (R15–R19). ``multiplier`` is k of R19 (1, 2, 3 for races A, B,
    C); ``score_variant`` the optional scoring of R19 (always on with two boats in a series);
    ``rules_version`` the version of R18/R19's details it follows (:data:`RULES_VERSIONS`; the
    module's docstring)."""

    multiplier: int = 1
    score_variant: bool = False
    rules_version: int = RULES_VERSION

    def __post_init__(self) -> None:
        if isinstance(self.rules_version, bool) or self.rules_version not in RULES_VERSIONS:
            raise ValueError(f"no rules version {self.rules_version!r} (there are {', '.join(map(str, RULES_VERSIONS))})")

    ruleset: ClassVar[str] = "boxed rules for 2-6 boats with rulings R1-R20"
    placing_rule: ClassVar[str] = "R16"
    placing_area: ClassVar[str] = "the start/finish line or a row open for placing behind it"
    placing_refusal: ClassVar[str] = "not_on_start_rows"
    ranked: ClassVar[bool] = True

    def check_boats(self, count: int) -> None:
        if not MIN_BOATS <= count <= MAX_BOATS:
            raise ValueError(f"a race has {MIN_BOATS} to {MAX_BOATS} boats (R15), not {count}")

    def placing_order(self, count: int, start: int) -> tuple[int, ...]:
        """R15: from the start player's right-hand neighbour on to the right; the start player last."""
        return tuple((start - k) % count for k in range(1, count + 1))

    def start_area(self, state: GameState) -> tuple[Hex, ...]:
        """R16: the line; with more boats than line cells also the row behind it, and each next
        row once every cell open so far is taken."""
        course = state.course
        area = course.line
        if len(state.boats) <= len(area):
            return area
        taken = state._taken()
        for row in start_rows(course):
            area += row
            if any(cell not in taken for cell in area):
                break
        return area

    def end_of_move(self, boats: Sequence[Boat], seat: int, positions: tuple[int, ...],
                    start: int) -> tuple[Outcome | None, tuple[int, ...]]:
        """R18: a finisher takes the next position (and is lifted off: it is no longer racing)."""
        mover = boats[seat]
        if mover.finished:
            positions += (seat,)
        how = Termination.FINISH if mover.finished else Termination.SINK if mover.sunk else Termination.CUTOFF
        return _race_end(boats, positions, start, how)

    def forfeit(self, state: GameState, seat: int, termination: Termination) -> GameState:
        """R18: the boat is lifted off without a position; the race goes on without it. Anyone
        may resign at any time; only the player to move loses on time."""
        boats = list(state.boats)
        if not isinstance(seat, int) or not 0 <= seat < len(boats):
            raise IllegalMove("turn", f"no seat {seat}", "seat")
        boat = boats[seat]
        if not boat.racing:
            raise IllegalMove("R18", f"{boat.color.capitalize()} is no longer in the race", "seat")
        if termination is Termination.TIMEOUT and seat != state.to_move:
            raise IllegalMove("R18", "only the player to move can lose on time", "seat")
        boats[seat] = replace(boat, retired=termination)
        phase, to_move, pending = state.phase, state.to_move, state.pending
        if seat == to_move:
            pending = None
            if phase is Phase.PLACE:
                placed = replace(state, boats=tuple(boats))
                nxt = placed._next_to_place(boats)
                if nxt is None:
                    phase, to_move = Phase.DICE, placed._first_to_move(boats)
                else:
                    to_move = nxt
            else:
                phase, to_move = Phase.DICE, _next_seat(boats, seat)
        outcome, positions = _race_end(boats, state.positions, state.start, termination)
        if outcome is not None:
            phase, pending = Phase.OVER, None
        return replace(state, boats=tuple(boats), phase=phase, to_move=to_move, pending=pending, outcome=outcome,
                       positions=positions, ply=state.ply + 1)

    def adjudicate(self, state: GameState) -> GameState:
        """The boats still in the race are ranked after the finishers as at the cut-off (R18)."""
        return replace(self.close(state, Termination.ADJUDICATION), ply=state.ply + 1)

    def boats_counted(self, boats: Sequence[Boat]) -> int:
        """R19's n for a race with these boats: from version 2 the boats placed on the lake
        (:func:`boats_started`), in version 1 every boat of the race."""
        return len(boats) if self.rules_version == RULES_V1 else boats_started(boats)

    def close(self, state: GameState, termination: Termination) -> GameState:
        """End the race where it stands (no ply: the action that caused it counted): the boats
        still on the lake take the positions after the finishers as at the cut-off (R18). A
        series does this when fewer than two players are left in it. From version 2 a boat not
        yet placed (the race ends during placing) was never on the lake and takes no position
        (R18 details); in version 1 it is ranked with the others."""
        if state.over:
            raise GameOver("over", "the race is over", "phase")
        racing = [i for i, b in enumerate(state.boats)
                  if b.racing and (b.cell is not None or self.rules_version == RULES_V1)]
        positions = state.positions + _cutoff_ranking(state.boats, racing, state.start)
        outcome = Outcome(positions[0] if positions else None, termination,
                          _reason(state.boats, positions, termination), "race",
                          _race_params(state.boats, positions, termination))
        return replace(state, phase=Phase.OVER, pending=None, outcome=outcome, positions=positions)


def _race_end(boats: Sequence[Boat], positions: tuple[int, ...], start: int,
              how: Termination) -> tuple[Outcome | None, tuple[int, ...]]:
    """R18: over when no boat is left in the race, or every boat in it has made 35 moves."""
    racing = [i for i, b in enumerate(boats) if b.racing]
    if racing:
        if any(boats[i].moves < CUTOFF_MOVES for i in racing):
            return None, positions
        how = Termination.CUTOFF
        positions += _cutoff_ranking(boats, racing, start)
    return Outcome(positions[0] if positions else None, how, _reason(boats, positions, how), "race",
                   _race_params(boats, positions, how)), positions


def _cutoff_ranking(boats: Sequence[Boat], seats: Sequence[int], start: int) -> tuple[int, ...]:
    """R18: more buoys first, then less damage (carried counters included), then seat order
    from the start player."""
    n = len(boats)
    return tuple(sorted(seats, key=lambda i: (-boats[i].buoys, boats[i].damage, (i - start) % n)))


ORDINALS = ("1st", "2nd", "3rd", "4th", "5th", "6th")


def _race_params(boats: Sequence[Boat], positions: Sequence[int], how: Termination) -> dict[str, Any]:
    """A race's result as data (the outcome's ``race`` code): the boats by position, each with
    whether it finished (else it was cut off), the boats that left the race and how (sank,
    resign, timeout), and how the race ended."""
    gone: list[list[str]] = []
    for b in boats:
        if b.sunk:
            gone.append([b.color, "sank"])
        elif b.retired is Termination.RESIGN or b.retired is Termination.TIMEOUT:
            gone.append([b.color, b.retired.value])
    return {"places": [[boats[s].color, boats[s].finished] for s in positions], "gone": gone,
            "how": how.value}


def _reason(boats: Sequence[Boat], positions: Sequence[int], how: Termination) -> str:
    """The race's result in words, e.g. ``Red 1st, Yellow 2nd (35 moves); Orange sank``."""
    parts = []
    for place, seat in enumerate(positions):
        boat = boats[seat]
        parts.append(f"{boat.color.capitalize()} {ORDINALS[place]}" + ("" if boat.finished else " (cut off)"))
    text = ", ".join(parts) if parts else "no boat finished"
    gone = []
    for boat in boats:
        if boat.sunk:
            gone.append(f"{boat.color.capitalize()} sank")
        elif boat.retired is Termination.RESIGN:
            gone.append(f"{boat.color.capitalize()} resigned")
        elif boat.retired is Termination.TIMEOUT:
            gone.append(f"{boat.color.capitalize()} lost on time")
    if gone:
        text += "; " + ", ".join(gone)
    if how is Termination.CUTOFF:
        text = f"{CUTOFF_MOVES} moves each: " + text
    elif how is Termination.ADJUDICATION:
        text = "adjudicated: " + text
    return text


def start_rows(course: Course) -> Iterator[tuple[Hex, ...]]:
    """R16: the rows behind the start/finish line, nearest first: the free water cells of the
    next offset row towards the lake's middle that touch the row before (the line first)."""
    lake = course.lake
    line = course.line
    rows = {cell[1] for cell in line}
    row = next(iter(rows)) if len(rows) == 1 else None
    step = 1 if row is not None and row < lake.height / 2 else -1
    band = set(line)
    seen = set(line)
    while band:
        if row is not None:
            row += step
        nxt = {nb for cell in band for nb in neighbors(cell)
               if nb not in seen and nb in lake and (row is None or nb[1] == row)}
        seen |= nxt
        band = nxt
        yield tuple(sorted((c for c in nxt if c in course.free), key=lambda c: (c[1], c[0])))


# --- points (R19) and carried damage (R20) -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RaceScore:
    """One boat's result in a race: its position (R18), points (R19) and damage (R20)."""

    color: str
    position: int | None  # 1-based; None: sunk, retired, or the race did not end
    finished: bool
    sunk: bool
    retired: Termination | None
    moves: int
    buoys: int
    damage: int  # at the end of the race, carried counters included
    carried: int  # damage counters it started with (R20)
    position_points: int
    variant_points: int

    @property
    def points(self) -> int:
        return self.position_points + self.variant_points

    @property
    def took_damage(self) -> bool:
        """R20: its damage rose during the race (a carried counter alone does not count)."""
        return self.damage > self.carried


def boats_started(boats: Sequence[Boat]) -> int:
    """R19's n: the boats that started the race, i.e. were placed on the lake (R18 details: a
    player who leaves before placing their boat is not counted; a boat placed and then lifted
    off, finished, sunk or retired, is)."""
    return sum(1 for boat in boats if boat.cell is not None)


def race_scores(state: GameState) -> tuple[RaceScore, ...]:
    """Every boat's result in seat order (R18, R19): position p of n boats (those that started
    the race, :func:`boats_started`; every boat of the race in rules version 1:
    :meth:`RaceRules.boats_counted`) scores (n − p) × k. With the score variant a finisher also
    scores, once the race is over, the moves it finished before the last boat with a position
    (the highest move count among them) and 5 per boat that sank (a resignation is not a
    sinking; not multiplied by k). While the race goes on only the finishers so far have
    positions."""
    rules = state.rules
    if not isinstance(rules, RaceRules):
        raise TypeError("positions and points belong to a race of the boxed game (RaceRules)")
    boats = state.boats
    n = rules.boats_counted(boats)
    place = {seat: i + 1 for i, seat in enumerate(state.positions)}
    reference = max((boats[s].moves for s in place), default=0)
    sunk = sum(1 for b in boats if b.sunk)
    out = []
    for seat, boat in enumerate(boats):
        position = place.get(seat)
        points = (n - position) * rules.multiplier if position is not None else 0
        variant = 0
        if rules.score_variant and state.over and position is not None and boat.finished:
            variant = reference - boat.moves + SINK_BONUS * sunk
        out.append(RaceScore(boat.color, position, boat.finished, boat.sunk, boat.retired, boat.moves, boat.buoys,
                             boat.damage, boat.carried, points, variant))
    return tuple(out)
