"""The shapes of what the site and the API answer about games (no queries, no writes):
selectors read rows, services change them, and both hand them here to be put into words."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from games.engine import DIRECTION_NAMES, Change, GameState, Phase
from games.engine.notation import format_choice

from . import clock
from .models import COLORS, Game, Move, Seat
from .state import state_of


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


def placement_json(row: Move) -> dict[str, Any]:
    return {"color": COLORS[row.seat], "cell": row.final, "heading": row.heading, "notation": row.notation}


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
    """Everything a client needs to show a game and, for the player to move, to act.
    A caller that has loaded the seats, state or move rows already passes them in."""
    seats = seats if seats is not None else list(game.seats.order_by("index"))
    state = state if state is not None else state_of(game, seats)
    moves = shown_rows(moves if moves is not None else list(game.moves.order_by("ply")))
    viewer = game.seat_of(user)
    data: dict[str, Any] = {
        "id": game.pk,
        "status": game.status,
        "phase": game.phase,
        "ply": game.ply,
        "to_move": None if game.over else COLORS[game.to_move],
        "your_color": COLORS[viewer] if viewer is not None else None,
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
                "username": game.player(s.index).username,
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
            {"ply": m.ply, "color": COLORS[m.seat] if m.kind != Move.Kind.END or m.termination != "adjudication"
             else None, "kind": m.kind, "notation": m.notation}
            for m in moves
        ],
    }
    if data["your_turn"]:
        data.update(turn_choices(state))
    return data
