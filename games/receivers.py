"""Every subscription of the games app, in one place (docs/architecture.md).

Services publish events (games.signals) after their transaction commits; these receivers only
queue Celery tasks (games.tasks), which take ids and call services. A receiver never reads
the game: the event carries what it needs. When the broker is down the receiver logs it and
the clock sweep (``sweep_clocks``) makes up for it later (lost bot moves, unsent emails).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.dispatch import receiver

from . import tasks
from .live import events as live
from .live.models import LiveEvent
from .signals import challenge_changed, challenge_made, chat_posted, move_made, notices_recorded

log = logging.getLogger(__name__)


def _queue(task: Any, *args: Any) -> None:
    try:
        task.delay(*args)
    except Exception:  # the broker is down: the sweep makes up for it
        log.exception("could not queue %s%s", task.name, args)


_bot_turns = threading.local()


@receiver(move_made, dispatch_uid="bots-move")
def a_house_bot_moves(sender: Any, game_id: int, ply: int, bot_to_move: bool = False, **kwargs: Any) -> None:
    """Queue the bot's move (any game). When tasks run in the calling thread (eager: tests, the
    fuzz stage), a bot's move that hands the turn to another bot (a series with bots in it) would
    call this again from inside the first: a game with only bots left would recurse once per
    action. So a call made while this thread is already queueing bot moves is appended and taken
    by the outer loop."""
    if not bot_to_move:
        return
    pending: list[tuple[int, int]] | None = getattr(_bot_turns, "pending", None)
    if pending is not None:
        pending.append((game_id, ply))
        return
    _bot_turns.pending = pending = [(game_id, ply)]
    try:
        while pending:
            _queue(tasks.bot_move, *pending.pop(0))
    finally:
        _bot_turns.pending = None


@receiver(challenge_made, dispatch_uid="bots-accept")
def a_house_bot_accepts(sender: Any, challenge_id: int, opponent_is_bot: bool = False, **kwargs: Any) -> None:
    if opponent_is_bot:
        _queue(tasks.bot_accept, challenge_id)


@receiver(notices_recorded, dispatch_uid="notices-send")
def recorded_notices_are_sent(sender: Any, notices: list[tuple[int, str, float]], **kwargs: Any) -> None:
    """Queue each email and push (a your-turn push held a few seconds: with that countdown)."""
    for entry_id, channel, countdown in notices:
        tasks.queue(entry_id, channel, countdown)


# --- live events (games/live/events.py, docs/live.md): one INSERT after the commit ------------
# (a move's event, a game's start and end and an open game's seat changes are written in their
# own transaction: games.services)


@receiver(chat_posted, dispatch_uid="live-chat")
def a_chat_line_goes_live(sender: Any, game_id: int, message_id: int, user_id: int, **kwargs: Any) -> None:
    # no users: the event is for the game's page, not for its players' other pages
    live.publish(kind=LiveEvent.Kind.CHAT, game_id=game_id, message=message_id, by=user_id)


@receiver(challenge_changed, dispatch_uid="live-challenge")
def a_challenge_goes_live(sender: Any, challenge_id: int, status: str, created_by_id: int,
                          opponent_id: int | None = None, game_id: int | None = None, **kwargs: Any) -> None:
    live.publish(kind=LiveEvent.Kind.CHALLENGE, challenge_id=challenge_id,
                 users=[u for u in (created_by_id, opponent_id) if u is not None], status=status,
                 created_by=created_by_id, opponent=opponent_id, **({"game": game_id} if game_id else {}))
