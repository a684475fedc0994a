"""Game records: one JSON document per game (format in docs/game-record.md), and ``verify``.

A record holds everything needed to replay the game without this code's lake tiles or
random sources: every lake cell, the course, the grid conventions, the placements, and
every move with its dice choice, the values rolled and the outcome. :func:`verify`
replays the choices with the recorded rolls and names the first move whose recorded
outcome differs from the rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .course import Course, Gate, Sense
from .dice import Change, DiceChoice, FixedDice
from .errors import EngineError, RecordError
from .hexgrid import DIRECTION_NAMES, DIRECTIONS, ORIENTATION, Hex
from .lake import Lake, TilePlacement
from .rules import GameState, Move, Pending, Placement, Termination

FORMAT = "powerboats-game-record"
VERSION = 1


def cell_json(cell: Hex) -> list[int]:
    return [cell[0], cell[1]]


def _cell(value: Any, what: str) -> Hex:
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value)):
        raise RecordError("record", f"{what} must be a cell [q, r], not {value!r}", what)
    return (value[0], value[1])


def grid_json() -> dict[str, Any]:
    return {
        "coordinates": "axial [q, r]",
        "orientation": ORIENTATION,
        "r_axis": "down",
        "directions": [list(d) for d in DIRECTIONS],
        "direction_names": list(DIRECTION_NAMES),
        "direction_order": "counter-clockwise as seen on the drawn board, starting east",
    }


def lake_json(lake: Lake) -> dict[str, Any]:
    cells = sorted(lake.cells, key=lambda c: (c[1], c[0]))
    return {
        "side": lake.side,
        "width": lake.width,
        "height": lake.height,
        "tiles": [{"slot": t.slot, "tile": t.tile, "rotation": t.rotation} for t in lake.tiles],
        "cells": [
            {"cell": cell_json(c), "terrain": lake.terrain(c), "spot": lake.spots.get(c)} for c in cells
        ],
    }


def course_json(course: Course) -> dict[str, Any]:
    return {
        "letter": course.letter,
        "buoys": [{"number": n, "cell": cell_json(c)} for n, c in enumerate(course.buoys)],
        "finish_buoy": cell_json(course.finish_buoy) if course.finish_buoy else None,
        "start_finish_cells": [cell_json(c) for c in course.line],
        "gates": [
            {
                "buoy": g.buoy,
                "sense": g.sense.value,
                "direction": g.direction,
                "vector": list(DIRECTIONS[g.direction]),
                "scoring_from": g.scoring_from,
                "cells": [cell_json(c) for c in g.cells],
            }
            for g in course.gates
        ],
    }


def choice_json(choice: DiceChoice) -> dict[str, Any]:
    return {"change": choice.change.value, "remove": choice.remove, "reroll": list(choice.reroll)}


def choice_from_json(data: Any) -> DiceChoice:
    if not isinstance(data, Mapping):
        raise RecordError("record", "a dice choice is an object", "choice")
    try:
        change = Change(str(data.get("change")))
    except ValueError:
        raise RecordError("R6", "change must be keep, add or remove", "change") from None
    remove = data.get("remove")
    reroll = data.get("reroll", [])
    if remove is not None and not isinstance(remove, int):
        raise RecordError("R6", "remove must be a die index", "remove")
    if not isinstance(reroll, list) or not all(isinstance(i, int) for i in reroll):
        raise RecordError("R6", "reroll must be a list of die indices", "reroll")
    return DiceChoice(change, remove, tuple(reroll))


def move_json(move: Move) -> dict[str, Any]:
    return {
        "number": move.number,
        "color": move.color,
        "choice": choice_json(move.choice),
        "dice_before": list(move.dice_before),
        "rolled": list(move.rolled),
        "dice": list(move.dice),
        "total": move.total,
        "direction": move.direction,
        "auto": move.auto,
        "start": cell_json(move.start),
        "reach": move.reach,
        "path": [cell_json(c) for c in move.path],
        "final": cell_json(move.final),
        "heading": move.heading,
        "damage": move.damage,
        "damage_total": move.damage_total,
        "crash": move.crash,
        "rounded": list(move.rounded),
        "finished": move.finished,
        "sunk": move.sunk,
        "roll_ply": move.roll_ply,
    }


def outcome_json(state: GameState) -> dict[str, Any] | None:
    outcome = state.outcome
    if outcome is None:
        return None
    return {
        "winner": state.boats[outcome.winner].color if outcome.winner is not None else None,
        "termination": outcome.termination.value,
        "reason": outcome.reason,
        "points": {b.color: b.points for b in state.boats},
        "buoys": {b.color: b.buoys for b in state.boats},
        "damage": {b.color: b.damage for b in state.boats},
        "finished": {b.color: b.finished for b in state.boats},
    }


def game_record(
    state: GameState,
    placements: Sequence[Placement],
    moves: Sequence[Move],
    players: Mapping[str, str] | None = None,
    meta: Mapping[str, Any] | None = None,
    pending: Pending | None = None,
) -> dict[str, Any]:
    """The record of a game. ``pending`` is a roll whose direction was never chosen: the
    state's own while the game goes on, or the last roll of a game that ended (resigned,
    lost on time, adjudicated) between a roll and its direction, so that the dice it left
    in the boat's hand replay too."""
    players = players or {}
    record: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": "online two-player rules with rulings R1-R14",
        "meta": dict(meta or {}),
        "grid": grid_json(),
        "lake": lake_json(state.course.lake),
        "course": course_json(state.course),
        "players": [
            {"seat": i, "color": b.color, "name": players.get(b.color)} for i, b in enumerate(state.boats)
        ],
        "placements": [{"color": p.color, "cell": cell_json(p.cell), "heading": p.heading} for p in placements],
        "moves": [move_json(m) for m in moves],
        "pending": _pending_json(pending if pending is not None else state.pending,
                                 len(placements) + 2 * len(moves)),
        "result": outcome_json(state),
    }
    return record


def _pending_json(pending: Pending | None, roll_ply: int | None = None) -> dict[str, Any] | None:
    if pending is None:
        return None
    data: dict[str, Any] = {
        "choice": choice_json(pending.choice),
        "dice_before": list(pending.dice_before),
        "rolled": list(pending.rolled),
        "dice": list(pending.dice),
    }
    if roll_ply is not None:
        data["roll_ply"] = roll_ply  # every placement takes one ply, every turn two (its roll, its direction)
    return data


# --- reading ------------------------------------------------------------------------------


def lake_from_json(data: Mapping[str, Any]) -> Lake:
    terrain: dict[Hex, str] = {}
    spots: dict[Hex, str] = {}
    for item in data["cells"]:
        cell = _cell(item["cell"], "lake cell")
        terrain[cell] = item["terrain"]
        if item.get("spot"):
            spots[cell] = item["spot"]
    tiles: Iterable[TilePlacement] = (
        TilePlacement(t["slot"], t["tile"], t["rotation"]) for t in data.get("tiles", [])
    )
    return Lake.from_cells(data["width"], data["height"], terrain, spots, data.get("side", "standard"), tiles)


def course_from_json(record: Mapping[str, Any]) -> Course:
    """The course of a record, checked: gate cells must follow from buoy and direction (R4)."""
    try:
        grid = record["grid"]
        if [tuple(d) for d in grid["directions"]] != list(DIRECTIONS) or grid.get("orientation") != ORIENTATION:
            raise RecordError("record", "the grid conventions differ from this engine's", "grid")
        lake = lake_from_json(record["lake"])
        data = record["course"]
        buoys = [_cell(b["cell"], "buoy") for b in sorted(data["buoys"], key=lambda b: b["number"])]
        finish = _cell(data["finish_buoy"], "finish buoy") if data.get("finish_buoy") else None
        line = [_cell(c, "start/finish cell") for c in data["start_finish_cells"]]
        gates = [
            Gate(g["buoy"], buoys[g["buoy"]], g["direction"], Sense(g["sense"]), tuple(_cell(c, "gate cell") for c in g["cells"]))
            for g in data["gates"]
        ]
        return Course(lake, data["letter"], buoys, line, gates, finish)
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        if isinstance(exc, EngineError):
            raise
        raise RecordError("record", f"malformed lake or course: {exc!r}") from exc


@dataclass(frozen=True, slots=True)
class Verification:
    ok: bool
    message: str
    moves_checked: int = 0
    first_bad_move: int | None = None  # 1-based index into the record's moves
    state: GameState | None = None


def verify(record: Mapping[str, Any]) -> Verification:
    """Replay the record from its lake, choices and rolled values; report the first difference."""
    if record.get("format") != FORMAT or record.get("version") != VERSION:
        return Verification(False, f"not a {FORMAT} version {VERSION}")
    try:
        course = course_from_json(record)
        colors = [p["color"] for p in sorted(record["players"], key=lambda p: p["seat"])]
        state = GameState.initial(course, colors)
        for i, p in enumerate(record["placements"], 1):
            if state.boat.color != p["color"]:
                return Verification(False, f"placement {i}: {state.boat.color} places now, not {p['color']}")
            state = state.place(_cell(p["cell"], "placement"), p["heading"])
    except (EngineError, KeyError, TypeError) as exc:
        return Verification(False, f"cannot set up the game: {exc}")

    moves = record.get("moves", [])
    for index, data in enumerate(moves, 1):
        label = f"move {index} ({data.get('color')} {data.get('number')})"
        try:
            if state.boat.color != data["color"]:
                return Verification(False, f"{label}: it is {state.boat.color}'s turn", index - 1, index)
            choice = choice_from_json(data["choice"])
            source = FixedDice(data["rolled"])
            state, move = state.choose_dice(choice, source)
            if move is None:
                state, move = state.choose_direction(data["direction"])
            elif data["direction"] != move.direction:
                return Verification(
                    False, f"{label}: only {DIRECTION_NAMES[move.direction]} was allowed, the record has "
                    f"{data['direction']}", index - 1, index,
                )
        except (EngineError, KeyError, TypeError) as exc:
            return Verification(False, f"{label}: {exc}", index - 1, index)
        assert move is not None
        replayed = move_json(move)
        for key, value in replayed.items():
            if data.get(key) != value:
                return Verification(
                    False, f"{label}: recorded {key} {data.get(key)!r}, the rules give {value!r}", index - 1, index
                )

    pending = record.get("pending")
    if pending is not None:
        try:
            state, move = state.choose_dice(choice_from_json(pending["choice"]), FixedDice(pending["rolled"]))
        except (EngineError, KeyError, TypeError) as exc:
            return Verification(False, f"pending roll: {exc}", len(moves))
        again = _pending_json(state.pending, len(record["placements"]) + 2 * len(moves))
        if move is not None or again is None or any(again.get(k) != v for k, v in pending.items()):
            return Verification(False, "pending roll differs from the rules", len(moves))

    result = record.get("result")
    if result is not None and not state.over:
        termination = result.get("termination")
        if termination in (Termination.RESIGN.value, Termination.TIMEOUT.value) and result.get("winner"):
            loser = 1 - state.seat_of(result["winner"])
            state = state.resign(loser) if termination == Termination.RESIGN.value else state.time_out(loser)
        elif termination == Termination.ADJUDICATION.value:
            state = state.adjudicate()
    expected = outcome_json(state)
    if expected != result:
        return Verification(False, f"result: recorded {result!r}, the rules give {expected!r}", len(moves))
    return Verification(True, f"ok: {len(moves)} moves replay", len(moves), None, state)

