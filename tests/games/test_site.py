"""The HTML site: accounts, lobby, my games, and the game page with its two-step turn."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client

from games.models import Challenge, Game
from games.state import state_of

from .factories import PASSWORD, make_game, make_user, placed_game, play_until, snapshot

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_sign_up_logs_in_and_bad_input_is_400():
    client = Client()
    response = client.post("/signup/", {"username": "newbie", "email": "n@example.com", "password1": "x",
                                        "password2": "y"})
    assert response.status_code == 400 and b"password" in response.content.lower()
    response = client.post("/signup/", {"username": "newbie", "email": "n@example.com",
                                        "password1": "a-good-pass-123", "password2": "a-good-pass-123"})
    assert response.status_code == 302 and response["Location"] == "/lobby/"
    assert client.get("/lobby/").status_code == 200


def test_the_language_a_player_signs_up_in_is_theirs_for_pages_and_emails():
    """A visitor who switched to German (the switcher's cookie) or whose browser asks for Italian
    signs up in it, and their account keeps it: their emails come in it too (a play-test found
    them in English, the account's language left blank)."""
    from accounts.models import User

    german = Client()
    german.cookies["language"] = "de"
    form = {"email": "d@example.com", "password1": "a-good-pass-123", "password2": "a-good-pass-123"}
    assert german.post("/signup/", {"username": "deutsch", **form}).status_code == 302
    italian = Client(HTTP_ACCEPT_LANGUAGE="it-IT,it;q=0.9")
    assert italian.post("/signup/", {"username": "italiano", **form, "email": "i@example.com"}).status_code == 302
    english = Client(HTTP_ACCEPT_LANGUAGE="en")
    assert english.post("/signup/", {"username": "english", **form, "email": "e@example.com"}).status_code == 302
    assert {u.username: u.language for u in User.objects.filter(username__in=["deutsch", "italiano", "english"])} == \
        {"deutsch": "de", "italiano": "it", "english": "en"}


def test_password_reset_by_email():
    make_user("ann")
    client = Client()
    assert client.post("/accounts/password_reset/", {"email": "ann@example.com"}).status_code == 302
    assert len(mail.outbox) == 1
    link = re.search(r"https?://[^/]+(/accounts/reset/\S+)", mail.outbox[0].body).group(1)
    page = client.get(link, follow=True)
    assert page.status_code == 200 and b"new password" in page.content.lower()
    set_url = page.redirect_chain[-1][0] if page.redirect_chain else link
    done = client.post(set_url, {"new_password1": "brand-new-pass-42", "new_password2": "brand-new-pass-42"})
    assert done.status_code == 302
    assert Client().login(username="ann", password="brand-new-pass-42")


def test_lobby_make_accept_and_cancel_challenges():
    ann, bob = make_user("ann"), make_user("bob")
    a, b = logged_in(ann), logged_in(bob)
    response = a.post("/lobby/", {"color": "yellow", "days_per_move": 7, "course_letter": "", "lake_side": "expert",
                                  "rated": "on", "opponent": ""})
    assert response.status_code == 302
    challenge = Challenge.objects.get()
    page = b.get("/lobby/").content.decode()
    assert f"/challenges/{challenge.pk}/accept/" in page and "expert" in page
    response = b.post(f"/challenges/{challenge.pk}/accept/")
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert game.player(0) == ann and game.lake_side == "expert" and game.days_per_move == 7
    second = a.post("/lobby/", {"color": "random", "days_per_move": 3, "lake_side": "standard", "opponent": "bob"})
    assert second.status_code == 302
    pending = Challenge.objects.get(status="open")
    assert pending.opponent == bob
    a.post(f"/challenges/{pending.pk}/cancel/")
    pending.refresh_from_db()
    assert pending.status == "cancelled"


def test_a_challenge_to_an_unknown_player_is_refused_with_the_field():
    a = logged_in(make_user("ann"))
    response = a.post("/lobby/", {"color": "random", "days_per_move": 3, "lake_side": "standard",
                                  "opponent": "ghost"})
    assert response.status_code == 400 and b"no player called" in response.content
    assert not Challenge.objects.exists()


def test_my_games_lists_games_where_it_is_your_turn_first():
    ann = make_user("ann")
    waiting = placed_game(yellow=ann, red=make_user("bob"))  # red (bob) to move
    mine = placed_game(yellow=make_user("cid"), red=ann)  # red (ann) to move
    page = logged_in(ann).get("/games/").content.decode()
    assert page.index(f"/games/{mine.pk}/") < page.index(f"/games/{waiting.pk}/")
    assert "your turn" in page


def test_placing_through_the_page():
    game = make_game()
    yellow = logged_in(game.player(0))
    page = yellow.get(f"/games/{game.pk}/").content.decode()
    assert 'id="place-form"' in page and 'class="placeable"' in page
    cells = re.findall(r'name="cell" value="([-\d,]+)"', page)
    assert len(cells) == 5
    response = yellow.post(f"/games/{game.pk}/place/", {"ply": 0, "cell": cells[1], "heading": 1})
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.ply == 1 and game.to_move == 1


def test_a_refused_move_on_the_page_shows_the_rule_and_changes_nothing():
    game = placed_game()
    red = logged_in(game.player(1))
    before = snapshot(game)
    response = red.post(f"/games/{game.pk}/roll/", {"ply": 2, "change": "keep"})
    assert response.status_code == 400
    assert b"first move is forced" in response.content and b"(R6)" in response.content
    response = red.post(f"/games/{game.pk}/roll/", {"ply": 2})
    assert response.status_code == 400 and b"change:" in response.content
    response = logged_in(game.player(0)).post(f"/games/{game.pk}/roll/", {"ply": 2, "change": "add"})
    assert response.status_code == 403
    assert snapshot(game) == before


def test_a_form_from_a_page_the_game_moved_on_from_leads_to_the_game_as_it_is_now():
    """A move sent from a tab that was not up to date (another tab played the turn, a second
    click): nothing changes, and the player lands on the game's page, told why, not on the form's
    address with "the game is at ply N" (a play-test found that jargon, and a reload re-sent the form)."""
    game = placed_game()
    red = logged_in(game.player(game.to_move))
    before = snapshot(game)
    response = red.post(f"/games/{game.pk}/roll/", {"ply": game.ply - 1, "change": "add"})
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/#board"
    assert snapshot(game) == before
    page = red.get(response["Location"]).content.decode()
    assert "The game moved on meanwhile" in page and "ply" not in page.split("The game moved on")[1][:120]


def test_the_two_step_turn_on_the_page():
    def holding_dice(g):
        seat = g.seats.get(index=g.to_move)
        return g.phase == "dice" and seat.moves >= 1 and seat.dice

    game = play_until(placed_game(), holding_dice)
    player = logged_in(game.player(game.to_move))
    page = player.get(f"/games/{game.pk}/").content.decode()
    assert 'id="dice-form"' in page and 'value="keep"' in page and 'name="reroll"' in page
    response = player.post(f"/games/{game.pk}/roll/", {"ply": game.ply, "change": "add"})
    assert response.status_code == 302
    game.refresh_from_db()
    if game.phase == "direction":
        page = player.get(f"/games/{game.pk}/").content.decode()
        assert 'id="direction-form"' in page and page.count('class="option ') == 3
        allowed = [o.direction for o in state_of(game).options() if o.allowed]
        response = player.post(f"/games/{game.pk}/direction/", {"ply": game.ply, "direction": allowed[0]})
        assert response.status_code == 302
    game.refresh_from_db()
    assert game.phase in ("dice", "over")


def test_the_board_shows_lake_buoys_chevrons_line_and_boats():
    game = play_until(placed_game(), lambda g: g.ply >= 8)
    page = Client().get(f"/games/{game.pk}/").content.decode()
    svg = page[page.index("<svg"): page.index("</svg>")]
    assert svg.count('class="water"') + svg.count('class="land"') == 21 * 12
    assert svg.count('class="line"') == 5
    for number in range(4):
        assert f'data-buoy="{number}"' in svg
    assert svg.count('class="rounding"') == 3
    # the next buoy's chevrons are shown (a class on the board), the others on hover
    assert re.search(r'<svg class="board standard( shows-[123])+"', svg) and svg.count('class="gate"') == 3
    assert 'class="boat yellow' in svg and 'class="boat red' in svg
    assert "last-path" in svg


def test_replay_shows_an_earlier_position():
    game = play_until(placed_game(), lambda g: g.moves.count() >= 6)
    client = Client()
    start = client.get(f"/games/{game.pk}/?at=0").content.decode()
    assert "after 0 of" in start and 'class="boat' not in start
    after_two = client.get(f"/games/{game.pk}/?at=2").content.decode()
    assert after_two.count('class="boat ') == 2 and "last-path" not in after_two
    board = client.get(f"/games/{game.pk}/board.svg?at=3")
    assert board.status_code == 200 and board["Content-Type"] == "image/svg+xml"


def test_resign_with_confirmation_and_the_finished_page():
    game = play_until(placed_game(), lambda g: g.moves.count() >= 5)
    yellow = logged_in(game.player(0))
    assert b"resign this game" in yellow.get(f"/games/{game.pk}/resign/").content
    assert yellow.post(f"/games/{game.pk}/resign/", {}).status_code == 400
    game.refresh_from_db()
    assert not game.over
    assert yellow.post(f"/games/{game.pk}/resign/", {"confirm": "on"}).status_code == 302
    page = Client().get(f"/games/{game.pk}/").content.decode()
    assert "won" in page and "Yellow resigned" in page
    assert game.dice_seed in page.replace("\n", "")
    game.refresh_from_db()
    assert 'class="points"' in page and f'data-damage="{game.seats.get(index=0).damage}"' in page


def test_profile_and_record_download():
    game = play_until(placed_game(), lambda g: False)
    page = Client().get(f"/players/{game.player(0).username}/")
    assert page.status_code == 200 and f"/games/{game.pk}/".encode() in page.content
    record = Client().get(f"/games/{game.pk}/record.json").json()
    assert record["result"]["reason"] == game.result_reason
    assert Client().get("/players/nobody/").status_code == 404


def test_settings_name_the_language_left_to_the_browser():
    """No language set: the choice says what that means, not "---------"."""
    client = logged_in(make_user("nolang"))
    page = client.get("/settings/").content.decode()
    assert '<option value="" selected>your browser&#x27;s (emails in English)</option>' in page
    assert "---------" not in page.split('name="language"')[1].split("</select>")[0]


def test_the_sign_up_form_asks_the_browser_for_a_name_of_3_to_30_characters():
    """The hint says 3 to 30 characters; the field let a browser take 150 (the column's length)."""
    page = Client().get("/signup/").content.decode()
    field = re.search(r'<input[^>]*name="username"[^>]*>', page).group()
    assert 'maxlength="30"' in field and 'minlength="3"' in field
