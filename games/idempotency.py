"""Idempotency keys (``Idempotency-Key``, games/api.py): a retried action gets its first answer
again, for an action of any game (one key space per player). Inside the action's transaction,
with the game row locked."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from common.errors import Conflict

from .models import Game, IdempotentRequest


def first_answer(user: Any, key: str | None, action: str, of: Game) -> dict[str, Any] | None:
    """The answer the first request with ``key`` got, or None if there was none; a key used for
    another action or another game is refused (409, naming the header)."""
    if not key:
        return None
    previous = IdempotentRequest.objects.filter(user=user, key=key).first()
    if previous is None:
        return None
    if previous.game_id != of.pk or previous.action != action:
        raise Conflict(_("this Idempotency-Key was used for another request"), "Idempotency-Key")
    return dict(previous.response)


def remember(user: Any, key: str | None, action: str, of: Game, answer: dict[str, Any]) -> None:
    """Keep ``answer`` for retries with ``key`` (none without a key)."""
    if key:
        IdempotentRequest.objects.create(user=user, key=key, action=action, response=answer, game=of)
