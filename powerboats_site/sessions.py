"""Django's database sessions, stored in accounts.PlayerSession (Django's session with its
player's id in a column of its own), with the read that every page starts with — the session and
its player, in one query — put together once per process (common.db.reading) instead of compiled
by the ORM on each request (docs/performance.md). The player found is kept on the store for
accounts.middleware, which hands it to the backend. Everything else — saving, expiry, cycling the
key on login, the async read of the live streams — is Django's own (``SESSION_ENGINE`` in
settings)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.sessions.backends import db
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone

from accounts.models import PlayerSession
from common.db.reading import Part, columns, instance_of, model_part, read_rows


@lru_cache(maxsize=4)
def _query(vendor: str) -> tuple[str, Part, Part, int]:
    session, user = model_part(PlayerSession, "s"), model_part(get_user_model(), "u")
    qn = connection.ops.quote_name
    user_pk = get_user_model()._meta.pk
    assert user_pk is not None
    sql = (f"SELECT {columns(session, user)} FROM {qn(PlayerSession._meta.db_table)} s "
           f"LEFT JOIN {qn(get_user_model()._meta.db_table)} u "
           f"ON u.{qn(user_pk.column)} = s.{qn(PlayerSession._meta.get_field('user').column)} "
           f"WHERE s.{qn(PlayerSession._meta.pk.column)} = %s")
    return sql, session, user, user.fields.index(user_pk)


def player_id(data: dict[str, Any]) -> Any:
    """The id of the player a session's data names, as the user model's key (None: nobody)."""
    value = data.get(SESSION_KEY)
    if value is None:
        return None
    try:
        return get_user_model()._meta.pk.to_python(value)
    except ValidationError:
        return None


class SessionStore(db.SessionStore):
    player: Any = None  # the player read with the session (None: nobody, or not read yet)

    @classmethod
    def get_model_class(cls) -> Any:
        return PlayerSession

    def create_model_instance(self, data: dict[str, Any]) -> Any:
        """The row to save: Django's, with the id of the player the data names."""
        row: Any = super().create_model_instance(data)
        row.user_id = player_id(data)
        return row

    async def acreate_model_instance(self, data: dict[str, Any]) -> Any:
        row: Any = await super().acreate_model_instance(data)
        row.user_id = player_id(data)
        return row

    def _get_session_from_db(self) -> Any:
        """What Django's store reads: the session with this key that has not expired, or None
        (and the key forgotten); its player, when the row names one, is kept as ``player``."""
        sql, session_part, user_part, user_key = _query(connection.vendor)
        rows = read_rows(sql, [self.session_key])
        self.player = None
        if not rows:
            self._session_key = None
            return None
        width = len(session_part.fields)
        session = instance_of(session_part, rows[0][:width])
        if session.expire_date <= timezone.now():
            self._session_key = None
            return None
        if rows[0][width + user_key] is not None:  # a player found
            self.player = instance_of(user_part, rows[0][width:])
        return session
