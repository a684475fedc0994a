"""Errors raised by the rules engine. Each names the ruling (R1–R14) it enforces."""

from __future__ import annotations


class EngineError(ValueError):
    """Base class: ``rule`` is a ruling id (e.g. ``"R7"``) or ``"turn"``/``"over"``; ``message``
    is English (the engine has no translations). A refusal the site words in its reader's
    language also has a ``code`` and the ``params`` its words need (games/reasons.py,
    ``refusal_text``): nothing of the English sentence is parsed back."""

    def __init__(self, rule: str, message: str, field: str | None = None, code: str = "",
                 params: dict[str, object] | None = None) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
        self.field = field
        self.code = code
        self.params: dict[str, object] = dict(params or {})


class IllegalMove(EngineError):
    """A choice the rules do not allow; the state is unchanged."""


class GameOver(IllegalMove):
    """The game has ended; no more choices are accepted."""


class CourseError(EngineError):
    """A lake or course that cannot be built or is not valid."""


class RecordError(EngineError):
    """A game record that is malformed or does not replay."""
