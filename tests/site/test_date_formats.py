"""Dates are written in each language's own order (powerboats_site/formats), in the reader's
time zone: on pages through the named formats, in emails through games.notifications.emails.local."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest
from django.template import Context, Template
from django.utils import translation

from games.notifications.emails import local

MOMENT = datetime(2026, 11, 22, 19, 43, tzinfo=UTC)
PAGE = Template('{{ d|date:"DATE_FORMAT" }} | {{ d|date:"DATETIME_FORMAT" }} | {{ d|date:"SHORT_DATETIME_FORMAT" }}')


@pytest.mark.parametrize(("language", "expected"), [
    ("en", "22 Nov 2026 | 22 Nov 2026 19:43 UTC | Sun 22 Nov, 19:43 UTC"),
    ("de", "22. Nov 2026 | 22. Nov 2026, 19:43 UTC | So, 22. Nov, 19:43 UTC"),
    ("it", "22 Nov 2026 | 22 Nov 2026, 19:43 UTC | Dom 22 Nov, 19:43 UTC"),
])
def test_pages_write_dates_in_the_languages_order(language, expected):
    with translation.override(language):
        assert PAGE.render(Context({"d": MOMENT})) == expected


def test_emails_write_dates_in_the_recipients_language_and_time_zone():
    reader = SimpleNamespace(time_zone="Europe/Berlin", tz=ZoneInfo("Europe/Berlin"))
    with translation.override("de"):
        assert local(MOMENT, reader) == "So, 22. Nov 2026, 20:43 (Europe/Berlin)"
    with translation.override("en"):
        assert local(MOMENT, reader) == "Sun 22 Nov 2026 20:43 (Europe/Berlin)"
