"""What the forms of a player's turn need, for every game: a two-player game's page and a
series' page show the same forms (templates/games/_turn.html) from the same context."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

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


WAY_CHOICES = (("ask", gettext_lazy("ask me")), ("left", gettext_lazy("60° left")),
               ("straight", gettext_lazy("straight on")), ("right", gettext_lazy("60° right")))
THEN_TOTALS = range(1, 13)  # the turn after: its dice are not known yet


def plan_context(state: GameState | None, turns: Sequence[Mapping[str, Any]] | None) -> dict[str, Any]:
    """The plan panel of a player whose turn it is not (games/plans.py): the danger table of the dice
    step as their boat stands (``state``: games.plans.planner_state) with a way to choose per total,
    their plan's choices filled in (``turns``: the plan's, or None)."""
    if state is None:
        return {}
    dice = dice_options(state)
    first = turns[0] if turns else None
    then = turns[1] if turns and len(turns) > 1 else None
    ways = (first or {}).get("ways", {})
    for row in dice["outcomes"]:
        row["way"] = ways.get(str(row["total"]), "ask")
    chosen = (first or {}).get("dice", {})
    change = chosen.get("change", "add" if dice["first_move"] or not dice["dice"] else "keep")
    then_ways = (then or {}).get("ways", {})
    return {
        "plan_dice": dice,
        "plan_dice_json": json.dumps(list(state.boat.dice)),
        "plan_exists": turns is not None,
        "plan_change": change,
        "plan_remove": chosen.get("remove"),
        "plan_reroll": list(chosen.get("reroll", [])),
        "plan_careful": bool((first or {}).get("careful", False)),
        "plan_then": then is not None,
        "plan_then_change": (then or {}).get("dice", {}).get("change", "keep"),
        "plan_then_careful": bool((then or {}).get("careful", False)),
        "plan_then_rows": [(t, then_ways.get(str(t), "ask")) for t in THEN_TOTALS],
        "way_choices": WAY_CHOICES,
    }
