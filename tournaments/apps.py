from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"

    def ready(self) -> None:
        from . import ratings  # noqa: F401  (rates games inside the transaction that ends them)
