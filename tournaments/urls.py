from django.urls import path

from . import api, api_formats, views, views_formats

urlpatterns = [
    path("players/<str:username>/", views.profile, name="profile"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/new/", views.tournament_new, name="tournament_new"),
    path("tournaments/<id:tournament_id>/", views.tournament_page, name="tournament"),
    path("tournaments/<id:tournament_id>/trf/", views.tournament_trf, name="tournament_trf"),
    path("tournaments/<id:tournament_id>/<str:action>/", views.tournament_action, name="tournament_action"),
    # round-robins and the Competition (docs/tournaments.md)
    path("round-robins/", views_formats.round_robin_list, name="round_robins"),
    path("round-robins/new/", views_formats.round_robin_new, name="round_robin_new"),
    path("round-robins/<id:round_robin_id>/", views_formats.round_robin_page, name="round_robin"),
    path("round-robins/<id:round_robin_id>/<str:action>/", views_formats.round_robin_action,
         name="round_robin_action"),
    path("groups/<id:group_id>/", views_formats.group_page, name="group"),
    path("competition/", views_formats.competition_default, name="competition_default"),
    path("competitions/<id:competition_id>/", views_formats.competition_page, name="competition"),
    path("competitions/<id:competition_id>/players/<str:username>/", views_formats.competition_player,
         name="competition_player"),
    path("competitions/<id:competition_id>/<str:action>/", views_formats.competition_action,
         name="competition_action"),
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
    *api_formats.urlpatterns,  # round-robins, groups, the Competition
]
