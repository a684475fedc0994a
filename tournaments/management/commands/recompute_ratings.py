"""Rebuild every rating from the game history, in order, and report differences."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.ratings.services import recompute_all
from games.selectors import rated_games_in_order


class Command(BaseCommand):
    help = "Replay all rated games in order; report any stored rating that differs (exit 1). --write replaces them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--write", action="store_true", help="store the replayed ratings and history")

    def handle(self, *args: Any, **options: Any) -> None:
        start = time.perf_counter()
        problems = recompute_all(rated_games_in_order().iterator(chunk_size=2000), write=options["write"])
        for line in problems[:50]:
            self.stdout.write(line)
        self.stdout.write(f"{len(problems)} difference(s); {time.perf_counter() - start:.1f} s")
        if problems and not options["write"]:
            raise CommandError(f"{len(problems)} stored rating(s) differ from the replay of the games")
