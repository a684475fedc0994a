"""Every subscription of the tournaments app to events, in one place (docs/architecture.md):
events are published after the transaction that caused them commits; a receiver queues a task.
When the broker is down the minute ticks (``tournament_tick``, ``formats_tick``) do the work."""

from __future__ import annotations

import logging
from typing import Any

from django.db.models import CharField, Value
from django.dispatch import receiver

from games.signals import game_finished

from .models import Entry, GroupGame
from .signals import group_finished, groups_drawn
from .tasks import group_advance, group_start, round_robin_advance, season_advance, tournament_advance

log = logging.getLogger(__name__)


def _queue(task: Any, *args: Any) -> None:
    try:
        task.delay(*args)
    except Exception:  # the broker is down: the minute tick does it
        log.warning("could not queue %s%s; the minute tick will", task.name, args)


@receiver(game_finished, dispatch_uid="tournaments-game-finished")
def game_finished_advances_its_event(sender: Any, game_id: int, **kwargs: Any) -> None:
    """A tournament's game ended: see at once whether its round can close; a round-robin group's
    game: record it, and see whether the group (or its round) is over. One query finds both (on
    every finished game, most of them in no tournament)."""
    rounds = (Entry.objects.filter(game_id=game_id).annotate(kind=Value("round", CharField()))
              .values_list("kind", "round__tournament_id").order_by())
    groups = (GroupGame.objects.filter(game_id=game_id).annotate(kind=Value("group", CharField()))
              .values_list("kind", "group_id").order_by())
    for what, pk in sorted(set(rounds.union(groups, all=True))):
        _queue(group_advance if what == "group" else tournament_advance, pk)


@receiver(groups_drawn, dispatch_uid="tournaments-groups-drawn")
def groups_drawn_start(sender: Any, group_ids: list[int], **kwargs: Any) -> None:
    """Groups were drawn (a round-robin started, a final, a Competition season): start each one."""
    for group_id in group_ids:
        _queue(group_start, group_id)


@receiver(group_finished, dispatch_uid="tournaments-group-finished")
def group_finished_advances_its_event(sender: Any, group_id: int, round_robin_id: int | None,
                                      season_id: int | None, **kwargs: Any) -> None:
    """A group finished: its round-robin may draw its final or finish; its season may close."""
    if round_robin_id is not None:
        _queue(round_robin_advance, round_robin_id)
    if season_id is not None:
        _queue(season_advance, season_id)
