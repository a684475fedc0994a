"""Recompute every roll of finished games from their revealed seeds (docs/fair-dice.md)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.fairdice import check_record
from games.models import Game
from games.state import record_of


class Command(BaseCommand):
    help = "Check that every roll of the given finished games follows from the committed seed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_ids", nargs="*", type=int, help="games to check (default: every finished game)")

    def handle(self, *args: Any, **options: Any) -> None:
        games = Game.objects.filter(status=Game.Status.FINISHED)
        if options["game_ids"]:
            games = games.filter(pk__in=options["game_ids"])
            missing = set(options["game_ids"]) - set(games.values_list("pk", flat=True))
            if missing:
                raise CommandError(f"no finished game {', '.join(map(str, sorted(missing)))} (the seed is revealed at the end)")
        bad = 0
        for game in games.order_by("pk"):
            problems = check_record(record_of(game))
            if problems:
                bad += 1
                self.stdout.write(f"game {game.pk}: " + "; ".join(problems))
            else:
                self.stdout.write(f"game {game.pk}: ok")
        if bad:
            raise CommandError(f"{bad} game(s) with dice that do not follow from their seed")
