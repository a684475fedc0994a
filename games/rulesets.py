"""The rulesets a game is played by, each written once and registered (as python-chess registers
the variants of one Board), so that every consumer — the services, the pages, the API, the bots,
the verifier — handles every game the same way and asks the game's ruleset where they differ.

* ``online`` — the online two-player rules (R1–R14): two boats, yellow and red, one race. The
  whole position is in the stored columns, so the engine's state is resumed from them
  (games.state.state_of): an action reads one row per seat and replays nothing.
* ``boxed`` — the boxed game for 2–6 boats (R15–R20): a series of up to three races on the A, B
  and C courses of one lake. The engine's series (earlier races, the table) is the replay of the
  history; a process keeps the series it replayed or played by (game id, dice-seed hash, ply),
  which names one committed state forever (the history is append-only): an action replays only
  when this process has not seen the game at its current ply. Kept series are immutable values,
  so the threads of a process share them without copying.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import ClassVar

from common.db.reading import rows_where
from games.engine import SERIES_COLORS, GameState, Series
from games.engine.match import Match

from .models import Game, Move, Ruleset, Seat
from .state import course_of, courses_of, playing, replay, replay_onward, state_of

CACHE_SIZE = 256


class Rules:
    """What differs between the rulesets, for the site."""

    name: ClassVar[str]
    min_seats: ClassVar[int]  # a game offered in the lobby
    max_seats: ClassVar[int]
    min_to_start: ClassVar[int]  # the creator may start early with this many players present
    rated_pool: ClassVar[str]  # which rating it moves (games.ratings)

    def colors(self, count: int) -> tuple[str, ...]:
        return SERIES_COLORS[:count]

    def start(self, game: Game, seats: Sequence[Seat]) -> Match:
        """The engine's game at its start (ply 0), from the game's courses, seats and lot."""
        raise NotImplementedError

    def match_of(self, game: Game, seats: Sequence[Seat]) -> Match:
        """The engine's game as it stands (the stored ply)."""
        raise NotImplementedError

    def keep(self, game: Game, match: Match) -> None:
        """After the commit of an action: what this process may keep of the new state."""

    def forget(self) -> None:
        """Drop what this process keeps (tests)."""


class Online(Rules):
    name = Ruleset.ONLINE
    min_seats = max_seats = min_to_start = 2
    rated_pool = "two-player"

    def start(self, game: Game, seats: Sequence[Seat]) -> Match:
        return GameState.initial(course_of(game), [s.color for s in playing(seats)])

    def match_of(self, game: Game, seats: Sequence[Seat]) -> Match:
        return state_of(game, seats)


class Boxed(Rules):
    name = Ruleset.BOXED
    min_seats = 3  # two players have the two-player game (and a series of two forces R19's variant)
    max_seats = 6
    min_to_start = 3
    rated_pool = "series"

    def __init__(self) -> None:
        # the series kept, shared by the threads of a web process: only touched under the lock
        self._kept: OrderedDict[tuple[int, str, int], Series] = OrderedDict()
        self._lock = threading.Lock()

    def start(self, game: Game, seats: Sequence[Seat]) -> Match:
        assert game.first_start is not None
        return Series.start(courses_of(game), [s.color for s in playing(seats)], game.first_start,
                            game.score_variant, rules_version=game.rules_version)

    def match_of(self, game: Game, seats: Sequence[Seat]) -> Match:
        key = (game.pk, game.dice_seed_sha256, game.ply)
        with self._lock:
            kept = self._kept.get(key)
            # else the latest kept before it: an action another process made since (or, in a test,
            # one whose transaction never commits, so its series was never kept) is replayed onto it
            earlier = None if kept is not None else max(
                (match for (pk, seed, ply), match in self._kept.items()
                 if pk == game.pk and seed == game.dice_seed_sha256 and ply < game.ply),
                key=lambda match: match.ply, default=None)
        if kept is not None:
            return kept
        if earlier is not None:
            after = Move.objects.filter(game_id=game.pk, ply__gte=earlier.ply, ply__lt=game.ply).order_by("ply")
            match: Match = replay_onward(game, seats, earlier, list(after))
        else:
            # the rows of the game as read (a row committed since, by another request, is not replayed)
            rows = sorted((r for r in rows_where(Move, "game", [game.pk]) if r.ply < game.ply), key=lambda row: row.ply)
            match = replay(game, seats, rows)
        assert isinstance(match, Series)
        self.keep(game, match)
        return match

    def keep(self, game: Game, match: Match) -> None:
        if not isinstance(match, Series):
            return
        key = (game.pk, game.dice_seed_sha256, match.ply)
        with self._lock:
            self._kept[key] = match
            self._kept.move_to_end(key)
            while len(self._kept) > CACHE_SIZE:
                self._kept.popitem(last=False)

    def forget(self) -> None:
        with self._lock:
            self._kept.clear()


ONLINE = Online()
BOXED = Boxed()
RULESETS: dict[str, Rules] = {ONLINE.name: ONLINE, BOXED.name: BOXED}


def rules_of(game: Game) -> Rules:
    return RULESETS[game.ruleset]


def match_of(game: Game, seats: Sequence[Seat] | None = None) -> Match:
    """The engine's game as it stands, whatever its ruleset."""
    return rules_of(game).match_of(game, seats if seats is not None else game.seat_list())
