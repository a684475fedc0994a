"""Bring the database up to date in one process (Django starts once): the system checks, migrate,
the cache's table and, unless ``--database-only``, ``ensure_demo`` (the house bots; the demo
account on the embedded default only). ``bin/run`` runs it before it starts the site, a release
runs it once (README "Production"); the API fuzz stage, the benches and the tests' template
databases run it with ``--database-only``."""

from __future__ import annotations

from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = ("Run the system checks, migrate, create the cache's table and (unless --database-only) make sure the "
            "house bots exist and the demo account exists only on the embedded default (ensure_demo).")
    requires_system_checks = []  # migrate runs them, before it touches the database (as manage.py migrate)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--database-only", action="store_true",
                            help="the tables and the cache's table only, no accounts (ensure_demo not run)")

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity = options["verbosity"]
        call_command("migrate", interactive=False, skip_checks=False, verbosity=verbosity)
        call_command("createcachetable", verbosity=verbosity)
        if not options["database_only"]:
            call_command("ensure_demo", verbosity=verbosity)
