"""common.db.writing sends a step's writes together, by SQL it writes itself from the models: what it
stores must be exactly what the ORM's ``bulk_create`` and ``save(update_fields=…)`` store, on
PostgreSQL in one statement and elsewhere one by one (both ways are run here)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from common.db import writing
from common.db.writing import Writes
from games.models import Game, Move, Seat
from games.notifications.models import Notice

from .factories import make_user, placed_game

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["together", "one by one"])
def way(request, monkeypatch):
    if request.param == "one by one":
        monkeypatch.setattr(writing, "together", lambda: False)
    elif connection.vendor != "postgresql":
        pytest.skip("only PostgreSQL takes several statements in one query")
    return request.param


def _orm_values(obj):
    return {f.attname: getattr(type(obj).objects.get(pk=obj.pk), f.attname) for f in type(obj)._meta.concrete_fields}


def test_inserts_and_updates_store_what_the_orm_would(way):
    game = placed_game()
    seat = Seat.objects.get(game=game, index=0)
    now = timezone.now()
    rows = [Move(game=game, ply=game.ply, seat=0, user=game.player(0), kind=Move.Kind.ROLL, number=1, rolled_at=now,
                 created_at=now, choice={"change": "add", "reroll": []}, dice_before=[1], rolled=[2, 3], dice=[2, 3],
                 notation="1. Y +1 (2 3)"),
            Move(game=game, ply=game.ply + 1, seat=0, user=game.player(0), kind=Move.Kind.TURN, number=1, created_at=now,
                 direction=2, path=[[1, 2], [2, 2]], final=[2, 2], heading=2, rounded=[1], notation="1. Y 2")]
    email = Notice(user=game.player(1), event="your_turn", key=f"game:{game.pk}:ply:99", data={"game": game.pk},
                     send_after=now + timedelta(seconds=120))
    seat.dice, seat.damage, seat.entries = [2, 3], 1, [[0, 1]]
    game.ply, game.to_move, game.pending = game.ply + 2, 1, {"roll": None}
    before = game.updated_at
    writes = Writes()
    writes.insert(rows)
    writes.update(seat, ["dice", "damage", "entries"])
    writes.update(game, ["ply", "to_move", "pending", "updated_at"])
    writes.insert([email])
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        writes.send()
    sent = [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(("BEGIN", "COMMIT", "SAVEPOINT",
                                                                                   "RELEASE"))]
    assert len(sent) == (1 if way == "together" else 4), sent
    assert len(writes) == 0, "sent writes are forgotten"
    assert all(r.pk is not None and not r._state.adding for r in rows) and email.pk is not None
    assert [r.ply for r in Move.objects.filter(game=game).order_by("-ply")[:2]] == [rows[1].ply, rows[0].ply]
    for obj in (*rows, email, seat):
        stored = _orm_values(obj)
        for name, value in stored.items():
            assert getattr(obj, name) == value, (type(obj).__name__, name)
    stored = Game.objects.get(pk=game.pk)
    assert (stored.ply, stored.to_move, stored.pending) == (game.ply, 1, {"roll": None})
    assert stored.updated_at == game.updated_at and game.updated_at > before, "auto_now is set as save() sets it"


def test_only_the_named_columns_are_written(way):
    game = placed_game()
    seat = Seat.objects.get(game=game, index=1)
    Seat.objects.filter(pk=seat.pk).update(damage=2)  # changed meanwhile by someone else: not ours to overwrite
    seat.dice = [3]
    writes = Writes()
    writes.update(seat, ["dice"])
    writes.send()
    stored = Seat.objects.get(pk=seat.pk)
    assert stored.dice == [3] and stored.damage == 2


def test_an_update_that_finds_no_row_fails_as_save_does(way):
    game = placed_game()
    seat = Seat.objects.get(game=game, index=0)
    ghost = Seat.objects.get(game=game, index=1)
    ghost.pk = 10**9
    seat.damage = 3
    writes = Writes()
    writes.update(seat, ["damage"])
    writes.update(ghost, ["damage"])
    with pytest.raises(DatabaseError), transaction.atomic():
        writes.send()
    assert Seat.objects.get(pk=seat.pk).damage == 0, "the whole step is undone"


def test_a_failing_statement_undoes_the_whole_step(way):
    """A history row at a ply already taken (two requests for one turn) fails the step: nothing
    of it is stored, and the caller sees the IntegrityError it maps to a stale ply."""
    game = placed_game()
    taken = Move.objects.filter(game=game).order_by("-ply").first()
    seat = Seat.objects.get(game=game, index=0)
    seat.damage = 4
    now = timezone.now()
    writes = Writes()
    writes.update(seat, ["damage"])
    writes.insert([Move(game=game, ply=taken.ply, seat=0, user=game.player(0), kind=Move.Kind.ROLL, created_at=now,
                        rolled_at=now, notation="x")])
    with pytest.raises(IntegrityError), transaction.atomic():
        writes.send()
    assert Seat.objects.get(pk=seat.pk).damage == 0
    assert Move.objects.filter(game=game, ply=taken.ply).count() == 1


def test_nothing_to_write_sends_nothing():
    with CaptureQueriesContext(connection) as queries:
        Writes().send()
    assert queries.captured_queries == []


def test_texts_that_look_like_placeholders_are_values_not_sql(way):
    user = make_user("pct")
    email = Notice(user=user, event="your_turn", key="100%s; DROP TABLE x; --'", data={"q": "%s %(x)s"})
    writes = Writes()
    writes.insert([email])
    writes.insert([Notice(user=user, event="your_turn", key="second", data={})])
    writes.send()
    stored = Notice.objects.get(pk=email.pk)
    assert (stored.key, stored.data) == ("100%s; DROP TABLE x; --'", {"q": "%s %(x)s"})
