"""Reads for ratings and leaderboards."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from .models import PROVISIONAL_DEVIATION, Rating, RatingChange

ACTIVE_DAYS = 90  # the leaderboard shows players with a rated game in this many days
MIN_GAMES_FOR_POINTS = 5


def leaderboard(now: datetime | None = None) -> QuerySet[Rating]:
    """Established (not provisional), active players by rating."""
    since = (now or timezone.now()) - timedelta(days=ACTIVE_DAYS)
    return (
        Rating.objects.filter(deviation__lt=PROVISIONAL_DEVIATION, last_rated_at__gte=since, games__gt=0)
        .select_related("user")
        .order_by("-rating", "user_id")
    )


def points_table(now: datetime | None = None) -> QuerySet[Rating]:
    """Active players with enough rated games, by average game points (R14)."""
    since = (now or timezone.now()) - timedelta(days=ACTIVE_DAYS)
    return (
        Rating.objects.filter(last_rated_at__gte=since, games__gte=MIN_GAMES_FOR_POINTS)
        .select_related("user")
        .order_by("-points_per_game", "-games", "user_id")
    )


def rating_of(user: Any) -> Rating | None:
    return Rating.objects.filter(user=user).first()


def history(user: Any, limit: int = 500) -> list[RatingChange]:
    """The player's rating changes, oldest first (at most ``limit`` most recent)."""
    rows = list(
        RatingChange.objects.filter(user=user).select_related("opponent", "game").order_by("-created_at", "-id")[:limit]
    )
    rows.reverse()
    return rows


def history_svg(changes: list[RatingChange], width: int = 640, height: int = 200) -> str:
    """The rating over time as a small SVG chart, drawn on the server."""
    if not changes:
        return ""
    values = [changes[0].rating_before] + [c.rating_after for c in changes]
    low, high = min(values) - 20, max(values) + 20
    pad = 36
    step = (width - pad - 10) / max(1, len(values) - 1)

    def y(v: float) -> float:
        return 10 + (high - v) / (high - low) * (height - 30)

    points = " ".join(f"{pad + i * step:.1f},{y(v):.1f}" for i, v in enumerate(values))
    ticks = []
    for v in (low + 20, (low + high) / 2, high - 20):
        ticks.append(f'<text x="2" y="{y(v) + 4:.1f}" class="tick">{v:.0f}</text>'
                     f'<line x1="{pad}" x2="{width - 10}" y1="{y(v):.1f}" y2="{y(v):.1f}" class="grid"/>')
    dots = "".join(
        f'<circle cx="{pad + i * step:.1f}" cy="{y(v):.1f}" r="2.5"><title>{v:.0f} after game '
        f'{changes[i - 1].game_id}</title></circle>'
        for i, v in enumerate(values) if i
    )
    return (
        f'<svg class="rating-chart" viewBox="0 0 {width} {height}" role="img" aria-label="rating history">'
        f'{"".join(ticks)}<polyline points="{points}"/>{dots}'
        f'<text x="{pad}" y="{height - 4}" class="tick">{len(changes)} rated games</text></svg>'
    )
