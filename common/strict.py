"""JSON bodies read to the letter of the schema.

DRF's fields are lenient on purpose for HTML forms: a CharField takes the number 12 and an
IntegerField the string "12" or the float 12.0, a BooleanField 0 and 1, a ChoiceField of integers
"3". The API reads JSON only, and its schema says which JSON type each field has; a value of
another type is refused (400 naming the field) instead of being quietly converted. Every input
serializer of the API derives from :class:`StrictInput` (or :class:`StrictModelInput`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers

_TEXT = (serializers.CharField, serializers.DateTimeField, serializers.DateField, serializers.TimeField,
         serializers.DurationField, serializers.UUIDField)


def _json_type_error(field: serializers.Field, value: Any) -> str | None:  # type: ignore[type-arg]
    """Why ``value`` is not of the JSON type ``field`` declares, or None."""
    if value is None:
        return None  # allow_null decides
    if isinstance(field, serializers.ChoiceField):
        kinds = {type(choice) for choice in field.choices}
        if kinds <= {int} and (isinstance(value, bool) or not isinstance(value, int)):
            return gettext("a whole number")
        if kinds <= {str} and not isinstance(value, str):
            return gettext("a string")
        return None
    if isinstance(field, serializers.BooleanField):
        return None if isinstance(value, bool) else gettext("true or false")
    if isinstance(field, serializers.IntegerField):
        return None if isinstance(value, int) and not isinstance(value, bool) else gettext("a whole number")
    if isinstance(field, serializers.FloatField):
        return None if isinstance(value, (int, float)) and not isinstance(value, bool) else gettext("a number")
    if isinstance(field, _TEXT):
        return None if isinstance(value, str) else gettext("a string")
    if isinstance(field, serializers.ListField):
        if not isinstance(value, list):
            return gettext("a list")
        for item in value:
            why = _json_type_error(field.child, item)
            if why:
                return gettext("a list of items each %(kind)s") % {"kind": why}
        return None
    if isinstance(field, serializers.DictField | serializers.Serializer):
        return None if isinstance(value, Mapping) else gettext("an object")
    return None


class StrictTypes:
    """Checks the JSON type of every field present before DRF converts anything."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            errors = {}
            for name, field in self.fields.items():  # type: ignore[attr-defined]
                if field.read_only or name not in data:
                    continue
                why = _json_type_error(field, data[name])
                if why:
                    errors[name] = [gettext("must be %(kind)s") % {"kind": why}]
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)  # type: ignore[misc]


class StrictInput(StrictTypes, serializers.Serializer):  # type: ignore[type-arg]
    pass


class StrictModelInput(StrictTypes, serializers.ModelSerializer):  # type: ignore[type-arg]
    pass
