from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"

    def ready(self) -> None:
        from . import throttle  # noqa: F401  (connects the API's login lockout)
