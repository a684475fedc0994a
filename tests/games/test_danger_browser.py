"""Danger before the dice (issue 24) in Chromium, as a newcomer meets it: a new account's first
game against the easiest house bot, on a phone and on a desk, in English, German and Italian.
Before every roll the dice panel shows each total the chosen dice can give with its chance and
what each direction would then do, and one line that tells safe from deadly; changing the choice
changes them; and the first game's hints guide the newcomer (games/advice.py). Screenshots go to test-output/ to be looked at.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .test_live import CHROMIUM_ARGS, settled, sign_up, wait_until


def danger(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => {
        const rows = [...document.querySelectorAll('#danger tr[data-total]')];
        const shown = rows.filter((r) => !r.hidden);
        const sum = shown.reduce((s, r) => s + parseInt(r.querySelector('.chance').textContent, 10), 0);
        const chances = document.getElementById('chances');
        return {rows: rows.length, shown: shown.length, percentSum: sum, line: chances ? chances.textContent : '',
                kind: chances ? chances.className : '', cells: shown.map((r) => r.querySelectorAll('td.way').length),
                right: Math.max(...[...document.querySelectorAll('#dice-form, #dice-form *')].map(
                    (e) => e.getBoundingClientRect().right)), viewport: window.innerWidth};
    }""")


def take_turn(page: Any) -> None:
    phase = page.locator("#game").get_attribute("data-phase")
    if phase == "place":
        page.locator("svg.board .placeable").first.click()
        page.click("#place-form button[type=submit]")
    elif phase == "dice":
        page.click("#dice-form button[type=submit]")
    else:
        page.locator("#direction-form button.option-button:not([disabled])").first.click()
    page.wait_for_load_state()


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize(("language", "viewport"), [("en", (390, 844)), ("en", (1280, 900)), ("de", (390, 844)),
                                                    ("it", (1280, 900))])
def test_a_newcomers_first_game_shows_the_danger_before_every_roll(site, output_dir, monkeypatch,
                                                                   language, viewport):
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("no /usr/bin/chromium")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    name = f"new_{language}_{viewport[0]}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]},
                                          locale=language, extra_http_headers={"Accept-Language": language})
            page = context.new_page()
            sign_up(page, name)
            page.locator("#play-bot button[value=easy]").click()
            page.wait_for_selector("#game")
            rolls = 0
            for _ in range(40):
                data = settled(page)
                if data["active"] != "1" or rolls >= 4:
                    break
                if data["yourTurn"] != "1":
                    wait_until(page, lambda d: d["yourTurn"] == "1" or d["active"] != "1", 30)  # a loaded machine
                    continue
                if data["phase"] == "dice":
                    shown = danger(page)
                    assert shown["rows"] >= 3 and shown["shown"] >= 1, shown
                    assert 98 <= shown["percentSum"] <= 102, f"the chances of the totals shown add up: {shown}"
                    assert all(n == 3 for n in shown["cells"]), "three directions for every total"
                    assert shown["line"] and any(k in shown["kind"] for k in ("risk-safe", "risk-crash", "risk-sinks"))
                    assert shown["right"] <= shown["viewport"], "the dice panel and its table fit the screen"
                    if rolls == 0:
                        assert page.locator("#guide").is_visible(), "a new account's first game is guided"
                        page.screenshot(path=str(output_dir / f"danger-{language}-{viewport[0]}.png"), full_page=True)
                    add = page.locator("#dice-form [name=change][value=add][type=radio]")
                    if add.count():  # another choice: the table and the line follow it
                        before = danger(page)
                        add.check()
                        after = danger(page)
                        assert after["shown"] >= 1 and 98 <= after["percentSum"] <= 102
                        assert (after["shown"], after["line"]) != (before["shown"], before["line"]) or \
                            before["shown"] == after["shown"] == 3
                    rolls += 1
                take_turn(page)
            assert rolls >= 2, "the newcomer rolled at least twice"
        finally:
            browser.close()
