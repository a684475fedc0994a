"""Ratings of series (issue 16; docs/ratings.md, "Series"): pairwise Glicko-2 in a pool of
their own.

A finished rated series is one rating period for each of its players: every pair of players is
a game between them, won by the one placed higher in the final series table (R19; a shared
place is a draw; players who left rank below those who stayed, R18). Each player is rated
once, against all the others at once, from the ratings everyone had before the series
(``glicko2.rate`` with n − 1 results), so the order in which pairs are taken does not matter.
The pool is ``SeriesRating``: a multi-player result never moves the two-player rating.

As for two-player games (``games.ratings``, issue 23): before the series each player's deviation
grows for every whole idle week since their last rated series (``before_game``), deviations stay
within ``MIN_DEVIATION`` and ``MAX_DEVIATION`` (``bounded``), and a rating is provisional while
its deviation is ``PROVISIONAL_DEVIATION`` or more: shown with a question mark and left off the
multi-player leaderboard.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.utils import timezone

from . import glicko2
from .models import PROVISIONAL_DEVIATION
from .models_series import SeriesGame, SeriesRating, SeriesRatingChange, SeriesSeat
from .ratings import before_game, bounded


def pair_score(mine: int, theirs: int) -> float:
    """One pair of a series: 1 for the higher place (a smaller number), ½ for a shared one."""
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def is_provisional(rating: SeriesRating | None) -> bool:
    """The two-player rule (``Rating.provisional``): a deviation of 110 or more; no rating yet
    is provisional."""
    return rating is None or rating.deviation >= PROVISIONAL_DEVIATION


def display(rating: SeriesRating | None) -> str:
    """A series rating as shown (as ``games.ratings.display``): '1543', or '1500?' while
    provisional."""
    if rating is None:
        return "1500?"
    return f"{rating.rating:.0f}{'?' if is_provisional(rating) else ''}"


def rate_series(series: SeriesGame, seats: Sequence[SeriesSeat]) -> bool:
    """Rate a finished series (in the caller's transaction); returns whether it was rated.
    Unrated series, and series with a bot, are not rated. The series is rated at its finishing
    time: idle weeks are counted up to it."""
    if not series.rated or any(getattr(s.user, "is_bot", False) for s in seats):
        return False
    if SeriesRatingChange.objects.filter(series_game=series).exists():
        return False
    at = series.finished_at or timezone.now()
    users = [s.user for s in seats]
    ratings = {r.user_id: r for r in SeriesRating.objects.select_for_update().filter(user__in=users)}
    for user in users:
        if user.pk not in ratings:
            ratings[user.pk] = SeriesRating.objects.create(user=user)
    before = {s.user_id: before_game(ratings[s.user_id], at) for s in seats}
    changes = []
    for seat in seats:
        assert seat.place is not None
        results = [(before[o.user_id], pair_score(seat.place, o.place or 0)) for o in seats if o.pk != seat.pk]
        after = bounded(glicko2.rate(before[seat.user_id], results))
        row = ratings[seat.user_id]
        changes.append(SeriesRatingChange(
            series_game=series, user=seat.user, place=seat.place, score=sum(score for _, score in results),
            rating_before=row.rating, rating_after=after.rating, deviation_after=after.deviation, created_at=at,
        ))
        row.rating, row.deviation, row.volatility = after.rating, after.deviation, after.volatility
        row.series += 1
        row.wins += int(seat.place == 1 and sum(1 for o in seats if o.place == 1) == 1)
        row.last_rated_at = at
        row.save()
    SeriesRatingChange.objects.bulk_create(changes)
    return True


def leaderboard(limit: int = 50) -> list[Any]:
    """The multi-player leaderboard: established ratings (not provisional), the best first."""
    return list(SeriesRating.objects.select_related("user")
                .filter(series__gt=0, deviation__lt=PROVISIONAL_DEVIATION).order_by("-rating")[:limit])


def shown_ratings(user_ids: Iterable[int]) -> dict[int, str]:
    """The series rating of each of these players as shown ('1500?' without one), one query."""
    ids = list(user_ids)
    found = {r.user_id: r for r in SeriesRating.objects.filter(user_id__in=ids).only("user", "rating", "deviation")}
    return {uid: display(found.get(uid)) for uid in ids}
