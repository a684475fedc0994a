from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from . import api

urlpatterns = [
    path("token/", api.ObtainToken.as_view(), name="api_token"),
    path("challenges/", api.ChallengeList.as_view(), name="api_challenges"),
    path("challenges/<id:challenge_id>/", api.ChallengeDetail.as_view(), name="api_challenge"),
    path("challenges/<id:challenge_id>/accept/", api.ChallengeAccept.as_view(), name="api_challenge_accept"),
    path("challenges/<id:challenge_id>/decline/", api.ChallengeDecline.as_view(), name="api_challenge_decline"),
    path("games/", api.GameList.as_view(), name="api_games"),
    path("games/<id:game_id>/", api.GameDetail.as_view(), name="api_game"),
    path("games/<id:game_id>/record/", api.GameRecord.as_view(), name="api_game_record"),
    path("games/<id:game_id>/place/", api.GamePlace.as_view(), name="api_game_place"),
    path("games/<id:game_id>/roll/", api.GameRoll.as_view(), name="api_game_roll"),
    path("games/<id:game_id>/direction/", api.GameDirection.as_view(), name="api_game_direction"),
    path("games/<id:game_id>/resign/", api.GameResign.as_view(), name="api_game_resign"),
    path("accounts/", api.Register.as_view(), name="api_register"),
    path("me/", api.Me.as_view(), name="api_me"),
    path("me/bot/", api.BecomeBot.as_view(), name="api_become_bot"),
    path("bots/play/", api.PlayBot.as_view(), name="api_play_bot"),
    path("me/vacation/", api.MyVacation.as_view(), name="api_vacation"),
    path("schema/", SpectacularAPIView.as_view(), name="api_schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api_schema"), name="api_docs"),
]
