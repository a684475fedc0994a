"""Refusals of a game's actions (its turn, its ply, its end, its rules), beside the refusals every
app answers with (common.errors: invalid, not found, not a player, conflict). The API and the site
turn them into 4xx answers with ``code``, ``message``, and where it applies the ``field`` and the
``rule`` (R1–R20)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from common.errors import ServiceError
from games.engine import EngineError

from .reasons import refusal_text


class NotYourTurn(ServiceError):
    status = 403
    code = "not_your_turn"


class GameIsOver(ServiceError):
    status = 409
    code = "game_over"


class TimeOver(GameIsOver):
    """The player to move ran out of time: the game is lost on time and nothing else counts."""

    code = "time_over"


class StalePly(ServiceError):
    status = 409
    code = "stale_ply"


class IllegalMoveError(ServiceError):
    status = 400
    code = "illegal_move"


def engine_step(call: Callable[[], Any]) -> Any:
    """Call the engine; its refusal becomes an ``IllegalMoveError`` in the reader's language,
    naming the field and the ruling (for a game and for a series alike)."""
    try:
        return call()
    except EngineError as exc:
        raise IllegalMoveError(refusal_text(exc.code, exc.params, exc.message), exc.field,
                               exc.rule if exc.rule.startswith("R") else None) from exc
