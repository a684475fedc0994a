from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from accounts.views import PasswordResetView, set_language
from common import converters  # noqa: F401  (registers <id:…> before the apps' URLs use it)
from games import views as game_views
from powerboats_site import views as site_views
from tournaments.urls import api_urlpatterns as rating_api

urlpatterns = [
    path("", site_views.home, name="home"),
    path("health/", game_views.health, name="health"),
    path("favicon.ico", site_views.favicon, name="favicon"),
    path("site.webmanifest", site_views.manifest, name="manifest"),
    path("sw.js", site_views.service_worker, name="service_worker"),
    path("offline/", site_views.offline, name="offline"),
    # The API before the site's pages: a path is tried against every pattern before its own, and
    # each miss is a regular expression and a list kept for the 404 page; the pages' patterns
    # under "" were ~40 misses before every API request. No page's pattern can match under "api/"
    # (tests/site/test_url_order.py), so the order changes nothing else.
    path("api/", include("games.api_urls")),
    path("api/", include("games.social.api")),
    path("api/", include("games.notifications.api")),  # web push: the key, your devices (issue 26)
    path("api/", include(rating_api)),
    path("", include("games.urls")),
    path("", include("games.social.urls")),  # chat, rematch, next game, watch, player search (issue 13)
    path("", include("tournaments.urls")),
    path("i18n/setlang/", set_language, name="set_language"),  # the switcher on every page
    path("accounts/password_reset/", PasswordResetView.as_view(), name="password_reset"),  # rate-limited
    path("accounts/", include("django.contrib.auth.urls")),
    # the staff's chat pages, from before chat had its app (games.social): their old addresses
    re_path(r"^admin/games/(?P<model>chatreport|chatmessage)/(?P<rest>.*)$",
            RedirectView.as_view(url="/admin/social/%(model)s/%(rest)s", permanent=True, query_string=True)),
    path("admin/", admin.site.urls),
]

handler404 = "powerboats_site.errors.not_found"
handler500 = "powerboats_site.errors.server_error"
