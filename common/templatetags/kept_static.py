"""Django's ``static`` template library with one change: the URL of a ``{% static "..." %}``
of a literal path is looked up once per process (settings.TEMPLATES ``libraries``:
our templates say ``{% load kept_static %}``; Django's own ``static`` stays as it is).

Each lookup asks the storage for the file's hashed name and joins it to STATIC_URL: ~20 µs,
and a game page has eight (docs/performance.md). The storage reads its manifest once per
process, so its answer for a path does not change while the process runs; the kept URLs are
dropped when a setting that makes them changes (tests). A path given by a variable or through a
filter is Django's own lookup every time."""

from __future__ import annotations

from typing import Any

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.templatetags import static

register = template.Library()
register.tags.update(static.register.tags)
register.filters.update(static.register.filters)

_kept: dict[str, str] = {}


def static_url(path: str) -> str:
    """Django's ``static(path)``, kept with the template tag's answers: for a tag written in Python
    (games/templatetags/live.py)."""
    url = _kept.get(path)
    if url is None:
        url = _kept[path] = static.static(path)
    return url


class KeptStaticNode(static.StaticNode):
    def url(self, context: Any) -> str:
        literal = self.path.var  # a quoted path is compiled to its string, a variable to a Variable
        if self.path.filters or not isinstance(literal, str):
            return str(super().url(context))
        return static_url(literal)  # what the node's own url says of a literal: static(literal)


@register.tag("static")
def do_static(parser: Any, token: Any) -> KeptStaticNode:
    node = KeptStaticNode.handle_token(parser, token)
    assert isinstance(node, KeptStaticNode)
    return node


@receiver(setting_changed)
def _forget(setting: str, **kwargs: Any) -> None:
    if setting in {"STATIC_URL", "STATIC_ROOT", "STORAGES", "STATICFILES_DIRS", "INSTALLED_APPS"}:
        _kept.clear()
