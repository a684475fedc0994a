"""Email that respects people (issue 13): no your-turn email for a move the player saw live,
none in games against the house bots unless asked for; reminders and game-over stay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games import services
from games.live import events as live
from games.live.models import LiveSeen
from games.tasks import sweep_clocks

from .factories import PASSWORD, make_game, make_user

pytestmark = pytest.mark.django_db
User = get_user_model()


def subjects(outbox, user):
    return [m.subject for m in outbox if m.to == [user.email]]


def release(capture, after: timedelta = timedelta(seconds=125)) -> None:
    with time_machine.travel(datetime.now(UTC) + after, tick=False), capture(execute=True):
        sweep_clocks()


def place_yellow(game):
    line = game.course.data["course"]["start_finish_cells"]
    services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)


def test_no_your_turn_email_for_a_move_the_player_saw_live(eager, mailoutbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game()
    live.mark_seen(game.player(0).pk, game.pk)  # Yellow has the game's page open (its stream is connected)
    release(django_capture_on_commit_callbacks)
    assert subjects(mailoutbox, game.player(0)) == [], "Yellow saw it live: no email"
    with django_capture_on_commit_callbacks(execute=True):
        place_yellow(game)
    release(django_capture_on_commit_callbacks)
    assert subjects(mailoutbox, game.player(1)) == [f"Your turn in game {game.pk}"], "Red was not there: emailed"


def test_a_page_seen_long_before_the_move_does_not_count(eager, mailoutbox, django_capture_on_commit_callbacks):
    yvonne = make_user("yvonne")
    LiveSeen.objects.create(user=yvonne, game_id=None, at=timezone.now() - timedelta(minutes=10))
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game(yellow=yvonne)
    release(django_capture_on_commit_callbacks)
    assert subjects(mailoutbox, yvonne) == [f"Your turn in game {game.pk}"]


def test_the_api_event_stream_counts_as_seen_for_every_game(eager, mailoutbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game()
    live.mark_seen(game.player(0).pk, None)  # a bot client listening on /api/stream/events/
    release(django_capture_on_commit_callbacks)
    assert subjects(mailoutbox, game.player(0)) == []


def test_the_game_page_stream_records_seen_at_most_once_a_minute(eager):
    user = make_user("watcher")
    game = make_game(yellow=user)
    client = Client()
    client.login(username="watcher", password=PASSWORD)
    # served by a sync server the stream answers at once (the browser reconnects): seen is recorded
    response = client.get(f"/events/game/{game.pk}/")
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    assert LiveSeen.objects.filter(user=user, game_id=game.pk).count() == 1
    client.get(f"/events/game/{game.pk}/")
    assert LiveSeen.objects.filter(user=user).count() == 1, "one row per user and game, refreshed"


def test_no_your_turn_email_against_a_house_bot_unless_asked(eager, mailoutbox, django_capture_on_commit_callbacks):
    bot = User.objects.get(username="bot-easy")
    human = make_user("hanna")
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game(yellow=human, red=bot)
    release(django_capture_on_commit_callbacks)
    assert subjects(mailoutbox, human) == [], "a bot game: no your-turn email by default"

    asks = make_user("asker", bot_turn_emails=True)
    with django_capture_on_commit_callbacks(execute=True):
        other = make_game(yellow=asks, red=bot)
    release(django_capture_on_commit_callbacks)
    assert subjects(mailoutbox, asks) == [f"Your turn in game {other.pk}"], "asked for: emailed"

    # the game-over email stays
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(user=human, game_id=game.pk)
    assert any(s.startswith(f"Game {game.pk} is over") for s in subjects(mailoutbox, human))


def test_the_reminder_stays_when_the_player_was_seen_live(eager, mailoutbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game(days_per_move=1, grace_days=1)  # reminded a day before the deadline (2 days)
    live.mark_seen(game.player(0).pk, game.pk)
    with time_machine.travel(timezone.now() + timedelta(hours=25), tick=False), \
            django_capture_on_commit_callbacks(execute=True):
        live.mark_seen(game.player(0).pk, game.pk)  # still there, but has not moved
        sweep_clocks()
    assert any(s.startswith("Reminder") for s in subjects(mailoutbox, game.player(0)))
    assert not any(s.startswith("Your turn") for s in subjects(mailoutbox, game.player(0)))


def test_the_setting_is_on_the_settings_page(client):
    make_user("setter")
    client.login(username="setter", password=PASSWORD)
    page = client.get("/settings/")
    assert b'name="bot_turn_emails"' in page.content
    data = {"save": "1", "email": "setter@example.com", "email_mode": "each", "digest_hour": 8, "reminder_hours": 24,
            "time_zone": "UTC", "bot_turn_emails": "on"}
    client.post("/settings/", data)
    assert User.objects.get(username="setter").bot_turn_emails is True




def test_a_series_page_stream_records_its_player_seen_live_on_that_series():
    """Issue 24: a series' your-turn email follows the two-player policy; its page's stream (its
    game's, issue 25) marks the player "seen live" on the series' game (LiveSeen.game_id), not on
    another game, and the event stream counts for every game and series."""
    user, other = make_user("sasha"), make_user("sami")
    series = services.game_open(user=user, seats=3)
    client = Client()
    client.login(username="sasha", password=PASSWORD)
    assert client.get(f"/events/game/{series.pk}/").status_code == 200
    row = LiveSeen.objects.get(user=user)
    assert row.game_id == series.pk
    since = timezone.now()
    assert live.saw_live(user.pk, series.pk, since)
    assert not live.saw_live(user.pk, series.pk + 1, since), "another game's page is another thing"
    client.get(f"/events/game/{series.pk}/")
    assert LiveSeen.objects.filter(user=user).count() == 1, "one row per user and series, refreshed"
    live.mark_seen(other.pk, None)  # the event stream: every game and every series
    assert live.saw_live(other.pk, series.pk, since) and live.saw_live(other.pk, 12345, since)
    live.mark_seen_many({(user.pk, 7): since, (user.pk, series.pk): since, (other.pk, None): since})
    assert LiveSeen.objects.filter(user=user).count() == 2 and LiveSeen.objects.filter(user=other).count() == 1
