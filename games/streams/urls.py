"""The live streams' addresses (docs/live.md), in one place: the site's URLconf includes them
(games/urls.py, games/api_urls.py), and the streams' own handler (games.streams.asgi) resolves
with this URLconf alone, which has a handful of patterns to try instead of the site's hundred."""

from django.http import HttpRequest, JsonResponse
from django.urls import include, path
from django.utils.translation import gettext

import common.converters  # noqa: F401  (registers "id")

from . import views as live_views

page_streams = [
    path("events/game/<id:game_id>/", live_views.game_events, name="live_game"),
    path("events/game/<id:game_id>/part/", live_views.game_part, name="live_game_part"),
    path("events/me/", live_views.my_events, name="live_me"),
    path("events/lobby/", live_views.lobby_events, name="live_lobby"),
    path("events/series/", live_views.series_lobby_events, name="live_series_lobby"),
]

api_streams = [
    path("games/<id:game_id>/stream/", live_views.api_game_stream, name="api_game_stream"),
    path("stream/events/", live_views.api_user_events, name="api_stream_events"),
]

urlpatterns = [*page_streams, path("api/", include(api_streams))]


# Errors as the streams' other answers: JSON naming what is wrong (the site's error pages need
# its middleware: the session, the player, the menu; the streams' handler has none of it).
def _answer(status: int, code: str, message: str, field: str | None = None) -> JsonResponse:
    return JsonResponse({"code": code, "message": message, **({"field": field} if field else {})}, status=status)


def not_found(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return _answer(404, "not_found", gettext("there is no live stream at this address"), "path")


def bad_request(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return _answer(400, "invalid", gettext("bad request"))


def forbidden(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return _answer(403, "forbidden", gettext("not allowed"))


def server_error(request: HttpRequest) -> JsonResponse:
    return _answer(500, "server_error", gettext("the server failed; try again"))


handler404 = not_found
handler400 = bad_request
handler403 = forbidden
handler500 = server_error
