"""Check that every game's stored state equals the replay of its moves."""

from __future__ import annotations

import itertools
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.engine.record import verify
from games.models import Game, Move
from games.state import record_of, state_of


class Command(BaseCommand):
    help = "Replay every game's history through the rules and compare with the stored state; exits 1 on a mismatch."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_ids", nargs="*", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        games = Game.objects.select_related("yellow", "red").order_by("pk")
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


def check_history(game: Game, rows: list[Move]) -> str | None:
    """The history has one row per ply up to the game's ply, and a roll followed by its turn
    says the same as the turn."""
    plies = [row.ply for row in rows]
    if plies != list(range(len(rows))) or len(rows) != game.ply:
        return f"the history has rows at plies {plies[:3]}…{plies[-3:]} for a game at ply {game.ply}"
    same = ("seat", "number", "choice", "dice_before", "rolled", "dice")
    for roll, after in itertools.pairwise(rows):
        if roll.kind == Move.Kind.ROLL and after.kind == Move.Kind.TURN:
            if any(getattr(roll, f) != getattr(after, f) for f in same):
                return f"the roll at ply {roll.ply} differs from the turn that follows it"
        elif after.kind == Move.Kind.TURN:
            return f"the turn at ply {after.ply} does not follow a roll"
    if game.over and game.termination in ("resign", "timeout", "adjudication"):
        if not rows or rows[-1].kind != Move.Kind.END or rows[-1].termination != game.termination:
            return f"the game ended by {game.termination} but its history does not end so"
    return None


def check_game(game: Game) -> str | None:
    """None when the history is whole and the stored state equals its replay, else what differs."""
    rows = list(game.moves.order_by("ply"))
    problem = check_history(game, rows)
    if problem:
        return problem
    record = record_of(game, rows)
    result = verify(record)
    if not result.ok:
        return result.message
    replayed = result.state
    stored = state_of(game)
    assert replayed is not None
    if replayed.boats != stored.boats:
        for a, b in zip(replayed.boats, stored.boats, strict=True):
            if a != b:
                diff = [f for f in a.__dataclass_fields__ if getattr(a, f) != getattr(b, f)]
                return f"{a.color}: stored {', '.join(f'{f}={getattr(b, f)!r}' for f in diff)}; replay gives {', '.join(f'{f}={getattr(a, f)!r}' for f in diff)}"
    for field in ("phase", "to_move", "ply", "outcome"):
        if getattr(replayed, field) != getattr(stored, field):
            return f"stored {field} {getattr(stored, field)!r}, replay gives {getattr(replayed, field)!r}"
    if (replayed.pending is None) != (stored.pending is None) or (
        replayed.pending and stored.pending and replayed.pending.dice != stored.pending.dice
    ):
        return "the pending roll differs from the replay"
    return None
