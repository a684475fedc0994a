"""Pages that draw on more than one app. The home page shows games (games) and tournaments
(tournaments); it lives here, above both, so that imports keep pointing one way
(docs/architecture.md: engine ← games ← tournaments)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.views.decorators.http import require_GET

from games.bots import house_bots
from games.rules_examples import welcome_board
from games.selectors import games_to_move, live_games, with_players
from tournaments.selectors import upcoming_events


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """For visitors: what the game is, a lake, the way to play the computer (sign up, then one
    click in the lobby), the games in progress and the next tournaments. Signed-in players see
    the same page with their games to move and the buttons that start a game against a house bot."""
    context: dict[str, Any] = {
        "board": welcome_board(),
        "live": live_games(5),
        "events": upcoming_events(4),
    }
    if request.user.is_authenticated:
        context["to_move"] = list(with_players(games_to_move(request.user))[:10])
        # the normal bot first, with the big button; then the easy and the strong one
        context["bots"] = sorted(house_bots(), key=lambda bot: (bot.bot_level != "normal", bot.bot_level))
    return render(request, "home.html", context)


# --- the site's icon (issue 24): drawn by bin/icons -------------------------------------------

ICON_DIR = settings.BASE_DIR / "static" / "img"
ICON_CACHE = "public, max-age=604800"  # a week: the icon seldom changes, and /favicon.ico has no version


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``, asked for by browsers (and feed readers) that do not read the page's
    ``<link rel="icon">``: the multi-size ICO itself, not a redirect."""
    response = HttpResponse((ICON_DIR / "favicon.ico").read_bytes(), content_type="image/x-icon")
    response["Cache-Control"] = ICON_CACHE
    return response


@require_GET
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest: the site installs as an app (Android, iOS 16.4+: its pushes need the
    installed app there, docs/notifications.md), named, with the PNG icons a phone puts on its home
    screen, opening on My games."""
    data = {
        "id": "/", "name": "Powerboats", "short_name": "Powerboats", "start_url": "/games/", "scope": "/",
        "display": "standalone", "background_color": "#f6f4ee", "theme_color": "#1d2733",
        "description": "Powerboats by correspondence",
        "icons": [{"src": static(f"img/icon-{size}.png"), "sizes": f"{size}x{size}", "type": "image/png",
                   "purpose": "any"} for size in (192, 512)]
        + [{"src": static("img/favicon.svg"), "sizes": "any", "type": "image/svg+xml"}],
    }
    response = JsonResponse(data, content_type="application/manifest+json")
    response["Cache-Control"] = "public, max-age=86400"
    return response


# --- the installable app (issue 26): its service worker and its page for when the network is down ----

SERVICE_WORKER = settings.BASE_DIR / "static" / "js" / "sw.js"


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """``/sw.js``: the service worker (static/js/sw.js), served at the root so that its scope is the
    whole site; never kept stale by a cache (a browser checks it for updates on its own too)."""
    response = HttpResponse(SERVICE_WORKER.read_bytes(), content_type="text/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response


@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    """What the service worker shows for a page never seen while the network is down (kept when it
    installs)."""
    return render(request, "offline.html")
