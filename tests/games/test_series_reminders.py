"""Reminder emails of series (issue 16): one per turn, the player's hours before the deadline
but not before half the time is gone, as for two-player games (docs/clocks.md): since issue 25
the same reminder, sent by the same sweep, as a two-player game's, worded for a series."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from games import services
from games.models import Game
from games.notifications.models import Notice
from games.tasks import sweep_clocks

from .factories import make_user
from .series_play import play, started

T0 = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)



def reminders() -> list[Notice]:
    return list(Notice.objects.filter(event="reminder").order_by("pk"))


@pytest.mark.django_db
def test_the_player_to_move_is_reminded_once_per_turn_by_the_sweep(eager, mailoutbox,
                                                                    django_capture_on_commit_callbacks):
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    with time_machine.travel(T0, tick=False), django_capture_on_commit_callbacks(execute=True):
        series = started(users, seed=5, days_per_move=1, grace_days=1)
    mover = next(s.user for s in series.seats.all() if s.index == series.to_move)
    # lost on time at T0 + 2 days; 24 hours before it (the default) is T0 + 1 day, not before halfway
    assert series.deadline == T0 + 2 * DAY and series.reminder_at == T0 + DAY
    mailoutbox.clear()
    for hours in (6, 23):
        with time_machine.travel(T0 + timedelta(hours=hours), tick=False), \
                django_capture_on_commit_callbacks(execute=True):
            sweep_clocks()
    assert reminders() == [], "not due yet"
    for hours in (25, 30, 40):  # due: sent at the first sweep after, once
        with time_machine.travel(T0 + timedelta(hours=hours), tick=False), \
                django_capture_on_commit_callbacks(execute=True):
            sweep_clocks()
    sent = reminders()
    assert [(e.user_id, e.data) for e in sent] == [(mover.pk, {"game": series.pk})]
    # (the one sweep also sent the held your-turn email of the first turn, at its first run)
    assert [m.subject for m in mailoutbox if m.to == [mover.email] and m.subject.startswith("Your turn")] == [
        f"Your turn in series {series.series_number} (race A)"]
    mail = [m for m in mailoutbox if m.to == [mover.email] and m.subject.startswith("Reminder")]
    assert len(mail) == 1 and mail[0].subject.startswith(f"Reminder: your move in series {series.series_number} is due ")
    assert f"/games/{series.pk}/" in mail[0].body and "R18" in mail[0].body
    series.refresh_from_db()
    assert series.reminder_at is None and series.reminder_sent_at == T0 + timedelta(hours=25)
    assert services.game_remind(game_id=series.pk, now=T0 + timedelta(hours=41)) is False, "once per turn"

    # the next turn gets its own reminder time
    with time_machine.travel(T0 + timedelta(hours=42), tick=False), django_capture_on_commit_callbacks(execute=True):
        had = series.to_move
        play(series.pk, seed=1, stop=lambda engine: engine.to_move != had)
    series.refresh_from_db()
    assert series.turn_started_at == T0 + timedelta(hours=42)
    assert series.reminder_at == series.deadline - DAY


@pytest.mark.slow
@pytest.mark.django_db
def test_no_reminder_for_a_house_bot_nor_after_the_end(django_capture_on_commit_callbacks):
    ann = make_user("ann")
    bob = make_user("bob")
    with django_capture_on_commit_callbacks(execute=True):
        series = services.game_open(user=ann, seats=3)
        services.game_join(user=bob, game_id=series.pk)
        services.game_add_bot(user=ann, game_id=series.pk, level="easy", rng=random.Random(1))
    series.refresh_from_db()
    for _ in range(30):
        series.refresh_from_db()
        mover = series.player(series.to_move)
        if mover.is_bot:
            break
        play(series.pk, seed=2, stop=lambda engine, start=series.to_move: engine.to_move != start)
    assert mover.is_bot and series.reminder_at is None, "a house bot is not reminded"
    finished = play(series.pk, seed=2)
    assert finished.status == Game.Status.FINISHED and finished.reminder_at is None
    assert services.game_remind(game_id=series.pk, now=finished.finished_at + 30 * DAY) is False
