"""Reads around games (issue 13): chat, rematch offers, the next game to move, games to watch,
player search. (A game's result from a viewer's side is a read of games: games.selectors.outcome.)"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Exists, F, Q, QuerySet

from accounts.names import name_key
from games.models import Challenge, Game
from games.selectors import to_move_is, with_players

from .models import ChatMessage, ChatMute

User = get_user_model()
CHAT_SHOWN = 100  # the latest lines shown with a game
SEARCH_LIMIT = 20


def chat_of(game: Game, viewer: Any = None, limit: int = CHAT_SHOWN) -> list[ChatMessage]:
    """The latest chat lines of a game as ``viewer`` sees them, oldest first, in one query: a
    player who muted the opponent does not see the opponent's lines."""
    lines = ChatMessage.objects.filter(game=game).select_related("user").only(
        "game_id", "text", "created_at", "user__username", "user__is_bot")
    seat = game.seat_of(viewer)
    if seat is not None:  # a player who muted the chat sees only their own lines
        muted = ChatMute.objects.filter(game=game, user_id=viewer.pk)
        lines = lines.annotate(muted=Exists(muted)).exclude(Q(muted=True) & ~Q(user_id=viewer.pk))
    rows = list(lines.order_by("-created_at", "-id")[:limit])
    rows.reverse()
    return rows


def has_muted(game: Game, user: Any) -> bool:
    return game.seat_of(user) is not None and ChatMute.objects.filter(game=game, user_id=user.pk).exists()


def rematch_of(game: Game) -> Challenge | None:
    """The rematch offered after a game (open or accepted), if any."""
    return (Challenge.objects.filter(rematch_of=game, status__in=[Challenge.Status.OPEN, Challenge.Status.ACCEPTED])
            .select_related("created_by").first())


def games_awaiting(user: Any) -> QuerySet[Game]:
    """The user's active games (of every ruleset) where it is their turn, the earliest deadline
    first."""
    return with_players(Game.objects.filter(to_move_is(user), status=Game.Status.ACTIVE)
                        .order_by(F("deadline").asc(nulls_last=True), "pk"))


def next_game_to_move(user: Any, exclude: int | None = None) -> Game | None:
    """The game awaiting the user's move with the oldest deadline (other than ``exclude``)."""
    games = games_awaiting(user)
    if exclude is not None:
        games = games.exclude(pk=exclude)
    return games.first()


def games_to_watch() -> QuerySet[Game]:
    """Games in progress (of every ruleset), the one with the newest move first."""
    return with_players(Game.objects.filter(status=Game.Status.ACTIVE).order_by("-updated_at", "-pk"))


def players_matching(query: str, limit: int = SEARCH_LIMIT) -> list[Any]:
    """Players whose name starts with ``query``, case and look-alike letters folded
    (accounts/names.py ``name_key``): "DEM" and "dеm" (Cyrillic е) both find demo."""
    query = query.strip()
    if not query:
        return []
    # name_key folds look-alikes before case ("I" looks like "l"), so the query is folded as
    # typed and in lower case: "MI" finds mia as "mi" does
    keys = {name_key(query), name_key(query.casefold())}
    match = Q()
    for key in keys:
        match |= Q(name_key__startswith=key)
    return list(User.objects.filter(match, is_active=True)
                .only("username", "is_bot").order_by("username")[:limit])
