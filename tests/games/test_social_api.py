"""The API of the social features (issue 13): chat, mute, report, rematch, next game, watch,
player search — with the permission cases and refusals that change nothing."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from games import services
from games.models import Challenge, Game
from games.social import services as social
from games.social.models import ChatMessage, ChatMute, ChatReport

from .factories import make_game, make_user, placed_game

pytestmark = pytest.mark.django_db


def api(user=None) -> Client:
    if user is None:
        return Client()
    return Client(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")


def post(client: Client, url: str, body=None):
    return client.post(url, body if body is not None else {}, "application/json")


def test_chat_through_the_api():
    game = make_game()
    answer = post(api(game.player(0)), f"/api/games/{game.pk}/chat/", {"text": "hello <b>red</b>"})
    assert answer.status_code == 201 and answer.json()["text"] == "hello <b>red</b>"
    assert answer.json()["user"] == game.player(0).username
    read = api().get(f"/api/games/{game.pk}/chat/").json()  # anyone reads
    assert [line["text"] for line in read["lines"]] == ["hello <b>red</b>"]
    assert read["can_write"] is False and read["muted"] is False
    assert api(game.player(1)).get(f"/api/games/{game.pk}/chat/").json()["can_write"] is True


@pytest.mark.parametrize("body, field", [
    ({"text": ""}, "text"), ({"text": "a\u0007b"}, "text"), ({"text": "x" * 501}, "text"), ({"text": 12}, "text"),
    ({}, "text"), ({"text": "ok", "extra": 1}, None),
])
def test_bad_chat_bodies_are_refused_naming_the_field(body, field):
    game = make_game()
    answer = post(api(game.player(0)), f"/api/games/{game.pk}/chat/", body)
    if field is None:  # unknown keys are ignored, as everywhere in the API
        assert answer.status_code == 201
        return
    assert answer.status_code == 400 and answer.json()["field"] == field
    assert ChatMessage.objects.count() == 0


def test_a_spectator_cannot_chat_mute_report_or_rematch():
    game = placed_game()
    line = social.chat_post(user=game.player(1), game_id=game.pk, text="hi")
    services.game_resign(user=game.player(1), game_id=game.pk)
    sam = api(make_user("sam"))
    assert post(sam, f"/api/games/{game.pk}/chat/", {"text": "me"}).json()["code"] == "not_a_player"
    assert post(sam, f"/api/games/{game.pk}/chat/mute/", {"muted": True}).status_code == 403
    assert post(sam, f"/api/games/{game.pk}/chat/{line.pk}/report/").status_code == 403
    assert post(sam, f"/api/games/{game.pk}/rematch/").status_code == 403
    assert post(api(), f"/api/games/{game.pk}/chat/", {"text": "anon"}).status_code == 401
    assert ChatMessage.objects.count() == 1 and not ChatMute.objects.exists() and not ChatReport.objects.exists()
    assert not Challenge.objects.filter(rematch_of=game).exists()


def test_mute_and_report_through_the_api():
    game = make_game()
    line = social.chat_post(user=game.player(1), game_id=game.pk, text="rude")
    yellow = api(game.player(0))
    assert post(yellow, f"/api/games/{game.pk}/chat/mute/", {"muted": 1}).status_code == 400  # a JSON boolean only
    assert post(yellow, f"/api/games/{game.pk}/chat/mute/", {"muted": True}).json() == {"muted": True}
    read = yellow.get(f"/api/games/{game.pk}/chat/").json()
    assert read["lines"] == [] and read["muted"] is True
    report = post(yellow, f"/api/games/{game.pk}/chat/{line.pk}/report/", {"reason": "rude"})
    assert report.status_code == 201 and report.json()["message"] == line.pk
    assert post(yellow, f"/api/games/{game.pk}/chat/{line.pk}/report/").status_code == 409
    assert post(yellow, f"/api/games/{game.pk + 1}/chat/{line.pk}/report/").status_code == 404


def test_rematch_through_the_api():
    game = placed_game()
    early = post(api(game.player(1)), f"/api/games/{game.pk}/rematch/")
    assert early.status_code == 409 and early.json()["code"] == "conflict"
    services.game_resign(user=game.player(1), game_id=game.pk)
    offer = post(api(game.player(1)), f"/api/games/{game.pk}/rematch/")
    assert offer.status_code == 201 and offer.json()["game"] is None
    challenge = offer.json()["challenge"]
    assert challenge["opponent"] == game.player(0).username and challenge["color"] == "yellow"
    started = post(api(game.player(0)), f"/api/challenges/{challenge['id']}/accept/")
    assert started.status_code == 201
    assert (started.json()["yellow"], started.json()["red"]) == (game.player(1).username, game.player(0).username)


def test_next_game_watch_and_player_search():
    me = make_user("mia")
    assert api(me).get("/api/games/next/").json() == {"game": None}
    mine = make_game(yellow=me, red=make_user("oleg"))
    answer = api(me).get("/api/games/next/").json()
    assert answer["game"]["id"] == mine.pk and answer["game"]["your_turn"] is True
    assert api().get("/api/games/next/").status_code == 401
    watch = api().get("/api/games/watch/").json()
    assert [g["id"] for g in watch["results"]] == [mine.pk]
    assert api().get("/api/games/watch/?page=x").status_code == 400
    Game.objects.filter(pk=mine.pk).update(status=Game.Status.FINISHED)
    assert api().get("/api/games/watch/").json()["results"] == []
    found = api().get("/api/players/?q=MI").json()
    assert found == [{"username": "mia", "is_bot": False}]
    assert api().get("/api/players/?q=m%D1%96a").json() == [{"username": "mia", "is_bot": False}]  # Cyrillic і
    for bad in ("", "?q=", "?q=a&q=b", "?q=" + "x" * 31, "?q=a%07"):
        answer = api().get("/api/players/" + bad)
        assert answer.status_code == 400 and answer.json()["field"] == "q", bad


def test_the_schema_documents_the_new_operations():
    schema = api().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    for route in ("/api/games/{game_id}/chat/", "/api/games/{game_id}/chat/mute/",
                  "/api/games/{game_id}/chat/{message_id}/report/", "/api/games/{game_id}/rematch/",
                  "/api/games/next/", "/api/games/watch/", "/api/players/"):
        assert route in schema["paths"], route
    assert "403" in schema["paths"]["/api/games/{game_id}/chat/"]["post"]["responses"]
    assert "409" in schema["paths"]["/api/games/{game_id}/rematch/"]["post"]["responses"]


def test_game_lists_say_won_lost_or_draw_from_your_side():
    game = placed_game()
    services.game_resign(user=game.player(1), game_id=game.pk)
    assert api(game.player(0)).get("/api/games/").json()["results"][0]["your_result"] == "won"
    assert api(game.player(1)).get("/api/games/").json()["results"][0]["your_result"] == "lost"
    going = make_game(yellow=make_user("y2"), red=make_user("r2"))
    assert api().get("/api/games/watch/").json()["results"][0] == {**api().get("/api/games/watch/").json()[
        "results"][0], "id": going.pk, "your_result": None}
