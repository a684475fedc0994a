"""Property-based tests: random legal play keeps every invariant of the rules."""

from __future__ import annotations

import json
import random
from functools import cache

from hypothesis import HealthCheck, given, settings
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


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), side=st.sampled_from(["standard", "expert"]), letter=st.sampled_from("ABC"))
def test_every_generated_course_validates(seed: int, side: str, letter: str) -> None:
    """R3: courses are only offered when the validator proves them."""
    generated = new_course(side, letter, random.Random(seed))
    assert validate_course(generated).ok
