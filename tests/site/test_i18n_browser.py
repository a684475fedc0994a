"""The game page in German, then Italian through the switcher, in headless Chromium: the
JavaScript's sentences (dice chances, countdown) come translated from the page.
Screenshots go to test-output/."""

from __future__ import annotations

import re

import pytest

from tests.games.factories import PASSWORD, make_user, placed_game

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_german_browser_gets_german_and_the_switcher_turns_it_italian(live_server, output_dir, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    game = placed_game(yellow=make_user("anna"), red=make_user("bruno"))  # bruno (Red) rolls first
    base = live_server.url
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(locale="de-DE", viewport={"width": 1280, "height": 900}).new_page()
            page.goto(f"{base}/accounts/login/?next=/games/{game.pk}/")
            assert page.get_attribute("html", "lang") == "de"
            page.fill("#id_username", "bruno")
            page.fill("#id_password", PASSWORD)
            page.click("main form button[type=submit]")
            page.wait_for_url(f"{base}/games/{game.pk}/")
            assert page.inner_text("#dice-form h2") == "1. Deine Würfel"
            # written by dice.js: the danger of the choice made, and each total's chance in the table
            assert re.match(r"(Sicher|Gefahr|Tödlich): ", page.inner_text("#chances"))
            assert page.inner_text("#danger-caption").startswith("Wenn du würfelst")
            assert "%" in page.locator("#danger tbody tr:not([hidden]) td.chance").first.inner_text()
            assert "für diesen Zug" in page.inner_text("#countdown")
            page.screenshot(path=str(output_dir / "i18n-game-de.png"), full_page=True)

            page.select_option("#language-switcher select", "it")
            page.click("#language-switcher button")
            page.wait_for_load_state()
            assert page.get_attribute("html", "lang") == "it"
            assert page.inner_text("#dice-form h2") == "1. I tuoi dadi"
            assert re.match(r"(Sicuro|Pericolo|Mortale): ", page.inner_text("#chances"))
            page.screenshot(path=str(output_dir / "i18n-game-it.png"), full_page=True)
        finally:
            browser.close()
