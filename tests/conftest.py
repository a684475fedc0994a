"""Shared test setup: service markers (PostgreSQL, Redis, chromium) and output folder."""

from __future__ import annotations

import fcntl
import gc
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings

from tests.sqlite_copy import copy_sqlite

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "test-output"
REQUIRE = os.environ.get("POWERBOATS_REQUIRE_SERVICES") == "1"


def _redis_up() -> bool:
    url = settings.CELERY_BROKER_URL
    if not url.startswith("redis://"):
        return False
    host_port = url.split("//", 1)[1].split("/", 1)[0].split("@")[-1]
    host, _, port = host_port.partition(":")
    try:
        socket.create_connection((host or "127.0.0.1", int(port or 6379)), timeout=1).close()
        return True
    except OSError:
        return False


def _missing(marker: str) -> str | None:
    if marker == "postgres" and settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return "needs DATABASE_URL=postgres://..."
    if marker == "redis" and not _redis_up():
        return "needs CELERY_BROKER_URL=redis://... with Redis running"
    if marker == "browser" and not shutil.which("chromium") and not Path("/usr/bin/chromium").exists():
        return "needs Debian's chromium (apt-get install chromium)"
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a parallel run (bin/test: pytest-xdist, ``--dist loadgroup``) the browser tests go to
    one worker, one after another: two Chromiums with their servers on two cores are the load
    under which a page misses its waits, and the rest of the suite fills the other worker.
    ``tryfirst``: xdist names each test's group from its marks in this same hook; run after it, as
    this one did before, the mark came too late and the browser tests were spread over both workers."""
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group("browser"))
        if config.getvalue("loadgroup") if hasattr(config.option, "loadgroup") else False:
            _group_in_node_id(item)


class SlowFirst:
    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        _slow_first(items)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SlowFirst(), "slow-first")
    _static_files_listed_once_per_process()
    # Playwright's driver (Node) keeps what it compiled for its next start: 0.55 → 0.43 s of CPU
    # a start here, some 35 starts a run (each browser test starts its own)
    os.environ.setdefault("NODE_COMPILE_CACHE", str(Path(tempfile.gettempdir()) / "powerboats-node-compile-cache"))


def _static_files_listed_once_per_process() -> None:
    """The test client builds the site's middleware anew for each client (one a test, from
    pytest-django's ``client`` fixture), and WhiteNoise (``WHITENOISE_USE_FINDERS``) then lists and
    stats every static file the finders know again: ~28 ms of CPU each time on a slow machine, 493
    times over tests/games and tests/tournaments. In a process the list is the same each time for
    the same settings, so it is made once per settings that shape it and copied into the next
    middleware; a site process builds its middleware once and is not touched by this."""
    from django.conf import settings
    from whitenoise.middleware import WhiteNoiseMiddleware

    list_files = WhiteNoiseMiddleware.add_files_from_finders
    listed: dict[tuple[object, ...], dict[str, object]] = {}

    def add_files_from_finders(self: WhiteNoiseMiddleware) -> None:
        key = (self.static_prefix, self.max_age, self.allow_all_origins, self.charset, self.index_file,
               repr([(name, getattr(settings, name)) for name in sorted(dir(settings)) if name.startswith("WHITENOISE_")]),
               repr(settings.STATICFILES_DIRS), tuple(settings.INSTALLED_APPS), tuple(settings.STATICFILES_FINDERS),
               repr(settings.STORAGES))
        if key not in listed:
            before = dict(self.files)
            list_files(self)
            listed[key] = {url: found for url, found in self.files.items() if before.get(url) is not found}
        else:
            self.files.update(listed[key])

    WhiteNoiseMiddleware.add_files_from_finders = add_files_from_finders  # type: ignore[method-assign]


def pytest_collection_finish(session: pytest.Session) -> None:
    """Python's cyclic garbage collector, tuned for a test process: the young generation is
    collected every 50,000 allocations instead of 700, the older ones less often in turn (the
    tests make many short-lived objects and few cycles). A worker's own CPU over tests/games's
    tests that start no process of their own: 74.6 and 76.1 s against 86.6 and 79.6 s untuned;
    freezing what was loaded as well gained nothing more (81.5, 73.6 s), and it slowed a served
    page in-process by a quarter (docs/performance.md, "The test suite's time")."""
    gc.set_threshold(50_000, 20, 100)


def _slow_first(items: list[pytest.Item]) -> None:
    """The slow tests (mark ``slow``) are handed out first (after the groups, which xdist sends
    first, the largest first), those that use no test database before the others: they serve
    the site from processes of their own (bin/run twice, the soak, supervise, the benches' tiny
    runs) and wait on them, which leaves room for the rest beside them. So the run does not end
    with one worker on a long test while the others have nothing left to do. ``trylast``: after
    pytest-django's own order (tests in a transaction, then transactional ones, then those
    without the database), which had put those process tests at the very end of a CI run, on a
    machine left half idle for its last minute."""
    def rank(item: pytest.Item) -> int:
        if not item.get_closest_marker("slow"):
            return 2
        return 1 if _uses_the_test_database(item) else 0

    items.sort(key=rank)  # stable: otherwise in pytest-django's order


def _group_in_node_id(item: pytest.Item) -> None:
    """What pytest-xdist (3.8) does for ``--dist loadgroup`` in an xdist worker: the group's name
    after an ``@`` at the end of the test's id, by which the scheduler keeps a group together. xdist
    assigns ``item._nodeid``, which pytest 9 no longer reads (an item's id is ``item._id``): there
    its groups never formed, and the browser tests ran on both workers at once."""
    names = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                    for mark in item.iter_markers("xdist_group")})
    if not names or "@" in item.nodeid.rsplit("]", 1)[-1] or not hasattr(item, "_id"):
        return
    from _pytest.nodeid import NodeId

    item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(names)}")


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in ("postgres", "redis", "browser"):
        if item.get_closest_marker(marker):
            why = _missing(marker)
            if why:
                if REQUIRE:
                    pytest.fail(f"POWERBOATS_REQUIRE_SERVICES=1 but this test {why}")
                pytest.skip(why)


DB_FIXTURES = {"db", "transactional_db", "live_server", "django_db_reset_sequences", "django_db_serialized_rollback"}
# the rows the data migrations make on a new database: the house bots, The Competition
DATA_MIGRATIONS = [("accounts.migrations.0004_house_bots", "create_bots"),
                   ("tournaments.migrations.0006_the_competition", "create")]


def _uses_the_test_database(item: pytest.Item) -> bool:
    """The test has the django_db mark or a fixture that gives it the database."""
    return bool(item.get_closest_marker("django_db") or DB_FIXTURES & set(getattr(item, "fixturenames", ())))


@pytest.fixture(autouse=True)
def _the_sites_language_again() -> Iterator[None]:
    """Each test starts in the site's language. A request through the test client by a player who
    chose German or Italian leaves that language active in the thread after the response (the
    player's language is activated for the request, common.middleware, and nothing deactivates it:
    in a server the next request activates its own); a CI run found a later test on the same
    worker reading a refusal in German."""
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture(autouse=True)
def _what_the_data_migrations_made(request: pytest.FixtureRequest) -> None:
    """Every test with the database starts with the rows the data migrations make, as on a
    database just migrated. A transactional test (transaction=True: the browser tests with their
    live_server, a few others) ends with a flush that empties every table; pytest-django runs those
    tests last, but xdist hands out the groups first (the browser tests), so a test run after one
    on the same worker found no house bot (test_advice.py failed so). Put back when missing, in the
    test's own transaction (a transactional test's flush removes them again)."""
    if not _uses_the_test_database(request.node):
        return
    request.getfixturevalue("_django_db_helper")  # what pytest-django's django_db mark asks for (once)
    import importlib

    from django.apps import apps

    if apps.get_model("accounts", "User").objects.filter(username="bot-easy").exists():
        return
    for module, function in DATA_MIGRATIONS:
        getattr(importlib.import_module(module), function)(apps, None)


@pytest.fixture
def output_dir() -> Path:
    OUTPUT.mkdir(exist_ok=True)
    return OUTPUT



@contextmanager
def _tasks_in_this_thread() -> Iterator[None]:
    from powerboats_site.celery import app

    old = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = old


@pytest.fixture
def eager() -> Iterator[None]:
    """Celery runs tasks in the calling thread (as on_commit callbacks, when those are executed)."""
    with _tasks_in_this_thread():
        yield


@pytest.fixture(scope="module")
def eager_for_the_module() -> Iterator[None]:
    """As ``eager``, for the data a module-scoped fixture makes."""
    with _tasks_in_this_thread():
        yield


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """A SQLite database of the embedded default, migrated and with its cache table, made once
    per run (the xdist workers share it: the first makes it, the other waits for it). The tests
    that serve the site from a var/ of their own start from a copy (tests/sqlite_copy.py) instead
    of migrating afresh, which took some 12 s of CPU each time, several times a run; the
    migrations themselves are tested by pytest-django's test databases and tests/migration."""
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent  # the run's folder, above each worker's own
    folder = shared / "migrated-sqlite"
    folder.mkdir(exist_ok=True)
    database = folder / "db.sqlite3"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "done").exists():
            env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")}
            env.update(POWERBOATS_VAR_DIR=str(folder / "var"), DJANGO_SETTINGS_MODULE="powerboats_site.settings",
                       SECRET_KEY="migrated-sqlite-not-secret", LOG_LEVEL="WARNING")
            subprocess.run([sys.executable, "manage.py", "prepare", "--database-only", "-v0"], cwd=ROOT, env=env, check=True)
            copy_sqlite(folder / "var" / "db.sqlite3", database)
            (folder / "done").touch()
    return database



@pytest.fixture(scope="session")
def migrated_postgres(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> str:
    """The name of a PostgreSQL database on the suite's server (``<DATABASE_URL's name>_migrated``),
    migrated once per run, for the benches' tiny runs to copy (``BENCH_DB_TEMPLATE``: CREATE
    DATABASE … TEMPLATE) instead of migrating a database of their own afresh (some 20 s each, four
    times a run); they still run migrate, which finds nothing left to do."""
    import psycopg

    url = os.environ["DATABASE_URL"]
    base, name = url.rsplit("/", 1)
    template = f"{name.split('?')[0]}_migrated"
    shared = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        shared = shared.parent  # the run's folder, above each worker's own
    folder = shared / "migrated-postgres"
    folder.mkdir(exist_ok=True)
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "done").exists():
            with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')
                conn.execute(f'CREATE DATABASE "{template}"')
            env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "CACHE_URL")}
            env.update(DATABASE_URL=f"{base}/{template}", POWERBOATS_VAR_DIR=str(folder / "var"),
                       DJANGO_SETTINGS_MODULE="powerboats_site.settings", CELERY_BROKER_URL="memory://",
                       SECRET_KEY="migrated-postgres-not-secret", LOG_LEVEL="WARNING")
            subprocess.run([sys.executable, "manage.py", "prepare", "--database-only", "-v0"], cwd=ROOT, env=env, check=True)
            (folder / "done").touch()
    return template


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None,
                                 request: pytest.FixtureRequest) -> None:
    """On PostgreSQL each worker's test database is a copy of ``migrated_postgres`` (Django's TEST
    TEMPLATE): pytest-django then runs migrate on it as always, which finds nothing left to do,
    instead of the whole 20 s once per worker.

    On SQLite each worker's test database is a file, as the embedded default's is (WAL, and a
    writer waits for the lock: settings.py). Django's default, a database in memory, is shared
    between threads through SQLite's shared cache, whose table locks fail at once instead: the
    live server's threads writing together answered 500s ("database table is locked"; one run in
    three of tests/games/test_social_browser.py lost Bob's rematch so)."""
    engine = settings.DATABASES["default"]["ENGINE"]
    if engine == "django.db.backends.postgresql" and os.environ.get("DATABASE_URL"):
        template = request.getfixturevalue("migrated_postgres")
        settings.DATABASES["default"].setdefault("TEST", {})["TEMPLATE"] = template
    elif engine == "django.db.backends.sqlite3":
        folder = request.getfixturevalue("tmp_path_factory").mktemp("test-database")
        settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = str(folder / "test.sqlite3")


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None) -> Iterator[None]:
    """pytest-django's, and before it drops the test databases: close the connections that
    database work done while an event loop ran in a test's thread left open (Playwright's sync
    API, the streams' handler called in-process). Django keeps those per context then (asgiref's
    ``Local``), so nothing else closes them, and every full run ended with a test database that
    could not be dropped ("being accessed by other users")."""
    yield
    from django.db.backends.base.base import BaseDatabaseWrapper

    for wrapper in [o for o in gc.get_objects() if issubclass(type(o), BaseDatabaseWrapper)]:
        if wrapper.connection is not None:
            wrapper.connection.close()  # the driver's own: the wrapper may belong to another thread
            wrapper.connection = None
