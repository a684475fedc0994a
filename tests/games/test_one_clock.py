"""One clock for every game (issue 25, docs/clocks.md): a two-player game and a series run on
the same games.clock functions, and a vacation stops the clock of the player to move in both,
even when it starts during their turn (before, a series' deadline ignored a vacation started
after the turn began, and the sweep could take a player on vacation out of the series, R18)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from games import clock, services, vacations
from games.models import Game

from .factories import make_game, make_user
from .series_play import play

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)



def started_series(**options) -> Game:
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    with time_machine.travel(T0, tick=False):
        series = services.game_open(user=users[0], seats=3, days_per_move=2, grace_days=3, **options)
        for user in users[1:]:
            services.game_join(user=user, game_id=series.pk, rng=random.Random(5))
    series.refresh_from_db()
    return series


def mover(series: Game):
    return next(s.user for s in series.seats.select_related("user") if s.index == series.to_move)


def test_a_vacation_started_during_a_series_turn_moves_its_deadline_and_the_sweep_waits():
    series = started_series()
    player = mover(series)
    assert series.deadline == T0 + 5 * DAY  # two days a move, three of grace, as a two-player game
    with time_machine.travel(T0 + DAY, tick=False):
        vacations.vacation_start(user=player, days=4)
    series.refresh_from_db()
    assert series.deadline == T0 + 9 * DAY and series.move_deadline == T0 + 6 * DAY
    assert services.game_time_out(game_id=series.pk, now=T0 + 6 * DAY) is False
    with time_machine.travel(T0 + 3 * DAY, tick=False):  # back after two of the four days
        vacations.vacation_end(user=player)
    series.refresh_from_db()
    assert series.deadline == T0 + 7 * DAY
    assert services.game_time_out(game_id=series.pk, now=T0 + 7 * DAY) is True
    series.refresh_from_db()
    assert series.seats.get(user=player).left == "timeout"


def test_a_vacation_of_a_player_who_is_not_to_move_changes_no_series_deadline():
    series = started_series()
    other = next(s.user for s in series.seats.select_related("user") if s.index != series.to_move)
    with time_machine.travel(T0 + DAY, tick=False):
        vacations.vacation_start(user=other, days=4)
    series.refresh_from_db()
    assert series.deadline == T0 + 5 * DAY


def test_a_series_that_disallows_vacations_keeps_its_deadline():
    series = started_series(vacation_allowed=False)
    with time_machine.travel(T0 + DAY, tick=False):
        vacations.vacation_start(user=mover(series), days=4)
    series.refresh_from_db()
    assert series.deadline == T0 + 5 * DAY


def test_a_game_and_a_series_are_timed_by_the_same_clock(monkeypatch):
    """Both kinds (a game of the online rules, a series of the boxed rules) call games.clock.run
    for the deadlines and games.clock.charge for the overtime: what one is told, the other is."""
    calls: list[str] = []

    def spy(name: str, real):
        def called(game, *args, **kwargs):
            calls.append(f"{name} {game.ruleset}")
            return real(game, *args, **kwargs)
        return called

    monkeypatch.setattr(clock, "run", spy("run", clock.run))
    monkeypatch.setattr(clock, "charge", spy("charge", clock.charge))
    with time_machine.travel(T0, tick=False):
        game = make_game(days_per_move=2, grace_days=3)
    series = started_series()
    assert "run online" in calls and "run boxed" in calls
    assert game.deadline == series.deadline == T0 + 5 * DAY
    # a slow first move: both charge the overtime from the mover's grace bank
    line = game.course.data["course"]["start_finish_cells"]
    with time_machine.travel(T0 + 3 * DAY, tick=False):
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
        had = series.to_move
        play(series.pk, seed=1, stop=lambda engine: engine.to_move != had)
    assert "charge online" in calls and "charge boxed" in calls
    assert game.seats.get(index=0).grace_seconds == 2 * 86400
    assert series.seats.get(index=had).grace_seconds == 2 * 86400


def test_a_house_bot_is_never_reminded_in_a_game_or_a_series():
    """One rule for both kinds: the clock sets no reminder for a house bot's turn (it moves within
    seconds); a person's turn has one."""
    bot = make_user("easy_bot", is_bot=True, bot_level="easy")
    with time_machine.travel(T0, tick=False):
        game = make_game(yellow=bot, red=make_user("rita"), days_per_move=2, grace_days=3)
        person = make_game(yellow=make_user("paula"), red=make_user("pete"), days_per_move=2, grace_days=3)
    assert game.reminder_at is None and game.deadline == T0 + 5 * DAY
    assert person.reminder_at == person.deadline - timedelta(hours=24)
