"""Ratings and tournaments in the API: the leaderboard, a player's rating with its history, and
Swiss tournaments (list, create, detail, register, withdraw, remove, bye, TRF export).

Every answer has a serializer in the schema; errors are JSON (common.schema.ErrorOut)."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth import get_user_model
from django.db import models
from django.http import HttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.errors import NotFound, ServiceError
from common.pagination import Pages
from common.schema import StatedPattern, errors
from common.strict import StrictInput, StrictModelInput
from games import api_enums
from games.api import GRACE_HELP, AsSent, Flag
from games.clock import BANK_ADD_HOURS_MAX, BANK_DAYS_MAX
from games.models import LakeSide
from games.ratings.models import Rating
from games.ratings.selectors import display as rating_display

from . import selectors, services
from .models import TOURNAMENT_SETTINGS, Tournament
from .standings import TIEBREAKS

User = get_user_model()
MAX_ROUNDS = 30  # a Swiss tournament's rounds, as tournaments.services._check (tests/games/test_api_schema_limits.py)


class RatingOut(serializers.Serializer):  # type: ignore[type-arg]
    rating = serializers.FloatField()
    deviation = serializers.FloatField()
    volatility = serializers.FloatField()
    provisional = serializers.BooleanField(help_text="while the deviation is 110 or more (shown as 1500?)")
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    points = serializers.IntegerField(help_text="game points (R14) in rated games")
    points_per_game = serializers.FloatField()
    shown = serializers.CharField(help_text="as shown on the site, e.g. 1543 or 1500?")
    last_rated_at = serializers.DateTimeField(allow_null=True)


class LeaderboardRowOut(RatingOut):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


class RatingChangeOut(serializers.Serializer):  # type: ignore[type-arg]
    game = serializers.IntegerField()
    at = serializers.DateTimeField()
    opponent = serializers.CharField()
    score = serializers.FloatField()
    rating = serializers.FloatField()
    deviation = serializers.FloatField()
    change = serializers.FloatField()


class PlayerOut(serializers.Serializer):  # type: ignore[type-arg]
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    rating = RatingOut()
    history = RatingChangeOut(many=True)


def rating_json(r: Rating | None) -> dict[str, Any]:
    if r is None:
        return {"rating": 1500.0, "deviation": 350.0, "volatility": 0.06, "provisional": True, "games": 0, "wins": 0,
                "draws": 0, "losses": 0, "points": 0, "points_per_game": 0.0, "shown": "1500?",
                "last_rated_at": None}
    return {
        "rating": round(r.rating, 2), "deviation": round(r.deviation, 2), "volatility": round(r.volatility, 6),
        "provisional": r.provisional, "games": r.games, "wins": r.wins, "draws": r.draws, "losses": r.losses,
        "points": r.points, "points_per_game": round(r.points_per_game, 3), "shown": rating_display(r),
        "last_rated_at": r.last_rated_at.isoformat() if r.last_rated_at else None,
    }


class LeaderboardView(APIView):
    permission_classes = [AllowAny]
    pagination_class = Pages

    @extend_schema(
        parameters=[OpenApiParameter("by", OpenApiTypes.STR, enum=["rating", "points", "provisional"], default="rating",
                                     description="rating: established players; provisional: those whose rating is "
                                                 "still provisional; points: by points per game"),
                    OpenApiParameter("page", {"type": "integer", "minimum": 1, "maximum": 10**9})],
        responses=LeaderboardRowOut(many=True),
        summary="Top players by rating (established, active), provisional players, or by points per game",
    )
    def get(self, request: Request) -> Response:
        by = request.query_params.get("by", "rating")
        if by not in ("rating", "points", "provisional"):
            raise ServiceError(_("by must be rating, provisional or points"), "by")
        rows = {"points": selectors.points_table, "provisional": selectors.provisional_players,
                "rating": selectors.leaderboard}[by]()
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(rows, request, view=self)
        assert page is not None and paginator.page is not None
        start = (paginator.page.number - 1) * paginator.page.paginator.per_page
        data = [{"rank": start + i + 1, "username": r.user.username, "is_bot": r.user.is_bot, **rating_json(r)}
                for i, r in enumerate(page)]
        return paginator.get_paginated_response(data)


class PlayerView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=PlayerOut, summary="A player's rating and rating history")
    def get(self, request: Request, username: str) -> Response:
        player = User.objects.filter(username=username).first()
        if player is None:
            raise NotFound(_("no player %(username)r") % {"username": username}, "username")
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


# Space-separated tie-break codes, each known (tournaments.standings.parse_order, which also
# refuses a code given twice: that no pattern here says).
TIEBREAKS_PATTERN = "^ *(?:(?:" + "|".join(re.escape(code) for code in TIEBREAKS) + ")(?: +|$))*$"


class Name(AsSent, serializers.RegexField):
    """A tournament's name: not blank (the pattern), at most ``max_length`` characters as sent."""


class TiebreaksField(StatedPattern, serializers.RegexField):
    """Read as before: the service checks the codes, and its message names an unknown one."""


class TournamentIn(StrictModelInput):
    """The limits of tournaments.services (``_check``) are stated on the fields, so the schema
    says them; what depends on two fields (registration closes before the start, minimum ≤
    maximum players, late entry up to the last round) is left to the service."""

    serializer_field_mapping = {**serializers.ModelSerializer.serializer_field_mapping, models.BooleanField: Flag}
    name = Name(r"\S", max_length=100, help_text="not blank; no control or invisible characters (Unicode category C*)")
    days_per_move = serializers.ChoiceField(choices=api_enums.DAYS_PER_MOVE, required=False, help_text="default 3")
    grace_days = serializers.IntegerField(min_value=0, max_value=BANK_DAYS_MAX, required=False,
                                          help_text=GRACE_HELP + "; default 7")
    lake_side = serializers.ChoiceField(choices=LakeSide.choices, required=False, help_text="R2; default standard")
    tiebreaks = TiebreaksField(
        r"^[A-Z0-9/ ]*$", pattern=TIEBREAKS_PATTERN, required=False, allow_blank=True, max_length=60,
        trim_whitespace=False,  # the service splits the codes at spaces; 60 is the length as sent
        help_text="tie-breaks after the score, in order, space-separated FIDE C.07 codes, each once: "
                  + ", ".join(TIEBREAKS),
    )

    class Meta:
        model = Tournament
        fields = TOURNAMENT_SETTINGS
        extra_kwargs = {
            "rounds": {"min_value": 1, "max_value": MAX_ROUNDS},
            "round_days": {"min_value": 1, "max_value": services.MAX_DAYS},
            "bank_add_hours": {"min_value": 0, "max_value": BANK_ADD_HOURS_MAX,
                               "help_text": "a capped bank: hours added after each move"},
            "bank_cap_days": {"min_value": 0, "max_value": BANK_DAYS_MAX,
                              "help_text": "a capped bank: the most it holds, from its start"},
            "min_players": {"min_value": 2},
            "max_players": {"min_value": 2},
            "late_entry_until_round": {"min_value": 0, "max_value": MAX_ROUNDS, "help_text": (
                "late entries may join up to this round (0: none after the start); at most the rounds")},
        }


class TournamentSummaryOut(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    rounds = serializers.IntegerField()
    current_round = serializers.IntegerField()
    director = serializers.CharField()
    starts_at = serializers.DateTimeField()
    days_per_move = serializers.IntegerField()
    rated = serializers.BooleanField()
    course_mode = serializers.CharField()
    players = serializers.IntegerField()


class StandingOut(serializers.Serializer):  # type: ignore[type-arg]
    rank = serializers.IntegerField()
    start_number = serializers.IntegerField()
    username = serializers.CharField()
    score = serializers.FloatField()
    tiebreaks = serializers.DictField(child=serializers.FloatField(allow_null=True),
                                      help_text="by FIDE C.07 code, in the tournament's order")
    buoy_points = serializers.IntegerField()
    damage = serializers.IntegerField()
    withdrawn = serializers.BooleanField()


class BoardOut(serializers.Serializer):  # type: ignore[type-arg]
    board = serializers.IntegerField(allow_null=True)
    red = serializers.CharField()
    yellow = serializers.CharField(allow_null=True)
    result = serializers.CharField(allow_null=True, help_text="TRF result code")
    game = serializers.IntegerField(allow_null=True)


class ByeOut(serializers.Serializer):  # type: ignore[type-arg]
    username = serializers.CharField()
    code = serializers.CharField()


class RoundOut(serializers.Serializer):  # type: ignore[type-arg]
    number = serializers.IntegerField()
    status = serializers.CharField()
    deadline = serializers.DateTimeField()
    boards = BoardOut(many=True)
    byes = ByeOut(many=True)


class TournamentDetailOut(TournamentSummaryOut, TournamentIn):  # type: ignore[misc]  # the output's fields come first
    first_color = serializers.CharField(allow_blank=True)
    tiebreak_order = serializers.ListField(child=serializers.CharField())
    standings = StandingOut(many=True)
    rounds = RoundOut(many=True)  # type: ignore[assignment]

    class Meta(TournamentIn.Meta):
        fields = [*TournamentSummaryOut._declared_fields, *TOURNAMENT_SETTINGS, "first_color", "tiebreak_order",
                  "standings", "rounds"]


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


def _tournament(tournament_id: int) -> Tournament:
    t = Tournament.objects.select_related("director").filter(pk=tournament_id).first()
    if t is None:
        raise NotFound(_("no tournament %(tournament_id)s") % {"tournament_id": tournament_id}, "tournament")
    return t


class TournamentList(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(parameters=[OpenApiParameter("status", OpenApiTypes.STR, enum=Tournament.Status.values)],
                   responses=TournamentSummaryOut(many=True), summary="Tournaments (upcoming, running, finished)",
                   operation_id="tournaments_list")
    def get(self, request: Request) -> Response:
        rows = Tournament.objects.select_related("director").order_by("-starts_at")
        wanted = request.query_params.get("status")
        if wanted is not None:
            if wanted not in Tournament.Status.values:
                raise ServiceError(_("status must be one of %(value)s") % {"value": ', '.join(Tournament.Status.values)}, "status")
            rows = rows.filter(status=wanted)
        return Response([tournament_summary(t) for t in rows[:200]])

    @extend_schema(request=TournamentIn, responses={201: TournamentDetailOut}, summary="Direct a new tournament",
                   operation_id="tournaments_create")
    def post(self, request: Request) -> Response:
        serializer = TournamentIn(data=request.data)
        serializer.is_valid(raise_exception=True)
        t = services.tournament_create(director=request.user, **serializer.validated_data)
        return Response(tournament_detail(t), status=status.HTTP_201_CREATED)


class TournamentDetail(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=TournamentDetailOut, summary="A tournament: settings, standings, rounds and pairings",
                   operation_id="tournaments_retrieve")
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(tournament_detail(_tournament(tournament_id)))


class PlayerIn(StrictInput):
    username = serializers.CharField(max_length=150, help_text="the player")

    def validate_username(self, value: str) -> Any:
        player = User.objects.filter(username=value).first()
        if player is None:
            raise serializers.ValidationError(_("there is no player called %(value)r") % {"value": value})
        return player


class ByeIn(PlayerIn):
    round = serializers.IntegerField(min_value=1, max_value=MAX_ROUNDS, help_text="the round of the bye")


ACTION_ERRORS = errors(403, 409, e403="you may not do this here (directors only, or an invitation is needed)",
                       e409="the tournament is not in a state that allows it")


class TournamentRegister(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: TournamentDetailOut, **ACTION_ERRORS},
                   summary="Register (before the start, or late if allowed)")
    def post(self, request: Request, tournament_id: int) -> Response:
        services.tournament_register(user=request.user, tournament_id=tournament_id)
        return Response(tournament_detail(_tournament(tournament_id)))


class TournamentWithdraw(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: TournamentDetailOut, **ACTION_ERRORS}, summary="Withdraw")
    def post(self, request: Request, tournament_id: int) -> Response:
        services.tournament_withdraw(user=request.user, tournament_id=tournament_id)
        return Response(tournament_detail(_tournament(tournament_id)))


class TournamentRemove(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=PlayerIn, responses={200: TournamentDetailOut, **ACTION_ERRORS},
                   summary="Remove a player (the director)")
    def post(self, request: Request, tournament_id: int) -> Response:
        data = PlayerIn(data=request.data)
        data.is_valid(raise_exception=True)
        services.tournament_withdraw(user=data.validated_data["username"], tournament_id=tournament_id,
                                     by_director=request.user)
        return Response(tournament_detail(_tournament(tournament_id)))


class TournamentBye(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=ByeIn, responses={200: TournamentDetailOut, **ACTION_ERRORS},
                   summary="Give a player a bye in a round (the director)")
    def post(self, request: Request, tournament_id: int) -> Response:
        data = ByeIn(data=request.data)
        data.is_valid(raise_exception=True)
        services.tournament_set_bye(director=request.user, tournament_id=tournament_id,
                                    user=data.validated_data["username"], round_number=data.validated_data["round"])
        return Response(tournament_detail(_tournament(tournament_id)))


class TournamentTrf(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR},
                   summary="The tournament as FIDE TRF-16 (UTF-8, with XXR, XXC, 152 and PBS records)")
    def get(self, request: Request, tournament_id: int) -> HttpResponse:
        return HttpResponse(selectors.tournament_trf_export(_tournament(tournament_id)),
                            content_type="text/plain; charset=utf-8")
