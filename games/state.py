"""Between the database and the rules engine: courses, states, moves and records."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from games.engine import Boat, Course, DiceChoice, GameState, Outcome, Phase, Termination
from games.engine.record import (
    choice_from_json,
    choice_json,
    course_from_json,
    course_json,
    game_record,
    grid_json,
    lake_json,
)
from games.engine.rules import Move as EngineMove
from games.engine.rules import Placement

from .models import COLORS, Game, Move, Seat


def course_data(course: Course) -> dict[str, Any]:
    return {"lake": lake_json(course.lake), "course": course_json(course)}


@lru_cache(maxsize=512)
def _course(game_id: int, created: str) -> Course:
    game = Game.objects.only("course").get(pk=game_id)
    return course_from_json({"grid": grid_json(), **game.course})


def course_of(game: Game) -> Course:
    """The game's course, built once per process (a course never changes)."""
    return _course(game.pk, game.created_at.isoformat())


def boat_of(seat: Seat) -> Boat:
    cell = (seat.q, seat.r) if seat.q is not None and seat.r is not None else None
    entries = tuple(seat.entries) if seat.entries else (0, 0, 0)
    return Boat(
        seat.color, cell, seat.heading, tuple(seat.dice), seat.damage, seat.next_buoy, seat.count,
        (entries[0], entries[1], entries[2]), seat.finished, seat.sunk, seat.moves,
    )


def store_boat(seat: Seat, boat: Boat) -> None:
    seat.q, seat.r = boat.cell if boat.cell is not None else (None, None)
    seat.heading = boat.heading
    seat.dice = list(boat.dice)
    seat.damage = boat.damage
    seat.next_buoy = boat.next_buoy
    seat.count = boat.count
    seat.entries = list(boat.entries)
    seat.finished = boat.finished
    seat.sunk = boat.sunk
    seat.moves = boat.moves
    seat.points = boat.points


def outcome_of(game: Game) -> Outcome | None:
    if not game.termination:
        return None
    winner = COLORS.index(game.winner_color) if game.winner_color else None
    return Outcome(winner, Termination(game.termination), game.result_reason)


def pending_of(game: Game) -> tuple[DiceChoice, tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None:
    if not game.pending:
        return None
    p = game.pending
    return choice_from_json(p["choice"]), tuple(p["dice_before"]), tuple(p["rolled"]), tuple(p["dice"])


def state_of(game: Game, seats: list[Seat] | None = None) -> GameState:
    """The engine state of a game from its stored rows."""
    seats = seats if seats is not None else list(game.seats.order_by("index"))
    return GameState.resume(
        course_of(game),
        [boat_of(s) for s in seats],
        Phase(game.phase),
        game.to_move,
        game.ply,
        pending_of(game),
        outcome_of(game),
    )


def store_state(game: Game, seats: list[Seat], state: GameState) -> None:
    """Copy an engine state into the game row and its seats (not saved)."""
    for seat, boat in zip(seats, state.boats, strict=True):
        store_boat(seat, boat)
    game.phase = state.phase.value
    game.to_move = state.to_move
    game.ply = state.ply
    pending = state.pending
    game.pending = (
        {
            "choice": choice_json(pending.choice),
            "dice_before": list(pending.dice_before),
            "rolled": list(pending.rolled),
            "dice": list(pending.dice),
        }
        if pending
        else None
    )
    outcome = state.outcome
    if outcome is not None:
        game.status = Game.Status.FINISHED
        game.termination = outcome.termination.value
        game.result_reason = outcome.reason
        game.winner_color = COLORS[outcome.winner] if outcome.winner is not None else ""
        game.winner = game.player(outcome.winner) if outcome.winner is not None else None


def _cell(value: Any) -> tuple[int, int]:
    return (int(value[0]), int(value[1]))


def engine_move(row: Move) -> EngineMove:
    assert row.choice is not None and row.direction is not None and row.start is not None
    return EngineMove(
        row.seat, COLORS[row.seat], row.number, choice_from_json(row.choice), tuple(row.dice_before),
        tuple(row.rolled), tuple(row.dice), row.direction, row.auto, _cell(row.start), row.reach,
        tuple(_cell(c) for c in row.path), _cell(row.final), row.heading, row.damage, row.damage_total,
        row.crash, tuple(row.rounded), row.finished, row.sunk, row.ply,
    )


def history_of(game: Game) -> tuple[list[Placement], list[EngineMove]]:
    placements: list[Placement] = []
    moves: list[EngineMove] = []
    for row in game.moves.order_by("ply"):
        if row.kind == Move.Kind.PLACE:
            placements.append(Placement(row.seat, COLORS[row.seat], _cell(row.final), row.heading))
        else:
            moves.append(engine_move(row))
    return placements, moves


def record_of(game: Game) -> dict[str, Any]:
    """The game record (docs/game-record.md) from the database, with the fair-dice data."""
    placements, moves = history_of(game)
    state = state_of(game)
    meta = {
        "site_game_id": game.pk,
        "created_at": game.created_at.isoformat(),
        "days_per_move": game.days_per_move,
        "rated": game.rated,
        "dice": {
            "scheme": "hmac-sha256/v1 (docs/fair-dice.md)",
            "seed_sha256": game.dice_seed_sha256,
            "seed": game.dice_seed if game.over else None,
        },
    }
    players = {"yellow": game.yellow.username, "red": game.red.username}
    return game_record(state, placements, moves, players=players, meta=meta)
