"""Reads for games and challenges, shared by the site and the API."""

from __future__ import annotations

from typing import Any

from django.db.models import Case, IntegerField, Q, QuerySet, Value, When

from games.engine import DIRECTION_NAMES, Change, GameState, Phase
from games.engine.notation import format_choice

from . import clock
from .models import COLORS, Challenge, Game, Move, Seat
from .services import option_json
from .state import state_of


def open_challenges(user: Any = None) -> QuerySet[Challenge]:
    """Open challenges anyone may accept, and those made to ``user``."""
    visible = Q(opponent__isnull=True)
    if user is not None and user.is_authenticated:
        visible |= Q(opponent=user) | Q(created_by=user)
    return (
        Challenge.objects.filter(visible, status=Challenge.Status.OPEN)
        .select_related("created_by", "opponent")
        .order_by("-created_at")
    )


def games_of(user: Any) -> QuerySet[Game]:
    """A player's games: active ones where it is their turn first, then other active ones,
    then finished ones, most recent first."""
    mine = Q(yellow=user) | Q(red=user)
    my_turn = Q(status=Game.Status.ACTIVE) & (Q(yellow=user, to_move=0) | Q(red=user, to_move=1))
    return (
        Game.objects.filter(mine)
        .select_related("yellow", "red")
        .annotate(
            sort=Case(
                When(my_turn, then=Value(0)),
                When(status=Game.Status.ACTIVE, then=Value(1)),
                default=Value(2),
                output_field=IntegerField(),
            )
        )
        .order_by("sort", "-updated_at")
    )


def games_to_move(user: Any) -> QuerySet[Game]:
    return games_of(user).filter(sort=0)


def dice_options(state: GameState) -> dict[str, Any]:
    """R6 for the player to move: what they may do with their dice, and the chance of each total."""
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
    return {
        "dice": list(boat.dice),
        "first_move": first,
        "changes": changes,
        "reroll": "any subset of the indices of the dice you keep" if boat.dice and not first else "none",
        "choices": [
            {
                "notation": format_choice(c),
                "change": c.change.value,
                "remove": c.remove,
                "reroll": list(c.reroll),
                "totals": {str(t): float(p) for t, p in sorted(c.distribution(boat.dice).items())},
            }
            for c in state.distinct_dice_choices()
        ],
    }


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
    moves = moves if moves is not None else list(game.moves.order_by("ply"))
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
            {"winner": game.winner_color or None, "termination": game.termination, "reason": game.result_reason}
            if game.over
            else None
        ),
        "moves": [
            {"ply": m.ply, "color": COLORS[m.seat], "kind": m.kind, "notation": m.notation}
            for m in moves
        ],
    }
    if data["your_turn"]:
        if state.phase is Phase.PLACE:
            data["placements"] = {"cells": [list(c) for c in state.free_start_cells()], "headings": list(range(6))}
        elif state.phase is Phase.DICE:
            data["dice_options"] = dice_options(state)
        elif state.phase is Phase.DIRECTION:
            data["options"] = [option_json(o) for o in state.options()]
    return data
