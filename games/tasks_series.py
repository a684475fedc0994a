"""Celery tasks of series (issue 16): the clock sweep. Each takes ids, calls one service and is
safe to run twice (the service locks the series row and checks the deadline again)."""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from celery import shared_task
from django.utils import timezone

from games.engine import Phase
from games.engine.bot import ExpectimaxPlayer, make_player
from games.engine.route import MoveMap, RouteMap

from . import services_series
from .errors import ServiceError
from .house import is_house_bot
from .models_series import SeriesGame
from .state import course_by_key

log = logging.getLogger(__name__)


@shared_task
def sweep_series_clocks() -> int:
    """Players to move past their deadline leave their series (R18); one indexed query
    (``series_active_deadline``); and house bots whose task was lost are asked again. Returns
    how many players were timed out."""
    now = timezone.now()
    due = (SeriesGame.objects.filter(status=SeriesGame.Status.ACTIVE, deadline__lte=now).order_by("deadline")
           .values_list("pk", flat=True)[:500])
    timed_out = sum(services_series.series_time_out(series_id=pk, now=now) for pk in list(due))
    # reminders that are due (index ``series_active_reminder``; a sent one clears reminder_at)
    remind = (SeriesGame.objects.filter(status=SeriesGame.Status.ACTIVE, reminder_at__lte=now).order_by("reminder_at")
              .values_list("pk", flat=True)[:500])
    for pk in list(remind):
        services_series.series_remind(series_id=pk, now=now)
    for series_id, ply in waiting_series_bots(now):
        series_bot_move.delay(series_id, ply)
    return timed_out


@shared_task
def series_bot_move(series_id: int, ply: int) -> bool:
    """A house bot's action in a series; does nothing if the series moved on (safe twice)."""
    return series_bot_act(series_id=series_id, ply=ply) is not None


def series_bot_act(*, series_id: int, ply: int) -> dict[str, Any] | None:
    """One action of the house bot to move in a series at ``ply`` (through the services, so a
    bot can never bypass a rule); None when there is nothing to do."""
    series = SeriesGame.objects.filter(pk=series_id).first()
    if series is None or series.status != SeriesGame.Status.ACTIVE or series.ply != ply or series.to_move is None:
        return None
    seats = list(series.seats.select_related("user"))
    bot = services_series.playing_seats(seats)[series.to_move].user
    if not is_house_bot(bot):
        return None
    state = services_series.engine_of(series, seats).series.race
    player = make_player(bot.bot_level, random.Random(f"series:{series_id}:{ply}"), _route(series.course_keys[
        series.race]))
    if isinstance(player, ExpectimaxPlayer):
        player.moves = _moves(series.course_keys[series.race])
    try:
        if state.phase is Phase.PLACE:
            cell, heading = player.place(state)
            return services_series.series_place(user=bot, series_id=series_id, ply=ply, cell=cell, heading=heading)
        if state.phase is Phase.DICE:
            return services_series.series_roll(user=bot, series_id=series_id, ply=ply, choice=player.dice(state))
        return services_series.series_direction(user=bot, series_id=series_id, ply=ply,
                                                direction=player.direction(state))
    except ServiceError as exc:  # someone acted first (the series timed out, a player left)
        log.info("bot %s in series %s at ply %s: %s", bot, series_id, ply, exc.message)
        return None


@lru_cache(maxsize=64)
def _route(key: str) -> RouteMap:
    return RouteMap(course_by_key(key))


@lru_cache(maxsize=64)
def _moves(key: str) -> MoveMap:
    return MoveMap(course_by_key(key))


def waiting_series_bots(now: datetime) -> Any:
    """Series where a house bot has been to move for two minutes: its task was lost. Index
    ``series_active_bot_to_move``."""
    return (SeriesGame.objects.filter(status=SeriesGame.Status.ACTIVE, bot_to_move=True,
                                      updated_at__lt=now - timedelta(minutes=2))
            .order_by("updated_at").values_list("pk", "ply")[:500])
