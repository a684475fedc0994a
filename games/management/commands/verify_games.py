"""Check that every game's stored state equals the replay of its history (every game, of every
ruleset: a two-player game and a series of the boxed game alike)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine.record import verify as verify_record
from games.models import Game
from games.state import record_of, verify


class Command(BaseCommand):
    help = ("Replay every game's history through the rules and compare it with the stored state, and check its record; "
            "exits 1 on a mismatch.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_ids", nargs="*", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        games = Game.objects.order_by("pk")
        if options["game_ids"]:
            games = games.filter(pk__in=options["game_ids"])
        bad = 0
        count = 0
        for game in games.iterator(chunk_size=200):
            count += 1
            problem = check_game(game)
            if problem:
                bad += 1
                self.stdout.write(f"game {game.pk}: {problem}")
        self.stdout.write(f"{count} games checked, {bad} with a mismatch")
        if bad:
            raise CommandError(f"{bad} game(s) differ from the replay of their moves")


def check_game(game: Game) -> str | None:
    """None when the history replays by the rules, every roll is the seed's, the stored state
    equals the replay and the record (docs/game-record.md) verifies; else what differs."""
    seats = list(game.seats.select_related("user"))
    rows = list(game.moves.order_by("ply"))
    problem = verify(game, seats, rows)
    if problem or game.status in (Game.Status.OPEN, Game.Status.CANCELLED):
        return problem
    result = verify_record(record_of(game, rows, seats))
    return None if result.ok else f"its record does not verify: {result.message}"
