"""Input that no view can use is refused at the edge, before any view or database sees it.

* A path or query string holding a NUL (``%00``) or a lone surrogate: PostgreSQL's driver
  cannot send either, so a view would fail with a 500. Answer 400 naming the parameter.
* A body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE``: 413, decided from ``Content-Length``
  before anything reads the body (and from Django's ``RequestDataTooBig`` if a view gets
  there first).
* More query parameters than ``DATA_UPLOAD_MAX_NUMBER_FIELDS``: 400.

Under ``/api/`` the answer is the API's error JSON ``{"code", "message", "field"?}``;
elsewhere a plain page (templates/400.html).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.utils import timezone, translation

_UNUSABLE = re.compile("[\x00\ud800-\udfff]")


def _describe(text: str) -> str:
    char = _UNUSABLE.search(text)
    return "a NUL character (%00)" if char is None or char.group() == "\x00" else "a character that is not valid text"


def _refuse(request: HttpRequest, status: int, code: str, message: str, field: str | None = None,
            as_json: bool = False) -> HttpResponse:
    if as_json or request.path_info.startswith("/api/"):
        body = {"code": code, "message": message}
        if field is not None:
            body["field"] = field
        return JsonResponse(body, status=status)
    title = "Request too large" if status == 413 else "Bad request"
    return render(request, "400.html", {"title": title, "message": message}, status=status)


def bad_input(request: HttpRequest, as_json: bool = False) -> HttpResponse | None:
    """The refusal of input no view can use, or None (also used by the live streams' handler,
    games.streams.asgi, which answers in JSON: ``as_json``)."""
    if _UNUSABLE.search(request.path_info):
        field = _path_parameter(request.path_info)
        return _refuse(request, 400, "invalid", f"{field}: must not contain {_describe(request.path_info)}", field,
                       as_json)
    try:
        query = list(request.GET.lists())
    except TooManyFieldsSent:
        return _refuse(request, 400, "invalid",
                       f"too many query parameters (at most {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS})", None, as_json)
    for name, values in query:
        for text in [name, *values]:
            if _UNUSABLE.search(text):
                field = "query" if _UNUSABLE.search(name) else name
                return _refuse(request, 400, "invalid", f"{field}: must not contain {_describe(text)}", field, as_json)
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if settings.DATA_UPLOAD_MAX_MEMORY_SIZE is not None and length > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
        return too_large(request, as_json)
    return None


def too_large(request: HttpRequest, as_json: bool = False) -> HttpResponse:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0
    return _refuse(request, 413, "too_large", f"the request body is larger than {limit // 1024} KiB", None, as_json)


def _path_parameter(path: str) -> str:
    """The name of the URL parameter that holds the bad character, else ``path``."""
    try:
        match = resolve(path)
    except Resolver404:
        return "path"
    for name, value in match.kwargs.items():
        if isinstance(value, str) and _UNUSABLE.search(value):
            return name
    return "path"


class BadInputMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return bad_input(request) or self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, RequestDataTooBig):
            return too_large(request)
        return None


def use_players_language(request: HttpRequest, user: Any) -> None:
    """The player's own language (``User.language``) for the rest of the request, when they
    chose one; else the language LocaleMiddleware found stays (session and token logins)."""
    language = getattr(user, "language", "")
    if language and translation.check_for_language(language):
        translation.activate(language)
        request.LANGUAGE_CODE = language


class UserLocaleMiddleware:
    """A logged-in player's own language (``User.language``; blank: the browser's, which
    Django's ``LocaleMiddleware`` has already activated from the switcher's cookie or
    Accept-Language) and time zone (``User.time_zone``) for the rest of the request.

    ``request.user`` is read lazily by every view that needs a player anyway, so this costs
    no query on the pages and the API calls that already know who is asking."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            use_players_language(request, user)
            timezone.activate(user.tz)
        else:
            timezone.deactivate()
        return self.get_response(request)  # LocaleMiddleware names the language in Content-Language
