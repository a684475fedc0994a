"""Leaderboards and ratings pages."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from games.selectors import games_of

from . import selectors
from .models import RatingChange
from .ratings import head_to_head

User = get_user_model()


def leaderboard(request: HttpRequest) -> HttpResponse:
    by = "points" if request.GET.get("by") == "points" else "rating"
    rows = selectors.points_table() if by == "points" else selectors.leaderboard()
    page = Paginator(rows, 50).get_page(request.GET.get("page"))
    return render(request, "tournaments/leaderboard.html", {
        "page": page, "by": by, "offset": page.start_index(), "active_days": selectors.ACTIVE_DAYS,
        "min_games": selectors.MIN_GAMES_FOR_POINTS,
    })


def profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(User, username=username)
    games = list(games_of(player)[:30])
    changes = {c.game_id: c for c in RatingChange.objects.filter(user=player, game__in=[g.pk for g in games])}
    rows = [(g, changes.get(g.pk)) for g in games]
    history = selectors.history(player)
    rating = selectors.rating_of(player)
    vs_name = request.GET.get("vs", "").strip()
    versus = None
    if vs_name:
        opponent = User.objects.filter(username__iexact=vs_name).first()
        versus = {"name": vs_name, "found": opponent is not None,
                  **(head_to_head(player, opponent) if opponent else {})}
    return render(request, "games/profile.html", {
        "player": player, "rows": rows, "rating": rating, "rating_shown": selectors.display(rating),
        "chart": selectors.history_svg(history), "versus": versus,
    })
