"""Every page passes the Content-Security-Policy: headless Chromium (Debian's package) opens
each kind of page, anonymous and logged in, the admin and the Swagger UI, and reports any
violation; the Swagger UI must still load the schema and show the operations."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.games.factories import PASSWORD, make_game, make_user

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
WATCH = """document.addEventListener('securitypolicyviolation', e => {
  (window.__csp = window.__csp || []).push(e.violatedDirective + ' ' + (e.blockedURI || 'inline') + ' ' + e.sourceFile + ':' + e.lineNumber);
});"""

ANONYMOUS = ["/", "/help/", "/accounts/login/", "/signup/", "/accounts/password_reset/", "/leaderboard/",
             "/tournaments/", "/admin/login/", "/round-robins/", "/competition/", "/rules/", "/rules/?lang=it",
             "/watch/", "/players/?q=a"]


def logged_in_pages(game_id: int, tournament_id: int, user_id: int) -> list[str]:
    return ["/lobby/", "/games/", f"/games/{game_id}/", "/settings/", "/players/ann/", f"/tournaments/{tournament_id}/",
            "/tournaments/new/", "/admin/", "/admin/accounts/user/", f"/admin/accounts/user/{user_id}/change/",
            "/admin/axes/accessattempt/", "/admin/password_change/", "/round-robins/new/",
            f"/games/{game_id}/social/", "/admin/social/chatreport/"]


def format_pages() -> list[str]:
    """A round-robin under way and the Competition with a season (issue 15)."""
    from tournaments import services_formats
    from tournaments.models import Competition

    now = timezone.now()
    ann = make_user("rr-director")
    rr = services_formats.round_robin_create(director=ann, name="Spring round-robin", starts_at=now + timedelta(hours=1),
                                              registration_closes_at=now + timedelta(hours=1))
    players = [make_user(f"rr{i}") for i in range(3)]
    for p in players:
        services_formats.round_robin_register(user=p, round_robin_id=rr.pk)
    services_formats.round_robin_start(round_robin_id=rr.pk, now=now + timedelta(hours=2))
    group = rr.groups.get()
    services_formats.group_start(group_id=group.pk)
    c = Competition.objects.create(name="The Competition", next_season_at=now)
    for p in players:
        services_formats.competition_join(user=p, competition_id=c.pk)
    services_formats.competition_start_season(competition_id=c.pk, now=now + timedelta(days=4))
    return [f"/round-robins/{rr.pk}/", f"/groups/{group.pk}/", f"/competitions/{c.pk}/",
            f"/competitions/{c.pk}/players/rr0/"]


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_every_page_passes_the_content_security_policy(live_server, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    from tournaments import services as tournament_services

    ann = make_user("ann", is_staff=True, is_superuser=True)
    game = make_game(yellow=ann, red=make_user("bob"))
    tournament = tournament_services.tournament_create(
        director=ann, name="Spring Swiss", rounds=3, registration_closes_at=timezone.now() + timedelta(days=1),
        starts_at=timezone.now() + timedelta(days=2), min_players=2, round_days=7)
    tournament_services.tournament_register(user=ann, tournament_id=tournament.pk)
    formats = format_pages()

    base = live_server.url
    violations: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.add_init_script(WATCH)
            page.on("console", lambda m: violations.append(f"{page.url}: {m.text}")
                    if "Content Security Policy" in m.text else None)

            def visit(path: str) -> None:
                response = page.goto(base + path)
                assert response is not None and response.status == 200, (path, response and response.status)
                policy = response.headers["content-security-policy"]
                assert "default-src 'self'" in policy and "script-src 'self'" in policy, policy
                page.wait_for_load_state("networkidle")
                violations.extend(f"{path}: {v}" for v in page.evaluate("window.__csp || []"))

            for path in ANONYMOUS:
                visit(path)
            visit("/api/docs/")
            page.wait_for_selector(".swagger-ui .opblock", timeout=20_000)  # the schema loaded, the UI drew it
            assert page.locator(".swagger-ui .opblock").count() > 10

            visit("/accounts/login/")
            page.fill("#id_username", "ann")
            page.fill("#id_password", PASSWORD)
            page.click("form.form button[type=submit]")
            page.wait_for_load_state("networkidle")
            for path in [*logged_in_pages(game.pk, tournament.pk, ann.pk), *formats]:
                visit(path)
        finally:
            browser.close()
    assert violations == []
