"""The API's answer to every refusal: JSON of one shape, ``{"code", "message", "field"?, "rule"?}``
(common.schema.ErrorOut), for the refusals of every app's services (common.errors and their
kin) and for DRF's own (invalid input naming its first field, authentication, throttling). Set as
DRF's ``EXCEPTION_HANDLER`` in the settings."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from .errors import ServiceError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Every error as ``{"code", "message", "field"?, "rule"?}``."""
    if isinstance(exc, ServiceError):
        return Response(exc.as_dict(), status=exc.status)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        field, message = _first_error(exc.detail)
        field = field or "body"
        response.data = {"code": "invalid", "message": f"{field}: {message}", "field": field, "errors": exc.detail}
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        response.data = {"code": codes if isinstance(codes, str) else "error", "message": str(exc.detail)}
    return response


def _first_error(detail: Any, prefix: str = "") -> tuple[str, str]:
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = prefix if key == "non_field_errors" else (f"{prefix}.{key}" if prefix else str(key))
            return _first_error(value, name)
    if isinstance(detail, list) and detail:
        return _first_error(detail[0], prefix)
    return prefix, str(detail)
