"""Rating services: Glicko-2 for every rated game (docs/ratings.md), in two pools: two-player
games (``Rating``) and series of the boxed game (``SeriesRating``: pairwise, one rating period
per series); a multi-player result never moves the two-player rating.

:func:`rate` is called by the one function that finishes a game (``games.services._finish``),
inside its transaction, so the result and the ratings are stored together; it is idempotent (one
change per game and player). :func:`recompute_all` replays rated two-player games in order and
reports differences. A game is read as a :class:`RatedGame` (the games app's ``Game`` is one):
this app imports nothing of the games app.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.db import transaction
from django.db.models import Exists
from django.utils import timezone

from common.db.writing import Writes

from . import glicko2
from .models import Rating, RatingChange, SeriesRating, SeriesRatingChange

FINISHED = "finished"  # a game's status once it has ended
RATING_PERIOD = timedelta(days=7)  # a player's deviation grows by one idle period per week without rated games
MIN_DEVIATION = 45.0
MAX_DEVIATION = 350.0


class RatedSeat(Protocol):
    """A player's seat in a rated game, as rating reads it."""

    pk: Any
    index: int | None
    color: str
    user_id: Any
    moves: int
    points: int
    place: int | None

    @property
    def user(self) -> Any: ...


class RatedGame(Protocol):
    """A finished game, as rating reads it (games.models.Game)."""

    pk: Any
    rated: bool
    status: str
    termination: str
    winner_color: str
    finished_at: datetime | None
    updated_at: datetime

    @property
    def multi_race(self) -> bool: ...

    def seat_list(self) -> Any: ...


def is_rated(game: RatedGame, seats: Sequence[RatedSeat] | None = None) -> bool:
    """Rated two-player games count, except a game lost on time before the loser's first move."""
    if not game.rated or game.status != FINISHED or not game.termination:
        return False
    if game.termination == "timeout" and game.winner_color:
        seats = seats if seats is not None else game.seat_list()
        loser = next(s for s in seats if s.index is not None and s.color != game.winner_color)
        if loser.moves == 0:
            return False
    return True


def rate(game: RatedGame, seats: Sequence[RatedSeat], writes: Writes | None = None) -> bool:
    """Rate a finished game in its ruleset's pool (in the caller's transaction; ``seats`` are its
    playing seats); returns whether it was rated."""
    if game.multi_race:
        return rate_series(game, seats)
    return rate_game(game, seats, writes)


def scores(game: RatedGame) -> tuple[float, float]:
    """(Yellow's score, Red's score)."""
    if not game.winner_color:
        return 0.5, 0.5
    return (1.0, 0.0) if game.winner_color == "yellow" else (0.0, 1.0)


class Rated(Protocol):
    """A stored rating: a two-player ``Rating`` or a multi-player ``SeriesRating``."""

    @property
    def value(self) -> glicko2.Rating: ...

    @property
    def last_rated_at(self) -> datetime | None: ...


def before_game(rating: Rated, at: datetime) -> glicko2.Rating:
    """The rating a player brings to a game (or a series) at ``at``: the deviation grown for
    every whole idle period (a week) since the last rated one, within the bounds."""
    value = rating.value
    if rating.last_rated_at is not None and at > rating.last_rated_at:
        periods = math.floor((at - rating.last_rated_at) / RATING_PERIOD)
        if periods > 0:
            value = glicko2.idle(value, periods)
    return bounded(value)


def bounded(value: glicko2.Rating) -> glicko2.Rating:
    """The deviation kept within MIN_DEVIATION and MAX_DEVIATION (the rating as it is)."""
    deviation = min(MAX_DEVIATION, max(MIN_DEVIATION, value.deviation))
    return glicko2.Rating(value.rating, deviation, value.volatility)


@dataclass(frozen=True)
class Update:
    user_id: int
    opponent_id: int
    score: float
    before: glicko2.Rating
    after: glicko2.Rating
    opponent: glicko2.Rating
    points: int


def updates_for(game: RatedGame, ratings: dict[int, Rating], at: datetime,
                seats: Sequence[RatedSeat] | None = None) -> list[Update]:
    """The two rating updates of one game (both computed from the ratings before it)."""
    by_index = {s.index: s for s in (seats if seats is not None else game.seat_list())}
    players = (by_index[0].user_id, by_index[1].user_id)
    before = {uid: before_game(ratings[uid], at) for uid in players}
    out = []
    for seat, score in enumerate(scores(game)):
        me, other = players[seat], players[1 - seat]
        after = bounded(glicko2.rate(before[me], [(before[other], score)]))
        out.append(Update(me, other, score, before[me], after, before[other], by_index[seat].points))
    return out


def apply(ratings: dict[int, Rating], updates: list[Update], at: datetime) -> None:
    for u in updates:
        r = ratings[u.user_id]
        r.rating, r.deviation, r.volatility = u.after.rating, u.after.deviation, u.after.volatility
        r.games += 1
        r.wins += u.score == 1.0
        r.draws += u.score == 0.5
        r.losses += u.score == 0.0
        r.points += u.points
        r.points_per_game = r.points / r.games
        r.last_rated_at = at


RATING_FIELDS = ("rating", "deviation", "volatility", "games", "wins", "draws", "losses", "points", "points_per_game",
                 "last_rated_at")  # what a rated game changes (apply)


def _locked_ratings(pool: type[Any], changes: type[Any], game_id: Any, ids: list[Any]) -> dict[Any, Any] | None:
    """The players' ratings in ``pool`` (``Rating`` or ``SeriesRating``), locked in the order of
    their ids (a player's first rated game makes theirs), or None when the game has its rating
    ``changes`` already (rated once). One query when every player has a rating: the changes are
    looked for in the same statement. A player's first rated game adds the look for the changes,
    the insert of the new ratings and their locked read."""
    rated_already = Exists(changes.objects.filter(game_id=game_id))
    rows = list(pool.objects.select_for_update(of=("self",)).filter(user_id__in=ids).annotate(done=rated_already)
                .order_by("user_id"))
    if rows[0].done if rows else changes.objects.filter(game_id=game_id).exists():
        return None
    if len(rows) < len(ids):
        pool.objects.bulk_create([pool(user_id=uid) for uid in ids], ignore_conflicts=True)
        rows = list(pool.objects.select_for_update().filter(user_id__in=ids).order_by("user_id"))
    return {r.user_id: r for r in rows}


def rate_game(game: RatedGame, seats: Sequence[RatedSeat] | None = None, writes: Writes | None = None) -> bool:
    """Update both players' ratings for a finished game, once. Call inside the transaction that
    finished it (``games.services._finish``), with its seats if they are loaded; with ``writes``
    the new ratings and their history join the move's other writes (common.db.writing)."""
    if not is_rated(game, seats):
        return False
    at = game.finished_at or game.updated_at
    seats = seats if seats is not None else game.seat_list()
    ratings = _locked_ratings(Rating, RatingChange, game.pk, sorted({s.user_id for s in seats}))
    if ratings is None:
        return False
    updates = updates_for(game, ratings, at, seats)
    apply(ratings, updates, at)
    own = writes if writes is not None else Writes()
    for r in ratings.values():
        own.update(r, RATING_FIELDS)
    own.insert([
        RatingChange(
            game_id=game.pk, user_id=u.user_id, opponent_id=u.opponent_id, score=u.score,
            rating_before=u.before.rating, deviation_before=u.before.deviation, volatility_before=u.before.volatility,
            rating_after=u.after.rating, deviation_after=u.after.deviation, volatility_after=u.after.volatility,
            opponent_rating=u.opponent.rating, opponent_deviation=u.opponent.deviation, points=u.points,
            created_at=at,
        )
        for u in updates
    ])
    if writes is None:
        own.send()
    return True


def recompute_all(games: Iterable[RatedGame], *, write: bool = False) -> list[str]:
    """Replay the rated two-player ``games`` (every one, in the order they finished, with their
    seats: games.selectors.rated_games_in_order) from default ratings; list where the stored
    ratings differ. With ``write`` the stored ratings and history are replaced by the replay."""
    fresh: dict[int, Rating] = {}
    changes: list[RatingChange] = []
    for game in games:
        seats = sorted(game.seat_list(), key=lambda s: s.index or 0)
        if not is_rated(game, seats):
            continue
        for seat in seats:
            fresh.setdefault(seat.user_id, Rating(user_id=seat.user_id))
        at = game.finished_at or game.updated_at
        updates = updates_for(game, fresh, at, seats)
        apply(fresh, updates, at)
        if write:
            changes.extend(
                RatingChange(
                    game_id=game.pk, user_id=u.user_id, opponent_id=u.opponent_id, score=u.score,
                    rating_before=u.before.rating, deviation_before=u.before.deviation,
                    volatility_before=u.before.volatility, rating_after=u.after.rating,
                    deviation_after=u.after.deviation, volatility_after=u.after.volatility,
                    opponent_rating=u.opponent.rating, opponent_deviation=u.opponent.deviation, points=u.points,
                    created_at=at,
                )
                for u in updates
            )
    stored = {r.user_id: r for r in Rating.objects.all()}
    problems = []
    for uid in sorted(set(fresh) | set(stored)):
        a, b = fresh.get(uid), stored.get(uid)
        if a is None or b is None:
            if (a or b) and (a or b).games:  # type: ignore[union-attr]
                problems.append(f"user {uid}: {'no stored rating' if b is None else 'a stored rating without games'}")
            continue
        fields = ("rating", "deviation", "volatility")
        if any(abs(getattr(a, f) - getattr(b, f)) > 1e-6 for f in fields) or (a.games, a.points) != (b.games, b.points):
            problems.append(
                f"user {uid}: stored {b.rating:.4f}/{b.deviation:.4f}/{b.volatility:.6f} ({b.games} games), "
                f"replay {a.rating:.4f}/{a.deviation:.4f}/{a.volatility:.6f} ({a.games} games)"
            )
    if write:
        with transaction.atomic():
            RatingChange.objects.all().delete()
            Rating.objects.all().delete()
            Rating.objects.bulk_create(fresh.values(), batch_size=5000)
            RatingChange.objects.bulk_create(changes, batch_size=5000)
    return problems




# --- series of the boxed game: a pool of their own --------------------------------------------------
# A finished rated series is one rating period for each of its players: every pair of players is
# a game between them, won by the one placed higher in the final series table (R19; a shared
# place is a draw; players who left rank below those who stayed, R18). Each player is rated once,
# against all the others at once, from the ratings everyone had before the series (glicko2.rate
# with n - 1 results), so the order in which pairs are taken does not matter. As for two-player
# games, deviations grow with idle weeks (before_game) and stay bounded, and a rating is
# provisional while its deviation is PROVISIONAL_DEVIATION or more.


def pair_score(mine: int, theirs: int) -> float:
    """One pair of a series: 1 for the higher place (a smaller number), ½ for a shared one."""
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def rate_series(game: RatedGame, seats: Sequence[RatedSeat]) -> bool:
    """Rate a finished series (in the caller's transaction); returns whether it was rated.
    Unrated series, and series with a bot, are not rated. The series is rated at its finishing
    time: idle weeks are counted up to it."""
    if not game.rated or any(getattr(s.user, "is_bot", False) for s in seats):
        return False
    at = game.finished_at or timezone.now()
    ratings = _locked_ratings(SeriesRating, SeriesRatingChange, game.pk, sorted({s.user_id for s in seats}))
    if ratings is None:
        return False
    before = {s.user_id: before_game(ratings[s.user_id], at) for s in seats}
    changes = []
    for seat in seats:
        assert seat.place is not None
        results = [(before[o.user_id], pair_score(seat.place, o.place or 0)) for o in seats if o.pk != seat.pk]
        after = bounded(glicko2.rate(before[seat.user_id], results))
        row = ratings[seat.user_id]
        changes.append(SeriesRatingChange(
            game_id=game.pk, user=seat.user, place=seat.place, score=sum(score for _, score in results),
            rating_before=row.rating, rating_after=after.rating, deviation_after=after.deviation, created_at=at,
        ))
        row.rating, row.deviation, row.volatility = after.rating, after.deviation, after.volatility
        row.series += 1
        row.wins += int(seat.place == 1 and sum(1 for o in seats if o.place == 1) == 1)
        row.last_rated_at = at
        row.save()
    SeriesRatingChange.objects.bulk_create(changes)
    return True


