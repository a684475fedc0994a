"""Every subscription of the tournaments app to events of other apps, in one place
(docs/architecture.md): events are published after the transaction that caused them commits."""

from __future__ import annotations

import logging
from typing import Any

from django.dispatch import receiver

from games.signals import game_finished

from .models import Entry
from .tasks import tournament_advance

log = logging.getLogger(__name__)


@receiver(game_finished, dispatch_uid="tournaments-game-finished")
def game_finished_advances_its_round(sender: Any, game_id: int, **kwargs: Any) -> None:
    """A tournament game ended: see at once whether its round can close."""
    for tid in set(Entry.objects.filter(game_id=game_id).values_list("round__tournament_id", flat=True)):
        try:
            tournament_advance.delay(tid)
        except Exception:  # the broker is down: the minute tick does it
            log.warning("could not queue tournament_advance(%s); the minute tick will", tid)
