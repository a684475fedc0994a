"""One game, any number of boats: what every game of the engine is, to its callers.

A two-player game of the online rules is a :class:`~games.engine.rules.GameState` (one race); a
series of the boxed game is a :class:`~games.engine.series.Series` (up to three races). Both are
immutable and act and read alike, so the site handles every game through one path:

* ``place(cell, heading)``, ``choose_dice(choice, source)`` → ``(match, move or None)``,
  ``choose_direction(direction)`` → ``(match, move)``, ``resign(seat)``, ``time_out(seat)``,
  ``adjudicate()`` (a series refuses it);
* ``ply``, ``over``, ``to_move`` (the game's seat to act), ``race`` (the race being played: a
  ``GameState``, whose ``phase``, ``pending``, ``options()`` and ``free_start_cells()`` the turn
  reads) and ``races``.

Seats are the game's seats throughout (a series' seat; in a race of a series, which holds only
the boats still in it, a boat is found by its colour).
"""

from __future__ import annotations

from .rules import GameState
from .series import Series

Match = GameState | Series

__all__ = ["Match"]
