"""Filling bench databases by COPY, for bench scripts that set up Django (not a bench itself).

A COPY names its columns; a column added to a model later, NOT NULL with a default in Django only
(Django's defaults are not the database's), would make every such COPY fail. ``Copy`` completes
the columns a script names with every other NOT NULL column of the table, at the model's default,
so a new field never stops a bench: ``with Copy(raw, User, "id, username, ...") as copy:
copy.write_row((...))``.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models import Model


class Copy:
    def __init__(self, raw: Any, model: type[Model], columns: str) -> None:
        named = [c.strip() for c in columns.split(",")]
        table = model._meta.db_table
        fields = model._meta.concrete_fields
        known = {f.column for f in fields}
        unknown = set(named) - known
        if unknown:
            raise ValueError(f"{table} has no column {', '.join(sorted(unknown))}")
        rest = [f for f in fields if f.column not in named and not f.null and not f.primary_key]
        self.defaults = tuple(f.get_db_prep_save(f.get_default(), connection) for f in rest)
        # quoted: a column may be named by a reserved word (a seat's "left")
        quoted = ", ".join(connection.ops.quote_name(c) for c in named + [f.column for f in rest])
        self.sql = f"COPY {connection.ops.quote_name(table)} ({quoted}) FROM STDIN"
        self.raw = raw

    def __enter__(self) -> Copy:
        self.cursor = self.raw.cursor()
        self.manager = self.cursor.copy(self.sql)
        self.copy = self.manager.__enter__()
        return self

    def write_row(self, row: tuple[Any, ...]) -> None:
        self.copy.write_row(row + self.defaults)

    def __exit__(self, *exc: object) -> None:
        self.manager.__exit__(*exc)
        self.cursor.close()
