"""Series your-turn emails follow the two-player policy (issue 24): held back, dropped when the
player had the series live or acted meanwhile, none for a house bot's turn, and none in a series
against house bots only unless the player asked for those."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from games import services as svc
from games.live import events as live
from games.notifications.models import Notice
from games.tasks import sweep_clocks

from .factories import make_user
from .series_play import engine_now, started

pytestmark = pytest.mark.django_db



def turn_subjects(outbox, user):
    return [m.subject for m in outbox if m.to == [user.email] and m.subject.startswith("Your turn")]


def release(capture, after: timedelta = timedelta(seconds=125)) -> None:
    with time_machine.travel(datetime.now(UTC) + after, tick=False), capture(execute=True):
        sweep_clocks()


def three_people(capture):
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    with capture(execute=True):
        series = started(users, seed=16)
    mover = series.player(series.to_move)
    return series, users, mover


def test_a_player_watching_the_series_live_gets_no_your_turn_email(eager, mailoutbox,
                                                                   django_capture_on_commit_callbacks):
    series, _, mover = three_people(django_capture_on_commit_callbacks)
    assert mailoutbox == [], "held back, not sent on the move's own request"
    live.mark_seen(mover.pk, series.pk)  # the series' page is open (its stream is connected)
    release(django_capture_on_commit_callbacks)
    assert turn_subjects(mailoutbox, mover) == []
    assert Notice.objects.get(user=mover, event="your_turn").sent_at is not None, "dropped, not left held"


def test_a_player_not_watching_gets_exactly_one_email_after_the_hold(eager, mailoutbox,
                                                                    django_capture_on_commit_callbacks):
    series, _, mover = three_people(django_capture_on_commit_callbacks)
    live.mark_seen(mover.pk, series.pk + 1)  # another game's page does not count
    release(django_capture_on_commit_callbacks, after=timedelta(seconds=10))
    assert turn_subjects(mailoutbox, mover) == [], "still held"
    release(django_capture_on_commit_callbacks)
    release(django_capture_on_commit_callbacks, after=timedelta(minutes=5))
    assert turn_subjects(mailoutbox, mover) == [f"Your turn in series {series.series_number} (race A)"]


def test_a_player_who_acted_meanwhile_gets_no_email_for_that_turn(eager, mailoutbox,
                                                                 django_capture_on_commit_callbacks):
    series, _, mover = three_people(django_capture_on_commit_callbacks)
    _, _, engine = engine_now(series.pk)
    with django_capture_on_commit_callbacks(execute=True):
        svc.game_place(user=mover, game_id=series.pk, ply=series.ply,
                       cell=engine.race.free_start_cells()[0], heading=0)
    series.refresh_from_db()
    following = series.player(series.to_move)
    release(django_capture_on_commit_callbacks)
    assert turn_subjects(mailoutbox, mover) == [], "placed before the email's time: dropped"
    assert turn_subjects(mailoutbox, following) == [f"Your turn in series {series.series_number} (race A)"]


def with_bots(capture, user):
    with capture(execute=True):
        series = svc.game_open(user=user, seats=4, rated=False)
        svc.game_add_bot(user=user, game_id=series.pk, level="easy")
        svc.game_add_bot(user=user, game_id=series.pk, level="normal")
        svc.game_add_bot(user=user, game_id=series.pk, level="strong", rng=random.Random(4))
    series.refresh_from_db()
    return series


def play_a_few(capture, series, user, turns=3):
    """The person places, the bots answer on commit: the turn comes back to them each time."""
    for _ in range(turns):
        series.refresh_from_db()
        if series.to_move is None or series.player(series.to_move) != user:
            return
        _, _, engine = engine_now(series.pk)
        with capture(execute=True):
            if series.phase == "place":
                svc.game_place(user=user, game_id=series.pk, ply=series.ply,
                               cell=engine.race.free_start_cells()[0], heading=0)
            else:
                return


def test_house_bots_turns_never_produce_an_email(eager, mailoutbox, django_capture_on_commit_callbacks):
    """The tester's case: one person against three house bots, the turn coming back within seconds."""
    ann = make_user("ann")
    series = with_bots(django_capture_on_commit_callbacks, ann)
    assert series.status == "active" and series.ply >= 1
    play_a_few(django_capture_on_commit_callbacks, series, ann)
    release(django_capture_on_commit_callbacks)
    assert not Notice.objects.filter(event="your_turn").exists(), "no row for the bots' turns, nor Ann's"
    assert mailoutbox == []


def test_against_house_bots_only_when_asked(eager, mailoutbox, django_capture_on_commit_callbacks):
    ann = make_user("ann", bot_turn_emails=True)
    series = with_bots(django_capture_on_commit_callbacks, ann)
    release(django_capture_on_commit_callbacks)
    assert turn_subjects(mailoutbox, ann) == [f"Your turn in series {series.series_number} (race A)"]
    assert {e.user_id for e in Notice.objects.filter(event="your_turn")} == {ann.pk}
