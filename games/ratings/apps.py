from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "games.ratings"
    label = "ratings"
