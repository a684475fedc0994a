"""games.loading reads a game, its seats and their players in one query, by SQL it writes itself
from the models: it must give exactly what the ORM gives, field by field (a two-player game and a
series alike)."""

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
            assert [s.index for s in seats] == [0, 1] and all(s.game is loaded for s in seats)
            for seat, orm_seat in zip(seats, Seat.objects.filter(game=game).select_related("user").order_by("index"),
                                      strict=True):
                for field in Seat._meta.concrete_fields:
                    assert getattr(seat, field.attname) == getattr(orm_seat, field.attname), field.name
                for name in ("id", *PLAYER_FIELDS):
                    assert getattr(seat.user, name) == getattr(orm_seat.user, name), name
            assert loaded.players == [s.user for s in seats], "the game knows its players: no query for them"
    assert game_and_seats(10**9) is None


def test_the_loader_reads_every_seat_of_a_series_open_or_started():
    from .series_play import started

    users = [make_user(n) for n in ("ann", "bob", "cid", "dee")]
    series = started(users)
    _loaded, seats = game_and_seats(series.pk)
    assert [(s.index, s.color, s.user.username) for s in seats] == [
        (0, "yellow", "ann"), (1, "red", "bob"), (2, "orange", "cid"), (3, "purple", "dee")]
    from games import services

    waiting = services.game_open(user=users[0], seats=5)
    services.game_join(user=users[2], game_id=waiting.pk)
    _, seats = game_and_seats(waiting.pk)
    assert [(s.index, s.user.username) for s in seats] == [(None, "ann"), (None, "cid")], "in the order they came"


def test_rows_where_gives_what_the_orm_gives():
    """The small reads of a page and an API GET (a game's history; its players' ratings, read
    with the game by the page's read)."""
    from common.db.reading import rows_where
    from games.models import Move
    from games.ratings.models import Rating
    from games.selectors import MOVE_LIST_COLUMNS, game_to_show, history

    game = play_until(placed_game(), lambda g: g.ply >= 9)
    orm = list(Move.objects.filter(game=game).order_by("ply"))
    rows = history(game)
    assert [r.pk for r in rows] == [r.pk for r in orm] and all(r.game is game for r in rows)
    for row, orm_row in zip(rows, orm, strict=True):
        for field in Move._meta.concrete_fields:
            assert getattr(row, field.attname) == getattr(orm_row, field.attname), field.name
    short = history(game, MOVE_LIST_COLUMNS)
    assert [(r.pk, r.ply, r.notation) for r in short] == [(r.pk, r.ply, r.notation) for r in orm]
    assert "path" in short[0].get_deferred_fields(), "only the columns asked for are read"
    Rating.objects.create(user=game.player(0), rating=1612.5, deviation=80.0)
    shown = game_to_show(game.pk, "en", "no drawing of this version")
    assert shown is not None
    found = shown[3]
    assert list(found) == [game.player_id(0)] and (found[game.player_id(0)].rating, found[game.player_id(0)].deviation) == (
        1612.5, 80.0)
    assert rows_where(Move, "game", []) == [] and rows_where(Move, "game", [10**9]) == []


def test_a_row_made_without_model_init_is_what_the_orm_makes():
    """common.db.reading makes its instances without ``Model.__init__`` when nothing listens for
    the model's init signals: they must save, refresh a deferred field and compare as the ORM's."""
    from django.contrib.auth import get_user_model
    from django.db.models import signals

    from common.db.reading import model_part, rows_where
    from games.models import Move

    user_model = get_user_model()
    player = make_user("pia")
    found = rows_where(user_model, "id", [player.pk])[0]
    orm = user_model.objects.get(pk=player.pk)
    assert all(model_part(m, "x").plain for m in (user_model, Game, Seat, Move)), "the path measured"
    assert {k: v for k, v in vars(found).items() if k != "_state"} == {
        k: v for k, v in vars(orm).items() if k != "_state"}, "the same attributes as Model.from_db sets"
    assert found == orm and hash(found) == hash(orm) and found._state.db == orm._state.db == "default"
    assert not found._state.adding and found.get_deferred_fields() == set()
    users = user_model.objects.count()
    found.first_name = "Pia"
    found.save()  # an update of the row, not an insert
    assert user_model.objects.get(pk=player.pk).first_name == "Pia" and user_model.objects.count() == users

    game = play_until(placed_game(), lambda g: g.ply >= 3)
    short = rows_where(Move, "game", [game.pk], ["ply", "notation"])
    assert all(row.get_deferred_fields() >= {"path", "dice"} for row in short)
    by_ply = {row.ply: row for row in short}
    assert by_ply[2].path == Move.objects.get(game=game, ply=2).path, "a deferred field is read when asked for"

    seen: list[object] = []
    signals.post_init.connect(lambda instance, **kw: seen.append(instance), sender=Move, weak=False,
                              dispatch_uid="seen")
    try:
        rows = rows_where(Move, "game", [game.pk], ["ply", "notation"])  # the part made above: still heard
        assert len(seen) == len(rows) >= 3, "a receiver sends the model back through Model.__init__"
    finally:
        signals.post_init.disconnect(sender=Move, dispatch_uid="seen")
    assert rows_where(Move, "game", [game.pk], ["ply", "notation"]) and len(seen) == len(rows), "and no more"
