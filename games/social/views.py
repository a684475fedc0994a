"""Site views of the social features (issue 13): chat, rematch, the next game to move, games to
watch, player search. They parse input, call a service or a selector, and render.

The game page itself does not read any of this (its query budget, tests/games/test_query_budgets.py):
it holds a slot that static/js/social.js fills from :func:`game_social` (``?part=1``); without
JavaScript the slot is a link to the same view as a whole page."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from common.errors import ServiceError
from common.text import digits
from games.models import Challenge, Game

from . import services
from .models import CHAT_MAX_LENGTH
from .selectors import chat_of, games_to_watch, has_muted, next_game_to_move, players_matching, rematch_of

WATCH_PAGE_SIZE = 25


def _social_context(request: HttpRequest, game: Game) -> dict[str, Any]:
    user = request.user if request.user.is_authenticated else None
    seat = game.seat_of(user)
    context: dict[str, Any] = {"game": game, "seat": seat, "chat": chat_of(game, user),
                               "chat_max": CHAT_MAX_LENGTH, "player": seat is not None}
    if seat is not None:
        context["muted"] = has_muted(game, user)
        if not game.over and game.to_move != seat:
            context["next_game"] = next_game_to_move(user, exclude=game.pk)
        if game.over:
            offer = rematch_of(game)
            context["rematch"] = offer
            context["rematch_mine"] = offer is not None and offer.created_by_id == user.pk  # type: ignore[union-attr]
    return context


@require_GET
def game_social(request: HttpRequest, game_id: int) -> HttpResponse:
    """The chat, the rematch offer and the link to the next game of a game (``?part=1``: only
    the fragment the game page shows)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise Http404("no such game")
    context = _social_context(request, game)
    template = "games/_social.html" if request.GET.get("part") == "1" else "games/social.html"
    return render(request, template, context)


def _back(game_id: int) -> HttpResponse:
    return redirect(reverse("game", args=[game_id]) + "#social")


def _refused(request: HttpRequest, game_id: int, exc: ServiceError) -> HttpResponse:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise Http404("no such game")
    context = _social_context(request, game)
    context["error"] = exc
    part = request.headers.get("X-Social-Part") == "1"  # social.js: only the fragment
    return render(request, "games/_social.html" if part else "games/social.html", context, status=exc.status)


@login_required
@require_POST
def chat_post(request: HttpRequest, game_id: int) -> HttpResponse:
    try:
        services.chat_post(user=request.user, game_id=game_id, text=request.POST.get("text", ""))
    except ServiceError as exc:
        return _refused(request, game_id, exc)
    return _back(game_id)


@login_required
@require_POST
def chat_mute(request: HttpRequest, game_id: int) -> HttpResponse:
    try:
        services.chat_mute(user=request.user, game_id=game_id, muted=request.POST.get("mute") != "0")
    except ServiceError as exc:
        return _refused(request, game_id, exc)
    return _back(game_id)


@login_required
@require_POST
def chat_report(request: HttpRequest, game_id: int, message_id: int) -> HttpResponse:
    try:
        services.chat_report(user=request.user, message_id=message_id, game_id=game_id,
                                    reason=request.POST.get("reason", ""))
    except ServiceError as exc:
        return _refused(request, game_id, exc)
    messages.success(request, _("Thank you: the line was reported to the staff."))
    return _back(game_id)


@login_required
@require_POST
def rematch(request: HttpRequest, game_id: int) -> HttpResponse:
    try:
        result = services.game_rematch(user=request.user, game_id=game_id)
    except ServiceError as exc:
        return _refused(request, game_id, exc)
    if isinstance(result, Challenge):
        messages.success(request, _("Rematch offered: it starts when your opponent accepts."))
        return _back(game_id)
    messages.success(request, _("The rematch has started."))
    return redirect("game", game_id=result.pk)


@login_required
@require_GET
def next_game(request: HttpRequest) -> HttpResponse:
    """The game awaiting the player's move with the oldest deadline, or My games."""
    after = request.GET.get("after", "")
    game = next_game_to_move(request.user, exclude=int(after) if digits(after) and len(after) < 12 else None)
    if game is None:
        messages.info(request, _("No game is waiting for your move."))
        return redirect("my_games")
    return redirect("game", game_id=game.pk)


@require_GET
def watch(request: HttpRequest) -> HttpResponse:
    """Games in progress, newest move first: anyone may open one and watch."""
    page = Paginator(games_to_watch(), WATCH_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "games/watch.html", {"page": page})


@require_GET
def player_search(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "")[:30]
    players = players_matching(query) if query.strip() else []
    if len(players) == 1 and request.GET.get("go"):
        return redirect("profile", username=players[0].username)
    return render(request, "games/players.html", {"query": query, "players": players})
