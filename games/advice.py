"""A newcomer's help on the game page (issue 24), besides the danger shown before the dice
(payloads.dice_options): the strong bot's advice, when a player asks for it (``User.bot_hints``),
in casual games against the house bots only (a rated game, or one against a person, is the
player's own); and a new account's guided first game against a house bot: a short hint at each
step, until they dismiss it (``User.guide_done``) or have finished a game."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from games.engine import Phase
from games.engine.hexgrid import left, right

from .house import is_house_bot
from .models import Game
from .selectors import plays_in
from .state import state_of


def opponent_is_house_bot(game: Game, seat: int) -> bool:
    """A two-player game against a house bot (the advice and the guide are for those)."""
    return not game.multi_race and is_house_bot(game.player(1 - seat))


def advice_allowed(game: Game, user: Any) -> bool:
    """The strong bot may advise this player now: their turn, in a casual game against a house
    bot, and they asked for it."""
    seat = game.seat_of(user)
    return (seat is not None and not game.over and not game.rated and game.to_move == seat
            and bool(getattr(user, "bot_hints", False)) and opponent_is_house_bot(game, seat))


@lru_cache(maxsize=256)
def _advice(game_id: int, ply: int) -> dict[str, Any] | None:
    from .bots import player_for  # games.bots imports the services: kept out of this module's import

    game = Game.objects.get(pk=game_id)
    state = state_of(game)
    player = player_for(game, "strong")
    if state.phase is Phase.PLACE:
        cell, heading = player.place(state)
        return {"phase": "place", "cell": list(cell), "heading": heading}
    if state.phase is Phase.DICE:
        choice = player.dice(state)
        return {"phase": "dice", "change": choice.change.value, "remove": choice.remove,
                "reroll": list(choice.reroll)}
    if state.phase is Phase.DIRECTION:
        return {"phase": "direction", "direction": player.direction(state)}
    return None


def advice(game: Game, user: Any) -> dict[str, Any] | None:
    """What the strong bot would do in this player's place now (the engine's bot, as the house
    bots play: deterministic for a game and ply, worked out once per process), or None when it
    may not advise them."""
    if not advice_allowed(game, user):
        return None
    return _advice(game.pk, game.ply)


def advice_words(found: dict[str, Any], game: Game, line_index: dict[tuple[int, int], int]) -> str:
    """The advice in the active language, as a player says it."""
    from django.utils.translation import gettext as _

    from games.reasons import direction_label

    if found["phase"] == "place":
        return _("start on cell %(cell)s of the line, heading %(heading)s") % {
            "cell": line_index.get(tuple(found["cell"]), "?"), "heading": direction_label(found["heading"])}
    if found["phase"] == "dice":
        parts = {"keep": _("keep your dice"), "add": _("add a die")}
        words = [parts.get(found["change"], _("remove die %(number)s") % {"number": (found["remove"] or 0) + 1})]
        words += [_("roll die %(number)s again") % {"number": i + 1} for i in found["reroll"]]
        return ", ".join(words)
    heading = state_of(game).boat.heading
    turn = {heading: _("straight on"), left(heading): _("60° left"), right(heading): _("60° right")}
    return f"{direction_label(found['direction'])} ({turn.get(found['direction'], '')})"


def guided(game: Game, user: Any) -> bool:
    """A new account's game against a house bot: the turn panel says, at each step, what to do
    (templates/games/_guide.html), until the player dismisses it or has finished a game."""
    seat = game.seat_of(user)
    if seat is None or game.over or getattr(user, "guide_done", True) or not opponent_is_house_bot(game, seat):
        return False
    return not Game.objects.filter(plays_in(user), status=Game.Status.FINISHED).exists()
