"""Placing a boat (issue 24): the start cells carry on the board the numbers the placing form
names them by, and the boat to be placed is previewed on the chosen cell with the chosen heading
(static/js/place.js; the browser test below)."""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client

from games import services as svc
from games.state import playing

from .factories import make_game, make_user

pytestmark = pytest.mark.django_db

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def board_numbers(html: str) -> dict[str, str]:
    """value "q,r" → the number drawn on that cell, checked against its tooltip."""
    cells = re.findall(r'<polygon class="placeable" points="[^"]*" data-q="(-?\d+)" data-r="(-?\d+)" '
                       r'data-x="([-\d.]+)" data-y="([-\d.]+)" tabindex="0"><title>start cell (\d+)</title>', html)
    texts = {(x, y): n for x, y, n in re.findall(
        r'<text class="start-number" x="([-\d.]+)" y="([-\d.]+)"[^>]*>(\d+)</text>', html)}
    numbers = {}
    for q, r, x, y, n in cells:
        assert texts[(x, y)] == n, "the number on the cell is the one in its tooltip"
        numbers[f"{q},{r}"] = n
    return numbers


def form_numbers(html: str) -> dict[str, str]:
    return dict(re.findall(r'name="cell" value="([-\d,]+)" required> start cell (\d+)</label>', html))


def test_the_game_board_numbers_the_start_cells_as_the_form_does() -> None:
    game = make_game()
    html = logged_in(game.player(0)).get(f"/games/{game.pk}/").content.decode()
    numbers = board_numbers(html)
    assert len(numbers) == 5 and numbers == form_numbers(html)
    assert sorted(numbers.values()) == ["1", "2", "3", "4", "5"]
    # the boat to be placed: hidden until a cell is chosen, in the player's colour
    assert re.search(r'<g class="place-preview" display="none"[^>]*><polygon points="[^"]+" fill="#f2c12e"', html)
    assert "js/place.js" in html


def test_a_taken_start_cell_keeps_the_numbers_of_the_others() -> None:
    game = make_game()
    line = game.course.data["course"]["start_finish_cells"]
    from games import services

    services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[1]), heading=0)
    html = logged_in(game.player(1)).get(f"/games/{game.pk}/").content.decode()
    numbers = board_numbers(html)
    assert sorted(numbers.values()) == ["1", "3", "4", "5"] and numbers == form_numbers(html)
    assert 'fill="#d64541"' in html.split('class="place-preview"', 1)[1][:300], "Red's boat previewed"


def test_the_series_board_and_form_number_the_start_cells() -> None:
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    series = svc.game_open(user=users[0], seats=3)
    svc.game_join(user=users[1], game_id=series.pk)
    svc.game_join(user=users[2], game_id=series.pk, rng=random.Random(16))
    series.refresh_from_db()
    mover = playing(list(series.seats.select_related("user")))[series.to_move].user
    client = Client()
    client.force_login(mover)
    html = client.get(f"/games/{series.pk}/").content.decode()
    numbers = board_numbers(html)
    assert len(numbers) >= 3 and numbers == form_numbers(html), "not axial coordinates any more"
    assert "js/place.js" in html


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_chosen_cell_and_heading_are_previewed_on_the_board(live_server, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    from .factories import PASSWORD

    game = make_game()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{live_server.url}/accounts/login/")
            page.fill("#id_username", game.player(0).username)
            page.fill("#id_password", PASSWORD)
            page.click("form button[type=submit]")
            page.goto(f"{live_server.url}/games/{game.pk}/")
            ghost = page.locator("svg.board .place-preview")
            assert ghost.get_attribute("display") == "none", "nothing chosen yet"
            cell = page.locator("svg.board .placeable").nth(2)
            cell.click()  # the board click chooses the cell
            x, y = cell.get_attribute("data-x"), cell.get_attribute("data-y")
            assert page.locator("[name=cell]:checked").get_attribute("value") == \
                f"{cell.get_attribute('data-q')},{cell.get_attribute('data-r')}"
            assert ghost.get_attribute("display") is None
            assert ghost.get_attribute("transform") == f"translate({x},{y}) rotate(0)"
            page.check("[name=heading][value='2']")  # north-west
            assert ghost.get_attribute("transform") == f"translate({x},{y}) rotate(-120)"
            first = page.locator("[name=cell]").first
            first.check()  # the form's radio moves the preview too
            value = first.get_attribute("value")
            q, r = value.split(",")
            target = page.locator(f'svg.board .placeable[data-q="{q}"][data-r="{r}"]')
            assert ghost.get_attribute("transform") == \
                f"translate({target.get_attribute('data-x')},{target.get_attribute('data-y')}) rotate(-120)"
            assert "selected" in (target.get_attribute("class") or "")
        finally:
            browser.close()
