"""Django's database sessions, with the read that every page starts with put together once per
process (games.loading) instead of compiled by the ORM on each request (docs/performance.md).
Everything else — saving, expiry, cycling the key on login, the async read of the live
streams — is Django's own (``SESSION_ENGINE`` in settings)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.db import connection
from django.utils import timezone

from games.loading import Part, instance_of, model_part


@lru_cache(maxsize=2)
def _query(vendor: str) -> tuple[str, Part]:
    part = model_part(Session, "s")
    qn = connection.ops.quote_name
    columns = ", ".join(f"s.{qn(f.column)}" for f in part.fields)
    sql = (f"SELECT {columns} FROM {qn(Session._meta.db_table)} s "
           f"WHERE s.{qn('session_key')} = %s AND s.{qn('expire_date')} > %s")
    return sql, part


class SessionStore(db.SessionStore):
    def _get_session_from_db(self) -> Any:
        """What Django's store reads: the session with this key that has not expired, or None
        (and the key forgotten)."""
        if self.model is not Session:  # a store of another model: Django's own read
            return super()._get_session_from_db()
        sql, part = _query(connection.vendor)
        now = Session._meta.get_field("expire_date").get_db_prep_value(timezone.now(), connection)
        with connection.cursor() as cursor:
            cursor.execute(sql, [self.session_key, now])
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        return instance_of(part, row)
