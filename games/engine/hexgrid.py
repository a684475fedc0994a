"""Hex grid on axial coordinates (Red Blob Games' conventions).

A cell is a pair ``(q, r)``. Hexes are drawn *pointy-top*; ``r`` grows downward on
the drawn board and ``q`` grows to the east. The six directions are numbered
``0..5`` in **counter-clockwise order as seen on the drawn board**, starting east::

    2 NW   1 NE
  3 W    *    0 E
    4 SW   5 SE

So turning 60° to the left (counter-clockwise) is ``d + 1`` and to the right is
``d - 1`` (mod 6).

>>> neighbor((0, 0), 1)
(1, -1)
>>> distance((0, 0), (2, -1))
2
>>> left(0), right(0)
(1, 5)
"""

from __future__ import annotations

from collections.abc import Iterator

Hex = tuple[int, int]

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
DIRECTION_NAMES: tuple[str, ...] = ("E", "NE", "NW", "W", "SW", "SE")
ORIENTATION = "pointy-top"


def direction_by_name(name: str) -> int:
    """Index of a direction from its compass name (``E``, ``NE``, ...), case-insensitive."""
    try:
        return DIRECTION_NAMES.index(name.upper())
    except ValueError:
        raise ValueError(f"unknown direction {name!r}; use one of {', '.join(DIRECTION_NAMES)}") from None


def left(direction: int) -> int:
    """The direction 60° counter-clockwise of ``direction``."""
    return (direction + 1) % 6


def right(direction: int) -> int:
    """The direction 60° clockwise of ``direction``."""
    return (direction - 1) % 6


def neighbor(cell: Hex, direction: int) -> Hex:
    dq, dr = DIRECTIONS[direction]
    return (cell[0] + dq, cell[1] + dr)


def neighbors(cell: Hex) -> Iterator[Hex]:
    q, r = cell
    for dq, dr in DIRECTIONS:
        yield (q + dq, r + dr)


def ray(cell: Hex, direction: int) -> Iterator[Hex]:
    """Cells ``cell + k·d`` for k = 1, 2, ... (endless; the caller stops)."""
    dq, dr = DIRECTIONS[direction]
    q, r = cell
    while True:
        q += dq
        r += dr
        yield (q, r)


def distance(a: Hex, b: Hex) -> int:
    dq = a[0] - b[0]
    dr = a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def seen(cell: Hex) -> tuple[int, int]:
    """Integer coordinates proportional to the drawn position, with y pointing *up*.

    x is twice the horizontal position in half-hex units, y is -2r. Only ratios,
    signs and cross products of these are meaningful.
    """
    q, r = cell
    return (2 * q + r, -2 * r)


def geometric(vector: Hex) -> tuple[float, float]:
    """A cell or axial vector in true drawn proportions (unit = hex circumradius), y up."""
    q, r = vector
    return (3**0.5 * (q + r / 2), -1.5 * r)


def cross(d: Hex, v: Hex) -> int:
    """Sign-meaningful 2-D cross product of two axial vectors as seen on the board.

    Positive when ``v`` lies counter-clockwise (to the left) of ``d``, zero when
    they are parallel.
    """
    dx, dy = seen(d)
    vx, vy = seen(v)
    return dx * vy - dy * vx


def side_of_line(origin: Hex, direction: int, cell: Hex) -> int:
    """Which side of the line through ``origin`` along ``direction`` a cell is on.

    +1: counter-clockwise (left) of the direction as seen on the board; -1: clockwise
    (right); 0: on the line itself (in either direction). A line of cells along a hex
    axis is a wall: a step between neighbours never goes from +1 to -1 directly.
    """
    c = cross(DIRECTIONS[direction], (cell[0] - origin[0], cell[1] - origin[1]))
    return (c > 0) - (c < 0)


def offset_to_axial(col: int, row: int) -> Hex:
    """Odd-r offset (odd rows shoved right by half a hex) to axial."""
    return (col - (row - (row & 1)) // 2, row)


def axial_to_offset(cell: Hex) -> tuple[int, int]:
    q, r = cell
    return (q + (r - (r & 1)) // 2, r)


def pixel(cell: Hex, size: float) -> tuple[float, float]:
    """Centre of a pointy-top hex of circumradius ``size``; y grows downward (SVG)."""
    q, r = cell
    return (size * 3**0.5 * (q + r / 2), size * 1.5 * r)


def corners(cell: Hex, size: float) -> list[tuple[float, float]]:
    """The six corners of a pointy-top hex, for drawing."""
    import math

    cx, cy = pixel(cell, size)
    return [
        (cx + size * math.cos(math.radians(60 * i - 30)), cy + size * math.sin(math.radians(60 * i - 30)))
        for i in range(6)
    ]


def nearest_direction(vector: tuple[float, float]) -> int:
    """The hex direction closest in angle to a vector in ``geometric`` coordinates."""
    vx, vy = vector
    best = 0
    best_dot = float("-inf")
    for index, d in enumerate(DIRECTIONS):
        dx, dy = geometric(d)
        dot = (dx * vx + dy * vy) / 3**0.5
        if dot > best_dot + 1e-9:
            best, best_dot = index, dot
    return best
