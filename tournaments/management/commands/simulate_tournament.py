"""Simulate a whole Swiss tournament and write its TRF (docs/tournaments.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from tournaments.selectors import tournament_trf_export
from tournaments.simulate import simulate


class Command(BaseCommand):
    help = "Register N players with random ratings, play R rounds with random results, write the TRF."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--rounds", type=int, required=True)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--out", required=True, help="the TRF file to write")
        parser.add_argument("--draws", type=float, default=0.15, help="share of drawn games")
        parser.add_argument("--forfeits", type=float, default=0.0, help="share of games lost by forfeit")
        parser.add_argument("--withdrawals", type=int, default=0, help="players who withdraw during the event")
        parser.add_argument("--late-entries", type=int, default=0, help="players who join after the start")
        parser.add_argument("--byes", type=int, default=0,
                            help="requested byes set before the start, in random rounds (round 1 included)")
        parser.add_argument("--course-mode", choices=["duplicate", "random"], default="duplicate")

    def handle(self, *args: Any, **o: Any) -> None:
        t = simulate(players=o["players"], rounds=o["rounds"], seed=o["seed"], draws=o["draws"],
                     forfeits=o["forfeits"], withdrawals=o["withdrawals"], late_entries=o["late_entries"], byes=o["byes"],
                     course_mode=o["course_mode"])
        Path(o["out"]).write_text(tournament_trf_export(t), encoding="utf-8")
        self.stdout.write(f"tournament {t.pk} ({t.name}): {t.registrations.count()} players, {t.rounds} rounds, "
                          f"{t.status}; TRF written to {o['out']}")
