"""Django's ModelBackend, with the read of a logged-in player that every page starts with put
together once per process (common.db.reading) instead of compiled by the ORM on each request,
or taken from the session's own read when that read found the player (READ_WITH_SESSION,
accounts.middleware; docs/performance.md). Logging in, permissions and the checks are Django's
own."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend

from common.db.reading import rows_where

# The player read with the session in this request (powerboats_site.sessions), while
# accounts.middleware asks Django who the request's player is: set and reset around that one call,
# so that a player read in one request is never taken in another.
READ_WITH_SESSION: ContextVar[Any] = ContextVar("READ_WITH_SESSION", default=None)


class PlayerBackend(ModelBackend):
    def get_user(self, user_id: Any) -> Any:
        """The player of a session, or None (no such player, or one who may not log in)."""
        read = READ_WITH_SESSION.get()
        if read is not None and read.pk == user_id:
            found = [read]
        else:
            user_model = get_user_model()
            found = rows_where(user_model, user_model._meta.pk.name, [user_id])
        if not found:
            return None
        return found[0] if self.user_can_authenticate(found[0]) else None
