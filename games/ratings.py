"""Rating services: Glicko-2 for every rated game (docs/ratings.md).

``rate_game`` is called by the one function that finishes a game (``games.services``), inside
its transaction, so the result and the ratings are stored together; it is idempotent (one
``RatingChange`` per game and player). ``recompute_all`` replays every rated game in order and
reports differences.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q

from . import glicko2
from .models import Game, Rating, RatingChange, Seat
from .writing import Writes

User = get_user_model()
RATING_PERIOD = timedelta(days=7)  # a player's deviation grows by one idle period per week without rated games
MIN_DEVIATION = 45.0
MAX_DEVIATION = 350.0


def display(rating: Rating | None) -> str:
    """A rating as shown: provisional ratings get a question mark."""
    if rating is None:
        return "1500?"
    return f"{rating.rating:.0f}{'?' if rating.provisional else ''}"


def is_rated(game: Game, seats: Sequence[Seat] | None = None) -> bool:
    """Rated games count, except a game lost on time before the loser's first move."""
    if not game.rated or game.status != Game.Status.FINISHED or not game.termination:
        return False
    if game.termination == "timeout" and game.winner_color:
        loser = 1 if game.winner_color == "yellow" else 0
        moves = seats[loser].moves if seats is not None else game.seats.get(index=loser).moves
        if moves == 0:
            return False
    return True


def scores(game: Game) -> tuple[float, float]:
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


def updates_for(game: Game, ratings: dict[int, Rating], at: datetime,
                seats: Sequence[Seat] | None = None) -> list[Update]:
    """The two rating updates of one game (both computed from the ratings before it)."""
    by_index = {s.index: s for s in (seats if seats is not None else game.seats.all())}
    players = (game.yellow_id, game.red_id)
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


def rate_game(game: Game, seats: Sequence[Seat] | None = None, writes: Writes | None = None) -> bool:
    """Update both players' ratings for a finished game, once. Call inside the transaction that
    finished it (``games.services._finish``), with its seats if they are loaded; with ``writes``
    the new ratings and their history join the move's other writes (games.writing)."""
    if not is_rated(game, seats) or RatingChange.objects.filter(game=game).exists():
        return False
    at = game.finished_at or game.updated_at
    ids = sorted({game.yellow_id, game.red_id})
    Rating.objects.bulk_create([Rating(user_id=uid) for uid in ids], ignore_conflicts=True)  # a first rated game
    ratings = {r.user_id: r for r in Rating.objects.select_for_update().filter(user_id__in=ids).order_by("user_id")}
    updates = updates_for(game, ratings, at, seats)
    apply(ratings, updates, at)
    own = writes if writes is not None else Writes()
    for r in ratings.values():
        own.update(r, RATING_FIELDS)
    own.insert([
        RatingChange(
            game=game, user_id=u.user_id, opponent_id=u.opponent_id, score=u.score,
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


def rated_games_in_order() -> Any:
    return (
        Game.objects.filter(status=Game.Status.FINISHED, rated=True)
        .exclude(termination="")
        .order_by("finished_at", "pk")
        .prefetch_related("seats")
    )


def recompute_all(*, write: bool = False) -> list[str]:
    """Replay every rated game in order from default ratings; list where the stored ratings differ.

    With ``write`` the stored ratings and history are replaced by the replay."""
    fresh: dict[int, Rating] = {}
    changes: list[RatingChange] = []
    for game in rated_games_in_order().iterator(chunk_size=2000):
        seats = {s.index: s for s in game.seats.all()}
        if game.termination == "timeout" and game.winner_color:
            loser = 1 if game.winner_color == "yellow" else 0
            if seats[loser].moves == 0:
                continue
        for uid in (game.yellow_id, game.red_id):
            fresh.setdefault(uid, Rating(user_id=uid))
        at = game.finished_at or game.updated_at
        updates = updates_for(game, fresh, at)
        apply(fresh, updates, at)
        if write:
            changes.extend(
                RatingChange(
                    game=game, user_id=u.user_id, opponent_id=u.opponent_id, score=u.score,
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


def head_to_head(user: Any, opponent: Any) -> dict[str, int]:
    games = Game.objects.filter(status=Game.Status.FINISHED).filter(
        Q(yellow=user, red=opponent) | Q(yellow=opponent, red=user)
    )
    wins = games.filter(winner=user).count()
    losses = games.filter(winner=opponent).count()
    total = games.count()
    return {"games": total, "wins": wins, "losses": losses, "draws": total - wins - losses}
