"""Reads put together once per process from the models' metadata: the small reads of every
page and API GET and the one read every action starts with (games.loading), without compiling
them each time (compiling a query is most of its cost on these paths: docs/performance.md).

The rows are turned into model instances with Django's ``Model.from_db`` and each field's
database converters, exactly as the ORM would; tests/games/test_loading.py compares them field by
field."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import psycopg
from django.db import NotSupportedError, connection
from django.db.models import Field, Model, signals
from django.db.models.base import ModelState
from django.db.models.query_utils import DeferredAttribute

from .writing import column_field

Converter = Callable[[Any, Any, Any], Any]
_TIMESTAMPTZ = psycopg.adapters.types["timestamptz"].oid
_PLAN_CHANGED = "0A000"  # feature_not_supported: "cached plan must not change result type"


@dataclass(frozen=True)
class Part:
    model: type[Model]
    alias: str
    fields: tuple[Field[Any, Any], ...]
    attnames: tuple[str, ...]
    converters: tuple[tuple[Converter, ...], ...]
    col: tuple[Any, ...]
    # the model keeps Django's __init__ and from_db: its instances are made without __init__ while
    # nothing listens for its pre_init or post_init signals (instance_of asks each time)
    plain: bool


def model_part(model: type[Model], alias: str, names: Sequence[str] | None = None) -> Part:
    """The columns of a model (or only ``names``) under a table alias, with their converters."""
    # in the model's field order: Model.from_db expects the values of a partial load in that order
    fields = tuple(f for f in model._meta.concrete_fields if names is None or f.name in names)
    cols = tuple(f.get_col(alias) for f in fields)
    converters = tuple(
        # Field.get_db_converters is Django's (missing from django-stubs)
        tuple(connection.ops.get_db_converters(col) + f.get_db_converters(connection))  # type: ignore[attr-defined]
        for f, col in zip(fields, cols, strict=True)
    )
    # Django's __init__ and from_db, and each loaded field's attribute a plain one (what __init__
    # would set through it is stored as it is)
    plain = (all("__init__" not in vars(k) and "from_db" not in vars(k) for k in model.__mro__ if k not in (Model, object))
             and all(isinstance(getattr(model, name, None), DeferredAttribute) for name in (f.attname for f in fields)))
    return Part(model, alias, fields, tuple(f.attname for f in fields), converters, cols, plain)


def columns(*parts: Part) -> str:
    """The select list of these parts' columns, each under its part's table alias, in the order
    their rows are then read (``instance_of`` of each part's slice of the row)."""
    qn = connection.ops.quote_name
    return ", ".join(f"{p.alias}.{qn(f.column)}" for p in parts for f in p.fields)


def instance_of(part: Part, values: Sequence[Any]) -> Any:
    """A model instance from its part's values in a row, as the ORM would make it.

    What ``Model.from_db`` makes, without ``Model.__init__`` when no receiver listens for its
    signals: the instance's ``__dict__`` gets each loaded field's value under its attname (what
    ``__init__`` sets, through descriptors that store it there) and a ``_state`` read from this
    database; a field left out stays deferred, as with ``.only()``. ``__init__`` was a third of
    the cost of a page's history rows (docs/performance.md)."""
    converted = []
    for value, converters, col in zip(values, part.converters, part.col, strict=True):
        for convert in converters:
            value = convert(value, col, connection)
        converted.append(value)
    model = part.model
    if not part.plain or signals.pre_init.has_listeners(model) or signals.post_init.has_listeners(model):
        return part.model.from_db(connection.alias, list(part.attnames), converted)
    instance = model.__new__(model)
    state = ModelState()
    state.adding = False
    state.db = connection.alias
    instance.__dict__.update(zip(part.attnames, converted, strict=True))
    instance._state = state
    return instance


@lru_cache(maxsize=32)
def _select(model: type[Model], vendor: str, names: tuple[str, ...] | None, column: str, count: int
            ) -> tuple[str, Part]:
    part = model_part(model, "m", names)
    qn = connection.ops.quote_name
    where = column_field(model, column).column
    values = ", ".join(["%s"] * count)
    return f"SELECT {columns(part)} FROM {qn(model._meta.db_table)} m WHERE m.{qn(where)} IN ({values})", part


def read_cursor() -> Any:
    """A cursor for the reads put together here (and by games.loading, the API's token read and
    the session's): on PostgreSQL with prepared statements on (``prepare_threshold`` in the
    database's OPTIONS: settings, ``DATABASE_PREPARED``), one that binds its parameters on the
    server, so that PostgreSQL parses and plans each of these reads once per connection instead
    of on every request (the game's read with its seats, players and course cost the server
    ~0.7 ms of CPU planned each time, ~0.2 ms prepared: docs/performance.md). Otherwise, on
    other databases, and while Django logs the queries (``DEBUG``, the tests' query counts:
    psycopg does not keep the text of a prepared execution, which the log shows), Django's own
    cursor. Either way inside Django's wrapper: its errors, its thread checks."""
    if (connection.vendor != "postgresql" or connection.settings_dict["OPTIONS"].get("prepare_threshold") is None
            or connection.queries_logged):
        return connection.cursor()
    # what Django's BaseDatabaseWrapper.cursor() does, with a cursor that binds on the server
    # (Django's ClientCursor binds on the client)
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    loader = connection.connection.adapters.get_loader(_TIMESTAMPTZ, psycopg.pq.Format.TEXT)
    if connection.timezone != getattr(loader, "timezone", None):
        # Django's cursor then reads times in its own zone (USE_TZ off, a database TIME_ZONE): as it does
        return connection.cursor()
    with connection.wrap_database_errors:
        raw = psycopg.Cursor(connection.connection)
    connection.validate_thread_sharing()
    # django-stubs types make_cursor's argument as the wrapper it returns (a database cursor here)
    return connection.make_cursor(raw)  # type: ignore[arg-type]


def read_rows(sql: str, params: Sequence[Any]) -> list[Any]:
    """The rows of one of these reads, through :func:`read_cursor`. A prepared read whose columns
    changed type under it (a migration run while this process serves: PostgreSQL refuses with
    "cached plan must not change result type" every time until the connection ends) is read again
    on a new connection; inside a transaction the refusal stands (that request fails, and the
    rollback makes psycopg forget what it prepared on the connection)."""
    def read() -> list[Any]:
        with read_cursor() as cursor:
            cursor.execute(sql, params)
            return list(cursor.fetchall())

    try:
        return read()
    except NotSupportedError as error:
        if connection.in_atomic_block or getattr(error.__cause__, "sqlstate", None) != _PLAN_CHANGED:
            raise
    connection.close()  # every statement prepared on it is suspect: a new connection prepares afresh
    return read()


def rows_where(model: type[Model], column: str, values: Sequence[Any], names: Sequence[str] | None = None
               ) -> list[Any]:
    """The rows of ``model`` whose ``column`` is one of ``values`` (in no order), with only the
    fields ``names`` (and the key; the others deferred, as ``.only()``): the small reads of
    every game page and API GET, without compiling them each time."""
    if not values:
        return []
    if names is not None:
        names = tuple(dict.fromkeys((model._meta.pk.name, *names)))
    sql, part = _select(model, connection.vendor, names, column, len(values))
    return [instance_of(part, row) for row in read_rows(sql, list(values))]
