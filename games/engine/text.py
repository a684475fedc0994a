"""Draw a course and boats as text (``python -m games.engine show``).

Legend: ``.`` water, ``#`` land, ``0``–``3`` buoys, ``F`` the finish buoy, ``=`` the
start/finish line, ``:`` gate cells (chevrons) in water, ``%`` gate cells on land, boats
by the first letter of their colour in capitals, ``*`` cells of the last path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .course import Course
from .hexgrid import DIRECTION_NAMES, Hex, offset_to_axial


def draw(course: Course, boats: Mapping[Hex, str] | None = None, marks: Iterable[Hex] = ()) -> str:
    boats = boats or {}
    marked = set(marks)
    lake = course.lake
    gate_cells = set().union(*course.gate_sets)
    lines = []
    for row in range(lake.height):
        symbols = [_symbol(course, offset_to_axial(col, row), boats, marked, gate_cells) for col in range(lake.width)]
        lines.append((" " if row % 2 else "") + " ".join(symbols))
    return "\n".join(lines)


def _symbol(course: Course, cell: Hex, boats: Mapping[Hex, str], marked: set[Hex], gates: set[Hex]) -> str:
    if cell in boats:
        return boats[cell][0].upper()
    if cell in course.buoys:
        return str(course.buoys.index(cell))
    if cell == course.finish_buoy:
        return "F"
    if cell in marked:
        return "*"
    if cell in course.line_set:
        return "="
    land = cell in course.lake.land
    if cell in gates:
        return "%" if land else ":"
    return "#" if land else "."


def describe(course: Course) -> str:
    parts = [f"course {course.letter} on a {course.lake.side} lake"]
    for gate in course.gates:
        parts.append(
            f"buoy {gate.buoy} at {gate.cell}, rounded {gate.sense.word}, "
            f"chevrons towards {DIRECTION_NAMES[gate.direction]}"
        )
    parts.append(f"start/finish line {list(course.line)}")
    return "\n".join(parts)
