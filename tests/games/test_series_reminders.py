"""Reminder emails of series (issue 16): one per turn, the player's hours before the deadline
but not before half the time is gone, as for two-player games (docs/clocks.md)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from games import services_series as svc
from games.models import EmailLog
from games.models_series import SeriesGame
from games.tasks_series import sweep_series_clocks

from .factories import make_user
from .series_play import play

T0 = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)



def reminders() -> list[EmailLog]:
    return list(EmailLog.objects.filter(event="series_reminder").order_by("pk"))


@pytest.mark.django_db
def test_the_player_to_move_is_reminded_once_per_turn_by_the_sweep(eager, mailoutbox,
                                                                    django_capture_on_commit_callbacks):
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    with time_machine.travel(T0, tick=False), django_capture_on_commit_callbacks(execute=True):
        series = svc.series_create(user=users[0], seats=3, days_per_move=1, grace_days=1)
        for user in users[1:]:
            svc.series_join(user=user, series_id=series.pk, rng=random.Random(5))
    series.refresh_from_db()
    mover = next(s.user for s in series.seats.all() if s.index == series.to_move)
    # lost on time at T0 + 2 days; 24 hours before it (the default) is T0 + 1 day, not before halfway
    assert series.deadline == T0 + 2 * DAY and series.reminder_at == T0 + DAY
    mailoutbox.clear()
    for hours in (6, 23):
        with time_machine.travel(T0 + timedelta(hours=hours), tick=False), \
                django_capture_on_commit_callbacks(execute=True):
            sweep_series_clocks()
    assert reminders() == [], "not due yet"
    for hours in (25, 30, 40):  # due: sent at the first sweep after, once
        with time_machine.travel(T0 + timedelta(hours=hours), tick=False), \
                django_capture_on_commit_callbacks(execute=True):
            sweep_series_clocks()
    sent = reminders()
    assert [(e.user_id, e.data) for e in sent] == [(mover.pk, {"series": series.pk})]
    mail = [m for m in mailoutbox if m.to == [mover.email]]
    assert len(mail) == 1 and mail[0].subject.startswith(f"Reminder: your move in series {series.pk} is due ")
    assert f"/series/{series.pk}/" in mail[0].body and "R18" in mail[0].body
    series.refresh_from_db()
    assert series.reminder_at is None and series.reminder_sent_at == T0 + timedelta(hours=25)
    assert svc.series_remind(series_id=series.pk, now=T0 + timedelta(hours=41)) is False, "once per turn"

    # the next turn gets its own reminder time
    with time_machine.travel(T0 + timedelta(hours=42), tick=False), django_capture_on_commit_callbacks(execute=True):
        had = series.to_move
        play(series.pk, seed=1, stop=lambda engine: engine.to_move != had)
    series.refresh_from_db()
    assert series.turn_started_at == T0 + timedelta(hours=42)
    assert series.reminder_at == series.deadline - DAY


@pytest.mark.django_db
def test_no_reminder_for_a_house_bot_nor_after_the_end(django_capture_on_commit_callbacks):
    ann = make_user("ann")
    bob = make_user("bob")
    with django_capture_on_commit_callbacks(execute=True):
        series = svc.series_create(user=ann, seats=3)
        svc.series_join(user=bob, series_id=series.pk)
        svc.series_add_bot(user=ann, series_id=series.pk, level="easy", rng=random.Random(1))
    series.refresh_from_db()
    seats = list(series.seats.select_related("user"))
    for _ in range(30):
        series.refresh_from_db()
        mover = svc.playing_seats(seats)[series.to_move].user
        if mover.is_bot:
            break
        play(series.pk, seed=2, stop=lambda engine, start=series.to_move: engine.to_move != start)
    assert mover.is_bot and series.reminder_at is None, "a house bot is not reminded"
    finished = play(series.pk, seed=2)
    assert finished.status == SeriesGame.Status.FINISHED and finished.reminder_at is None
    assert svc.series_remind(series_id=series.pk, now=finished.finished_at + 30 * DAY) is False
