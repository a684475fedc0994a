"""Celery tasks for tournaments: each takes ids, calls a service, and is safe to run twice."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task
def tournament_tick() -> dict[str, int]:
    """Every minute (beat): start tournaments that are due, close rounds, pair the next ones."""
    return services.tournament_tick()


@shared_task
def tournament_advance(tournament_id: int) -> str:
    return services.tournament_advance(tournament_id=tournament_id)
