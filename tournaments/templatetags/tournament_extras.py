from typing import Any

from django import template

register = template.Library()


@register.filter
def get_item(mapping: dict[Any, Any], key: Any) -> Any:
    return mapping.get(key, "")


@register.filter
def zoned(value: Any) -> str:
    """A date and time in the reader's time zone (their setting, else UTC) named as in Settings
    and in the emails, "1 Sep 2026 14:00 (Europe/Berlin)", rather than by an abbreviation that
    many zones lack ("-03") or share ("CST"). Empty for no time."""
    from django.utils import formats, timezone

    if not value:
        return ""
    shape = str(formats.get_format("DATETIME_FORMAT")).replace(" e", "").strip()
    return f"{formats.date_format(timezone.localtime(value), shape)} ({timezone.get_current_timezone_name()})"


@register.filter
def tiebreak_code(code: str) -> str:
    """A tie-break's column head in the reader's language (tournaments.labels)."""
    from tournaments.labels import tiebreak_code as short

    return short(code)


@register.filter
def tiebreak_value(value: Any) -> str:
    """A tie-break as the standings command prints it (3.5, 1.75, 1970); a dash for none."""
    from tournaments.standings import fmt

    return fmt(value) if value is not None else "–"
