"""Path converters. ``<id:…>`` is a database id: at most 18 digits, so a path naming a number
larger than the database can hold is simply not found (404) rather than an error."""

from __future__ import annotations

from django.urls import register_converter


class IdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
