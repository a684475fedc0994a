"""Real Celery: a worker thread on the Redis broker runs the clock sweep and the email tasks."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from games.models import Game
from games.notifications.models import Notice
from games.tasks import sweep_clocks

from .factories import placed_game


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_worker_times_out_a_game_and_sends_the_emails(mailoutbox):
    from celery.contrib.testing.worker import start_worker

    from powerboats_site.celery import app

    # a game whose deadline passed: made in the past with the time-travel library
    with time_machine.travel(datetime.now(UTC) - timedelta(days=10), tick=False):
        game = placed_game(days_per_move=1, grace_days=1)
    assert game.deadline < datetime.now(UTC)
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=20):
        sweep_clocks.delay()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            sent = Notice.objects.filter(event="game_over", sent_at__isnull=False).count()
            if sent == 2:
                break
            time.sleep(0.2)
    game.refresh_from_db()
    assert game.over and game.termination == "timeout"
    assert Notice.objects.filter(event="game_over", sent_at__isnull=False).count() == 2
    over = sorted(m.to[0] for m in mailoutbox if "is over" in m.subject)
    assert over == sorted([game.player(0).email, game.player(1).email])
    assert Game.objects.filter(status="active").count() == 0
