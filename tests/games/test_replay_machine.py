"""Replay is the truth (issue 10): a hypothesis state machine drives the services — placing,
rolling, choosing directions, resigning, waiting until the sweep times a player out, late
actions, adjudication, vacations — at random points, and after every step the stored game
equals the replay of its history (``verify_games``' check), whatever ended the game and when.

Plans for the dice (issue 27): a waiting player plans their next turn at random points, with any
ways, careful or not, for one turn or two; the site plays them in the actions that give the turn.

Over any number of seats (issue 25: one game for any number of boats): each game it starts is a
two-player game of the online rules or a series of the boxed game for 3 to 6 players, through the
same services; in a series a player who resigns or runs out of time leaves it (R18) and the
others play on, and adjudication is refused.
"""

from __future__ import annotations

import hashlib
import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.db import transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from accounts.models import Vacation
from common.errors import ServiceError
from games import plans, services, vacations
from games.engine import Change, DiceChoice, Phase
from games.errors import GameIsOver, StalePly, TimeOver
from games.management.commands.verify_games import check_game
from games.models import Game, Plan
from games.rulesets import BOXED, match_of
from games.state import playing
from games.tasks import sweep_clocks

from .factories import make_game, make_user
from .series_play import started

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
names = itertools.count()


class ServicesPlay(RuleBasedStateMachine):
    """Each example runs in a savepoint of the test's transaction, rolled back when it ends: it
    starts from the migrated database, as it would alone, and its sweeps see only its own games
    and emails (without it, each sweep found every earlier example's unsent emails and queued
    them again: some 16,000 messages a run, a third of its time)."""

    def __init__(self) -> None:
        super().__init__()
        self.example = transaction.atomic()
        self.example.__enter__()

    def teardown(self) -> None:
        transaction.set_rollback(True)
        self.example.__exit__(None, None, None)

    @initialize(seed=st.integers(1, 6), days=st.sampled_from([1, 2]), grace=st.sampled_from([0, 1]),
                dice=st.integers(0, 2**32), boats=st.sampled_from([2, 2, 3, 4, 5, 6]), bank=st.booleans())
    def start(self, seed: int, days: int, grace: int, dice: int, boats: int = 2, bank: bool = False) -> None:
        """A game of either clock shape (issue 27): days per move and grace, or a small capped bank
        (a day or two to start, 12 hours per move, at most three days)."""
        self.now = T0
        n = next(names)
        terms = {"clock_shape": "bank", "bank_add_hours": 12, "bank_cap_days": 3} if bank else None
        grace = grace + 1 if bank else grace
        with self.at():
            if boats == 2:  # a two-player game of the online rules
                self.game = make_game(yellow=make_user(f"my{n}"), red=make_user(f"mr{n}"), seed=seed,
                                      days_per_move=days, grace_days=grace, terms=terms)
            else:  # a series of the boxed game (its lake and lot from the seed)
                self.game = started([make_user(f"m{n}s{i}") for i in range(boats)], seed=seed, days_per_move=days,
                                    grace_days=grace, terms=terms)
        # the dice seed from the example, not a fresh secret: the same example rolls the same dice,
        # so hypothesis can replay and shrink it
        secret = hashlib.sha256(str(dice).encode()).digest()
        Game.objects.filter(pk=self.game.pk).update(dice_seed=secret.hex(),
                                                    dice_seed_sha256=hashlib.sha256(secret).hexdigest())
        BOXED.forget()  # (the series kept at its start has the seed it was given)
        self.late_refusals = 0

    def at(self) -> time_machine.travel:
        return time_machine.travel(self.now, tick=False)

    def fresh(self) -> Game:
        self.game.refresh_from_db()
        return self.game

    def going(self) -> bool:
        """(The preconditions read the game the invariant read after the last step.)"""
        return hasattr(self, "game") and not self.game.over

    def covered(self, user: Any) -> bool:
        """Whether an automatic vacation day of ``user`` (issue 27) has been taken by now: a late
        action of theirs, or the sweep, may have found their clock out and taken one instead."""
        return Vacation.objects.filter(user=user, automatic=True, started_at__lte=self.now).exists()

    def saved_by_a_day(self, user: Any) -> bool:
        """Whether a clock of ``user`` that ran out may take a vacation day instead of the loss."""
        user.refresh_from_db()
        return bool(user.auto_vacation) and vacations.vacation_days_left(user, self.now) > timedelta(0)

    @precondition(lambda self: self.going())
    @rule(hours=st.integers(0, 30), data=st.data())
    def act(self, hours: int, data: st.DataObject) -> None:
        """The player to move acts, some hours after the last step (perhaps too late)."""
        self.now += timedelta(hours=hours)
        game = self.fresh()
        user = game.player(game.to_move)
        late = game.deadline is not None and game.deadline <= self.now
        with self.at():
            state = match_of(game).race
            try:
                if state.phase is Phase.PLACE:
                    cell = data.draw(st.sampled_from(state.free_start_cells()))
                    services.game_place(user=user, game_id=game.pk, ply=game.ply, cell=cell,
                                        heading=data.draw(st.integers(0, 5)))
                elif state.phase is Phase.DICE:
                    choice = data.draw(st.sampled_from(state.distinct_dice_choices()))
                    services.game_roll(user=user, game_id=game.pk, ply=game.ply, choice=choice)
                else:
                    direction = data.draw(st.sampled_from(state.allowed_directions()))
                    services.game_choose_direction(user=user, game_id=game.pk, ply=game.ply, direction=direction)
            except TimeOver:
                assert late, "refused as late before the deadline"
                self.late_refusals += 1
                return
        assert not late or self.covered(user), "an action after the deadline was accepted"

    @precondition(lambda self: self.going())
    @rule(seat=st.integers(0, 5), hours=st.integers(0, 30))
    def resign(self, seat: int, hours: int) -> None:
        self.now += timedelta(hours=hours)
        game = self.fresh()
        player = game.seat_at(seat % game.seats_wanted)
        assert player is not None
        late = game.deadline is not None and game.deadline <= self.now
        mover = game.seat_at(game.to_move)
        with self.at():
            try:
                services.game_resign(user=player.user, game_id=game.pk)
            except TimeOver:
                assert late
            except StalePly as exc:  # R18: the series' player to move ran out of time first, and left
                assert game.multi_race and late and exc.rule == "R18" and player.index != game.to_move
            except GameIsOver as exc:  # R18: a player who left a series is out of it
                assert player.left and exc.rule == "R18"
            else:
                assert not player.left and (not late or (mover is not None and self.covered(mover.user)))

    @precondition(lambda self: self.going())
    @rule(hours=st.integers(1, 80))
    def wait_for_the_sweep(self, hours: int) -> None:
        self.now += timedelta(hours=hours)
        game = self.fresh()
        due = game.deadline is not None and game.deadline <= self.now
        mover, ply = game.seat_at(game.to_move), game.ply
        assert mover is not None
        saved = due and self.saved_by_a_day(mover.user)
        with self.at():
            sweep_clocks()
        if saved:  # a vacation day (or more) instead, or the loss once the days ran out
            game, out = self.fresh(), False
            mover.refresh_from_db()
            out = game.over if not game.multi_race else mover.left == "timeout"
            assert self.covered(mover.user)
            assert out or (game.deadline is not None and game.deadline > self.now and game.ply == ply)
            return
        if not game.multi_race:
            assert self.fresh().over == due
            return
        assert mover is not None
        mover.refresh_from_db()  # R18: the player to move, past the deadline, left the series
        assert (mover.left == "timeout") == due and (self.fresh().ply > ply) == due

    @precondition(lambda self: self.going())
    @rule()
    def adjudicate(self) -> None:
        game = self.fresh()
        with self.at():
            if not game.multi_race:
                assert services.game_adjudicate(game_id=self.game.pk, now=self.now)
                return
            late = game.deadline is not None and game.deadline <= self.now
            try:  # a series is not adjudicated; its late player to move loses on time first
                assert services.game_adjudicate(game_id=self.game.pk, now=self.now) and late
            except ServiceError as exc:  # (a late player who lets the site take a vacation day got one)
                mover = game.seat_at(game.to_move)
                assert exc.status == 400 and self.fresh().ply == game.ply
                assert not late or (mover is not None and self.covered(mover.user))

    @precondition(lambda self: self.going())
    @rule(seat=st.integers(0, 5), days=st.integers(1, 4))
    def vacation(self, seat: int, days: int) -> None:
        game = self.fresh()
        user = game.player(seat % game.seats_wanted)
        with self.at():
            try:
                if vacations.active_vacation(user, self.now):
                    vacations.vacation_end(user=user, now=self.now)
                else:
                    vacations.vacation_start(user=user, days=days, now=self.now)
            except ServiceError:
                pass  # no days left this year

    @precondition(lambda self: self.going())
    @rule(seat=st.integers(0, 5), weekends=st.booleans(), automatic=st.booleans())
    def clock_settings(self, seat: int, weekends: bool, automatic: bool) -> None:
        """A player pauses their clocks at weekends, or not, and lets the site take their vacation
        days when a clock would run out, or not (issue 27): the deadlines move, the history not."""
        game = self.fresh()
        user = game.player(seat % game.seats_wanted)
        user.refresh_from_db()
        with self.at():
            vacations.clock_settings_set(user=user, weekend_pause=weekends, auto_vacation=automatic)

    @precondition(lambda self: self.going())
    @rule(seat=st.integers(0, 5), ways=st.lists(st.sampled_from(plans.WAYS), min_size=9, max_size=9),
          careful=st.booleans(), then=st.booleans())
    def plan(self, seat: int, ways: list[str], careful: bool, then: bool) -> None:
        """A waiting player plans their next turn (issue 27): the site plays it in the action that
        gives them the turn, or stops for them; the invariant holds either way."""
        game = self.fresh()
        seats = playing(game.seat_list())
        mine = seats[seat % len(seats)]
        state = plans.planner_state(match_of(game, seats), mine)
        if mine.index == game.to_move or mine.left or state is None:
            return
        change = "add" if state.boat.moves == 0 or not state.boat.dice else "keep"
        totals = sorted(DiceChoice(Change(change)).distribution(state.boat.dice))
        turns = [{"dice": {"change": change, "remove": None, "reroll": []},
                  "ways": {str(t): ways[i % len(ways)] for i, t in enumerate(totals)}, "careful": careful}]
        if then:
            turns.append({"dice": {"change": "add", "remove": None, "reroll": []},
                          "ways": {str(t): ways[t % len(ways)] for t in range(1, 13)}, "careful": careful})
        with self.at():
            plans.plan_set(user=mine.user, game_id=game.pk, turns=turns)
        assert Plan.objects.filter(game=game, seat=mine.index).exists()

    @precondition(lambda self: hasattr(self, "game") and self.game.over)
    @rule(seed=st.integers(1, 6), hours=st.integers(0, 30), boats=st.sampled_from([2, 3, 4, 5, 6]))
    def after_the_end(self, seed: int, hours: int, boats: int) -> None:
        """A finished game refuses every action and changes no more; then a new game starts."""
        self.now += timedelta(hours=hours)
        game = self.fresh()
        before = (game.ply, game.moves.count(), game.termination)
        with self.at():
            with pytest.raises(ServiceError) as err:
                services.game_resign(user=game.player(0), game_id=game.pk)
            assert err.value.status == 409
            assert services.game_time_out(game_id=game.pk, now=self.now) is False
        game = self.fresh()
        assert (game.ply, game.moves.count(), game.termination) == before
        self.start(seed, max(1, game.days_per_move), min(game.grace_days, 1), hours, boats, hours % 2 == 1)

    @invariant()
    def stored_state_equals_the_replay(self) -> None:
        if hasattr(self, "game"):
            self.game = Game.objects.get(pk=self.game.pk)
            problem = check_game(self.game)
            assert problem is None, problem


@pytest.mark.slow
@pytest.mark.django_db
def test_the_stored_game_equals_its_replay_after_any_sequence_of_actions():
    """Two to six seats: a two-player game, or a series of three to six players."""
    run_state_machine_as_test(ServicesPlay, settings=settings(
        max_examples=30, stateful_step_count=30, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    ))


@pytest.mark.django_db
def test_place_place_roll_resign_replays():
    """The reproduction in issue 10: place, place, roll, resign (while the roll awaits its
    direction), then verify_games."""
    from django.core.management import call_command

    from games.engine import Change, DiceChoice

    for seed in range(1, 30):
        game = make_game(yellow=make_user(f"ry{seed}"), red=make_user(f"rr{seed}"), seed=seed % 6 + 1)
        line = game.course.data["course"]["start_finish_cells"]
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=seed % 6)
        services.game_place(user=game.player(1), game_id=game.pk, ply=1, cell=tuple(line[2]), heading=seed % 6)
        answer = services.game_roll(user=game.player(1), game_id=game.pk, ply=2, choice=DiceChoice(Change.ADD))
        if answer["move"] is None:
            break  # the roll awaits its direction
    else:
        raise AssertionError("no first roll awaited its direction")
    services.game_resign(user=game.player(1), game_id=game.pk)
    game = Game.objects.get(pk=game.pk)
    assert game.seats.get(index=1).dice == answer["dice"], "the rolled die stays in Red's hand"
    assert check_game(game) is None
    call_command("verify_games", game.pk)
