"""On PostgreSQL the fixed reads of every request — the game with its seats (locked or not, with
the page's drawing), its history, the API token, the session — run as prepared statements
(common.db.reading.read_cursor): PostgreSQL parses and plans each once per connection, not on
every request (docs/performance.md). They answer as the unprepared reads do; a refusal's
rollback, after which psycopg forgets what it prepared, prepares them again; with
``DATABASE_PREPARED=false`` nothing is prepared."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client

from common.db.reading import read_cursor
from games.loading import game_and_seats
from games.models import Game, Seat

from .factories import PASSWORD, make_user, placed_game, play_until
from .test_api import client_for

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[2]
READS = {
    "token": 'FROM "authtoken_token" t JOIN',
    "game": 'FROM "games_seat" s JOIN "games_game" g',
    "history": 'FROM "games_move" m WHERE m."game_id" IN ($1)',
    "session": 'FROM "accounts_playersession"',
}


def prepared() -> dict[str, int]:
    """The statements prepared on this connection that are one of READS (a locked read, a page's
    read and a plain one are each a statement: counted together), with how often they ran."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements")
        rows = cursor.fetchall()
    found: dict[str, int] = {}
    for statement, runs in rows:
        for name, text in READS.items():
            if text in statement:
                found[name] = found.get(name, 0) + runs
    return found


def test_every_request_reads_through_statements_prepared_once_per_connection():
    ann, bob = make_user("ann"), make_user("bob")
    game = placed_game(yellow=ann, red=bob)
    api = client_for(ann)
    assert api.get(f"/api/games/{game.pk}/").status_code == 200
    after_one = prepared()
    assert set(after_one) == {"token", "game", "history"}, after_one
    assert api.get(f"/api/games/{game.pk}/").status_code == 200
    after_two = prepared()
    assert after_two == {name: runs + 1 for name, runs in after_one.items()}, "the same statements ran again"

    mover = client_for(ann if game.to_move == 0 else bob)
    roll = mover.post(f"/api/games/{game.pk}/roll/", {"ply": game.ply, "change": "add", "reroll": []}, format="json")
    assert roll.status_code == 200, roll.content
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        statements = [row[0] for row in cursor.fetchall()]
    assert any(READS["game"] in s and s.endswith("FOR UPDATE OF g") for s in statements), "the turn's locked read"

    page = Client()
    assert page.login(username="bob", password=PASSWORD)
    assert page.get(f"/games/{game.pk}/").status_code == 200
    assert "session" in prepared(), "the page's session and its player"


def test_prepared_reads_answer_as_the_unprepared_ones(monkeypatch):
    game = play_until(placed_game(yellow=make_user("lyn", time_zone="Europe/Rome")), lambda g: g.ply >= 7)
    loaded, seats = game_and_seats(game.pk)
    assert "game" in prepared()
    monkeypatch.delitem(connection.settings_dict["OPTIONS"], "prepare_threshold")
    plain, plain_seats = game_and_seats(game.pk)
    for field in Game._meta.concrete_fields:
        assert getattr(loaded, field.attname) == getattr(plain, field.attname), field.name
    for seat, other in zip(seats, plain_seats, strict=True):
        for field in Seat._meta.concrete_fields:
            assert getattr(seat, field.attname) == getattr(other, field.attname), field.name
        assert seat.user.__dict__.keys() == other.user.__dict__.keys()
    with read_cursor() as cursor:
        assert type(cursor.cursor).__name__ == "Cursor", "Django's own client-side cursor when turned off"


def test_a_refusal_rolls_back_and_the_reads_are_prepared_again():
    ann, bob = make_user("ann"), make_user("bob")
    game = placed_game(yellow=ann, red=bob)
    api = client_for(ann if game.to_move == 0 else bob)
    assert api.get(f"/api/games/{game.pk}/").status_code == 200
    stale = api.post(f"/api/games/{game.pk}/roll/", {"ply": game.ply + 5, "change": "add", "reroll": []},
                     format="json")
    assert stale.status_code == 409, stale.content
    again = api.get(f"/api/games/{game.pk}/")
    assert again.status_code == 200 and again.json()["ply"] == game.ply
    assert {"token", "game", "history"} <= set(prepared())


@pytest.mark.parametrize(("value", "threshold"), [(None, 0), ("false", None)])
def test_database_prepared_turns_them_off_for_a_pooler(tmp_path, value, threshold):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_PREPARED"}
    env.update(DJANGO_SETTINGS_MODULE="powerboats_site.settings", POWERBOATS_VAR_DIR=str(tmp_path),
               DATABASE_URL="postgres://nobody@127.0.0.1:5432/none")
    if value is not None:
        env["DATABASE_PREPARED"] = value
    code = ("import django, json; django.setup(); from django.conf import settings; "
            "print(json.dumps(settings.DATABASES['default'].get('OPTIONS', {}).get('prepare_threshold')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == threshold


@pytest.mark.django_db(transaction=True)
def test_a_column_whose_type_changes_under_a_prepared_read_is_read_again_on_a_new_connection():
    """A migration run while the site serves (accounts 0010 changed the length of a player's time
    zone) makes PostgreSQL refuse a prepared read of the old columns every time, until the
    connection ends: outside a transaction the read is made again on a new connection."""
    import psycopg

    game = placed_game(yellow=make_user("ann"), red=make_user("bob"))
    assert game_and_seats(game.pk) is not None and "game" in prepared()
    db = connection.settings_dict
    other = psycopg.connect(host=db["HOST"] or None, port=db["PORT"] or None, user=db["USER"] or None,
                            dbname=db["NAME"], autocommit=True)
    try:
        other.execute("ALTER TABLE accounts_user ALTER COLUMN time_zone TYPE varchar(74)")
        for _ in range(2):
            loaded, seats = game_and_seats(game.pk)
            assert loaded.pk == game.pk and [s.user.username for s in seats] == ["ann", "bob"]
        assert "game" in prepared(), "prepared again, on the new connection"
    finally:
        other.execute("ALTER TABLE accounts_user ALTER COLUMN time_zone TYPE varchar(64)")
        other.close()


def test_without_time_zones_the_reads_give_times_as_django_does(settings):
    game = placed_game(yellow=make_user("ann"), red=make_user("bob"))
    aware = game_and_seats(game.pk)[0].started_at
    settings.USE_TZ = False  # Django's setting_changed receiver gives the connection its new zone
    loaded, _ = game_and_seats(game.pk)
    orm = Game.objects.get(pk=game.pk)
    assert loaded.started_at == orm.started_at and loaded.started_at.tzinfo is None and aware.tzinfo is not None
