"""Django's ``i18n`` template library with one change: the words of a ``{% translate "..." %}``
are looked up once per process and language, not on every render (settings.TEMPLATES
``libraries``: our templates say ``{% load kept_i18n %}``; Django's own ``i18n``, which the admin's
templates load, stays as it is).

A page says some seventy of them (the menu, the game's panel, its forms), and each lookup goes
through Django's active-translation local and the catalogue chain: ~0.4 ms of the game page's
~5.5 ms of CPU (bench/profile_turn.py, docs/performance.md). Only a plain literal is kept: one
with a filter, a context, ``noop`` or ``as`` is rendered by Django's own node every time. The
words are kept with the others of common/words.py, and dropped with them when a setting that
chooses them changes (tests).

``{% kept_html "name" flag … %}…{% endkept_html %}``: a part of a page that says the same in a
language for everyone with the same flags (each taken as true or false: at most two answers per
flag and language), rendered once per process and kept with the words: the menu and the language
switcher's list, the same on every page, and the board's legend. What it holds must depend on
nothing else: not the player's name, a form's token, the address asked, a value of the page."""

from __future__ import annotations

from typing import Any

from django import template
from django.templatetags import i18n
from django.urls import get_script_prefix

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


class KeptHTMLNode(template.Node):
    def __init__(self, name: str, flags: list[Any], nodelist: template.NodeList) -> None:
        self.name, self.flags, self.nodelist = name, flags, nodelist

    def render(self, context: Any) -> str:
        flags = tuple(bool(flag.resolve(context)) for flag in self.flags)
        key = ("{% kept_html %}", self.name, flags, context.autoescape, get_script_prefix())  # its addresses
        return kept(key, lambda: str(self.nodelist.render(context)))


@register.tag("kept_html")
def do_kept_html(parser: Any, token: Any) -> KeptHTMLNode:
    bits = token.split_contents()
    if len(bits) < 2 or bits[1][0] not in "'\"" or bits[1][0] != bits[1][-1]:
        raise template.TemplateSyntaxError("{% kept_html %} takes a quoted name, then flags")
    nodelist = parser.parse(("endkept_html",))
    parser.delete_first_token()
    return KeptHTMLNode(bits[1][1:-1], [parser.compile_filter(bit) for bit in bits[2:]], nodelist)


@register.tag("translate")
@register.tag("trans")
def do_translate(parser: Any, token: Any) -> KeptTranslateNode:
    node = i18n.do_translate(parser, token)
    return KeptTranslateNode(node.filter_expression, node.noop, node.asvar, node.message_context)
