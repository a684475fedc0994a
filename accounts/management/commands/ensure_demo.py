"""Create the demo account (and keep its password) so a newcomer can log in at once."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from accounts.services import user_ensure_demo


class Command(BaseCommand):
    help = "Create or reset the demo account (username and password 'demo')."

    def handle(self, *args: Any, **options: Any) -> None:
        user = user_ensure_demo()
        self.stdout.write(f"demo account: username {user.username!r}, password 'demo'")
