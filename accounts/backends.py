"""Django's ModelBackend, with the read of a logged-in player that every page starts with put
together once per process (games.loading) instead of compiled by the ORM on each request
(docs/performance.md). Logging in, permissions and the checks are Django's own."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.db import connection

from games.loading import Part, instance_of, model_part


@lru_cache(maxsize=2)
def _query(vendor: str) -> tuple[str, Part]:
    user = get_user_model()
    part = model_part(user, "u")
    qn = connection.ops.quote_name
    columns = ", ".join(f"u.{qn(f.column)}" for f in part.fields)
    return f"SELECT {columns} FROM {qn(user._meta.db_table)} u WHERE u.{qn(user._meta.pk.column)} = %s", part


class PlayerBackend(ModelBackend):
    def get_user(self, user_id: Any) -> Any:
        """The player of a session, or None (no such player, or one who may not log in)."""
        sql, part = _query(connection.vendor)
        with connection.cursor() as cursor:
            cursor.execute(sql, [user_id])
            row = cursor.fetchone()
        if row is None:
            return None
        user = instance_of(part, row)
        return user if self.user_can_authenticate(user) else None
