"""House bots on the site and bot accounts through the API."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from accounts.services import user_ensure_house_bots
from games import services
from games.bots import bot_act, house_bots
from games.models import Game

from .factories import PASSWORD, greedy_action, make_user

pytestmark = pytest.mark.django_db
User = get_user_model()


def test_every_site_has_the_house_bots():
    bots = {u.username: u.bot_level for u in house_bots()}  # made by migration accounts 0004
    assert bots == {"bot-easy": "easy", "bot-normal": "normal", "bot-strong": "strong"}
    assert not any(u.has_usable_password() for u in house_bots())


def test_playing_a_bot_from_the_lobby_and_it_answers(eager, django_capture_on_commit_callbacks):
    ann = make_user("ann")
    client = Client()
    client.login(username="ann", password=PASSWORD)
    assert b"Play the computer" in client.get("/lobby/").content
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/lobby/bot/", {"level": "strong", "color": "yellow", "days_per_move": 1,
                                               "grace_days": 7, "lake_side": "standard", "rated": "on"})
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert game.player(0) == ann and game.player(1).username == "bot-strong"
    # Yellow places; the bot (Red) then places and makes its first move through the services
    with django_capture_on_commit_callbacks(execute=True):
        greedy_action(game)
    game.refresh_from_db()
    assert game.to_move == 0 and game.phase == "dice"
    kinds = list(game.moves.order_by("ply").values_list("user__username", "kind"))
    assert kinds[:4] == [("ann", "place"), ("bot-strong", "place"), ("bot-strong", "roll"), ("bot-strong", "turn")]
    # a whole game: the human plays greedy, the bot answers after every move
    for _ in range(200):
        game.refresh_from_db()
        if game.over:
            break
        assert game.user_to_move == ann
        with django_capture_on_commit_callbacks(execute=True):
            greedy_action(game)
    assert game.over
    from django.core.management import call_command

    call_command("verify_games", game.pk)


def test_a_bot_task_that_runs_twice_does_nothing_the_second_time(django_capture_on_commit_callbacks):
    ann = make_user("ann")
    bot = User.objects.get(username="bot-normal")
    game = services.game_create(yellow=bot, red=ann)
    assert bot_act(game_id=game.pk, ply=0) is not None
    assert bot_act(game_id=game.pk, ply=0) is None  # the ply moved on
    assert bot_act(game_id=game.pk, ply=1) is None  # the human's turn


def test_a_challenge_to_a_bot_by_name_is_accepted(eager, django_capture_on_commit_callbacks):
    ann = make_user("ann")
    with django_capture_on_commit_callbacks(execute=True):
        services.challenge_create(user=ann, opponent=User.objects.get(username="bot-easy"))
    game = Game.objects.get()
    assert game.challenge.status == "accepted" and {game.player(0).username, game.player(1).username} == {"ann", "bot-easy"}


def test_register_a_bot_account_and_play_with_a_token():
    response = APIClient().post("/api/accounts/", {"username": "my-bot", "password": "a-secret-for-bots", "is_bot": True},
                                format="json")
    assert response.status_code == 201 and response.json()["is_bot"] is True
    token = response.json()["token"]
    bot = APIClient()
    bot.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    human = make_user("ann")
    challenge = bot.post("/api/challenges/", {"opponent": "ann", "color": "yellow"}, format="json").json()
    game = services.challenge_accept(user=human, challenge_id=challenge["id"])
    state = bot.get(f"/api/games/{game.pk}/").json()
    assert state["your_turn"] and state["placements"]["cells"]
    placed = bot.post(f"/api/games/{game.pk}/place/",
                      {"ply": 0, "cell": state["placements"]["cells"][0], "heading": 1}, format="json")
    assert placed.status_code == 200
    assert b"BOT" in Client().get("/players/my-bot/").content
    taken = APIClient().post("/api/accounts/", {"username": "MY-BOT", "password": "another-secret-1"}, format="json")
    assert taken.status_code == 400 and taken.json()["field"] == "username"
    weak = APIClient().post("/api/accounts/", {"username": "xan", "password": "1234567890"}, format="json")
    assert weak.status_code == 400 and weak.json()["field"] == "password"


def test_an_account_without_games_can_become_a_bot():
    make_user("ann")
    client = APIClient()
    client.login(username="ann", password=PASSWORD)
    assert client.post("/api/me/bot/").json()["is_bot"] is True
    assert client.post("/api/me/bot/").status_code == 400
    bob = make_user("bob")
    services.game_create(yellow=bob, red=make_user("cid"))
    client.login(username="bob", password=PASSWORD)
    refused = client.post("/api/me/bot/")
    assert refused.status_code == 400 and "no games" in refused.json()["message"]


def test_play_a_bot_through_the_api():
    make_user("ann")
    client = APIClient()
    client.login(username="ann", password=PASSWORD)
    response = client.post("/api/bots/play/", {"level": "normal", "color": "red"}, format="json")
    assert response.status_code == 201 and response.json()["yellow"] == "bot-normal"
    assert client.post("/api/bots/play/", {"level": "grandmaster"}, format="json").status_code == 400


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_makes_the_bots_move_within_seconds():
    from celery.contrib.testing.worker import start_worker

    from powerboats_site.celery import app

    ann = make_user("ann")
    user_ensure_house_bots()  # an earlier transactional test may have flushed the migration's rows
    bot = User.objects.get(username="bot-strong")
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=20):
        game = services.game_create(yellow=ann, red=bot)
        greedy_action(game)  # Yellow places; the bot's task is queued after this commits
        started = datetime.now(UTC)
        while (datetime.now(UTC) - started).total_seconds() < 20:
            game.refresh_from_db()
            if game.to_move == 0 and game.ply >= 3:
                break
            time.sleep(0.1)
        seconds = (datetime.now(UTC) - started).total_seconds()
    assert game.to_move == 0 and game.moves.filter(user=bot, kind__in=["place", "turn"]).count() == 2, "the bot placed and moved"
    assert seconds < 10


def test_ensuring_the_house_bots_restores_them_and_is_idempotent():
    User.objects.filter(bot_level__in=["easy", "normal", "strong"]).delete()
    assert len(user_ensure_house_bots()) == 3
    assert len(user_ensure_house_bots()) == 3
    assert {u.username for u in house_bots()} == {"bot-easy", "bot-normal", "bot-strong"}
