"""A whole game against a house bot, played through the page in headless Chromium at desktop size
(1280x900) and on a phone (390x844, touch), with screenshots of several steps in test-output/
(issue 13: "a phone is a first-class board", "the board reads like the box").

On the phone the board is turned by 90° to fill the portrait screen; the test checks that the
board and the dice or direction controls are within the viewport at once, and that tapping a
preview disc on the board makes the move."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.services import user_ensure_house_bots

from .test_browser import CHROMIUM_ARGS, sign_up

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def in_viewport(page: Any, selector: str) -> bool:
    """Whether the element is wholly on the screen (waiting up to 2 s for the page to settle)."""
    script = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
        return r.top >= -1 && r.left >= -1 && r.bottom <= innerHeight + 1 && r.right <= innerWidth + 1; }"""
    try:
        page.wait_for_function(script, arg=selector, timeout=2000)
    except Exception:
        return False
    return True


def boxes(page: Any, *selectors: str) -> list[Any]:
    return [page.locator(s).first.bounding_box() for s in selectors] + [page.evaluate("window.scrollY")]


def ply(page: Any) -> int:
    return int(page.locator("#game").get_attribute("data-ply"))


def play_a_whole_game(page: Any, base: str, name: str, shots: Any, phone: bool) -> dict[str, int]:
    """Sign up (the first time), play bot-strong from the lobby, and play until the game ends;
    return counts."""
    if name:
        sign_up(page, base, name)
    else:
        page.goto(f"{base}/lobby/")
    page.click("#play-bot button[name=level][value=strong]")
    page.wait_for_selector("#game")
    counts = {"place": 0, "roll": 0, "tap": 0, "checked": 0}
    for _ in range(200):
        if page.locator("#result").count():
            break
        phase = page.locator("#game").get_attribute("data-phase")
        assert page.locator("#game").get_attribute("data-your-turn") == "1", "the bot answers at once (eager tasks)"
        assert page.locator(".error").count() == 0, page.inner_text(".error")
        before = ply(page)
        if phase == "place":
            shots("place")
            page.locator("svg.board .placeable").first.click()
            page.check("[name=heading][value='2']")
            with page.expect_navigation():
                page.click("#place-form button[type=submit]")
            counts["place"] += 1
        elif phase == "dice":
            form = page.locator("#dice-form")
            held = len(page.eval_on_selector("#dice-form", "f => JSON.parse(f.dataset.dice || '[]')"))
            keep = page.locator("#dice-form [name=change][value=keep]")
            if keep.count() and held == 0:
                # after a crash the default is to add a die, not to keep none (issue 13)
                assert page.locator("#dice-form [name=change][value=add]").is_checked()
                counts["checked"] += 1
            if phone and not (in_viewport(page, "svg.board") and in_viewport(page, "#dice-form button[type=submit]")):
                shots("failed")
                raise AssertionError("the board and the Roll button are on the screen together: "
                                     + str(boxes(page, "svg.board", "#dice-form button[type=submit]")))
            if counts["roll"] == 0:
                shots("dice")
            elif counts["roll"] == 3:
                shots("dice-holding")
            if keep.count():
                page.check("#dice-form [name=change][value=" + ("add" if held < 2 else "keep") + "]")
            with page.expect_navigation():
                form.locator("button[type=submit]").click()
            counts["roll"] += 1
        else:
            if phone and not (in_viewport(page, "svg.board") and in_viewport(page, "#direction-form button")):
                shots("failed")
                raise AssertionError("the board and the direction step are on the screen together")
            if counts["tap"] == 0:
                shots("direction")
            elif counts["tap"] == 4:
                shots("direction-later")
            safe = page.locator("svg.board .option.allowed:not(.crash) .option-hit")
            target = safe.first if safe.count() else page.locator("svg.board .option.allowed .option-hit").first
            with page.expect_navigation():
                if phone:
                    target.tap()  # a tap on the preview disc on the board makes the move
                else:
                    target.click()
            counts["tap"] += 1
        page.wait_for_load_state()
        assert ply(page) > before, f"{phase}: the action was not taken"
        if counts["roll"] == 5 and phase == "dice":
            shots("midgame")
    assert page.locator("#result").count(), "the game ended"
    shots("over")
    return counts


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("size", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_a_whole_game_against_a_bot_on_desktop_and_phone(live_server, output_dir, monkeypatch, eager, size, viewport):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    user_ensure_house_bots()  # an earlier transactional test may have flushed the migration's rows
    phone = size == "phone"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone,
                                          device_scale_factor=2 if phone else 1)
            page = context.new_page()
            taken: set[str] = set()

            def shots(step: str) -> None:
                if step in taken:
                    return
                taken.add(step)
                page.screenshot(path=str(output_dir / f"board-{size}-{step}.png"))

            for attempt in range(4):  # a game can end after a roll or two (a crash that sinks): play another
                counts = play_a_whole_game(page, live_server.url, "" if attempt else f"skipper{size}", shots, phone)
                if counts["roll"] >= 3 and counts["tap"] >= 1:
                    break
            assert counts["place"] == 1 and counts["roll"] >= 3 and counts["tap"] >= 1
            page.screenshot(path=str(output_dir / f"board-{size}-over-full.png"), full_page=True)
            if phone:
                # the lake is turned: on a portrait screen the board is taller than wide
                box = page.locator("svg.board").bounding_box()
                assert box is not None and box["height"] > box["width"] * 1.3
                # the zoom button doubles the board inside its frame
                page.goto(page.url)
                before = page.evaluate("document.querySelector('.board-frame').getBoundingClientRect().width")
                page.click("#zoom")
                after = page.evaluate("document.querySelector('.board-frame').getBoundingClientRect().width")
                assert after == pytest.approx(before * 2, rel=0.02)
                page.screenshot(path=str(output_dir / "board-phone-zoomed.png"))
            # every move in the list has its long form beside the notation
            rows = page.locator("ol.moves li.move-turn")
            assert rows.count() >= 3
            assert all(rows.nth(i).locator(".long").inner_text().strip() for i in range(3))
        finally:
            browser.close()
