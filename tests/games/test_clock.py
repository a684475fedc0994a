"""The correspondence clock: time per move, the grace bank, vacations and time-outs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from common.errors import Conflict, ServiceError
from games import services, vacations
from games.clock import charged, moment_when_used
from games.engine import Change, DiceChoice
from games.errors import GameIsOver
from games.models import Game

from .factories import greedy_action, make_game, make_user, race

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def test_counted_time_skips_pauses():
    pauses = [(T0 + DAY, T0 + 3 * DAY)]
    assert charged(T0, T0 + 4 * DAY, pauses) == 2 * DAY
    assert charged(T0 + 2 * DAY, T0 + 5 * DAY, pauses) == 2 * DAY
    assert moment_when_used(T0, 2 * DAY, pauses) == T0 + 4 * DAY
    assert moment_when_used(T0, 12 * 3600 * timedelta(seconds=1), pauses) == T0 + timedelta(hours=12)
    assert moment_when_used(T0 + 2 * DAY, DAY, pauses) == T0 + 4 * DAY


def new_game(**extra) -> Game:
    with time_machine.travel(T0, tick=False):
        return make_game(days_per_move=2, grace_days=3, **extra)


def test_a_new_game_starts_yellows_clock():
    game = new_game()
    assert game.turn_started_at == T0
    assert game.move_deadline == T0 + 2 * DAY
    assert game.deadline == T0 + 5 * DAY
    assert game.reminder_at == game.deadline - timedelta(hours=24)
    assert [s.grace_seconds for s in game.seats.order_by("index")] == [3 * 86400] * 2


def test_a_slow_move_drains_the_grace_bank_and_the_other_clock_starts():
    game = new_game()
    line = game.course.data["course"]["start_finish_cells"]
    with time_machine.travel(T0 + 3 * DAY, tick=False):  # one day over the two per move
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    game.refresh_from_db()
    yellow, red = game.seats.order_by("index")
    assert yellow.grace_seconds == 2 * 86400 and red.grace_seconds == 3 * 86400
    assert game.to_move == 1 and game.turn_started_at == T0 + 3 * DAY
    assert game.deadline == T0 + 3 * DAY + 5 * DAY


def test_rolling_does_not_pass_the_turn_or_reset_the_clock():
    game = new_game()
    line = game.course.data["course"]["start_finish_cells"]
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    with time_machine.travel(T0 + timedelta(hours=2), tick=False):
        services.game_place(user=game.player(1), game_id=game.pk, ply=1, cell=tuple(line[2]), heading=0)
    with time_machine.travel(T0 + timedelta(hours=30), tick=False):
        result = services.game_roll(user=game.player(1), game_id=game.pk, ply=2, choice=DiceChoice(Change.ADD))
    game.refresh_from_db()
    if result["move"] is None:
        # Red still has to choose a direction. Red's turn began when Yellow placed (Red then
        # placed and rolled without the turn passing), and that clock goes on.
        assert game.to_move == 1 and game.turn_started_at == T0 + timedelta(hours=1)
        assert game.seats.get(index=1).grace_seconds == 3 * 86400


def test_vacation_stops_the_clock_and_ending_it_starts_it_again():
    """The clock stops while the player to move is on vacation, and resumes when it ends."""
    game = new_game()
    yellow = game.player(0)
    assert game.deadline == T0 + 5 * DAY
    with time_machine.travel(T0 + DAY, tick=False):
        vacation = vacations.vacation_start(user=yellow, days=4)
    game.refresh_from_db()
    assert vacation.planned_end == T0 + 5 * DAY
    assert game.deadline == T0 + 9 * DAY  # four days later
    assert services.game_time_out(game_id=game.pk, now=T0 + 6 * DAY) is False
    with time_machine.travel(T0 + 3 * DAY, tick=False):  # back after two days
        vacations.vacation_end(user=yellow)
    game.refresh_from_db()
    assert game.deadline == T0 + 7 * DAY
    # the two vacation days are not charged when Yellow moves on day 4
    line = game.course.data["course"]["start_finish_cells"]
    with time_machine.travel(T0 + 4 * DAY, tick=False):
        services.game_place(user=yellow, game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    assert game.seats.get(index=0).grace_seconds == 3 * 86400


def test_vacation_does_not_stop_games_that_disallow_it():
    game = new_game(vacation_allowed=False)
    with time_machine.travel(T0 + DAY, tick=False):
        vacations.vacation_start(user=game.player(0), days=4)
    game.refresh_from_db()
    assert game.deadline == T0 + 5 * DAY


def test_the_yearly_allowance():
    user = make_user("ann")
    with time_machine.travel(T0, tick=False):
        assert vacations.vacation_days_left(user) == timedelta(days=14)
        vacations.vacation_start(user=user, days=10)
        with pytest.raises(Conflict):
            vacations.vacation_start(user=user)
    with time_machine.travel(T0 + 2 * DAY, tick=False):
        vacations.vacation_end(user=user)
        assert vacations.vacation_days_left(user) == timedelta(days=12)
        with pytest.raises(ServiceError) as err:
            vacations.vacation_start(user=user, days=13)
        assert err.value.field == "days"
        vacation = vacations.vacation_start(user=user)
        assert vacation.planned_end == T0 + 14 * DAY
    with time_machine.travel(datetime(2027, 1, 5, tzinfo=UTC), tick=False):
        assert vacations.vacation_days_left(user) == timedelta(days=14)  # a new year


def test_losing_on_time_records_the_reason_and_happens_once():
    game = new_game()
    assert services.game_time_out(game_id=game.pk, now=T0 + 5 * DAY - timedelta(seconds=1)) is False
    assert services.game_time_out(game_id=game.pk, now=T0 + 5 * DAY) is True
    assert services.game_time_out(game_id=game.pk, now=T0 + 5 * DAY) is False
    game.refresh_from_db()
    assert game.over and game.termination == "timeout" and game.winner == game.player(1)
    assert game.result_reason == "Yellow ran out of time"
    assert game.deadline is None and game.seats.get(index=0).grace_seconds == 0


def test_a_move_after_the_time_out_is_refused():
    game = new_game()
    services.game_time_out(game_id=game.pk, now=T0 + 6 * DAY)
    line = game.course.data["course"]["start_finish_cells"]
    with pytest.raises(GameIsOver):
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)


def test_the_reminder_is_claimed_once_per_turn():
    game = new_game()
    assert services.game_remind(game_id=game.pk, now=T0 + DAY) is False
    assert services.game_remind(game_id=game.pk, now=T0 + 4 * DAY) is True
    assert services.game_remind(game_id=game.pk, now=T0 + 4 * DAY + timedelta(hours=1)) is False


def test_the_api_shows_absolute_deadlines():
    from rest_framework.test import APIClient

    game = new_game()
    clock = APIClient().get(f"/api/games/{game.pk}/").json()["clock"]
    assert clock["deadline"] == (T0 + 5 * DAY).isoformat()
    assert clock["move_deadline"] == (T0 + 2 * DAY).isoformat()
    assert clock["grace_seconds"] == {"yellow": 3 * 86400, "red": 3 * 86400}


def test_the_game_page_shows_the_countdown():
    from django.test import Client

    game = new_game()
    page = Client().get(f"/games/{game.pk}/").content.decode()
    assert f'data-deadline="{(T0 + 5 * DAY).isoformat()}"' in page and 'id="countdown"' in page


# --- races (PostgreSQL) -------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_once_time_out_a_game_once():
    game = new_game()
    results = race([lambda: services.game_time_out(game_id=game.pk, now=T0 + 6 * DAY)] * 2)
    assert sorted(results) == [False, True]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_move_and_a_time_out_at_the_same_moment_never_both_happen():
    for i in range(6):
        with time_machine.travel(T0, tick=False):
            game = make_game(yellow=make_user(f"y{i}"), red=make_user(f"r{i}"), days_per_move=1, grace_days=0)
        line = game.course.data["course"]["start_finish_cells"]
        deadline = game.deadline
        with time_machine.travel(deadline - timedelta(seconds=1), tick=False):
            results = race([
                lambda g=game, c=tuple(line[0]): services.game_place(user=g.player(0), game_id=g.pk, ply=0, cell=c, heading=0),
                lambda g=game, d=deadline: services.game_time_out(game_id=g.pk, now=d),
            ])
        game.refresh_from_db()
        placed, timed_out = results
        if isinstance(placed, dict):
            assert timed_out is False and not game.over and game.ply == 1
        else:
            assert isinstance(placed, GameIsOver) and timed_out is True and game.termination == "timeout"
            assert list(game.moves.values_list("kind", "termination")) == [("end", "timeout")]


def test_greedy_games_keep_their_clocks_consistent():
    game = new_game()
    for step in range(10):
        with time_machine.travel(T0 + timedelta(hours=5 * (step + 1)), tick=False):
            greedy_action(game)
    game.refresh_from_db()
    assert game.deadline == game.turn_started_at + 2 * DAY + timedelta(seconds=game.seats.get(index=game.to_move).grace_seconds)


# --- the clock at the moment of the move (issue 10) ---------------------------------------------


def in_direction_phase(**extra) -> Game:
    """A game where Red has rolled and its direction is awaited (at T0)."""
    for seed in range(3, 40):
        with time_machine.travel(T0, tick=False):
            game = make_game(yellow=make_user(f"y{seed}"), red=make_user(f"r{seed}"), seed=seed, **extra)
            while game.ply < 2:
                greedy_action(game)
                game.refresh_from_db()
            for _ in range(6):
                result = services.game_roll(user=game.player(1) if game.to_move == 1 else game.player(0), game_id=game.pk,
                                            ply=game.ply, choice=DiceChoice(Change.ADD))
                game.refresh_from_db()
                if result["move"] is None:
                    return game
                if game.over:  # the dice are the server's (a fresh secret per game): a boat may sink first
                    break
    raise AssertionError("no roll awaited its direction")


@pytest.mark.parametrize("action", ["place", "roll", "direction", "resign"])
def test_an_action_after_the_deadline_loses_on_time_and_counts_for_nothing(action, eager, mailoutbox,
                                                                            django_capture_on_commit_callbacks):
    """Every action checks the deadline in its own transaction: after it, the game is lost on
    time exactly as the sweep would end it (result, reason, rating, emails once), the action
    answers time_over (409) and nothing of it is stored."""
    from games.errors import TimeOver
    from games.models import Move
    from games.ratings.models import RatingChange

    if action == "place":
        game = new_game()
    elif action == "direction":
        game = in_direction_phase(days_per_move=2, grace_days=3)
    else:
        with time_machine.travel(T0, tick=False):
            game = make_game(days_per_move=2, grace_days=3)
            greedy_action(game)
            greedy_action(game)
    game.refresh_from_db()
    mover = game.player(game.to_move)
    rows = game.moves.count()
    late = game.deadline + timedelta(seconds=1)
    line = game.course.data["course"]["start_finish_cells"]
    calls = {
        "place": lambda: services.game_place(user=mover, game_id=game.pk, ply=game.ply, cell=tuple(line[0]), heading=0),
        "roll": lambda: services.game_roll(user=mover, game_id=game.pk, ply=game.ply, choice=DiceChoice(Change.ADD)),
        "direction": lambda: services.game_choose_direction(user=mover, game_id=game.pk, ply=game.ply,
                                                            direction=game.seats.get(index=game.to_move).heading),
        "resign": lambda: services.game_resign(user=game.player(1 - game.to_move), game_id=game.pk),
    }
    with time_machine.travel(late, tick=False), django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(TimeOver) as err:
            calls[action]()
    assert err.value.status == 409 and err.value.code == "time_over"
    game.refresh_from_db()
    loser = "yellow" if mover == game.player(0) else "red"
    assert game.over and game.termination == "timeout" and game.winner_color != loser
    assert game.result_reason == f"{loser.capitalize()} ran out of time" and game.finished_at == late
    new_rows = list(game.moves.order_by("ply").values_list("kind", "termination"))[rows:]
    assert new_rows == [(Move.Kind.END, "timeout")], "only the time-out is recorded, not the action"
    expected_ratings = 2 if game.seats.get(index=game.to_move).moves else 0  # no rating before a first move
    assert RatingChange.objects.filter(game=game).count() == expected_ratings
    over = [m.subject for m in mailoutbox if "is over" in m.subject]
    assert sorted(over) == sorted([f"Game {game.pk} is over: you lost", f"Game {game.pk} is over: you won"])
    with time_machine.travel(late + DAY, tick=False), django_capture_on_commit_callbacks(execute=True):
        assert services.game_time_out(game_id=game.pk) is False  # the sweep finds nothing left to do
        with pytest.raises(TimeOver):
            calls[action]()  # and the game stays lost on time
    assert len([m for m in mailoutbox if "is over" in m.subject]) == 2
    from django.core.management import call_command

    call_command("verify_games", game.pk)


def test_an_action_just_before_the_deadline_counts():
    game = new_game()
    line = game.course.data["course"]["start_finish_cells"]
    with time_machine.travel(game.deadline - timedelta(seconds=1), tick=False):
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    game.refresh_from_db()
    assert not game.over and game.ply == 1


def test_a_vacation_counts_before_the_action_is_judged_late():
    """The deadline includes the vacations: a move after the plain deadline but within the
    vacation-extended one counts."""
    game = new_game()
    with time_machine.travel(T0 + DAY, tick=False):
        vacations.vacation_start(user=game.player(0), days=3)
    game.refresh_from_db()
    assert game.deadline == T0 + 8 * DAY
    line = game.course.data["course"]["start_finish_cells"]
    with time_machine.travel(T0 + 7 * DAY, tick=False):
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    game.refresh_from_db()
    assert not game.over and game.ply == 1


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_late_move_racing_the_sweep_and_two_sweeps_racing_give_one_outcome(django_capture_on_commit_callbacks):
    """Threads on PostgreSQL, many rounds: a late move against two sweeps at the same moment.
    Exactly one time-out is recorded, the move never counts, one rating, emails once."""
    from games.errors import TimeOver
    from games.models import Move
    from games.notifications.models import Notice
    from games.ratings.models import RatingChange

    rounds = 40
    for i in range(rounds):
        with time_machine.travel(T0, tick=False):
            game = make_game(yellow=make_user(f"ly{i}"), red=make_user(f"lr{i}"), days_per_move=1, grace_days=0)
            greedy_action(game)
            greedy_action(game)  # placed: Red to move
            game.refresh_from_db()
        late = game.deadline + timedelta(seconds=i % 3)
        ply = game.ply
        with time_machine.travel(late, tick=False):
            results = race([
                lambda g=game, p=ply: services.game_roll(user=g.player(1), game_id=g.pk, ply=p, choice=DiceChoice(Change.ADD)),
                lambda g=game, t=late: services.game_time_out(game_id=g.pk, now=t),
                lambda g=game, t=late: services.game_time_out(game_id=g.pk, now=t),
            ])
        move, *sweeps = results
        game.refresh_from_db()
        assert isinstance(move, TimeOver), move
        assert sum(s is True for s in sweeps) <= 1 and all(s in (True, False) for s in sweeps), sweeps
        assert game.termination == "timeout" and game.winner_color == "yellow"
        kinds = list(Move.objects.filter(game=game).order_by("ply").values_list("kind", flat=True))
        assert kinds == ["place", "place", "end"], kinds
        assert RatingChange.objects.filter(game=game).count() == 0  # Red never moved: not rated
        assert Notice.objects.filter(key=f"game:{game.pk}", event="game_over").count() == 2
