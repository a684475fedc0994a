from django.urls import path

from . import views

urlpatterns = [
    path("games/<int:game_id>/move/", views.move),
    path("games/<int:game_id>/", views.detail),
]
