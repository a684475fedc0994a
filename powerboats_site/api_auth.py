"""DRF's token authentication, plus the player's own language (``User.language``) for the
rest of the request, as ``UserLocaleMiddleware`` does for session logins (docs/i18n.md):
a token client gets its refusals' ``message`` in the player's language, else in the language
of ``Accept-Language``; the ``code`` never changes."""

from __future__ import annotations

from typing import Any

from rest_framework import authentication
from rest_framework.request import Request

from .middleware import use_players_language


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        result = super().authenticate(request)
        if result is not None:
            use_players_language(request._request, result[0])
        return result
