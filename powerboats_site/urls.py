from django.contrib import admin
from django.urls import include, path

from accounts.views import PasswordResetView
from games import views as game_views
from powerboats_site import converters  # noqa: F401  (registers <id:…> before the apps' URLs use it)
from tournaments.urls import api_urlpatterns as rating_api

urlpatterns = [
    path("", game_views.home, name="home"),
    path("health/", game_views.health, name="health"),
    path("", include("games.urls")),
    path("api/", include("games.api_urls")),
    path("api/", include(rating_api)),
    path("", include("tournaments.urls")),
    path("accounts/password_reset/", PasswordResetView.as_view(), name="password_reset"),  # rate-limited
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
]

handler404 = "powerboats_site.errors.not_found"
handler500 = "powerboats_site.errors.server_error"
