"""games.loading reads a game, its players and its seats in one query, by SQL it writes itself
from the models: it must give exactly what the ORM gives, field by field."""

from __future__ import annotations

import pytest
from django.db import transaction

from games.loading import PLAYER_FIELDS, game_and_seats
from games.models import Game, Seat

from .factories import make_user, placed_game, play_until

pytestmark = pytest.mark.django_db


def test_the_loader_gives_what_the_orm_gives_field_by_field():
    game = play_until(placed_game(yellow=make_user("lyn", time_zone="Europe/Rome", reminder_hours=7)),
                      lambda g: g.ply >= 9)
    with transaction.atomic():
        for lock in (False, True):
            loaded, seats = game_and_seats(game.pk, lock=lock)
            orm = Game.objects.get(pk=game.pk)
            for field in Game._meta.concrete_fields:
                assert getattr(loaded, field.attname) == getattr(orm, field.attname), field.name
            for side in ("yellow", "red"):
                for name in ("id", *PLAYER_FIELDS):
                    assert getattr(getattr(loaded, side), name) == getattr(getattr(orm, side), name), (side, name)
            assert [s.index for s in seats] == [0, 1] and all(s.game is loaded for s in seats)
            for seat, orm_seat in zip(seats, Seat.objects.filter(game=game).order_by("index"), strict=True):
                for field in Seat._meta.concrete_fields:
                    assert getattr(seat, field.attname) == getattr(orm_seat, field.attname), field.name
    assert game_and_seats(10**9) is None
