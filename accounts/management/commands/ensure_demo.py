"""Create the demo account (and keep its password) so a newcomer can log in at once."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from accounts.services import user_ensure_demo, user_ensure_house_bots


class Command(BaseCommand):
    help = "Create or reset the demo account (username and password 'demo'), and make sure the house bots exist."

    def handle(self, *args: Any, **options: Any) -> None:
        user = user_ensure_demo()
        bots = user_ensure_house_bots()
        self.stdout.write(f"demo account: username {user.username!r}, password 'demo'; "
                          f"house bots: {', '.join(b.username for b in bots)}")
