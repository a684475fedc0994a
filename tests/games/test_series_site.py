"""Series pages (issue 16): the lobby, a series' page, its forms; and in Chromium the page at
desktop and phone size (screenshots in test-output/)."""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client

from games import services as svc
from games.engine import Phase
from games.management.commands.verify_games import check_game
from games.models import Game, Move

from .factories import PASSWORD, make_user
from .series_play import engine_now, play, started

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def logged_in(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client



@pytest.mark.django_db
def test_open_join_and_play_a_turn_through_the_pages(monkeypatch):
    ann, bob, cid, dee = (make_user(n) for n in ("ann", "bob", "cid", "dee"))
    a = logged_in(ann)
    r = a.post("/series/", {"seats": 4, "days_per_move": 3, "grace_days": 7, "lake_side": "standard",
                            "rated": "on"})
    assert r.status_code == 302
    series = Game.objects.get()
    assert series.ruleset == "boxed" and series.series_number is not None
    assert r["Location"] == f"/games/{series.pk}/"
    page = a.get(f"/games/{series.pk}/").content.decode()
    assert "waiting for players" in page and 'id="start"' in page
    assert a.post("/series/", {"seats": 9}).status_code == 400  # refused, nothing made
    assert Game.objects.count() == 1
    for user in (bob, cid):
        assert logged_in(user).post(f"/games/{series.pk}/lobby/join/").status_code == 302
    lobby = logged_in(dee).get("/series/").content.decode()
    assert f"/games/{series.pk}/lobby/join/" in lobby
    real = svc._start
    monkeypatch.setattr(svc, "_start", lambda s, seats, now, rng: real(s, seats, now, random.Random(16)))
    logged_in(dee).post(f"/games/{series.pk}/lobby/join/")
    series.refresh_from_db()
    assert series.status == "active"

    # every player acts through the forms until each has made a move
    for _ in range(40):
        series, seats, engine = engine_now(series.pk)
        if all(b.moves >= 1 for b in engine.race.boats):
            break
        mover = next(s.user for s in seats if s.index == series.to_move)
        client = logged_in(mover)
        page = client.get(f"/games/{series.pk}/").content.decode()
        state = engine.race
        if state.phase is Phase.PLACE:
            cell = re.search(r'name="cell" value="([^"]+)"', page).group(1)
            r = client.post(f"/games/{series.pk}/place/", {"ply": series.ply, "cell": cell, "heading": 0})
        elif state.phase is Phase.DICE:
            r = client.post(f"/games/{series.pk}/roll/", {"ply": series.ply, "change": "add"})
        else:
            direction = re.search(r'name="direction" value="(\d)"(?![^>]*disabled)', page).group(1)
            r = client.post(f"/games/{series.pk}/direction/", {"ply": series.ply, "direction": direction})
        assert r.status_code == 302, r.content.decode()[:2000]
    page = logged_in(ann).get(f"/games/{series.pk}/").content.decode()
    for color in ("yellow", "red", "orange", "purple"):
        assert f'class="boat {color}' in page  # every boat on the board
    assert 'id="series-table"' in page and "Next race starts with" in page
    # a stale form changes nothing: not ann's turn (403), or back to the series as it is now
    before = Move.objects.count()
    r = logged_in(ann).post(f"/games/{series.pk}/roll/", {"ply": 0, "change": "add"})
    assert r.status_code in (403, 302) and Move.objects.count() == before
    assert r.status_code == 403 or r["Location"] == f"/games/{series.pk}/#board"
    assert check_game(series) is None


@pytest.mark.django_db
def test_resign_through_the_page_needs_the_box():
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    series = started(users, seed=3)
    client = logged_in(users[1])
    assert client.post(f"/games/{series.pk}/resign/", {}).status_code == 400
    assert client.post(f"/games/{series.pk}/resign/", {"confirm": "on"}).status_code == 302
    assert series.seats.get(user=users[1]).left == "resign"


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_series_page_in_chromium_desktop_and_phone(live_server, output_dir, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    users = [make_user(n) for n in ("ann", "bob", "cid", "dee", "eve", "fay")]
    series = started(users, seed=16)
    # into race B: a table with figures, carried damage, boats on the lake
    series = play(series.pk, stop=lambda s: len(s.races) == 2 and s.race.phase is not Phase.PLACE
                  and min(b.moves for b in s.race.boats) >= 4)
    assert check_game(series) is None  # six boats: the stored state is the replay
    mover = series.seats.get(index=series.to_move).user
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            for name, viewport, mobile in (("desktop", {"width": 1280, "height": 900}, False),
                                           ("phone", {"width": 390, "height": 844}, True)):
                context = browser.new_context(viewport=viewport, is_mobile=mobile, has_touch=mobile)
                page = context.new_page()
                page.goto(f"{live_server.url}/accounts/login/")
                page.fill("#id_username", mover.username)
                page.fill("#id_password", PASSWORD)
                page.locator("form button[type=submit]").last.click()
                page.wait_for_load_state()
                page.goto(f"{live_server.url}/games/{series.pk}/")
                assert page.locator("svg.board .boat").count() >= 5
                assert page.locator("#series-table tbody tr").count() == 6
                if mobile:  # as on the game page (issue 13): the lake turned to fill the portrait screen,
                    # and the board with the turn's Roll button on the first screen
                    board = page.locator("svg.board").bounding_box()
                    roll = page.get_by_role("button", name="Roll").bounding_box()
                    assert board["height"] > board["width"] > 0.8 * viewport["width"], board
                    assert board["y"] >= 0 and roll["y"] + roll["height"] <= viewport["height"], (board, roll)
                page.screenshot(path=str(output_dir / f"series-{name}.png"), full_page=True)
                # the replay control, as on the game page: one action back, then back to now
                page.locator('.replay a[data-at="prev"]').click()
                page.wait_for_url(re.compile(r"\?at=\d+$"))
                assert page.locator(".replay span").inner_text().startswith("after ")
                assert page.get_by_role("button", name="Roll").count() == 0, "no turn while replaying"
                assert page.locator("#moves li.current").count() == 1
                page.screenshot(path=str(output_dir / f"series-replay-{name}.png"), full_page=True)
                page.get_by_role("link", name="Back to the current position").click()
                page.wait_for_load_state()
                assert page.get_by_role("button", name="Roll").count() == 1
                page.goto(f"{live_server.url}/series/")
                assert page.locator("#my-series li").count() == 1
                page.screenshot(path=str(output_dir / f"series-lobby-{name}.png"), full_page=True)
                context.close()
        finally:
            browser.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_series_turn_has_the_two_player_forms_and_a_direction_tapped_on_the_board(live_server, output_dir,
                                                                                    monkeypatch):
    """One set of turn forms for every game (templates/games/_turn.html, games/turn_forms.py): a
    series' direction buttons say the cells, the turn and why one is not allowed, as a two-player
    game's do, and tapping an allowed direction's disc on the board moves (static/js/turn.js)."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    users = [make_user(n) for n in ("ann", "bob", "cid")]
    series = started(users, seed=16)
    series = play(series.pk, stop=lambda s: s.race.phase is Phase.DIRECTION
                  and sum(o.allowed for o in s.race.options()) >= 2)
    mover = series.seats.get(index=series.to_move).user
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
            page.goto(f"{live_server.url}/accounts/login/")
            page.fill("#id_username", mover.username)
            page.fill("#id_password", PASSWORD)
            page.locator("form button[type=submit]").last.click()
            page.wait_for_load_state()
            page.goto(f"{live_server.url}/games/{series.pk}/")
            buttons = page.locator("#direction-form .option-button")
            assert buttons.count() == 3
            assert all(re.search(r": \d+ cells?", t) for t in buttons.all_inner_texts()), buttons.all_inner_texts()
            page.screenshot(path=str(output_dir / "series-direction-phone.png"), full_page=True)
            with page.expect_navigation():
                page.locator("svg.board .option.allowed").first.click()
        finally:
            browser.close()
    assert Game.objects.get(pk=series.pk).ply == series.ply + 1, "the tapped direction was taken"
