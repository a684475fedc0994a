"""Clock shapes, the weekend pause and automatic vacation (issue 27, docs/clocks.md): each shape
against the move path and the sweep (a late action never counts), vacations inside a turn, a
clock running out at midnight of a Saturday in the player's time zone, and an automatic vacation
day taken by the sweep, by a late move, for all the player's games at once, never where a
tournament forbids it and never twice when two requests meet it at once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine

from accounts.models import Vacation
from common.errors import ServiceError
from games import clock, services, vacations
from games.errors import TimeOver
from games.models import Game, Move
from games.notifications.emails import message_for
from games.notifications.models import Notice
from games.notifications.push import payload

from .factories import client_for, make_game, make_user, race

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday
DAY, HOUR, SECOND = timedelta(days=1), timedelta(hours=1), timedelta(seconds=1)
LITTLE_GOLEM = {"clock_shape": "bank", "bank_add_hours": 36, "bank_cap_days": 10}


def bank_game(name: str = "yvonne", **extra) -> Game:
    with time_machine.travel(T0, tick=False):
        return make_game(yellow=make_user(name), red=make_user(f"{name}_red"), grace_days=10, terms=LITTLE_GOLEM,
                         **extra)


def place(game: Game, seat: int, when: datetime) -> None:
    line = game.course.data["course"]["start_finish_cells"]
    with time_machine.travel(when, tick=False):
        services.game_place(user=game.player(seat), game_id=game.pk, ply=game.ply, cell=tuple(line[2 * seat]),
                            heading=0)
    game.refresh_from_db()


def banks(game: Game) -> list[timedelta]:
    return [timedelta(seconds=s.grace_seconds) for s in game.seats.order_by("index")]


# --- clock shapes ----------------------------------------------------------------------------


def test_a_capped_bank_has_no_time_per_move_its_deadline_is_the_bank():
    game = bank_game()
    assert (game.clock_shape, game.days_per_move, game.bank_add_hours, game.bank_cap_days) == ("bank", 0, 36, 10)
    assert banks(game) == [10 * DAY, 10 * DAY]
    assert game.deadline == game.move_deadline == T0 + 10 * DAY


def test_a_move_takes_the_time_used_from_the_bank_adds_36_hours_and_caps_it():
    game = bank_game()
    place(game, 0, T0 + 4 * DAY)  # Yellow used 4 days: 10 - 4 + 1.5
    assert banks(game) == [timedelta(days=7, hours=12), 10 * DAY]
    assert game.deadline == T0 + 4 * DAY + 10 * DAY  # Red's bank, from now
    quick = bank_game("quentin")
    place(quick, 0, T0 + 12 * HOUR)  # 10 - 0.5 + 1.5 = 11: capped at 10
    assert banks(quick) == [10 * DAY, 10 * DAY]


def test_the_sweep_and_a_late_move_keep_a_bank_exactly():
    game = bank_game()
    assert services.game_time_out(game_id=game.pk, now=T0 + 10 * DAY - SECOND) is False
    line = game.course.data["course"]["start_finish_cells"]
    with time_machine.travel(T0 + 10 * DAY, tick=False), pytest.raises(TimeOver):  # late: it never counts
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    game.refresh_from_db()
    assert game.over and game.termination == "timeout"
    assert not game.moves.filter(kind=Move.Kind.PLACE).exists()
    assert services.game_time_out(game_id=game.pk, now=T0 + 11 * DAY) is False  # once


def test_a_vacation_inside_a_turn_stops_the_bank_and_is_not_charged():
    game = bank_game()
    with time_machine.travel(T0 + DAY, tick=False):
        vacations.vacation_start(user=game.player(0), days=2)
    game.refresh_from_db()
    assert game.deadline == T0 + 12 * DAY
    place(game, 0, T0 + 4 * DAY)  # four days of turn, two of them on vacation
    assert banks(game)[0] == timedelta(days=9, hours=12)  # 10 - 2 + 1.5


def test_days_per_move_and_grace_stay_as_they_were():
    with time_machine.travel(T0, tick=False):
        game = make_game(days_per_move=2, grace_days=3)
    assert game.clock_shape == "move" and game.deadline == T0 + 5 * DAY and game.move_deadline == T0 + 2 * DAY
    place(game, 0, T0 + 3 * DAY)
    assert banks(game) == [2 * DAY, 3 * DAY]  # nothing added per move


@pytest.mark.parametrize(("terms", "grace", "field"), [
    ({"clock_shape": "bank", "bank_add_hours": 0, "bank_cap_days": 10}, 10, "bank_add_hours"),
    ({"clock_shape": "bank", "bank_add_hours": 36, "bank_cap_days": 5}, 10, "bank_cap_days"),
    ({"clock_shape": "bank", "bank_add_hours": 36, "bank_cap_days": 61}, 10, "bank_cap_days"),
    ({"clock_shape": "bank", "bank_add_hours": 36, "bank_cap_days": 10}, 0, "grace_days"),
    ({"clock_shape": "move"}, 10, "grace_days"),
    ({"clock_shape": "hourglass"}, 7, "clock_shape"),
])
def test_terms_that_make_no_clock_are_refused_naming_the_field(terms, grace, field):
    with pytest.raises(ServiceError) as refused:
        services.challenge_create(user=make_user("ann"), grace_days=grace, terms=terms)
    assert refused.value.field == field


def test_the_api_makes_a_bank_challenge_and_its_game_shows_the_terms():
    ann, bob = make_user("ann"), make_user("bob")
    made = client_for(ann).post("/api/challenges/", {"grace_days": 10, **LITTLE_GOLEM}, format="json")
    assert made.status_code == 201, made.json()
    assert {k: made.json()[k] for k in ("clock_shape", "days_per_move", "grace_days", "bank_add_hours",
                                        "bank_cap_days")} == {**LITTLE_GOLEM, "days_per_move": 0, "grace_days": 10}
    bad = client_for(ann).post("/api/challenges/", {"grace_days": 10, **LITTLE_GOLEM, "bank_cap_days": 3},
                               format="json")
    assert bad.status_code == 400 and "bank_cap_days" in str(bad.json())
    game = client_for(bob).post(f"/api/challenges/{made.json()['id']}/accept/").json()
    detail = client_for(bob).get(f"/api/games/{game['id']}/").json()
    assert detail["clock"]["clock_shape"] == "bank" and detail["clock"]["bank_add_hours"] == 36
    assert detail["clock"]["grace_seconds"] == {"yellow": 864000, "red": 864000}
    record = client_for(bob).get(f"/api/games/{game['id']}/record/").json()
    assert record["meta"]["clock"] == {"shape": "bank", "start_days": 10, "add_hours": 36, "cap_days": 10}
    page = client_for(bob).get(f"/games/{game['id']}/").content.decode()
    assert "a bank of 10 days, +36 hours per move, at most 10 days" in page


def test_the_lobby_offers_little_golems_bank_and_a_rematch_keeps_it():
    ann, bob = make_user("ann"), make_user("bob")
    client = client_for(ann)
    client.force_login(ann)
    sent = client.post("/lobby/", {"color": "yellow", "days_per_move": 3, "grace_days": 7, "clock": "bank-10-36-10",
                                   "lake_side": "standard", "rated": "on", "opponent": "bob"})
    assert sent.status_code == 302
    challenge = ann.challenges_made.get()
    assert (challenge.clock_shape, challenge.grace_days, challenge.bank_add_hours, challenge.bank_cap_days) == \
        ("bank", 10, 36, 10)
    game = services.challenge_accept(user=bob, challenge_id=challenge.pk)
    services.game_resign(user=bob, game_id=game.pk)
    from games.social.services import game_rematch

    again = game_rematch(user=ann, game_id=game.pk)
    assert clock.terms(again) == clock.terms(game) and again.grace_days == 10


def test_a_series_opened_with_a_bank_runs_it():
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    import random

    with time_machine.travel(T0, tick=False):
        series = services.game_open(user=users[0], seats=3, grace_days=5, terms={
            "clock_shape": "bank", "bank_add_hours": 24, "bank_cap_days": 7})
        for user in users[1:]:
            services.game_join(user=user, game_id=series.pk, rng=random.Random(5))
    series.refresh_from_db()
    assert series.deadline == T0 + 5 * DAY and all(b == 5 * DAY for b in banks(series))


def test_a_tournament_hands_its_clock_to_its_games():
    from tournaments import services as tournament_services

    director = make_user("td")
    with time_machine.travel(T0 - HOUR, tick=False):
        t = tournament_services.tournament_create(
            director=director, name="Bank cup", registration_closes_at=T0, starts_at=T0 + HOUR, min_players=2,
            grace_days=10, auto_vacation_allowed=False, weekend_pause_allowed=False, **LITTLE_GOLEM)
        assert (t.clock_shape, t.days_per_move, t.grace_days) == ("bank", 0, 10)
        for name in ("pia", "quin"):
            tournament_services.tournament_register(user=make_user(name), tournament_id=t.pk)
    with time_machine.travel(T0 + HOUR, tick=False):
        tournament_services.tournament_start(tournament_id=t.pk)
    game = Game.objects.get()
    assert clock.terms(game) == clock.terms(t) and game.grace_days == 10
    assert not game.auto_vacation_allowed and not game.weekend_pause_allowed


# --- the weekend pause --------------------------------------------------------------------------


def test_weekends_are_local_and_follow_daylight_saving():
    berlin = ZoneInfo("Europe/Berlin")
    (start, end), = clock.weekends("Europe/Berlin", datetime(2026, 3, 27, tzinfo=UTC), datetime(2026, 3, 30, tzinfo=UTC))
    assert start == datetime(2026, 3, 28, tzinfo=berlin) and end == datetime(2026, 3, 30, tzinfo=berlin)
    assert end - start == timedelta(hours=47)  # the clocks went forward on the Sunday
    spans = clock.weekends("UTC", T0, T0 + 15 * DAY)
    assert [s.weekday() for s, _ in spans] == [5, 5] and all(e - s == 2 * DAY for s, e in spans)


NEW_YORK = ZoneInfo("America/New_York")
MONDAY = datetime(2026, 3, 2, 0, 0, tzinfo=NEW_YORK)  # 05:00 UTC
SATURDAY = datetime(2026, 3, 7, 0, 0, tzinfo=NEW_YORK)
NEXT_MONDAY = datetime(2026, 3, 9, 0, 0, tzinfo=NEW_YORK)  # daylight saving time began on the Sunday


def new_yorker_game(extra_seconds: int = 0, name: str = "nora", **terms) -> Game:
    """Yellow lives in New York and pauses at weekends; without the pause their clock would run
    out at midnight of Saturday, their time (two days a move, three of grace), plus ``extra_seconds``."""
    yellow = make_user(name, time_zone="America/New_York", weekend_pause=True)
    with time_machine.travel(MONDAY + timedelta(seconds=extra_seconds), tick=False):
        return make_game(yellow=yellow, red=make_user(f"{name}_red"), days_per_move=2, grace_days=3,
                         terms=terms or None)


def test_a_clock_that_runs_out_at_saturday_midnight_stops_at_zero_and_runs_out_on_monday():
    """The pause begins as the time runs out: the clock stops at zero for the weekend (a move then
    still counts), and the game is lost at Monday 00:00, their time, if none came."""
    game = new_yorker_game()
    assert game.deadline == NEXT_MONDAY
    for now in (SATURDAY - SECOND, SATURDAY, NEXT_MONDAY - SECOND):
        assert services.game_time_out(game_id=game.pk, now=now) is False
    assert services.game_time_out(game_id=game.pk, now=NEXT_MONDAY) is True
    without = new_yorker_game(weekend_pause_allowed=False, name="nina")
    assert without.deadline == SATURDAY  # terms without the pause: lost at Saturday 00:00
    assert services.game_time_out(game_id=without.pk, now=SATURDAY) is True


def test_a_second_more_and_the_clock_runs_out_on_monday():
    game = new_yorker_game(extra_seconds=1)
    assert game.deadline == NEXT_MONDAY + SECOND
    assert NEXT_MONDAY.astimezone(UTC) - SATURDAY.astimezone(UTC) == timedelta(hours=47)
    for now in (SATURDAY, SATURDAY + DAY, NEXT_MONDAY):
        assert services.game_time_out(game_id=game.pk, now=now) is False
    line = game.course.data["course"]["start_finish_cells"]
    with time_machine.travel(NEXT_MONDAY, tick=False):  # a move on Monday at 00:00 still counts
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    game.refresh_from_db()
    assert game.ply == 1 and banks(game)[0] == SECOND  # the weekend was not charged


def test_the_weekend_pause_needs_the_games_terms_and_the_players_wish():
    game = new_yorker_game(weekend_pause_allowed=False, extra_seconds=1)
    assert game.deadline == SATURDAY + SECOND  # terms without the pause: it runs through the weekend
    with time_machine.travel(MONDAY, tick=False):
        other = make_game(yellow=make_user("olga", time_zone="America/New_York"), red=make_user("ray"),
                          days_per_move=3, grace_days=3)
    assert other.deadline == SATURDAY + DAY  # no pause asked for


def test_turning_the_pause_on_or_changing_time_zone_moves_the_deadline_at_once():
    with time_machine.travel(T0, tick=False):
        game = make_game(yellow=make_user("ute"), days_per_move=3, grace_days=3)  # out on Sunday 09:00 UTC
    yellow = game.player(0)
    assert game.deadline == T0 + 6 * DAY
    with time_machine.travel(T0 + DAY, tick=False):
        assert vacations.clock_settings_set(user=yellow, weekend_pause=True) == 1
    game.refresh_from_db()
    # 4 d 15 h used by Saturday 00:00 UTC; the 1 d 9 h left from Monday 00:00
    assert game.deadline == datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
    client = client_for(yellow)
    assert client.patch("/api/me/", {"time_zone": "America/Los_Angeles"}, format="json").status_code == 200
    game.refresh_from_db()
    # Saturday 00:00 in Los Angeles is 08:00 UTC (4 d 23 h used), Monday 00:00 is 07:00 UTC (summer time)
    assert game.deadline == datetime(2026, 3, 10, 8, 0, tzinfo=UTC)
    assert client.patch("/api/me/", {"weekend_pause": False}, format="json").json()["weekend_pause"] is False
    game.refresh_from_db()
    assert game.deadline == T0 + 6 * DAY


def test_a_vacation_over_a_weekend_counts_once():
    yellow = make_user("vera", weekend_pause=True)
    with time_machine.travel(T0, tick=False):
        game = make_game(yellow=yellow, days_per_move=5, grace_days=0)
        vacations.vacation_start(user=yellow, days=7)  # Monday to Monday: the weekend inside it
    game.refresh_from_db()
    assert game.deadline == T0 + 7 * DAY + 5 * DAY + 2 * DAY  # a week off, five days to move, one more weekend


# --- automatic vacation --------------------------------------------------------------------------


def auto_game(name: str = "ada", **extra) -> Game:
    yellow = make_user(name, auto_vacation=True, **extra)
    with time_machine.travel(T0, tick=False):
        return make_game(yellow=yellow, red=make_user(f"{name}_opponent"), days_per_move=2, grace_days=3)


def test_the_sweep_takes_a_vacation_day_instead_of_the_game_and_tells_the_player():
    game = auto_game()
    deadline = game.deadline
    assert services.game_time_out(game_id=game.pk, now=deadline) is True  # it acted: a day, not a loss
    game.refresh_from_db()
    vacation = Vacation.objects.get(user=game.player(0))
    assert vacation.automatic and (vacation.started_at, vacation.planned_end) == (deadline, deadline + DAY)
    assert game.status == Game.Status.ACTIVE and game.deadline == deadline + DAY
    notice = Notice.objects.get(event="auto_vacation", channel="email")
    assert notice.user == game.player(0) and notice.data["days_left"] == 13.0 and not notice.data["low"]
    text = message_for(notice).body
    assert f"game {game.pk} ran out" in text and "Only" not in text


def test_a_late_sweep_takes_the_days_it_needs_as_one_vacation():
    game = auto_game()
    deadline = game.deadline
    services.game_time_out(game_id=game.pk, now=deadline + 2 * DAY + HOUR)
    game.refresh_from_db()
    vacation = Vacation.objects.get(user=game.player(0))
    assert vacation.planned_end == deadline + 3 * DAY and game.deadline == deadline + 3 * DAY
    assert Notice.objects.filter(event="auto_vacation", channel="email").count() == 1


def test_a_late_move_counts_when_a_vacation_day_covers_it_and_is_not_charged():
    game = auto_game()
    deadline = game.deadline
    place(game, 0, deadline + 6 * HOUR)
    assert game.ply == 1 and game.status == Game.Status.ACTIVE
    assert Vacation.objects.get(user=game.player(0)).started_at == deadline
    assert banks(game)[0] == timedelta(0)  # the grace bank was used up at the deadline; the day is not charged


def test_one_day_stops_every_game_of_the_player_at_once():
    game = auto_game()
    with time_machine.travel(T0 + DAY, tick=False):
        later = make_game(yellow=game.player(0), red=make_user("zed"), days_per_move=2, grace_days=3)
    services.game_time_out(game_id=game.pk, now=game.deadline)
    later.refresh_from_db()
    assert later.deadline == T0 + DAY + 5 * DAY + DAY
    assert Vacation.objects.filter(user=game.player(0)).count() == 1


def test_when_the_days_run_low_the_player_is_told_and_when_none_are_left_the_game_is_lost():
    game = auto_game(vacation_days_per_year=2)
    deadline = game.deadline
    services.game_time_out(game_id=game.pk, now=deadline)
    notice = Notice.objects.get(event="auto_vacation", channel="email")
    assert notice.data == {**notice.data, "days_left": 1.0, "low": True}
    assert "Only 1 vacation day is left this year" in message_for(notice).body
    pushed = payload(Notice(user=notice.user, event="auto_vacation", channel="push", key="k", data=notice.data))
    assert pushed["title"].startswith("A vacation day was used for you") and "1 vacation day left" in pushed["body"]
    services.game_time_out(game_id=game.pk, now=deadline + 2 * DAY)  # the second day, then none
    game.refresh_from_db()
    assert game.over and game.termination == "timeout" and game.finished_at == deadline + 2 * DAY
    assert vacations.vacation_days_left(game.player(0), deadline + 2 * DAY) == timedelta(0)


def test_a_tournament_that_forbids_it_loses_on_time_and_is_not_paused_by_another_games_day():
    game = auto_game()
    with time_machine.travel(T0 + DAY, tick=False):
        strict = make_game(yellow=game.player(0), red=make_user("tina"), days_per_move=2, grace_days=3,
                           terms={"auto_vacation_allowed": False})
    services.game_time_out(game_id=game.pk, now=game.deadline)  # a day for the first game
    strict.refresh_from_db()
    assert strict.deadline == T0 + 6 * DAY  # not moved by it
    assert services.game_time_out(game_id=strict.pk, now=strict.deadline) is True
    strict.refresh_from_db()
    assert strict.over and strict.termination == "timeout"


def test_no_automatic_day_without_the_wish_or_where_vacation_is_not_allowed():
    with time_machine.travel(T0, tick=False):
        plain = make_game(yellow=make_user("paul"), red=make_user("pam"), days_per_move=2, grace_days=3)
        no_vacation = make_game(yellow=make_user("nils", auto_vacation=True), red=make_user("nina"),
                                days_per_move=2, grace_days=3, vacation_allowed=False)
    for game in (plain, no_vacation):
        assert services.game_time_out(game_id=game.pk, now=game.deadline) is True
        game.refresh_from_db()
        assert game.over
    assert not Vacation.objects.exists()


def test_the_settings_page_turns_both_on():
    user = make_user("sam")
    client = client_for(user)
    client.force_login(user)
    page = client.get("/settings/").content.decode()
    assert 'name="weekend_pause"' in page and 'name="auto_vacation"' in page
    client.post("/settings/", {"clock_settings": "1", "weekend_pause": "1", "auto_vacation": "1"})
    user.refresh_from_db()
    assert user.weekend_pause and user.auto_vacation


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_late_move_and_two_sweeps_at_once_take_one_day():
    """Threads on PostgreSQL: the sweep twice and the late move together take one vacation day
    (each locks the player before their games: no deadlock), and the move counts once."""
    for i in range(4):
        game = auto_game(f"ada{i}")
        deadline = game.deadline
        line = game.course.data["course"]["start_finish_cells"]
        with time_machine.travel(deadline + HOUR, tick=False):
            results = race([
                lambda g=game, c=tuple(line[0]): services.game_place(user=g.player(0), game_id=g.pk, ply=0, cell=c,
                                                                     heading=0),
                lambda g=game, d=deadline: services.game_time_out(game_id=g.pk, now=d + HOUR),
                lambda g=game, d=deadline: services.game_time_out(game_id=g.pk, now=d + HOUR),
            ])
        assert not any(isinstance(r, Exception) for r in results), results
        game.refresh_from_db()
        assert game.status == Game.Status.ACTIVE and game.ply == 1
        vacation = Vacation.objects.get(user=game.player(0))
        assert vacation.planned_end - vacation.started_at == DAY
