"""The OpenAPI schema says what every operation can answer (issue 11).

Every error the site answers is JSON of one shape (:class:`ErrorOut`). Besides the statuses an
operation declares itself (``extend_schema(responses=…)``: its success, and the 403/409 its
service can refuse with), :class:`AutoSchema` adds those the framework and the edge answer for
any operation of a kind:

* ``400`` — always: invalid input, including what the edge refuses before any view (a NUL byte
  in the path or query, too many parameters; common.middleware);
* ``401`` — when the operation needs authentication;
* ``404`` — when the path names an object, or the operation reads a page of a list;
* ``413`` — when the operation takes a body (the edge refuses bodies over 256 KiB);
* ``415`` — when it takes a body (a content type it does not read).
"""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular import openapi
from drf_spectacular.utils import OpenApiResponse, extend_schema_serializer
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly


@extend_schema_serializer(component_name="Error")
class ErrorOut(serializers.Serializer):  # type: ignore[type-arg]
    """Every error: what went wrong, in words, and where."""

    code = serializers.CharField(help_text="stable: invalid, not_found, not_a_player, not_your_turn, stale_ply, "
                                           "illegal_move, game_over, time_over, conflict, throttled, …")
    message = serializers.CharField(help_text="for people")
    field = serializers.CharField(required=False, help_text="the input at fault (a body field, a parameter, body)")
    rule = serializers.CharField(required=False, help_text="the ruling broken (R1–R20), for an illegal move")
    # a field named "errors" (DRF takes declared fields out of the class: Serializer.errors stays)
    errors = serializers.JSONField(required=False,  # type: ignore[assignment]
                                   help_text="every invalid field with its messages")


def errors(*codes: int, **described: str) -> dict[int, OpenApiResponse]:
    """``extend_schema(responses={…, **errors(403, 409)})``: these statuses answer an ErrorOut."""
    out = {code: OpenApiResponse(ErrorOut, description=described.get(f"e{code}", "")) for code in codes}
    return out


DEFAULTS = {
    "400": "Invalid input: the answer names the field (and for a move the rule). Nothing changed.",
    "401": "Authentication needed: a token (Authorization: Token …) or a session.",
    "404": "No such object (or page).",
    "413": "The request body is larger than the site accepts.",
    "415": "The request body is in a content type this operation does not read.",
}


class StatedPattern:
    """A serializer field whose values a service checks against a pattern, with a message of its
    own (``TiebreaksField``, a username, a chat line): the schema states ``pattern`` too, so
    a client (and the fuzz stage) knows it. Mixed into a field class before the DRF class."""

    def __init__(self, *args: Any, pattern: str, **kwargs: Any) -> None:
        self.schema_pattern = pattern
        super().__init__(*args, **kwargs)


class PatternCharField(StatedPattern, serializers.CharField):
    pass


class AutoSchema(openapi.AutoSchema):
    def _map_serializer_field(self, field: Any, direction: Any, bypass_extensions: bool = False) -> Any:
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        pattern = getattr(field, "schema_pattern", None)
        if pattern is not None and isinstance(schema, dict):
            schema["pattern"] = pattern  # before the field's own RegexValidator, which then adds none
        return schema

    def _needs_authentication(self) -> bool:
        for permission in getattr(self.view, "permission_classes", []):
            if permission is IsAuthenticated:
                return True
            if permission is IsAuthenticatedOrReadOnly and self.method not in ("GET", "HEAD", "OPTIONS"):
                return True
        return False

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        wanted = ["400"]
        if self._needs_authentication():
            wanted.append("401")
        if "{" in self.path or (self.method == "GET" and self._is_list_view() and self._get_paginator()):
            wanted.append("404")
        if self.method in ("POST", "PUT", "PATCH"):
            wanted += ["413", "415"]
        for code in wanted:
            if code not in responses:
                response = self._get_response_for_code(ErrorOut, code, direction=direction)
                response["description"] = DEFAULTS[code]
                responses[code] = response
        return responses


def _blank_alternative_needed(node: Any) -> Any:
    if isinstance(node, dict):
        alternatives = node.get("oneOf")
        if (isinstance(alternatives, list) and len(alternatives) == 2 and alternatives[1] == {"type": "string",
                                                                                                "maxLength": 0}):
            main = alternatives[0]
            pattern = main.get("pattern")
            if main.get("type") == "string" and "format" not in main and main.get("minLength", 0) == 0 and (
                    pattern is None or re.search(pattern, "")):
                node.pop("oneOf")
                node.update(main)  # "" is one of the main alternative's values already
        for value in node.values():
            _blank_alternative_needed(value)
    elif isinstance(node, list):
        for value in node:
            _blank_alternative_needed(value)
    return node


def one_blank_string(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """A postprocessing hook: drf-spectacular describes a string that may be blank as
    ``oneOf: [the string, {maxLength: 0}]``. Where the string's own pattern already accepts "",
    an empty value matches both, which ``oneOf`` forbids (schemathesis found it): keep the
    string alone there."""
    return _blank_alternative_needed(result)  # type: ignore[no-any-return]
