"""Simple players for simulations: random legal choices, and a greedy one.

Both only choose among what the engine offers (``distinct_dice_choices``, allowed
options, free start cells), so they can never make an illegal move.

The greedy player looks one roll ahead: for each total it takes the best allowed
direction by :class:`RouteMap` distance (with a price on damage), and picks the dice
choice whose exact distribution of totals gives the best expected value.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from .course import Course
from .dice import DiceChoice, DiceSource
from .game import Game, SeriesGame
from .hexgrid import Hex
from .route import MapCache, RouteMap
from .rules import SINKING_DAMAGE, Boat, GameState, Option, Phase, simulate
from .series import Series


class Player(Protocol):
    def place(self, state: GameState) -> tuple[Hex, int]: ...
    def dice(self, state: GameState) -> DiceChoice: ...
    def direction(self, state: GameState) -> int: ...


class RandomPlayer:
    """Uniformly random among the legal choices (dice by distinct effect)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def place(self, state: GameState) -> tuple[Hex, int]:
        return self.rng.choice(state.free_start_cells()), self.rng.randrange(6)

    def dice(self, state: GameState) -> DiceChoice:
        return self.rng.choice(state.distinct_dice_choices())

    def direction(self, state: GameState) -> int:
        return self.rng.choice(state.allowed_directions())


class GreedyPlayer:
    """One roll of look-ahead on the route distance; avoids damage that sinks."""

    # moves of progress worth giving up to avoid reaching a damage total (4 sinks)
    damage_prices = (0.0, 1.5, 4.0, 9.0)
    sink_price = 1000.0
    stop_price = 1.5  # losing one's dice in a crash means a slow next turn
    idle_price = 2.0  # a move that leaves the boat where it was is a move lost

    def __init__(self, rng: random.Random, route: RouteMap | None = None, maps: MapCache | None = None) -> None:
        self.rng = rng
        self.route = route
        self.maps = maps

    def _route(self, course: Course) -> RouteMap:
        if self.route is None or self.route.course is not course:
            self.route = self.maps.route(course) if self.maps else RouteMap(course)
        return self.route

    def value(self, course: Course, boat: Boat) -> float:
        """Higher is better: minus the distance left, minus prices for damage."""
        if boat.finished:
            return 10_000.0 - boat.damage
        assert boat.cell is not None
        route = self._route(course)
        entry = boat.entries[boat.next_buoy - 1] if boat.next_buoy <= 3 else 0
        dist = route.distance(boat.next_buoy, boat.cell, boat.heading, entry, boat.count)
        value = -float(dist)
        if boat.sunk or boat.damage >= SINKING_DAMAGE:
            value -= self.sink_price
        else:
            value -= self.damage_prices[boat.damage]
        if not boat.dice:
            value -= self.stop_price
        return value

    def option_value(self, state: GameState, option: Option) -> float:
        boat, _ = simulate(state.course, state.boats, state.to_move, option.direction, option.total)
        idle = self.idle_price if boat.cell == state.boat.cell else 0.0
        return self.value(state.course, boat) - idle

    def best_for_total(self, state: GameState, total: int) -> tuple[float, int]:
        options = [o for o in state.options_for_total(total) if o.allowed]
        if total == 0:
            # keeping heading with speed 0 changes nothing and only repeats this decision
            options = [o for o in options if o.direction != state.boat.heading]
        scored = [(self.option_value(state, o), o.direction) for o in options]
        return max(scored)

    def place(self, state: GameState) -> tuple[Hex, int]:
        course = state.course
        route = self._route(course)
        best: list[tuple[int, Hex, int]] = []
        for cell in state.free_start_cells():
            for heading in range(6):
                best.append((route.distance(1, cell, heading), cell, heading))
        best.sort()
        top = [b for b in best if b[0] == best[0][0]]
        _, cell, heading = self.rng.choice(top)
        return cell, heading

    def dice(self, state: GameState) -> DiceChoice:
        cache: dict[int, float] = {}
        best_choice: DiceChoice | None = None
        best_value = float("-inf")
        for choice in state.distinct_dice_choices():
            expected = 0.0
            for total, p in choice.distribution(state.boat.dice).items():
                if total not in cache:
                    cache[total] = self.best_for_total(state, total)[0]
                expected += float(p) * cache[total]
            if expected > best_value + 1e-9:
                best_choice, best_value = choice, expected
        assert best_choice is not None
        return best_choice

    def direction(self, state: GameState) -> int:
        assert state.pending is not None
        return self.best_for_total(state, state.pending.total)[1]


def play_game(
    course: Course,
    players: Sequence[Player],
    source: DiceSource,
    names: Sequence[str] | None = None,
    on_move: Callable[[Game], None] | None = None,
) -> Game:
    """Play a whole game between ``players`` (seat order: Yellow, Red)."""
    game = Game(course, players={c: n for c, n in zip(("yellow", "red"), names or (), strict=False)})
    while not game.state.over:
        state = game.state
        player = players[state.to_move]
        if state.phase is Phase.PLACE:
            game.place(*player.place(state))
        elif state.phase is Phase.DICE:
            game.choose_dice(player.dice(state), source)
        else:
            game.choose_direction(player.direction(state))
        if on_move is not None:
            on_move(game)
    return game


def play_series(
    series: Series,
    players: Sequence[Player],
    source: DiceSource,
    names: Sequence[str] | None = None,
    on_action: Callable[[SeriesGame], None] | None = None,
) -> SeriesGame:
    """Play a whole series (or a single race) of the boxed game; ``players[i]`` sits in series
    seat ``i`` and plays every race of it."""
    game = SeriesGame(series, players={c: n for c, n in zip(series.colors, names or (), strict=False)})
    while not game.series.over:
        state = game.state
        player = players[game.series.to_move]
        if state.phase is Phase.PLACE:
            game.place(*player.place(state))
        elif state.phase is Phase.DICE:
            game.choose_dice(player.dice(state), source)
        else:
            game.choose_direction(player.direction(state))
        if on_action is not None:
            on_action(game)
    return game
