"""Ratings of series (issue 16; docs/ratings.md, "Series"): pairwise Glicko-2 in a pool of
their own.

A finished rated series is one rating period for each of its players: every pair of players is
a game between them, won by the one placed higher in the final series table (R19; a shared
place is a draw; players who left rank below those who stayed, R18). Each player is rated
once, against all the others at once, from the ratings everyone had before the series
(``glicko2.rate`` with n − 1 results), so the order in which pairs are taken does not matter.
The pool is ``SeriesRating``: a multi-player result never moves the two-player rating.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils import timezone

from . import glicko2
from .models_series import SeriesGame, SeriesRating, SeriesRatingChange, SeriesSeat


def pair_score(mine: int, theirs: int) -> float:
    """One pair of a series: 1 for the higher place (a smaller number), ½ for a shared one."""
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def rate_series(series: SeriesGame, seats: Sequence[SeriesSeat]) -> bool:
    """Rate a finished series (in the caller's transaction); returns whether it was rated.
    Unrated series, and series with a bot, are not rated."""
    if not series.rated or any(getattr(s.user, "is_bot", False) for s in seats):
        return False
    if SeriesRatingChange.objects.filter(series_game=series).exists():
        return False
    now = timezone.now()
    users = [s.user for s in seats]
    ratings = {r.user_id: r for r in SeriesRating.objects.select_for_update().filter(user__in=users)}
    for user in users:
        if user.pk not in ratings:
            ratings[user.pk] = SeriesRating.objects.create(user=user)
    before = {s.user_id: ratings[s.user_id].value for s in seats}
    changes = []
    for seat in seats:
        assert seat.place is not None
        results = [(before[o.user_id], pair_score(seat.place, o.place or 0)) for o in seats if o.pk != seat.pk]
        after = glicko2.rate(before[seat.user_id], results)
        row = ratings[seat.user_id]
        changes.append(SeriesRatingChange(
            series_game=series, user=seat.user, place=seat.place, score=sum(score for _, score in results),
            rating_before=row.rating, rating_after=after.rating, deviation_after=after.deviation, created_at=now,
        ))
        row.rating, row.deviation, row.volatility = after.rating, after.deviation, after.volatility
        row.series += 1
        row.wins += int(seat.place == 1 and sum(1 for o in seats if o.place == 1) == 1)
        row.last_rated_at = now
        row.save()
    SeriesRatingChange.objects.bulk_create(changes)
    return True


def leaderboard(limit: int = 50) -> list[Any]:
    """The multi-player leaderboard: the best series ratings first."""
    return list(SeriesRating.objects.select_related("user").filter(series__gt=0).order_by("-rating")[:limit])
