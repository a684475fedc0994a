"""Reads for games, series and challenges, shared by the site and the API."""

from __future__ import annotations

from typing import Any

from django.db.models import Case, F, IntegerField, Q, QuerySet, Value, When

from .loading import game_and_seats, game_seats_and_drawing, rows_where
from .models import Challenge, Game, Move, Rating, Seat
from .models_series import SeriesGame, SeriesSeat


def open_challenges(user: Any = None) -> QuerySet[Challenge]:
    """Open challenges anyone may accept, and those made to ``user``."""
    visible = Q(opponent__isnull=True)
    if user is not None and user.is_authenticated:
        visible |= Q(opponent=user) | Q(created_by=user)
    return (
        Challenge.objects.filter(visible, status=Challenge.Status.OPEN)
        .select_related("created_by", "opponent")
        .order_by("-created_at")
    )


def games_of(user: Any) -> QuerySet[Game]:
    """A player's games: active ones where it is their turn first, then other active ones,
    then finished ones, most recent first."""
    mine = Q(yellow=user) | Q(red=user)
    my_turn = Q(status=Game.Status.ACTIVE) & (Q(yellow=user, to_move=0) | Q(red=user, to_move=1))
    return (
        Game.objects.filter(mine)
        .select_related("yellow", "red")
        .annotate(
            sort=Case(
                When(my_turn, then=Value(0)),
                When(status=Game.Status.ACTIVE, then=Value(1)),
                default=Value(2),
                output_field=IntegerField(),
            )
        )
        .order_by("sort", "-updated_at")
    )


def games_to_move(user: Any) -> QuerySet[Game]:
    return games_of(user).filter(sort=0)  # type: ignore[misc]  # "sort" is games_of's annotation


def game_with_seats(game_id: int) -> tuple[Game, list[Seat]] | None:
    """A game to show, with its players and its seats, in one query. None when there is no
    such game (games.loading: the same read as the locked one of the services)."""
    return game_and_seats(game_id)


def game_to_show(game_id: int, language: str, version: str
                 ) -> tuple[Game, list[Seat], tuple[bytes, list[float]] | None] | None:
    """A game to show on its page: the same read, with its board's drawing stored in that
    language and version (games.board.static_layers) when there is one."""
    return game_seats_and_drawing(game_id, language, version)


def ratings_of(user_ids: list[int]) -> dict[int, Rating]:
    """The ratings of some players (those who have one), in one small query."""
    return {r.user_id: r for r in rows_where(Rating, "user", user_ids, ("user", "rating", "deviation"))}


MOVE_LIST_COLUMNS = ("game", "ply", "seat", "kind", "termination", "notation")


def history(game: Game, columns: tuple[str, ...] | None = None) -> list[Move]:
    """The history rows of a game in ply order (``columns``: only those, e.g. for a move list)."""
    rows = rows_where(Move, "game", [game.pk], columns)
    for row in rows:
        row.game = game
    return sorted(rows, key=lambda row: row.ply)


def live_games(limit: int = 5) -> list[Game]:
    """Games in progress, the most recently moved first (the home page), in one indexed query."""
    return list(
        Game.objects.filter(status=Game.Status.ACTIVE).exclude(phase=Game.Phase.PLACE)
        .select_related("yellow", "red").order_by("-updated_at")[:limit]
    )


# --- series of the boxed game (issue 16): payloads_series shapes them ---------------------------


def series_with_seats(series_id: int) -> tuple[SeriesGame, list[SeriesSeat]] | None:
    series = SeriesGame.objects.select_related("created_by", "winner").filter(pk=series_id).first()
    if series is None:
        return None
    return series, list(series.seats.select_related("user").order_by("index", "joined_at", "pk"))


def _with_seats(queryset: QuerySet[SeriesGame]) -> list[tuple[SeriesGame, list[SeriesSeat]]]:
    rows = list(queryset.select_related("created_by")[:100])
    seats: dict[int, list[SeriesSeat]] = {s.pk: [] for s in rows}
    for seat in SeriesSeat.objects.filter(series__in=rows).select_related("user").order_by("index", "joined_at"):
        seats[seat.series_id].append(seat)
    return [(s, seats[s.pk]) for s in rows]


def open_series_and_mine(user: Any) -> list[tuple[SeriesGame, list[SeriesSeat]]]:
    """Open series (the lobby) and every series the user has a seat in, newest first."""
    query = Q(status=SeriesGame.Status.OPEN)
    if getattr(user, "pk", None):
        query |= Q(seats__user=user) & ~Q(status=SeriesGame.Status.CANCELLED)
    return _with_seats(SeriesGame.objects.filter(query).distinct().order_by("-updated_at"))


def open_series() -> list[tuple[SeriesGame, list[SeriesSeat]]]:
    return _with_seats(SeriesGame.objects.filter(status=SeriesGame.Status.OPEN).order_by("-created_at"))


def series_to_move(user: Any) -> QuerySet[SeriesGame]:
    """The series going on where it is the user's turn (a started series' seat index is its
    place in the turn order: ``to_move`` names it), the soonest deadline first."""
    return SeriesGame.objects.filter(status=SeriesGame.Status.ACTIVE, seats__user=user,
                                     seats__index=F("to_move")).order_by("deadline", "pk")


def series_of(user: Any) -> list[tuple[SeriesGame, list[SeriesSeat]]]:
    return _with_seats(SeriesGame.objects.filter(seats__user=user).exclude(status=SeriesGame.Status.CANCELLED)
                       .distinct().order_by("-updated_at"))
