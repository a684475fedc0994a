"""The social features in headless Chromium (issue 13): the chat in the game page's slot
(filled by static/js/social.js), mute, a rematch offered and accepted on the page, the
next-game link, the watch list and player search. Screenshots go to test-output/."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from .factories import PASSWORD, make_game, make_user, placed_game
from .test_browser import CHROMIUM_ARGS


def log_in(page, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", PASSWORD)
    page.locator("main form.form button[type=submit]").click()
    page.wait_for_load_state()


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_chat_rematch_next_game_watch_and_search_in_a_browser(live_server, output_dir, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    from games import services

    ann, bob = make_user("ann"), make_user("bob")
    game = placed_game(yellow=ann, red=bob)  # Red (bob) to move
    other = make_game(yellow=ann, red=make_user("cid"))  # Yellow (ann) to place: her next game
    base = live_server.url
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            desk = browser.new_context(viewport={"width": 1280, "height": 900})
            phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            a, b = desk.new_page(), phone.new_page()
            log_in(a, base, "ann")
            log_in(b, base, "bob")

            # Ann waits for Bob: the slot offers her next game, and she writes in the chat without leaving the board
            a.goto(f"{base}/games/{game.pk}/")
            a.wait_for_selector("#chat-form")
            assert a.locator("#next-game a").get_attribute("href") == f"/games/{other.pk}/"
            a.fill("#chat-text", "good luck <b>bob</b>")
            a.click("#chat-form button[type=submit]")
            a.wait_for_selector("#chat-lines li.mine")
            assert a.url.startswith(f"{base}/games/{game.pk}/")  # no page change
            assert "good luck <b>bob</b>" in a.inner_text("#chat-lines")  # shown as text, not as markup
            a.screenshot(path=str(output_dir / "social-chat-desktop.png"), full_page=True)

            b.goto(f"{base}/games/{game.pk}/")
            b.wait_for_selector("#chat-lines li[data-line]")
            assert "good luck" in b.inner_text("#chat-lines")
            # the chat may be swapped for a fresh copy at any moment (a live chat event): scroll in one step
            b.wait_for_selector("#chat")
            b.evaluate("document.getElementById('chat').scrollIntoView()")
            b.screenshot(path=str(output_dir / "social-chat-phone.png"))
            b.click("form.mute button")  # mute: without JavaScript's help, a plain form
            b.wait_for_selector("#chat-lines li.none")
            assert "good luck" not in b.inner_text("#chat-lines")

            # Bob resigns; Ann offers a rematch on the page, Bob accepts it there
            services.game_resign(user=bob, game_id=game.pk)
            a.goto(f"{base}/games/{game.pk}/")
            a.locator("#rematch button").click()
            a.wait_for_selector("text=Rematch offered")
            b.goto(f"{base}/games/{game.pk}/")
            b.wait_for_selector("#rematch button")
            b.locator("#rematch button").click()
            b.wait_for_url(lambda url: "/games/" in url and f"/games/{game.pk}/" not in url)
            assert b.locator("#game").count() == 1

            # anyone can watch; the menu finds players
            watcher = browser.new_page(viewport={"width": 1280, "height": 900})
            watcher.goto(f"{base}/watch/")
            assert watcher.locator("#watch tr").count() == 2  # the rematch and Ann v Cid
            watcher.screenshot(path=str(output_dir / "social-watch.png"), full_page=True)
            watcher.fill("#menu-player-search", "AN")
            watcher.press("#menu-player-search", "Enter")
            watcher.wait_for_selector("#players-found")
            assert watcher.locator("#players-found a").all_inner_texts() == ["ann"]
            watcher.screenshot(path=str(output_dir / "social-search.png"), full_page=True)

            # the unsubscribe link of an email: a GET shows the button and changes nothing
            from games.notifications.emails import unsubscribe_token

            phone_page = phone.new_page()
            phone_page.goto(f"{base}/email/unsubscribe/{unsubscribe_token(ann)}/")
            phone_page.screenshot(path=str(output_dir / "social-unsubscribe-phone.png"))
            ann.refresh_from_db()
            assert ann.email_mode == "each"
            phone_page.click("#unsubscribe-form button")
            phone_page.wait_for_selector("text=You are unsubscribed")
            ann.refresh_from_db()
            assert ann.email_mode == "none"
        finally:
            browser.close()
            # the database work above ran while Playwright's event loop runs in this thread, so
            # Django kept it on a connection of that context (asgiref's Local): closed here, in it,
            # or it outlived the test and its database could not be dropped at the end of the run
            connections.close_all()


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_chat_line_arriving_keeps_the_draft_being_typed_and_the_slots_buttons(live_server, monkeypatch, output_dir):
    """A refresh of the slot that brings something new (the opponent's chat line, a live chat event)
    changes it in place: the line the player is typing stays, typed or set aside, with its focus, and
    the slot's forms and buttons stay the same nodes, so a click under way is not lost. A line sent
    empties the box; a line refused stays in it, beside the error."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    from games.social import services as social
    from games.social.models import ChatMessage
    from games.social.services import CHAT_BURST

    ann, bob = make_user("ann"), make_user("bob")
    game = placed_game(yellow=ann, red=bob)
    base = live_server.url
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            a = browser.new_page(viewport={"width": 390, "height": 844})
            log_in(a, base, "ann")
            a.goto(f"{base}/games/{game.pk}/")
            a.wait_for_selector("#chat-form")
            a.wait_for_function("() => !!window.Idiomorph")
            a.click("#chat-text")
            a.keyboard.type("half a sen")
            # a mark on the nodes themselves (a property: the morph makes the attributes the fragment's)
            a.evaluate("document.getElementById('chat-form').marked = 'the same node';"
                       "document.querySelector('form.mute button').marked = 'the same node'")

            social.chat_post(user=bob, game_id=game.pk, text="hello ann")
            a.evaluate("window.powerboatsSocial.refresh()")  # what a live chat event does
            a.wait_for_function("() => document.getElementById('chat-lines').innerText.includes('hello ann')")
            assert a.input_value("#chat-text") == "half a sen"
            assert a.evaluate("document.activeElement.id") == "chat-text"
            assert a.evaluate("document.getElementById('chat-form').marked") == "the same node"
            assert a.evaluate("document.querySelector('form.mute button').marked") == "the same node"

            a.locator("#chat-lines").click()  # set aside: the box has no focus
            social.chat_post(user=bob, game_id=game.pk, text="are you there")
            a.evaluate("window.powerboatsSocial.refresh()")
            a.wait_for_function("() => document.getElementById('chat-lines').innerText.includes('are you there')")
            assert a.input_value("#chat-text") == "half a sen"

            a.click("#chat-text")
            a.keyboard.type("tence")
            a.keyboard.press("Enter")
            a.wait_for_selector("#chat-lines li.mine")
            assert "half a sentence" in a.inner_text("#chat-lines li.mine")
            # the box empties when the answer comes; the line may show before it (the live stream)
            a.wait_for_function("() => document.getElementById('chat-text').value === ''")

            # what is typed while a line is on its way stays in the box when the line is sent
            held = []
            a.route("**/chat/", lambda route: held.append(route))  # the POST waits here until the test lets it go
            a.fill("#chat-text", "first")
            a.press("#chat-text", "Enter")
            for _ in range(500):  # up to 10 s
                if held:
                    break
                a.wait_for_timeout(20)
            assert held, "the chat line's POST never left the page"
            a.type("#chat-text", " and second")
            held[0].continue_()
            a.unroute("**/chat/")
            a.wait_for_function("() => document.getElementById('chat-lines').innerText.includes('first')")
            a.wait_for_function("() => document.getElementById('chat-text').value === 'and second'")
            a.fill("#chat-text", "")

            # a line of spaces is refused just above the box, where the player looks
            a.fill("#chat-text", "   ")
            a.press("#chat-text", "Enter")
            a.wait_for_selector("#chat .error[role=alert] + #chat-form")
            assert "empty" in a.inner_text("#chat .error[role=alert]")

            # refused (CHAT_BURST lines a minute): the error shows, the line stays to send again
            for n in range(CHAT_BURST - 2):  # ann has sent two lines above
                social.chat_post(user=ann, game_id=game.pk, text=f"line {n}")
            a.fill("#chat-text", "one too many")
            a.press("#chat-text", "Enter")
            a.wait_for_selector("#chat .error[role=alert][data-code=throttled] + #chat-form")
            assert a.input_value("#chat-text") == "one too many"
            a.wait_for_function("() => !document.querySelector('#chat-form button[type=submit]').disabled")

            # the refusal stays while the chat changes (the live events of ann's own lines, bob's line)
            social.chat_post(user=bob, game_id=game.pk, text="slow down")
            a.evaluate("() => window.powerboatsSocial.refresh()")
            a.wait_for_function("() => document.getElementById('chat-lines').innerText.includes('slow down')")
            assert a.locator(".social-part .error[role=alert][data-code=throttled]").count() == 1
            assert a.input_value("#chat-text") == "one too many"
            a.locator("#social").screenshot(path=str(output_dir / "social-refused-phone.png"))

            # a minute on, the line is taken, and the refusal goes
            ChatMessage.objects.filter(game=game, user=ann).update(created_at=timezone.now() - timedelta(minutes=2))
            a.press("#chat-text", "Enter")
            a.wait_for_function("() => document.getElementById('chat-lines').innerText.includes('one too many')")
            a.wait_for_function("() => !document.querySelector('.social-part .error[role=alert]')")
            a.wait_for_function("() => document.getElementById('chat-text').value === ''")
        finally:
            browser.close()
            connections.close_all()  # as above: work done while Playwright's loop ran in this thread
