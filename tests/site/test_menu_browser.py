"""The site's menu in headless Chromium: on a desk every link shows at once; on a phone
(390x844) it folds behind one Menu button beside a "Next game" shortcut, and opens with a tap.
Screenshots go to test-output/."""

from __future__ import annotations

import pytest

from tests.games.factories import PASSWORD, make_user

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def log_in(page, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_load_state()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_menu_shows_on_a_desk_and_folds_on_a_phone(live_server, output_dir, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    make_user("marta")
    base = live_server.url
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            desk = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            log_in(desk, base, "marta")
            desk.goto(f"{base}/lobby/")
            assert desk.is_visible("#menu-player-search") and desk.is_visible("nav.primary >> text=Tournaments")
            assert not desk.is_visible(".menu-button")
            header = desk.locator("header.top").bounding_box()
            assert header["height"] < 100  # two rows at most
            desk.screenshot(path=str(output_dir / "menu-desktop.png"))

            phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
            log_in(phone, base, "marta")
            phone.goto(f"{base}/lobby/")
            assert phone.is_visible(".menu-button") and phone.is_visible(".next-game-quick")
            assert not phone.is_visible("nav.primary >> text=Tournaments")
            assert phone.locator("header.top").bounding_box()["height"] < 70  # one row, the page starts at once
            phone.screenshot(path=str(output_dir / "menu-phone-closed.png"))
            phone.tap(".menu-button")
            assert phone.is_visible("nav.primary >> text=Tournaments") and phone.is_visible("#menu-player-search")
            phone.screenshot(path=str(output_dir / "menu-phone-open.png"))
            phone.tap("nav.primary >> text=Tournaments")
            phone.wait_for_url(f"{base}/tournaments/")
        finally:
            browser.close()
