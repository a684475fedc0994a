from django.urls import path

from . import views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("help/", views.help_page, name="help"),
    path("lobby/", views.lobby, name="lobby"),
    path("lobby/bot/", views.play_bot, name="play_bot"),
    path("challenges/<id:challenge_id>/<str:action>/", views.challenge_action, name="challenge_action"),
    path("games/", views.my_games, name="my_games"),
    path("games/<id:game_id>/", views.game_page, name="game"),
    path("games/<id:game_id>/board.svg", views.game_board, name="game_board"),
    path("games/<id:game_id>/record.json", views.game_record, name="game_record"),
    path("games/<id:game_id>/place/", views.place, name="game_place"),
    path("games/<id:game_id>/roll/", views.roll, name="game_roll"),
    path("games/<id:game_id>/direction/", views.direction, name="game_direction"),
    path("games/<id:game_id>/resign/", views.resign, name="game_resign"),
    path("settings/", views.settings_page, name="settings"),
    path("email/unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
