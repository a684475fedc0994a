"""A game being played: a course, the current state and the history, owned by one caller.

:class:`GameState` is immutable; :class:`Game` is the small mutable owner that keeps
the placements and moves so that a record can be written; :class:`SeriesGame` does the same
for a :class:`~games.engine.series.Series` of the boxed game. It is not shared between
threads: the web layer builds one per request from the database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .course import Course
from .dice import DiceChoice, DiceSource
from .hexgrid import Hex
from .log import Leaving, RaceLog, Roll
from .record import game_record, series_record
from .rules import COLORS, GameState, Move, Pending, Phase, Placement, Termination
from .series import Series


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
        return game_record(self.state, self.placements, self.moves, players=self.players, meta=meta,
                           pending=self.unfinished_roll)


# --- a series ------------------------------------------------------------------------------------


class SeriesGame:
    """The mutable owner of a :class:`~games.engine.series.Series` that keeps every race's
    history so that a series record (version 2) can be written."""

    def __init__(self, series: Series, players: Mapping[str, str] | None = None) -> None:
        self.series = series
        self.players = dict(players or {})
        if len(series.races) != 1:
            raise ValueError("a series game starts with the series' first race")
        self.logs: list[RaceLog] = [RaceLog(series.races[0].ply)]

    @classmethod
    def resumed(cls, series: Series, players: Mapping[str, str] | None = None) -> SeriesGame:
        """A series game that goes on from ``series`` at any point (an earlier replay that a
        process kept: games.rulesets): its series after what it is told is the whole history's,
        but it logs only what it is told from there, so it writes no record (one from the
        series' start does)."""
        game = cls.__new__(cls)
        game.series, game.players = series, dict(players or {})
        game.logs = [RaceLog(race.ply) for race in series.races]
        return game

    def fork(self) -> SeriesGame:
        """A series game of its own at the same point: the series is immutable and the logs are
        copied, so that what one is told never shows in the other (a process keeps a replay that
        pages read while an action goes on from a fork of it: games.services_series)."""
        other = SeriesGame.__new__(SeriesGame)
        other.series, other.players, other.logs = self.series, dict(self.players), [log.copy() for log in self.logs]
        return other

    @property
    def state(self) -> GameState:
        """The race being played."""
        return self.series.race

    @property
    def log(self) -> RaceLog:
        return self.logs[-1]

    def place(self, cell: Hex, heading: int) -> None:
        before = self.series
        race = before.race
        self.series = before.place(cell, heading)
        boat = race.boat
        self.log.placements.append((before.ply, Placement(race.to_move, boat.color, cell, heading)))
        self._new_races()

    def choose_dice(self, choice: DiceChoice, source: DiceSource) -> Move | None:
        """Roll; returns the move when it was made at once (only one direction allowed)."""
        before = self.series
        self.series, move = before.choose_dice(choice, source)
        if move is not None:
            self.log.moves.append((before.ply + 1, move))
            self.log.unfinished_roll = None
        else:
            assert self.series.race.pending is not None
            self.log.unfinished_roll = Roll(before.ply, self.series.race.pending)
        self._new_races()
        return move

    def choose_direction(self, direction: int) -> Move:
        before = self.series
        self.series, move = before.choose_direction(direction)
        assert move is not None
        self.log.moves.append((before.ply, move))
        self.log.unfinished_roll = None
        self._new_races()
        return move

    def resign(self, seat: int) -> None:
        """Series seat ``seat`` leaves, at any time (also between a roll and its direction: that
        roll stays in the record with the departure)."""
        self._leave(seat, Termination.RESIGN)

    def time_out(self, seat: int) -> None:
        self._leave(seat, Termination.TIMEOUT)

    def adjudicate(self) -> None:
        """Refused: a series is not adjudicated (games.engine.Series.adjudicate)."""
        self.series = self.series.adjudicate()

    def _leave(self, seat: int, termination: Termination) -> None:
        before = self.series
        race = before.race
        self.series = before.resign(seat) if termination is Termination.RESIGN else before.time_out(seat)
        roll = None
        if race.phase is Phase.DIRECTION and race.boats[race.to_move].color == before.colors[seat]:
            roll, self.log.unfinished_roll = self.log.unfinished_roll, None  # the leaver's own roll
        self.log.departures.append(Leaving(before.ply, before.colors[seat], termination, roll))
        self._new_races()

    def _new_races(self) -> None:
        while len(self.logs) < len(self.series.races):
            self.logs.append(RaceLog(self.series.races[len(self.logs)].ply))

    def record(self, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return series_record(self.series, self.logs, players=self.players, meta=meta)
