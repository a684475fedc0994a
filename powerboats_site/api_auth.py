"""DRF's token authentication, plus the player's own language (``User.language``) for the
rest of the request, as ``UserLocaleMiddleware`` does for session logins (docs/i18n.md):
a token client gets its refusals' ``message`` in the player's language, else in the language
of ``Accept-Language``; the ``code`` never changes.

Every API request starts here, so the read of the token and its user is put together once per
process (common.db.reading) instead of compiled by the ORM each time; it answers as DRF's does."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils.translation import gettext
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token
from rest_framework.request import Request

from common.db.reading import Part, columns, instance_of, model_part, read_rows
from common.middleware import use_players_language

# DRF's own words, translated by its catalogue (not ours: makemessages does not see them here)
INVALID, INACTIVE = "Invalid token.", "User inactive or deleted."


@lru_cache(maxsize=2)
def _query(vendor: str) -> tuple[str, Part, Part]:
    user = get_user_model()
    token, owner = model_part(Token, "t"), model_part(user, "u")
    qn = connection.ops.quote_name
    sql = (f"SELECT {columns(token, owner)} FROM {qn(Token._meta.db_table)} t "
           f"JOIN {qn(user._meta.db_table)} u ON u.{qn(user._meta.pk.column)} = t.{qn('user_id')} "
           f"WHERE t.{qn('key')} = %s")
    return sql, token, owner


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        result = super().authenticate(request)
        if result is not None:
            use_players_language(request._request, result[0])
        return result

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        if self.get_model() is not Token:  # another token model: DRF's own read
            return super().authenticate_credentials(key)
        sql, token_part, user_part = _query(connection.vendor)
        rows = read_rows(sql, [key])
        row = rows[0] if rows else None
        if row is None:
            raise exceptions.AuthenticationFailed(gettext(INVALID))
        width = len(token_part.fields)
        token = instance_of(token_part, row[:width])
        token.user = instance_of(user_part, row[width:])
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(gettext(INACTIVE))
        return token.user, token
