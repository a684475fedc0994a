"""Celery tasks for tournaments: each takes ids, calls a service, and is safe to run twice."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.dispatch import receiver

from games.signals import game_finished

from . import services
from .models import Entry


@shared_task
def tournament_tick() -> dict[str, int]:
    """Every minute (beat): start tournaments that are due, close rounds, pair the next ones."""
    return services.tournament_tick()


@shared_task
def tournament_advance(tournament_id: int) -> str:
    return services.tournament_advance(tournament_id=tournament_id)


@receiver(game_finished, dispatch_uid="tournaments-game-finished")
def _game_finished(sender: Any, game_id: int, **kwargs: Any) -> None:
    """A tournament game ended: see at once whether its round can close."""
    for tid in set(Entry.objects.filter(game_id=game_id).values_list("round__tournament_id", flat=True)):
        try:
            tournament_advance.delay(tid)
        except Exception:  # the broker is down: the minute tick does it
            pass
