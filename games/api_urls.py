from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from . import api, api_old_paths
from .streams.urls import api_streams

urlpatterns = [
    path("token/", api.ObtainToken.as_view(), name="api_token"),
    path("challenges/", api.ChallengeList.as_view(), name="api_challenges"),
    path("challenges/<id:challenge_id>/", api.ChallengeDetail.as_view(), name="api_challenge"),
    path("challenges/<id:challenge_id>/accept/", api.ChallengeAccept.as_view(), name="api_challenge_accept"),
    path("challenges/<id:challenge_id>/decline/", api.ChallengeDecline.as_view(), name="api_challenge_decline"),
    path("games/", api.GameList.as_view(), name="api_games"),
    path("games/open/", api.OpenGameList.as_view(), name="api_open_games"),
    path("games/<id:game_id>/", api.GameDetail.as_view(), name="api_game"),
    *api_streams,
    path("games/<id:game_id>/record/", api.GameRecord.as_view(), name="api_game_record"),
    path("games/<id:game_id>/place/", api.GamePlace.as_view(), name="api_game_place"),
    path("games/<id:game_id>/roll/", api.GameRoll.as_view(), name="api_game_roll"),
    path("games/<id:game_id>/direction/", api.GameDirection.as_view(), name="api_game_direction"),
    path("games/<id:game_id>/resign/", api.GameResign.as_view(), name="api_game_resign"),
    path("games/<id:game_id>/plan/", api.GamePlan.as_view(), name="api_game_plan"),
    path("games/<id:game_id>/join/", api.GameJoin.as_view(), name="api_game_join"),
    path("games/<id:game_id>/leave/", api.GameLeave.as_view(), name="api_game_leave"),
    path("games/<id:game_id>/start/", api.GameStart.as_view(), name="api_game_start"),
    path("games/<id:game_id>/bots/", api.GameAddBot.as_view(), name="api_game_add_bot"),
    path("accounts/", api.Register.as_view(), name="api_register"),
    path("me/", api.Me.as_view(), name="api_me"),
    path("me/bot/", api.BecomeBot.as_view(), name="api_become_bot"),
    path("bots/play/", api.PlayBot.as_view(), name="api_play_bot"),
    path("me/vacation/", api.MyVacation.as_view(), name="api_vacation"),
    # series by their number, as before series were games (games/api_old_paths.py)
    path("series/", api_old_paths.SeriesList.as_view(), name="api_series_list"),
    path("series/leaderboard/", api_old_paths.SeriesLeaderboard.as_view(), name="api_series_leaderboard"),
    path("series/<id:series_id>/", api_old_paths.SeriesDetail.as_view(), name="api_series"),
    path("series/<id:series_id>/join/", api_old_paths.SeriesJoin.as_view(), name="api_series_join"),
    path("series/<id:series_id>/leave/", api_old_paths.SeriesLeave.as_view(), name="api_series_leave"),
    path("series/<id:series_id>/bots/", api_old_paths.SeriesAddBot.as_view(), name="api_series_add_bot"),
    path("series/<id:series_id>/start/", api_old_paths.SeriesStart.as_view(), name="api_series_start"),
    path("series/<id:series_id>/place/", api_old_paths.SeriesPlace.as_view(), name="api_series_place"),
    path("series/<id:series_id>/roll/", api_old_paths.SeriesRoll.as_view(), name="api_series_roll"),
    path("series/<id:series_id>/direction/", api_old_paths.SeriesDirection.as_view(), name="api_series_direction"),
    path("series/<id:series_id>/resign/", api_old_paths.SeriesResign.as_view(), name="api_series_resign"),
    path("series/<id:series_id>/record/", api_old_paths.SeriesRecord.as_view(), name="api_series_record"),
    path("schema/", SpectacularAPIView.as_view(), name="api_schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api_schema"), name="api_docs"),
]
