"""The REST API (``/api/``): everything the site does, for bots and other clients.

Errors are JSON: ``{"code": ..., "message": ..., "field": ..., "rule": ...}`` with a 4xx
status (common.schema.ErrorOut). Every body is read by a serializer before anything
else, so a body of the wrong shape is refused naming the field and changes nothing. Moves carry
the ``ply`` the client saw; a POST with an ``Idempotency-Key`` header that is retried gets the
first answer again. The schema (``/api/schema/``) describes every answer; the fuzz stage
(bin/fuzz) holds the site to it.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
)
from rest_framework import generics, serializers, status
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.fields import empty
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import EmailWay, Kind
from accounts.names import USERNAME_CHARACTERS, USERNAME_MAX_LENGTH, USERNAME_MIN_LENGTH
from accounts.services import user_set_email_mode, user_set_notifications
from common.errors import Conflict, NotFound, ServiceError
from common.pagination import Pages
from common.schema import PatternCharField, errors
from common.strict import StrictInput, StrictModelInput
from common.text import digits
from games.engine import DIRECTION_NAMES, Change, DiceChoice

from . import api_enums, clock, plans, services, vacations
from .advice import advice
from .api_serializers import (
    ActionOut,
    GameDetailOut,
    GameRecordOut,
    RegisteredOut,
    S,
    SeriesDetailOut,
    SeriesRecordOut,
    SeriesSummaryOut,
    VacationOut,
)
from .bots import play_house_bot
from .models import Challenge, ClockShape, ColorChoice, CourseLetter, Game, LakeSide, Plan, Ruleset
from .payloads import series_summary
from .rulesets import BOXED
from .selectors import detail_of, game_with_seats, games_of, open_challenges, open_games, outcome, plays_in
from .state import record_of

User = get_user_model()
TIME_ZONES = sorted(zoneinfo.available_timezones())

IDEMPOTENCY = OpenApiParameter(
    "Idempotency-Key", {"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[\\x21-\\x7e]+$"},
    OpenApiParameter.HEADER, required=False,
    description="Any unique string of 1 to 100 visible ASCII characters; a retried request with the same key gets "
                "the first answer.",
)
MOVE_ERRORS = errors(403, 409, e403="not a player in this game, or not your turn",
                     e409="the ply is stale, the game is over or not started, you left it (a series), or your time "
                          "ran out (code time_over)")


def _valid(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:  # type: ignore[type-arg]
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _key(request: Request) -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is not None and not (1 <= len(key) <= 100 and all("!" <= c <= "~" for c in key)):
        raise ServiceError(_("Idempotency-Key must be 1 to 100 visible ASCII characters"), "Idempotency-Key")
    return key


# --- serializers --------------------------------------------------------------------------


class Flag(serializers.BooleanField):
    """A JSON boolean, true or false: nothing else (not 0, 1, "yes") is read as one."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class AsSent:
    """Mixed into a string field that trims surrounding whitespace: its ``max_length`` is the
    length of the JSON string as sent, which the schema's ``maxLength`` states; trimming comes
    after (a 101-character name of which one is a space was taken as 100)."""

    max_length: int | None

    def run_validation(self, data: Any = empty) -> Any:
        if isinstance(data, str) and self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)  # type: ignore[attr-defined]
        return super().run_validation(data)  # type: ignore[misc]


class Text(AsSent, serializers.CharField):
    pass


GRACE_HELP = ("days per move and a grace bank: each player's grace bank, one of "
              + ", ".join(str(d) for d, _name in api_enums.GRACE_DAYS)
              + f"; a capped bank: each player's bank at the start, 1 to {clock.BANK_DAYS_MAX} days")


class ClockIn(StrictInput):
    """A clock's terms (docs/clocks.md): days per move and a grace bank, or a capped bank; the
    service checks what depends on the shape (games.clock.check_terms)."""

    days_per_move = serializers.ChoiceField(choices=api_enums.DAYS_PER_MOVE, default=3,
                                            help_text="days per move and a grace bank (a capped bank has none)")
    grace_days = serializers.IntegerField(min_value=0, max_value=clock.BANK_DAYS_MAX, default=7, help_text=GRACE_HELP)
    clock_shape = serializers.ChoiceField(choices=ClockShape.choices, default=ClockShape.MOVE,
                                          help_text="move: days per move and a grace bank; bank: a capped bank")
    bank_add_hours = serializers.IntegerField(
        min_value=0, max_value=clock.BANK_ADD_HOURS_MAX, default=0,
        help_text=f"a capped bank: hours added after each move, 1 to {clock.BANK_ADD_HOURS_MAX}")
    bank_cap_days = serializers.IntegerField(
        min_value=0, max_value=clock.BANK_DAYS_MAX, default=0,
        help_text=f"a capped bank: the most it holds, from its start to {clock.BANK_DAYS_MAX} days")
    weekend_pause_allowed = Flag(default=True, help_text="players who ask for it have their clocks stopped at "
                                                         "weekends (Saturday and Sunday in their time zone)")
    auto_vacation_allowed = Flag(default=True, help_text="a clock about to run out may take a vacation day of a "
                                                         "player who asked for it")


class ChallengeIn(ClockIn):
    color = serializers.ChoiceField(choices=ColorChoice.choices, default=ColorChoice.RANDOM,
                                    help_text="the challenger's colour: yellow places first, red moves first")
    course_letter = serializers.ChoiceField(choices=CourseLetter.choices, default="", allow_blank=True,
                                            help_text="A, B, C, or empty for a random course (R3)")
    lake_side = serializers.ChoiceField(choices=LakeSide.choices, default=LakeSide.STANDARD, help_text="R2")
    rated = Flag(default=True)
    opponent = Text(required=False, allow_blank=True, default="", max_length=150,
                    help_text="username of the player challenged; empty: open to all")

    def validate_opponent(self, value: str) -> Any:
        if not value:
            return None
        try:
            return User.objects.get(username__iexact=value)
        except User.DoesNotExist:
            raise serializers.ValidationError(_("there is no player called %(value)r") % {"value": value}) from None


class ChallengeOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    created_by = serializers.CharField(source="created_by.username")
    opponent = serializers.CharField(source="opponent.username", default=None, allow_null=True)
    days_per_move = serializers.IntegerField(help_text="0 with a capped bank")
    grace_days = serializers.IntegerField(help_text="each player's grace bank; a capped bank: its start")

    class Meta:
        model = Challenge
        fields = ["id", "created_by", "opponent", "color", "days_per_move", "grace_days", "clock_shape",
                  "bank_add_hours", "bank_cap_days", "weekend_pause_allowed", "auto_vacation_allowed", "course_letter",
                  "lake_side", "rated", "status", "created_at", "game"]


class GameSummary(serializers.ModelSerializer):  # type: ignore[type-arg]
    """A two-player game in a list."""

    yellow = serializers.SerializerMethodField()
    red = serializers.SerializerMethodField()
    to_move = serializers.SerializerMethodField()
    your_turn = serializers.SerializerMethodField()
    your_result = serializers.SerializerMethodField(help_text="a finished game you played: won, lost or draw")

    class Meta:
        model = Game
        fields = ["id", "yellow", "red", "status", "phase", "ply", "to_move", "your_turn", "your_result",
                  "course_letter", "lake_side", "days_per_move", "rated", "winner_color", "termination",
                  "result_reason", "updated_at"]

    def get_yellow(self, game: Game) -> str:
        return str(game.player(0).username)

    def get_red(self, game: Game) -> str:
        return str(game.player(1).username)

    @extend_schema_field(serializers.ChoiceField(choices=api_enums.PLAYER_COLOR, allow_null=True))
    def get_to_move(self, game: Game) -> str | None:
        return None if game.over else game.color_of(game.to_move)

    def get_your_turn(self, game: Game) -> bool:
        user = self.context["request"].user
        return bool(game.user_id_to_move == user.pk)

    @extend_schema_field(serializers.ChoiceField(choices=api_enums.OUTCOME, allow_null=True))
    def get_your_result(self, game: Game) -> str | None:
        return outcome(game, self.context["request"].user)


class Ply(StrictInput):
    ply = serializers.IntegerField(min_value=0, max_value=10**6,
                                   help_text="the game's ply as you saw it (refused with 409 if stale)")


class PlaceIn(Ply):
    cell = serializers.ListField(child=serializers.IntegerField(min_value=-1000, max_value=1000), min_length=2,
                                 max_length=2, help_text="[q, r]: a free start/finish-line cell (R5)")
    heading = serializers.IntegerField(min_value=0, max_value=5, help_text="0..5, counter-clockwise from east")


class DiceChoiceIn(StrictInput):
    """A dice choice (R6), as a roll sends it and a plan stores it."""

    change = serializers.ChoiceField(choices=[c.value for c in Change], help_text="keep, add or remove (R6)")
    remove = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=0, max_value=1000,
                                      help_text="index of the die to remove (with change=remove)")
    reroll = serializers.ListField(child=serializers.IntegerField(min_value=0, max_value=1000), default=list,
                                   max_length=1000, help_text="indices of the held dice to re-roll")


class RollIn(Ply, DiceChoiceIn):
    def choice(self) -> DiceChoice:
        data = self.validated_data
        return DiceChoice(Change(data["change"]), data.get("remove"), tuple(data.get("reroll", [])))


@extend_schema_field({"oneOf": [{"type": "integer", "minimum": 0, "maximum": 5},
                                {"type": "string", "enum": list(DIRECTION_NAMES)}]})
class DirectionField(serializers.Field):  # type: ignore[type-arg]
    default_error_messages = {"invalid": "a direction is 0..5 or one of E, NE, NW, W, SW, SE"}

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool):
            self.fail("invalid")
        if isinstance(data, int) and 0 <= data < 6:
            return data
        if isinstance(data, str) and data.upper() in DIRECTION_NAMES:
            return DIRECTION_NAMES.index(data.upper())
        if isinstance(data, str) and digits(data) and 0 <= int(data) < 6:
            return int(data)
        self.fail("invalid")
        raise AssertionError  # unreachable

    def to_representation(self, value: int) -> int:
        return value


class DirectionIn(Ply):
    direction = DirectionField(help_text="0..5 or E, NE, NW, W, SW, SE: the heading, or 60° left or right of it (R7)")


@extend_schema_field({"type": "boolean", "enum": [True]})
class TrueField(Flag):
    def to_internal_value(self, data: Any) -> bool:
        if data is not True:
            self.fail("true")
        return True

    default_error_messages = {"true": "must be true"}


class ResignIn(StrictInput):
    confirm = TrueField(help_text="must be true: you resign")


class VacationIn(StrictInput):
    days = serializers.IntegerField(required=False, min_value=1, max_value=366,
                                    help_text="default: every day left this year")


# --- challenges -----------------------------------------------------------------------------


def visible_challenge(user: Any, challenge_id: int) -> Challenge:
    """A challenge as ``user`` may see it: open ones to all, one made to a named player only to
    its two players, a cancelled (deleted) one to nobody."""
    challenge = Challenge.objects.select_related("created_by", "opponent").filter(pk=challenge_id).first()
    if challenge is None or challenge.status == Challenge.Status.CANCELLED:
        raise NotFound(_("no challenge %(challenge_id)s") % {"challenge_id": challenge_id}, "challenge")
    if challenge.opponent_id is not None and getattr(user, "pk", None) not in (challenge.created_by_id,
                                                                              challenge.opponent_id):
        raise NotFound(_("no challenge %(challenge_id)s") % {"challenge_id": challenge_id}, "challenge")
    return challenge


class ChallengeList(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=ChallengeOut(many=True), summary="Open challenges, and those made by you or to you")
    def get(self, request: Request) -> Response:
        return Response(ChallengeOut(open_challenges(request.user), many=True).data)

    @extend_schema(request=ChallengeIn, responses={201: ChallengeOut}, summary="Make a challenge")
    def post(self, request: Request) -> Response:
        data = _valid(ChallengeIn, request)
        challenge = services.challenge_create(user=request.user, **clock.with_terms(data))
        return Response(ChallengeOut(challenge).data, status=status.HTTP_201_CREATED)


class ChallengeDetail(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=ChallengeOut, summary="A challenge (one to a named player: for its two players only)")
    def get(self, request: Request, challenge_id: int) -> Response:
        return Response(ChallengeOut(visible_challenge(request.user, challenge_id)).data)

    @extend_schema(request=None, responses={200: ChallengeOut, **errors(403, 409)},
                   summary="Cancel your challenge (it is gone afterwards)")
    def delete(self, request: Request, challenge_id: int) -> Response:
        return Response(ChallengeOut(services.challenge_cancel(user=request.user, challenge_id=challenge_id)).data)


class ChallengeAccept(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={201: GameSummary, **errors(403, 409)},
                   summary="Accept a challenge: the game starts")
    def post(self, request: Request, challenge_id: int) -> Response:
        game = services.challenge_accept(user=request.user, challenge_id=challenge_id)
        return Response(GameSummary(game, context={"request": request}).data, status=status.HTTP_201_CREATED)


class ChallengeDecline(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: ChallengeOut, **errors(403, 409)},
                   summary="Decline a challenge made to you")
    def post(self, request: Request, challenge_id: int) -> Response:
        return Response(ChallengeOut(services.challenge_decline(user=request.user, challenge_id=challenge_id)).data)


# --- games ----------------------------------------------------------------------------------


class GameListItem(serializers.BaseSerializer):  # type: ignore[type-arg]
    """A game in a list, in the shape of its ruleset: a two-player game (``GameSummary``), a
    series (``SeriesSummaryOut``: with ``ruleset`` "boxed" and its ``series`` number)."""

    def to_representation(self, game: Game) -> dict[str, Any]:
        if game.multi_race:
            return series_summary(game, game.seat_list(), self.context["request"].user)
        return dict(GameSummary(game, context=self.context).data)


GAME_ITEM = PolymorphicProxySerializer(component_name="GameListItem", serializers=[GameSummary, SeriesSummaryOut],
                                       resource_type_field_name=None)
GAME_STATE = PolymorphicProxySerializer(component_name="GameState", serializers=[GameDetailOut, SeriesDetailOut],
                                        resource_type_field_name=None)


class OpenIn(ClockIn):
    ruleset = serializers.ChoiceField(choices=[Ruleset.BOXED.value],
                                      help_text="the boxed game (a series); a two-player game starts from a challenge")
    seats = serializers.IntegerField(min_value=BOXED.min_seats, max_value=BOXED.max_seats, default=4,
                                     help_text="3 to 6 players (R15); the series starts when the seats are filled")
    lake_side = serializers.ChoiceField(choices=LakeSide.choices, default=LakeSide.STANDARD, help_text="R2")
    rated = Flag(default=True)
    score_variant = Flag(default=False, help_text="R19's score variant, fixed for the series")


class GameList(generics.ListAPIView):  # type: ignore[type-arg]
    permission_classes = [IsAuthenticated]
    serializer_class = GameListItem
    pagination_class = Pages

    def get_serializer_class(self) -> Any:
        """The list's items; what a POST takes (OPTIONS describes it)."""
        return OpenIn if self.request is not None and self.request.method == "POST" else GameListItem

    @extend_schema(responses=GAME_ITEM, summary="My games, of every ruleset: your turn first")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> Any:
        return games_of(self.request.user)

    @extend_schema(request=OpenIn, responses={201: SeriesSummaryOut},
                   summary="Open a series of the boxed game for 3-6 players (in the lobby until its seats are filled)")
    def post(self, request: Request) -> Response:
        data = _valid(OpenIn, request)
        del data["ruleset"]
        game = services.game_open(user=request.user, **clock.with_terms(data))
        return Response(lobby_summary(game, request), status=status.HTTP_201_CREATED)


class OpenGameItem(serializers.BaseSerializer):  # type: ignore[type-arg]
    """A game open in the lobby: a series of the boxed game waiting for players."""

    def to_representation(self, game: Game) -> dict[str, Any]:
        return series_summary(game, game.seat_list(), self.context["request"].user)


class OpenGameList(generics.ListAPIView):  # type: ignore[type-arg]
    """The lobby: games open for players to join (``POST /api/games/<id>/join/``), newest first,
    a page at a time (as the series lobby's page lists them)."""

    permission_classes = [IsAuthenticatedOrReadOnly]
    serializer_class = OpenGameItem
    pagination_class = Pages

    @extend_schema(responses=SeriesSummaryOut(many=True),
                   summary="Games open in the lobby: series of the boxed game with seats to take, newest first")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> Any:
        return open_games()


def lobby_summary(game: Game, request: Request) -> dict[str, Any]:
    """A series as it stands after a lobby action (its seats read afresh)."""
    found = game_with_seats(game.pk)
    if found is None or found[0].status == Game.Status.CANCELLED:
        return series_summary(game, list(game.seats.select_related("user")), request.user)
    return series_summary(found[0], found[1], request.user)


def game_etag(game: Game, user: Any) -> str:
    """A game's version as one viewer sees it: it changes with every action (the ply) and
    every other change of the game row (a vacation moves a deadline, a seat is taken), and
    differs per seat (a series: per viewer, its creator's lobby)."""
    if game.multi_race:
        viewer = getattr(user, "pk", None) or "-"
        return f'"s{game.pk}.{game.ply}.{game.updated_at.timestamp():.6f}.{viewer}"'
    seat = game.seat_of(user)
    advised = "a" if getattr(user, "bot_hints", False) else ""  # the strong bot's advice, asked for or not
    return f'"{game.pk}.{game.ply}.{game.updated_at.timestamp():.6f}.{"-" if seat is None else seat}{advised}"'


def _if_none_match(request: Request) -> set[str]:
    header = request.headers.get("If-None-Match", "")
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def versioned(request: Request, etag: str, answer: Callable[[], Any]) -> Response:
    """A game's or a series' state with its ``ETag``: 304 with no body when the client's
    ``If-None-Match`` names it (``answer`` is then not even built), the state otherwise."""
    if etag in _if_none_match(request):
        response = Response(status=status.HTTP_304_NOT_MODIFIED)
    else:
        response = Response(answer())
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    return response


IF_NONE_MATCH = OpenApiParameter("If-None-Match", OpenApiTypes.STR, OpenApiParameter.HEADER,
                                 description="the ETag of the version you have: 304 if it is still current")
NOT_MODIFIED = OpenApiResponse(description="not modified: the version you have is current")


def visible_game(game_id: int) -> tuple[Game, list[Any]]:
    """A game and its seats (a cancelled series is gone)."""
    found = game_with_seats(game_id)
    if found is None or found[0].status == Game.Status.CANCELLED:
        raise NotFound(_("no game %(game_id)s") % {"game_id": game_id}, "game")
    return found


def game_state(game: Game, seats: list[Any], request: Request) -> Response:
    """A game's full state with its ``ETag`` (games.api.versioned)."""

    def answer() -> dict[str, Any]:
        detail = detail_of(game, seats, request.user)
        hint = advice(game, request.user) if not game.multi_race else None
        if hint is not None:
            detail["advice"] = hint
        return detail

    return versioned(request, game_etag(game, request.user), answer)


class GameDetail(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        responses={200: GAME_STATE, 304: NOT_MODIFIED},
        parameters=[IF_NONE_MATCH],
        summary="A game's full state",
        description="A two-player game as a game (`players`, `moves`), a game of the boxed rules as a series "
        "(`ruleset` boxed: `boats` of the race being played, positions, the series `table`, its `races`, the "
        "`history` of its actions). For the player to move: `placements`, `dice_options` (R6) or `options` "
        "(the three directions with reach, path, crash, damage, buoys rounded, finish; R7). Answers with an "
        "`ETag`; send it back in `If-None-Match` and an unchanged game answers 304 with no body.",
    )
    def get(self, request: Request, game_id: int) -> Response:
        game, seats = visible_game(game_id)
        return game_state(game, seats, request)

    @extend_schema(request=None, responses={200: SeriesSummaryOut, **errors(403, 409)},
                   summary="Cancel your open series (it is gone afterwards)")
    def delete(self, request: Request, game_id: int) -> Response:
        game = services.game_cancel(user=request.user, game_id=game_id)
        return Response(lobby_summary(game, request))


def game_record(game_id: int) -> dict[str, Any]:
    game, seats = visible_game(game_id)
    if game.status == Game.Status.OPEN:
        raise Conflict(_("the series has not started"), "series")
    return record_of(game, seats=seats)


class GameRecord(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses={200: PolymorphicProxySerializer(
        component_name="Record", serializers=[GameRecordOut, SeriesRecordOut], resource_type_field_name=None),
        **errors(409, e409="the series has not started")},
        summary="The game record (docs/game-record.md: version 1 for a two-player game, 2 for a series)")
    def get(self, request: Request, game_id: int) -> Response:
        return Response(game_record(game_id))


LOBBY_ERRORS = errors(403, 409, e403="not allowed to you (only the creator starts or cancels)",
                      e409="the series has started or is cancelled, it cannot start yet, or that house bot has its "
                           "seat already")


class GameJoin(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: SeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Take a seat in an open series (the last seat starts it)")
    def post(self, request: Request, game_id: int) -> Response:
        return Response(lobby_summary(services.game_join(user=request.user, game_id=game_id), request))


class GameLeave(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: SeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Give your seat in an open series back")
    def post(self, request: Request, game_id: int) -> Response:
        return Response(lobby_summary(services.game_leave(user=request.user, game_id=game_id), request))


class GameStart(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: SeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Start your open series with the players present (at least three)")
    def post(self, request: Request, game_id: int) -> Response:
        return Response(lobby_summary(services.game_start(user=request.user, game_id=game_id), request))


class BotIn(StrictInput):
    level = serializers.ChoiceField(choices=["easy", "normal", "strong"], help_text="the house bot's strength")


class GameAddBot(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=BotIn, responses={200: SeriesSummaryOut, **LOBBY_ERRORS},
                   summary="Give a free seat of your open series to a house bot (the site moves it)")
    def post(self, request: Request, game_id: int) -> Response:
        data = _valid(BotIn, request)
        return Response(lobby_summary(services.game_add_bot(user=request.user, game_id=game_id,
                                                            level=data["level"]), request))


class GamePlace(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=PlaceIn, responses={200: ActionOut, **MOVE_ERRORS}, parameters=[IDEMPOTENCY],
                   summary="Place your boat (R5)")
    def post(self, request: Request, game_id: int) -> Response:
        data = _valid(PlaceIn, request)
        return Response(services.game_place(
            user=request.user, game_id=game_id, ply=data["ply"], cell=(data["cell"][0], data["cell"][1]),
            heading=data["heading"], idempotency_key=_key(request),
        ))


class GameRoll(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=RollIn, responses={200: ActionOut, **MOVE_ERRORS}, parameters=[IDEMPOTENCY],
                   summary="Choose and roll your dice (R6); the server rolls")
    def post(self, request: Request, game_id: int) -> Response:
        serializer = RollIn(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(services.game_roll(
            user=request.user, game_id=game_id, ply=serializer.validated_data["ply"], choice=serializer.choice(),
            idempotency_key=_key(request),
        ))


class GameDirection(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=DirectionIn, responses={200: ActionOut, **MOVE_ERRORS}, parameters=[IDEMPOTENCY],
                   summary="Choose a direction (R7)")
    def post(self, request: Request, game_id: int) -> Response:
        data = _valid(DirectionIn, request)
        return Response(services.game_choose_direction(
            user=request.user, game_id=game_id, ply=data["ply"], direction=data["direction"],
            idempotency_key=_key(request),
        ))


class GameResign(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=ResignIn, responses={200: ActionOut, **errors(403, 409)}, parameters=[IDEMPOTENCY],
                   summary="Resign (send confirm: true)")
    def post(self, request: Request, game_id: int) -> Response:
        _valid(ResignIn, request)
        return Response(services.game_resign(user=request.user, game_id=game_id, idempotency_key=_key(request)))


# --- plans for the dice (games/plans.py) -------------------------------------------------------


class PlannedDiceIn(DiceChoiceIn):
    """The dice choice of a planned turn."""


WAY_HELP = "per total (the key: a total the dice choice can give): left, straight, right (60° from the heading then) " \
           "or ask (the site stops and you choose); a total left out: ask"


class PlannedTurnIn(StrictInput):
    dice = PlannedDiceIn()
    ways = serializers.DictField(child=serializers.ChoiceField(choices=plans.WAYS), default=dict, help_text=WAY_HELP)
    careful = Flag(default=False, help_text="ask me too when the planned way would crash or sink the boat")


class PlanIn(StrictInput):
    turns = serializers.ListField(child=PlannedTurnIn(), min_length=1, max_length=plans.MAX_TURNS,
                                  help_text="your next turn, and if you like the one after (its dice: keep or add)")


class PlannedDiceOut(S):
    change = serializers.ChoiceField(choices=[c.value for c in Change])
    remove = serializers.IntegerField(allow_null=True)
    reroll = serializers.ListField(child=serializers.IntegerField())


class PlannedTurnOut(S):
    dice = PlannedDiceOut()
    ways = serializers.DictField(child=serializers.ChoiceField(choices=plans.WAYS))
    careful = serializers.BooleanField()


class PlanOut(S):
    game = serializers.IntegerField()
    move = serializers.IntegerField(help_text="the move number of your boat it plays")
    turns = PlannedTurnOut(many=True)
    updated_at = serializers.DateTimeField()


def plan_json(plan: Plan) -> dict[str, Any]:
    return {"game": plan.game_id, "move": plan.turn, "turns": plan.turns, "updated_at": plan.updated_at}


class GamePlan(APIView):
    """Your plan for your next turn (issue 27): nobody else sees it, nor learns it exists until it
    has played."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: PlanOut, **errors(404, e404="no such game, or you have no plan in it")},
                   summary="Your plan for your next turn in a game")
    def get(self, request: Request, game_id: int) -> Response:
        game, _seats = visible_game(game_id)
        plan = plans.plan_of(request.user, game)
        if plan is None:
            raise NotFound(_("you have no plan in this game"), "plan")
        return Response(plan_json(plan))

    @extend_schema(request=PlanIn, responses={200: PlanOut, **errors(403, 409, e403="not a player in this game",
                                                                          e409="it is your turn, or the game or your "
                                                                               "boat is not going")},
                   summary="Make or change your plan for your next turn (and the one after)")
    def put(self, request: Request, game_id: int) -> Response:
        data = _valid(PlanIn, request)
        plan = plans.plan_set(user=request.user, game_id=game_id, turns=data["turns"])
        return Response(plan_json(plan))

    @extend_schema(request=None, responses={204: None, **errors(403, 404, e404="you have no plan in this game")},
                   summary="Cancel your plan")
    def delete(self, request: Request, game_id: int) -> Response:
        plans.plan_cancel(user=request.user, game_id=game_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- me: preferences and vacation -----------------------------------------------------------


class ChannelsIn(StrictInput):
    email = serializers.ChoiceField(choices=EmailWay.choices, required=False,
                                    help_text="each: an email at once; digest: in the daily digest; none")
    push = Flag(required=False, help_text="a push to your devices (those you turned notifications on for)")


class ChannelsOut(S):
    email = serializers.ChoiceField(choices=EmailWay.choices)
    push = serializers.BooleanField()


class NotificationsIn(StrictInput):
    """Per kind of notice, its channels; a kind or channel left out stays as it is."""

    your_turn = ChannelsIn(required=False)
    reminder = ChannelsIn(required=False)
    game_over = ChannelsIn(required=False)
    challenge = ChannelsIn(required=False)
    tournament = ChannelsIn(required=False, help_text="a new pairing, a round-robin's start, an end")
    vacation = ChannelsIn(required=False, help_text="a vacation day the site used for you (auto_vacation)")


class NotificationsOut(S):
    your_turn = ChannelsOut()
    reminder = ChannelsOut()
    game_over = ChannelsOut()
    challenge = ChannelsOut()
    tournament = ChannelsOut()
    vacation = ChannelsOut()


class MeSerializer(StrictModelInput):
    time_zone = serializers.ChoiceField(choices=TIME_ZONES, required=False,
                                        help_text="your time zone (IANA), for dates in emails and quiet hours")
    notifications = NotificationsIn(required=False, help_text="per kind of notice: email (each, digest, none) and "
                                                              "push (true, false)")

    class Meta:
        model = User
        fields = ["username", "email", "is_bot", "email_mode", "notifications", "quiet_from", "quiet_to",
                  "digest_hour", "reminder_hours", "time_zone", "language", "bot_turn_emails", "bot_hints",
                  "guide_done", "next_game_link", "push_devices", "vacation_days_per_year", "weekend_pause",
                  "auto_vacation"]
        read_only_fields = ["username", "is_bot", "push_devices", "vacation_days_per_year"]
        extra_kwargs = {"digest_hour": {"min_value": 0, "max_value": 23},
                        "reminder_hours": {"min_value": 1, "max_value": 336},
                        "quiet_from": {"min_value": 0, "max_value": 23},
                        "quiet_to": {"min_value": 0, "max_value": 23},
                        "email_mode": {"help_text": "a preset for every kind's email (each, digest: the games to "
                                                    "move in the daily digest, none); read: what the kinds add up to"}}

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        instance = self.instance
        start = attrs.get("quiet_from", getattr(instance, "quiet_from", None))
        end = attrs.get("quiet_to", getattr(instance, "quiet_to", None))
        if (start is None) != (end is None):
            raise serializers.ValidationError({"quiet_to" if start is not None else "quiet_from": [
                _("quiet hours need both hours (or neither: none)")]})
        return attrs

    def to_representation(self, instance: Any) -> dict[str, Any]:
        data = super().to_representation(instance)
        data["notifications"] = {k: instance.channels(k) for k in Kind.values}
        return data

    def update(self, instance: Any, validated_data: dict[str, Any]) -> Any:
        """The notifications through their services (a preset, then the kinds named), the rest as
        fields."""
        mode = validated_data.pop("email_mode", None)
        kinds = validated_data.pop("notifications", None)
        quiet = (validated_data.pop("quiet_from", instance.quiet_from), validated_data.pop("quiet_to", instance.quiet_to))
        weekends, auto = validated_data.pop("weekend_pause", None), validated_data.pop("auto_vacation", None)
        zone_changed = "time_zone" in validated_data and validated_data["time_zone"] != instance.time_zone
        if mode is not None:
            user_set_email_mode(user=instance, mode=mode)
        user_set_notifications(user=instance, notify=kinds, quiet=quiet)
        updated = super().update(instance, validated_data)
        vacations.clock_settings_set(user=updated, weekend_pause=weekends, auto_vacation=auto,
                                     time_zone_changed=zone_changed)
        return updated


class MeOut(MeSerializer):
    notifications = NotificationsOut(read_only=True)  # type: ignore[assignment]
    vacation = VacationOut(allow_null=True, read_only=True, help_text="the vacation you are on")
    vacation_days_left = serializers.FloatField(read_only=True, help_text="this calendar year (UTC)")

    class Meta(MeSerializer.Meta):
        fields = [*MeSerializer.Meta.fields, "vacation", "vacation_days_left"]


def _me(user: Any) -> dict[str, Any]:
    vacation = vacations.active_vacation(user)
    return {
        **MeSerializer(user).data,
        "vacation": {"started_at": vacation.started_at, "until": vacation.planned_end} if vacation else None,
        "vacation_days_left": round(vacations.vacation_days_left(user).total_seconds() / 86400, 2),
    }


class Me(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=MeOut, summary="Your account and preferences")
    def get(self, request: Request) -> Response:
        return Response(_me(request.user))

    @extend_schema(request=MeSerializer, responses=MeOut,
                   summary="Change your email, notifications, language and time preferences")
    def patch(self, request: Request) -> Response:
        serializer = MeSerializer(request.user, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        serializer.save()
        return Response(_me(request.user))


class MyVacation(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=VacationIn, responses={201: MeOut, **errors(409, e409="you are on vacation already")},
                   summary="Start a vacation: your clocks stop (days: default all left this year)")
    def post(self, request: Request) -> Response:
        data = _valid(VacationIn, request)
        vacations.vacation_start(user=request.user, days=data.get("days"))
        return Response(_me(request.user), status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: MeOut, **errors(409, e409="you are not on vacation")},
                   summary="End your vacation now")
    def delete(self, request: Request) -> Response:
        vacations.vacation_end(user=request.user)
        return Response(_me(request.user))


# --- accounts and bots ------------------------------------------------------------------------


class PlayBotIn(ChallengeIn):
    level = serializers.ChoiceField(choices=["easy", "normal", "strong"], help_text="the house bot's strength")
    opponent = None  # type: ignore[assignment]  # the house bot is the opponent


class PlayBot(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=PlayBotIn, responses={201: GameSummary},
                   summary="Play a house bot: the game starts at once")
    def post(self, request: Request) -> Response:
        data = _valid(PlayBotIn, request)
        game = play_house_bot(user=request.user, **clock.with_terms(data))
        return Response(GameSummary(game, context={"request": request}).data, status=status.HTTP_201_CREATED)


class RegisterIn(StrictInput):
    username = PatternCharField(
        pattern=f"^{USERNAME_CHARACTERS}+$", min_length=USERNAME_MIN_LENGTH, max_length=USERNAME_MAX_LENGTH,
        trim_whitespace=False,
        help_text="3 to 30 characters: letters, digits and @ . + - _; a name that looks like one already taken is refused",
    )
    email = serializers.EmailField(required=False, allow_blank=True, default="")
    # as typed, spaces too: logging in (POST /api/token/, the login page) does not trim either
    password = serializers.CharField(min_length=10, max_length=200, write_only=True, trim_whitespace=False)
    is_bot = Flag(default=False, help_text="a BOT account, played by your program")

    def validate_username(self, value: str) -> str:
        from django.core.exceptions import ValidationError as DjangoValidationError

        from accounts.names import validate_new_username  # one rule for every way of making an account

        try:
            validate_new_username(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from None
        return value


class Register(APIView):
    permission_classes: list[type] = []
    authentication_classes: list[type] = []

    @extend_schema(request=RegisterIn, responses={201: RegisteredOut},
                   summary="Create an account (a bot account with is_bot)")
    def post(self, request: Request) -> Response:
        from django.contrib.auth.password_validation import validate_password
        from django.core.exceptions import ValidationError as DjangoValidationError
        from rest_framework.authtoken.models import Token

        data = _valid(RegisterIn, request)
        try:
            validate_password(data["password"], User(username=data["username"]))
        except DjangoValidationError as exc:
            raise ServiceError(f"password: {' '.join(exc.messages)}", "password") from None
        try:
            user = User.objects.create_user(data["username"], data["email"], data["password"], is_bot=data["is_bot"])
        except IntegrityError:  # a look-alike name was taken at the same moment
            raise ServiceError(_("username: that name (or one that looks like it) is taken"), "username") from None
        token, _created = Token.objects.get_or_create(user=user)
        return Response({"username": user.username, "is_bot": user.is_bot, "token": token.key},
                        status=status.HTTP_201_CREATED)


class BecomeBot(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=MeOut,
                   summary="Turn your account into a BOT account (no games yet; for good)")
    def post(self, request: Request) -> Response:
        user = request.user
        assert isinstance(user, User)  # IsAuthenticated
        if user.is_bot:
            raise ServiceError(_("this account is a bot already"), "is_bot")
        if Game.objects.filter(plays_in(user)).exists():
            raise ServiceError(_("only an account that has played no games can become a bot"), "is_bot")
        user.is_bot = True
        user.save(update_fields=["is_bot"])
        return Response(_me(user))


class TokenOut(serializers.Serializer):  # type: ignore[type-arg]
    token = serializers.CharField()


class ObtainToken(ObtainAuthToken):
    """A token for a username and password (failed logins are counted: accounts/throttle.py)."""

    @extend_schema(request=AuthTokenSerializer,
                   responses={200: TokenOut, **errors(429, e429="too many failed logins: try again later "
                                                                "(Retry-After)")},
                   summary="Get your API token")
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().post(request, *args, **kwargs)
