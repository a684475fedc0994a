"""A series of the boxed game: 2–6 players, up to three races on the A, B and C courses of one
lake (R15–R20), as an immutable value.

A :class:`Series` holds the courses, the seats (colours, clockwise round a virtual table), the
start player drawn for race A, whether the score variant counts, every race started so far (each
a :class:`~games.engine.rules.GameState` with :class:`~games.engine.race.RaceRules`; the last is
the one being played) and the players who left. Actions go to the race being played; when a race
ends the next one starts at once on the next course (R15: the start player moves one seat to the
left, R20: damage counters carried), until the last race is over or fewer than two players are
left (R18). :meth:`Series.standings` is the series table (R19). A series keeps the version of
R18/R19's details it was started with (``rules_version``, :data:`~games.engine.race.RULES_VERSIONS`):
every race of it is played and scored by that version.

Seats here are seats of the series; a race holds only the boats still in the series, so a
race's own seat numbers can differ once somebody has left. Colours identify boats everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from .course import Course
from .dice import DiceChoice, DiceSource
from .errors import GameOver, IllegalMove
from .hexgrid import Hex
from .race import MAX_BOATS, MIN_BOATS, RULES_VERSION, RaceRules, RaceScore, race_scores
from .rules import GameState, Move, Phase, Termination

SERIES_COLORS = ("yellow", "red", "orange", "purple", "black", "green")  # distinct initials (notation)
RACES = 3
LETTERS = ("A", "B", "C")


@dataclass(frozen=True, slots=True)
class Departure:
    """A player who left the series (R18): resigned, or lost on time, during race ``race``
    (0-based)."""

    seat: int
    termination: Termination
    race: int


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the series table (R19)."""

    place: int  # 1-based; equal places are shared
    seat: int
    color: str
    points: int
    race_points: tuple[int, ...]  # per race played (0 when not in it)
    positions: tuple[int | None, ...]  # per race played; None: no position, or not in it
    left: Termination | None  # how the player left the series, if they did


class SeriesStep(NamedTuple):
    series: Series
    move: Move | None


@dataclass(frozen=True, slots=True)
class Series:
    """The whole series. ``races`` are the races started so far, the last being played (or the
    last played once the series is over); ``departures`` the players who left, in order;
    ``rules_version`` the version of R18/R19's details every race follows."""

    courses: tuple[Course, ...]
    colors: tuple[str, ...]
    first_start: int
    score_variant: bool
    races: tuple[GameState, ...]
    departures: tuple[Departure, ...] = ()
    rules_version: int = RULES_VERSION

    @classmethod
    def start(cls, courses: Sequence[Course], colors: Sequence[str] | int, start: int,
              score_variant: bool | None = None, ply: int = 0, rules_version: int = RULES_VERSION) -> Series:
        """A new series on ``courses`` (1 to 3, one lake: races A, B, C), with boats of ``colors``
        in seat order (or the first that many of :data:`SERIES_COLORS`), race A's start player
        ``start`` (drawn by lot, R15), the score variant (R19: always with two players) and the
        version of R18/R19's details (:data:`~games.engine.race.RULES_VERSION` for a new series;
        an older one to replay a series started under it)."""
        if isinstance(colors, int):
            colors = SERIES_COLORS[:colors]
        colors = tuple(colors)
        n = len(colors)
        if not MIN_BOATS <= n <= MAX_BOATS:
            raise ValueError(f"a series has {MIN_BOATS} to {MAX_BOATS} players (R15), not {n}")
        if len(set(colors)) != n or len({c[:1].upper() for c in colors}) != n:
            raise ValueError("every boat needs its own colour, with its own initial (the notation uses it)")
        courses = tuple(courses)
        if not 1 <= len(courses) <= RACES:
            raise ValueError(f"a series has 1 to {RACES} races")
        if any(c.lake is not courses[0].lake and c.lake != courses[0].lake for c in courses):
            raise ValueError("the races of a series are on one lake (R2, R3)")
        if not 0 <= start < n:
            raise ValueError(f"no seat {start} to start")
        if score_variant is None:
            score_variant = n == 2
        if n == 2 and not score_variant:
            raise IllegalMove("R19", "with two boats the score variant is part of the scoring", "score_variant")
        race = GameState.initial(courses[0], colors, RaceRules(1, score_variant, rules_version), start, ply=ply)
        return cls(courses, colors, start, score_variant, (race,), rules_version=rules_version)

    # --- reading -----------------------------------------------------------------------

    @property
    def race(self) -> GameState:
        """The race being played (the last one, once the series is over)."""
        return self.races[-1]

    @property
    def over(self) -> bool:
        return self.races[-1].over

    @property
    def ply(self) -> int:
        """Actions so far over the whole series (plies go on counting from race to race)."""
        return self.races[-1].ply

    @property
    def phase(self) -> Phase:
        return self.races[-1].phase

    @property
    def to_move(self) -> int:
        """The series seat to place or move."""
        race = self.races[-1]
        return self.colors.index(race.boats[race.to_move].color)

    @property
    def left(self) -> frozenset[int]:
        """Seats of the players who left the series (R18)."""
        return frozenset(d.seat for d in self.departures)

    def seat_of(self, color: str) -> int:
        return self.colors.index(color)

    def race_seat(self, seat: int, race: int = -1) -> int | None:
        """The seat in a race of the series seat ``seat`` (None if it is not in that race)."""
        color = self.colors[seat]
        for i, boat in enumerate(self.races[race].boats):
            if boat.color == color:
                return i
        return None

    def scores(self) -> tuple[tuple[RaceScore, ...], ...]:
        """Every race's results (R18–R20), in each race's seat order."""
        return tuple(race_scores(race) for race in self.races)

    def carried(self, race: int) -> dict[str, int]:
        """R20: the damage counters each boat of race ``race`` (0-based) brings into it: one per
        earlier race in which its damage rose."""
        return {b.color: b.carried for b in self.races[race].boats}

    def standings(self) -> tuple[Standing, ...]:
        """The series table (R19): the players who stayed first, by points; a tie is broken by
        the positions in the last race played (a position beats none), then the race before, and
        so on; still equal, the place is shared. Players who left rank below, in the same way."""
        scores = [{s.color: s for s in race} for race in self.scores()]
        leaving = {d.seat: d.termination for d in self.departures}
        lines = []
        for seat, color in enumerate(self.colors):
            mine = [race.get(color) for race in scores]
            positions = tuple(s.position if s is not None else None for s in mine)
            race_points = tuple(s.points if s is not None else 0 for s in mine)
            lines.append((seat, color, sum(race_points), race_points, positions, leaving.get(seat)))

        def key(line: tuple[int, str, int, tuple[int, ...], tuple[int | None, ...], Termination | None]) -> tuple[
                object, ...]:
            _, _, points, _, positions, left = line
            order = tuple(p if p is not None else MAX_BOATS + 1 for p in reversed(positions))
            return (left is not None, -points, order)

        lines.sort(key=key)
        out: list[Standing] = []
        for i, line in enumerate(lines):
            place = out[-1].place if out and key(line) == key(lines[i - 1]) else i + 1
            seat, color, points, race_points, positions, left = line
            out.append(Standing(place, seat, color, points, race_points, positions, left))
        return tuple(out)

    @property
    def winner(self) -> str | None:
        """The colour of the series winner once it is over (None while it goes on, or when the
        first place is shared)."""
        if not self.over:
            return None
        table = self.standings()
        first = [s for s in table if s.place == 1]
        return first[0].color if len(first) == 1 else None

    def result(self) -> tuple[str, dict[str, Any]]:
        """The series' result as data (games.reasons.result_text says it): ``series_won`` or
        ``series_shared`` with ``colors`` (the first place), ``points`` and ``ended_after`` (the
        letter of the last race when fewer than two players were left, else None)."""
        table = self.standings()
        first = [s for s in table if s.place == 1]
        ended = LETTERS[len(self.races) - 1] if len(self.races) < len(self.courses) else None
        return ("series_won" if len(first) == 1 else "series_shared",
                {"colors": [s.color for s in first], "points": first[0].points, "ended_after": ended})

    def result_text(self) -> str:
        table = self.standings()
        first = [s for s in table if s.place == 1]
        names = " and ".join(s.color.capitalize() for s in first)
        if len(first) == 1:
            text = f"{names} wins the series with {first[0].points} points"
        else:
            text = f"{names} share first place with {first[0].points} points"
        if len(self.races) < len(self.courses):
            text += f" (ended after race {LETTERS[len(self.races) - 1]}: fewer than two players left)"
        return text

    # --- acting ------------------------------------------------------------------------

    def place(self, cell: Hex, heading: int) -> Series:
        """R15, R16: the boat to place goes on a free start cell."""
        return self._advance(self.race.place(cell, heading))

    def choose_dice(self, choice: DiceChoice, source: DiceSource) -> SeriesStep:
        state, move = self.race.choose_dice(choice, source)
        return SeriesStep(self._advance(state), move)

    def choose_direction(self, direction: int) -> SeriesStep:
        state, move = self.race.choose_direction(direction)
        return SeriesStep(self._advance(state), move)

    def resign(self, seat: int) -> Series:
        """The player in series seat ``seat`` leaves the series, at any time (R18). A boat still
        in the race is lifted off without a position; one that already finished keeps its
        position and points in this race (R14: what is scored stands), one that sank keeps none.
        Fewer than two players left: the race ends at once where it stands (the boats still on
        the lake ranked after the finishers as at the cut-off; a boat not yet placed takes no
        position) and so does the series."""
        return self._leave(seat, Termination.RESIGN)

    def time_out(self, seat: int) -> Series:
        """The player to move ran out of time: as :meth:`resign`."""
        if seat != self.to_move and not self.over:
            raise IllegalMove("R18", "only the player to move can lose on time", "seat")
        return self._leave(seat, Termination.TIMEOUT)

    def adjudicate(self) -> Series:
        """A series is never adjudicated: tournaments pair two-player games (docs/tournaments.md)."""
        raise IllegalMove("adjudication", "a series of the boxed game is not adjudicated", "game")

    # --- internals -----------------------------------------------------------------------

    def _leave(self, seat: int, termination: Termination) -> Series:
        if self.over:
            raise GameOver("over", "the series is over", "phase")
        if not isinstance(seat, int) or not 0 <= seat < len(self.colors):
            raise IllegalMove("turn", f"no seat {seat}", "seat")
        if seat in self.left:
            raise IllegalMove("R18", f"{self.colors[seat].capitalize()} has already left the series", "seat")
        race = self.race
        race_seat = self.race_seat(seat)
        assert race_seat is not None, "every player still in the series is in its race"
        if race.boats[race_seat].racing:
            new = race.resign(race_seat) if termination is Termination.RESIGN else race.time_out(race_seat)
        else:
            new = replace(race, ply=race.ply + 1)
        departures = (*self.departures, Departure(seat, termination, len(self.races) - 1))
        if len(self.colors) - len(departures) < 2 and not new.over:
            rules = new.rules
            assert isinstance(rules, RaceRules)
            new = rules.close(new, termination)
        return replace(self, departures=departures)._advance(new)

    def _advance(self, race: GameState) -> Series:
        """The series with the race being played replaced; a race that ended starts the next."""
        races = (*self.races[:-1], race)
        series = replace(self, races=races)
        if race.over and len(races) < len(self.courses) and len(self.colors) - len(self.departures) >= 2:
            series = replace(series, races=(*races, series._next_race()))
        return series

    def _next_race(self) -> GameState:
        """R15: the start player's left-hand neighbour starts (skipping players who left);
        R20: each boat carries one damage counter per race in which its damage rose."""
        last = self.races[-1]
        left = self.left
        seat = self.seat_of(last.boats[last.start].color)
        while True:
            seat = (seat + 1) % len(self.colors)
            if seat not in left:
                break
        carried = {s.color: s.carried + s.took_damage for s in race_scores(last)}
        colors = [c for i, c in enumerate(self.colors) if i not in left]
        index = len(self.races)
        rules = RaceRules(index + 1, self.score_variant, self.rules_version)
        return GameState.initial(self.courses[index], colors, rules, colors.index(self.colors[seat]),
                                 [carried[c] for c in colors], ply=last.ply)


__all__ = ["LETTERS", "RACES", "SERIES_COLORS", "Departure", "Series", "SeriesStep", "Standing"]
