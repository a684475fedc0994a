"""Words looked up many times a request, kept per process and language: Django's ``gettext``,
``ngettext`` and ``pgettext`` with the answer of each message kept, :func:`kept_str` for a lazy
translation kept in a module (a colour's name, a compass letter), and :func:`kept` for any
other words made the same way in every process (a template's ``{% translate %}``:
common/templatetags/kept_i18n.py).

The game page's move list says some forty sentences, each of four to eight translated words,
and every Django lookup goes through its active-translation local and the catalogue chain
(~4 µs; a kept answer ~1 µs: docs/performance.md). The catalogues do not change while a
process runs; the kept words are dropped when a setting that chooses them changes (tests).
``makemessages`` finds these calls by their names, as Django's."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils import translation
from django.utils.translation import get_language

_kept: dict[tuple[Any, ...], str] = {}


def kept(key: tuple[Hashable, ...], make: Callable[[], str]) -> str:
    """What ``make`` says in the active language, made once per process and language for ``key``
    (which names everything else it depends on)."""
    full = (get_language(), *key)
    found = _kept.get(full)
    if found is None:
        found = _kept[full] = make()
    return found


def gettext(message: str) -> str:
    return kept((message,), lambda: translation.gettext(message))


def ngettext(singular: str, plural: str, number: int) -> str:
    return kept((singular, plural, number), lambda: translation.ngettext(singular, plural, number))


def pgettext(context: str, message: str) -> str:
    return kept((context, message, None), lambda: translation.pgettext(context, message))


def kept_str(lazy: Any) -> str:
    """A lazy translation that lives as long as the process (a module's constant) in the active
    language."""
    return kept((id(lazy),), lambda: str(lazy))


@receiver(setting_changed)
def _forget(setting: str, **kwargs: Any) -> None:
    if setting in {"LANGUAGES", "LANGUAGE_CODE", "LOCALE_PATHS", "INSTALLED_APPS", "ROOT_URLCONF", "FORCE_SCRIPT_NAME"}:
        _kept.clear()
