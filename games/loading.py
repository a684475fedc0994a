"""One game with its players and seats, in one query: the read that every action and every
view of a game starts with.

It is the same query the ORM would make for
``Seat.objects.select_related("game", "game__yellow", "game__red").filter(game_id=…)`` (with
``select_for_update(of=("game",))`` when locking), but the SQL is put together once per process
from the models' metadata, and the rows are turned into model instances with Django's
``Model.from_db`` and each field's database converters. Compiling that query is most of its cost
(~0.5 of ~1.1 ms of CPU: docs/performance.md), and on this path it would be compiled for every
request.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Field, Model

from .models import Game, Seat

# the user columns a game needs of its players (not their password hashes and the rest)
PLAYER_FIELDS = ("username", "is_bot", "bot_level", "email", "email_mode", "time_zone", "reminder_hours",
                 "vacation_until")

Converter = Callable[[Any, Any, Any], Any]


@dataclass(frozen=True)
class _Part:
    model: type[Model]
    alias: str
    fields: tuple[Field[Any, Any], ...]
    attnames: tuple[str, ...]
    converters: tuple[tuple[Converter, ...], ...]
    col: tuple[Any, ...]


def _part(model: type[Model], alias: str, names: Sequence[str] | None = None) -> _Part:
    # in the model's field order: Model.from_db expects the values of a partial load in that order
    fields = tuple(f for f in model._meta.concrete_fields if names is None or f.name in names)
    cols = tuple(f.get_col(alias) for f in fields)  # type: ignore[union-attr]
    converters = tuple(
        tuple(connection.ops.get_db_converters(col) + f.get_db_converters(connection))  # type: ignore[union-attr]
        for f, col in zip(fields, cols, strict=True)
    )
    return _Part(model, alias, fields, tuple(f.attname for f in fields), converters, cols)  # type: ignore[arg-type]


@lru_cache(maxsize=4)
def _query(vendor: str, lock: bool) -> tuple[str, tuple[_Part, ...]]:
    user = get_user_model()
    parts = (_part(Seat, "s"), _part(Game, "g"), _part(user, "y", ("id", *PLAYER_FIELDS)),
             _part(user, "r", ("id", *PLAYER_FIELDS)))
    qn = connection.ops.quote_name
    columns = ", ".join(f"{p.alias}.{qn(f.column)}" for p in parts for f in p.fields)
    users = qn(user._meta.db_table)
    sql = (
        f"SELECT {columns} FROM {qn(Seat._meta.db_table)} s "
        f"JOIN {qn(Game._meta.db_table)} g ON g.{qn('id')} = s.{qn('game_id')} "
        f"JOIN {users} y ON y.{qn('id')} = g.{qn('yellow_id')} "
        f"JOIN {users} r ON r.{qn('id')} = g.{qn('red_id')} "
        f"WHERE s.{qn('game_id')} = %s"
    )
    if lock and connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF g"  # the game row only; on SQLite the transaction itself is the lock
    return sql, parts


def _instance(part: _Part, values: Sequence[Any]) -> Any:
    converted = []
    for value, converters, col in zip(values, part.converters, part.col, strict=True):
        for convert in converters:
            value = convert(value, col, connection)
        converted.append(value)
    return part.model.from_db(connection.alias, list(part.attnames), converted)


def game_and_seats(game_id: int, *, lock: bool = False) -> tuple[Game, list[Seat]] | None:
    """The game, its two players (the fields a game needs of them) and its seats in seat
    order; with ``lock`` the game row is locked (``FOR UPDATE OF``: the caller is inside a
    transaction). None when there is no such game."""
    sql, parts = _query(connection.vendor, lock)
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id])
        rows = cursor.fetchall()
    if not rows:
        return None
    seat_part, game_part, yellow_part, red_part = parts
    widths = [len(p.fields) for p in parts]
    first = rows[0]
    offset = widths[0]
    game = _instance(game_part, first[offset:offset + widths[1]])
    offset += widths[1]
    game.yellow = _instance(yellow_part, first[offset:offset + widths[2]])
    offset += widths[2]
    game.red = _instance(red_part, first[offset:offset + widths[3]])
    seats = []
    for row in rows:
        seat = _instance(seat_part, row[:widths[0]])
        seat.game = game
        seats.append(seat)
    seats.sort(key=lambda seat: seat.index)
    return game, seats
