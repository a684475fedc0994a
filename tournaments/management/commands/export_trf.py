"""Write a tournament's FIDE TRF-16 (docs/tournaments.md)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.models import Tournament
from tournaments.selectors import tournament_trf_export


class Command(BaseCommand):
    help = "Print (or write) the TRF-16 of a tournament: the closed rounds, ranks filled in."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("tournament_id", type=int)
        parser.add_argument("--out", help="a file instead of standard output")

    def handle(self, *args: Any, **options: Any) -> None:
        t = Tournament.objects.filter(pk=options["tournament_id"]).first()
        if t is None:
            raise CommandError(f"no tournament {options['tournament_id']}")
        text = tournament_trf_export(t)
        if options["out"]:
            with open(options["out"], "w", encoding="utf-8") as handle:
                handle.write(text)
        else:
            self.stdout.write(text, ending="")
