"""The rules pages (/rules/) and the home page: each worked example is what the engine does
(its caption's claims are checked here), the pages answer in English, German and Italian,
and a visitor is playing the computer two clicks after the sign-up form."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.test import Client, RequestFactory
from django.utils import timezone, translation

from games.board import SIZE
from games.engine import Termination
from games.engine.hexgrid import DIRECTION_NAMES, pixel
from games.models import Game
from games.rules_examples import SPECS, examples, legend, play, welcome_board
from games.views import rules_page
from tournaments import services as tournament_services

from .factories import make_user, placed_game

SVG = "{http://www.w3.org/2000/svg}"


def boat_at(svg: str, color: str) -> tuple[float, float]:
    """Where the board draws a boat (the translate of its group)."""
    root = ET.fromstring(svg)
    for g in root.iter(f"{SVG}g"):
        if g.get("class", "").split()[:2] == ["boat", color]:
            x, y = re.match(r"translate\(([-\d.]+),([-\d.]+)\)", g.get("transform", "")).groups()
            return float(x), float(y)
    raise AssertionError(f"no {color} boat drawn")


def drawn_options(svg: str) -> dict[str, set[str]]:
    root = ET.fromstring(svg)
    return {DIRECTION_NAMES[int(g.get("data-direction"))]: set(g.get("class").split())
            for g in root.iter(f"{SVG}g") if "option" in g.get("class", "").split()}


def near(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return abs(a[0] - b[0]) < 0.11 and abs(a[1] - b[1]) < 0.11


# --- the examples are the engine's ---------------------------------------------------------


def test_every_example_is_played_and_drawn():
    """Every example of the page exists, its boards are SVG, the mover is drawn where the engine
    left it and the first turn's three directions are drawn as the engine previews them (R7)."""
    found = examples()
    assert list(found) == ["turn", "crash", "pass", "stop", "round", "wrong", "finish"]
    for ex in found.values():
        mover = ex.move.color
        assert all(m.color == mover for m in ex.moves)
        assert near(boat_at(ex.after_svg, mover), pixel(ex.last.final, SIZE))
        assert near(boat_at(ex.before_svg, mover), pixel(ex.move.start, SIZE))
        options = drawn_options(ex.before_svg)
        assert set(options) == {o.name for o in ex.options}
        for o in ex.options:
            assert ("allowed" in options[o.name]) == o.allowed
            assert ("crash" in options[o.name]) == o.crash
        assert drawn_options(ex.after_svg) == {}
        # the previews were made with the total the first turn really rolled
        assert {o.total for o in ex.options} == {ex.move.total}


def test_the_examples_replay_the_same_way():
    """Played again from their specs, the examples give the same moves: they depend on code only."""
    for spec in SPECS:
        assert play(spec).moves == examples()[spec.key].moves


def test_turning_to_avoid_a_crash():
    """R7: 3 1 3 = 7; straight on reaches 6 (a crash), left 0, right all 7: only right is allowed."""
    ex = examples()["turn"]
    by = ex.by_turn
    assert ex.move.dice == (3, 1, 3) and ex.move.total == 7
    assert (by["straight"].reach, by["left"].reach, by["right"].reach) == (6, 0, 7)
    assert [o.turn for o in ex.options if o.allowed] == ["right"]
    assert by["straight"].crash and by["straight"].damage == 1
    assert ex.move.auto and not ex.move.crash and ex.move.final == ex.marks["*"]
    assert ex.boat("yellow").heading == ex.move.direction == by["right"].direction


def test_a_crash_and_its_damage():
    """R7, R9: 3 2 = 5, the longest way is 3 to the right: 2 damage, 1 + 2 = 3 in all, dice lost."""
    ex = examples()["crash"]
    by = ex.by_turn
    assert sorted(ex.move.dice) == [2, 3] and ex.move.total == 5
    assert max(o.reach for o in ex.options) == by["right"].reach == ex.move.reach == 3
    assert ex.move.direction == by["right"].direction and ex.move.auto
    assert ex.move.crash and ex.move.damage == 2 and ex.move.damage_total == 3
    assert ex.before.boat.damage == 1
    red = ex.boat("red")
    assert red.damage == 3 and red.dice == () and not red.sunk
    assert ex.move.final == ex.marks["*"]


def test_passing_through_the_other_boat():
    """R8: Yellow sails 5 straight on through Red's cell; no crash."""
    ex = examples()["pass"]
    red_cell = ex.boat("red", ex.before).cell
    assert red_cell in ex.move.path and ex.move.final != red_cell
    assert ex.move.reach == ex.move.total == len(ex.move.path) == 5
    assert not ex.move.crash and ex.move.final == ex.marks["*"]
    assert ex.move.direction == ex.by_turn["straight"].direction


def test_stopping_short_of_a_boat():
    """R8: Red's third cell is Yellow's: it stops after 2, with no damage and its dice kept."""
    ex = examples()["stop"]
    yellow = ex.boat("yellow", ex.before).cell
    assert ex.move.reach == ex.move.total == 3 and len(ex.move.path) == 2
    assert yellow not in ex.move.path and ex.move.final == ex.marks["*"]
    assert not ex.move.crash and ex.move.damage == 0 and ex.boat("red").dice == (2, 1)
    assert ex.move.auto and ex.by_turn["straight"].reach == ex.by_turn["left"].reach == 0


def test_rounding_a_buoy_through_its_gate():
    """R4, R10: crossing buoy 1's chevrons (east of it, rounded leftward) from south to north."""
    ex = examples()["round"]
    gate = ex.course.gates[0]
    assert gate.direction == DIRECTION_NAMES.index("E") and gate.sense.value == "ccw"
    assert any(c in gate.cells for c in ex.move.path)
    assert gate.side(ex.move.start) == gate.scoring_from == -1 and gate.side(ex.move.final) == 1
    assert ex.move.rounded == (1,) and ex.boat("yellow").next_buoy == 2
    assert 'class="board' in ex.after_svg and "shows-2" in ex.after_svg.split(">", 1)[0]


def test_the_wrong_way_does_not_round_the_buoy():
    """R10: the wrong way counts -1; coming back across the right way makes it 0, not rounded."""
    ex = examples()["wrong"]
    gate = ex.course.gates[0]
    first = ex.states[0].boats[ex.states[0].seat_of("yellow")]
    assert any(c in gate.cells for c in ex.moves[0].path)
    assert gate.side(ex.moves[0].start) == 1 and gate.side(ex.moves[0].final) == -1
    assert first.count == -1 and first.next_buoy == 1
    assert any(c in gate.cells for c in ex.last.path) and gate.side(ex.last.final) == 1
    yellow = ex.boat("yellow")
    assert yellow.count == 0 and yellow.next_buoy == 1
    assert all(m.rounded == () for m in ex.moves) and len(ex.moves) == 3


def test_finishing():
    """R11, R14: after buoy 3, entering the line finishes; the game is over and Yellow has 4 points."""
    ex = examples()["finish"]
    assert ex.before.boat.next_buoy == 4
    assert ex.move.finished and ex.move.final in ex.course.line
    outcome = ex.after.outcome
    assert outcome is not None and outcome.termination is Termination.FINISH
    assert ex.after.boats[outcome.winner].color == "yellow" and ex.boat("yellow").points == 4


def test_the_legend_shows_each_part_of_the_board():
    swatches = legend()
    assert set(swatches) == {"water", "land", "line", "start", "buoy", "gate", "finish", "yellow", "red"}
    for svg in swatches.values():
        root = ET.fromstring(svg)
        assert "swatch" in root.get("class") and root.get("aria-hidden") == "true"
    assert ET.fromstring(welcome_board()).tag == f"{SVG}svg"


# --- the pages ---------------------------------------------------------------------------

HEADINGS = {
    "en": "The rules of Powerboats, as played here",
    "de": "Die Regeln von Powerboats, wie sie hier gelten",
    "it": "Il regolamento di Powerboats, come si gioca qui",
}
# one caption sentence per language with numbers the engine computed (the crash example)
CRASH = {
    "en": "after 3 cells: 2 damage",
    "de": "nach 3 Feldern auf die Insel: 2 Schaden",
    "it": "dopo 3 caselle: 2 danni",
}


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", "de", "it"])
def test_the_rules_page_in_each_language(client, lang):
    page = client.get(f"/rules/?lang={lang}")
    assert page.status_code == 200
    html = page.content.decode()
    assert HEADINGS[lang] in html
    for other, heading in HEADINGS.items():
        if other != lang:
            assert heading not in html
    assert f'<article class="rules" lang="{lang}">' in html
    assert CRASH[lang] in " ".join(html.split())
    for key in examples():
        assert f'data-example="{key}"' in html
    assert html.count("<svg") >= 2 * len(examples()) + len(legend())
    # every ruling of the online game is stated (R1-R14)
    for n in range(1, 15):
        assert f'<b class="ruling">R{n}</b>' in html, f"R{n} is missing in {lang}"


def test_the_rules_page_follows_the_active_language():
    """Without ?lang= the page is in the active language (the user's, or the browser's)."""
    request = RequestFactory().get("/rules/")
    from django.contrib.auth.models import AnonymousUser

    request.user = AnonymousUser()
    for lang, heading in HEADINGS.items():
        with translation.override(lang):
            assert heading in rules_page(request).content.decode()
    with translation.override("fr"):  # not written: English
        assert HEADINGS["en"] in rules_page(request).content.decode()


@pytest.mark.django_db
def test_an_unknown_language_is_refused(client):
    page = client.get("/rules/?lang=xx")
    assert page.status_code == 400
    assert b"lang:" in page.content and b"en, de, it" in page.content


@pytest.mark.django_db
def test_the_rules_are_linked_from_the_menu_and_the_game_page(client):
    game = placed_game()
    assert b'href="/rules/"' in client.get("/").content
    assert b'href="/rules/"' in client.get(f"/games/{game.pk}/").content


# --- the home page -------------------------------------------------------------------------


@pytest.mark.django_db
def test_home_for_a_visitor_shows_a_lake_live_games_and_the_next_tournaments(client, django_assert_max_num_queries):
    game = placed_game()
    director = make_user("director")
    now = timezone.now()
    swiss = tournament_services.tournament_create(
        director=director, name="Winter Swiss", rounds=3, registration_closes_at=now + timedelta(days=3),
        starts_at=now + timedelta(days=4), min_players=2)
    with django_assert_max_num_queries(4):
        page = client.get("/")
    html = page.content.decode()
    assert page.status_code == 200
    assert '<svg class="board standard' in html  # a real lake, drawn by the site
    assert 'id="play-now" href="/signup/?then=bot"' in html
    assert f'href="/games/{game.pk}/"' in html and "yvonne (Yellow) v roland (Red)" in html
    assert f'href="/tournaments/{swiss.pk}/"' in html and "Winter Swiss" in html
    assert 'href="/rules/"' in html


class Forms(HTMLParser):
    """The forms of a page: action, the fields a browser would send (hidden inputs, checked boxes,
    text inputs as given) and the submit buttons with their name and value."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"action": a.get("action", ""), "id": a.get("id"), "fields": {}, "buttons": []})
        elif self.forms and tag == "input":
            kind = a.get("type", "text")
            if kind == "checkbox" and "checked" not in a:
                return
            if a.get("name"):
                self.forms[-1]["fields"][a["name"]] = a.get("value", "on" if kind == "checkbox" else "")
        elif self.forms and tag == "button" and a.get("type", "submit") == "submit":
            self.forms[-1]["buttons"].append((a.get("name"), a.get("value")))


def forms_of(html: str) -> list[dict]:
    parser = Forms()
    parser.feed(html)
    return parser.forms


@pytest.mark.django_db
def test_a_visitor_plays_the_computer_two_clicks_after_the_sign_up_form():
    """Home -> "Play the computer now" -> sign-up form. Click 1 sends the form, and the page it
    lands on has a play-the-computer button; click 2 starts the game against a house bot."""
    client = Client()
    home = client.get("/").content.decode()
    signup_url = re.search(r'id="play-now" href="([^"]+)"', home).group(1)
    form = next(f for f in forms_of(client.get(signup_url).content.decode()) if f["fields"].get("csrfmiddlewaretoken"))
    fields = {**form["fields"], "username": "newcomer", "email": "newcomer@example.com",
              "password1": "sea-spray-and-salt-42", "password2": "sea-spray-and-salt-42"}
    landed = client.post(signup_url, fields, follow=True)  # click 1
    assert landed.status_code == 200 and landed.redirect_chain == [("/#play-bot", 302)]
    # the welcome points at the button the visitor came for, not away to the lobby (issue 24)
    welcome = landed.content.decode()
    assert "Your game against the computer is one click away" in welcome and "Challenge someone" not in welcome
    assert 'id="play-bot"' in welcome
    play = next(f for f in forms_of(landed.content.decode()) if f["action"] == "/lobby/bot/")
    name, value = next(b for b in play["buttons"] if b[1] == "normal")
    started = client.post(play["action"], {**play["fields"], name: value})  # click 2
    game = Game.objects.get()
    assert started.status_code == 302 and started["Location"] == f"/games/{game.pk}/"
    assert game.player(0).username == "newcomer" or game.player(1).username == "newcomer"
    assert {game.player(0).username, game.player(1).username} == {"newcomer", "bot-normal"}
    assert client.get(started["Location"]).status_code == 200


@pytest.mark.django_db
def test_a_signed_in_player_starts_a_bot_game_from_the_home_page(client):
    make_user("ann")
    client.login(username="ann", password="a-long-test-password-1")
    html = client.get("/").content.decode()
    assert "Your turn" in html
    play = next(f for f in forms_of(html) if f["action"] == "/lobby/bot/")
    assert sorted(v for _, v in play["buttons"]) == ["easy", "normal", "strong"]
    started = client.post(play["action"], {**play["fields"], "level": "easy"})
    game = Game.objects.get()
    assert started["Location"] == f"/games/{game.pk}/" and game.rated
    assert "bot-easy" in {game.player(0).username, game.player(1).username}


@pytest.mark.django_db
def test_home_lists_games_under_way_and_tournaments_taking_players_soonest_first():
    from games.selectors import live_games
    from tournaments import services_formats
    from tournaments.models import Tournament
    from tournaments.selectors import upcoming_events

    from .factories import make_game

    placing = make_game(yellow=make_user("ann"), red=make_user("bob"))  # still placing: not shown
    moving = placed_game()
    assert [g.pk for g in live_games()] == [moving.pk] and placing.pk not in [g.pk for g in live_games()]
    now = timezone.now()
    director = make_user("director")
    later = tournament_services.tournament_create(
        director=director, name="Later Swiss", rounds=3, registration_closes_at=now + timedelta(days=8),
        starts_at=now + timedelta(days=9), min_players=2)
    soon = services_formats.round_robin_create(
        director=director, name="Soon round-robin", registration_closes_at=now + timedelta(days=1),
        starts_at=now + timedelta(days=2))
    running = tournament_services.tournament_create(
        director=director, name="Running Swiss", rounds=3, registration_closes_at=now + timedelta(days=1),
        starts_at=now + timedelta(days=1), min_players=2)
    Tournament.objects.filter(pk=running.pk).update(status=Tournament.Status.RUNNING)
    events = upcoming_events()
    assert [(e.name, e.kind, e.url) for e in events] == [
        ("Soon round-robin", "round-robin", f"/round-robins/{soon.pk}/"),
        ("Later Swiss", "swiss", f"/tournaments/{later.pk}/"),
    ]
