"""A lake and its course in a few hundred bytes, quick to read back (for storage, not exchange).

The game record (``record.py``) spells every cell out so that anyone can replay a game without
this code; that costs ~14 KB and ~1 ms to read. A site reads a game's course on nearly every
request of a correspondence game (days pass between two requests for the same game, so no
cache keeps it), so it stores this form beside the record's and reads only this one:

* the terrain as one character per cell of the lake's rectangle, row by row in offset
  coordinates (``.`` water, ``#`` land, `` `` not in the lake);
* the spots, the tiles, and the course: letter, buoys, finish buoy, line, and each gate's
  direction and sense — gate cells follow from them (R4) and are rebuilt, not stored.

>>> import random
>>> from games.engine import new_course
>>> course = new_course("standard", "B", random.Random(2))
>>> text = course_compact(course)
>>> len(text) < 1000
True
>>> again = course_from_compact(text)
>>> (again.lake, again.buoys, again.line, again.gates, again.finish_buoy) == (
...     course.lake, course.buoys, course.line, course.gates, course.finish_buoy)
True
"""

from __future__ import annotations

import json
from typing import Any

from .course import Course, Gate, Sense, gate_cells
from .errors import RecordError
from .hexgrid import Hex, axial_to_offset, offset_to_axial
from .lake import Lake, TilePlacement

VERSION = 1
TERRAIN = {"water": ".", "land": "#"}


def course_compact(course: Course) -> str:
    lake = course.lake
    rows = []
    for row in range(lake.height):
        chars = []
        for col in range(lake.width):
            cell = offset_to_axial(col, row)
            chars.append("." if cell in lake.water else "#" if cell in lake.land else " ")
        rows.append("".join(chars))
    data: dict[str, Any] = {
        "v": VERSION,
        "side": lake.side,
        "rows": rows,
        "spots": sorted([*axial_to_offset(c), s] for c, s in lake.spots.items()),
        "tiles": [[t.slot, t.tile, t.rotation] for t in lake.tiles],
        "letter": course.letter,
        "buoys": [list(b) for b in course.buoys],
        "finish": list(course.finish_buoy) if course.finish_buoy else None,
        "line": [list(c) for c in course.line],
        "gates": [[g.direction, g.sense.value] for g in course.gates],
    }
    return json.dumps(data, separators=(",", ":"))


def course_from_compact(text: str) -> Course:
    try:
        data = json.loads(text)
        if data.get("v") != VERSION:
            raise RecordError("record", f"compact course version {data.get('v')!r}, not {VERSION}")
        land: set[Hex] = set()
        water: set[Hex] = set()
        rows = data["rows"]
        for row, chars in enumerate(rows):
            for col, char in enumerate(chars):
                if char == ".":
                    water.add(offset_to_axial(col, row))
                elif char == "#":
                    land.add(offset_to_axial(col, row))
        spots = {offset_to_axial(col, row): letter for col, row, letter in data["spots"]}
        tiles = tuple(TilePlacement(slot, tile, rotation) for slot, tile, rotation in data["tiles"])
        lake = Lake(len(rows[0]) if rows else 0, len(rows), frozenset(land), frozenset(water), spots, data["side"],
                    tiles)
        buoys: list[Hex] = [(q, r) for q, r in data["buoys"]]
        gates = [
            Gate(number, buoys[number], direction, Sense(sense), gate_cells(lake, buoys[number], direction))
            for number, (direction, sense) in enumerate(data["gates"], 1)
        ]
        finish = (data["finish"][0], data["finish"][1]) if data["finish"] else None
        line = [(q, r) for q, r in data["line"]]
        return Course(lake, data["letter"], buoys, line, gates, finish)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        if isinstance(exc, RecordError):
            raise
        raise RecordError("record", f"malformed compact course: {exc!r}") from exc
