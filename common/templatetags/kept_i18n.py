"""Django's ``i18n`` template library with one change: the words of a ``{% translate "..." %}``
are looked up once per process and language, not on every render (settings.TEMPLATES
``libraries``: our templates say ``{% load kept_i18n %}``; Django's own ``i18n``, which the admin's
templates load, stays as it is).

A page says some seventy of them (the menu, the game's panel, its forms), and each lookup goes
through Django's active-translation local and the catalogue chain: ~0.4 ms of the game page's
~5.5 ms of CPU (bench/profile_turn.py, docs/performance.md). Only a plain literal is kept: one
with a filter, a context, ``noop`` or ``as`` is rendered by Django's own node every time. The
words are kept with the others of common/words.py, and dropped with them when a setting that
chooses them changes (tests)."""

from __future__ import annotations

from typing import Any

from django import template
from django.templatetags import i18n

from common.words import kept

register = template.Library()
register.tags.update(i18n.register.tags)
register.filters.update(i18n.register.filters)


class KeptTranslateNode(i18n.TranslateNode):
    def render(self, context: Any) -> str:
        literal = getattr(self.filter_expression.var, "literal", None)
        if self.asvar or self.noop or self.message_context or self.filter_expression.filters or not isinstance(literal, str):
            return str(super().render(context))
        return kept(("{% translate %}", literal, context.autoescape), lambda: str(super(KeptTranslateNode, self).render(context)))


@register.tag("translate")
@register.tag("trans")
def do_translate(parser: Any, token: Any) -> KeptTranslateNode:
    node = i18n.do_translate(parser, token)
    return KeptTranslateNode(node.filter_expression, node.noop, node.asvar, node.message_context)
