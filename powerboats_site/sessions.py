"""Django's database sessions, with the read that every page starts with put together once per
process (common.db.reading) instead of compiled by the ORM on each request (docs/performance.md).
Everything else — saving, expiry, cycling the key on login, the async read of the live
streams — is Django's own (``SESSION_ENGINE`` in settings)."""

from __future__ import annotations

from typing import Any

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.utils import timezone

from common.db.reading import rows_where


class SessionStore(db.SessionStore):
    def _get_session_from_db(self) -> Any:
        """What Django's store reads: the session with this key that has not expired, or None
        (and the key forgotten)."""
        if self.model is not Session:  # a store of another model: Django's own read
            return super()._get_session_from_db()  # type: ignore[misc]  # Django's (missing from django-stubs)
        found = rows_where(Session, "session_key", [self.session_key])
        if not found or found[0].expire_date <= timezone.now():
            self._session_key = None
            return None
        return found[0]
