"""The REST API: every endpoint, and bad input that gets a clear 4xx and changes nothing."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games.engine.record import verify
from games.models import Challenge, Game
from games.state import state_of

from .factories import PASSWORD, make_user, placed_game, play_until, snapshot

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    token = APIClient().post("/api/token/", {"username": user.username, "password": PASSWORD}, format="json")
    assert token.status_code == 200, token.content
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    return client


def test_token_with_a_wrong_password_is_refused():
    user = make_user("ann")
    response = APIClient().post("/api/token/", {"username": user.username, "password": "nope"}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid"


def test_challenges_list_create_accept_and_the_game_starts():
    ann, bob = make_user("ann"), make_user("bob")
    a, b = client_for(ann), client_for(bob)
    made = a.post("/api/challenges/", {"color": "yellow", "days_per_move": 2, "course_letter": "C"}, format="json")
    assert made.status_code == 201, made.content
    challenge = made.json()
    assert challenge["created_by"] == "ann" and challenge["status"] == "open"
    listed = APIClient().get("/api/challenges/").json()
    assert [c["id"] for c in listed] == [challenge["id"]]
    accepted = b.post(f"/api/challenges/{challenge['id']}/accept/")
    assert accepted.status_code == 201
    game = accepted.json()
    assert game["yellow"] == "ann" and game["red"] == "bob" and game["phase"] == "place"
    mine = a.get("/api/games/").json()
    assert mine["results"][0]["id"] == game["id"] and mine["results"][0]["your_turn"] is True
    assert b.get("/api/games/").json()["results"][0]["your_turn"] is False


def test_cancel_and_decline():
    ann, bob = make_user("ann"), make_user("bob")
    a, b = client_for(ann), client_for(bob)
    one = a.post("/api/challenges/", {"opponent": "bob"}, format="json").json()
    assert b.delete(f"/api/challenges/{one['id']}/").status_code == 403
    assert b.post(f"/api/challenges/{one['id']}/decline/").json()["status"] == "declined"
    two = a.post("/api/challenges/", {}, format="json").json()
    assert a.delete(f"/api/challenges/{two['id']}/").json()["status"] == "cancelled"
    again = b.post(f"/api/challenges/{two['id']}/accept/")
    assert again.status_code == 409 and again.json()["code"] == "conflict"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"color": "green"}, "color"),
        ({"days_per_move": "soon"}, "days_per_move"),
        ({"days_per_move": 4}, "days_per_move"),
        ({"course_letter": "Z"}, "course_letter"),
        ({"lake_side": 3}, "lake_side"),
        ({"opponent": "nobody-here"}, "opponent"),
        ({"rated": "perhaps"}, "rated"),
    ],
)
def test_bad_challenges_name_the_field_and_make_nothing(body, field):
    a = client_for(make_user("ann"))
    response = a.post("/api/challenges/", body, format="json")
    assert response.status_code == 400
    error = response.json()
    assert error["code"] == "invalid" and error["field"] == field and field in error["message"]
    assert not Challenge.objects.exists()


def test_a_token_is_read_with_its_player_and_refused_when_unknown_or_the_player_is_inactive():
    """powerboats_site/api_auth.py reads the token and its player in one query put together
    once per process; it answers as DRF's TokenAuthentication does."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    user = make_user("ann")
    client = client_for(user)
    with CaptureQueriesContext(connection) as queries:
        me = client.get("/api/games/")
    assert me.status_code == 200
    reads = [q["sql"] for q in queries.captured_queries if "authtoken_token" in q["sql"]]
    assert len(reads) == 1 and "JOIN" in reads[0]
    unknown = APIClient(HTTP_AUTHORIZATION="Token " + "0" * 40).get("/api/games/")
    assert unknown.status_code == 401 and unknown.json()["code"] == "authentication_failed"
    user.is_active = False
    user.save(update_fields=["is_active"])
    gone = client.get("/api/games/")
    assert gone.status_code == 401 and gone.json()["code"] == "authentication_failed"


def test_reading_needs_no_login_but_acting_does():
    game = placed_game()
    assert APIClient().get(f"/api/games/{game.pk}/").status_code == 200
    assert APIClient().get("/api/games/").status_code == 401
    response = APIClient().post(f"/api/games/{game.pk}/roll/", {"ply": 2, "change": "add"}, format="json")
    assert response.status_code == 401 and response.json()["code"] == "not_authenticated"


def test_a_whole_turn_through_the_api():
    game = placed_game()
    red = client_for(game.player(1))
    state = red.get(f"/api/games/{game.pk}/").json()
    assert state["your_turn"] and state["phase"] == "dice"
    assert state["dice_options"]["first_move"] is True
    assert [c["change"] for c in state["dice_options"]["choices"]] == ["add"]
    rolled = red.post(f"/api/games/{game.pk}/roll/", {"ply": 2, "change": "add", "reroll": []}, format="json")
    assert rolled.status_code == 200, rolled.content
    body = rolled.json()
    assert len(body["rolled"]) == 1 and 1 <= body["rolled"][0] <= 3
    if body["move"] is None:
        options = red.get(f"/api/games/{game.pk}/").json()["options"]
        assert len(options) == 3 and {"reach", "crash", "damage", "rounded", "finishes", "path"} <= set(options[0])
        allowed = [o for o in options if o["allowed"]]
        moved = red.post(f"/api/games/{game.pk}/direction/", {"ply": body["ply"], "direction": allowed[0]["name"]},
                         format="json")
        assert moved.status_code == 200, moved.content
        body = moved.json()
    assert body["move"]["color"] == "red" and body["to_move"] == "yellow"
    assert body["move"]["notation"].startswith("1R + ")
    record = red.get(f"/api/games/{game.pk}/record/").json()
    assert verify(record).ok and record["meta"]["dice"]["seed"] is None


def _at_direction(game):
    """Play until the player to move has rolled and must choose among several directions."""
    return play_until(game, lambda g: g.phase == "direction")


def test_illegal_direction_says_which_are_allowed_and_why_and_changes_nothing():
    game = _at_direction(placed_game())
    client = client_for(game.player(game.to_move))
    state = state_of(game)
    refused = [o for o in state.options() if not o.allowed]
    behind = (state.boat.heading + 3) % 6
    before = snapshot(game)
    response = client.post(f"/api/games/{game.pk}/direction/", {"ply": game.ply, "direction": behind}, format="json")
    assert response.status_code == 400
    error = response.json()
    assert error["code"] == "illegal_move" and error["rule"] == "R7" and error["field"] == "direction"
    assert "60°" in error["message"]
    if refused:
        response = client.post(f"/api/games/{game.pk}/direction/", {"ply": game.ply, "direction": refused[0].direction},
                               format="json")
        assert response.status_code == 400 and "Allowed:" in response.json()["message"]
    assert snapshot(game) == before


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("roll", {"change": "add"}, "ply"),
        ("roll", {"ply": "two", "change": "add"}, "ply"),
        ("roll", {"ply": 2}, "change"),
        ("roll", {"ply": 2, "change": "double"}, "change"),
        ("roll", {"ply": 2, "change": "add", "reroll": "all"}, "reroll"),
        ("roll", {"ply": 2, "change": "keep"}, "change"),  # R6: the first move must add a die
        ("roll", {"ply": 2, "change": "add", "reroll": [0]}, "change"),
        ("roll", {"ply": 2, "change": "remove", "remove": 0}, "change"),
        ("direction", {"ply": 2, "direction": 0}, "direction"),  # not rolled yet
        ("direction", {"ply": 2, "direction": "north"}, "direction"),
        ("place", {"ply": 2, "cell": [0, 0], "heading": 0}, "cell"),
        ("place", {"ply": 2, "cell": "here", "heading": 0}, "cell"),
        ("place", {"ply": 2, "cell": [1, 2], "heading": 9}, "heading"),
    ],
)
def test_bad_moves_get_a_400_naming_the_field_and_change_nothing(path, body, field):
    game = placed_game()
    red = client_for(game.player(1))
    before = snapshot(game)
    response = red.post(f"/api/games/{game.pk}/{path}/", body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()
    assert error["field"] == field and error["message"]
    assert snapshot(game) == before


def test_someone_elses_game_is_403_and_a_stale_ply_409():
    game = placed_game()
    stranger = client_for(make_user("stranger"))
    yellow = client_for(game.player(0))
    before = snapshot(game)
    response = stranger.post(f"/api/games/{game.pk}/roll/", {"ply": 2, "change": "add"}, format="json")
    assert response.status_code == 403 and response.json()["code"] == "not_a_player"
    response = yellow.post(f"/api/games/{game.pk}/roll/", {"ply": 2, "change": "add"}, format="json")
    assert response.status_code == 403 and response.json()["code"] == "not_your_turn"
    response = client_for(game.player(1)).post(f"/api/games/{game.pk}/roll/", {"ply": 1, "change": "add"}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "stale_ply"
    assert stranger.post("/api/games/99999/roll/", {"ply": 2, "change": "add"}, format="json").status_code == 404
    assert snapshot(game) == before


def test_resign_needs_confirmation_and_a_finished_game_is_409():
    game = placed_game()
    yellow = client_for(game.player(0))
    before = snapshot(game)
    response = yellow.post(f"/api/games/{game.pk}/resign/", {}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "confirm"
    assert snapshot(game) == before
    response = yellow.post(f"/api/games/{game.pk}/resign/", {"confirm": True}, format="json")
    assert response.status_code == 200 and response.json()["result"]["winner"] == "red"
    after = snapshot(game)
    response = client_for(game.player(1)).post(f"/api/games/{game.pk}/roll/", {"ply": game.ply + 1, "change": "add"},
                                         format="json")
    assert response.status_code == 409 and response.json()["code"] == "game_over"
    assert snapshot(game) == after
    detail = APIClient().get(f"/api/games/{game.pk}/").json()
    assert detail["status"] == "finished" and detail["dice_seed"] is not None


def test_idempotency_key_header_returns_the_first_answer():
    game = placed_game()
    red = client_for(game.player(1))
    first = red.post(f"/api/games/{game.pk}/roll/", {"ply": 2, "change": "add"}, format="json", HTTP_IDEMPOTENCY_KEY="abc")
    again = red.post(f"/api/games/{game.pk}/roll/", {"ply": 2, "change": "add"}, format="json", HTTP_IDEMPOTENCY_KEY="abc")
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    game.refresh_from_db()
    assert game.ply == first.json()["ply"]


def test_placing_through_the_api():
    from .factories import make_game

    game = make_game()
    line = game.course.data["course"]["start_finish_cells"]
    yellow = client_for(game.player(0))
    state = yellow.get(f"/api/games/{game.pk}/").json()
    assert state["placements"]["cells"] == line
    response = yellow.post(f"/api/games/{game.pk}/place/", {"ply": 0, "cell": line[1], "heading": 2}, format="json")
    assert response.status_code == 200 and response.json()["to_move"] == "red"
    taken = client_for(game.player(1)).post(f"/api/games/{game.pk}/place/", {"ply": 1, "cell": line[1], "heading": 2},
                                      format="json")
    assert taken.status_code == 400 and taken.json()["rule"] == "R5"


def test_schema_and_docs():
    schema = APIClient().get("/api/schema/")
    assert schema.status_code == 200
    text = schema.content.decode()
    for path in ("/api/games/{game_id}/roll/", "/api/challenges/", "/api/games/{game_id}/direction/"):
        assert path in text
    docs = APIClient().get("/api/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()
    assert Game.objects.count() == 0
