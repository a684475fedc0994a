"""The series API from before series were games (issue 25): ``/api/series/…`` with a series'
number, kept for its clients as thin adapters onto the games API. Each finds the game by its
number (``Game.series_number``), calls the same service or read as ``/api/games/<id>/…``, and
answers in the shape these paths always had: ``id`` and ``series`` are the series' number, an
action's ``result`` is its sentence, and an action's placement and move carry no notation (a
move made at once after a roll comes with ``options: []``). New clients use ``/api/games/``:
a series is a game there, with ``ruleset`` "boxed" and its ``series`` number."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.errors import NotFound
from common.schema import errors

from . import api_enums, clock, services
from .api import (
    IDEMPOTENCY,
    IF_NONE_MATCH,
    LOBBY_ERRORS,
    NOT_MODIFIED,
    BotIn,
    DirectionIn,
    OpenIn,
    PlaceIn,
    ResignIn,
    RollIn,
    _key,
    _valid,
    game_record,
    game_state,
    lobby_summary,
    visible_game,
)
from .api_serializers import (
    MoveOut,
    OptionOut,
    SeriesDetailOut,
    SeriesRatingOut,
    SeriesRecordOut,
    SeriesSummaryOut,
    cell,
    ints,
)
from .models import Game
from .payloads import series_summary
from .ratings.selectors import is_provisional, series_leaderboard
from .selectors import game_id_of_series, open_series_and_mine

if TYPE_CHECKING:
    S = serializers.Serializer[Any]  # DRF's serializers are generic in its stubs only
else:
    S = serializers.Serializer
SERIES_COLOR = api_enums.SERIES_COLOR
RACE = api_enums.RACE_LETTER
MOVE_ERRORS = errors(403, 409, e403="not a player in this series, or not your turn",
                     e409="the ply is stale, the series is over or not started, you left it, or your time ran out "
                          "(code time_over)")


# --- the shapes these paths answer ---------------------------------------------------------------


class OldSeriesSummaryOut(SeriesSummaryOut):
    id = serializers.IntegerField(help_text="the series' number")
    ruleset = None  # type: ignore[assignment]
    series = None  # type: ignore[assignment]


class OldSeriesDetailOut(SeriesDetailOut):
    id = serializers.IntegerField(help_text="the series' number")
    ruleset = None  # type: ignore[assignment]
    series = None  # type: ignore[assignment]


class SeriesMoveOut(MoveOut):
    notation = None  # type: ignore[assignment]


class SeriesPlacementOut(S):
    color = serializers.ChoiceField(choices=SERIES_COLOR)
    cell = cell()
    heading = serializers.IntegerField()


class SeriesActionOut(S):
    series = serializers.IntegerField()
    ply = serializers.IntegerField(help_text="send it with the next action")
    race = serializers.ChoiceField(choices=RACE)
    phase = serializers.ChoiceField(choices=Game.Phase.choices)
    status = serializers.ChoiceField(choices=Game.Status.choices)
    to_move = serializers.ChoiceField(choices=SERIES_COLOR, allow_null=True)
    result = serializers.CharField(required=False, help_text="when the series is over")
    placement = SeriesPlacementOut(required=False)
    rolled = ints(required=False)
    dice = ints(required=False)
    move = SeriesMoveOut(required=False, allow_null=True, help_text="the move made (null: choose a direction)")
    options = OptionOut(many=True, required=False, help_text="after a roll awaiting its direction")


def old_summary(data: dict[str, Any]) -> dict[str, Any]:
    """A series as these paths show it: its number as its ``id``."""
    return {**{k: v for k, v in data.items() if k not in ("ruleset", "series")}, "id": data["series"]}


def old_action(answer: dict[str, Any], number: int) -> dict[str, Any]:
    """An action's answer as these paths gave it (an answer kept for an idempotency key before
    issue 25 has that shape already)."""
    if "game" not in answer:
        return answer
    out: dict[str, Any] = {"series": number}
    for key, value in answer.items():
        if key == "game":
            continue
        if key == "result" and isinstance(value, dict):
            value = value.get("reason")
        elif key == "placement" and isinstance(value, dict):
            value = {k: v for k, v in value.items() if k != "notation"}
        elif key == "move" and isinstance(value, dict):
            value = {k: v for k, v in value.items() if k != "notation"}
        out[key] = value
    if "rolled" in answer and isinstance(answer.get("move"), dict) and "options" not in answer:
        out["options"] = []  # a move made at once after its roll
    order = ["series", "ply", "race", "phase", "status", "to_move", "result"]
    return {**{k: out[k] for k in order if k in out}, **{k: v for k, v in out.items() if k not in order}}


class SeriesIn(OpenIn):
    ruleset = serializers.ChoiceField(choices=["boxed"], default="boxed", help_text="a series is of the boxed rules")


def _game_id(number: int) -> int:
    game_id = game_id_of_series(number)
    if game_id is None:
        raise NotFound(_("no series %(number)s") % {"number": number}, "series")
    return game_id


# --- the paths --------------------------------------------------------------------------------------


class SeriesList(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=OldSeriesSummaryOut(many=True), summary="Open series, and the series you play in")
    def get(self, request: Request) -> Response:
        return Response([old_summary(series_summary(g, seats, request.user))
                         for g, seats in open_series_and_mine(request.user)])

    @extend_schema(request=SeriesIn, responses={201: OldSeriesSummaryOut}, summary="Open a series for 3-6 players")
    def post(self, request: Request) -> Response:
        data = _valid(SeriesIn, request)
        del data["ruleset"]
        game = services.game_open(user=request.user, **clock.with_terms(data))
        return Response(old_summary(lobby_summary(game, request)), status=status.HTTP_201_CREATED)


class SeriesDetail(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses={200: OldSeriesDetailOut, 304: NOT_MODIFIED}, parameters=[IF_NONE_MATCH],
                   summary="A series' full state (as GET /api/games/<id>/, by the series' number)")
    def get(self, request: Request, series_id: int) -> Response:
        game, seats = visible_game(_game_id(series_id))
        response = game_state(game, seats, request)
        if response.data is not None:
            response.data = old_summary(response.data)
        return response

    @extend_schema(request=None, responses={200: OldSeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Cancel your open series")
    def delete(self, request: Request, series_id: int) -> Response:
        game = services.game_cancel(user=request.user, game_id=_game_id(series_id))
        return Response(old_summary(lobby_summary(game, request)))


class SeriesJoin(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: OldSeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Take a seat (the last seat starts the series)")
    def post(self, request: Request, series_id: int) -> Response:
        game = services.game_join(user=request.user, game_id=_game_id(series_id))
        return Response(old_summary(lobby_summary(game, request)))


class SeriesLeave(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: OldSeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Give your seat back before the start")
    def post(self, request: Request, series_id: int) -> Response:
        game = services.game_leave(user=request.user, game_id=_game_id(series_id))
        return Response(old_summary(lobby_summary(game, request)))


class SeriesStart(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: OldSeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Start your series with the players present (at least three)")
    def post(self, request: Request, series_id: int) -> Response:
        game = services.game_start(user=request.user, game_id=_game_id(series_id))
        return Response(old_summary(lobby_summary(game, request)))


class SeriesAddBot(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=BotIn, responses={200: OldSeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Give a free seat of your open series to a house bot (the site moves it)")
    def post(self, request: Request, series_id: int) -> Response:
        data = _valid(BotIn, request)
        game = services.game_add_bot(user=request.user, game_id=_game_id(series_id), level=data["level"])
        return Response(old_summary(lobby_summary(game, request)))


class SeriesPlace(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=PlaceIn, responses={200: SeriesActionOut, **MOVE_ERRORS},
                   summary="Place your boat (R15, R16)", parameters=[IDEMPOTENCY])
    def post(self, request: Request, series_id: int) -> Response:
        data = _valid(PlaceIn, request)
        return Response(old_action(services.game_place(
            user=request.user, game_id=_game_id(series_id), ply=data["ply"], cell=(data["cell"][0], data["cell"][1]),
            heading=data["heading"], idempotency_key=_key(request)), series_id))


class SeriesRoll(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=RollIn, responses={200: SeriesActionOut, **MOVE_ERRORS},
                   summary="Choose and roll your dice (R6); the server rolls", parameters=[IDEMPOTENCY])
    def post(self, request: Request, series_id: int) -> Response:
        serializer = RollIn(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(old_action(services.game_roll(
            user=request.user, game_id=_game_id(series_id), ply=serializer.validated_data["ply"],
            choice=serializer.choice(), idempotency_key=_key(request)), series_id))


class SeriesDirection(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=DirectionIn, responses={200: SeriesActionOut, **MOVE_ERRORS},
                   summary="Choose a direction (R7, R17)", parameters=[IDEMPOTENCY])
    def post(self, request: Request, series_id: int) -> Response:
        data = _valid(DirectionIn, request)
        return Response(old_action(services.game_choose_direction(
            user=request.user, game_id=_game_id(series_id), ply=data["ply"], direction=data["direction"],
            idempotency_key=_key(request)), series_id))


class SeriesResign(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=ResignIn, responses={200: SeriesActionOut, **MOVE_ERRORS},
                   summary="Leave the series (send confirm: true): your boat is lifted off (R18)",
                   parameters=[IDEMPOTENCY])
    def post(self, request: Request, series_id: int) -> Response:
        _valid(ResignIn, request)
        return Response(old_action(services.game_resign(user=request.user, game_id=_game_id(series_id),
                                                        idempotency_key=_key(request)), series_id))


class SeriesRecord(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses={200: SeriesRecordOut, **errors(409, e409="the series has not started")},
                   summary="The series record (docs/game-record.md, version 2)")
    def get(self, request: Request, series_id: int) -> Response:
        return Response(game_record(_game_id(series_id)))


class SeriesLeaderboard(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=SeriesRatingOut(many=True),
                   summary="The multi-player leaderboard (pairwise Glicko-2 per series; apart from the two-player "
                           "rating): established ratings only, provisional ones (deviation 110 or more) left out")
    def get(self, request: Request) -> Response:
        return Response([{"username": r.user.username, "rating": round(r.rating, 1), "deviation": round(r.deviation, 1),
                          "provisional": is_provisional(r), "series": r.series, "wins": r.wins}
                         for r in series_leaderboard()])
