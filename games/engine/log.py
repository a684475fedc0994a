"""What happened in a race of a series, action by action, as the engine's owner of a series
(games.engine.game.SeriesGame) keeps it and a series record (games.engine.record) writes it."""

from __future__ import annotations

from dataclasses import dataclass, field

from .rules import Move, Pending, Placement, Termination


@dataclass(frozen=True, slots=True)
class Roll:
    """A roll and its ply, for a record: one whose direction never came (the player left, or
    the game stopped), or the one awaiting its direction now."""

    ply: int
    pending: Pending


@dataclass(frozen=True, slots=True)
class Leaving:
    """A player leaving the series at ``ply`` (R18), with their roll if they left between a
    roll and its direction."""

    ply: int
    color: str
    termination: Termination
    roll: Roll | None = None


@dataclass
class RaceLog:
    """What happened in one race of a series, for its record: every action with its ply."""

    first_ply: int
    placements: list[tuple[int, Placement]] = field(default_factory=list)
    moves: list[tuple[int, Move]] = field(default_factory=list)  # the ply of the move's direction
    departures: list[Leaving] = field(default_factory=list)
    unfinished_roll: Roll | None = None

    def copy(self) -> RaceLog:
        """A log of its own with the same entries (the entries are immutable)."""
        return RaceLog(self.first_ply, list(self.placements), list(self.moves), list(self.departures),
                       self.unfinished_roll)
