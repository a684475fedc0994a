"""House bots on the site: they play through the same services as people, in every game (a
two-player game, a series of the boxed game).

After a move commits, ``move_made`` says whether a house bot is to move, and a receiver
(games/receivers.py) queues ``games.tasks.bot_move``. The task loads the game,
asks the engine's bot (games/engine/bot.py) for the next action and submits it with the
game's ply through the ordinary services, so a bot can never bypass a rule, and a task
that runs twice does nothing the second time (the ply has moved on).
"""

from __future__ import annotations

import logging
import random
from functools import lru_cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from common.errors import ServiceError
from games.engine import Phase
from games.engine.bot import LEVELS, ExpectimaxPlayer, make_player
from games.engine.players import Player
from games.engine.route import MoveMap, RouteMap

from . import services
from .house import is_house_bot
from .models import Game
from .rulesets import match_of
from .selectors import game_with_seats
from .state import course_by_key

log = logging.getLogger(__name__)
User = get_user_model()


def house_bots() -> Any:
    return User.objects.filter(is_bot=True, bot_level__in=LEVELS).order_by("username")


@lru_cache(maxsize=64)
def _maps(course_key: str) -> tuple[RouteMap, MoveMap]:
    course = course_by_key(course_key)
    return RouteMap(course), MoveMap(course)


def player_for(game: Game, level: str) -> Player:
    """The engine's bot of ``level`` for the race being played (its course's route maps)."""
    assert game.course_id is not None
    route, moves = _maps(game.course_id)
    player = make_player(level, random.Random(f"{game.pk}:{game.ply}"), route)
    if isinstance(player, ExpectimaxPlayer):
        player.moves = moves
    return player


def bot_act(*, game_id: int, ply: int) -> dict[str, Any] | None:
    """One action of the house bot to move in a game at ``ply`` (a two-player game or a series:
    the engine's bots play races of any number of boats); None when there is nothing to do."""
    found = game_with_seats(game_id)
    if found is None:
        return None
    game, seats = found
    if game.status != Game.Status.ACTIVE or game.ply != ply:
        return None
    bot = game.user_to_move
    if bot is None or not is_house_bot(bot):
        return None
    state = match_of(game, seats).race
    player = player_for(game, bot.bot_level)
    try:
        if state.phase is Phase.PLACE:
            cell, heading = player.place(state)
            return services.game_place(user=bot, game_id=game.pk, ply=ply, cell=cell, heading=heading)
        if state.phase is Phase.DICE:
            return services.game_roll(user=bot, game_id=game.pk, ply=ply, choice=player.dice(state))
        return services.game_choose_direction(user=bot, game_id=game.pk, ply=ply, direction=player.direction(state))
    except ServiceError as exc:  # someone else acted first (the game timed out, a player left)
        log.info("bot %s in game %s at ply %s: %s", bot, game.pk, ply, exc.message)
        return None


@transaction.atomic
def play_house_bot(*, user: Any, level: str, **options: Any) -> Game:
    """A challenge to a house bot, accepted by the bot at once (both through the services), in
    one transaction: the bot's own accept task, queued when the challenge commits, finds it
    accepted already and does nothing, so the caller always gets the game."""
    bot = house_bots().filter(bot_level=level).first()
    if bot is None:
        raise ServiceError(_("there is no %(level)s bot here: use one of %(value)s") % {"level": level, "value": ', '.join(LEVELS)}, "level")
    challenge = services.challenge_create(user=user, opponent=bot, **options)
    return services.challenge_accept(user=bot, challenge_id=challenge.pk)
