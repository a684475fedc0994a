"""Celery tasks for tournaments: each takes ids, calls a service, and is safe to run twice."""

from __future__ import annotations

from celery import shared_task

from . import services, services_formats


@shared_task
def tournament_tick() -> dict[str, int]:
    """Every minute (beat): start tournaments that are due, close rounds, pair the next ones."""
    return services.tournament_tick()


@shared_task
def tournament_advance(tournament_id: int) -> str:
    return services.tournament_advance(tournament_id=tournament_id)


# --- round-robins and the Competition ----------------------------------------------------------


@shared_task
def formats_tick() -> dict[str, int]:
    """Every minute (beat): start round-robins and Competition seasons that are due, start drawn
    groups, adjudicate at deadlines, close finished groups, round-robins and seasons."""
    return services_formats.formats_tick()


@shared_task
def group_start(group_id: int) -> bool:
    return services_formats.group_start(group_id=group_id)


@shared_task
def group_advance(group_id: int) -> str:
    return services_formats.group_advance(group_id=group_id)


@shared_task
def round_robin_advance(round_robin_id: int) -> str:
    return services_formats.round_robin_advance(round_robin_id=round_robin_id)


@shared_task
def season_advance(season_id: int) -> str:
    return services_formats.season_advance(season_id=season_id)
