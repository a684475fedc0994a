"""Backup and restore as docs/backup.md says, its commands run as written there: a site with a
finished game, a resigned one and a finished series of three players is backed up while another
game is being played move after move (the site running), the backup is restored in a fresh
place, and ``verify_games``, run there as a command, finds every game whole, the series (a game
of the boxed rules) among them. On the embedded default (SQLite in POWERBOATS_VAR_DIR, WAL mode), and on
PostgreSQL with pg_dump -Fc and pg_restore into a new database, dropped afterwards."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.sqlite_copy import copy_sqlite

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "backup.md").read_text(encoding="utf-8")

# The blocks of docs/backup.md, run as they are written (``.venv/bin/python`` being this interpreter
# and ``manage.py`` this checkout's).
SQLITE_BACKUP = """\
mkdir -p backups && chmod 700 backups
.venv/bin/python -c 'import sqlite3, sys; src, dst = sqlite3.connect(sys.argv[1]), sqlite3.connect(sys.argv[2]); \
src.backup(dst); dst.close()' var/db.sqlite3 backups/db.sqlite3
cp -p var/secret_key backups/secret_key
cp -p var/vapid_private_key.pem backups/vapid_private_key.pem
"""
SQLITE_VACUUM = """sqlite3 -cmd ".timeout 10000" var/db.sqlite3 "VACUUM INTO 'backups/db-vacuumed.sqlite3'"\n"""
SQLITE_CHECK = """sqlite3 backups/db.sqlite3 "PRAGMA integrity_check"    # prints ok\n"""
SQLITE_RESTORE = """\
mkdir -p var
rm -f var/db.sqlite3-wal var/db.sqlite3-shm
cp backups/db.sqlite3 var/db.sqlite3
cp -p backups/secret_key var/secret_key
cp -p backups/vapid_private_key.pem var/vapid_private_key.pem
.venv/bin/python manage.py migrate --noinput
"""
PG_BACKUP = """\
mkdir -p backups && chmod 700 backups
pg_dump -Fc -f backups/powerboats.pgdump "$DATABASE_URL"
"""
PG_RESTORE = """\
createdb -T template0 -O "$SITE_ROLE" powerboats_restored
pg_restore --no-owner --single-transaction -d "$NEW_DATABASE_URL" backups/powerboats.pgdump
DATABASE_URL=$NEW_DATABASE_URL .venv/bin/python manage.py migrate --noinput
"""

# Played through the services, as the site plays (tests/games/factories.py, series_play.py).
POPULATE = """
import random, django
django.setup()
from games import services
from tests.games.factories import make_user, placed_game, play_until
from tests.games.series_play import play
ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
assert play_until(placed_game(yellow=ann, red=bob, seed=3), lambda g: False).over
resigned = play_until(placed_game(yellow=bob, red=cid, seed=5), lambda g: g.ply >= 20)
services.game_resign(user=cid, game_id=resigned.pk)
series = services.game_open(user=ann, seats=3)
services.game_join(user=bob, game_id=series.pk)
services.game_join(user=cid, game_id=series.pk, rng=random.Random(16))
assert play(series.pk).status == "finished"
"""
# "The site running": a game played move after move, a new one when it ends, until told to stop.
WRITER = """
import sys, django
from pathlib import Path
django.setup()
from tests.games.factories import greedy_action, make_user, placed_game
stop = Path(sys.argv[1])
dan, eve = make_user("dan"), make_user("eve")
game, seed = placed_game(yellow=dan, red=eve, seed=7), 7
greedy_action(game)
print("writing", flush=True)
while not stop.exists():
    game.refresh_from_db()
    if game.over:
        seed += 1
        game = placed_game(yellow=dan, red=eve, seed=seed)
    else:
        greedy_action(game)
"""


def site_env(var: Path, **extra: str) -> dict[str, str]:
    """A site's environment: its own POWERBOATS_VAR_DIR, this checkout's code, nothing sent."""
    clean = {k: v for k, v in os.environ.items() if k not in {
        "DATABASE_URL", "CELERY_BROKER_URL", "EMAIL_URL", "SECRET_KEY", "DEBUG", "CACHE_URL", "POWERBOATS_VAR_DIR"}}
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**clean, "DJANGO_SETTINGS_MODULE": "powerboats_site.settings", "POWERBOATS_VAR_DIR": str(var),
            "PYTHONPATH": path, "EMAIL_URL": "memorymail://", "LOG_LEVEL": "WARNING", **extra}


def run(args: list[str], env: dict[str, str], cwd: Path = ROOT) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done.stdout


def documented(block: str, cwd: Path, env: dict[str, str], **names: str) -> str:
    """Run a block of docs/backup.md in ``cwd`` as the page has it (``names`` renamed in it)."""
    assert block in DOC, "docs/backup.md no longer says this: the test runs the page's commands"
    script = re.sub(r"\.venv/bin/python( manage\.py)?",
                    lambda m: sys.executable + (f" {ROOT / 'manage.py'}" if m.group(1) else ""), block)
    for old, new in names.items():
        script = script.replace(old, new)
    return run(["bash", "-euo", "pipefail", "-c", script], env, cwd)


@contextmanager
def playing(env: dict[str, str], tmp_path: Path) -> Iterator[None]:
    """A game being played while the block runs (its first move made before)."""
    stop = tmp_path / "stop-writing"
    with open(tmp_path / "writer.log", "w") as log:
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(stop)], cwd=ROOT, env=env,
                                  stdout=subprocess.PIPE, stderr=log, text=True)
        try:
            assert writer.stdout is not None and writer.stdout.readline() == "writing\n", (
                (tmp_path / "writer.log").read_text())
            yield
            stop.touch()
            assert writer.wait(timeout=300) == 0, (tmp_path / "writer.log").read_text()
        finally:
            if writer.poll() is None:
                writer.kill()
                writer.wait()


# every game, and the finished series among them (a game of the boxed rules)
COUNTS = "SELECT COUNT(*), COUNT(CASE WHEN ruleset = 'boxed' AND status = 'finished' THEN 1 END) FROM games_game"


def assert_restored_copy_verifies(env: dict[str, str], games: int, series: int) -> None:
    """verify_games on the restored copy: every game and the series whole."""
    assert series == 1  # the series played out before the backup
    assert games >= 4  # the two games played before the backup, the series, and the one being played
    manage = [sys.executable, str(ROOT / "manage.py")]
    assert run([*manage, "verify_games"], env).strip() == f"{games} games checked, 0 with a mismatch"


@pytest.mark.slow
def test_sqlite_backed_up_while_a_game_is_played_restores_elsewhere_and_verifies(tmp_path, migrated_sqlite):
    """The embedded default: the database copied by SQLite's online backup API and by VACUUM
    INTO while the site writes (its write-ahead log holding commits the main file has not),
    each copy restored with the secret key into a fresh var/ and checked there."""
    site = tmp_path / "site"
    env = site_env(site / "var")
    copy_sqlite(migrated_sqlite, site / "var" / "db.sqlite3")  # a fresh database, migrated (tests/conftest.py)
    run([sys.executable, "-c", POPULATE], env)
    vacuum = shutil.which("sqlite3") is not None  # the Python one needs nothing but the standard library
    with playing(env, tmp_path):
        assert (site / "var" / "db.sqlite3-wal").stat().st_size > 0  # a cp of db.sqlite3 would miss commits
        documented(SQLITE_BACKUP, site, env)
        if vacuum:
            documented(SQLITE_VACUUM, site, env)
    copies = {"backup": site / "backups" / "db.sqlite3"}
    if vacuum:
        assert documented(SQLITE_CHECK, site, env).strip() == "ok"
        copies["vacuum"] = site / "backups" / "db-vacuumed.sqlite3"
    for how, copy in copies.items():
        elsewhere = tmp_path / f"restored-{how}"
        (elsewhere / "backups").mkdir(parents=True)
        shutil.copy(copy, elsewhere / "backups" / "db.sqlite3")
        for key in ("secret_key", "vapid_private_key.pem"):
            shutil.copy(site / "backups" / key, elsewhere / "backups" / key)
        restored = site_env(elsewhere / "var")
        documented(SQLITE_RESTORE, elsewhere, restored)
        for key in ("secret_key", "vapid_private_key.pem"):  # the same keys: sessions, links, devices still work
            assert (elsewhere / "var" / key).read_text() == (site / "var" / key).read_text()
        with sqlite3.connect(elsewhere / "var" / "db.sqlite3") as db:
            games, series = db.execute(COUNTS).fetchone()
        assert_restored_copy_verifies(restored, games, series)


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_postgres_dumped_while_a_game_is_played_restores_into_a_new_database_and_verifies(tmp_path):
    """pg_dump -Fc of the (test) database while a game is played, pg_restore into a new
    database made for the test, then the same checks there; the new database is dropped."""
    import psycopg
    from django.db import connection

    db = connection.settings_dict
    password = f":{quote(db['PASSWORD'], safe='')}" if db.get("PASSWORD") else ""
    server = f"postgres://{quote(db['USER'], safe='')}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    env = site_env(tmp_path / "var", DATABASE_URL=f"{server}/{db['NAME']}")
    run([sys.executable, "-c", POPULATE], env)
    with playing(env, tmp_path):
        documented(PG_BACKUP, tmp_path, env)
    name = f"powerboats_restore_{secrets.token_hex(6)}"
    restored = site_env(tmp_path / "var", DATABASE_URL=f"{server}/{name}")
    server_env = {**env, "PGHOST": db["HOST"] or "127.0.0.1", "PGPORT": str(db["PORT"] or 5432), "PGUSER": db["USER"],
                  **({"PGPASSWORD": db["PASSWORD"]} if db.get("PASSWORD") else {})}
    try:
        documented(PG_RESTORE, tmp_path, {**server_env, "SITE_ROLE": db["USER"], "NEW_DATABASE_URL": restored[
            "DATABASE_URL"]}, powerboats_restored=name)
        with psycopg.connect(restored["DATABASE_URL"]) as pg:
            games, series = pg.execute(COUNTS).fetchone()
        assert_restored_copy_verifies(restored, games, series)
    finally:
        subprocess.run(["dropdb", "--if-exists", name], env=server_env, capture_output=True, timeout=120)
