"""Pages that draw on more than one app. The home page shows games (games) and tournaments
(tournaments); it lives here, above both, so that imports keep pointing one way
(docs/architecture.md: engine ← games ← tournaments)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from games.bots import house_bots
from games.rules_examples import welcome_board
from games.selectors import games_to_move, live_games
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
        context["to_move"] = list(games_to_move(request.user)[:10])
        # the normal bot first, with the big button; then the easy and the strong one
        context["bots"] = sorted(house_bots(), key=lambda bot: (bot.bot_level != "normal", bot.bot_level))
    return render(request, "home.html", context)
