"""Property-based tests: random legal play keeps every invariant of the rules, in the online game
and in races and series of the boxed game (R15-R20)."""

from __future__ import annotations

import itertools
import json
import random
from functools import cache

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from games.engine import FixedDice, Phase, new_course, validate_course
from games.engine.game import Game
from games.engine.record import verify


@cache
def course(index: int):
    rng = random.Random(1000 + index)
    return new_course("standard" if index % 2 else "expert", "ABC"[index % 3], rng)


class RandomPlay(RuleBasedStateMachine):
    """Places, rolls and moves with choices and dice drawn by hypothesis."""

    @initialize(index=st.integers(0, 5))
    def start(self, index: int) -> None:
        self.game = Game(course(index))
        self.damage = [0, 0]
        self.rounded: list[list[int]] = [[], []]

    @precondition(lambda self: self.game.state.over)
    @rule(index=st.integers(0, 5))
    def next_game(self, index: int) -> None:
        result = verify(json.loads(json.dumps(self.game.record())))
        assert result.ok, result.message
        self.start(index)

    @precondition(lambda self: self.game.state.phase is Phase.PLACE)
    @rule(data=st.data())
    def place(self, data: st.DataObject) -> None:
        state = self.game.state
        cell = data.draw(st.sampled_from(state.free_start_cells()))
        self.game.place(cell, data.draw(st.integers(0, 5)))

    @precondition(lambda self: self.game.state.phase is Phase.DICE)
    @rule(data=st.data())
    def roll(self, data: st.DataObject) -> None:
        choice = data.draw(st.sampled_from(self.game.state.distinct_dice_choices()))
        values = data.draw(st.lists(st.integers(1, 3), min_size=choice.rolls, max_size=choice.rolls))
        move = self.game.choose_dice(choice, FixedDice(values))
        if move is not None:
            self.after(move)

    @precondition(lambda self: self.game.state.phase is Phase.DIRECTION)
    @rule(data=st.data())
    def steer(self, data: st.DataObject) -> None:
        self.after(self.game.choose_direction(data.draw(st.sampled_from(self.game.state.allowed_directions()))))

    @precondition(lambda self: not self.game.state.over)
    @rule(how=st.sampled_from(["resign", "time_out", "adjudicate"]), seat=st.integers(0, 1))
    def end_early(self, how: str, seat: int) -> None:
        """A game can end by resignation, time or adjudication at any point, also between a
        roll and its direction; its record still replays (the unfinished roll included)."""
        if how == "adjudicate":
            self.game.adjudicate()
        else:
            getattr(self.game, how)(seat)
        result = verify(json.loads(json.dumps(self.game.record())))
        assert result.ok, result.message
        assert result.state is not None and result.state.boats == self.game.state.boats

    def after(self, move) -> None:
        seat = move.seat
        assert move.damage_total >= self.damage[seat], "damage never decreases"
        self.damage[seat] = move.damage_total
        self.rounded[seat] += list(move.rounded)

    @invariant()
    def boats_only_on_free_water_and_never_together(self) -> None:
        if not hasattr(self, "game"):
            return
        state = self.game.state
        cells = [b.cell for b in state.boats if b.cell is not None]
        assert len(cells) == len(set(cells)), "two boats share a cell"
        for cell in cells:
            assert cell in state.course.free, f"a boat is on {state.course.obstacle(cell)} at {cell}"

    @invariant()
    def buoys_are_rounded_in_order(self) -> None:
        if not hasattr(self, "game"):
            return
        for seat, boat in enumerate(self.game.state.boats):
            assert self.rounded[seat] == list(range(1, boat.next_buoy))
            assert boat.points == boat.buoys + boat.finished

    @invariant()
    def the_record_verifies(self) -> None:
        if not hasattr(self, "game") or not self.game.moves:
            return
        if len(self.game.moves) % 10 == 0:
            result = verify(json.loads(json.dumps(self.game.record())))
            assert result.ok, result.message

    @invariant()
    def the_game_ends_by_a_rule(self) -> None:
        if not hasattr(self, "game"):
            return
        state = self.game.state
        if state.over:
            assert state.outcome is not None
            if state.outcome.termination.value in ("resign", "timeout", "adjudication"):
                return
            moves = [b.moves for b in state.boats]
            assert any(b.finished or b.sunk for b in state.boats) or min(moves) >= 35


RandomPlay.TestCase.settings = settings(
    max_examples=60, stateful_step_count=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestRandomPlay = RandomPlay.TestCase
TestRandomPlay.pytestmark = [pytest.mark.slow]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), side=st.sampled_from(["standard", "expert"]), letter=st.sampled_from("ABC"))
def test_every_generated_course_validates(seed: int, side: str, letter: str) -> None:
    """R3: courses are only offered when the validator proves them."""
    generated = new_course(side, letter, random.Random(seed))
    assert validate_course(generated).ok


# --- races and series of the boxed game (R15-R20) -------------------------------------------------


@cache
def series_courses(index: int):
    from games.engine import new_courses

    return new_courses("standard" if index % 2 else "expert", rng=random.Random(2000 + index))


def expected_scores(race) -> dict[str, tuple[int | None, int]]:
    """R18/R19 worked out again from the boats: (position, points) by colour."""
    rules = race.rules
    boats = race.boats
    # R19 details: n is the boats that started the race, those placed on the lake (a player who
    # left before placing is not counted); in rules version 1 every boat of the race
    n = len(boats) if rules.rules_version == 1 else sum(b.cell is not None for b in boats)
    place = {s: i + 1 for i, s in enumerate(race.positions)}
    reference = max((boats[s].moves for s in place), default=0)
    sunk = sum(b.sunk for b in boats)
    out = {}
    for seat, boat in enumerate(boats):
        points = (n - place[seat]) * rules.multiplier if seat in place else 0
        if rules.score_variant and race.over and boat.finished:
            points += reference - boat.moves + 5 * sunk
        out[boat.color] = (place.get(seat), points)
    return out


class SeriesPlay(RuleBasedStateMachine):
    """Series (and single races) of 2-6 boats played by hypothesis: placements, rolls, directions,
    bursts of random turns, resignations and time-outs of any seat at any time."""

    @initialize(index=st.integers(0, 3), boats=st.integers(2, 6), data=st.data())
    def start(self, index: int, boats: int, data: st.DataObject) -> None:
        self.played = 0
        self._new(index, boats, data.draw(st.booleans()), data.draw(st.integers(0, 5)))

    def _new(self, index: int, boats: int, variant: bool, start: int) -> None:
        from games.engine import Series
        from games.engine.game import SeriesGame

        courses = series_courses(index)[: 1 if (index + start) % 3 == 0 else 3]
        self.game = SeriesGame(Series.start(courses, boats, start % boats, variant or boats == 2))

    @property
    def series(self):
        return self.game.series

    def _ended(self) -> None:
        """A series that is over verifies, and the next one starts (other boats, courses, variant)."""
        if not self.series.over:
            return
        result = verify(json.loads(json.dumps(self.game.record())))
        assert result.ok, result.message
        event(f"over after {len(self.series.races)} of {len(self.series.courses)} races")
        self.played += 1
        self._new(self.played % 4, 2 + (len(self.series.colors) - 1) % 5, self.played % 2 == 0, self.played % 3)

    @precondition(lambda self: self.series.phase is Phase.PLACE)
    @rule(data=st.data())
    def place(self, data: st.DataObject) -> None:
        cell = data.draw(st.sampled_from(self.series.race.free_start_cells()))
        self.game.place(cell, data.draw(st.integers(0, 5)))
        self._ended()

    @precondition(lambda self: self.series.phase is Phase.DICE)
    @rule(data=st.data())
    def roll(self, data: st.DataObject) -> None:
        choice = data.draw(st.sampled_from(self.series.race.distinct_dice_choices()))
        values = data.draw(st.lists(st.integers(1, 3), min_size=choice.rolls, max_size=choice.rolls))
        self.game.choose_dice(choice, FixedDice(values))
        self._ended()

    @precondition(lambda self: self.series.phase is Phase.DIRECTION)
    @rule(data=st.data())
    def steer(self, data: st.DataObject) -> None:
        self.game.choose_direction(data.draw(st.sampled_from(self.series.race.allowed_directions())))
        self._ended()

    @rule(seed=st.integers(0, 2**16), turns=st.integers(1, 40))
    def burst(self, seed: int, turns: int) -> None:
        """Many random turns at once, so that races reach their end."""
        from games.engine import RandomDice
        from games.engine.players import RandomPlayer

        rng = random.Random(seed)
        player, dice = RandomPlayer(rng), RandomDice(rng)
        for _ in range(turns):
            if self.series.over:
                self._ended()
            state = self.series.race
            if state.phase is Phase.PLACE:
                self.game.place(*player.place(state))
            elif state.phase is Phase.DICE:
                self.game.choose_dice(player.dice(state), dice)
            else:
                self.game.choose_direction(player.direction(state))
        self._ended()

    @rule(data=st.data(), how=st.sampled_from(["resign", "time_out"]))
    def leave(self, data: st.DataObject, how: str) -> None:
        """R18: anyone may resign at any time; only the player to move loses on time."""
        series = self.series
        if how == "time_out":
            seat = series.to_move
        else:
            seat = data.draw(st.sampled_from(sorted(set(range(len(series.colors))) - series.left)))
        getattr(self.game, how)(seat)
        assert seat in self.series.left
        self._ended()

    @invariant()
    def no_two_boats_share_a_cell(self) -> None:
        if not hasattr(self, "game"):
            return
        race = self.series.race
        cells = [b.cell for b in race.boats if b.cell is not None and b.racing]
        assert len(cells) == len(set(cells)), "two boats on the lake share a cell"
        assert all(c in race.course.free for c in cells)

    @invariant()
    def positions_follow_r18(self) -> None:
        if not hasattr(self, "game"):
            return
        for index, race in enumerate(self.series.races):
            boats = race.boats
            colors = [boats[s].color for s in race.positions]
            assert len(set(colors)) == len(colors)
            finishers = [c for c in colors if boats[race.seat_of(c)].finished]
            assert colors[: len(finishers)] == finishers, "finishers come first"
            moved = [m.color for _, m in self.game.logs[index].moves if m.finished]
            assert finishers == moved, "finishing positions follow move order"
            assert all(not b.sunk and b.retired is None for b in (boats[s] for s in race.positions))
            if race.over:
                rest = [s for s in race.positions if not boats[s].finished]
                key = [(-boats[s].buoys, boats[s].damage, (s - race.start) % len(boats)) for s in rest]
                assert key == sorted(key), "the cut-off ranking: buoys, damage, seat order from the start player"
                assert not any(b.racing for b in boats) or rest or race.outcome.termination.value in (
                    "resign", "timeout")
            else:
                assert all(boats[s].finished for s in race.positions)

    @invariant()
    def points_follow_r19_and_damage_r20(self) -> None:
        if not hasattr(self, "game"):
            return
        series = self.series
        scores = series.scores()
        for race, score in zip(series.races, scores, strict=True):
            assert {s.color: (s.position, s.points) for s in score} == expected_scores(race)
        for before, after in itertools.pairwise(series.races):
            carried = {b.color: b.carried + (b.damage > b.carried) for b in before.boats}
            for boat in after.boats:
                assert boat.carried == carried[boat.color] <= 2, "R20: one counter per race with damage"
                assert after.boats[after.start].color in carried
        totals = {c: 0 for c in series.colors}
        for score in scores:
            for s in score:
                totals[s.color] += s.points
        assert {s.color: s.points for s in series.standings()} == totals

    @invariant()
    def the_record_verifies_now_and_then(self) -> None:
        if not hasattr(self, "game") or self.series.ply % 17:
            return
        result = verify(json.loads(json.dumps(self.game.record())))
        assert result.ok, result.message


SeriesPlay.TestCase.settings = settings(
    max_examples=50, stateful_step_count=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestSeriesPlay = SeriesPlay.TestCase
TestSeriesPlay.pytestmark = [pytest.mark.slow]
