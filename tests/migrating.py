"""The database as an earlier version of the code left it, for the tests of the data migrations
(tests/games/test_history_migration.py, test_series_rules_version_migration.py,
tests/migration/test_one_game_migration.py): they write rows as the old code wrote them, then
migrate to the latest state and check what came out.

``executor.migrate(targets)`` from the latest state gets there by undoing every later migration,
one by one, each rendering the models' states: ~9 s of CPU to go back to the games app's
migration 0003, where applying from an empty database the migrations that lead to the same
state takes ~1 s. :func:`database_at` does that: it works out which migrations
``executor.migrate(targets)`` would leave applied, empties the database and applies them."""

from __future__ import annotations

from collections.abc import Sequence

from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

Node = tuple[str, str]


def database_at(targets: Sequence[Node]) -> MigrationExecutor:
    """The test database emptied and migrated forward to the state that migrating back to
    ``targets`` would leave (the same migrations applied); an executor loaded on it."""
    executor = MigrationExecutor(connection)
    undone = {(migration.app_label, migration.name) for migration, _ in executor.migration_plan(list(targets))}
    applied = set(executor.loader.applied_migrations) - undone
    graph = executor.loader.graph
    leaves = sorted(node for node in applied if not any(child.key in applied for child in graph.node_map[node].children))
    _drop_every_table()
    call_command("createcachetable", verbosity=0)  # no migration makes it (Django's test database has it)
    executor = MigrationExecutor(connection)
    executor.migrate(leaves)
    executor.loader.build_graph()
    assert set(executor.loader.applied_migrations) == applied, "not the state migrating back would leave"
    return executor


def _drop_every_table() -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("DROP SCHEMA public CASCADE")
            cursor.execute("CREATE SCHEMA public")
        else:
            cursor.execute("PRAGMA foreign_keys = OFF")
            for table in connection.introspection.table_names(cursor):
                cursor.execute(f'DROP TABLE "{table}"')
            cursor.execute("PRAGMA foreign_keys = ON")
