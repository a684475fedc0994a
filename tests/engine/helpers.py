"""Small lakes drawn as text for rule tests.

Tokens (odd-r offset rows, odd rows drawn half a cell to the right):
``.`` water, ``#`` land, ``0``–``3`` buoys, ``F`` the finish buoy, ``=`` a start/finish
cell, ``Y R O P K G`` boats (on water: yellow, red, orange, purple, black, green). Gates are
given separately as direction and sense.
"""

from __future__ import annotations

import itertools

from games.engine import Boat, Course, GameState, Gate, Lake, Phase, Rules, Sense
from games.engine.course import gate_cells
from games.engine.hexgrid import Hex, direction_by_name

BOAT_TOKENS = {"Y": "yellow", "R": "red", "O": "orange", "P": "purple", "K": "black", "G": "green"}


class Map:
    def __init__(self, text: str, gates: dict[int, tuple[str, str]] | None = None) -> None:
        lake, tokens = Lake.from_text(text)
        self.tokens = tokens
        cells = {tok: [c for c, t in tokens.items() if t == tok] for tok in set(tokens.values())}
        self.boats: dict[str, Hex] = {BOAT_TOKENS[t]: cells[t][0] for t in BOAT_TOKENS if t in cells}
        buoys = [cells[str(n)][0] for n in range(4)]
        gates = gates or {1: ("E", "ccw"), 2: ("E", "ccw"), 3: ("E", "ccw")}
        gate_list = []
        for number in (1, 2, 3):
            direction = direction_by_name(gates[number][0])
            gate_list.append(
                Gate(number, buoys[number], direction, Sense(gates[number][1]), gate_cells(lake, buoys[number], direction))
            )
        finish = cells["F"][0] if "F" in cells else None
        line = sorted(cells.get("=", []), key=lambda c: (c[1], c[0]))
        self.course = Course(lake, "A", buoys, line, gate_list, finish)

    def cell(self, token: str) -> Hex:
        return next(c for c, t in self.tokens.items() if t == token)

    def state(self, to_move: str, boats: dict[str, dict[str, object]], phase: Phase = Phase.DICE,
              rules: Rules | None = None, start: str | None = None, positions: tuple[str, ...] = ()) -> GameState:
        """A position with the named boats at their map cells; ``boats`` gives each one's fields
        (in seat order). ``rules`` (the online rules by default), the ``start`` player and the
        ``positions`` taken so far by colour, for a race of the boxed game."""
        order = list(boats)
        made = []
        # a boat not drawn on the map waits on the last free water cell (bottom right)
        spare = max(self.course.free - set(self.boats.values()), key=lambda c: (c[1], c[0] + c[1] / 2))
        for color in order:
            fields = {"moves": 1, **boats[color]}
            fields.setdefault("cell", self.boats.get(color, spare))
            made.append(Boat(color, **fields))  # type: ignore[arg-type]
        if rules is None:
            return GameState(self.course, tuple(made), phase, order.index(to_move))
        return GameState(self.course, tuple(made), phase, order.index(to_move), rules=rules,
                         start=order.index(start or to_move), positions=tuple(order.index(c) for c in positions))


def open_course(
    buoys: dict[int, Hex],
    gates: dict[int, tuple[str, str]],
    line: list[Hex],
    width: int = 17,
    height: int = 13,
    land: tuple[Hex, ...] = (),
    finish: Hex | None = None,
) -> Course:
    """An all-water lake of ``width`` × ``height`` cells (plus ``land``) with the given buoys."""
    from games.engine.hexgrid import offset_to_axial

    terrain = {offset_to_axial(c, r): "water" for c in range(width) for r in range(height)}
    for cell in land:
        if cell in terrain:
            terrain[cell] = "land"
    lake = Lake.from_cells(width, height, terrain)
    gate_list = []
    for number in (1, 2, 3):
        direction = direction_by_name(gates[number][0])
        gate_list.append(
            Gate(number, buoys[number], direction, Sense(gates[number][1]), gate_cells(lake, buoys[number], direction))
        )
    return Course(lake, "A", [buoys[n] for n in range(4)], line, gate_list, finish)


def cells_from(start: Hex, steps: str) -> list[Hex]:
    """``start`` followed by the cells reached by single steps, e.g. ``"NW NW E"``."""
    from games.engine.hexgrid import neighbor

    cells = [start]
    for name in steps.split():
        cells.append(neighbor(cells[-1], direction_by_name(name)))
    return cells


def walk(course: Course, cells: list[Hex], next_buoy: int = 1, count: int = 0, entries=(0, 0, 0)):
    """Gate bookkeeping along a walk (R10): returns next buoy, count, entries, buoys rounded."""
    from games.engine.hexgrid import distance

    rounded: list[int] = []
    for prev, cur in itertools.pairwise(cells):
        assert distance(prev, cur) == 1, f"{prev} and {cur} are not neighbours"
        assert cur in course.free, f"{cur} is not free water"
        next_buoy, count, entries, now = course.step(prev, cur, next_buoy, count, entries)
        rounded += now
    return next_buoy, count, entries, rounded
