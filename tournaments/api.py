"""Ratings in the API: the leaderboard and a player's rating with its history."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny, IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.errors import ServiceError
from games.ratings import display as rating_display

from . import selectors, services
from .models import TOURNAMENT_SETTINGS, Rating, Tournament
from .standings import TIEBREAKS

User = get_user_model()


def rating_json(r: Rating | None) -> dict[str, Any]:
    if r is None:
        return {"rating": 1500.0, "deviation": 350.0, "volatility": 0.06, "provisional": True, "games": 0, "wins": 0,
                "draws": 0, "losses": 0, "points": 0, "points_per_game": 0.0, "shown": "1500?"}
    return {
        "rating": round(r.rating, 2), "deviation": round(r.deviation, 2), "volatility": round(r.volatility, 6),
        "provisional": r.provisional, "games": r.games, "wins": r.wins, "draws": r.draws, "losses": r.losses,
        "points": r.points, "points_per_game": round(r.points_per_game, 3), "shown": rating_display(r),
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


# --- tournaments ----------------------------------------------------------------------------


class TournamentIn(serializers.ModelSerializer):  # type: ignore[type-arg]
    tiebreaks = serializers.CharField(
        required=False, allow_blank=True, max_length=60,
        help_text="tie-breaks after the score, in order, space-separated FIDE C.07 codes: " + ", ".join(TIEBREAKS),
    )

    class Meta:
        model = Tournament
        fields = TOURNAMENT_SETTINGS


def tournament_summary(t: Tournament) -> dict[str, Any]:
    return {
        "id": t.pk, "name": t.name, "status": t.status, "rounds": t.rounds, "current_round": t.current_round,
        "director": t.director.username, "starts_at": t.starts_at.isoformat(), "days_per_move": t.days_per_move,
        "rated": t.rated, "course_mode": t.course_mode, "players": t.registrations.count(),
    }


def tournament_detail(t: Tournament) -> dict[str, Any]:
    table = selectors.tournament_standings(t)
    return {
        **tournament_summary(t),
        **TournamentIn(t).data,
        "first_color": t.first_color,
        "tiebreak_order": list(t.tiebreak_order),
        "standings": [
            {"rank": r.rank, "start_number": r.start_number, "username": r.registration.user.username,
             "score": r.score, "tiebreaks": r.values, "buoy_points": r.buoy_points, "damage": r.damage,
             "withdrawn": r.registration.withdrawn_after is not None}
            for r in table
        ],
        "rounds": [
            {"number": rnd.number, "status": rnd.status, "deadline": rnd.deadline.isoformat(),
             "boards": [
                 {"board": e.board, "red": e.registration.user.username,
                  "yellow": e.opponent.user.username if e.opponent else None, "result": e.code or None,
                  "game": e.game_id}
                 for e in rnd.entries.filter(color="w").select_related("registration__user", "opponent__user")
             ],
             "byes": [{"username": e.registration.user.username, "code": e.code}
                      for e in rnd.entries.filter(opponent__isnull=True).select_related("registration__user")]}
            for rnd in t.round_set.order_by("number")
        ],
    }


class TournamentList(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(parameters=[OpenApiParameter("status", OpenApiTypes.STR)], responses=OpenApiTypes.OBJECT,
                   summary="Tournaments (upcoming, running, finished)")
    def get(self, request: Request) -> Response:
        rows = Tournament.objects.select_related("director").order_by("-starts_at")
        wanted = request.query_params.get("status")
        if wanted:
            rows = rows.filter(status=wanted)
        return Response([tournament_summary(t) for t in rows[:200]])

    @extend_schema(request=TournamentIn, responses={201: OpenApiTypes.OBJECT}, summary="Direct a new tournament")
    def post(self, request: Request) -> Response:
        serializer = TournamentIn(data=request.data)
        serializer.is_valid(raise_exception=True)
        t = services.tournament_create(director=request.user, **serializer.validated_data)
        return Response(tournament_detail(t), status=status.HTTP_201_CREATED)


class TournamentDetail(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="A tournament: settings, standings, rounds and pairings")
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(tournament_detail(get_object_or_404(Tournament, pk=tournament_id)))


class TournamentAction(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT,
                   summary="register | withdraw | remove (director: username) | bye (director: username, round)")
    def post(self, request: Request, tournament_id: int, action: str) -> Response:
        if action == "register":
            services.tournament_register(user=request.user, tournament_id=tournament_id)
        elif action == "withdraw":
            services.tournament_withdraw(user=request.user, tournament_id=tournament_id)
        elif action in ("remove", "bye"):
            player = User.objects.filter(username=request.data.get("username", "")).first()
            if player is None:
                raise ServiceError("username must name a player", "username")
            if action == "remove":
                services.tournament_withdraw(user=player, tournament_id=tournament_id, by_director=request.user)
            else:
                number = request.data.get("round")
                if not isinstance(number, int) or isinstance(number, bool):
                    raise ServiceError("round must be a round number", "round")
                services.tournament_set_bye(director=request.user, tournament_id=tournament_id, user=player,
                                            round_number=number)
        else:
            raise ServiceError("action must be register, withdraw, remove or bye", "action")
        return Response(tournament_detail(get_object_or_404(Tournament, pk=tournament_id)))


class TournamentTrf(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR},
                   summary="The tournament as FIDE TRF-16 (UTF-8, with XXR, XXC, 152 and PBS records)")
    def get(self, request: Request, tournament_id: int) -> HttpResponse:
        t = get_object_or_404(Tournament, pk=tournament_id)
        return HttpResponse(selectors.tournament_trf_export(t), content_type="text/plain; charset=utf-8")


