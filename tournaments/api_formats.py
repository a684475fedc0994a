"""Round-robin tournaments and the Competition in the API (docs/tournaments.md).

Every request and response has a serializer (the schema at ``/api/schema/`` describes each one);
errors are ``{"code", "message", "field"?, "rule"?}`` with a 4xx status, as everywhere in the API
(``common.api.exception_handler``), and a refused request changes nothing. Lists and details read a
fixed number of queries whatever the number of groups and players."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Max, Q, QuerySet
from django.urls import path
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.errors import NotFound, ServiceError
from common.schema import errors
from common.strict import StrictModelInput
from games import api_enums, clock
from games.api import GRACE_HELP
from games.api_serializers import ClockTermsOut
from games.clock import BANK_ADD_HOURS_MAX, BANK_DAYS_MAX
from games.models import LakeSide

from . import selectors_formats as selectors
from . import services_formats as services
from .api import Name
from .models import (
    ROUND_ROBIN_SETTINGS,
    Competition,
    CompetitionMember,
    Group,
    GroupPlayer,
    RoundRobin,
    Season,
)
from .selectors_formats import Row, Table
from .services import MAX_DAYS

User = get_user_model()
MAX_ID = 2**63 - 1  # ids are 64-bit; a longer number names nothing (and must not reach the database)


# --- serializers ---------------------------------------------------------------------------------


class GroupTiebreaks(serializers.Serializer):  # type: ignore[type-arg]
    """The tie-breaks after the score, in this order (FIDE C.07; R14 for BUOYS and DMG)."""

    SB = serializers.FloatField(help_text="Sonneborn-Berger (C.07 9.1)")
    DE = serializers.IntegerField(help_text="direct encounter (C.07 6): the place it gives among the tied, 0: none")
    WIN = serializers.IntegerField(help_text="number of wins (C.07 7.1)")
    BUOYS = serializers.IntegerField(help_text="game points, buoys and finishing (R14)")
    DMG = serializers.IntegerField(help_text="damage taken (R14); less ranks higher")


class GroupStanding(serializers.Serializer):  # type: ignore[type-arg]
    rank = serializers.IntegerField()
    number = serializers.IntegerField(help_text="the start number in the Berger table")
    username = serializers.CharField()
    score = serializers.FloatField()
    played = serializers.IntegerField(help_text="games ended")
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    timeouts = serializers.IntegerField(help_text="games lost on time")
    tiebreaks = GroupTiebreaks()
    move = serializers.CharField(help_text="the Competition, once the season is over: up, stay, down or out")


class GroupSummary(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    name = serializers.CharField()
    number = serializers.IntegerField()
    level = serializers.IntegerField(help_text="the Competition's level (1 is the top); 0 in a round-robin")
    final = serializers.BooleanField()
    status = serializers.CharField(help_text="waiting, playing or finished")
    rounds = serializers.IntegerField()
    current_round = serializers.IntegerField()
    deadline = serializers.DateTimeField(allow_null=True)
    games_total = serializers.IntegerField()
    games_over = serializers.IntegerField()
    standings = GroupStanding(many=True)


class GroupEvent(serializers.Serializer):  # type: ignore[type-arg]
    kind = serializers.CharField(help_text="round_robin or season")
    id = serializers.IntegerField(help_text="the round-robin's id, or the competition's")
    name = serializers.CharField()
    season = serializers.IntegerField(allow_null=True, help_text="the season's number (the Competition)")


class GroupPairing(serializers.Serializer):  # type: ignore[type-arg]
    round = serializers.IntegerField()
    red = serializers.CharField()
    yellow = serializers.CharField()
    game = serializers.IntegerField(allow_null=True, help_text="empty until the round starts")
    result = serializers.CharField(help_text="from Red's side: 1 0 = (+ - forfeits); empty while going")


class GroupCrossRow(serializers.Serializer):  # type: ignore[type-arg]
    number = serializers.IntegerField()
    username = serializers.CharField()
    cells = serializers.ListField(child=serializers.CharField(),
                                  help_text="by start number: the results against that player (× itself)")


class GroupDetail(GroupSummary):
    event = GroupEvent()
    double = serializers.BooleanField()
    pace = serializers.CharField(help_text="at_once or rounds")
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    pairings = GroupPairing(many=True)
    cross = GroupCrossRow(many=True)


class RoundRobinIn(StrictModelInput):
    """The limits of tournaments.services_formats (``_check_round_robin``) are stated on the
    fields, so the schema says them; what depends on two fields (at most 20 players per group,
    minimum ≤ maximum, a final group needs two groups, registration closes before the start)
    and whether the invited players exist are left to the service."""

    name = Name(r"\S", max_length=100, help_text="not blank; no control or invisible characters (Unicode category C*)")
    days_per_move = serializers.ChoiceField(choices=api_enums.DAYS_PER_MOVE, required=False, help_text="default 3")
    grace_days = serializers.IntegerField(min_value=0, max_value=BANK_DAYS_MAX, required=False,
                                          help_text=GRACE_HELP + "; default 7")
    lake_side = serializers.ChoiceField(choices=LakeSide.choices, required=False, help_text="R2; default standard")
    invited = serializers.ListField(child=serializers.CharField(max_length=150), required=False, max_length=500,
                                    help_text="usernames of the invited players (entry: invited)")

    class Meta:
        model = RoundRobin
        fields = [*ROUND_ROBIN_SETTINGS, "invited"]
        extra_kwargs = {
            "group_count": {"min_value": 1, "max_value": services.MAX_GROUPS},
            "bank_add_hours": {"min_value": 0, "max_value": BANK_ADD_HOURS_MAX,
                               "help_text": "a capped bank: hours added after each move"},
            "bank_cap_days": {"min_value": 0, "max_value": BANK_DAYS_MAX,
                              "help_text": "a capped bank: the most it holds, from its start"},
            "min_players": {"min_value": services.MIN_GROUP, "max_value": services.MAX_GROUP * services.MAX_GROUPS},
            "max_players": {"min_value": services.MIN_GROUP, "max_value": services.MAX_GROUP * services.MAX_GROUPS,
                            "help_text": f"at most {services.MAX_GROUP} per group"},
            "deadline_days": {"min_value": 1, "max_value": MAX_DAYS},
            "round_days": {"min_value": 1, "max_value": MAX_DAYS},
        }

    def validate_invited(self, names: list[str]) -> list[Any]:
        users = list(User.objects.filter(username__in=names))
        missing = sorted(set(names) - {u.username for u in users})
        if missing:
            raise serializers.ValidationError(_("no player called %(value)s") % {"value": ', '.join(missing[:5])})
        return users


class RoundRobinSummary(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.CharField(help_text="registration, running, finished or cancelled")
    director = serializers.CharField()
    double = serializers.BooleanField()
    group_count = serializers.IntegerField()
    final_group = serializers.BooleanField()
    pace = serializers.CharField(help_text="at_once or rounds")
    days_per_move = serializers.IntegerField()
    rated = serializers.BooleanField()
    starts_at = serializers.DateTimeField()
    players = serializers.IntegerField()


class RoundRobinDetail(RoundRobinSummary, ClockTermsOut):
    description = serializers.CharField()
    grace_days = serializers.IntegerField()
    lake_side = serializers.CharField()
    course_mode = serializers.CharField()
    deadline_days = serializers.IntegerField()
    round_days = serializers.IntegerField()
    registration_closes_at = serializers.DateTimeField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    entry = serializers.CharField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    entries = serializers.ListField(child=serializers.CharField(), help_text="the registered players")
    groups = GroupSummary(many=True)


class CompetitionMembership(serializers.Serializer):  # type: ignore[type-arg]
    competition = serializers.IntegerField()
    username = serializers.CharField()
    active = serializers.BooleanField(help_text="in the next season")
    removal = serializers.CharField(help_text="why not: left, timeouts; empty when active")
    joined_at = serializers.DateTimeField()
    left_at = serializers.DateTimeField(allow_null=True)


class CompetitionLevel(serializers.Serializer):  # type: ignore[type-arg]
    level = serializers.IntegerField()
    groups = GroupSummary(many=True)


class CompetitionSeason(serializers.Serializer):  # type: ignore[type-arg]
    number = serializers.IntegerField()
    status = serializers.CharField(help_text="playing or closed")
    started_at = serializers.DateTimeField()
    deadline = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True)


class CompetitionSeasonDetail(CompetitionSeason):
    levels = CompetitionLevel(many=True)


class CompetitionSummary(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    name = serializers.CharField()
    members = serializers.IntegerField(help_text="players registered for the next season")
    seasons = serializers.IntegerField(help_text="seasons played or playing")
    next_season_at = serializers.DateTimeField(allow_null=True)


class CompetitionDetail(CompetitionSummary, ClockTermsOut):
    description = serializers.CharField()
    group_size = serializers.IntegerField()
    promote = serializers.IntegerField()
    relegate = serializers.IntegerField()
    break_days = serializers.IntegerField()
    season_days = serializers.IntegerField()
    min_players = serializers.IntegerField()
    days_per_move = serializers.IntegerField()
    grace_days = serializers.IntegerField()
    rated = serializers.BooleanField()
    lake_side = serializers.CharField()
    you = CompetitionMembership(allow_null=True, help_text="your membership (logged in)")
    waiting = serializers.ListField(child=serializers.CharField(), help_text="registered, not in the season playing")
    season = CompetitionSeasonDetail(allow_null=True, help_text="the season playing, else the last one")


class CompetitionHistoryRow(serializers.Serializer):  # type: ignore[type-arg]
    season = serializers.IntegerField()
    level = serializers.IntegerField()
    group = serializers.IntegerField()
    group_name = serializers.CharField()
    rank = serializers.IntegerField(allow_null=True, help_text="empty while the group plays")
    players = serializers.IntegerField()
    score = serializers.FloatField(allow_null=True)
    games = serializers.IntegerField()
    timeouts = serializers.IntegerField()
    move = serializers.CharField(help_text="up, stay, down, out; empty while the season plays")


class CompetitionHistory(serializers.Serializer):  # type: ignore[type-arg]
    competition = serializers.IntegerField()
    username = serializers.CharField()
    membership = CompetitionMembership(allow_null=True)
    seasons = CompetitionHistoryRow(many=True)


# --- shaping (no queries) ----------------------------------------------------------------------------


def standing_json(row: Row) -> dict[str, Any]:
    return {"rank": row.rank, "number": row.player.number, "username": row.username, "score": row.score,
            "played": row.played, "wins": row.wins, "draws": row.draws, "losses": row.losses,
            "timeouts": row.timeouts, "tiebreaks": {code: row.values[code] for code in selectors.ORDER},
            "move": row.player.move}


def group_json(table: Table) -> dict[str, Any]:
    g = table.group
    return {"id": g.pk, "name": g.name, "number": g.number, "level": g.level, "final": g.final, "status": g.status,
            "rounds": g.rounds, "current_round": g.current_round, "deadline": g.deadline,
            "games_total": table.games_total, "games_over": table.games_over,
            "standings": [standing_json(r) for r in table.rows]}


def group_detail_json(table: Table) -> dict[str, Any]:
    g = table.group
    names = {p.pk: p.user.username for p in table.players}
    if g.round_robin is not None:
        event = {"kind": "round_robin", "id": g.round_robin.pk, "name": g.round_robin.name, "season": None}
    else:
        assert g.season is not None
        event = {"kind": "season", "id": g.season.competition_id, "name": g.season.competition.name,
                 "season": g.season.number}
    return {
        **group_json(table), "event": event, "double": g.double, "pace": g.pace, "started_at": g.started_at,
        "finished_at": g.finished_at,
        "pairings": [{"round": p.round, "red": names[p.red_id], "yellow": names[p.yellow_id], "game": p.game_id,
                      "result": p.result} for p in table.pairings],
        "cross": [{"number": p.number, "username": p.user.username, "cells": [c.text for c in cells]}
                  for p, _row, cells in table.cross],
    }


def round_robin_json(rr: RoundRobin, players: int) -> dict[str, Any]:
    return {"id": rr.pk, "name": rr.name, "status": rr.status, "director": rr.director.username, "double": rr.double,
            "group_count": rr.group_count, "final_group": rr.final_group, "pace": rr.pace,
            "days_per_move": rr.days_per_move, "rated": rr.rated, "starts_at": rr.starts_at, "players": players}


def round_robin_detail(rr: RoundRobin) -> dict[str, Any]:
    entries = list(rr.entries.select_related("user").order_by("-rating", "user__username"))
    groups = selectors.round_robin_groups(rr)
    tables = selectors.group_tables(groups)
    fields = {name: getattr(rr, name) for name in (
        "description", "grace_days", "vacation_allowed", "lake_side", "course_mode", "deadline_days", "round_days",
        "registration_closes_at", "min_players", "max_players", "entry", "started_at", "finished_at", *clock.TERMS)}
    return {**round_robin_json(rr, len(entries)), **fields, "entries": [e.user.username for e in entries],
            "groups": [group_json(tables[g.pk]) for g in groups]}


def membership_json(m: CompetitionMember | None) -> dict[str, Any] | None:
    if m is None:
        return None
    return {"competition": m.competition_id, "username": m.user.username, "active": m.active, "removal": m.removal,
            "joined_at": m.joined_at, "left_at": m.left_at}


def season_json(season: Season, with_levels: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"number": season.number, "status": season.status, "started_at": season.started_at,
                           "deadline": season.deadline, "closed_at": season.closed_at}
    if with_levels:
        out["levels"] = [{"level": level, "groups": [group_json(t) for t in tables]}
                         for level, tables in selectors.season_levels(season)]
    return out


def _pk(value: int, what: str) -> int:
    if value > MAX_ID:
        raise NotFound(f"no {what} {value}", what)
    return value


def _round_robin(pk: int) -> RoundRobin:
    rr = RoundRobin.objects.select_related("director").filter(pk=_pk(pk, "round_robin")).first()
    if rr is None:
        raise NotFound(_("no round-robin %(pk)s") % {"pk": pk}, "round_robin")
    return rr


def competitions() -> QuerySet[Competition]:
    """Competitions with their number of registered players and of seasons (one query)."""
    return Competition.objects.annotate(member_count=Count("members", filter=Q(members__active=True), distinct=True),
                                        season_count=Max("seasons__number"))


def _competition(pk: int) -> Competition:
    c = competitions().filter(pk=_pk(pk, "competition")).first()
    if c is None:
        raise NotFound(_("no competition %(pk)s") % {"pk": pk}, "competition")
    return c


def competition_summary(c: Competition) -> dict[str, Any]:
    # member_count and season_count: annotated by competitions()
    return {"id": c.pk, "name": c.name, "members": c.member_count,  # type: ignore[attr-defined]
            "seasons": c.season_count or 0,  # type: ignore[attr-defined]
            "next_season_at": c.next_season_at}


def competition_detail(c: Competition, user: Any) -> dict[str, Any]:
    season = selectors.current_season(c)
    playing = season if season is not None and season.status == Season.Status.PLAYING else None
    member = selectors.membership(c, user)
    fields = {name: getattr(c, name) for name in (
        "description", "group_size", "promote", "relegate", "break_days", "season_days", "min_players",
        "days_per_move", "grace_days", "vacation_allowed", "rated", "lake_side", *clock.TERMS)}
    if member is not None:
        member.user = user
    return {**competition_summary(c), **fields, "you": membership_json(member),
            "waiting": [m.user.username for m in selectors.waiting_members(c, playing)],
            "season": season_json(season) if season else None}


# --- views ---------------------------------------------------------------------------------------------


class RoundRobinListView(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        operation_id="round_robins_list", summary="Round-robin tournaments (at most 200, newest start first)",
        parameters=[OpenApiParameter("status", OpenApiTypes.STR, enum=list(RoundRobin.Status.values),
                                     description="only those in this state")],
        responses={200: RoundRobinSummary(many=True), **errors(400)},
    )
    def get(self, request: Request) -> Response:
        rows = RoundRobin.objects.select_related("director").annotate(player_count=Count("entries"))
        wanted = request.query_params.get("status")
        if wanted is not None:
            if wanted not in RoundRobin.Status.values:
                raise ServiceError(_("status must be one of %(value)s") % {"value": ', '.join(RoundRobin.Status.values)}, "status")
            rows = rows.filter(status=wanted)
        return Response([round_robin_json(rr, rr.player_count)
                         for rr in rows.order_by("-starts_at", "-pk")[:200]])

    @extend_schema(
        operation_id="round_robins_create", summary="Direct a round-robin: one group of 3-20, or several in snake order",
        request=RoundRobinIn, responses={201: RoundRobinDetail, **errors(400, 401)},
    )
    def post(self, request: Request) -> Response:
        serializer = RoundRobinIn(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        invited = data.pop("invited", [])
        rr = services.round_robin_create(director=request.user, invited=invited, **data)
        return Response(round_robin_detail(_round_robin(rr.pk)), status=status.HTTP_201_CREATED)


class RoundRobinDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(operation_id="round_robins_retrieve", summary="A round-robin: settings, players, groups, standings",
                   responses={200: RoundRobinDetail, **errors(404)})
    def get(self, request: Request, round_robin_id: int) -> Response:
        return Response(round_robin_detail(_round_robin(round_robin_id)))


class RoundRobinRegisterView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="round_robins_register", summary="Register for a round-robin (before it starts)",
                   request=None, responses={200: RoundRobinDetail, **errors(401, 403, 404, 409)})
    def post(self, request: Request, round_robin_id: int) -> Response:
        services.round_robin_register(user=request.user, round_robin_id=_pk(round_robin_id, "round_robin"))
        return Response(round_robin_detail(_round_robin(round_robin_id)))


class RoundRobinWithdrawView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="round_robins_withdraw", summary="Withdraw from a round-robin (before it starts)",
                   request=None, responses={200: RoundRobinDetail, **errors(401, 404, 409)})
    def post(self, request: Request, round_robin_id: int) -> Response:
        services.round_robin_withdraw(user=request.user, round_robin_id=_pk(round_robin_id, "round_robin"))
        return Response(round_robin_detail(_round_robin(round_robin_id)))


class GroupView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(operation_id="groups_retrieve",
                   summary="A round-robin group: standings with tie-breaks, the cross table, every pairing",
                   responses={200: GroupDetail, **errors(404)})
    def get(self, request: Request, group_id: int) -> Response:
        group = (Group.objects.select_related("round_robin", "season__competition")
                 .filter(pk=_pk(group_id, "group")).first())
        if group is None:
            raise NotFound(_("no group %(group_id)s") % {"group_id": group_id}, "group")
        return Response(group_detail_json(selectors.group_table(group)))


class CompetitionListView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(operation_id="competitions_list", summary="The Competitions (perpetual ladders of groups)",
                   responses={200: CompetitionSummary(many=True)})
    def get(self, request: Request) -> Response:
        return Response([competition_summary(c) for c in competitions().order_by("pk")[:100]])


class CompetitionDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(operation_id="competitions_retrieve",
                   summary="A Competition: settings, your membership, the current season's levels and groups",
                   responses={200: CompetitionDetail, **errors(404)})
    def get(self, request: Request, competition_id: int) -> Response:
        return Response(competition_detail(_competition(competition_id), request.user))


class CompetitionSeasonView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(operation_id="competitions_season_retrieve", summary="One season: its levels and groups",
                   responses={200: CompetitionSeasonDetail, **errors(404)})
    def get(self, request: Request, competition_id: int, number: int) -> Response:
        season = Season.objects.filter(competition_id=_pk(competition_id, "competition"),
                                       number=_pk(number, "season")).first()
        if season is None:
            raise NotFound(_("no season %(number)s of competition %(competition_id)s") % {"number": number, "competition_id": competition_id}, "season")
        return Response(season_json(season))


class CompetitionJoinView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="competitions_join",
                   summary="Join: you play from the next season on, starting at the lowest level",
                   request=None, responses={200: CompetitionMembership, **errors(401, 404, 409)})
    def post(self, request: Request, competition_id: int) -> Response:
        member = services.competition_join(user=request.user, competition_id=_pk(competition_id, "competition"))
        assert isinstance(request.user, User)  # IsAuthenticated
        member.user = request.user
        return Response(membership_json(member))


class CompetitionLeaveView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="competitions_leave",
                   summary="Leave: no place in the next season (a season under way is played out)",
                   request=None, responses={200: CompetitionMembership, **errors(401, 404)})
    def post(self, request: Request, competition_id: int) -> Response:
        member = services.competition_leave(user=request.user, competition_id=_pk(competition_id, "competition"))
        assert isinstance(request.user, User)  # IsAuthenticated
        member.user = request.user
        return Response(membership_json(member))


class CompetitionPlayerView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(operation_id="competitions_player_retrieve",
                   summary="A player's history in a Competition: season, level, group, place, move",
                   responses={200: CompetitionHistory, **errors(404)})
    def get(self, request: Request, competition_id: int, username: str) -> Response:
        c = Competition.objects.filter(pk=_pk(competition_id, "competition")).first()
        if c is None:
            raise NotFound(_("no competition %(competition_id)s") % {"competition_id": competition_id}, "competition")
        player = User.objects.filter(username=username).first()
        if player is None:
            raise NotFound(_("no player %(username)s") % {"username": username}, "username")
        member = c.members.filter(user=player).first()
        if member is not None:
            member.user = player
        rows: list[GroupPlayer] = list(selectors.history(c, player))
        return Response({
            "competition": c.pk, "username": player.username, "membership": membership_json(member),
            "seasons": [{"season": p.group.season.number if p.group.season else None, "level": p.group.level,
                         "group": p.group_id, "group_name": p.group.name, "rank": p.rank,
                         "players": p.group_size,  # type: ignore[attr-defined]  # annotated by selectors.history
                         "score": p.score, "games": p.games, "timeouts": p.timeouts, "move": p.move} for p in rows],
        })


urlpatterns = [
    path("round-robins/", RoundRobinListView.as_view(), name="api_round_robins"),
    path("round-robins/<id:round_robin_id>/", RoundRobinDetailView.as_view(), name="api_round_robin"),
    path("round-robins/<id:round_robin_id>/register/", RoundRobinRegisterView.as_view(),
         name="api_round_robin_register"),
    path("round-robins/<id:round_robin_id>/withdraw/", RoundRobinWithdrawView.as_view(),
         name="api_round_robin_withdraw"),
    path("groups/<id:group_id>/", GroupView.as_view(), name="api_group"),
    path("competitions/", CompetitionListView.as_view(), name="api_competitions"),
    path("competitions/<id:competition_id>/", CompetitionDetailView.as_view(), name="api_competition"),
    path("competitions/<id:competition_id>/seasons/<id:number>/", CompetitionSeasonView.as_view(),
         name="api_competition_season"),
    path("competitions/<id:competition_id>/join/", CompetitionJoinView.as_view(), name="api_competition_join"),
    path("competitions/<id:competition_id>/leave/", CompetitionLeaveView.as_view(), name="api_competition_leave"),
    path("competitions/<id:competition_id>/players/<str:username>/", CompetitionPlayerView.as_view(),
         name="api_competition_player"),
]
