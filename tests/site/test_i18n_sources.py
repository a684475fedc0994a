"""A word marked for translation inside an f-string's braces is translated at run time but never
extracted: ``makemessages`` (xgettext) does not read into f-strings, so ``bin/messages`` drops its
msgid and every language shows it in English (the board's "the lake", issue 24). The sources are
read here, with no gettext needed: every translation call must stand outside f-strings."""

from __future__ import annotations

import ast
from pathlib import Path

from django.conf import settings

CALLS = {"_", "gettext", "ngettext", "pgettext", "npgettext", "gettext_lazy", "ngettext_lazy", "pgettext_lazy",
         "gettext_noop"}
APPS = ("accounts", "common", "games", "tournaments", "powerboats_site")


def translations_in_fstrings(source: str, name: str = "<source>") -> list[int]:
    """The lines of the translation calls of a literal inside an f-string's replacement fields (a
    call on a variable translates words marked elsewhere)."""
    lines = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.FormattedValue):
            for inner in ast.walk(node.value):
                if isinstance(inner, ast.Call):
                    func = inner.func
                    called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                    literal = any(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in inner.args)
                    if called in CALLS and literal:
                        lines.append(inner.lineno)
    return lines


def test_the_check_finds_a_call_in_braces_and_not_one_beside_them() -> None:
    assert translations_in_fstrings('x = f\'label="{escape(gettext("the lake"))}"\'') == [1]
    assert translations_in_fstrings('label = gettext("the lake")\nx = f"{label}: " + _("a") % {}') == []
    assert translations_in_fstrings('x = f"{gettext(WHAT[what])} "') == [], "words marked elsewhere"


def test_no_word_for_translation_hides_in_an_fstring() -> None:
    base = Path(settings.BASE_DIR)
    found = [f"{path.relative_to(base)}:{line}" for app in APPS for path in sorted((base / app).rglob("*.py"))
             for line in translations_in_fstrings(path.read_text(), str(path))]
    assert found == []
