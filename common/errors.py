"""The refusals every app answers with (games, tournaments, the API's lists): a 4xx with a
``code``, a ``message`` in the reader's language and, where it applies, the ``field`` and the
``rule`` (R1–R20). The API turns them into JSON (common.api.exception_handler), the pages into
a message. Refusals of the rules of a game are games.errors'."""

from __future__ import annotations


class ServiceError(Exception):
    status = 400
    code = "invalid"

    def __init__(self, message: str, field: str | None = None, rule: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.rule = rule

    def as_dict(self) -> dict[str, str]:
        data = {"code": self.code, "message": self.message}
        if self.field:
            data["field"] = self.field
        if self.rule:
            data["rule"] = self.rule
        return data


class NotFound(ServiceError):
    status = 404
    code = "not_found"


class NotAPlayer(ServiceError):
    status = 403
    code = "not_a_player"


class Conflict(ServiceError):
    status = 409
    code = "conflict"
