"""Clock shapes and the player's clock settings (issue 27) in Chromium, as players meet them: one
challenges with Little Golem's bank from the lobby, the other accepts and sees the bank on the
game page; the first turns on the weekend pause and automatic vacation in the settings. At
desktop and phone size (screenshots in test-output/clock-*.png)."""

from __future__ import annotations

import pytest

from .factories import PASSWORD, make_user

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def log_in(page, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_bank_challenge_from_the_lobby_and_the_clock_settings(live_server, output_dir, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    ann, bob = make_user("ann"), make_user("bob")
    base = live_server.url
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            desk = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                        has_touch=True).new_page()
            log_in(desk, base, "ann")
            log_in(phone, base, "bob")

            desk.goto(f"{base}/lobby/")
            options = desk.locator("#id_clock option").all_inner_texts()
            assert "a bank of 10 days, +36 hours per move, at most 10 days" in options
            desk.select_option("#id_clock", "bank-10-36-10")
            desk.fill("#id_opponent", "bob")
            desk.click("#new-challenge button[type=submit]")
            desk.wait_for_selector("text=Challenge made.")
            desk.screenshot(path=str(output_dir / "clock-lobby-desktop.png"), full_page=True)

            phone.goto(f"{base}/lobby/")
            row = phone.locator("table.challenges tr", has_text="ann")
            assert "a bank of 10 days" in row.inner_text()
            row.locator("button", has_text="Accept").click()
            phone.wait_for_selector("#game")
            phone.wait_for_load_state()  # the page parsed to its end: what follows reads past the board
            game_url = phone.url.split("#")[0]
            clock = phone.locator("#clock").inner_text()
            assert "lost on time at" in clock and "time for this move" not in clock
            assert "Bank left:" in phone.content() and "+36 hours per move" in phone.content()
            phone.screenshot(path=str(output_dir / "clock-bank-game-phone.png"), full_page=True)
            try:  # the lobby follows the accepted challenge to its game by itself (live); else go there
                desk.wait_for_url(lambda url: url.startswith(game_url), timeout=15000)
            except PlaywrightTimeout:
                desk.goto(game_url)
            desk.wait_for_selector("#clock")
            desk.screenshot(path=str(output_dir / "clock-bank-game-desktop.png"), full_page=True)
            width = phone.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, width

            for page, size in ((desk, "desktop"), (phone, "phone")):
                page.goto(f"{base}/settings/")
                page.check("#id_weekend_pause")
                page.check("#id_auto_vacation")
                page.click("#clock-settings button[type=submit]")
                page.wait_for_selector("text=Settings saved.")
                assert page.is_checked("#id_weekend_pause") and page.is_checked("#id_auto_vacation")
                page.locator("#clock-settings").screenshot(path=str(output_dir / f"clock-settings-{size}.png"))
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        finally:
            browser.close()
    for user in (ann, bob):
        user.refresh_from_db()
        assert user.weekend_pause and user.auto_vacation
