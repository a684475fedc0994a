"""Lakes (R1, R2): a frame holding six lake tiles in random arrangement and orientation.

Each tile is a data file in ``data/tiles/<side>/<n>.txt``: 6 rows of 7 cells in odd-r
offset layout (odd rows drawn half a hex to the right), one token per cell:

====  =====================================
``.``  water
``#``  land (an island)
``A``  a lettered spot in water (also ``B``, ``C``)
``a``  a lettered spot on land (also ``b``, ``c``)
====  =====================================

Lines starting with ``;`` are comments. The frame holds 3 × 2 tiles, so a lake has
21 × 12 cells. A tile is placed either as drawn or turned by 180° (the only turns that
fit a rectangular slot). Over the six tiles of a side there are four A-, four B- and
four C-spots. ``side`` is ``"standard"`` (dark blue) or ``"expert"`` (light blue,
more islands).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from .hexgrid import Hex, axial_to_offset, offset_to_axial

TILE_COLS = 7
TILE_ROWS = 6
FRAME_COLS = 3
FRAME_ROWS = 2
SIDES = ("standard", "expert")
LETTERS = ("A", "B", "C")
TILE_COUNT = FRAME_COLS * FRAME_ROWS


@dataclass(frozen=True, slots=True)
class Tile:
    """One side of a lake tile, as designed: terrain and spots in local offset cells."""

    number: int
    side: str
    land: frozenset[tuple[int, int]]
    spots: Mapping[tuple[int, int], str]

    def rotated(self, turns: int) -> Tile:
        """The tile turned by ``turns`` × 180°."""
        if turns % 2 == 0:
            return self

        def turn(cell: tuple[int, int]) -> tuple[int, int]:
            return (TILE_COLS - 1 - cell[0], TILE_ROWS - 1 - cell[1])

        return Tile(
            self.number,
            self.side,
            frozenset(turn(c) for c in self.land),
            {turn(c): letter for c, letter in self.spots.items()},
        )


@dataclass(frozen=True, slots=True)
class TilePlacement:
    slot: int  # 0..5, row-major in the frame
    tile: int  # tile number 1..6
    rotation: int  # 0 or 180 (degrees)


def parse_grid(text: str) -> dict[tuple[int, int], str]:
    """Parse rows of whitespace-separated tokens into ``{(col, row): token}`` (offset)."""
    cells: dict[tuple[int, int], str] = {}
    row = 0
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith(";"):
            continue
        for col, token in enumerate(line.split()):
            cells[(col, row)] = token
        row += 1
    return cells


def parse_tile(number: int, side: str, text: str) -> Tile:
    cells = parse_grid(text)
    expected = {(c, r) for c in range(TILE_COLS) for r in range(TILE_ROWS)}
    if set(cells) != expected:
        raise ValueError(f"tile {side}/{number}: expected {TILE_ROWS} rows of {TILE_COLS} cells")
    land = set()
    spots = {}
    for cell, token in cells.items():
        if token not in {".", "#", "A", "B", "C", "a", "b", "c"}:
            raise ValueError(f"tile {side}/{number}: unknown token {token!r} at {cell}")
        if token == "#" or token.islower():
            land.add(cell)
        if token.upper() in LETTERS:
            spots[cell] = token.upper()
    return Tile(number, side, frozenset(land), spots)


@cache
def load_tiles(side: str) -> tuple[Tile, ...]:
    """The six designed tiles of one side, from the package data."""
    if side not in SIDES:
        raise ValueError(f"unknown lake side {side!r}; use one of {', '.join(SIDES)}")
    folder = resources.files("games.engine").joinpath("data", "tiles", side)
    return tuple(
        parse_tile(n, side, folder.joinpath(f"{n}.txt").read_text(encoding="utf-8"))
        for n in range(1, TILE_COUNT + 1)
    )


@dataclass(frozen=True)
class Lake:
    """The lake: every cell in it is water or land; anything else is the border (R1).

    ``spots`` maps a cell to its letter (A, B or C) whether the cell is water or land.
    ``width``/``height`` are the offset dimensions, used for drawing and for the edges.
    """

    width: int
    height: int
    land: frozenset[Hex]
    water: frozenset[Hex]
    spots: Mapping[Hex, str] = field(default_factory=dict)
    side: str = "standard"
    tiles: tuple[TilePlacement, ...] = ()

    def __post_init__(self) -> None:
        if self.land & self.water:
            raise ValueError("a cell cannot be both land and water")
        unknown = set(self.spots) - self.land - self.water
        if unknown:
            raise ValueError(f"spots outside the lake: {sorted(unknown)}")

    def __contains__(self, cell: object) -> bool:
        return cell in self.water or cell in self.land

    @property
    def cells(self) -> frozenset[Hex]:
        return self.land | self.water

    def terrain(self, cell: Hex) -> str:
        if cell in self.water:
            return "water"
        if cell in self.land:
            return "land"
        return "border"

    def spots_of(self, letter: str) -> list[Hex]:
        """The cells of one letter's spots, in reading order (row, then column)."""
        return sorted((c for c, x in self.spots.items() if x == letter), key=lambda c: (c[1], axial_to_offset(c)[0]))

    def edge_row_cells(self, row: int) -> list[Hex]:
        """The cells of an offset row, west to east."""
        return [offset_to_axial(col, row) for col in range(self.width)]

    @classmethod
    def from_cells(
        cls,
        width: int,
        height: int,
        terrain: Mapping[Hex, str],
        spots: Mapping[Hex, str] | None = None,
        side: str = "standard",
        tiles: Iterable[TilePlacement] = (),
    ) -> Lake:
        land = frozenset(c for c, t in terrain.items() if t == "land")
        water = frozenset(c for c, t in terrain.items() if t == "water")
        bad = {t for t in terrain.values()} - {"land", "water"}
        if bad:
            raise ValueError(f"unknown terrain {sorted(bad)}")
        return cls(width, height, land, water, dict(spots or {}), side, tuple(tiles))

    @classmethod
    def from_text(cls, text: str) -> tuple[Lake, dict[Hex, str]]:
        """A lake from a text map (offset rows, tokens as in the tile files).

        Every token other than ``#``, ``a``, ``b``, ``c`` is water; the tokens are
        returned by axial cell so tests can mark boats and buoys on the map.
        """
        grid = parse_grid(text)
        width = max(c for c, _ in grid) + 1
        height = max(r for _, r in grid) + 1
        terrain: dict[Hex, str] = {}
        spots: dict[Hex, str] = {}
        tokens: dict[Hex, str] = {}
        for (col, row), token in grid.items():
            cell = offset_to_axial(col, row)
            tokens[cell] = token
            terrain[cell] = "land" if token in {"#", "a", "b", "c"} else "water"
            if token in {"A", "B", "C", "a", "b", "c"}:
                spots[cell] = token.upper()
        return cls.from_cells(width, height, terrain, spots), tokens


def assemble_lake(side: str = "standard", rng: random.Random | None = None) -> Lake:
    """Put the six tiles of ``side`` into the frame in random order and orientation (R2)."""
    rng = rng or random.SystemRandom()
    tiles = list(load_tiles(side))
    rng.shuffle(tiles)
    terrain: dict[Hex, str] = {}
    spots: dict[Hex, str] = {}
    placements = []
    for slot, tile in enumerate(tiles):
        turns = rng.randrange(2)
        placed = tile.rotated(turns)
        placements.append(TilePlacement(slot, tile.number, 180 * turns))
        col0 = (slot % FRAME_COLS) * TILE_COLS
        row0 = (slot // FRAME_COLS) * TILE_ROWS
        for col in range(TILE_COLS):
            for row in range(TILE_ROWS):
                cell = offset_to_axial(col0 + col, row0 + row)
                terrain[cell] = "land" if (col, row) in placed.land else "water"
                if (col, row) in placed.spots:
                    spots[cell] = placed.spots[(col, row)]
    return Lake.from_cells(
        FRAME_COLS * TILE_COLS, FRAME_ROWS * TILE_ROWS, terrain, spots, side, placements
    )
