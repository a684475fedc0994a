"""Error pages: under ``/api/`` every error is the API's JSON (common.schema.ErrorOut),
also for a path that matches no route; elsewhere the site's pages."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults


def not_found(request: HttpRequest, exception: Any = None) -> HttpResponse:
    if request.path_info.startswith("/api/"):
        return JsonResponse({"code": "not_found", "message": f"nothing at {request.path_info}"}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path_info.startswith("/api/"):
        return JsonResponse({"code": "error", "message": "the server failed; it has been logged"}, status=500)
    return defaults.server_error(request)
