"""The home page and the rules pages in headless Chromium (Debian's package, Playwright), at
desktop (1280×900) and phone (390×844) sizes in English, German and Italian; and a visitor
who goes from the home page to a game against the computer. Screenshots go to test-output/."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.games.factories import make_user, placed_game
from tests.games.test_browser import CHROMIUM_ARGS

SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
LOCALES = {"en": "en-GB", "de": "de-DE", "it": "it-IT"}
HEADINGS = {
    "en": "The rules of Powerboats, as played here",
    "de": "Die Regeln von Powerboats, wie sie hier gelten",
    "it": "Il regolamento di Powerboats, come si gioca qui",
}


def _context(browser, size: str, lang: str):
    phone = size == "phone"
    return browser.new_context(viewport=SIZES[size], locale=LOCALES[lang], is_mobile=phone, has_touch=phone)


def _fits(page, size: str) -> None:
    """Nothing sticks out sideways: the page is no wider than the screen."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= SIZES[size]["width"], f"the page is {width}px wide"


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_home_and_rules_pages_in_three_languages_and_two_sizes(live_server, output_dir, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    from tournaments import services as tournament_services

    placed_game()
    now = timezone.now()
    tournament_services.tournament_create(
        director=make_user("director"), name="Winter Swiss", rounds=3,
        registration_closes_at=now + timedelta(days=3), starts_at=now + timedelta(days=4), min_players=2)
    base = live_server.url
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            for lang in LOCALES:
                for size in SIZES:
                    context = _context(browser, size, lang)
                    page = context.new_page()
                    page.goto(f"{base}/")
                    assert page.locator(".welcome-board svg.board").is_visible()
                    assert page.locator("#play-now").is_visible()
                    _fits(page, size)
                    page.screenshot(path=str(output_dir / f"home-{lang}-{size}.png"), full_page=True)

                    page.goto(f"{base}/rules/?lang={lang}")
                    assert page.locator("h1").inner_text() == HEADINGS[lang]
                    assert page.locator("figure.example svg.board").count() == 14
                    _fits(page, size)
                    page.screenshot(path=str(output_dir / f"rules-{lang}-{size}.png"))
                    page.locator("#lake").screenshot(path=str(output_dir / f"rules-legend-{lang}-{size}.png"))
                    page.locator("#example-crash").screenshot(path=str(output_dir / f"rules-crash-{lang}-{size}.png"))
                    context.close()
        finally:
            browser.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_visitor_is_playing_the_computer_two_clicks_after_signing_up(live_server, output_dir, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    from accounts.services import user_ensure_house_bots

    user_ensure_house_bots()  # made by a migration, but a transactional test before this one flushed them
    base = live_server.url
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = _context(browser, "phone", "en").new_page()
            page.goto(f"{base}/")
            page.click("#play-now")
            page.fill("#id_username", "newcomer")
            page.fill("#id_email", "newcomer@example.com")
            page.fill("#id_password1", "sea-spray-and-salt-42")
            page.fill("#id_password2", "sea-spray-and-salt-42")
            page.click("#signup button[type=submit]")  # click 1
            page.wait_for_load_state()
            page.screenshot(path=str(output_dir / "after-signup-phone.png"), full_page=True)
            page.click("form[action='/lobby/bot/'] button[value=normal]")  # click 2
            page.wait_for_selector("#game")
            page.wait_for_load_state()  # the page parsed to its end: what follows reads past the board
            assert "/games/" in page.url
            assert "bot-normal" in page.inner_text("#game")
            page.screenshot(path=str(output_dir / "first-bot-game-phone.png"))
            # signed in, the home page keeps the buttons that start a bot game, with the player's games
            page.goto(f"{base}/")
            assert page.locator("#play-bot button").count() == 3 and page.locator("#your-turn").is_visible()
            _fits(page, "phone")
            page.screenshot(path=str(output_dir / "home-player-phone.png"), full_page=True)
        finally:
            browser.close()
