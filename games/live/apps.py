from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "games.live"
    label = "live"
