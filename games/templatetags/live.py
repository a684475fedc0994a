"""``{% live_stream "game" game.pk game.ply game.over %}``, ``{% live_stream "me" %}``, ``{% live_stream "lobby" %}``,
``{% live_stream "series" series.pk ply over rev %}``, ``{% live_stream "series_lobby" %}``:
the element and script that keep a page live (static/js/live.js, docs/live.md). No query: the
stream starts after the last event before the page's render time (``since``) less
``SINCE_SLACK``: the view read what it shows before rendering (under load, seconds before), and an
event in between must not be missed. An older event seen again is harmless: the game page
ignores events whose ply it shows, the lists refresh once more."""

from __future__ import annotations

import time

from django import template
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html

register = template.Library()
SINCE_SLACK = 10.0  # seconds


@register.simple_tag
def live_stream(kind: str, game_id: int | None = None, ply: int | None = None, over: bool = False,
                rev: int | None = None) -> str:
    """``rev``: a series not started shows ply -1 and the revision of its seats
    (games.services_series.seats_revision)."""
    if kind in ("game", "series") and over:
        return ""  # a finished game does not change any more
    if kind == "game":
        url, mode = reverse("live_game", args=[game_id]), "game"
    elif kind == "series":
        url, mode = reverse("live_series", args=[game_id]), "series"
    elif kind == "series_lobby":
        url, mode = reverse("live_series_lobby"), "list"
    else:
        url, mode = reverse("live_me" if kind == "me" else "live_lobby"), "list"
    return format_html(
        '<div id="live" hidden data-live-url="{}" data-live-mode="{}" data-live-since="{}" data-live-ply="{}"{}></div>'
        '<script src="{}" defer></script>',
        url, mode, int((time.time() - SINCE_SLACK) * 1000), "" if ply is None else ply,
        format_html(' data-live-rev="{}" data-live-gone="{}"', rev, reverse("series_lobby")) if rev is not None else "", static("js/live.js"),
    )
