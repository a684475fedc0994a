"""Choice sets named once in the OpenAPI schema (SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]):
the same set used by several fields gets one name instead of several generated ones."""

from games.engine import DIRECTION_NAMES

from .models import DAYS_PER_MOVE as _DAYS
from .models import GRACE_DAYS as _GRACE

PLAYER_COLOR = [("yellow", "yellow"), ("red", "red")]
DAYS_PER_MOVE = [(d, f"{d} day" if d == 1 else f"{d} days") for d in _DAYS]
GRACE_DAYS = [(d, f"{d} day" if d == 1 else f"{d} days") for d in _GRACE]
DIRECTION_NAME = [(name, name) for name in DIRECTION_NAMES]

# series of the boxed game (issue 16)
SERIES_COLOR = [(c, c) for c in ("yellow", "red", "orange", "purple", "black", "green")]
RACE_LETTER = [(c, c) for c in ("A", "B", "C")]
SERIES_KIND = [(c, c) for c in ("place", "roll", "direction", "leave")]
OUTCOME = [("won", "won"), ("lost", "lost"), ("draw", "draw")]  # a finished game from a player's side
