"""End to end in headless Chromium (Debian's package, driven by Playwright): two people sign
up, one makes a challenge, the other accepts, and they play through the page until a buoy
is rounded or a boat crashes. Screenshots go to test-output/."""

from __future__ import annotations

import re

import pytest

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def reload(page, url: str) -> None:
    """Open the game page again. The page already open may reload itself at that moment (its
    live stream saw the other player's move), which aborts this navigation (net::ERR_ABORTED) or
    interrupts it with its own (a CI run under load): then open it again."""
    for attempt in range(3):
        try:
            page.goto(url)
            return
        except Exception as exc:  # playwright's Error
            if not ("ERR_ABORTED" in str(exc) or "interrupted by another navigation" in str(exc)) or attempt == 2:
                raise
            page.wait_for_load_state()


def sign_up(page, base: str, name: str) -> None:
    page.goto(f"{base}/signup/")
    page.fill("#id_username", name)
    page.fill("#id_email", f"{name}@example.com")
    page.fill("#id_password1", "sea-spray-and-salt-42")
    page.fill("#id_password2", "sea-spray-and-salt-42")
    page.click("#signup button[type=submit]")
    page.wait_for_url(f"{base}/lobby/")


def damage_and_buoys(page) -> tuple[int, int]:
    damage = sum(int(v) for v in page.eval_on_selector_all("td.damage", "els => els.map(e => e.dataset.damage)"))
    buoys = sum(int(v) for v in page.eval_on_selector_all("td.buoys", "els => els.map(e => e.dataset.buoys)"))
    return damage, buoys


def act(page) -> str:
    """Take the turn shown on this page the way a player would; return what was done."""
    game = page.locator("#game")
    phase = game.get_attribute("data-phase")
    if phase == "place":
        page.locator("svg.board .placeable").first.click()  # the board click picks the start cell
        assert page.locator("[name=cell]:checked").count() == 1
        page.check("[name=heading][value='2']")
        page.click("#place-form button[type=submit]")
        return "place"
    if phase == "dice":
        add = page.locator("#dice-form [name=change][value=add][type=radio]")
        if add.count():
            add.check()
        # dice.js sums up the danger of the choice made before the roll (issue 24): safe, danger or deadly
        assert re.match(r"(Total: \d+ \(nothing is rolled\) )?(Safe|Danger|Deadly): ", page.inner_text("#chances"))
        page.click("#dice-form button[type=submit]")
        return "roll"
    page.locator("#direction-form button.option-button:not([disabled])").first.click()
    return "direction"


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_sign_up_challenge_accept_and_play_until_a_buoy_or_a_crash(live_server, output_dir, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    base = live_server.url
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            desk = browser.new_context(viewport={"width": 1280, "height": 900})
            phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            ann, bob = desk.new_page(), phone.new_page()
            sign_up(ann, base, "ann")
            sign_up(bob, base, "bob")

            ann.goto(f"{base}/lobby/")
            ann.select_option("#id_color", "yellow")
            ann.select_option("#id_course_letter", "A")
            ann.click("#new-challenge button[type=submit]")
            ann.wait_for_selector("text=Challenge made.")

            bob.goto(f"{base}/lobby/")
            bob.locator("table.challenges button", has_text="Accept").click()
            bob.wait_for_selector("#game")
            game_url = bob.url.split("#")[0]
            assert "/games/" in game_url

            done = []
            for _ in range(120):
                for page in (ann, bob):
                    reload(page, game_url)
                mover = next((pg for pg in (ann, bob) if pg.locator("#game").get_attribute("data-your-turn") == "1"), None)
                damage, buoys = damage_and_buoys(ann)
                if damage or buoys or mover is None:
                    break
                done.append(act(mover))
                mover.wait_for_load_state()
                assert mover.locator(".error").count() == 0, mover.inner_text(".error")
            damage, buoys = damage_and_buoys(ann)
            assert damage > 0 or buoys > 0, f"no crash and no buoy after {len(done)} actions"
            assert done[:2] == ["place", "place"] and "roll" in done
            assert ann.locator("ol.moves li").count() >= 3

            ann.locator("svg.board").screenshot(path=str(output_dir / "board.png"))
            bob.screenshot(path=str(output_dir / "game-phone.png"), full_page=True)
            # a phone-width page keeps the board inside the screen
            width = bob.evaluate("document.querySelector('svg.board').getBoundingClientRect().width")
            assert width <= 390
            assert (output_dir / "board.png").stat().st_size > 10_000
        finally:
            browser.close()
