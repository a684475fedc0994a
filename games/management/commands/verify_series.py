"""Check every started series: its history replays, each roll is the committed seed's, and the
stored state equals the replay (as verify_games does for two-player games)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from games.models_series import SeriesGame
from games.services_series import verify


class Command(BaseCommand):
    help = "Replay every series and compare it with its stored state."

    def handle(self, *args: Any, **options: Any) -> None:
        bad = 0
        count = 0
        for series in SeriesGame.objects.exclude(status__in=["open", "cancelled"]).order_by("pk").iterator():
            count += 1
            problem = verify(series)
            if problem:
                bad += 1
                self.stderr.write(f"series {series.pk}: {problem}")
        if bad:
            raise CommandError(f"{bad} of {count} series differ from their history")
        self.stdout.write(f"ok: {count} series replay")
