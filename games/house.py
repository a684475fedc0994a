"""The site's house bots: accounts the site moves itself (games/bots.py), in every game."""

from __future__ import annotations

from typing import Any

from games.engine.bot import LEVELS


def is_house_bot(user: Any) -> bool:
    """A bot the site moves itself: a bot account with one of the engine's levels."""
    return bool(user.is_bot and user.bot_level in LEVELS)
