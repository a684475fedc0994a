"""The API of the social features (issue 13): a game's chat (read by all, written by its two
players; mute, report), rematches, the next game awaiting your move, games to watch and player
search. Views are thin: they read the input with strict serializers and call
games.services_social or games.selectors_social (docs/social.md)."""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.names import control_characters
from common.errors import NotFound, ServiceError
from common.pagination import Pages
from common.schema import PatternCharField, errors
from common.strict import StrictInput
from games.api import ChallengeOut, Flag, GameSummary, _valid
from games.models import Game

from . import services
from .models import CHAT_MAX_LENGTH, ChatMessage
from .selectors import chat_of, games_to_watch, has_muted, next_game_to_move, players_matching
from .services import REPORT_REASON_MAX_LENGTH

SEARCH_MAX = 30


class ChatLineOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    user = serializers.CharField(source="user.username", help_text="who wrote it (one of the game's players)")

    class Meta:
        model = ChatMessage
        fields = ["id", "user", "text", "created_at"]


class ChatOut(serializers.Serializer):  # type: ignore[type-arg]
    lines = ChatLineOut(many=True, help_text="the latest lines, oldest first (at most 100)")
    can_write = serializers.BooleanField(help_text="you are one of the game's two players")
    muted = serializers.BooleanField(help_text="you have muted your opponent: their lines are left out for you")


class ChatIn(StrictInput):
    text = PatternCharField(pattern=r"\S", max_length=CHAT_MAX_LENGTH, trim_whitespace=False,
                            help_text=f"1 to {CHAT_MAX_LENGTH} characters, not only spaces, no control or invisible "
                                      "characters")


class MuteIn(StrictInput):
    muted = Flag(help_text="true: hide your opponent's lines from you in this game; false: show them again")


class MuteOut(serializers.Serializer):  # type: ignore[type-arg]
    muted = serializers.BooleanField()


class ReportIn(StrictInput):
    reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=REPORT_REASON_MAX_LENGTH,
                                   trim_whitespace=False, help_text="why (optional), for the staff")


class ReportOut(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    message = serializers.IntegerField(source="message_id", help_text="the chat line reported")
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()


class RematchOut(serializers.Serializer):  # type: ignore[type-arg]
    challenge = ChallengeOut(allow_null=True, help_text="your offer, waiting for your opponent (accept: "
                                                        "POST /api/challenges/{id}/accept/)")
    game = GameSummary(allow_null=True, help_text="the rematch, when it started at once (your opponent had offered "
                                                  "one, or is a house bot)")


class NextGameOut(serializers.Serializer):  # type: ignore[type-arg]
    game = GameSummary(allow_null=True, help_text="null: no game awaits your move")


class PlayerFoundOut(serializers.Serializer):  # type: ignore[type-arg]
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


def _text(value: str, field: str) -> str:
    bad = control_characters(value)
    if bad:
        raise ServiceError(f"{field} cannot hold control or invisible characters ({', '.join(dict.fromkeys(bad))})",
                           field)
    return value


class GameChat(APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(responses=ChatOut, summary="A game's chat (everyone who can see the game reads it)")
    def get(self, request: Request, game_id: int) -> Response:
        game = Game.objects.filter(pk=game_id).only("pk").first()
        if game is None:
            raise NotFound(f"no game {game_id}", "game")
        user = request.user if request.user.is_authenticated else None
        return Response(ChatOut({"lines": chat_of(game, user), "can_write": game.seat_of(user) is not None,
                                 "muted": has_muted(game, user) if user else False}).data)

    @extend_schema(request=ChatIn, responses={201: ChatLineOut, **errors(403, 429, e403="not a player in this game",
                                                                          e429="too many lines in a minute")},
                   summary="Write a line in a game's chat (its two players only)")
    def post(self, request: Request, game_id: int) -> Response:
        data = _valid(ChatIn, request)
        line = services.chat_post(user=request.user, game_id=game_id, text=data["text"])
        return Response(ChatLineOut(line).data, status=status.HTTP_201_CREATED)


class GameChatMute(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=MuteIn, responses={200: MuteOut, **errors(403, e403="not a player in this game")},
                   summary="Mute (or unmute) your opponent's chat in a game")
    def post(self, request: Request, game_id: int) -> Response:
        data = _valid(MuteIn, request)
        muted = services.chat_mute(user=request.user, game_id=game_id, muted=data["muted"])
        return Response({"muted": muted})


class GameChatReport(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=ReportIn,
                   responses={201: ReportOut, **errors(403, 409, e403="not a player in this game",
                                                       e409="you reported this line already")},
                   summary="Report a chat line of your opponent's to the staff")
    def post(self, request: Request, game_id: int, message_id: int) -> Response:
        data = _valid(ReportIn, request)
        report = services.chat_report(user=request.user, message_id=message_id, game_id=game_id,
                                             reason=_text(data["reason"], "reason"))
        return Response(ReportOut(report).data, status=status.HTTP_201_CREATED)


class GameRematch(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None,
                   responses={201: RematchOut, **errors(403, 409, e403="not a player in this game",
                                                        e409="the game goes on, or a rematch was offered or played")},
                   summary="Offer a rematch of a finished game (same settings, colours swapped)",
                   description="A challenge to your opponent; if they had offered a rematch already, or are a house "
                               "bot, the new game starts at once.")
    def post(self, request: Request, game_id: int) -> Response:
        result = services.game_rematch(user=request.user, game_id=game_id)
        if isinstance(result, Game):
            body: dict[str, Any] = {"challenge": None, "game": GameSummary(result, context={"request": request}).data}
        else:
            body = {"challenge": ChallengeOut(result).data, "game": None}
        return Response(body, status=status.HTTP_201_CREATED)


class NextGame(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=NextGameOut, summary="The game awaiting your move with the oldest deadline")
    def get(self, request: Request) -> Response:
        game = next_game_to_move(request.user)
        return Response({"game": GameSummary(game, context={"request": request}).data if game else None})


class WatchList(generics.ListAPIView):  # type: ignore[type-arg]
    permission_classes = [AllowAny]
    serializer_class = GameSummary
    pagination_class = Pages

    @extend_schema(summary="Games in progress, the newest move first (anyone may watch)")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> Any:
        return games_to_watch()


class PlayerSearch(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[OpenApiParameter("q", {"type": "string", "minLength": 1, "maxLength": SEARCH_MAX}, required=True,
                                     description="the start of a username; case and look-alike letters do not count")],
        responses=PlayerFoundOut(many=True), summary="Find players by the start of their name (at most 20)",
    )
    def get(self, request: Request) -> Response:
        values = request.query_params.getlist("q")
        if len(values) != 1 or not 1 <= len(values[0]) <= SEARCH_MAX:
            raise ServiceError(f"q must be one string of 1 to {SEARCH_MAX} characters", "q")
        query = _text(values[0], "q")
        return Response(PlayerFoundOut(players_matching(query), many=True).data)


urlpatterns = [
    path("games/next/", NextGame.as_view(), name="api_next_game"),
    path("games/watch/", WatchList.as_view(), name="api_watch"),
    path("games/<id:game_id>/chat/", GameChat.as_view(), name="api_game_chat"),
    path("games/<id:game_id>/chat/mute/", GameChatMute.as_view(), name="api_game_chat_mute"),
    path("games/<id:game_id>/chat/<id:message_id>/report/", GameChatReport.as_view(), name="api_game_chat_report"),
    path("games/<id:game_id>/rematch/", GameRematch.as_view(), name="api_game_rematch"),
    path("players/", PlayerSearch.as_view(), name="api_player_search"),
]
