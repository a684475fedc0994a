"""The lake as SVG, drawn on the server with the standard library.

Pointy-top hexes (the engine's grid, docs/rules.md). The chevrons of each boat's next
buoy and of the buoy it rounded last are always drawn; those of the other buoys appear
when the pointer is over the buoy (CSS only, as on Mastermoves). Direction options after a
roll are drawn as arrows with their reach, crash and damage; placeable start cells are
marked for the player who places.

The static layers (lake, islands, spots, start/finish line, buoys, gates) depend on the
course alone: they are drawn once per course and process and reused (:func:`static_layers`);
which gates are shown is a class on the ``<svg>`` element. Boats, paths, previews and
placeable cells are drawn per request.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html import escape

from games.engine import DIRECTION_NAMES, DIRECTIONS, Course, Hex
from games.engine.hexgrid import corners, pixel

SIZE = 20.0
SQRT3 = math.sqrt(3)
BOAT_COLORS = {"yellow": "#f2c12e", "red": "#d64541"}


@dataclass(frozen=True)
class BoatView:
    color: str
    cell: Hex | None
    heading: int
    path: tuple[Hex, ...] = ()
    start: Hex | None = None
    next_buoy: int = 1
    finished: bool = False
    sunk: bool = False


@dataclass(frozen=True)
class OptionView:
    direction: int
    path: tuple[Hex, ...]
    final: Hex
    reach: int
    total: int
    allowed: bool
    crash: bool
    damage: int
    rounded: tuple[int, ...] = ()
    finishes: bool = False
    sinks: bool = False


@dataclass
class Board:
    course: Course
    boats: Sequence[BoatView] = ()
    options: Sequence[OptionView] = ()
    placeable: Iterable[Hex] = ()
    focus: str | None = None  # the viewer's colour: whose chevrons are always shown
    out: list[str] = field(default_factory=list)

    def xy(self, cell: Hex) -> tuple[float, float]:
        return pixel(cell, SIZE)

    def render(self) -> str:
        head, base, buoys = static_layers(self.course)
        shows = "".join(f" shows-{n}" for n in sorted(self._always_shown()))
        self.out.append(f'<svg class="board {self.course.lake.side}{shows}" {head}>')
        self.out.append(base)
        self._paths()
        self.out.append(buoys)
        self._placeable()
        self._options()
        self._boats()
        self.out.append("</svg>")
        return "".join(self.out)

    def render_static(self) -> tuple[str, str, str]:
        """The attributes of the ``<svg>`` element, the lake and line, and the buoys with
        their gates: what depends on the course alone."""
        lake = self.course.lake
        xs, ys = zip(*(self.xy(c) for c in lake.cells), strict=True)
        pad = SIZE * 1.6
        x0, y0 = min(xs) - pad, min(ys) - pad
        width, height = max(xs) - x0 + pad, max(ys) - y0 + pad
        head = (f'xmlns="http://www.w3.org/2000/svg" viewBox="{x0:.1f} {y0:.1f} {width:.1f} {height:.1f}" '
                f'role="img" aria-label="the lake"')
        self.out = []
        self.out.append(
            "<defs>"
            '<pattern id="chequer" width="8" height="8" patternUnits="userSpaceOnUse">'
            '<rect width="8" height="8" fill="#fff"/><rect width="4" height="4" fill="#222"/>'
            '<rect x="4" y="4" width="4" height="4" fill="#222"/></pattern>'
            '<marker id="head" viewBox="0 0 10 10" refX="7" refY="5" markerWidth="5" markerHeight="5" orient="auto">'
            '<path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker>'
            "</defs>"
        )
        self.out.append(
            f'<rect class="border" x="{x0 + pad * 0.35:.1f}" y="{y0 + pad * 0.35:.1f}" width="{width - pad * 0.7:.1f}" '
            f'height="{height - pad * 0.7:.1f}" rx="{SIZE * 0.6:.1f}"/>'
        )
        self._cells()
        self._line()
        base = "".join(self.out)
        self.out = []
        self._buoys()
        buoys = "".join(self.out)
        self.out = []
        return head, base, buoys

    # --- layers ---------------------------------------------------------------------

    def _poly(self, cell: Hex, cls: str, extra: str = "") -> str:
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in corners(cell, SIZE))
        return f'<polygon class="{cls}" points="{points}"{extra}/>'

    def _cells(self) -> None:
        lake = self.course.lake
        self.out.append('<g class="cells">')
        for cell in sorted(lake.cells, key=lambda c: (c[1], c[0])):
            cls = "land" if cell in lake.land else "water"
            self.out.append(self._poly(cell, cls, f' data-q="{cell[0]}" data-r="{cell[1]}"'))
            if cell in lake.spots and cell not in self.course.buoy_cells:
                x, y = self.xy(cell)
                self.out.append(f'<text class="spot" x="{x:.1f}" y="{y + 4:.1f}">{lake.spots[cell]}</text>')
        self.out.append("</g>")

    def _line(self) -> None:
        self.out.append('<g class="start-finish"><title>start/finish line</title>')
        for cell in self.course.line:
            self.out.append(self._poly(cell, "line"))
        self.out.append("</g>")

    def _paths(self) -> None:
        for boat in self.boats:
            if not boat.path or boat.start is None:
                continue
            points = " ".join(f"{x:.1f},{y:.1f}" for x, y in (self.xy(c) for c in (boat.start, *boat.path)))
            self.out.append(
                f'<polyline class="last-path {boat.color}" points="{points}" stroke="{BOAT_COLORS.get(boat.color, "#333")}">'
                f"<title>{boat.color.capitalize()}'s last move</title></polyline>"
            )

    def _always_shown(self) -> set[int]:
        """Buoys whose chevrons are always drawn: the viewer's next and last rounded
        (every boat's when the viewer does not play)."""
        shown: set[int] = set()
        for boat in self.boats:
            if self.focus and boat.color != self.focus:
                continue
            if boat.next_buoy <= 3:
                shown.add(boat.next_buoy)
            if boat.next_buoy >= 2:
                shown.add(boat.next_buoy - 1)
        return shown

    def _buoys(self) -> None:
        course = self.course
        for number, cell in enumerate(course.buoys):
            x, y = self.xy(cell)
            gate = course.gates[number - 1] if number >= 1 else None
            self.out.append(f'<g class="buoy-group" data-buoy="{number}">')
            if gate is not None:
                self._chevrons(gate)
            kind = "start" if number == 0 else "round"
            title = "buoy 0 (start)" if number == 0 else f"buoy {number}, rounded {gate.sense.word if gate else ''}"
            self.out.append(f"<title>{escape(title)}</title>")
            self.out.append(f'<circle class="buoy {kind}" cx="{x:.1f}" cy="{y:.1f}" r="{SIZE * 0.55:.1f}"/>')
            self.out.append(f'<text class="buoy-number" x="{x:.1f}" y="{y + 4.5:.1f}">{number}</text>')
            if gate is not None:
                self._rounding_arrow(x, y, gate.sense.value == "ccw")
            self.out.append("</g>")
        if course.finish_buoy is not None:
            x, y = self.xy(course.finish_buoy)
            self.out.append(
                f'<g class="buoy-group"><title>finish buoy</title><circle class="buoy finish" cx="{x:.1f}" cy="{y:.1f}" '
                f'r="{SIZE * 0.55:.1f}"/><text class="buoy-number" x="{x:.1f}" y="{y + 4.5:.1f}">F</text></g>'
            )

    def _rounding_arrow(self, x: float, y: float, ccw: bool) -> None:
        """A three-quarter circle round the buoy with an arrowhead in the rounding sense."""
        r = SIZE * 0.85
        # on screen (y down) counter-clockwise as seen means decreasing SVG angle
        a0, a1 = (math.radians(60), math.radians(-200)) if ccw else (math.radians(120), math.radians(380))
        sx, sy = x + r * math.cos(a0), y + r * math.sin(a0)
        ex, ey = x + r * math.cos(a1), y + r * math.sin(a1)
        sweep = 0 if ccw else 1
        self.out.append(
            f'<path class="rounding" d="M{sx:.1f},{sy:.1f} A{r:.1f},{r:.1f} 0 1 {sweep} {ex:.1f},{ey:.1f}" '
            f'marker-end="url(#head)"/>'
        )

    def _chevrons(self, gate: object) -> None:
        from games.engine.course import Gate

        assert isinstance(gate, Gate)
        dx, dy = DIRECTIONS[gate.direction]
        gx, gy = pixel((dx, dy), 1.0)
        norm = math.hypot(gx, gy)
        gx, gy = gx / norm, gy / norm
        # the scoring crossing goes from side `scoring_from` to the other side; +1 is
        # counter-clockwise of d as seen, i.e. (gy, -gx) on screen
        sign = -gate.scoring_from
        px, py = gy * sign, -gx * sign
        self.out.append(f'<g class="gate" data-gate="{gate.buoy}">')
        wing, depth = SIZE * 0.32, SIZE * 0.26
        for cell in gate.cells:
            cx, cy = self.xy(cell)
            on_land = " on-land" if cell in self.course.lake.land else ""
            for shift in (-0.22, 0.22):  # a double chevron, », pointing across the gate
                bx, by = cx + px * SIZE * shift, cy + py * SIZE * shift
                tip = (bx + px * depth / 2, by + py * depth / 2)
                left = (bx - px * depth / 2 + gx * wing, by - py * depth / 2 + gy * wing)
                right = (bx - px * depth / 2 - gx * wing, by - py * depth / 2 - gy * wing)
                self.out.append(
                    f'<polyline class="chevron{on_land}" points="{left[0]:.1f},{left[1]:.1f} '
                    f'{tip[0]:.1f},{tip[1]:.1f} {right[0]:.1f},{right[1]:.1f}"/>'
                )
        self.out.append("</g>")

    def _placeable(self) -> None:
        for cell in self.placeable:
            self.out.append(
                self._poly(cell, "placeable", f' data-q="{cell[0]}" data-r="{cell[1]}" tabindex="0"')
            )

    def _options(self) -> None:
        for option in self.options:
            boat = next((b for b in self.boats if b.cell is not None and b.color == self.focus), None)
            start = boat.cell if boat else None
            if start is None:
                continue
            cells = [start, *option.path] if option.path else [start]
            points = [self.xy(c) for c in cells]
            # an arrow one third of a cell long shows a boat that turns without moving
            if len(points) == 1:
                dx, dy = pixel(DIRECTIONS[option.direction], SIZE * 0.6)
                points.append((points[0][0] + dx, points[0][1] + dy))
            text = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            cls = "option" + (" allowed" if option.allowed else " refused") + (" crash" if option.crash else "")
            label = str(len(option.path))
            if option.crash:
                label += f" ×{option.damage}"
            if option.finishes:
                label += " F"
            name = DIRECTION_NAMES[option.direction]
            title = f"{name}: {len(option.path)} cells" + (f", crash: {option.damage} damage" if option.crash else "")
            if option.rounded:
                title += ", rounds buoy " + " and ".join(map(str, option.rounded))
            if option.finishes:
                title += ", finishes"
            if not option.allowed:
                title += " (not allowed: another direction goes further)"
            lx, ly = points[-1]
            self.out.append(
                f'<g class="{cls}" data-direction="{option.direction}"><title>{escape(title)}</title>'
                f'<polyline points="{text}" marker-end="url(#head)"/>'
                f'<circle class="option-end" cx="{lx:.1f}" cy="{ly:.1f}" r="{SIZE * 0.5:.1f}"/>'
                f'<text x="{lx:.1f}" y="{ly + 4:.1f}">{escape(label)}</text></g>'
            )

    def _boats(self) -> None:
        for boat in self.boats:
            if boat.cell is None:
                continue
            x, y = self.xy(boat.cell)
            angle = -60 * boat.heading
            s = SIZE
            hull = f"{s * 0.75:.1f},0 {s * 0.2:.1f},{-s * 0.38:.1f} {-s * 0.6:.1f},{-s * 0.3:.1f} " \
                   f"{-s * 0.6:.1f},{s * 0.3:.1f} {s * 0.2:.1f},{s * 0.38:.1f}"
            state = " sunk" if boat.sunk else " finished" if boat.finished else ""
            fill = BOAT_COLORS.get(boat.color, "#888")
            self.out.append(
                f'<g class="boat {boat.color}{state}" transform="translate({x:.1f},{y:.1f}) rotate({angle})">'
                f"<title>{boat.color.capitalize()}, heading {DIRECTION_NAMES[boat.heading]}</title>"
                f'<polygon points="{hull}" fill="{fill}"/><circle r="{s * 0.12:.1f}" cx="{-s * 0.15:.1f}" cy="0"/></g>'
            )


_STATIC: weakref.WeakKeyDictionary[Course, tuple[str, str, str]] = weakref.WeakKeyDictionary()


def static_layers(course: Course) -> tuple[str, str, str]:
    """The course's static layers, drawn once per course object (courses are cached per
    process by their key, games.state.course_by_key, and are immutable)."""
    layers = _STATIC.get(course)
    if layers is None:
        layers = _STATIC[course] = Board(course).render_static()
    return layers


def board_svg(
    course: Course,
    boats: Sequence[BoatView] = (),
    options: Sequence[OptionView] = (),
    placeable: Iterable[Hex] = (),
    focus: str | None = None,
) -> str:
    return Board(course, boats, options, placeable, focus).render()
