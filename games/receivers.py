"""Every subscription of the games app, in one place (docs/architecture.md).

Services publish events (games.signals) after their transaction commits; these receivers only
queue Celery tasks (games.tasks), which take ids and call services. A receiver never reads
the game: the event carries what it needs. When the broker is down the receiver logs it and
the clock sweep (``sweep_clocks``) makes up for it later (lost bot moves, unsent emails).
"""

from __future__ import annotations

import logging
from typing import Any

from django.dispatch import receiver

from . import tasks
from .signals import challenge_made, emails_recorded, move_made

log = logging.getLogger(__name__)


def _queue(task: Any, *args: Any) -> None:
    try:
        task.delay(*args)
    except Exception:  # the broker is down: the sweep makes up for it
        log.exception("could not queue %s%s", task.name, args)


@receiver(move_made, dispatch_uid="bots-move")
def a_house_bot_moves(sender: Any, game_id: int, ply: int, bot_to_move: bool = False, **kwargs: Any) -> None:
    if bot_to_move:
        _queue(tasks.bot_move, game_id, ply)


@receiver(challenge_made, dispatch_uid="bots-accept")
def a_house_bot_accepts(sender: Any, challenge_id: int, opponent_is_bot: bool = False, **kwargs: Any) -> None:
    if opponent_is_bot:
        _queue(tasks.bot_accept, challenge_id)


@receiver(emails_recorded, dispatch_uid="emails-send")
def recorded_emails_are_sent(sender: Any, ids: list[int], **kwargs: Any) -> None:
    for entry_id in ids:
        _queue(tasks.send_email, entry_id)
