from typing import Any

from django import template

register = template.Library()


@register.filter
def get_item(mapping: dict[Any, Any], key: Any) -> Any:
    return mapping.get(key, "")


@register.filter
def tiebreak_value(value: Any) -> str:
    """A tie-break as the standings command prints it (3.5, 1.75, 1970); a dash for none."""
    from tournaments.standings import fmt

    return fmt(value) if value is not None else "–"
