"""``{% live_stream "game" game.pk game.ply game.over %}``, ``{% live_stream "me" %}``, ``{% live_stream "lobby" %}``,
``{% live_stream "series_lobby" %}``:
the element and script that keep a page live (static/js/live.js, docs/live.md). No query: the
stream starts after the last event before the page's render time (``since``) less
``SINCE_SLACK``: the view read what it shows before rendering (under load, seconds before), and an
event in between must not be missed. An older event seen again is harmless: the game page
ignores events whose ply it shows, the lists refresh once more."""

from __future__ import annotations

import time

from django import template
from django.conf import settings
from django.utils.html import format_html

from common.templatetags.kept_static import static_url as static
from common.templatetags.kept_url import kept_reverse

register = template.Library()
SINCE_SLACK = 10.0  # seconds


@register.simple_tag
def live_stream(kind: str, game_id: int | None = None, ply: int | None = None, over: bool = False,
                player: object = None, gone: bool = False) -> str:
    """The page of a game of any ruleset (``game``; an open series shows ply -1, and every change of
    its seats is newer). ``player``: the viewer plays this game (a finished game's page then
    follows the rematch offers). ``gone``: an open series, whose page goes to the series lobby
    when its creator cancels it."""
    kinds = ""
    if kind == "game" and over and player:
        # a finished game changes no more, but its players may offer each other a rematch: their
        # own stream brings the offer and the answer to the page (the chat slot, social.js)
        url, mode, kinds = kept_reverse("live_me"), "rematch", "challenge"
    elif kind == "game" and over:
        return ""  # a finished game does not change any more
    elif kind == "game":
        assert game_id is not None, "a game's page names its game"
        url, mode = kept_reverse("live_game", game_id), "game"
    elif kind == "series_lobby":  # the seats of open series, every series' start and end, the user's own games
        url, mode, kinds = kept_reverse("live_series_lobby"), "list", "seats move start finish"
    else:  # My games, the lobby: games and challenges
        url, mode, kinds = kept_reverse("live_me" if kind == "me" else "live_lobby"), "list", "move start finish challenge"
    # a game's page applies an event in place (idiomorph, static/js/vendor/README.md), and so does
    # its chat and rematch slot (static/js/social.js), a finished game's too
    morph = format_html('<script src="{}" defer></script>', static("js/vendor/idiomorph-0.8.0.min.js")) \
        if mode in ("game", "rematch") else ""
    return format_html(
        '<div id="live" hidden data-live-url="{}" data-live-mode="{}" data-live-since="{}" data-live-ply="{}"'
        ' data-live-kinds="{}" data-live-busy="{}"{}></div>'
        '<div id="live-announce" class="visually-hidden" role="status" aria-live="polite"></div>'
        '{}<script src="{}" defer></script>',
        url, mode, int((time.time() - SINCE_SLACK) * 1000), "" if ply is None else ply, kinds,
        settings.LIVE_BUSY_RETRY_SECONDS,
        format_html(' data-live-gone="{}"', kept_reverse("series_lobby")) if gone else "",
        morph, static("js/live.js"),
    )
