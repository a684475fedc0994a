"""A game being played: a course, the current state and the history, owned by one caller.

:class:`GameState` is immutable; :class:`Game` is the small mutable owner that keeps
the placements and moves so that a record can be written. It is not shared between
threads: the web layer builds one per request from the database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .course import Course
from .dice import DiceChoice, DiceSource
from .hexgrid import Hex
from .rules import COLORS, GameState, Move, Pending, Placement


class Game:
    def __init__(self, course: Course, colors: Sequence[str] = COLORS, players: Mapping[str, str] | None = None) -> None:
        self.course = course
        self.state = GameState.initial(course, colors)
        self.placements: list[Placement] = []
        self.moves: list[Move] = []
        self.players = dict(players or {})
        self.unfinished_roll: Pending | None = None  # a roll whose direction was never chosen


    def place(self, cell: Hex, heading: int) -> None:
        seat = self.state.to_move
        self.state = self.state.place(cell, heading)
        self.placements.append(Placement(seat, self.state.boats[seat].color, cell, heading))

    def choose_dice(self, choice: DiceChoice, source: DiceSource) -> Move | None:
        """Roll; returns the move when it was made at once (only one direction allowed)."""
        self.state, move = self.state.choose_dice(choice, source)
        if move is not None:
            self.moves.append(move)
        self.unfinished_roll = self.state.pending
        return move

    def choose_direction(self, direction: int) -> Move:
        self.state, move = self.state.choose_direction(direction)
        assert move is not None
        self.moves.append(move)
        self.unfinished_roll = None
        return move

    def resign(self, seat: int) -> None:
        """Give up, also between a roll and its direction: the roll stays in the record."""
        self.state = self.state.resign(seat)

    def time_out(self, seat: int) -> None:
        self.state = self.state.time_out(seat)

    def adjudicate(self) -> None:
        self.state = self.state.adjudicate()

    def record(self, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
        from .record import game_record

        return game_record(self.state, self.placements, self.moves, players=self.players, meta=meta,
                           pending=self.unfinished_roll)
