"""Emails: your turn, reminder, game over, challenge, digest; unsubscribe; retries."""

from __future__ import annotations

import random
import re
import smtplib
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
import time_machine
from django.test import Client

from games import services
from games.notifications.models import Notice
from games.tasks import send_digests, send_email, sweep_clocks

from .factories import make_game, make_user, placed_game, race

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def subjects(outbox, user=None):
    return [m.subject for m in outbox if user is None or m.to == [user.email]]


def release(capture, after: timedelta = timedelta(seconds=125)) -> None:
    """The minute sweep once a your-turn email's hold (2 minutes by default) has passed."""
    with time_machine.travel(datetime.now(UTC) + after, tick=False), capture(execute=True):
        sweep_clocks()


def test_your_turn_email_after_the_opponents_move(eager, mailoutbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game()
    assert mailoutbox == [], "held back a little, in case the player is there already"
    release(django_capture_on_commit_callbacks)
    assert subjects(mailoutbox, game.player(0)) == [f"Your turn in game {game.pk}"]  # place your boat
    line = game.course.data["course"]["start_finish_cells"]
    with django_capture_on_commit_callbacks(execute=True):
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    release(django_capture_on_commit_callbacks)
    email = mailoutbox[-1]
    assert email.to == [game.player(1).email] and email.subject == f"Your turn in game {game.pk}"
    html = email.alternatives[0][0]
    assert email.alternatives[0][1] == "text/html"
    link = f"http://127.0.0.1:8000/games/{game.pk}/"
    assert link in email.body and link in html
    assert "/email/unsubscribe/" in email.body and "/email/unsubscribe/" in html
    assert email.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    with django_capture_on_commit_callbacks(execute=True):
        services.game_place(user=game.player(1), game_id=game.pk, ply=1, cell=tuple(line[2]), heading=0)
    release(django_capture_on_commit_callbacks)
    assert len(mailoutbox) == 2, "Red keeps the turn after placing: no new email"


def test_no_your_turn_email_when_the_player_moved_before_it_went_out(eager, mailoutbox,
                                                                      django_capture_on_commit_callbacks):
    """Two players online at once (or a player and a bot): the held email of a turn the player
    has already played is dropped, not sent."""
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game()
    line = game.course.data["course"]["start_finish_cells"]
    with django_capture_on_commit_callbacks(execute=True):
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
        services.game_place(user=game.player(1), game_id=game.pk, ply=1, cell=tuple(line[2]), heading=0)
    release(django_capture_on_commit_callbacks)
    assert subjects(mailoutbox, game.player(0)) == [] and subjects(mailoutbox, game.player(1)) == []
    assert Notice.objects.filter(event="your_turn", sent_at__isnull=True).count() == 0


def test_the_unsubscribe_link_works_without_logging_in(eager, mailoutbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game()
    release(django_capture_on_commit_callbacks)
    link = re.search(r"http://127.0.0.1:8000(/email/unsubscribe/\S+/)", mailoutbox[0].body).group(1)
    page = Client().get(link)  # a mail scanner opening the link changes nothing (RFC 8058)
    assert page.status_code == 200 and b"unsubscribe-form" in page.content
    game.player(0).refresh_from_db()
    assert game.player(0).email_mode == "each"
    page = Client().post(link)  # the page's button
    assert page.status_code == 200 and b"You are unsubscribed" in page.content
    undo = re.search(r'action="(/email/unsubscribe/[^"]+/)"', page.content.decode()).group(1)
    game.player(0).refresh_from_db()
    assert game.player(0).email_mode == "none"
    line = game.course.data["course"]["start_finish_cells"]
    with django_capture_on_commit_callbacks(execute=True):
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
        services.game_resign(user=game.player(1), game_id=game.pk)
    release(django_capture_on_commit_callbacks)
    assert subjects(mailoutbox, game.player(0)) == [f"Your turn in game {game.pk}"], "nothing more for Yellow"
    assert Client().post(undo, {"resubscribe": "1"}).status_code == 200  # the page's undo: a link of its own
    game.player(0).refresh_from_db()
    assert game.player(0).email_mode == "each"
    # the email's link made its change: a mail client's one-click (RFC 8058) with it changes nothing now
    assert Client().post(link, {"List-Unsubscribe": "One-Click"}).status_code == 410
    game.player(0).refresh_from_db()
    assert game.player(0).email_mode == "each"
    assert Client().get("/email/unsubscribe/forged-token/").status_code == 400


def test_game_over_email_to_both_with_result_and_points(eager, mailoutbox, django_capture_on_commit_callbacks):
    game = placed_game()
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(user=game.player(1), game_id=game.pk)
    over = [m for m in mailoutbox if "is over" in m.subject]
    assert sorted(m.to[0] for m in over) == sorted([game.player(0).email, game.player(1).email])
    yellow_mail = next(m for m in over if m.to == [game.player(0).email])
    assert "you won" in yellow_mail.subject and "Red resigned" in yellow_mail.body
    assert "Yellow: 0 points" in yellow_mail.body and "damage" in yellow_mail.body


def test_a_named_challenge_is_emailed(eager, mailoutbox, django_capture_on_commit_callbacks):
    ann, bob = make_user("ann"), make_user("bob")
    with django_capture_on_commit_callbacks(execute=True):
        services.challenge_create(user=ann, opponent=bob, days_per_move=5)
    assert subjects(mailoutbox, bob) == ["ann challenges you to a game of Powerboats"]
    assert "5 days per move" in mailoutbox[0].body


def test_the_daily_digest_at_the_users_local_hour(eager, mailoutbox, django_capture_on_commit_callbacks):
    ann = make_user("ann", email_mode="digest", digest_hour=8, time_zone="America/New_York")
    with time_machine.travel(T0 - 3 * DAY, tick=False), django_capture_on_commit_callbacks(execute=True):
        games = [make_game(yellow=ann, red=make_user(f"op{i}")) for i in range(2)]
    assert subjects(mailoutbox, ann) == [], "a digest user gets no your-turn email"
    with time_machine.travel(datetime(2026, 5, 4, 11, 30, tzinfo=UTC), tick=False):  # 07:30 in New York
        assert send_digests() == 0
    with time_machine.travel(datetime(2026, 5, 4, 12, 5, tzinfo=UTC), tick=False):  # 08:05 in New York
        with django_capture_on_commit_callbacks(execute=True):
            assert send_digests() == 1
        assert send_digests() == 0  # once a day
    digest = mailoutbox[-1]
    assert digest.subject == "Your turn in 2 games" and digest.to == [ann.email]
    for game in games:
        assert f"/games/{game.pk}/" in digest.body
    with time_machine.travel(datetime(2026, 5, 5, 12, 5, tzinfo=UTC), tick=False):
        assert send_digests() == 1


def test_the_daily_digest_lists_the_series_to_move_too(eager, mailoutbox, django_capture_on_commit_callbacks):
    """A digest reader is told of the series where it is their turn with their games (issue 25:
    everything a two-player game has, a series has), gets no series your-turn email, and gets
    the series' end at once, as a game's."""
    players = [make_user(n, email_mode="digest", digest_hour=8, time_zone="Europe/Berlin", language="de")
               for n in ("ann", "bob", "cid")]
    with time_machine.travel(T0 - 3 * DAY, tick=False), django_capture_on_commit_callbacks(execute=True):
        mine = services.game_open(user=players[0], seats=3)
        for user in players[1:]:
            services.game_join(user=user, game_id=mine.pk, rng=random.Random(5))
        mine.refresh_from_db()
        ann = mine.seats.get(index=mine.to_move).user  # the player to move, drawn by lot (R15)
        game = make_game(yellow=ann, red=make_user("dee"))
        waiting = services.game_open(user=make_user("eve"), seats=3)  # open: no one's turn
        services.game_join(user=ann, game_id=waiting.pk)
    with time_machine.travel(T0 - 3 * DAY + timedelta(seconds=125), tick=False), \
            django_capture_on_commit_callbacks(execute=True):
        sweep_clocks()  # held your-turn emails are released (a digest reader's were never recorded)
    assert subjects(mailoutbox, ann) == [], "a digest reader gets no your-turn email of a game or a series"
    with time_machine.travel(datetime(2026, 5, 4, 6, 5, tzinfo=UTC), tick=False):  # 08:05 in Berlin
        with django_capture_on_commit_callbacks(execute=True):
            assert send_digests() == 1
    digest = mailoutbox[-1]
    assert digest.subject == "Du bist am Zug in 2 Partien"
    assert f"/games/{game.pk}/" in digest.body and f"/games/{mine.pk}/" in digest.body
    assert f"Serie {mine.series_number}, Rennen A" in digest.body
    assert "durch Zeitüberschreitung aus der Serie am" in digest.body
    assert f"/games/{waiting.pk}/" not in digest.body
    html = digest.alternatives[0][0]
    assert f'/games/{mine.pk}/"' in html
    # a series' end and turn are a game's emails (issue 25): the end at once, the turn in the digest
    assert ann.wants_email("game_over") and not ann.wants_email("your_turn")


def test_a_failing_mail_server_is_retried_and_never_blocks_a_move(mailoutbox, django_capture_on_commit_callbacks):
    options = send_email.autoretry_for
    assert smtplib.SMTPException in options and send_email.retry_backoff and send_email.max_retries >= 5
    game = placed_game()
    with mock.patch.object(send_email, "delay") as queued, django_capture_on_commit_callbacks(execute=True):
        services.game_resign(user=game.player(1), game_id=game.pk)
    game.refresh_from_db()
    assert game.over  # the move stands whatever the mail does
    entries = list(Notice.objects.filter(event="game_over"))
    assert len(entries) == 2 and queued.call_count == 2
    with mock.patch("django.core.mail.EmailMultiAlternatives.send", side_effect=smtplib.SMTPServerDisconnected("down")):
        with pytest.raises(smtplib.SMTPServerDisconnected):
            send_email.run(entries[0].pk)
    entries[0].refresh_from_db()
    assert entries[0].sent_at is None and entries[0].attempts == 1
    assert send_email.run(entries[0].pk) is True
    assert send_email.run(entries[0].pk) is False  # exactly once
    assert len(mailoutbox) == 1


def test_a_broker_that_is_down_does_not_lose_the_email(eager, mailoutbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = placed_game()
    mailoutbox.clear()
    with mock.patch.object(send_email, "delay", side_effect=ConnectionError("broker down")):
        with django_capture_on_commit_callbacks(execute=True):
            services.game_resign(user=game.player(1), game_id=game.pk)
    assert mailoutbox == [] and Notice.objects.filter(event="game_over", sent_at__isnull=True).count() == 2
    with time_machine.travel(datetime.now(UTC) + timedelta(minutes=20), tick=False):
        assert sweep_clocks()["requeued"] == 2
    assert len([m for m in mailoutbox if "is over" in m.subject]) == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_player_who_stops_moving_gets_a_reminder_then_loses_on_time_exactly_once(eager, mailoutbox):
    """Acceptance (issue 4): reminder, then loss on time, then game-over emails to both,
    exactly once each, with the sweep run concurrently from two threads at every step."""
    with time_machine.travel(T0, tick=False):
        game = placed_game(days_per_move=1, grace_days=1)  # Red to move; lost on time at T0 + 2 days
    red, yellow = game.player(1), game.player(0)
    game.refresh_from_db()
    assert game.deadline == T0 + 2 * DAY and game.reminder_at == T0 + DAY
    mailoutbox.clear()
    for hours in (6, 23, 25, 30, 47, 48, 49, 72):
        with time_machine.travel(T0 + timedelta(hours=hours), tick=False):
            results = race([sweep_clocks, sweep_clocks])
            assert not any(isinstance(r, Exception) for r in results), results
    to_red = subjects(mailoutbox, red)
    assert len(to_red) == 2
    assert to_red[0].startswith(f"Reminder: your move in game {game.pk} is due Wed 6 May 2026 12:00")
    assert to_red[1] == f"Game {game.pk} is over: you lost"
    assert subjects(mailoutbox, yellow) == [f"Game {game.pk} is over: you won"]
    game.refresh_from_db()
    assert game.termination == "timeout" and game.result_reason == "Red ran out of time"
    assert game.finished_at == T0 + 2 * DAY  # the sweep at hour 48 ended it
