"""Ratings in the API: the leaderboard and a player's rating with its history."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from . import selectors
from .models import Rating

User = get_user_model()


def rating_json(r: Rating | None) -> dict[str, Any]:
    if r is None:
        return {"rating": 1500.0, "deviation": 350.0, "volatility": 0.06, "provisional": True, "games": 0, "wins": 0,
                "draws": 0, "losses": 0, "points": 0, "points_per_game": 0.0, "shown": "1500?"}
    return {
        "rating": round(r.rating, 2), "deviation": round(r.deviation, 2), "volatility": round(r.volatility, 6),
        "provisional": r.provisional, "games": r.games, "wins": r.wins, "draws": r.draws, "losses": r.losses,
        "points": r.points, "points_per_game": round(r.points_per_game, 3), "shown": selectors.display(r),
        "last_rated_at": r.last_rated_at.isoformat() if r.last_rated_at else None,
    }


class LeaderboardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[OpenApiParameter("by", OpenApiTypes.STR, enum=["rating", "points"]),
                    OpenApiParameter("page", OpenApiTypes.INT)],
        responses=OpenApiTypes.OBJECT, summary="Top players by rating (established, active) or by points per game",
    )
    def get(self, request: Request) -> Response:
        by = request.query_params.get("by", "rating")
        if by not in ("rating", "points"):
            from games.errors import ServiceError

            raise ServiceError("by must be rating or points", "by")
        rows = selectors.points_table() if by == "points" else selectors.leaderboard()
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(rows, request, view=self)
        assert page is not None
        start = (paginator.page.number - 1) * paginator.page.paginator.per_page
        data = [{"rank": start + i + 1, "username": r.user.username, "is_bot": r.user.is_bot, **rating_json(r)}
                for i, r in enumerate(page)]
        return paginator.get_paginated_response(data)


class PlayerView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="A player's rating and rating history")
    def get(self, request: Request, username: str) -> Response:
        player = get_object_or_404(User, username=username)
        history = selectors.history(player)
        return Response({
            "username": player.username,
            "is_bot": player.is_bot,
            "rating": rating_json(selectors.rating_of(player)),
            "history": [
                {"game": c.game_id, "at": c.created_at.isoformat(), "opponent": c.opponent.username,
                 "score": c.score, "rating": round(c.rating_after, 2), "deviation": round(c.deviation_after, 2),
                 "change": round(c.delta, 2)}
                for c in history
            ],
        })
