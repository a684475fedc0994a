"""Game records: one JSON document per game (format in docs/game-record.md), and ``verify``.

A record holds everything needed to replay the game without this code's lake tiles or
random sources: every lake cell, the course, the grid conventions, the placements, and
every move with its dice choice, the values rolled and the outcome. :func:`verify`
replays the choices with the recorded rolls and names the first move whose recorded
outcome differs from the rules.

Version 1 is the online two-player game (:func:`game_record`); version 2 a series of the boxed
game for 2–6 boats (:func:`series_record`): the lake, the courses of its races, the seats and
start players, the version of R18/R19's details the series follows (``series.rules_version``;
a record without it, written before there were versions, is read as version 1), every race's
placements, moves and departures with their plies, its positions, points and carried damage,
and the series table.
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
from .log import RaceLog, Roll
from .race import RULES_V1, RaceRules, race_scores
from .rules import GameState, Move, Pending, Placement, Termination
from .series import LETTERS, Series

FORMAT = "powerboats-game-record"
VERSION = 1  # the online two-player game
SERIES_VERSION = 2  # a series (or a single race) of the boxed game for 2-6 boats
# A series record written before ``series.rules_version`` existed follows the first version of
# R18/R19's details (games.engine.race, "Rules versions").
RULES_VERSION_UNSTATED = RULES_V1


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
    return courses_from_json(record, [record["course"]])[0]


def courses_from_json(record: Mapping[str, Any], courses: Sequence[Mapping[str, Any]]) -> tuple[Course, ...]:
    """Courses on the record's lake (one lake object shared by all), each checked (R4)."""
    try:
        grid = record["grid"]
        if [tuple(d) for d in grid["directions"]] != list(DIRECTIONS) or grid.get("orientation") != ORIENTATION:
            raise RecordError("record", "the grid conventions differ from this engine's", "grid")
        lake = lake_from_json(record["lake"])
        return tuple(_course(lake, data) for data in courses)
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        if isinstance(exc, EngineError):
            raise
        raise RecordError("record", f"malformed lake or course: {exc!r}") from exc


def _course(lake: Lake, data: Mapping[str, Any]) -> Course:
    buoys = [_cell(b["cell"], "buoy") for b in sorted(data["buoys"], key=lambda b: b["number"])]
    finish = _cell(data["finish_buoy"], "finish buoy") if data.get("finish_buoy") else None
    line = [_cell(c, "start/finish cell") for c in data["start_finish_cells"]]
    gates = [
        Gate(g["buoy"], buoys[g["buoy"]], g["direction"], Sense(g["sense"]), tuple(_cell(c, "gate cell") for c in g["cells"]))
        for g in data["gates"]
    ]
    return Course(lake, data["letter"], buoys, line, gates, finish)


@dataclass(frozen=True, slots=True)
class Verification:
    ok: bool
    message: str
    moves_checked: int = 0
    first_bad_move: int | None = None  # 1-based index into the record's moves (of all races in a series)
    state: GameState | None = None
    series: Series | None = None


def verify(record: Mapping[str, Any]) -> Verification:
    """Replay the record from its lake, choices and rolled values; report the first difference.
    Accepts version 1 (the online game) and version 2 (a series of the boxed game)."""
    if record.get("format") == FORMAT and record.get("version") == SERIES_VERSION:
        return verify_series(record)
    if record.get("format") != FORMAT or record.get("version") != VERSION:
        return Verification(False, f"not a {FORMAT} version {VERSION} or {SERIES_VERSION}")
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



# --- a series of the boxed game (version 2) -------------------------------------------------------


def series_record(
    series: Series,
    logs: Sequence[RaceLog],
    players: Mapping[str, str] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The record of a series (docs/game-record.md, version 2): ``logs`` are the races' histories
    as a :class:`~games.engine.game.SeriesGame` keeps them, one per race started."""
    players = players or {}
    if len(logs) != len(series.races):
        raise ValueError("one log per race started")
    return {
        "format": FORMAT,
        "version": SERIES_VERSION,
        "ruleset": RaceRules.ruleset,
        "meta": dict(meta or {}),
        "grid": grid_json(),
        "lake": lake_json(series.courses[0].lake),
        "series": {
            "races": len(series.courses),
            "score_variant": series.score_variant,
            "start_player": series.colors[series.first_start],
            "rules_version": series.rules_version,
        },
        "players": [{"seat": i, "color": c, "name": players.get(c)} for i, c in enumerate(series.colors)],
        "courses": [course_json(c) for c in series.courses],
        "races": [_race_json(series.races[i], log) for i, log in enumerate(logs)],
        "result": series_result_json(series),
    }


def _roll_json(roll: Roll | None) -> dict[str, Any] | None:
    if roll is None:
        return None
    data = _pending_json(roll.pending)
    assert data is not None
    data["roll_ply"] = roll.ply
    return data


def _race_json(race: GameState, log: RaceLog) -> dict[str, Any]:
    rules = race.rules
    assert isinstance(rules, RaceRules)
    return {
        "letter": race.course.letter,
        "multiplier": rules.multiplier,
        "start_player": race.boats[race.start].color,
        "boats": [b.color for b in race.boats],
        "carried_damage": {b.color: b.carried for b in race.boats},
        "first_ply": log.first_ply,
        "placements": [
            {"color": p.color, "cell": cell_json(p.cell), "heading": p.heading, "ply": ply} for ply, p in log.placements
        ],
        "moves": [{**move_json(m), "ply": ply} for ply, m in log.moves],
        "departures": [
            {"color": d.color, "termination": d.termination.value, "ply": d.ply, "roll": _roll_json(d.roll)}
            for d in log.departures
        ],
        "pending": _roll_json(log.unfinished_roll),
        "result": race_result_json(race),
    }


def race_result_json(race: GameState) -> dict[str, Any] | None:
    """A finished race: how it ended, the positions (R18), each boat's figures, its points
    (R19) and whether its damage rose (R20: a counter carried into the next race)."""
    outcome = race.outcome
    if outcome is None:
        return None
    scores = race_scores(race)
    return {
        "termination": outcome.termination.value,
        "reason": outcome.reason,
        "positions": [race.boats[s].color for s in race.positions],
        "finished": {s.color: s.finished for s in scores},
        "sunk": {s.color: s.sunk for s in scores},
        "left": {s.color: s.retired.value if s.retired else None for s in scores},
        "moves": {s.color: s.moves for s in scores},
        "buoys": {s.color: s.buoys for s in scores},
        "damage": {s.color: s.damage for s in scores},
        "took_damage": {s.color: s.took_damage for s in scores},
        "position_points": {s.color: s.position_points for s in scores},
        "variant_points": {s.color: s.variant_points for s in scores},
        "points": {s.color: s.points for s in scores},
    }


def series_result_json(series: Series) -> dict[str, Any] | None:
    """The series table once the series is over (R19)."""
    if not series.over:
        return None
    return {
        "winner": series.winner,
        "reason": series.result_text(),
        "races_played": len(series.races),
        "standings": [
            {
                "place": s.place, "color": s.color, "points": s.points, "race_points": list(s.race_points),
                "positions": list(s.positions), "left": s.left.value if s.left else None,
            }
            for s in series.standings()
        ],
    }


def verify_series(record: Mapping[str, Any]) -> Verification:
    """Replay a series record (version 2): every race's placements, rolls, directions and
    departures in ply order, each move, each race's result and the series table checked, by the
    version of R18/R19's details the record states (version 1 when it states none: it was
    written before there were versions)."""
    try:
        info = record["series"]
        courses = courses_from_json(record, record["courses"])
        if info["races"] != len(courses):
            raise RecordError("record", f"{info['races']} races, but {len(courses)} courses", "courses")
        rules_version = info.get("rules_version", RULES_VERSION_UNSTATED)  # checked by RaceRules
        colors = [p["color"] for p in sorted(record["players"], key=lambda p: p["seat"])]
        series = Series.start(courses, colors, colors.index(info["start_player"]), info["score_variant"],
                              rules_version=rules_version)
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        return Verification(False, f"cannot set up the series: {exc}")

    checked = 0
    races = record.get("races", [])
    for index, data in enumerate(races):
        letter = LETTERS[index] if index < len(LETTERS) else str(index + 1)
        label = f"race {letter}"
        if index >= len(series.races):
            return Verification(False, f"{label}: by the rules the series ended after {len(series.races)} races",
                                checked, None, series.race, series)
        if index != len(series.races) - 1:
            return Verification(False, f"{label}: race {LETTERS[index - 1]} has not ended by the rules", checked,
                                None, series.race, series)
        race = series.race
        header = _race_json(race, RaceLog(series.ply))
        for key in ("letter", "multiplier", "start_player", "boats", "carried_damage", "first_ply"):
            if data.get(key) != header[key]:
                return Verification(False, f"{label}: recorded {key} {data.get(key)!r}, the rules give {header[key]!r}",
                                    checked, None, race, series)
        try:
            events = _race_events(data)
        except (KeyError, TypeError) as exc:
            return Verification(False, f"{label}: malformed: {exc!r}", checked, None, race, series)
        awaiting: Mapping[str, Any] | None = None
        for ply, _, kind, item in events:
            where = f"{label}, ply {ply}"
            if kind in ("move", "steer"):
                checked += kind == "move"
                where = f"{label} move {item.get('number')} ({item.get('color')})"
            if series.ply != ply:
                return Verification(False, f"{where}: recorded at ply {ply}, but the series is at ply {series.ply}",
                                    checked, checked or None, series.race, series)
            try:
                boat = series.race.boat
                if kind == "place":
                    if boat.color != item["color"]:
                        return Verification(False, f"{where}: {boat.color} places now, not {item['color']}",
                                            checked, None, series.race, series)
                    series = series.place(_cell(item["cell"], "placement"), item["heading"])
                    continue
                if kind == "leave":
                    if item["termination"] not in (Termination.RESIGN.value, Termination.TIMEOUT.value):
                        return Verification(False, f"{where}: a player leaves by resign or timeout", checked, None,
                                            series.race, series)
                    seat = series.seat_of(item["color"])
                    series = series.resign(seat) if item["termination"] == "resign" else series.time_out(seat)
                    continue
                if kind == "steer":
                    if awaiting is not item:
                        return Verification(False, f"{where}: a direction without its roll", checked, checked or None,
                                            series.race, series)
                    series, move = series.choose_direction(item["direction"])
                    awaiting = None
                else:
                    if awaiting is not None:
                        return Verification(False, f"{where}: move {awaiting.get('number')} has no direction yet",
                                            checked, checked or None, series.race, series)
                    if boat.color != item.get("color", boat.color):
                        return Verification(False, f"{where}: it is {boat.color}'s turn", checked, checked or None,
                                            series.race, series)
                    series, move = series.choose_dice(choice_from_json(item["choice"]), FixedDice(item["rolled"]))
                    if kind == "roll":  # a roll whose direction never came
                        again = _pending_json(series.race.pending)
                        if move is not None or again is None or any(again[k] != item.get(k) for k in again):
                            return Verification(False, f"{where}: the unfinished roll differs from the rules",
                                                checked, None, series.race, series)
                        continue
                    if move is None:
                        awaiting = item
                        continue
            except (ValueError, KeyError, TypeError) as exc:  # EngineError is a ValueError
                return Verification(False, f"{where}: {exc}", checked, checked or None, series.race, series)
            assert move is not None
            replayed = {**move_json(move), "ply": move.roll_ply + 1 if move.auto else ply}
            for key, value in replayed.items():
                if item.get(key) != value:
                    return Verification(False, f"{where}: recorded {key} {item.get(key)!r}, the rules give {value!r}",
                                        checked, checked, series.race, series)
        if awaiting is not None:
            return Verification(False, f"{label}: move {awaiting.get('number')} has no direction", checked, checked,
                                series.race, series)
        state = series.races[index]
        expected = race_result_json(state)
        if data.get("result") != expected:
            return Verification(False, f"{label} result: recorded {data.get('result')!r}, the rules give {expected!r}",
                                checked, None, state, series)
    if len(races) != len(series.races):
        return Verification(False, f"the record has {len(races)} races, the rules {len(series.races)}", checked, None,
                            series.race, series)
    expected_result = series_result_json(series)
    if record.get("result") != expected_result:
        return Verification(False, f"result: recorded {record.get('result')!r}, the rules give {expected_result!r}",
                            checked, None, series.race, series)
    return Verification(True, f"ok: {checked} moves in {len(races)} races replay", checked, None, series.race, series)


def _race_events(data: Mapping[str, Any]) -> list[tuple[int, int, str, Mapping[str, Any]]]:
    """A race's actions in ply order: placements, rolls (with their move, or unfinished),
    the directions of moves that were not automatic, and departures."""
    events: list[tuple[int, int, str, Mapping[str, Any]]] = []
    for item in data["placements"]:
        events.append((item["ply"], 0, "place", item))
    for item in data["moves"]:
        events.append((item["roll_ply"], 1, "move", item))
        if not item["auto"]:
            events.append((item["ply"], 2, "steer", item))
    for item in data["departures"]:
        if item.get("roll"):
            events.append((item["roll"]["roll_ply"], 1, "roll", {**item["roll"], "color": item["color"]}))
        events.append((item["ply"], 3, "leave", item))
    if data.get("pending"):
        events.append((data["pending"]["roll_ply"], 1, "roll", data["pending"]))
    events.sort(key=lambda e: (e[0], e[1]))
    return events
