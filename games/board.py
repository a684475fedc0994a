"""The lake as SVG, drawn on the server with the standard library.

Pointy-top hexes (the engine's grid, docs/rules.md). The chevrons of each boat's next
buoy and of the buoy it rounded last are always drawn; those of the other buoys appear
when the pointer is over the buoy (CSS only, as on Mastermoves). Direction options after a
roll are drawn as arrows with their reach, crash and damage; placeable start cells are
marked for the player who places.

The static layers (lake, islands, spots, start/finish line, buoys, gates) depend on the
course alone: they are drawn once per course and language, stored, and reused by every process
(:func:`static_layers`);
which gates are shown is a class on the ``<svg>`` element. Boats, paths, previews and
placeable cells are drawn per request.
"""

from __future__ import annotations

import hashlib
import logging
import math
import weakref
import zlib
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import Enum
from html import escape
from pathlib import Path

from django.utils.translation import get_language, gettext, ngettext, pgettext, to_locale
from django.utils.translation import gettext as _

from common.lru import LRU
from games.engine import DIRECTIONS, Course, Hex
from games.engine.hexgrid import corners, pixel
from games.reasons import color_name, direction_label

SIZE = 20.0
SQRT3 = math.sqrt(3)
PAD = 2.0  # cells of frame round the lake: room for a preview disc beyond its edge
DISC = 0.6  # radius of a preview disc, in SIZE
HIT = 1.0  # radius of a preview's tap target, in SIZE
OFFSET = 0.8  # a preview that does not move stands this far (in cell distances) off the boat
BOAT_COLORS = {"yellow": "#f2c12e", "red": "#d64541",
               # the other boats of a series (issue 16, R15)
               "orange": "#e8842c", "purple": "#8e5cc2", "black": "#222222", "green": "#3f9c4a"}


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


# A stored drawing (games.models.CourseDrawing) as the game's read brought it: the zlib of the
# three layers, separated by NUL, and the viewBox; None when the course has none yet.
Stored = tuple[bytes, Sequence[float]]


class Unread(Enum):
    UNREAD = "unread"


UNREAD = Unread.UNREAD  # the caller did not read the stored drawing: static_layers reads it


@dataclass
class Board:
    course: Course
    boats: Sequence[BoatView] = ()
    options: Sequence[OptionView] = ()
    placeable: Iterable[Hex] = ()
    focus: str | None = None  # the viewer's colour: whose chevrons are always shown
    key: str | None = None  # the stored course's key: its static layers are kept by it
    stored: Stored | Unread | None = UNREAD  # its stored drawing, when the caller read it
    # a part of a picture, not a lake to read (the rules' legend): hidden from screen readers, and
    # showing only ``view`` (x, y, width, height) of the lake
    decorative: bool = False
    view: tuple[float, float, float, float] | None = None
    out: list[str] = field(default_factory=list)
    box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # the viewBox, set by render_static

    def xy(self, cell: Hex) -> tuple[float, float]:
        return pixel(cell, SIZE)

    def render(self) -> str:
        head, base, buoys, self.box = static_layers(self.course, self.key, self.stored)
        shows = "".join(f" shows-{n}" for n in sorted(self._always_shown()))
        if self.decorative or self.view is not None:
            x, y, w, h = self.view if self.view is not None else self.box
            head = f'xmlns="http://www.w3.org/2000/svg" viewBox="{x:.1f} {y:.1f} {w:.1f} {h:.1f}"' + (
                ' aria-hidden="true"' if self.decorative else f' {_lake_role()}')
            shows += " swatch" if self.decorative else ""
        self.out.append(f'<svg class="board {self.course.lake.side}{shows}" {head}>')
        self.out.append(base)
        self._paths()
        self.out.append(buoys)
        self._placeable()
        self._options()
        self._boats()
        self.out.append("</svg>")
        return "".join(self.out)

    def render_static(self) -> tuple[str, str, str, tuple[float, float, float, float]]:
        """The attributes of the ``<svg>`` element, the lake and line, and the buoys with
        their gates: what depends on the course alone."""
        lake = self.course.lake
        xs, ys = zip(*(self.xy(c) for c in lake.cells), strict=True)
        pad = SIZE * PAD
        x0, y0 = min(xs) - pad, min(ys) - pad
        width, height = max(xs) - x0 + pad, max(ys) - y0 + pad
        head = f'xmlns="http://www.w3.org/2000/svg" viewBox="{x0:.1f} {y0:.1f} {width:.1f} {height:.1f}" {_lake_role()}'
        self.box = (x0, y0, width, height)
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
        self._compass(x0 + pad * 0.3, y0 + pad * 0.68)
        self._line()
        base = "".join(self.out)
        self.out = []
        self._buoys()
        buoys = "".join(self.out)
        self.out = []
        return head, base, buoys, self.box

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
        """The start/finish line, and a dashed connector from buoy 0 to the line cell nearest
        to it: buoy 0 may stand inland, the line starts as close to it as the water allows (R3)."""
        course = self.course
        title = escape(_("start/finish line"))  # outside the f-string: makemessages does not look inside
        self.out.append(f'<g class="start-finish"><title>{title}</title>')
        for cell in course.line:
            self.out.append(self._poly(cell, "line"))
        self.out.append("</g>")
        if not course.buoys or not course.line:
            return
        bx, by = self.xy(course.buoys[0])
        nearest = min(course.line, key=lambda c: math.dist(self.xy(c), (bx, by)))
        lx, ly = self.xy(nearest)
        length = math.dist((bx, by), (lx, ly))
        if length < SIZE * 0.1:
            return
        # from the buoy's rim to the line cell's inner circle
        ux, uy = (lx - bx) / length, (ly - by) / length
        r0, r1 = SIZE * 0.62, SIZE * 0.55
        if length <= r0 + r1:
            return
        x1, y1, x2, y2 = bx + ux * r0, by + uy * r0, lx - ux * r1, ly - uy * r1
        d = f"M{x1:.1f},{y1:.1f} L{x2:.1f},{y2:.1f}"
        title = escape(_("buoy 0 and its start/finish line"))
        self.out.append(
            f'<g class="start-link"><title>{title}</title>'
            f'<path class="start-link-under" d="{d}"/><path class="start-link-over" d="{d}"/></g>'
        )

    def _compass(self, x: float, y: float) -> None:
        """A north arrow: it turns with the lake when a phone shows it upright."""
        s = SIZE * 0.5
        north, letter = escape(_("north")), escape(pgettext("compass", "N"))
        self.out.append(
            f'<g class="compass" transform="translate({x:.1f},{y:.1f})"><title>{north}</title>'
            f'<path d="M0,{-s:.1f} L{s * 0.45:.1f},{s * 0.5:.1f} L0,{s * 0.2:.1f} L{-s * 0.45:.1f},{s * 0.5:.1f} z"/>'
            f'<text x="0" y="{-s - 3:.1f}">{letter}</text></g>'
        )

    def _paths(self) -> None:
        for boat in self.boats:
            if not boat.path or boat.start is None:
                continue
            points = " ".join(f"{x:.1f},{y:.1f}" for x, y in (self.xy(c) for c in (boat.start, *boat.path)))
            title = gettext("last move of %(color)s") % {"color": color_name(boat.color)}
            self.out.append(
                f'<polyline class="last-path {boat.color}" points="{points}" stroke="{BOAT_COLORS.get(boat.color, "#333")}">'
                f"<title>{escape(title)}</title></polyline>"
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
            title = gettext("buoy 0 (start)") if number == 0 else (
                (gettext("buoy %(number)s, rounded leftward") if gate and gate.sense.value == "ccw"
                 else gettext("buoy %(number)s, rounded rightward")) % {"number": number})
            self.out.append(f"<title>{escape(title)}</title>")
            if number == 0:  # chequered like the line it belongs to (R3)
                self.out.append(f'<circle class="buoy-ring" cx="{x:.1f}" cy="{y:.1f}" r="{SIZE * 0.62:.1f}"/>')
                self.out.append(f'<circle class="buoy start" cx="{x:.1f}" cy="{y:.1f}" r="{SIZE * 0.4:.1f}"/>')
            else:
                self.out.append(f'<circle class="buoy {kind}" cx="{x:.1f}" cy="{y:.1f}" r="{SIZE * 0.55:.1f}"/>')
            self.out.append(f'<text class="buoy-number" x="{x:.1f}" y="{y + 4.5:.1f}">{number}</text>')
            if gate is not None:
                self._rounding_arrow(x, y, gate.sense.value == "ccw")
            self.out.append("</g>")
        if course.finish_buoy is not None:
            x, y = self.xy(course.finish_buoy)
            finish = gettext("finish buoy")
            self.out.append(
                f'<g class="buoy-group"><title>{escape(finish)}</title>'
                f'<circle class="buoy-ring" cx="{x:.1f}" cy="{y:.1f}" r="{SIZE * 0.62:.1f}"/>'
                f'<circle class="buoy finish" cx="{x:.1f}" cy="{y:.1f}" r="{SIZE * 0.4:.1f}"/>'
                f'<text class="buoy-number" x="{x:.1f}" y="{y + 4.5:.1f}">F</text></g>'
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
        """The free start cells, each with its number on the line (as the placing form names
        them), and the boat to be placed, hidden until a cell is chosen: static/js/game.js puts it
        on the chosen cell with the chosen heading."""
        cells = list(self.placeable)
        if not cells:
            return
        numbers = {c: i + 1 for i, c in enumerate(self.course.line)}
        for cell in cells:
            x, y = self.xy(cell)
            points = " ".join(f"{px:.1f},{py:.1f}" for px, py in corners(cell, SIZE))
            title = escape(_("start cell %(number)s") % {"number": numbers.get(cell, "?")})
            self.out.append(
                f'<polygon class="placeable" points="{points}" data-q="{cell[0]}" data-r="{cell[1]}" '
                f'data-x="{x:.1f}" data-y="{y:.1f}" tabindex="0"><title>{title}</title></polygon>'
            )
        for cell in cells:
            x, y = self.xy(cell)
            self.out.append(
                f'<text class="start-number" x="{x:.1f}" y="{y:.1f}" dy=".35em" text-anchor="middle" '
                f'font-size="{SIZE * 0.75:.1f}" font-weight="bold" fill="#1d2733" pointer-events="none" '
                f'aria-hidden="true">{numbers.get(cell, "")}</text>'
            )
        fill = BOAT_COLORS.get(self.focus or "", "#888")
        self.out.append(
            f'<g class="place-preview" display="none" opacity="0.8" pointer-events="none" aria-hidden="true">'
            f'<polygon points="{hull_points()}" fill="{fill}" stroke="#1d2733" stroke-width="1.5" '
            f'stroke-dasharray="3 2"/></g>'
        )

    def _options(self) -> None:
        """The previews of the three directions after a roll (R7): an arrow along the path and
        a disc with the cells moved at its end, which is also a tap target. A disc never
        covers a boat: a direction that does not move puts its disc off the boat, towards
        that direction (into the frame at the lake's edge, which has room for it)."""
        boat = next((b for b in self.boats if b.cell is not None and b.color == self.focus), None)
        start = boat.cell if boat else None
        if start is None:
            return
        sx, sy = self.xy(start)
        ends = self._disc_places(start)
        for option in self.options:
            points = [(sx, sy), *(self.xy(c) for c in option.path)]
            if not option.path:
                points.append(ends[option.direction])
            text = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            cls = "option" + (" allowed" if option.allowed else " refused") + (" crash" if option.crash else "")
            label = str(len(option.path))
            if option.crash:
                label += f" ×{option.damage}"
            if option.finishes:
                label += " F"
            name = direction_label(option.direction)
            cells = len(option.path)
            title = f"{name}: " + ngettext("%(cells)s cell", "%(cells)s cells", cells) % {"cells": cells}
            if option.crash:
                title += ", " + gettext("crash: %(damage)s damage") % {"damage": option.damage}
            if option.rounded:
                title += ", " + ngettext("rounds buoy %(buoys)s", "rounds buoys %(buoys)s", len(option.rounded)) % {
                    "buoys": " & ".join(map(str, option.rounded))}
            if option.finishes:
                title += ", " + gettext("finishes!")
            if not option.allowed:
                title += " (" + gettext("not allowed: another direction goes further") + ")"
            lx, ly = points[-1]
            tab = ' tabindex="0" role="button"' if option.allowed else ""
            self.out.append(
                f'<g class="{cls}" data-direction="{option.direction}"{tab}><title>{escape(title)}</title>'
                f'<polyline points="{text}" marker-end="url(#head)"/>'
                f'<circle class="option-hit" cx="{lx:.1f}" cy="{ly:.1f}" r="{SIZE * HIT:.1f}"/>'
                f'<circle class="option-end" cx="{lx:.1f}" cy="{ly:.1f}" r="{SIZE * DISC:.1f}"/>'
                f'<text x="{lx:.1f}" y="{ly + 3.5:.1f}">{escape(label)}</text></g>'
            )

    def _disc_places(self, start: Hex) -> dict[int, tuple[float, float]]:
        """Where the disc of each option that does not move stands: towards its direction,
        off the boat, clear of every boat (one may stand on the next cell: R8's passing shift)
        and of the other discs, inside the frame; the first free place of a few rings round
        the boat. Options that move put their disc on their final cell, which holds no boat."""
        sx, sy = self.xy(start)
        radius = SIZE * DISC
        x0, y0, width, height = self.box
        boats = [self.xy(b.cell) for b in self.boats if b.cell is not None]
        taken = [self.xy(o.path[-1]) for o in self.options if o.path]
        places: dict[int, tuple[float, float]] = {}
        step = SIZE * SQRT3  # the distance between neighbouring cells
        for option in sorted((o for o in self.options if not o.path), key=lambda o: o.direction):
            gx, gy = pixel(DIRECTIONS[option.direction], 1.0)
            base = math.atan2(gy, gx)
            best = (sx + gx * step * OFFSET, sy + gy * step * OFFSET)
            for ring in (OFFSET, 1.25, 1.7):
                found = None
                for turn in (0, 20, -20, 40, -40, 60, -60, 90, -90, 120, -120, 180):
                    a = base + math.radians(turn)
                    x, y = sx + math.cos(a) * step * ring, sy + math.sin(a) * step * ring
                    inside = x0 + radius <= x <= x0 + width - radius and y0 + radius <= y <= y0 + height - radius
                    clear = all(math.dist((x, y), b) >= SIZE * 0.75 + radius for b in boats) and all(
                        math.dist((x, y), t) >= 2 * radius + 1 for t in taken)
                    if inside and clear:
                        found = (x, y)
                        break
                if found is not None:
                    best = found
                    break
            places[option.direction] = best
            taken.append(best)
        return places

    def _boats(self) -> None:
        for boat in self.boats:
            if boat.cell is None:
                continue
            x, y = self.xy(boat.cell)
            angle = -60 * boat.heading
            s = SIZE
            hull = hull_points()
            state = " sunk" if boat.sunk else " finished" if boat.finished else ""
            fill = BOAT_COLORS.get(boat.color, "#888")
            title = gettext("%(color)s, heading %(heading)s") % {"color": color_name(boat.color),
                                                                  "heading": direction_label(boat.heading)}
            self.out.append(
                f'<g class="boat {boat.color}{state}" transform="translate({x:.1f},{y:.1f}) rotate({angle})">'
                f"<title>{escape(title)}</title>"
                f'<polygon points="{hull}" fill="{fill}"/><circle r="{s * 0.12:.1f}" cx="{-s * 0.15:.1f}" cy="0"/></g>'
            )


def hull_points() -> str:
    """A boat's hull pointing east (heading 0), round its cell's centre; ``rotate(-60 × heading)``
    turns it to its heading."""
    s = SIZE
    return (f"{s * 0.75:.1f},0 {s * 0.2:.1f},{-s * 0.38:.1f} {-s * 0.6:.1f},{-s * 0.3:.1f} "
            f"{-s * 0.6:.1f},{s * 0.3:.1f} {s * 0.2:.1f},{s * 0.38:.1f}")


Layers = tuple[str, str, str, tuple[float, float, float, float]]
Box = tuple[float, float, float, float]
# Raise when render_static draws differently: every stored drawing is then drawn again.
DRAWING_VERSION = 1
_STATIC: weakref.WeakKeyDictionary[Course, dict[str, Layers]] = weakref.WeakKeyDictionary()
# by the stored course's key (games.models.LakeCourse) and language, compressed (~36 KB of SVG
# in ~6 KB): a page finds its course's layers even after the parsed course left the cache
STATIC_BY_KEY_SIZE = 2048
_STATIC_BY_KEY: LRU[tuple[str, str], tuple[bytes, Box]] = LRU(STATIC_BY_KEY_SIZE)
_versions: dict[str, str] = {}
log = logging.getLogger(__name__)


def drawing_version(language: str | None = None) -> str:
    """What a stored drawing in ``language`` (the active one by default) must have been drawn
    with: ``DRAWING_VERSION``, the source of the drawing code (this module and the grid's
    geometry) and the project's catalogue of that language (the lake's, line's and buoys'
    titles are translated), so that neither a new drawing nor new words ever meet an old
    drawing, even when nobody raised ``DRAWING_VERSION``."""
    language = language or get_language() or "en"
    version = _versions.get(language)
    if version is None:
        from django.conf import settings

        from .engine import hexgrid

        digest = hashlib.sha256()
        for source in (__file__, hexgrid.__file__):
            digest.update(Path(source).read_bytes())
        for root in settings.LOCALE_PATHS:
            catalogue = Path(root) / to_locale(language) / "LC_MESSAGES" / "django.mo"
            if catalogue.exists():
                digest.update(catalogue.read_bytes())
        version = _versions[language] = f"{DRAWING_VERSION}-{digest.hexdigest()[:16]}"
    return version


def _unpack(blob: bytes, box: Sequence[float]) -> Layers:
    head, base, buoys = zlib.decompress(blob).decode().split("\0")
    x, y, width, height = box
    return head, base, buoys, (float(x), float(y), float(width), float(height))


def _pack(layers: Layers) -> bytes:
    return zlib.compress("\0".join(layers[:3]).encode(), 1)


def static_layers(course: Course, key: str | None = None, stored: Stored | Unread | None = UNREAD) -> Layers:
    """The course's static layers in the active language, drawn once per course for every
    process. Courses are immutable: with the stored course's ``key`` the drawing is stored in
    the database (games.models.CourseDrawing), which the game page reads with its game
    (``stored``; other callers read it here), and kept in the process (compressed, the last
    ``STATIC_BY_KEY_SIZE`` used); without a key it is kept as long as the course object lives."""
    language = get_language() or "en"
    by_language = _STATIC.setdefault(course, {})
    layers = by_language.get(language)
    if layers is not None:
        return layers
    if key is None:
        layers = by_language[language] = Board(course).render_static()
        return layers
    kept = _STATIC_BY_KEY.get((key, language))
    if kept is None:
        if stored is UNREAD:
            stored = _read_drawing(key, language)
        if isinstance(stored, tuple):
            x, y, width, height = (float(v) for v in stored[1])
            kept = (bytes(stored[0]), (x, y, width, height))
        else:
            drawn = Board(course).render_static()
            kept = (_pack(drawn), drawn[3])
            _store_drawing(key, language, kept)
        _STATIC_BY_KEY.put((key, language), kept)
    layers = by_language[language] = _unpack(*kept)
    return layers


def _read_drawing(key: str, language: str) -> Stored | None:
    from .models import CourseDrawing

    row = CourseDrawing.objects.filter(course_id=key, language=language, version=drawing_version(language)) \
        .values_list("svg", "box").first()
    return None if row is None else (bytes(row[0]), row[1])


def _store_drawing(key: str, language: str, kept: tuple[bytes, Box]) -> None:
    """Store a drawing for every process: one INSERT, the first time a course is shown in a
    language (two processes drawing it at once: the second one's row is dropped)."""
    from django.db import DatabaseError, connection, transaction

    from .models import CourseDrawing

    try:
        # inside a caller's transaction, a savepoint: a failure must not break what the caller does
        with transaction.atomic() if connection.in_atomic_block else nullcontext():
            CourseDrawing.objects.bulk_create(
                [CourseDrawing(course_id=key, language=language, version=drawing_version(language), svg=kept[0],
                               box=list(kept[1]))],
                ignore_conflicts=True,
            )
    except DatabaseError:  # a cache: the page is shown all the same, the next view stores it
        log.warning("could not store the drawing of course %s in %s", key[:8], language, exc_info=True)


DRAWING_DAYS = 30


def prune_drawings(now: datetime | None = None) -> int:
    """Drop stored drawings older than ``DRAWING_DAYS`` (the sweep; index
    ``course_drawing_created``): the courses of finished games are seldom shown again, and one
    still shown is drawn and stored again on its next view."""
    from django.utils import timezone

    from .models import CourseDrawing

    cutoff = (now or timezone.now()) - timedelta(days=DRAWING_DAYS)
    return CourseDrawing.objects.filter(created_at__lt=cutoff).delete()[0]


def board_size(course: Course, key: str | None = None, stored: Stored | Unread | None = UNREAD) -> tuple[float, float]:
    """Width and height of the board's viewBox (the page turns the board on a portrait screen)."""
    _x, _y, width, height = static_layers(course, key, stored)[3]
    return width, height


def board_style(course: Course, key: str | None = None, stored: Stored | Unread | None = UNREAD) -> str:
    """The board's size as CSS variables for the page's style block: a portrait phone turns the
    board by 90° (static/css/site.css)."""
    return "--bw:{:.0f};--bh:{:.0f}".format(*board_size(course, key, stored))


def _lake_role() -> str:
    """What a screen reader is told the board is: a group named "the lake"."""
    label = gettext("the lake")  # outside the f-string, where makemessages finds it
    return f'role="group" aria-label="{escape(label)}"'


def board_svg(
    course: Course,
    boats: Sequence[BoatView] = (),
    options: Sequence[OptionView] = (),
    placeable: Iterable[Hex] = (),
    focus: str | None = None,
    key: str | None = None,
    stored: Stored | Unread | None = UNREAD,
    decorative: bool = False,
    view: tuple[float, float, float, float] | None = None,
) -> str:
    return Board(course, boats, options, placeable, focus, key=key, stored=stored, decorative=decorative,
                 view=view).render()
