from django.urls import path

from . import api, views

urlpatterns = [
    path("players/<str:username>/", views.profile, name="profile"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
]

api_urlpatterns = [
    path("leaderboard/", api.LeaderboardView.as_view(), name="api_leaderboard"),
    path("players/<str:username>/", api.PlayerView.as_view(), name="api_player"),
]
