"""Words looked up many times a request, kept per process and language: Django's ``gettext``,
``ngettext`` and ``pgettext`` with the answer of each message kept, and :func:`kept_str` for a
lazy translation kept in a module (a colour's name, a compass letter).

The game page's move list says some forty sentences, each of four to eight translated words,
and every Django lookup goes through its active-translation local and the catalogue chain
(~4 µs; a kept answer ~1 µs: docs/performance.md). The catalogues do not change while a
process runs; the kept words are dropped when a setting that chooses them changes (tests).
``makemessages`` finds these calls by their names, as Django's."""

from __future__ import annotations

from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils import translation
from django.utils.translation import get_language

_kept: dict[tuple[Any, ...], str] = {}


def gettext(message: str) -> str:
    key = (get_language(), message)
    found = _kept.get(key)
    if found is None:
        found = _kept[key] = translation.gettext(message)
    return found


def ngettext(singular: str, plural: str, number: int) -> str:
    key = (get_language(), singular, plural, number)
    found = _kept.get(key)
    if found is None:
        found = _kept[key] = translation.ngettext(singular, plural, number)
    return found


def pgettext(context: str, message: str) -> str:
    key = (get_language(), context, message, None)
    found = _kept.get(key)
    if found is None:
        found = _kept[key] = translation.pgettext(context, message)
    return found


def kept_str(lazy: Any) -> str:
    """A lazy translation that lives as long as the process (a module's constant) in the active
    language."""
    key = (get_language(), id(lazy))
    found = _kept.get(key)
    if found is None:
        found = _kept[key] = str(lazy)
    return found


@receiver(setting_changed)
def _forget(setting: str, **kwargs: Any) -> None:
    if setting in {"LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS", "INSTALLED_APPS"}:
        _kept.clear()
