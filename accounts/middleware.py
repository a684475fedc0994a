"""Django's AuthenticationMiddleware, with the player read with the session handed to the
backend (accounts.backends.READ_WITH_SESSION): Django's ``auth.get_user`` still decides who the
request's player is, with all its checks (the backend named in the session, the player may log
in, the password has not changed since); only the row comes from the session's query."""

from __future__ import annotations

from typing import Any

from django.contrib import auth
from django.contrib.auth import middleware
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from .backends import READ_WITH_SESSION


def get_user(request: HttpRequest) -> Any:
    if not hasattr(request, "_cached_user"):
        request.session.get(auth.SESSION_KEY)  # read the session (and its player) first
        token = READ_WITH_SESSION.set(getattr(request.session, "player", None))
        try:
            request._cached_user = auth.get_user(request)  # type: ignore[attr-defined]
        finally:
            READ_WITH_SESSION.reset(token)
    return request._cached_user  # type: ignore[attr-defined]


class AuthenticationMiddleware(middleware.AuthenticationMiddleware):
    def process_request(self, request: HttpRequest) -> None:
        super().process_request(request)
        request.user = SimpleLazyObject(lambda: get_user(request))  # type: ignore[assignment]
