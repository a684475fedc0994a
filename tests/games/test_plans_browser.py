"""Plans for the dice (issue 27) in Chromium, as a player meets them: while the opponent thinks,
the plan panel shows the danger table of the dice step with a way to choose per total; the player
saves a plan; the opponent moves; the site plays the planned turn, and the player's page shows it
live, marked as played from the plan. At desktop and phone size (screenshots in test-output/)."""

from __future__ import annotations

import pytest

from .test_live import BASE, CHROMIUM_ARGS, PASSWORD, account, api


def place(game_id: int, token: str) -> None:
    state = api("GET", f"/api/games/{game_id}/", None, token)[1]
    status, answer = api("POST", f"/api/games/{game_id}/place/",
                         {"ply": state["ply"], "cell": state["placements"]["cells"][0], "heading": 0}, token)
    assert status == 200, answer


def take_turn(game_id: int, token: str) -> None:
    """Roll (add a die) and take the first allowed way, until the turn passes."""
    while True:
        state = api("GET", f"/api/games/{game_id}/", None, token)[1]
        if not state["your_turn"] or state["status"] != "active":
            return
        if state["phase"] == "dice":
            status, answer = api("POST", f"/api/games/{game_id}/roll/",
                                 {"ply": state["ply"], "change": "add", "reroll": []}, token)
        else:
            way = next(o["direction"] for o in state["options"] if o["allowed"])
            status, answer = api("POST", f"/api/games/{game_id}/direction/", {"ply": state["ply"], "direction": way},
                                 token)
        assert status == 200, answer


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize(("size", "viewport"), [("desktop", (1280, 900)), ("phone", (390, 844))])
def test_a_plan_made_on_the_page_is_played_by_the_site_and_shown_live(site, output_dir, size, viewport):
    from playwright.sync_api import sync_playwright

    me, other = f"planner_{size}", f"thinker_{size}"
    mine, theirs = account(me), account(other)
    status, challenge = api("POST", "/api/challenges/", {"opponent": me, "color": "red"}, theirs)
    assert status == 201
    game_id = api("POST", f"/api/challenges/{challenge['id']}/accept/", None, mine)[1]["id"]
    place(game_id, mine)  # Yellow (me) places first, then Red; Red moves first (R5, R6)
    place(game_id, theirs)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}).new_page()
        page.goto(f"{BASE}/accounts/login/")
        page.fill("#id_username", me)
        page.fill("#id_password", PASSWORD)
        page.click("main form button[type=submit]")
        page.goto(f"{BASE}/games/{game_id}/")
        panel = page.locator("#plan")
        panel.locator("> summary").click()
        rows = page.locator("#plan-danger tr[data-total]")
        assert rows.count() == 3  # the first move: one die, a total of 1, 2 or 3 (R6)
        for total in ("1", "2", "3"):
            page.select_option(f"#plan-form select[name=way_{total}]", "straight")
        assert page.locator("#plan-form .chances").inner_text()  # safe or not, said in one line (dice.js)
        chances = [page.locator(f"#plan-danger tr[data-total='{t}'] .chance").inner_text() for t in ("1", "2", "3")]
        assert chances == ["33%", "33%", "33%"], chances  # dice.js, as on the dice step
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport[0], f"the page is {width} px wide at {viewport[0]}"
        page.screenshot(path=str(output_dir / f"plan-panel-{size}.png"), full_page=True)
        page.click("#plan-form button[name=save]")
        page.wait_for_selector("#plan[open]")
        assert "Your plan is saved" in page.locator(".messages").inner_text()
        assert page.locator("#plan-form select[name=way_2]").input_value() == "straight"
        plan = api("GET", f"/api/games/{game_id}/plan/", None, mine)[1]
        assert plan["turns"][0]["ways"] == {"1": "straight", "2": "straight", "3": "straight"}
        assert api("GET", f"/api/games/{game_id}/plan/", None, theirs)[0] == 404  # theirs: none; mine: not shown
        take_turn(game_id, theirs)  # the turn passes to me: the site plays my plan in that move's transaction
        page.wait_for_selector("#moves small.planned", timeout=15000)  # live, in place: no reload
        assert "played from the plan" in page.locator("#moves").inner_text()
        state = api("GET", f"/api/games/{game_id}/", None, theirs)[1]
        planned = [m for m in state["moves"] if m.get("planned")]
        assert planned and all(m["color"] == "yellow" for m in planned)
        page.screenshot(path=str(output_dir / f"plan-played-{size}.png"), full_page=True)
        browser.close()
