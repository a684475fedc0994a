"""The writes of one step, sent to the database together: the counterpart of common.db.reading.

A move appends its history rows, updates the changed columns of its seat and of its game and
records the email it causes. Through the ORM that is four statements, each compiled by Django
and each a round trip to the server. Here each statement is put together once per process from
the models' metadata (per model and set of columns), its values are prepared by the fields
themselves (``pre_save`` and ``get_db_prep_save``, as ``save`` and ``bulk_create`` do), and on
PostgreSQL all of them go in one round trip (several statements in one query, which psycopg's
client-side binding cursor sends with the simple query protocol; each still reports its own
result and an error in any of them fails the whole step, inside the caller's transaction). On
other databases they are sent one after the other. The SQL is the same either way.

No model signals are sent (as with ``bulk_create`` and ``QuerySet.update``): the models written
here have no receivers (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from django.db import DatabaseError, connection
from django.db.models import Field, Model

Fields = tuple["Field[Any, Any]", ...]


def column_field(model: type[Model], name: str) -> Field[Any, Any]:
    """The model's field ``name``, which has a column of its own (not a relation's other side)."""
    found = model._meta.get_field(name)
    assert isinstance(found, Field) and found.column, f"{model.__name__}.{name} has no column"
    return found


def pk_column(model: type[Model]) -> str:
    pk = model._meta.pk
    assert pk is not None and pk.column
    return pk.column


@lru_cache(maxsize=64)
def _insert_sql(model: type[Model], vendor: str, rows: int) -> tuple[str, Fields, bool]:
    """INSERT of ``rows`` rows of every concrete column but the automatic key, returning the key
    where the database can."""
    fields = tuple(f for f in model._meta.concrete_fields if not f.primary_key)
    qn = connection.ops.quote_name
    one = f"({', '.join(['%s'] * len(fields))})"
    sql = (f"INSERT INTO {qn(model._meta.db_table)} ({', '.join(qn(f.column) for f in fields)}) "
           f"VALUES {', '.join([one] * rows)}")
    returning = bool(connection.features.can_return_rows_from_bulk_insert)
    if returning:
        sql += f" RETURNING {qn(model._meta.pk.column)}"
    return sql, fields, returning


@lru_cache(maxsize=256)
def _update_sql(model: type[Model], vendor: str, names: tuple[str, ...]) -> tuple[str, Fields]:
    """UPDATE of the columns ``names`` of one row, found by its key."""
    fields = tuple(column_field(model, name) for name in names)
    qn = connection.ops.quote_name
    table = qn(model._meta.db_table)
    sets = ", ".join(f"{qn(f.column)} = %s" for f in fields)
    sql = f"UPDATE {table} SET {sets} WHERE {table}.{qn(pk_column(model))} = %s"
    return sql, fields


def together() -> bool:
    """Whether this database takes several statements in one query: PostgreSQL's simple query
    protocol, which psycopg's client-side binding cursor uses (not with ``server_side_binding``,
    whose prepared statements take one)."""
    return connection.vendor == "postgresql" and not connection.settings_dict.get("OPTIONS", {}).get(
        "server_side_binding")


After = Callable[[Any], None]  # given the cursor positioned on the statement's result


class Writes:
    """The statements of one step, in order; :meth:`send` executes them (inside the caller's
    transaction). Inserted rows get their keys; an update that finds no row raises
    ``DatabaseError`` as ``save(update_fields=…)`` does."""

    def __init__(self) -> None:
        self._sql: list[str] = []
        self._params: list[list[Any]] = []
        self._after: list[After | None] = []

    def __len__(self) -> int:
        return len(self._sql)

    def insert(self, objs: Sequence[Model]) -> None:
        """Append new rows of one model (``bulk_create``)."""
        if not objs:
            return
        model = type(objs[0])
        sql, fields, returning = _insert_sql(model, connection.vendor, len(objs))
        self._sql.append(sql)
        self._params.append([f.get_db_prep_save(f.pre_save(obj, True), connection) for obj in objs for f in fields])

        def keys(cursor: Any) -> None:
            if returning:
                for obj, (pk,) in zip(objs, cursor.fetchall(), strict=True):
                    obj.pk = pk
            for obj in objs:
                obj._state.adding, obj._state.db = False, connection.alias

        self._after.append(keys)

    def update(self, obj: Model, names: Sequence[str]) -> None:
        """Write the columns ``names`` of a stored row (``save(update_fields=names)``)."""
        sql, fields = _update_sql(type(obj), connection.vendor, tuple(names))
        self._sql.append(sql)
        self._params.append([*(f.get_db_prep_save(f.pre_save(obj, False), connection) for f in fields), obj.pk])

        def one_row(cursor: Any) -> None:
            if cursor.rowcount != 1:
                raise DatabaseError(f"{type(obj).__name__} {obj.pk}: the update found {cursor.rowcount} rows")

        self._after.append(one_row)

    def send(self) -> None:
        """Execute the statements: in one round trip on PostgreSQL, else one by one."""
        if not self._sql:
            return
        with connection.cursor() as cursor:
            if len(self._sql) > 1 and together():
                cursor.execute("; ".join(self._sql), [value for params in self._params for value in params])
                for i, after in enumerate(self._after):
                    if i:
                        cursor.nextset()
                    if after is not None:
                        after(cursor)
            else:
                for sql, params, after in zip(self._sql, self._params, self._after, strict=True):
                    cursor.execute(sql, params)
                    if after is not None:
                        after(cursor)
        self._sql, self._params, self._after = [], [], []
