"""The API of series of the boxed game for 2–6 players (``/api/series/``; issue 16, R15–R20):
the lobby (open, join, leave, start, cancel), a series' full state, its actions (place, roll,
direction, resign), its record, and the multi-player leaderboard. Same style as the games API
(games/api.py): strict JSON input, errors as ErrorOut naming the field and the ruling, the
ply a client saw sent with each move, and an ``Idempotency-Key`` header that makes a retried action
answer its first answer again."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from powerboats_site.schema import errors
from powerboats_site.strict import StrictInput

from . import api_enums, services_series
from .api import (
    IDEMPOTENCY,
    IF_NONE_MATCH,
    NOT_MODIFIED,
    DirectionIn,
    Flag,
    PlaceIn,
    ResignIn,
    RollIn,
    _key,
    _valid,
    versioned,
)
from .api_serializers import DiceOptionsOut, MoveOut, OptionOut, PlacementsOut, cell, ints
from .errors import NotFound
from .models import LakeSide
from .models_series import MAX_SEATS, MIN_SEATS, SeriesGame
from .payloads_series import series_detail, series_summary
from .ratings_series import is_provisional, leaderboard
from .selectors import open_series_and_mine, series_with_seats

S = serializers.Serializer  # type: ignore[type-arg]
SERIES_COLOR = api_enums.SERIES_COLOR
RACE = api_enums.RACE_LETTER
MOVE_ERRORS = errors(403, 409, e403="not a player in this series, or not your turn",
                     e409="the ply is stale, the series is over or not started, you left it, or your time ran out "
                          "(code time_over)")
LOBBY_ERRORS = errors(403, 409, e403="not allowed to you (only the creator starts or cancels)",
                      e409="the series has started or is cancelled, or it cannot start yet")


# --- input ------------------------------------------------------------------------------------


class SeriesIn(StrictInput):
    seats = serializers.IntegerField(min_value=MIN_SEATS, max_value=MAX_SEATS, default=4,
                                     help_text="3 to 6 players (R15); the series starts when the seats are filled")
    days_per_move = serializers.ChoiceField(choices=api_enums.DAYS_PER_MOVE, default=3)
    grace_days = serializers.ChoiceField(choices=api_enums.GRACE_DAYS, default=7, help_text="each player's grace bank")
    lake_side = serializers.ChoiceField(choices=LakeSide.choices, default=LakeSide.STANDARD, help_text="R2")
    rated = Flag(default=True)
    score_variant = Flag(default=False, help_text="R19's score variant, fixed for the series")


# --- output -----------------------------------------------------------------------------------


class SeriesPlayerOut(S):
    username = serializers.CharField()
    color = serializers.ChoiceField(choices=SERIES_COLOR, allow_null=True, help_text="once the series has started")
    left = serializers.CharField(allow_null=True, help_text="resign or timeout: left the series (R18)")


class SeriesSummaryOut(S):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=SeriesGame.Status.choices)
    created_by = serializers.CharField()
    seats = serializers.IntegerField()
    players = SeriesPlayerOut(many=True, help_text="in seat order (R15) once started")
    days_per_move = serializers.IntegerField()
    grace_days = serializers.IntegerField()
    lake_side = serializers.ChoiceField(choices=LakeSide.choices)
    rated = serializers.BooleanField()
    score_variant = serializers.BooleanField()
    phase = serializers.ChoiceField(choices=SeriesGame.Phase.choices)
    race = serializers.ChoiceField(choices=RACE, allow_null=True)
    ply = serializers.IntegerField(help_text="send it with the next action")
    to_move = serializers.ChoiceField(choices=SERIES_COLOR, allow_null=True)
    your_seat = serializers.BooleanField()
    your_turn = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    result = serializers.CharField(allow_null=True)


class SeriesClockOut(S):
    move_deadline = serializers.DateTimeField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True, help_text="when the player to move loses on time (R18)")
    grace_seconds = serializers.DictField(child=serializers.IntegerField(), help_text="by colour")


class SeriesBoatOut(S):
    color = serializers.ChoiceField(choices=SERIES_COLOR)
    username = serializers.CharField()
    cell = cell(allow_null=True)  # null before placing and once lifted off (R18)
    heading = serializers.IntegerField()
    heading_name = serializers.CharField()
    dice = ints()
    damage = serializers.IntegerField(help_text="carried counters included (R20)")
    carried = serializers.IntegerField(help_text="damage counters carried into this race (R20)")
    buoys = serializers.IntegerField()
    next_buoy = serializers.IntegerField(allow_null=True)
    moves = serializers.IntegerField()
    finished = serializers.BooleanField()
    sunk = serializers.BooleanField()
    left = serializers.CharField(allow_null=True)
    racing = serializers.BooleanField()


class SeriesTableLineOut(S):
    place = serializers.IntegerField(help_text="equal places are shared (R19)")
    color = serializers.ChoiceField(choices=SERIES_COLOR)
    username = serializers.CharField()
    points = serializers.IntegerField()
    race_points = ints(help_text="per race played")
    positions = serializers.ListField(child=serializers.IntegerField(allow_null=True),
                                      help_text="per race played; null: no position")
    carried_damage = serializers.ListField(child=serializers.IntegerField(allow_null=True),
                                           help_text="damage counters carried into each race (R20)")
    left = serializers.CharField(allow_null=True)


class SeriesRaceOut(S):
    letter = serializers.ChoiceField(choices=RACE)
    multiplier = serializers.IntegerField(help_text="k of R19")
    start_player = serializers.ChoiceField(choices=SERIES_COLOR)
    boats = serializers.ListField(child=serializers.ChoiceField(choices=SERIES_COLOR))
    result = serializers.JSONField(allow_null=True, help_text="once over: as in the series record (docs/game-record.md)")


class SeriesHistoryOut(S):
    ply = serializers.IntegerField()
    race = serializers.ChoiceField(choices=RACE)
    seat = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=api_enums.SERIES_KIND)
    notation = serializers.CharField()


class SeriesDetailOut(SeriesSummaryOut):
    dice_seed_sha256 = serializers.CharField(allow_null=True)
    dice_seed = serializers.CharField(allow_null=True, help_text="revealed once the series is over")
    clock = SeriesClockOut()
    your_color = serializers.ChoiceField(choices=SERIES_COLOR, allow_null=True)
    boats = SeriesBoatOut(many=True, help_text="the race being played, in its seat order")
    positions = serializers.ListField(child=serializers.ChoiceField(choices=SERIES_COLOR),
                                      help_text="finishing positions so far in this race (R18)")
    table = SeriesTableLineOut(many=True, help_text="the series table (R19, R20)")
    races = SeriesRaceOut(many=True)
    start_player = serializers.ChoiceField(choices=SERIES_COLOR, allow_null=True)
    next_start_player = serializers.ChoiceField(choices=SERIES_COLOR, allow_null=True,
                                                help_text="R15: the next race's start player")
    history = SeriesHistoryOut(many=True)
    placements = PlacementsOut(required=False, help_text="your turn to place (R16)")
    dice_options = DiceOptionsOut(required=False, help_text="your turn to choose dice (R6)")
    options = OptionOut(many=True, required=False, help_text="your roll awaits its direction (R7)")


class SeriesMoveOut(MoveOut):
    color = serializers.ChoiceField(choices=SERIES_COLOR)  # type: ignore[assignment]


class SeriesPlacementOut(S):
    color = serializers.ChoiceField(choices=SERIES_COLOR)
    cell = cell()
    heading = serializers.IntegerField()


class SeriesActionOut(S):
    series = serializers.IntegerField()
    ply = serializers.IntegerField(help_text="send it with the next action")
    race = serializers.ChoiceField(choices=RACE)
    phase = serializers.ChoiceField(choices=SeriesGame.Phase.choices)
    status = serializers.ChoiceField(choices=SeriesGame.Status.choices)
    to_move = serializers.ChoiceField(choices=SERIES_COLOR, allow_null=True)
    result = serializers.CharField(required=False, help_text="when the series is over")
    placement = SeriesPlacementOut(required=False)
    rolled = ints(required=False)
    dice = ints(required=False)
    move = SeriesMoveOut(required=False, allow_null=True, help_text="the move made (null: choose a direction)")
    options = OptionOut(many=True, required=False, help_text="after a roll awaiting its direction")


class SeriesRatingOut(S):
    username = serializers.CharField()
    rating = serializers.FloatField()
    deviation = serializers.FloatField()
    provisional = serializers.BooleanField(help_text="while the deviation is 110 or more (shown as 1500?); the "
                                                     "leaderboard leaves provisional ratings out")
    series = serializers.IntegerField()
    wins = serializers.IntegerField()


# --- views ------------------------------------------------------------------------------------


def _loaded(series_id: int) -> tuple[SeriesGame, list[Any]]:
    found = series_with_seats(series_id)
    if found is None or found[0].status == SeriesGame.Status.CANCELLED:
        raise NotFound(f"no series {series_id}", "series")
    return found


def _summary(series: SeriesGame, request: Request) -> dict[str, Any]:
    found = _loaded(series.pk) if series.status != SeriesGame.Status.CANCELLED else (series, list(series.seats.all()))
    return series_summary(found[0], found[1], request.user)


class SeriesList(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=SeriesSummaryOut(many=True), summary="Open series, and the series you play in")
    def get(self, request: Request) -> Response:
        return Response([series_summary(s, seats, request.user) for s, seats in open_series_and_mine(request.user)])

    @extend_schema(request=SeriesIn, responses={201: SeriesSummaryOut}, summary="Open a series for 3-6 players")
    def post(self, request: Request) -> Response:
        data = _valid(SeriesIn, request)
        series = services_series.series_create(user=request.user, **data)
        return Response(_summary(series, request), status=status.HTTP_201_CREATED)


class SeriesDetail(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses={200: SeriesDetailOut, 304: NOT_MODIFIED}, parameters=[IF_NONE_MATCH],
                   summary="A series' full state",
                   description="Every boat of the race being played, positions so far, the series table (points "
                               "per race, total, carried damage), the next race's start player; for the player to "
                               "move `placements`, `dice_options` or `options`. Answers with an `ETag`, as a "
                               "game's state: send it back in `If-None-Match` and an unchanged series answers 304 "
                               "with no body (and costs no replay).")
    def get(self, request: Request, series_id: int) -> Response:
        series, seats = _loaded(series_id)

        def answer() -> dict[str, Any]:
            engine = None
            actions: list[Any] = []
            if series.status in (SeriesGame.Status.ACTIVE, SeriesGame.Status.FINISHED):
                engine = services_series.engine_of(series, seats).series
                actions = list(series.actions.order_by("ply"))
            return series_detail(series, seats, engine, actions, request.user)

        return versioned(request, series_etag(series, request.user), answer)


def series_etag(series: SeriesGame, user: Any) -> str:
    """A series' version as one viewer sees it: it changes with every action (the ply) and every
    other change of the series row (a seat taken or given back, a vacation moving a deadline),
    and differs per viewer (their turn, their colour, the creator's start and cancel)."""
    viewer = getattr(user, "pk", None) or "-"
    return f'"s{series.pk}.{series.ply}.{series.updated_at.timestamp():.6f}.{viewer}"'

    @extend_schema(request=None, responses={200: SeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Cancel your open series")
    def delete(self, request: Request, series_id: int) -> Response:
        series = services_series.series_cancel(user=request.user, series_id=series_id)
        return Response(series_summary(series, list(series.seats.select_related("user")), request.user))


class SeriesJoin(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: SeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Take a seat (the last seat starts the series)")
    def post(self, request: Request, series_id: int) -> Response:
        series = services_series.series_join(user=request.user, series_id=series_id)
        return Response(_summary(series, request))


class SeriesLeave(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: SeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Give your seat back before the start")
    def post(self, request: Request, series_id: int) -> Response:
        series = services_series.series_leave(user=request.user, series_id=series_id)
        return Response(_summary(series, request))


class SeriesStart(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: SeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Start your series with the players present (at least three)")
    def post(self, request: Request, series_id: int) -> Response:
        series = services_series.series_start(user=request.user, series_id=series_id)
        return Response(_summary(series, request))


class SeriesBotIn(StrictInput):
    level = serializers.ChoiceField(choices=["easy", "normal", "strong"], help_text="the house bot's strength")


class SeriesAddBot(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=SeriesBotIn, responses={200: SeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Give a free seat of your open series to a house bot (the site moves it)")
    def post(self, request: Request, series_id: int) -> Response:
        data = _valid(SeriesBotIn, request)
        series = services_series.series_add_bot(user=request.user, series_id=series_id, level=data["level"])
        return Response(_summary(series, request))


class SeriesPlace(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=PlaceIn, responses={200: SeriesActionOut, **MOVE_ERRORS},
                   summary="Place your boat (R15, R16)", parameters=[IDEMPOTENCY])
    def post(self, request: Request, series_id: int) -> Response:
        data = _valid(PlaceIn, request)
        return Response(services_series.series_place(
            user=request.user, series_id=series_id, ply=data["ply"], cell=(data["cell"][0], data["cell"][1]),
            heading=data["heading"], idempotency_key=_key(request)))


class SeriesRoll(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=RollIn, responses={200: SeriesActionOut, **MOVE_ERRORS},
                   summary="Choose and roll your dice (R6); the server rolls", parameters=[IDEMPOTENCY])
    def post(self, request: Request, series_id: int) -> Response:
        serializer = RollIn(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(services_series.series_roll(
            user=request.user, series_id=series_id, ply=serializer.validated_data["ply"], choice=serializer.choice(),
            idempotency_key=_key(request)))


class SeriesDirection(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=DirectionIn, responses={200: SeriesActionOut, **MOVE_ERRORS},
                   summary="Choose a direction (R7, R17)", parameters=[IDEMPOTENCY])
    def post(self, request: Request, series_id: int) -> Response:
        data = _valid(DirectionIn, request)
        return Response(services_series.series_direction(
            user=request.user, series_id=series_id, ply=data["ply"], direction=data["direction"],
            idempotency_key=_key(request)))


class SeriesResign(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=ResignIn, responses={200: SeriesActionOut, **MOVE_ERRORS},
                   summary="Leave the series (send confirm: true): your boat is lifted off (R18)", parameters=[IDEMPOTENCY])
    def post(self, request: Request, series_id: int) -> Response:
        _valid(ResignIn, request)
        return Response(services_series.series_resign(user=request.user, series_id=series_id,
                                                      idempotency_key=_key(request)))


class SeriesRecordOut(S):
    format = serializers.CharField()
    version = serializers.IntegerField()
    series = serializers.JSONField()
    players = serializers.JSONField()
    courses = serializers.JSONField()
    races = serializers.JSONField()
    result = serializers.JSONField(allow_null=True)


class SeriesRecord(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses={200: SeriesRecordOut, **errors(409, e409="the series has not started")},
                   summary="The series record (docs/game-record.md, version 2)")
    def get(self, request: Request, series_id: int) -> Response:
        series, seats = _loaded(series_id)
        if series.status == SeriesGame.Status.OPEN:
            from .errors import Conflict

            raise Conflict("the series has not started", "series")
        return Response(services_series.engine_of(series, seats).record(meta={"site_series": series.pk}))


class SeriesLeaderboard(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=SeriesRatingOut(many=True),
                   summary="The multi-player leaderboard (pairwise Glicko-2 per series; apart from the two-player "
                           "rating): established ratings only, provisional ones (deviation 110 or more) left out")
    def get(self, request: Request) -> Response:
        return Response([{"username": r.user.username, "rating": round(r.rating, 1), "deviation": round(r.deviation, 1),
                          "provisional": is_provisional(r), "series": r.series, "wins": r.wins}
                         for r in leaderboard()])
