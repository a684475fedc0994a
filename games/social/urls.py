"""The social pages (issue 13): the next game to move, a game's chat and rematch, games to watch,
player search. Included by the site's URLs beside the games app's; the names are the ones they had."""

from django.urls import path

from . import views

urlpatterns = [
    path("games/next/", views.next_game, name="next_game"),
    path("games/<id:game_id>/social/", views.game_social, name="game_social"),
    path("games/<id:game_id>/chat/", views.chat_post, name="game_chat"),
    path("games/<id:game_id>/chat/mute/", views.chat_mute, name="game_chat_mute"),
    path("games/<id:game_id>/chat/<id:message_id>/report/", views.chat_report, name="game_chat_report"),
    path("games/<id:game_id>/rematch/", views.rematch, name="game_rematch"),
    path("watch/", views.watch, name="watch"),
    path("players/", views.player_search, name="player_search"),
]
