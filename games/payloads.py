"""The shapes of what the site and the API answer about games (no queries, no writes):
selectors read rows, services change them, and both hand them here to be put into words.

A game is answered in the shape its clients have always had: a two-player game of the online
rules as a game (``players`` yellow and red, ``moves``), a game of the boxed rules as a series
(``boats``, the series ``table``, its ``races``, the ``history`` of its actions), with
``ruleset`` and its ``series`` number to tell them apart (docs/series.md)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from games.engine import DIRECTION_NAMES, Change, GameState, Phase, Series
from games.engine.notation import format_choice
from games.engine.record import race_result_json
from games.engine.series import LETTERS

from . import clock
from .models import Game, Move, Seat, seat_order
from .state import playing, state_of


def option_json(option: Any) -> dict[str, Any]:
    return {
        "direction": option.direction,
        "name": DIRECTION_NAMES[option.direction],
        "turn": option.turn,
        "allowed": option.allowed,
        "total": option.total,
        "reach": option.reach,
        "path": [list(c) for c in option.path],
        "final": list(option.final),
        "crash": option.crash,
        "damage": option.damage,
        "blocked_by": option.blocked_by,
        "rounded": list(option.rounded),
        "finishes": option.finishes,
        "sinks": option.sinks,
    }


def placement_json(row: Move, color: str) -> dict[str, Any]:
    return {"color": color, "cell": row.final, "heading": row.heading, "notation": row.notation}


def shown_rows(rows: Sequence[Move]) -> list[Move]:
    """The history as a move list: a roll is shown on its own only while (or if, when the game
    ended) it awaits its direction; otherwise its turn shows it."""
    return [row for i, row in enumerate(rows)
            if row.kind != Move.Kind.ROLL or i + 1 == len(rows) or rows[i + 1].kind != Move.Kind.TURN]


def forced(options: Sequence[Any]) -> str | None:
    """What a total forces on the player whichever allowed direction they choose (R7): ``sinks``
    when every allowed direction sinks the boat (R12), ``crash`` when every one crashes (R9),
    else None (a safe direction is left)."""
    allowed = [o for o in options if o.allowed]
    if allowed and all(o.sinks for o in allowed):
        return "sinks"
    if allowed and all(o.crash for o in allowed):
        return "crash"
    return None


def outcomes(state: GameState, totals: Iterable[int]) -> list[dict[str, Any]]:
    """For each total: what each direction would do (R7–R12) and what the total forces."""
    rows = []
    for total in sorted(set(totals)):
        options = state.options_for_total(total)
        rows.append({"total": total, "options": [option_json(o) for o in options], "forced": forced(options)})
    return rows


def dice_options(state: GameState) -> dict[str, Any]:
    """R6 for the player to move: what they may do with their dice, the chance of each total, and
    before the roll what each total would then allow (``outcomes``: danger before the dice) and
    each choice's chance of a forced crash or sinking (``risk``)."""
    boat = state.boat
    first = boat.moves == 0
    changes: list[dict[str, Any]] = []
    if first:
        changes.append({"change": Change.ADD.value, "label": "add one die (your first move)"})
    else:
        changes.append({"change": Change.KEEP.value, "label": f"keep {len(boat.dice)} dice"})
        changes.append({"change": Change.ADD.value, "label": "add one die"})
        for i, value in enumerate(boat.dice):
            changes.append({"change": Change.REMOVE.value, "remove": i, "label": f"remove die {i + 1} (showing {value})"})
    distributions = [(c, sorted(c.distribution(boat.dice).items())) for c in state.distinct_dice_choices()]
    rows = outcomes(state, (t for _, dist in distributions for t, _ in dist))
    forcing = {row["total"]: row["forced"] for row in rows}
    choices = [
        {
            "notation": format_choice(c),
            "change": c.change.value,
            "remove": c.remove,
            "reroll": list(c.reroll),
            "totals": {str(t): float(p) for t, p in dist},
            "risk": {"crash": float(sum(p for t, p in dist if forcing[t] is not None)),
                     "sinks": float(sum(p for t, p in dist if forcing[t] == "sinks"))},
        }
        for c, dist in distributions
    ]
    return {
        "dice": list(boat.dice),
        "first_move": first,
        "changes": changes,
        "reroll": "any subset of the indices of the dice you keep" if boat.dice and not first else "none",
        "choices": choices,
        "outcomes": rows,
    }


def turn_choices(state: Any) -> dict[str, Any]:
    """What the player to move may do now, for the API (a two-player game or a series' race):
    ``placements`` (R5), ``dice_options`` (R6) or the direction ``options`` (R7)."""
    if state.phase is Phase.PLACE:
        return {"placements": {"cells": [list(c) for c in state.free_start_cells()], "headings": list(range(6))}}
    if state.phase is Phase.DICE:
        return {"dice_options": dice_options(state)}
    if state.phase is Phase.DIRECTION:
        return {"options": [option_json(o) for o in state.options()]}
    return {}


def game_detail(
    game: Game,
    user: Any = None,
    seats: list[Seat] | None = None,
    state: GameState | None = None,
    moves: list[Move] | None = None,
) -> dict[str, Any]:
    """Everything a client needs to show a two-player game and, for the player to move, to act.
    A caller that has loaded the seats, state or move rows already passes them in."""
    seats = playing(seats if seats is not None else game.seat_list())
    state = state if state is not None else state_of(game, seats)
    moves = shown_rows(moves if moves is not None else list(game.moves.order_by("ply")))
    viewer = game.seat_of(user)
    colors = [s.color for s in seats]
    data: dict[str, Any] = {
        "id": game.pk,
        "status": game.status,
        "phase": game.phase,
        "ply": game.ply,
        "to_move": None if game.over else game.color_of(game.to_move),
        "your_color": game.color_of(viewer) if viewer is not None else None,
        "your_turn": viewer is not None and not game.over and viewer == game.to_move,
        "course_letter": game.course_letter,
        "lake_side": game.lake_side,
        "rated": game.rated,
        "days_per_move": game.days_per_move,
        "created_at": game.created_at.isoformat(),
        "dice_seed_sha256": game.dice_seed_sha256,
        "dice_seed": game.dice_seed if game.over else None,
        "players": [
            {
                "color": s.color,
                "username": s.user.username,
                "cell": [s.q, s.r] if s.q is not None else None,
                "heading": s.heading,
                "heading_name": DIRECTION_NAMES[s.heading],
                "dice": list(s.dice),
                "speed": sum(s.dice),
                "damage": s.damage,
                "buoys": s.buoys,
                "next_buoy": s.next_buoy if s.next_buoy <= 3 else None,
                "finished": s.finished,
                "sunk": s.sunk,
                "moves": s.moves,
                "points": s.points,
                "grace_seconds": s.grace_seconds,
            }
            for s in seats
        ],
        "pending": game.pending,
        "clock": clock.remaining(game, seats),
        "result": (
            {"winner": game.winner_color or None, "termination": game.termination, "reason": game.result_reason,
             "code": game.result_code, "params": game.result_params or {}}
            if game.over
            else None
        ),
        "moves": [
            {"ply": m.ply, "color": colors[m.seat] if m.kind != Move.Kind.END or m.termination != "adjudication"
             else None, "kind": m.kind, "notation": m.notation, **({"planned": True} if m.planned else {})}
            for m in moves
        ],
    }
    if data["your_turn"]:
        data.update(turn_choices(state))
    return data


# --- a game of the boxed rules, shown as a series (R15-R20) -----------------------------------------


def next_start_player(series: Series) -> str | None:
    """R15: the next race's start player (the left-hand neighbour of this race's, skipping
    players who left), or None when no race follows."""
    if series.over or len(series.races) >= len(series.courses):
        return None
    race = series.race
    seat = series.seat_of(race.boats[race.start].color)
    left = series.left
    for _ in range(len(series.colors)):
        seat = (seat + 1) % len(series.colors)
        if seat not in left:
            return series.colors[seat]
    return None


def series_table(series: Series, seats: Sequence[Seat]) -> list[dict[str, Any]]:
    """The series table (R19), with each race's points and position and the damage counters
    each boat carried into each race (R20)."""
    names = {s.color: s.user.username for s in seats}
    carried = [series.carried(i) for i in range(len(series.races))]
    out = []
    for line in series.standings():
        out.append({
            "place": line.place,
            "color": line.color,
            "username": names.get(line.color, ""),
            "points": line.points,
            "race_points": list(line.race_points),
            "positions": list(line.positions),
            "carried_damage": [c.get(line.color) for c in carried],
            "left": line.left.value if line.left else None,
        })
    return out


ACTION_KINDS = {"place": "place", "roll": "roll", "turn": "direction", "end": "leave"}


def action_entries(rows: Sequence[Move]) -> list[dict[str, Any]]:
    """The actions of a series' history as its page and the API list them: ply, race, seat,
    kind (place, roll, direction, leave) and notation (a roll with its turn: the turn's)."""
    out: list[dict[str, Any]] = []
    for i, row in enumerate(rows):
        if row.kind == Move.Kind.TURN and row.auto and i and rows[i - 1].kind == Move.Kind.ROLL:
            out[-1]["notation"] = row.notation
            out[-1]["turn"] = row
            continue
        out.append({"ply": row.ply, "race": LETTERS[row.race], "seat": row.seat, "kind": ACTION_KINDS[row.kind],
                    "notation": row.notation, "row": row, "turn": row if row.kind == Move.Kind.TURN else None})
    return out


def creator_name(game: Game, seats: Sequence[Seat]) -> str | None:
    """Who opened a series: one of its players (the creator keeps their seat), read with them."""
    found = next((s.user.username for s in seats if s.user_id == game.created_by_id), None)
    if found is None and game.created_by is not None:
        found = game.created_by.username
    return found


def series_summary(game: Game, seats: Sequence[Seat], user: Any = None) -> dict[str, Any]:
    """A game of the boxed rules in a list (the lobby, my games and series), as a series."""
    uid = getattr(user, "pk", None)
    ordered = sorted(seats, key=seat_order)
    return {
        "id": game.pk,
        "ruleset": game.ruleset,
        "series": game.series_number,
        "status": game.status,
        "created_by": creator_name(game, seats),
        "seats": game.seats_wanted,
        "players": [{"username": s.user.username, "color": s.color or None, "left": s.left or None} for s in ordered],
        "days_per_move": game.days_per_move,
        "grace_days": game.grace_days,
        "clock_shape": game.clock_shape,
        "lake_side": game.lake_side,
        "rated": game.rated,
        "score_variant": game.score_variant,
        "phase": game.phase,
        "race": LETTERS[game.race] if game.status != Game.Status.OPEN else None,
        "ply": game.ply,
        "to_move": next((s.color for s in ordered if s.index == game.to_move), None)
        if game.status == Game.Status.ACTIVE else None,
        "your_seat": any(s.user_id == uid for s in seats),
        "your_turn": game.status == Game.Status.ACTIVE and any(
            s.user_id == uid and s.index == game.to_move for s in seats),
        "created_at": game.created_at.isoformat(),
        "result": game.result_reason or None,
    }


def series_detail(game: Game, seats: Sequence[Seat], series: Series | None, rows: Sequence[Move] = (),
                  user: Any = None, replayed: bool = False) -> dict[str, Any]:
    """Everything a client needs to show a game of the boxed rules and, for the player to move,
    to act. With ``replayed``, ``series`` is the game at an earlier action (the page's replay,
    ?at=): whose turn it was then, and no one's turn to act now."""
    data = series_summary(game, seats, user)
    if replayed and series is not None:
        race_then = series.race
        data["your_turn"] = False
        data["to_move"] = (race_then.boats[race_then.to_move].color
                           if race_then.phase.value in ("place", "dice", "direction") else None)
    data.update(dice_seed_sha256=game.dice_seed_sha256 or None,
                dice_seed=game.dice_seed if game.over else None,
                clock={"move_deadline": game.move_deadline.isoformat() if game.move_deadline else None,
                       "deadline": game.deadline.isoformat() if game.deadline else None,
                       "grace_seconds": {s.color: s.grace_seconds for s in seats if s.color},
                       "vacation_allowed": game.vacation_allowed, **clock.terms(game)},
                boats=[], positions=[], table=[], races=[], start_player=None, next_start_player=None,
                your_color=None, history=[])
    if series is None:
        return data
    uid = getattr(user, "pk", None)
    by_color = {s.color: s for s in seats}
    mine = next((s for s in seats if s.user_id == uid and s.index is not None), None)
    race = series.race
    data["your_color"] = mine.color if mine else None
    data["boats"] = [
        {
            "color": b.color,
            "username": by_color[b.color].user.username,
            "cell": list(b.cell) if b.cell is not None and b.racing else None,
            "heading": b.heading,
            "heading_name": DIRECTION_NAMES[b.heading],
            "dice": list(b.dice),
            "damage": b.damage,
            "carried": b.carried,
            "buoys": b.buoys,
            "next_buoy": b.next_buoy if b.next_buoy <= 3 else None,
            "moves": b.moves,
            "finished": b.finished,
            "sunk": b.sunk,
            "left": b.retired.value if b.retired else None,
            "racing": b.racing,
        }
        for b in race.boats
    ]
    data["positions"] = [race.boats[i].color for i in race.positions]
    data["table"] = series_table(series, seats)
    data["races"] = [
        {"letter": LETTERS[i], "multiplier": i + 1, "start_player": r.boats[r.start].color,
         "boats": [b.color for b in r.boats], "result": race_result_json(r)}
        for i, r in enumerate(series.races)
    ]
    data["start_player"] = race.boats[race.start].color
    data["next_start_player"] = next_start_player(series)
    data["history"] = [{**{k: e[k] for k in ("ply", "race", "seat", "kind", "notation")},
                        **({"planned": True} if e["row"].planned else {})} for e in action_entries(rows)]
    if data["your_turn"]:
        data.update(turn_choices(race))
    return data
