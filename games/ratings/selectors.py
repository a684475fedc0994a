"""Ratings as the pages and the API show them: '1543', or '1500?' while provisional, and the
multi-player leaderboard (docs/ratings.md)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .models import PROVISIONAL_DEVIATION, Rating, SeriesRating


def display(rating: Rating | None) -> str:
    """A rating as shown: provisional ratings get a question mark."""
    if rating is None:
        return "1500?"
    return f"{rating.rating:.0f}{'?' if rating.provisional else ''}"


def is_provisional(rating: SeriesRating | None) -> bool:
    """The two-player rule (``Rating.provisional``): a deviation of 110 or more; no rating yet
    is provisional."""
    return rating is None or rating.deviation >= PROVISIONAL_DEVIATION


def series_display(rating: SeriesRating | None) -> str:
    """A series rating as shown (as :func:`display`): '1543', or '1500?' while provisional."""
    if rating is None:
        return "1500?"
    return f"{rating.rating:.0f}{'?' if is_provisional(rating) else ''}"


def series_leaderboard(limit: int = 50) -> list[Any]:
    """The multi-player leaderboard: established ratings (not provisional), the best first."""
    return list(SeriesRating.objects.select_related("user")
                .filter(series__gt=0, deviation__lt=PROVISIONAL_DEVIATION).order_by("-rating")[:limit])


def shown_series_ratings(user_ids: Iterable[int]) -> dict[int, str]:
    """The series rating of each of these players as shown ('1500?' without one), one query."""
    ids = list(user_ids)
    found = {r.user_id: r for r in SeriesRating.objects.filter(user_id__in=ids).only("user", "rating", "deviation")}
    return {uid: series_display(found.get(uid)) for uid in ids}
