"""Courses (R3), gates and their chevrons (R4), gate crossings (R10), and the course validator.

A course uses the four spots of one letter: buoys 0, 1, 2, 3 go on them in a random
order. The start/finish line is a straight row of water cells along the lake edge by
buoy 0 (see :func:`start_line`), with the finish buoy just beyond its far end.

Buoys 1–3 have a rounding sense that follows the route's turn there and a gate: a ray
of cells from the buoy in a hex direction pointing away from the route. Gate crossings
are counted cell by cell by :meth:`Course.step`, the one implementation that both the
rules and the validator use.
"""

from __future__ import annotations

import itertools
import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from .errors import CourseError
from .hexgrid import (
    Hex,
    axial_to_offset,
    distance,
    geometric,
    left,
    nearest_direction,
    neighbor,
    ray,
    right,
    side_of_line,
)
from .lake import LETTERS, Lake, assemble_lake

LINE_LENGTH = 5
BUOYS = (1, 2, 3)
FINISHED_ROUNDING = 4  # value of ``next_buoy`` once buoy 3 is rounded

Entries = tuple[int, int, int]
NO_ENTRIES: Entries = (0, 0, 0)


class Sense(StrEnum):
    """The rounding sense of a buoy, as its arrows show it."""

    CCW = "ccw"  # leftward: counter-clockwise as seen on the board
    CW = "cw"  # rightward: clockwise

    @property
    def word(self) -> str:
        return "leftward" if self is Sense.CCW else "rightward"


@dataclass(frozen=True, slots=True)
class Gate:
    """The chevrons of buoy 1, 2 or 3 (R4).

    ``cells`` are ``buoy + k·d`` for k = 1, 2, ... while inside the lake (land
    included). ``scoring_from`` is the side (+1 = counter-clockwise of ``d``,
    -1 = clockwise of ``d``) a crossing in the scoring direction comes from.
    """

    buoy: int
    cell: Hex
    direction: int
    sense: Sense
    cells: tuple[Hex, ...]

    @property
    def scoring_from(self) -> int:
        return -1 if self.sense is Sense.CCW else 1

    def side(self, cell: Hex) -> int:
        return side_of_line(self.cell, self.direction, cell)


class _Rays(dict[Hex, tuple[tuple[Hex, ...], ...]]):
    """``rays[cell][d]``: the free cells from ``cell`` along ``d`` up to the first obstacle,
    computed for a cell the first time it is asked for."""

    __slots__ = ("free",)

    def __init__(self, free: frozenset[Hex]) -> None:
        super().__init__()
        self.free = free

    def __missing__(self, cell: Hex) -> tuple[tuple[Hex, ...], ...]:
        if cell not in self.free:
            raise KeyError(cell)
        free = self.free
        per_direction = []
        for d in range(6):
            run = []
            for nxt in ray(cell, d):
                if nxt not in free:
                    break
                run.append(nxt)
            per_direction.append(tuple(run))
        value = self[cell] = tuple(per_direction)
        return value


class _Sides(dict[Hex, int]):
    """``sides[cell]``: the side of a gate's line a cell lies on (R4), computed on first use."""

    __slots__ = ("gate",)

    def __init__(self, gate: Gate) -> None:
        super().__init__()
        self.gate = gate

    def __missing__(self, cell: Hex) -> int:
        value = self[cell] = self.gate.side(cell)
        return value


def gate_cells(lake: Lake, buoy: Hex, direction: int) -> tuple[Hex, ...]:
    cells = []
    for cell in ray(buoy, direction):
        if cell not in lake:
            break
        cells.append(cell)
    return tuple(cells)


class Course:
    """A lake with its buoys, start/finish line and gates, precomputed for fast play.

    Obstacles (R1): land, every buoy's cell (0–3 and the finish buoy) and anything
    outside the lake. ``rays[cell][d]`` lists the free cells from ``cell`` along
    ``d`` up to the first obstacle; ``sides[i][cell]`` is the side of gate ``i+1``'s line
    a cell lies on. Both are filled per cell on first use, so that building a course (for
    example from a stored record) costs little and a game only pays for the cells its boats
    visit.
    """

    def __init__(
        self,
        lake: Lake,
        letter: str,
        buoys: Sequence[Hex],
        line: Sequence[Hex],
        gates: Sequence[Gate],
        finish_buoy: Hex | None = None,
    ) -> None:
        if len(buoys) != 4:
            raise CourseError("R3", "a course has buoys 0, 1, 2 and 3")
        if [g.buoy for g in gates] != list(BUOYS):
            raise CourseError("R4", "buoys 1, 2 and 3 each need one gate, in order")
        self.lake = lake
        self.letter = letter
        self.buoys: tuple[Hex, Hex, Hex, Hex] = (buoys[0], buoys[1], buoys[2], buoys[3])
        self.finish_buoy = finish_buoy
        self.line = tuple(line)
        self.gates: tuple[Gate, Gate, Gate] = (gates[0], gates[1], gates[2])
        for gate in self.gates:
            if gate.cell != self.buoys[gate.buoy]:
                raise CourseError("R4", f"gate {gate.buoy} must start at its buoy")
            if gate.cells != gate_cells(lake, gate.cell, gate.direction):
                raise CourseError("R4", f"gate {gate.buoy}: cells must run from the buoy to the lake edge")

        buoy_cells = set(self.buoys)
        if finish_buoy is not None:
            buoy_cells.add(finish_buoy)
        self.buoy_cells = frozenset(buoy_cells)
        self.free: frozenset[Hex] = frozenset(lake.water - buoy_cells)
        self.line_set = frozenset(self.line)
        if not self.line_set <= self.free:
            raise CourseError("R3", "the start/finish line must be free water cells")

        self.rays = _Rays(self.free)
        self.gate_sets: tuple[frozenset[Hex], ...] = tuple(frozenset(g.cells) for g in self.gates)
        self.gate_any: frozenset[Hex] = frozenset().union(*self.gate_sets)
        self.sides: tuple[_Sides, ...] = tuple(_Sides(g) for g in self.gates)
        self._scoring = tuple(g.scoring_from for g in self.gates)

    def obstacle(self, cell: Hex) -> str | None:
        """What blocks a boat at ``cell``: ``"land"``, ``"buoy"``, ``"border"`` or None."""
        if cell in self.buoy_cells:
            return "buoy"
        if cell in self.lake.land:
            return "land"
        if cell not in self.lake:
            return "border"
        return None

    def step(self, prev: Hex, cur: Hex, next_buoy: int, count: int, entries: Entries) -> tuple[int, int, Entries, tuple[int, ...]]:
        """Gate bookkeeping for one step of a boat from ``prev`` to the neighbour ``cur`` (R10).

        ``entries[i]`` is the side gate ``i+1`` was entered from while the boat stands
        on its cells (0: none, e.g. it started there). Gates are checked 1, 2, 3 in
        order, so one step can round several buoys. Returns the new next buoy, its
        crossing count, the entries and the buoys rounded by this step.
        """
        gate_any = self.gate_any
        if prev not in gate_any and cur not in gate_any:
            return next_buoy, count, entries, ()
        new_entries = list(entries)
        rounded: tuple[int, ...] = ()
        for i in range(3):
            cells = self.gate_sets[i]
            on_cur = cur in cells
            on_prev = prev in cells
            if on_cur:
                if not on_prev:
                    new_entries[i] = self.sides[i][prev]
            elif on_prev:
                entry = new_entries[i]
                new_entries[i] = 0
                if entry and self.sides[i][cur] == -entry and next_buoy == i + 1:
                    count += 1 if entry == self._scoring[i] else -1
                    if count >= 1:
                        next_buoy += 1
                        count = 0
                        rounded += (i + 1,)
        return next_buoy, count, (new_entries[0], new_entries[1], new_entries[2]), rounded


# --- building a course ---------------------------------------------------------------------


def start_line(lake: Lake, buoy0: Hex, length: int = LINE_LENGTH) -> tuple[tuple[Hex, ...], Hex | None]:
    """The start/finish line by buoy 0 and the finish buoy's cell (R3).

    Buoy 0 is projected onto the nearer long edge of the lake (the top or bottom
    row): the edge cell closest to it. The line starts there (or at the next cell
    if buoy 0 itself stands on that edge) and runs ``length`` cells along the edge
    towards the middle of the lake; the finish buoy stands on the next cell.
    """
    row = 0 if buoy0[1] < lake.height / 2 else lake.height - 1
    edge = lake.edge_row_cells(row)
    centre = (lake.width - 1) / 2
    start_index = min(
        range(len(edge)),
        key=lambda i: (distance(edge[i], buoy0), abs(axial_to_offset(edge[i])[0] - centre)),
    )
    step = 1 if axial_to_offset(edge[start_index])[0] <= centre else -1
    if edge[start_index] == buoy0:
        start_index += step
    indices = [start_index + k * step for k in range(length)]
    if not all(0 <= i < len(edge) for i in indices):
        raise CourseError("R3", "the start/finish line does not fit along the edge")
    line = tuple(edge[i] for i in indices)
    after = start_index + length * step
    finish = edge[after] if 0 <= after < len(edge) else None
    return line, finish


def _unit(v: tuple[float, float]) -> tuple[float, float]:
    n = (v[0] ** 2 + v[1] ** 2) ** 0.5
    return (v[0] / n, v[1] / n) if n else (0.0, 0.0)


def route_gate(prev_point: Hex, buoy: Hex, next_point: Hex) -> tuple[Sense, int]:
    """The rounding sense and gate direction of a buoy from the route's turn there (R3, R4).

    The sense follows the turn (a left turn rounds leftward, counter-clockwise). The
    gate points away from the route: along the outer bisector of the turn, or for a
    straight route to the side the boat passes the buoy on.
    """
    u = geometric((buoy[0] - prev_point[0], buoy[1] - prev_point[1]))
    w = geometric((next_point[0] - buoy[0], next_point[1] - buoy[1]))
    turn = u[0] * w[1] - u[1] * w[0]
    sense = Sense.CW if turn < -1e-9 else Sense.CCW
    a = _unit((-u[0], -u[1]))
    b = _unit(w)
    outward = (-(a[0] + b[0]), -(a[1] + b[1]))
    if (outward[0] ** 2 + outward[1] ** 2) ** 0.5 < 0.35:
        # (nearly) straight on: the boat passes on the buoy's right for a leftward
        # rounding, on its left for a rightward one.
        outward = (u[1], -u[0]) if sense is Sense.CCW else (-u[1], u[0])
    return sense, nearest_direction(outward)


def build_course(lake: Lake, letter: str, order: Sequence[Hex], line_length: int = LINE_LENGTH) -> Course:
    """Buoys 0–3 on the given spots (in that order), with line, senses and gates."""
    if letter not in LETTERS:
        raise CourseError("R3", f"unknown course letter {letter!r}")
    line, finish = start_line(lake, order[0], line_length)
    if any(cell not in lake.water or cell in order for cell in line):
        raise CourseError("R3", "the start/finish line must run over free water")
    middle = line[len(line) // 2]
    points = [middle, order[1], order[2], order[3], middle]
    gates = []
    for number in BUOYS:
        sense, direction = route_gate(points[number - 1], points[number], points[number + 1])
        gates.append(Gate(number, order[number], direction, sense, gate_cells(lake, order[number], direction)))
    return Course(lake, letter, order, line, gates, finish)


# --- validating a course -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CourseCheck:
    """The validator's verdict, with a witness when the course is good.

    ``witness`` is a start cell and heading followed by single-cell steps (each
    straight on or 60° left or right, as a boat holding one die showing 1 may move)
    that rounds buoys 1, 2, 3 in order and reaches the finish. ``rounded_at[i]`` is
    the step at which buoy ``i+1`` is rounded along that witness.
    """

    ok: bool
    reason: str
    witness: tuple[Hex, ...] = ()
    start_heading: int = 0
    rounded_at: tuple[int, ...] = ()


MIN_COUNT = -2  # the search does not explore boats that crossed the next gate the wrong way 3 times


def validate_course(course: Course) -> CourseCheck:
    """Prove that every buoy can be rounded in order and the finish reached (R3).

    Breadth-first search over (cell, heading, next buoy, crossing count, gate entries)
    from every start cell and heading, moving one cell per turn straight on or 60°
    left or right. Every step of the witness is a legal move for a boat holding one
    die showing 1 (R6, R7), and crossings are counted by :meth:`Course.step` exactly
    as in play, so the witness is a real way round the course.
    """
    free = course.free
    line_cells = [c for c in course.line if c in free]
    if len(line_cells) < 2:
        return CourseCheck(False, "R5: the start/finish line needs two free cells")
    for gate in course.gates:
        if not any(c in free for c in gate.cells):
            return CourseCheck(False, f"R4: buoy {gate.buoy}'s gate has no water cell to cross")

    State = tuple[Hex, int, int, int, Entries]
    parent: dict[State, State | None] = {}
    queue: deque[State] = deque()
    for cell in line_cells:
        for heading in range(6):
            s: State = (cell, heading, 1, 0, NO_ENTRIES)
            parent[s] = None
            queue.append(s)
    best_next = 1
    goal: State | None = None
    line = course.line_set
    while queue:
        state = queue.popleft()
        cell, heading, nb, count, entries = state
        for d in (heading, left(heading), right(heading)):
            nxt = neighbor(cell, d)
            if nxt not in free:
                continue
            nb2, count2, entries2, _ = course.step(cell, nxt, nb, count, entries)
            if count2 < MIN_COUNT:
                continue
            new: State = (nxt, d, nb2, count2, entries2)
            if new in parent:
                continue
            parent[new] = state
            best_next = max(best_next, nb2)
            if nb2 == FINISHED_ROUNDING and nxt in line:
                goal = new
                queue.clear()
                break
            queue.append(new)
    if goal is None:
        if best_next <= 3:
            return CourseCheck(False, f"R3: buoy {best_next} cannot be rounded from the start line")
        return CourseCheck(False, "R3: the finish cannot be reached after rounding buoy 3")
    chain: list[State] = []
    node: State | None = goal
    while node is not None:
        chain.append(node)
        node = parent[node]
    chain.reverse()
    rounded_at = tuple(i for i in range(1, len(chain)) if chain[i][2] != chain[i - 1][2])
    return CourseCheck(True, "ok", tuple(s[0] for s in chain), chain[1][1], rounded_at)


def generate_course(
    lake: Lake, letter: str, rng: random.Random | None = None, line_length: int = LINE_LENGTH
) -> Course | None:
    """A validated course on ``letter``'s spots: the buoy orders are tried in random order."""
    rng = rng or random.SystemRandom()
    spots = lake.spots_of(letter)
    if len(spots) != 4:
        raise CourseError("R2", f"the lake has {len(spots)} {letter}-spots, not 4")
    orders = list(itertools.permutations(spots))
    rng.shuffle(orders)
    for order in orders:
        try:
            course = build_course(lake, letter, order, line_length)
        except CourseError:
            continue
        if validate_course(course).ok:
            return course
    return None


def new_course(side: str = "standard", letter: str | None = None, rng: random.Random | None = None) -> Course:
    """A fresh lake (R2) and a validated course on it (R3); ``letter=None`` picks one."""
    rng = rng or random.SystemRandom()
    for _ in range(200):
        lake = assemble_lake(side, rng)
        letters = [letter] if letter else rng.sample(LETTERS, len(LETTERS))
        for choice in letters:
            course = generate_course(lake, choice, rng)
            if course is not None:
                return course
    raise CourseError("R3", f"no valid {letter or ''} course found on {side} lakes")


def new_courses(
    side: str = "standard", letters: Sequence[str] = LETTERS, rng: random.Random | None = None
) -> tuple[Course, ...]:
    """One fresh lake (R2) with a validated course for each letter on it (R3): the courses of a
    series, races A, B and C on the same lake. Lakes are drawn until every letter gives a
    course that the validator proves (on the expert side about one lake in six does)."""
    rng = rng or random.SystemRandom()
    for _ in range(500):
        lake = assemble_lake(side, rng)
        courses = []
        for letter in letters:
            course = generate_course(lake, letter, rng)
            if course is None:
                break
            courses.append(course)
        else:
            return tuple(courses)
    raise CourseError("R3", f"no {side} lake found with valid {', '.join(letters)} courses")
