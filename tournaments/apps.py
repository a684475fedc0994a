from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"

    def ready(self) -> None:
        from . import receivers  # noqa: F401  (connect the signal receivers)
