"""Distances round a course: how many short moves are still needed to finish.

Computed once per course by a breadth-first search backwards from the finish over
nodes ``(next buoy, crossing count, cell, heading, side the next gate was entered
from)``. One unit is
one move of a boat holding a single die showing 1: a step to the next cell straight on
or 60° left or right, or a turn on the spot (R7 with total 0). A buoy counts as rounded
when its gate is crossed in the scoring direction (R4, R10); the finish is reached on a
start/finish cell after buoy 3 (R11); a wrong-way crossing lowers the count, as in
play. Boats are ignored, so this is an estimate for planning, not a rule.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Iterator

from .course import FINISHED_ROUNDING, MIN_COUNT, Course
from .hexgrid import Hex, left, neighbor, right

UNREACHABLE = 10_000
Node = tuple[int, int, Hex, int, int]


class _StageMap:
    """Shared by the maps: the nodes of a course and looking up a distance."""

    course: Course
    dist: dict[Node, int]

    @staticmethod
    def nodes(course: Course) -> Iterator[Node]:
        """Every (next buoy, count, cell, heading, entry side) a boat can be in."""
        for stage in range(1, FINISHED_ROUNDING + 1):
            gate_cells = course.gate_sets[stage - 1] if stage <= 3 else frozenset()
            for count in range(MIN_COUNT, 1) if stage <= 3 else (0,):
                for cell in course.free:
                    for heading in range(6):
                        for entry in (0, -1, 1) if cell in gate_cells else (0,):
                            yield (stage, count, cell, heading, entry)

    @staticmethod
    def search(reverse: dict[Node, list[Node]], goals: list[Node]) -> dict[Node, int]:
        """Breadth-first, backwards from the nodes one move from the finish."""
        dist: dict[Node, int] = {}
        queue: deque[Node] = deque()
        for node in goals:
            if node not in dist:
                dist[node] = 1
                queue.append(node)
        while queue:
            node = queue.popleft()
            d = dist[node] + 1
            for pred in reverse.get(node, ()):
                if pred not in dist:
                    dist[pred] = d
                    queue.append(pred)
        return dist

    def distance(self, next_buoy: int, cell: Hex, heading: int, entry: int = 0, count: int = 0) -> int:
        """Distance to the finish from ``cell`` heading ``heading`` with ``next_buoy`` to round,
        its gate's crossing ``count`` and the side it was entered from (if on it)."""
        if next_buoy > FINISHED_ROUNDING:
            return 0
        if next_buoy > 3 or cell not in self.course.gate_sets[next_buoy - 1]:
            entry = 0
        if next_buoy > 3:
            count = 0
        return self.dist.get((next_buoy, count, cell, heading, entry), UNREACHABLE)


class RouteMap(_StageMap):
    def __init__(self, course: Course) -> None:
        self.course = course
        reverse: dict[Node, list[Node]] = {}
        goals: list[Node] = []
        for node in self.nodes(course):
            for succ in self._successors(node):
                if succ is None:
                    goals.append(node)
                else:
                    reverse.setdefault(succ, []).append(node)
        self.dist = self.search(reverse, goals)

    def _successors(self, node: Node) -> list[Node | None]:
        """Nodes one move away; None stands for the finish."""
        stage, count, cell, heading, entry = node
        course = self.course
        out: list[Node | None] = [
            (stage, count, cell, left(heading), entry),
            (stage, count, cell, right(heading), entry),
        ]
        for d in (heading, left(heading), right(heading)):
            nxt = neighbor(cell, d)
            if nxt not in course.free:
                continue
            if stage == FINISHED_ROUNDING:
                out.append(None if nxt in course.line_set else (stage, 0, nxt, d, 0))
                continue
            i = stage - 1
            cells = course.gate_sets[i]
            on_prev, on_cur = cell in cells, nxt in cells
            if on_cur:
                out.append((stage, count, nxt, d, entry if on_prev else course.sides[i][cell]))
            elif on_prev and entry and course.sides[i][nxt] == -entry:
                if entry != course.gates[i].scoring_from:
                    if count - 1 >= MIN_COUNT:
                        out.append((stage, count - 1, nxt, d, 0))
                elif count + 1 < 1:
                    out.append((stage, count + 1, nxt, d, 0))
                else:
                    # rounded (the next gate's entry side is not tracked here)
                    finished = stage + 1 == FINISHED_ROUNDING and nxt in course.line_set
                    out.append(None if finished else (stage + 1, 0, nxt, d, 0))
            else:
                out.append((stage, count, nxt, d, 0))
        return out


class MoveMap(_StageMap):
    """Moves still needed to finish, where one move turns at most 60° and then goes 0 to
    ``reach`` free cells in a straight line (R7 with a total equal to the cells moved).

    Nodes are as in :class:`RouteMap`; the search runs backwards from the finish over the
    reversed move graph. Dice limit which totals a boat can really throw, so this is a
    lower bound on moves, used as the bots' evaluation."""

    def __init__(self, course: Course, reach: int = 8) -> None:
        self.course = course
        self.reach = reach
        rays = course.rays
        line = course.line_set
        step = course.step
        reverse: dict[Node, list[Node]] = {}
        goals: list[Node] = []
        for node in self.nodes(course):
            stage, count, cell, heading, entry = node
            for turn in (left(heading), right(heading)):
                reverse.setdefault((stage, count, cell, turn, entry), []).append(node)
            entries = [0, 0, 0]
            if stage <= 3:
                entries[stage - 1] = entry
            for d in (heading, left(heading), right(heading)):
                nb, ct, es = stage, count, (entries[0], entries[1], entries[2])
                prev = cell
                for nxt in rays[cell][d][: self.reach]:
                    nb, ct, es, _ = step(prev, nxt, nb, ct, es)
                    prev = nxt
                    if nb == FINISHED_ROUNDING and nxt in line:
                        goals.append(node)  # this move (and any longer one) finishes
                        break
                    if ct < MIN_COUNT:
                        break
                    e = es[nb - 1] if nb <= 3 else 0
                    reverse.setdefault((nb, ct, nxt, d, e), []).append(node)
        self.dist = self.search(reverse, goals)


class MapCache:
    """Route and move maps of the last few courses, shared by players (a simulation or a
    series plays several courses with several bots; each map takes about 0.1 s to build)."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._maps: OrderedDict[int, tuple[Course, RouteMap, MoveMap | None]] = OrderedDict()

    def _entry(self, course: Course) -> tuple[Course, RouteMap, MoveMap | None]:
        entry = self._maps.get(id(course))
        if entry is None or entry[0] is not course:
            entry = (course, RouteMap(course), None)
            self._maps[id(course)] = entry
            while len(self._maps) > self.size:
                self._maps.popitem(last=False)
        self._maps.move_to_end(id(course))
        return entry

    def route(self, course: Course) -> RouteMap:
        return self._entry(course)[1]

    def moves(self, course: Course) -> MoveMap:
        entry = self._entry(course)
        if entry[2] is None:
            entry = (course, entry[1], MoveMap(course))
            self._maps[id(course)] = entry
        assert entry[2] is not None
        return entry[2]
