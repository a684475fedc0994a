"""What the forms of a player's turn need, for every game: a two-player game's page and a
series' page show the same forms (templates/games/_turn.html) from the same context."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _

from games.engine import DIRECTION_NAMES, GameState, Phase
from games.engine.hexgrid import left, right

from .payloads import dice_options
from .reasons import direction_label


def turn_context(state: GameState, placeable: Sequence[tuple[int, int]],
                 line: Mapping[tuple[int, int], int]) -> dict[str, Any]:
    """The context of the turn's form for the player to move in ``state``: the free start cells
    (``placeable``, named by their numbers on the start line ``line``, as the board numbers them)
    and the headings; the dice and their chances; or the directions the roll allows."""
    context: dict[str, Any] = {}
    if state.phase is Phase.PLACE:
        context["place_cells"] = [(f"{q},{r}", _("start cell %(number)s") % {"number": line[(q, r)]})
                                  for q, r in placeable]
        context["headings"] = [(i, direction_label(i)) for i in range(len(DIRECTION_NAMES))]
    elif state.phase is Phase.DICE:
        context["dice"] = dice_options(state)
        context["dice_json"] = json.dumps(list(state.boat.dice))
    elif state.phase is Phase.DIRECTION:
        heading = state.boat.heading
        words = {heading: _("straight on"), left(heading): _("60° left"), right(heading): _("60° right")}
        context["options"] = [{"option": o, "name": direction_label(o.direction), "turn": words[o.direction]}
                              for o in state.options()]
        assert state.pending is not None
        context["pending"] = state.pending
    return context
