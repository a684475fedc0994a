"""A newcomer's help (issue 24, games/advice.py): the strong bot's advice, when asked for, in
casual games against the house bots only; and a new account's guided first game against a house
bot, until dismissed or a game is finished."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token

from games import services
from games.advice import _advice
from games.bots import player_for
from games.state import state_of

from .factories import PASSWORD, make_game, make_user, play_until

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture(autouse=True)
def _fresh_advice():
    _advice.cache_clear()
    yield
    _advice.cache_clear()


def logged_in(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def bot_game(user, rated: bool = False, level: str = "easy"):
    bot = User.objects.get(username=f"bot-{level}")
    return make_game(yellow=user, red=bot, rated=rated)


@pytest.mark.slow
def test_the_strong_bot_advises_a_player_who_asks_in_a_casual_game_against_a_house_bot():
    ann = make_user("ann", bot_hints=True)
    game = bot_game(ann)
    page = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    state = state_of(game)
    cell, heading = player_for(game, "strong").place(state)
    line = game.course.data["course"]["start_finish_cells"]
    number = [tuple(c) for c in line].index(cell) + 1
    assert "The strong bot would: start on cell " in page and f"cell {number} of the line" in page
    assert "Hide the strong bot&#x27;s advice" in page or "Hide the strong bot's advice" in page
    token = Token.objects.create(user=ann)
    answer = Client().get(f"/api/games/{game.pk}/", HTTP_AUTHORIZATION=f"Token {token.key}").json()
    assert answer["advice"] == {"phase": "place", "cell": list(cell), "heading": heading}
    # at the dice: the strong bot's dice choice, as the house bot would make it
    services.game_place(user=ann, game_id=game.pk, ply=0, cell=cell, heading=heading)
    game = play_until(game, lambda g: g.to_move == 0 and g.phase == "dice")
    choice = player_for(game, "strong").dice(state_of(game))
    answer = Client().get(f"/api/games/{game.pk}/", HTTP_AUTHORIZATION=f"Token {token.key}").json()
    assert answer["advice"] == {"phase": "dice", "change": choice.change.value, "remove": choice.remove,
                                "reroll": list(choice.reroll)}


@pytest.mark.slow
def test_no_advice_in_a_rated_game_against_a_person_or_when_not_asked():
    ann = make_user("ann", bot_hints=True)
    rated = bot_game(ann, rated=True)
    page = logged_in(ann).get(f"/games/{rated.pk}/").content.decode()
    assert "strong bot" not in page, "a rated game is the player's own: not even offered"
    person = make_game(yellow=ann, red=make_user("bob"), rated=False)
    assert "strong bot" not in logged_in(ann).get(f"/games/{person.pk}/").content.decode()
    cleo = make_user("cleo")  # has not asked
    casual = bot_game(cleo)
    client = logged_in(cleo)
    page = client.get(f"/games/{casual.pk}/").content.decode()
    assert "The strong bot would" not in page and "Show what the strong bot would do" in page
    token = Token.objects.create(user=cleo)
    api = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    first = api.get(f"/api/games/{casual.pk}/")
    assert "advice" not in first.json()
    # asking for it: from the page, and the API's version of the game changes with it
    assert client.post(f"/games/{casual.pk}/advice/", {"on": "1"}).status_code == 302
    assert User.objects.get(pk=cleo.pk).bot_hints is True
    again = api.get(f"/api/games/{casual.pk}/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and again.json()["advice"]["phase"] == "place"
    assert "The strong bot would" in client.get(f"/games/{casual.pk}/").content.decode()
    assert api.patch("/api/me/", {"bot_hints": False}, content_type="application/json").status_code == 200
    assert "advice" not in api.get(f"/api/games/{casual.pk}/").json()


def test_a_new_accounts_first_game_against_a_bot_is_guided_until_dismissed():
    dana = make_user("dana")
    game = bot_game(dana)
    client = logged_in(dana)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert 'id="guide"' in page and "Your first game: place your boat on the start line" in page
    against_a_person = make_game(yellow=dana, red=make_user("eve"))
    assert 'id="guide"' not in client.get(f"/games/{against_a_person.pk}/").content.decode()
    response = client.post("/guide/done/", {"next": f"/games/{game.pk}/"})
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert 'id="guide"' not in client.get(f"/games/{game.pk}/").content.decode()
    assert client.post("/guide/done/", {"next": "//evil.example/"})["Location"] == "/lobby/", "no open redirect"


def test_a_player_who_has_finished_a_game_is_not_guided():
    fay = make_user("fay")
    first = bot_game(fay)
    services.game_resign(user=fay, game_id=first.pk)
    second = bot_game(fay)
    assert 'id="guide"' not in logged_in(fay).get(f"/games/{second.pk}/").content.decode()
