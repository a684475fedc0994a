"""Keyboard and screen readers (issue 24), in headless Chromium: axe-core (4.12, bundled by
axe-playwright-python) finds no serious or critical violation on any page of the test world (login, settings,
My games and watch included); the first Tab
reaches a skip link that shows itself and leads to the turn; the turn's form has the focus when
it is your turn, on arrival and after a live update, and never while you type in the chat."""

from __future__ import annotations

from typing import Any

import pytest

from tests.games.factories import greedy_action, make_user

from .pages_world import build, direction_game, settle
from .test_phone_fit_browser import CHROMIUM_ARGS, log_in

CHECKED = None  # every page of the world (tests/site/pages_world.py)


def serious(page: Any) -> list[str]:
    """axe's serious and critical violations on the page as it is laid out now. axe is put in the
    page once (the package's ``Axe.run`` puts its half a megabyte in again on every run: a page
    checked at two sizes parsed it twice)."""
    from axe_playwright_python.sync_playwright import Axe

    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(Axe().axe_script)
    response = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    return [f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(n["target"][0] for n in v["nodes"][:3])
            for v in response["violations"] if v["impact"] in ("serious", "critical")]


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_axe_finds_no_serious_violation_and_the_turn_has_the_focus(live_server, output_dir, eager, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    world = build()
    base = live_server.url
    problems: dict[str, list[str]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            desk, phone = {"width": 1280, "height": 900}, {"width": 390, "height": 844}
            player = browser.new_context(viewport=desk).new_page()
            visitor = browser.new_context(viewport=desk).new_page()
            log_in(player, base, "anna")
            for name, path, member in world["pages"]:
                if CHECKED is not None and name not in CHECKED:
                    continue
                page = player if member else visitor
                page.set_viewport_size(desk)
                page.goto(base + path, wait_until="load")
                settle(page)
                for size in (desk, phone):  # loaded once, checked on a desk and, resized, on a phone
                    page.set_viewport_size(size)
                    if found := serious(page):
                        problems[f"{name} ({path}) at {size['width']}px"] = found
            player.context.close()
            visitor.context.close()
            assert problems == {}, "\n".join(f"{k}: {v}" for k, v in problems.items())

            # the skip link: the first Tab (on a page where no form takes the focus), visible when focused
            page = browser.new_context(viewport=phone).new_page()
            log_in(page, base, "anna")
            watched = next(path for name, path, _ in world["pages"] if name == "game: watched")
            page.goto(base + watched, wait_until="load")
            page.keyboard.press("Tab")
            skip = page.locator(":focus")
            assert skip.get_attribute("class") == "skip-link" and skip.get_attribute("href") == "#board"
            box = skip.bounding_box()
            assert box is not None and box["y"] >= 0 and box["height"] > 10, "the skip link shows when focused"
            page.screenshot(path=str(output_dir / "a11y-skip-link-phone.png"))
            # your turn: the form has the focus on arrival; the first skip link leads to it
            game = world["dice"]
            page.goto(f"{base}/games/{game.pk}/", wait_until="load")
            page.wait_for_function("() => document.activeElement && document.activeElement.id === 'dice-form'")
            first = page.evaluate("document.querySelector('a[href], button, input:not([type=hidden]), select, textarea')"
                                  ".getAttribute('href')")
            assert first == "#dice-form"
            page.focus(".skip-link")
            page.keyboard.press("Enter")
            page.keyboard.press("Tab")
            assert page.evaluate("document.getElementById('dice-form').contains(document.activeElement)")
        finally:
            browser.close()


def play_until_turn_of(game: Any, user: Any) -> None:
    for _ in range(20):
        game.refresh_from_db()
        assert not game.over
        if game.player(game.to_move) == user:
            return
        greedy_action(game)
    raise AssertionError("not their turn after 20 actions")


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_live_update_that_brings_your_turn_focuses_the_form_but_not_while_you_type(live_server, eager, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    world = {"anna": make_user("anna"), "bruno": make_user("bruno")}
    base = live_server.url
    game = direction_game(world["anna"], world["bruno"])  # anna steers; the opponent (bruno) moves next
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            log_in(page, base, "anna")
            page.goto(f"{base}/games/{game.pk}/", wait_until="load")
            page.wait_for_function("() => document.activeElement && document.activeElement.id === 'direction-form'")
            page.locator("#direction-form button.option-button:not([disabled])").first.click()
            page.wait_for_selector("#game[data-your-turn='0']")
            assert page.locator("form.turn").count() == 0
            assert page.locator("[data-turn-skip]").is_hidden(), "no turn to skip to"
            anna = world["anna"]
            play_until_turn_of(game, anna)  # bruno rolls and steers (or rolls and has no way: the dice decide)
            page.evaluate("window.powerboatsLive.refresh()")  # what the live stream does on a move event
            page.wait_for_selector("form.turn")
            page.wait_for_function("() => document.activeElement && document.activeElement.matches('form.turn')")
            # the skip link outside the part that changed shows now, and leads to the form
            skip = page.locator("[data-turn-skip]")
            assert skip.is_visible() or skip.evaluate("(a) => !a.hidden")
            assert skip.get_attribute("href") == "#" + page.locator("form.turn").get_attribute("id")

            # anna's turn again after her roll and steer, bruno's after that; this time she types in the chat
            play_until_turn_of(game, world["bruno"])  # anna rolls and steers (elsewhere)
            page.reload(wait_until="load")
            page.wait_for_selector("#game[data-your-turn='0']")
            chat = page.locator("#chat-text")
            chat.click()
            page.keyboard.type("ciao")
            play_until_turn_of(game, anna)
            page.evaluate("window.powerboatsLive.refresh()")
            page.wait_for_selector("form.turn")
            assert page.evaluate("document.activeElement.id") == "chat-text", "the chat keeps the focus"
            assert chat.input_value() == "ciao"
        finally:
            browser.close()
