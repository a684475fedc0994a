"""Django's ``{% url %}`` with its answers kept: the same tag (added to the template builtins in
settings.TEMPLATES, after Django's), whose reverse of a literal view name with numbers and
words for arguments is kept per process (the last 16,384), keyed by everything it depends on:
the name, the arguments, the URLconf and the script prefix.

A game page names a dozen addresses, most of them its game's (the live part, the forms, the
record, the plan, the chat), and Django's reverse costs ~20 µs each (docs/performance.md). An
address of a namespaced name (the admin's, which depends on the current app), of a name from a
variable or with another kind of argument (whose text may change) is Django's own every time.
The kept addresses are dropped when the URLconf or the script name setting changes (tests)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template.defaulttags import URLNode
from django.template.defaulttags import url as django_url
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape

register = template.Library()


@lru_cache(maxsize=16384)
def _reverse(view_name: str, args: tuple[int | str, ...], kwargs: tuple[tuple[str, int | str], ...],
             urlconf: str | None, prefix: str) -> str:
    return reverse(view_name, args=args, kwargs=dict(kwargs), urlconf=urlconf)


def kept_reverse(view_name: str, *args: int | str) -> str:
    """Django's ``reverse(view_name, args=args)``, kept with the tag's answers: for a tag written
    in Python (games/templatetags/live.py)."""
    return _reverse(view_name, args, (), get_urlconf(), get_script_prefix())


def _plain(value: Any) -> bool:
    return type(value) is int or isinstance(value, str)


class KeptURLNode(URLNode):
    def render(self, context: Any) -> str:
        view_name = self.view_name.var
        if not isinstance(view_name, str) or self.view_name.filters or ":" in view_name:
            return str(super().render(context))
        args = tuple([arg.resolve(context) for arg in self.args])
        kwargs = tuple(sorted([(k, v.resolve(context)) for k, v in self.kwargs.items()])) if self.kwargs else ()
        if not all([_plain(a) for a in args]) or not all([_plain(v) for _, v in kwargs]):
            return str(super().render(context))
        url = ""
        try:  # a SafeString argument is the same key as its str
            url = _reverse(view_name, args, kwargs, get_urlconf(), get_script_prefix())
        except NoReverseMatch:
            if self.asvar is None:
                raise
        if self.asvar:
            context[self.asvar] = url
            return ""
        return str(conditional_escape(url)) if context.autoescape else url


@register.tag("url")
def url(parser: Any, token: Any) -> KeptURLNode:
    node = django_url(parser, token)
    return KeptURLNode(node.view_name, node.args, node.kwargs, node.asvar)


@receiver(setting_changed)
def _forget(setting: str, **kwargs: Any) -> None:
    if setting in {"ROOT_URLCONF", "FORCE_SCRIPT_NAME", "INSTALLED_APPS"}:
        _reverse.cache_clear()
