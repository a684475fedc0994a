"""A URLconf with one address (tests/site/test_kept_tags.py: a kept {% url %} follows ROOT_URLCONF)."""

from django.http import HttpResponse
from django.urls import path

urlpatterns = [path("only/<int:game_id>/", lambda request, game_id: HttpResponse(), name="game")]
