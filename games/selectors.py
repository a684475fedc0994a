"""Reads for games and challenges, shared by the site and the API: every game, whatever its
ruleset (its players are its seats)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Case, DateTimeField, Exists, F, IntegerField, OuterRef, Prefetch, Q, QuerySet, Value, When

from common.db.reading import rows_where
from games.engine import Series

from .loading import game_and_seats, game_seats_and_drawing
from .models import Challenge, Game, Move, Seat
from .payloads import game_detail, series_detail
from .ratings.models import Rating
from .rulesets import match_of


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


def with_players(games: QuerySet[Game]) -> QuerySet[Game]:
    """Games with their seats and players (two more queries for the whole list, not two per game)."""
    return games.select_related("created_by").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index", "joined_at", "pk")))


def plays_in(user: Any) -> Q:
    """The games ``user`` has a seat in (one EXISTS: no duplicates in a list of games)."""
    return Q(Exists(Seat.objects.filter(game=OuterRef("pk"), user=user)))


def to_move_is(user: Any) -> Q:
    """The games where it is ``user``'s turn (their seat is the one to move)."""
    return Q(Exists(Seat.objects.filter(game=OuterRef("pk"), user=user, index=OuterRef("to_move"))))


def games_of(user: Any) -> QuerySet[Game]:
    """A player's games of every ruleset (not an open series still waiting for players, nor a
    cancelled one), urgent first: those where it is their turn, the nearest deadline first; then
    their other games going on, the latest move first; then the finished ones, the latest first
    (the page, the API and the "Next game" link read them in this order: issue 26)."""
    yours = to_move_is(user) & Q(status=Game.Status.ACTIVE)
    return with_players(
        Game.objects.filter(plays_in(user), status__in=[Game.Status.ACTIVE, Game.Status.FINISHED])
        .annotate(
            sort=Case(
                When(yours, then=Value(0)),
                When(status=Game.Status.ACTIVE, then=Value(1)),
                default=Value(2),
                output_field=IntegerField(),
            ),
            due=Case(When(yours, then=F("deadline")), default=None, output_field=DateTimeField()),
            moved=Case(When(status=Game.Status.ACTIVE, then=F("turn_started_at")), default=F("finished_at"),
                       output_field=DateTimeField()),
        )
        .order_by("sort", F("due").asc(nulls_last=True), F("moved").desc(nulls_last=True), "-updated_at", "-pk")
    )


def games_to_move(user: Any) -> QuerySet[Game]:
    """The games going on where it is the user's turn, the soonest deadline first."""
    return Game.objects.filter(to_move_is(user), status=Game.Status.ACTIVE).order_by("deadline", "pk")


def game_with_seats(game_id: int) -> tuple[Game, list[Seat]] | None:
    """A game to show, with its seats and their players, in one query. None when there is no
    such game (games.loading: the same read as the locked one of the services)."""
    return game_and_seats(game_id)


def game_to_show(game_id: int, language: str, version: str
                 ) -> tuple[Game, list[Seat], tuple[bytes, list[float]] | None, dict[int, Rating]] | None:
    """A game to show on its page: the same read, with its board's drawing stored in that
    language and version (games.board.static_layers) when there is one, and its players'
    two-player ratings (by user id, those who have one)."""
    return game_seats_and_drawing(game_id, language, version)


MOVE_LIST_COLUMNS = ("game", "ply", "race", "seat", "kind", "termination", "notation", "planned")
# a series' list of actions (games.payloads.action_entries: a roll's turn made for it is told by ``auto``)
ACTION_LIST_COLUMNS = (*MOVE_LIST_COLUMNS, "auto")
# a two-player game's page: its move list, each row in words (games.movetext.long_forms) and the
# boats as they stood (games.views.position_at); not who played it, when, or the dice before it
PAGE_COLUMNS = (*ACTION_LIST_COLUMNS, "choice", "dice", "direction", "start", "path", "final", "heading", "damage",
                "damage_total", "crash", "rounded", "finished", "sunk")


def history(game: Game, columns: tuple[str, ...] | None = None) -> list[Move]:
    """The history rows of a game in ply order up to the game as read (``columns``: only those,
    e.g. for a move list): a row another request committed since is not shown with it."""
    rows = [row for row in rows_where(Move, "game", [game.pk], columns) if row.ply < game.ply]
    for row in rows:
        row.game = game
    return sorted(rows, key=lambda row: row.ply)


def detail_of(game: Game, seats: list[Seat], user: Any = None) -> dict[str, Any]:
    """A game's full state as the API answers it (and its streams): a two-player game from its
    stored state and its move list, a series from the engine's replay (kept per process) and its
    history (payloads)."""
    user = user if user is not None else AnonymousUser()
    if not game.multi_race:
        return game_detail(game, user, seats, moves=history(game, MOVE_LIST_COLUMNS))
    if game.status in (Game.Status.OPEN, Game.Status.CANCELLED):
        return series_detail(game, seats, None, (), user)
    match = match_of(game, seats)
    assert isinstance(match, Series)
    # only the columns its list of actions shows: all of a long series' rows, with their JSON, were
    # most of an API read of it
    return series_detail(game, seats, match, history(game, ACTION_LIST_COLUMNS), user)


def rated_games_in_order() -> QuerySet[Game]:
    """The rated two-player games that ended, in the order they did, with their seats
    (games.ratings.services.recompute_all replays them)."""
    return (
        Game.objects.filter(status=Game.Status.FINISHED, rated=True, series_number__isnull=True)
        .exclude(termination="")
        .order_by("finished_at", "pk")
        .prefetch_related("seats")
    )


def head_to_head(user: Any, opponent: Any) -> dict[str, int]:
    """The two-player games between two players and how they went."""
    games = Game.objects.filter(plays_in(user), plays_in(opponent), status=Game.Status.FINISHED,
                                series_number__isnull=True)
    wins = games.filter(winner=user).count()
    losses = games.filter(winner=opponent).count()
    total = games.count()
    return {"games": total, "wins": wins, "losses": losses, "draws": total - wins - losses}


def live_games(limit: int = 5) -> list[Game]:
    """Games in progress, the most recently moved first (the home page), in one indexed query."""
    return list(with_players(
        Game.objects.filter(status=Game.Status.ACTIVE).exclude(phase=Game.Phase.PLACE).order_by("-updated_at")
    )[:limit])


# --- games of the boxed rules in the lobby (series) ------------------------------------------------


def series_with_seats(number: int) -> tuple[Game, list[Seat]] | None:
    """A game of the boxed rules by its number as a series (old addresses: /series/<n>/)."""
    game = Game.objects.filter(series_number=number).only("pk").first()
    return game_and_seats(game.pk) if game is not None else None


def game_id_of_series(number: int) -> int | None:
    return Game.objects.filter(series_number=number).values_list("pk", flat=True).first()


def _series(queryset: QuerySet[Game]) -> list[tuple[Game, list[Seat]]]:
    return [(g, g.seat_list()) for g in with_players(queryset.filter(series_number__isnull=False))[:100]]


def open_series_and_mine(user: Any) -> list[tuple[Game, list[Seat]]]:
    """Open series (the lobby) and every series the user has a seat in, newest first."""
    query = Q(status=Game.Status.OPEN)
    if getattr(user, "pk", None):
        query |= plays_in(user) & ~Q(status=Game.Status.CANCELLED)
    return _series(Game.objects.filter(query).order_by("-updated_at"))


def open_games() -> QuerySet[Game]:
    """Games open in the lobby (seats to take), newest first, with their seats and players: for
    a list read page by page."""
    return with_players(Game.objects.filter(status=Game.Status.OPEN).order_by("-created_at", "-pk"))


def series_to_move(user: Any) -> QuerySet[Game]:
    """The series going on where it is the user's turn, the soonest deadline first."""
    return games_to_move(user).filter(series_number__isnull=False)


def series_of(user: Any) -> list[tuple[Game, list[Seat]]]:
    return _series(Game.objects.filter(plays_in(user)).exclude(status=Game.Status.CANCELLED).order_by("-updated_at"))


def outcome(game: Game, user: Any) -> str | None:
    """A finished game from ``user``'s side: "won", "lost" or "draw"; None while it goes on or
    when ``user`` does not play in it."""
    if not game.over or game.seat_of(user) is None:
        return None
    if not game.winner_id:
        return "draw"
    return "won" if game.winner_id == user.pk else "lost"
