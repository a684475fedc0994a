"""What every page's frame (templates/base.html) needs.

``links``: the menu's addresses. A ``{% url %}`` tag reverses its name on every render (~60 µs
each here); the menu has sixteen, the same for every page and visitor, so they are reversed
once per process and script prefix (docs/performance.md)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest
from django.urls import get_script_prefix, get_urlconf, reverse

MENU = ("home", "next_game", "lobby", "my_games", "series_lobby", "leaderboard", "tournaments",
        "competition_default", "watch", "rules", "player_search", "settings", "logout", "login", "signup",
        "set_language")


@lru_cache(maxsize=8)
def _menu(prefix: str, urlconf: Any) -> dict[str, str]:
    return {name: reverse(name, urlconf=urlconf) for name in MENU}


def links(request: HttpRequest) -> dict[str, Any]:
    return {"links": _menu(get_script_prefix(), get_urlconf())}


@receiver(setting_changed)
def _urls_changed(setting: str, **kwargs: Any) -> None:
    if setting in ("ROOT_URLCONF", "FORCE_SCRIPT_NAME"):
        _menu.cache_clear()
