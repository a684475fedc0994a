from django.urls import path

from . import views
from .streams.urls import page_streams

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("help/", views.help_page, name="help"),
    path("rules/", views.rules_page, name="rules"),
    path("lobby/", views.lobby, name="lobby"),
    path("lobby/bot/", views.play_bot, name="play_bot"),
    path("challenges/<id:challenge_id>/<str:action>/", views.challenge_action, name="challenge_action"),
    path("games/", views.my_games, name="my_games"),
    path("games/<id:game_id>/", views.game_page, name="game"),
    path("games/<id:game_id>/live/", views.game_live, name="game_live"),
    path("games/<id:game_id>/advice/", views.game_advice, name="game_advice"),
    path("guide/done/", views.guide_done, name="guide_done"),
    path("games/<id:game_id>/board.svg", views.game_board, name="game_board"),
    path("games/<id:game_id>/record.json", views.game_record, name="game_record"),
    path("games/<id:game_id>/place/", views.place, name="game_place"),
    path("games/<id:game_id>/roll/", views.roll, name="game_roll"),
    path("games/<id:game_id>/plan/", views.plan, name="game_plan"),
    path("games/<id:game_id>/direction/", views.direction, name="game_direction"),
    path("games/<id:game_id>/resign/", views.resign, name="game_resign"),
    path("games/<id:game_id>/lobby/<str:action>/", views.lobby_action, name="lobby_action"),
    path("series/", views.series_lobby, name="series_lobby"),
    # a series' old addresses (before series were games): its number, sent on to its game
    path("series/<id:number>/", views.series_address, name="series"),
    path("series/<id:number>/<path:rest>", views.series_address, name="series_old"),
    *page_streams,
    path("settings/", views.settings_page, name="settings"),
    path("email/unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
