"""Web push end to end (issue 26, docs/notifications.md), as a player meets it: the site served as
bin/run serves it (uvicorn, a Celery worker, the embedded default), Chromium, and a push service
on localhost standing in for FCM (tests/push_service.py: Chromium's own push service is Google's,
out of reach here, so the page's PushManager is given the stand-in's subscription — keys made as a
browser makes them — and the test is the device: it decrypts what arrives with those keys).

* the player turns notifications on in Settings (the page's own script subscribes and hands the
  subscription to the site); the opponent moves; the push arrives within seconds, reads "your
  turn" with the game's address, and the service worker shows it as a notification;
* with the game's page open (live), the opponent's next move is seen live: no push comes;
* the manifest and the service worker pass Chromium's installability check;
* the settings page at desktop and phone size (screenshots in test-output/).
"""

from __future__ import annotations

import base64
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.push_service import PushService

from .live_site import serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PORT = int(os.environ.get("PUSH_TEST_PORT", "8127")) + int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:] or 0)
BASE = f"http://127.0.0.1:{PORT}"
PASSWORD = "sea-spray-and-salt-42"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
# YOUR_TURN_PUSH_DELAY of this site, seconds: longer than a page opened just before takes to be marked
# seen live (up to ~2 s: the stream hub tends its streams and writes their marks each second)
HOLD = 3


@pytest.fixture(scope="module")
def stand_in() -> Iterator[PushService]:
    service = PushService()
    yield service
    service.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, stand_in: PushService, migrated_sqlite: Path) -> Iterator[str]:
    """The site as bin/run serves it (tests/games/live_site.py: one web worker here), its pushes
    sent to the stand-in, a your-turn push held ``HOLD`` s; nothing it logged is a traceback."""
    var = tmp_path_factory.mktemp("push-var")
    with serve(var, migrated_sqlite, port=PORT, web_workers=1, PUSH_SERVICES=stand_in.url,
               YOUR_TURN_PUSH_DELAY=str(HOLD)) as base:
        yield base
    text = (var / "site.log").read_text(errors="replace")
    assert "Traceback" not in text, text[-4000:]


def api(method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def account(name: str) -> str:
    status, _ = api("POST", "/api/accounts/", {"username": name, "password": PASSWORD, "email": f"{name}@example.com"})
    assert status == 201, status
    return api("POST", "/api/token/", {"username": name, "password": PASSWORD})[1]["token"]


def take_turn(game_id: int, token: str) -> int:
    """Roll (adding a die) and take the first allowed direction until the turn passes; the ply."""
    while True:
        state = api("GET", f"/api/games/{game_id}/", None, token)[1]
        if not state["your_turn"] or state["status"] != "active":
            return int(state["ply"])
        if state["phase"] == "dice":
            body = {"ply": state["ply"], "change": "add", "reroll": []}
            status, answer = api("POST", f"/api/games/{game_id}/roll/", body, token)
        else:
            direction = next(o["direction"] for o in state["options"] if o["allowed"])
            status, answer = api("POST", f"/api/games/{game_id}/direction/", {"ply": state["ply"],
                                                                              "direction": direction}, token)
        assert status == 200, answer


def place(game_id: int, token: str) -> None:
    state = api("GET", f"/api/games/{game_id}/", None, token)[1]
    status, answer = api("POST", f"/api/games/{game_id}/place/",
                         {"ply": state["ply"], "cell": state["placements"]["cells"][0], "heading": 0}, token)
    assert status == 200, answer


# The page's PushManager and Notification, given the stand-in's subscription: what Chromium would
# hand back after asking Google's push service (the keys are the test's, so the test can read).
STUB = """
(() => {
  const sub = %s;
  const made = {endpoint: sub.endpoint, expirationTime: null, options: {userVisibleOnly: true},
                toJSON() { return sub; }, unsubscribe: async () => true};
  const key = "stand-in-subscribed";
  PushManager.prototype.subscribe = async function (options) {
    if (!options || !options.applicationServerKey) throw new Error("no applicationServerKey");
    sessionStorage.setItem("applicationServerKey",
      btoa(String.fromCharCode(...new Uint8Array(options.applicationServerKey))));
    localStorage.setItem(key, "1");
    return made;
  };
  PushManager.prototype.getSubscription = async function () { return localStorage.getItem(key) ? made : null; };
})();
"""


def log_in(page: Any, name: str) -> None:
    page.goto(f"{BASE}/accounts/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_load_state()


def test_a_push_arrives_for_the_opponents_move_and_none_for_a_move_watched_live(site, stand_in, output_dir):
    from playwright.sync_api import sync_playwright

    ann, bob = account("ann"), account("bob")
    device = stand_in.device()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.grant_permissions(["notifications"], origin=BASE)
        context.add_init_script(STUB % json.dumps(device.subscription()))
        page = context.new_page()
        log_in(page, "ann")
        page.goto(f"{BASE}/settings/")
        page.wait_for_function("() => Boolean(navigator.serviceWorker)")
        button = page.locator("#push-on")
        button.wait_for(state="visible", timeout=15000)
        page.screenshot(path=str(output_dir / "push-settings-desktop.png"), full_page=True)
        button.click()
        page.wait_for_selector(f"#device-list [data-endpoint='{device.endpoint}']", timeout=15000)
        status, key = api("GET", "/api/push/key/")  # the page subscribed with the site's VAPID key
        asked = base64.b64decode(page.evaluate("sessionStorage.getItem('applicationServerKey')"))
        assert status == 200 and asked == base64.urlsafe_b64decode(key["public_key"] + "==")
        devices = api("GET", "/api/push/devices/", None, ann)[1]
        assert [d["endpoint"] for d in devices] == [device.endpoint]
        page.wait_for_function("() => document.querySelector('#push-state').textContent.length > 0")
        assert page.locator("#push-state").inner_text() == "Notifications are on for this device."
        assert page.locator("#push-on").is_hidden()

        # bob challenges ann, who takes it: bob (yellow) places first, then it is ann's turn
        status, challenge = api("POST", "/api/challenges/", {"opponent": "ann", "color": "yellow"}, bob)
        assert status == 201
        received = device.read(stand_in.take(timeout=20))  # the challenge is pushed at once
        assert received["kind"] == "challenge" and received["url"].endswith("/lobby/")
        status, game = api("POST", f"/api/challenges/{challenge['id']}/accept/", None, ann)
        game_id = game["id"]
        sent = time.perf_counter()
        place(game_id, bob)
        message = stand_in.take(timeout=20)
        took = time.perf_counter() - sent
        note = device.read(message)
        assert note["kind"] == "your_turn" and note["title"] == f"Your turn in game {game_id}"
        assert note["url"] == f"{BASE}/games/{game_id}/" and note["tag"] == f"game-{game_id}"
        assert note["body"].startswith("against bob")
        print(f"\npush for the opponent's move: {took:.2f} s from the move to the push service (hold {HOLD} s)")
        assert took < HOLD + 10

        # the service worker shows it: delivered as the push service would, read back as shown
        client = context.new_cdp_session(page)
        client.send("ServiceWorker.enable")
        registrations: list[dict[str, Any]] = []
        client.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
        page.goto(f"{BASE}/games/")
        for _ in range(200):  # up to 20 s: a CI run under load once needed more than 5
            if registrations:
                break
            page.wait_for_timeout(100)
        registration = next(r for r in registrations if r["scopeURL"] == f"{BASE}/")
        assert page.evaluate("navigator.serviceWorker.ready.then(() => true)")  # active, so the push is not dropped
        # what is tested is that the service worker shows what it is sent; Chromium's DevTools delivery
        # is the stand-in for the push service, and under load it once left no trace within 20 s
        # (a CI run, twice): it is sent again, up to three times, each followed by 10 s of looking
        shown: list[dict[str, Any]] = []
        for _ in range(3):
            registration = [r for r in registrations if r["scopeURL"] == f"{BASE}/"][-1]  # the latest word on it
            client.send("ServiceWorker.deliverPushMessage", {"origin": BASE, "data": json.dumps(note),
                                                              "registrationId": registration["registrationId"]})
            shown = page.evaluate("""async () => {
                const reg = await navigator.serviceWorker.ready;
                for (let i = 0; i < 100; i++) {
                    const shown = await reg.getNotifications();
                    if (shown.length) return shown.map((n) => ({title: n.title, tag: n.tag, body: n.body, url: n.data.url}));
                    await new Promise((r) => setTimeout(r, 100));
                }
                return [];
            }""")
            if shown:
                break
        assert shown == [{"title": note["title"], "tag": note["tag"], "body": note["body"], "url": note["url"]}]

        # ann has the game's page open: she places and takes her turn, then bob takes his, which
        # she sees live on the page: no push for it
        page.goto(f"{BASE}/games/{game_id}/")
        page.wait_for_selector("#game[data-phase]")
        place(game_id, ann)
        ply = take_turn(game_id, ann)  # Red (ann) moves first (R6)
        page.wait_for_function("(ply) => Number(document.querySelector('#game').dataset.ply) >= ply", arg=ply,
                               timeout=15000)
        ply = take_turn(game_id, bob)
        page.wait_for_function("(ply) => Number(document.querySelector('#game').dataset.ply) >= ply", arg=ply,
                               timeout=15000)
        assert page.locator("#game").get_attribute("data-your-turn") == "1"  # the turn reached ann's page live
        assert stand_in.nothing(wait=HOLD + 4), "a push came for a move ann watched live"
        stale = api("GET", "/api/push/devices/", None, ann)[1]
        assert stale[0]["last_error"] == ""

        manifest = client.send("Page.getAppManifest")
        assert not manifest.get("errors"), manifest.get("errors")

        # offline: My games as ann last saw it, for any page she has not seen
        context.set_offline(True)
        page.goto(f"{BASE}/watch/")
        assert page.locator("h1").inner_text() == "My games" and page.locator("#offline-note").is_visible()
        assert page.locator(f"a[href='/games/{game_id}/']").count() >= 1
        context.set_offline(False)

        phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                    has_touch=True)
        phone.grant_permissions(["notifications"], origin=BASE)
        phone_page = phone.new_page()
        log_in(phone_page, "ann")
        phone_page.goto(f"{BASE}/settings/")
        phone_page.wait_for_selector("#device-list")
        width = phone_page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the settings page is {width} px wide on a 390 px phone"
        phone_page.screenshot(path=str(output_dir / "push-settings-phone.png"), full_page=True)
        browser.close()


def test_the_site_passes_chromiums_installability_check(site, tmp_path):
    """The manifest (name, icons, start URL, standalone) and the service worker (its scope, its
    fetch handler) are what Chromium asks of an app to install: its own check finds nothing
    missing. In a profile of its own (an incognito window can install nothing)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(str(tmp_path / "profile"), executable_path="/usr/bin/chromium",
                                                       args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(f"{BASE}/")
        page.evaluate("async () => { await navigator.serviceWorker.ready; }")
        page.reload()  # now under the service worker's control
        client = context.new_cdp_session(page)
        errors: list[Any] = []
        for _ in range(30):
            errors = client.send("Page.getInstallabilityErrors")["installabilityErrors"]
            if not errors:
                break
            page.wait_for_timeout(200)
        assert errors == [], errors
        manifest = client.send("Page.getAppManifest")
        assert manifest["url"] == f"{BASE}/site.webmanifest" and not manifest.get("errors"), manifest
        # offline, with nothing of the player seen yet: the offline page, in the site's own style
        context.set_offline(True)
        page.goto(f"{BASE}/rules/")
        assert page.locator("h1").inner_text() == "You are offline" and page.locator("#offline-note").is_visible()
        assert page.evaluate("getComputedStyle(document.querySelector('header.top')).display") != "inline"
        context.close()
