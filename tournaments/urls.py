from django.urls import path

from . import api, views

urlpatterns = [
    path("players/<str:username>/", views.profile, name="profile"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/new/", views.tournament_new, name="tournament_new"),
    path("tournaments/<id:tournament_id>/", views.tournament_page, name="tournament"),
    path("tournaments/<id:tournament_id>/trf/", views.tournament_trf, name="tournament_trf"),
    path("tournaments/<id:tournament_id>/<str:action>/", views.tournament_action, name="tournament_action"),
]

api_urlpatterns = [
    path("leaderboard/", api.LeaderboardView.as_view(), name="api_leaderboard"),
    path("players/<str:username>/", api.PlayerView.as_view(), name="api_player"),
    path("tournaments/", api.TournamentList.as_view(), name="api_tournaments"),
    path("tournaments/<id:tournament_id>/", api.TournamentDetail.as_view(), name="api_tournament"),
    path("tournaments/<id:tournament_id>/trf/", api.TournamentTrf.as_view(), name="api_tournament_trf"),
    path("tournaments/<id:tournament_id>/register/", api.TournamentRegister.as_view(), name="api_tournament_register"),
    path("tournaments/<id:tournament_id>/withdraw/", api.TournamentWithdraw.as_view(), name="api_tournament_withdraw"),
    path("tournaments/<id:tournament_id>/remove/", api.TournamentRemove.as_view(), name="api_tournament_remove"),
    path("tournaments/<id:tournament_id>/bye/", api.TournamentBye.as_view(), name="api_tournament_bye"),
]
