"""Moves applied in place (issue 22, docs/live.md), in Chromium against the site as bin/run serves
it (the ``site`` fixture of tests/games/conftest.py: uvicorn with two workers, a Celery worker,
SQLite). Ann moves on her game page; Bob's page (her opponent), a spectator's page on a phone
scrolled down to the move list, and a spectator replaying an earlier position each show the move
without a navigation: the same document (a marker set on each page before the move is still
there), within a second of the move's commit, with the reader's scroll position and replayed
position kept. Screenshots at desktop and phone size go to test-output/ to be looked at.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from .test_live import BASE, CHROMIUM_ARGS, account, act, api
from .test_series_live_browser import log_in

MARK = "() => { window.__liveMarker = 'set before the move'; }"
STILL = "() => window.__liveMarker === 'set before the move'"
SCROLL_LOG = """{
    window.__scrollLog = [];
    const note = (why) => { const g = document.getElementById('game');
        window.__scrollLog.push([why, Math.round(performance.now()), window.scrollY,
                                 document.documentElement.scrollHeight, g && g.dataset.ply]); };
    window.addEventListener('scroll', () => note('scroll'));
    document.addEventListener('live:applied', () => note('applied'));
    addEventListener('DOMContentLoaded', () => new ResizeObserver(() => note('resize')).observe(document.documentElement));
}"""


def shown(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => {
        const g = document.getElementById('game');
        const nav = document.querySelector('.replay span');
        return {ply: Number(g.dataset.ply), yourTurn: g.dataset.yourTurn, phase: g.dataset.phase,
                moves: document.querySelectorAll('#moves li:not(.none)').length, scrollY: window.scrollY,
                bottom: window.scrollY >= document.documentElement.scrollHeight - window.innerHeight - 2,
                movesText: document.getElementById('moves').textContent,
                replay: nav ? nav.textContent.trim() : '', navigations: performance.getEntriesByType('navigation').length,
                marker: window.__liveMarker || null};
    }""")


def wait_for_turn(page: Any, timeout: float = 5.0) -> None:
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        if page.evaluate("() => document.getElementById('game').dataset.yourTurn") == "1":
            return
        time.sleep(0.01)
    raise AssertionError(f"not this player's turn within {timeout} s: {shown(page)}")


def wait_for(page: Any, ply: int, timeout: float = 5.0) -> float:
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        if page.evaluate("() => Number(document.getElementById('game').dataset.ply)") >= ply:
            return time.perf_counter()
        time.sleep(0.01)
    raise AssertionError(f"ply {ply} not shown within {timeout} s: {shown(page)}")


@pytest.mark.slow
@pytest.mark.browser
def test_a_move_is_applied_in_place_on_the_opponents_and_the_spectators_pages(site, output_dir,
                                                                            monkeypatch):
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("no /usr/bin/chromium")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    ann_token, bob_token = account("ann_in_place"), account("bob_in_place")
    status, challenge = api("POST", "/api/challenges/", {"opponent": "bob_in_place", "color": "yellow",
                                                         "rated": False}, ann_token)
    assert status == 201, challenge
    status, game = api("POST", f"/api/challenges/{challenge['id']}/accept/", None, bob_token)
    assert status in (200, 201), game
    url = f"{BASE}/games/{game['id']}/"

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            desktop = {"viewport": {"width": 1280, "height": 900}}
            phone = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
            ann = browser.new_context(**desktop).new_page()
            bob = browser.new_context(**desktop).new_page()
            watcher = browser.new_context(**phone).new_page()  # a spectator, not logged in, on a phone
            replayer = browser.new_context(**desktop).new_page()  # a spectator replaying an earlier position
            log_in(ann, "ann_in_place")
            log_in(bob, "bob_in_place")
            # what moved the spectator's page, should their place be lost: each scroll, each change of
            # the page's height and each move applied, with the time, scrollY, the height and the ply
            watcher.add_init_script(SCROLL_LOG)
            for page in (ann, bob, watcher):
                page.goto(url)

            latencies: dict[str, list[float]] = {"bob": [], "spectator": [], "replaying spectator": []}
            bob_turns = 0
            for _turn in range(8):
                state = shown(ann)
                if state["yourTurn"] != "1":
                    # Bob's turn: he takes it on his page, with the controls that came with the
                    # move applied in place there (the page's handlers are on the document)
                    wait_for_turn(bob)
                    with bob.expect_response(lambda r: r.request.method == "POST" and "/games/" in r.url):
                        act(bob, careful=True)
                    bob.wait_for_load_state()
                    wait_for(ann, state["ply"] + 1)
                    bob_turns += 1
                    continue
                before = state["ply"]
                if before >= 2 and "at=1" not in replayer.url:
                    replayer.goto(f"{url}?at=1")
                watcher.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
                time.sleep(0.2)
                watchers = {"bob": bob, "spectator": watcher}
                if "at=1" in replayer.url:
                    watchers["replaying spectator"] = replayer
                was = {name: shown(page) for name, page in watchers.items()}
                for page in watchers.values():
                    page.evaluate(MARK)
                with ann.expect_response(lambda r: r.request.method == "POST" and "/games/" in r.url):
                    act(ann, careful=True)
                committed = time.perf_counter()
                for name, page in watchers.items():
                    latencies[name].append(wait_for(page, before + 1) - committed)
                    now = shown(page)
                    assert page.evaluate(STILL), f"{name}'s page navigated: the move was not applied in place"
                    assert now["navigations"] == was[name]["navigations"] == 1
                    # a roll adds a line; the direction chosen after it completes that line
                    assert now["moves"] >= was[name]["moves"] and now["movesText"] != was[name]["movesText"], \
                        f"{name}'s move list did not change"
                    if name == "spectator":
                        log = page.evaluate("() => window.__scrollLog.splice(0)")
                        # where they were: the same place, or the page's end when they read its end and
                        # the page got shorter (a game's result replaces its clock)
                        assert abs(now["scrollY"] - was[name]["scrollY"]) <= 2 or \
                            (was[name]["bottom"] and now["bottom"]), \
                            f"the spectator keeps reading where they were: {was[name]} {now} {log}"
                    if name == "replaying spectator":
                        assert now["replay"].startswith(("after 1 of", "nach 1 von", "dopo 1 di")), now["replay"]
                        assert "at=1" in page.url, "still replaying the position they chose"
                ann.wait_for_load_state()  # her page after the POST, which the next turn reads
            bob.screenshot(path=str(output_dir / "live-in-place-bob.png"), full_page=True)
            watcher.screenshot(path=str(output_dir / "live-in-place-spectator-phone.png"))
            replayer.screenshot(path=str(output_dir / "live-in-place-replaying.png"))
        finally:
            browser.close()

    for name, xs in latencies.items():
        print(f"\n{name}: " + ", ".join(f"{x * 1000:.0f} ms" for x in xs) + " from the commit to the move shown in place")
    assert len(latencies["bob"]) >= 3 and len(latencies["replaying spectator"]) >= 1 and bob_turns >= 2

