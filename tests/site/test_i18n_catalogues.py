"""The translation catalogues (issue 14, docs/i18n.md): complete, compiled and up to date.

* ``msgfmt --statistics`` finds no untranslated and no fuzzy message in de and it;
* the committed ``.mo`` files are what the ``.po`` files compile to (the site reads the .mo);
* ``makemessages`` run afresh over the sources finds no message the catalogues lack, and the
  catalogues hold none the sources dropped: a new string marked for translation fails CI until
  ``bin/messages`` was run and the string translated.

They need GNU gettext (msgfmt, xgettext); without it they skip, except in CI
(``POWERBOATS_REQUIRE_SERVICES``), where they fail."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

LANGUAGES = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
LOCALE = Path(settings.BASE_DIR) / "locale"

if shutil.which("msgfmt") is None or shutil.which("xgettext") is None:
    if os.environ.get("POWERBOATS_REQUIRE_SERVICES"):
        raise RuntimeError("the catalogue checks need GNU gettext (apt-get install gettext)")
    pytest.skip("GNU gettext is not installed", allow_module_level=True)


def po(language: str, base: Path = LOCALE) -> Path:
    return base / language / "LC_MESSAGES" / "django.po"


def test_the_site_speaks_english_german_and_italian() -> None:
    assert [code for code, _ in settings.LANGUAGES] == ["en", "de", "it"]
    assert LANGUAGES == ["de", "it"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated_and_none_is_fuzzy(language: str) -> None:
    out = subprocess.run(["msgfmt", "--check", "--statistics", "-o", os.devnull, str(po(language))],
                         capture_output=True, text=True, check=True, env={**os.environ, "LC_ALL": "C"})
    stats = out.stderr.strip().splitlines()[-1]
    translated = re.match(r"(\d+) translated messages?", stats)
    assert translated and int(translated.group(1)) > 500, stats
    assert "untranslated" not in stats and "fuzzy" not in stats, f"{language}: {stats} (run bin/messages, translate)"
    header = po(language).read_text(encoding="utf-8").split("\n\n", 1)[0]
    assert "#, fuzzy" not in header, "a fuzzy header is ignored by msgfmt: the charset would be lost"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_committed_mo_files_are_the_compiled_catalogues(language: str, tmp_path: Path) -> None:
    compiled = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "--check-format", "-o", str(compiled), str(po(language))], check=True)
    committed = po(language).with_suffix(".mo")
    assert committed.exists() and committed.read_bytes() == compiled.read_bytes(), \
        f"{committed} is stale: run bin/messages and commit it"


def _ids(path: Path) -> set[tuple[str, str]]:
    """(msgctxt, msgid) of every live entry of a .po file (obsolete ``#~`` ones left out)."""
    ids: set[tuple[str, str]] = set()
    current: str | None = None
    parts: dict[str, str] = {}
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        match = re.match(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?) "(.*)"$', line)
        if match:
            current = match.group(1)
            parts[current] = parts.get(current, "") + match.group(2)
        elif line.startswith('"') and current:
            parts[current] += line[1:-1]
        elif not line.strip():
            key = parts.get("msgid")
            if key:
                context = parts.get("msgctxt", "")
                ids.add((context, key))
            parts, current = {}, None
    return ids


SOURCES = ["accounts", "common", "games", "tournaments", "powerboats_site", "templates", "static"]


def test_the_catalogues_hold_exactly_the_messages_of_the_sources(tmp_path: Path, monkeypatch, settings) -> None:
    """makemessages over a copy of the sources (so that it cannot touch locale/), as bin/messages runs it."""
    base = Path(settings.BASE_DIR)
    for name in SOURCES:
        shutil.copytree(base / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "data", "*.pyc"))
    (tmp_path / "locale").mkdir()
    monkeypatch.chdir(tmp_path)
    settings.LOCALE_PATHS = [tmp_path / "locale"]
    call_command("makemessages", locale=LANGUAGES, verbosity=0, add_location="file")
    for language in LANGUAGES:
        fresh, committed = _ids(po(language, tmp_path / "locale")), _ids(po(language))
        assert fresh - committed == set(), f"{language}: new messages, run bin/messages and translate them"
        assert committed - fresh == set(), f"{language}: messages no source uses any more, run bin/messages"
