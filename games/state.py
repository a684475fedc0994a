"""Between the database and the rules engine: courses, states, history rows and records.

The stored state of a game (the ``Game`` row and its ``Seat`` rows) is a cache of the replay
of its history (``Move`` rows, one per ply): :func:`record_of` turns the rows into a game
record, which ``games.engine.record.verify`` replays by the rules alone, and
``manage.py verify_games`` checks that the replay and the stored state agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from games.engine import Boat, Course, DiceChoice, GameState, Outcome, Pending, Phase, Termination
from games.engine.compact import course_compact, course_from_compact
from games.engine.notation import format_end, format_move, format_placement, format_roll
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

from .models import COLORS, Game, LakeCourse, Move, Seat

# Parsed courses kept per process. A course is built lazily (games.engine.course) from its compact
# form (games.engine.compact) in ~0.1 ms and takes ~35 KB before play; the cache spares the
# database read for the games a process serves again and again (a game being played live).
COURSE_CACHE_SIZE = 2048


def course_data(course: Course) -> dict[str, Any]:
    """A course as stored: the lake and the course in the game record format."""
    return {"lake": lake_json(course.lake), "course": course_json(course)}


def stored_course(data: dict[str, Any]) -> LakeCourse:
    """The stored row of a lake and course (record format, checked by building it), created
    the first time it is seen."""
    key = LakeCourse.key_of(data)
    row = LakeCourse.objects.filter(key=key).first()
    if row is None:
        course = course_from_json({"grid": grid_json(), **data})
        row, _ = LakeCourse.objects.get_or_create(key=key, defaults={
            "data": data, "compact": course_compact(course), "letter": course.letter, "side": course.lake.side,
        })
    return row


@lru_cache(maxsize=COURSE_CACHE_SIZE)
def course_by_key(key: str) -> Course:
    """The parsed course of a stored key (immutable, so it is never read twice per process).
    Reads the compact form: ~0.7 KB and ~0.1 ms to build, against ~14 KB and ~0.5 ms for the
    record's form, since in correspondence play most requests find their game's course gone
    from the cache."""
    return course_from_compact(LakeCourse.objects.values_list("compact", flat=True).get(pk=key))


def course_of(game: Game) -> Course:
    return course_by_key(game.course_id)


# --- stored state ---------------------------------------------------------------------------

GAME_STATE_FIELDS = ("phase", "to_move", "ply", "pending", "status", "termination", "result_reason", "result_code",
                     "result_params", "winner_color", "winner_id")
SEAT_STATE_FIELDS = ("q", "r", "heading", "dice", "damage", "next_buoy", "count", "entries", "finished", "sunk",
                     "moves", "points")


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
    return Outcome(winner, Termination(game.termination), game.result_reason, game.result_code,
                   dict(game.result_params or {}))


def pending_json(pending: Pending | None) -> dict[str, Any] | None:
    if pending is None:
        return None
    return {"choice": choice_json(pending.choice), "dice_before": list(pending.dice_before),
            "rolled": list(pending.rolled), "dice": list(pending.dice)}


def pending_of(game: Game) -> tuple[DiceChoice, tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None:
    if not game.pending:
        return None
    p = game.pending
    return choice_from_json(p["choice"]), tuple(p["dice_before"]), tuple(p["rolled"]), tuple(p["dice"])


def state_of(game: Game, seats: Sequence[Seat] | None = None) -> GameState:
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


def store_state(game: Game, seats: Sequence[Seat], state: GameState) -> None:
    """Copy an engine state into the game row and its seats (not saved)."""
    for seat, boat in zip(seats, state.boats, strict=True):
        store_boat(seat, boat)
    game.phase = state.phase.value
    game.to_move = state.to_move
    game.ply = state.ply
    game.pending = pending_json(state.pending)
    outcome = state.outcome
    if outcome is not None:
        game.status = Game.Status.FINISHED
        game.termination = outcome.termination.value
        game.result_reason = outcome.reason
        game.result_code, game.result_params = outcome.code, dict(outcome.params)
        game.winner_color = COLORS[outcome.winner] if outcome.winner is not None else ""
        game.winner_id = game.player_id(outcome.winner) if outcome.winner is not None else None


# --- history rows ---------------------------------------------------------------------------


def place_row(game: Game, user: Any, placement: Placement, ply: int, now: Any) -> Move:
    return Move(game=game, ply=ply, seat=placement.seat, user=user, kind=Move.Kind.PLACE, final=list(placement.cell),
                heading=placement.heading, notation=format_placement(placement), created_at=now)


def roll_row(game: Game, user: Any, seat: int, number: int, choice: DiceChoice, dice_before: Sequence[int],
             rolled: Sequence[int], dice: Sequence[int], ply: int, now: Any) -> Move:
    """A roll at ``ply``: awaiting its direction, or stored with the turn that followed at once."""
    return Move(
        game=game, ply=ply, seat=seat, user=user, kind=Move.Kind.ROLL, number=number, rolled_at=now,
        created_at=now, choice=choice_json(choice), dice_before=list(dice_before), rolled=list(rolled),
        dice=list(dice), notation=format_roll(number, COLORS[seat], choice, tuple(dice)),
    )


def turn_row(game: Game, user: Any, move: EngineMove, now: Any) -> Move:
    """The whole turn, at the ply after its roll."""
    return Move(
        game=game, ply=move.roll_ply + 1, seat=move.seat, user=user, kind=Move.Kind.TURN, number=move.number,
        created_at=now, choice=choice_json(move.choice),
        dice_before=list(move.dice_before), rolled=list(move.rolled), dice=list(move.dice), direction=move.direction,
        auto=move.auto, start=list(move.start), reach=move.reach, path=[list(c) for c in move.path],
        final=list(move.final), heading=move.heading, damage=move.damage, damage_total=move.damage_total,
        crash=move.crash, rounded=list(move.rounded), finished=move.finished, sunk=move.sunk,
        notation=format_move(move),
    )


def end_row(game: Game, user: Any, seat: int, termination: Termination, ply: int, now: Any) -> Move:
    color = COLORS[seat] if termination is not Termination.ADJUDICATION else None
    return Move(game=game, ply=ply, seat=seat, user=user, kind=Move.Kind.END, termination=termination.value,
                created_at=now, notation=format_end(termination.value, color))


def _cell(value: Any) -> tuple[int, int]:
    return (int(value[0]), int(value[1]))


def engine_move(row: Move) -> EngineMove:
    assert row.choice is not None and row.direction is not None and row.start is not None
    assert row.final is not None and row.heading is not None
    return EngineMove(
        row.seat, COLORS[row.seat], row.number, choice_from_json(row.choice), tuple(row.dice_before),
        tuple(row.rolled), tuple(row.dice), row.direction, row.auto, _cell(row.start), row.reach,
        tuple(_cell(c) for c in row.path), _cell(row.final), row.heading, row.damage, row.damage_total,
        row.crash, tuple(row.rounded), row.finished, row.sunk, row.ply - 1,
    )


@dataclass(frozen=True)
class History:
    """The history rows read as the engine's values (for records and replays)."""

    placements: list[Placement]
    moves: list[EngineMove]
    unfinished_roll: Move | None  # the last roll, if its direction was never chosen
    end: Move | None  # how the game ended if not by a move

    @classmethod
    def of(cls, rows: Iterable[Move]) -> History:
        placements: list[Placement] = []
        moves: list[EngineMove] = []
        roll: Move | None = None
        end: Move | None = None
        for row in rows:
            if row.kind == Move.Kind.PLACE:
                assert row.final is not None and row.heading is not None
                placements.append(Placement(row.seat, COLORS[row.seat], _cell(row.final), row.heading))
            elif row.kind == Move.Kind.ROLL:
                roll = row
            elif row.kind == Move.Kind.TURN:
                moves.append(engine_move(row))
                roll = None
            elif row.kind == Move.Kind.END:
                end = row
        return cls(placements, moves, roll, end)

    def pending(self) -> Pending | None:
        row = self.unfinished_roll
        if row is None:
            return None
        assert row.choice is not None
        return Pending(choice_from_json(row.choice), tuple(row.dice_before), tuple(row.rolled), tuple(row.dice))


def record_of(game: Game, rows: Sequence[Move] | None = None) -> dict[str, Any]:
    """The game record (docs/game-record.md) from the database, with the fair-dice data."""
    rows = rows if rows is not None else list(game.moves.order_by("ply"))
    history = History.of(rows)
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
    return game_record(state, history.placements, history.moves, players=players, meta=meta,
                       pending=history.pending())
