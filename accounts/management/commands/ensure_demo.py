"""Create the demo account (and keep its password) so a newcomer can log in at once: only on
the embedded default (``settings.DEMO_ACCOUNT``: SQLite and an http SITE_URL)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.services import user_disable_demo, user_ensure_demo, user_ensure_house_bots


class Command(BaseCommand):
    help = ("Make sure the house bots exist; on the embedded default (SQLite, http SITE_URL) create or reset the "
            "demo account (username and password 'demo'), elsewhere make sure it cannot log in.")

    def handle(self, *args: Any, **options: Any) -> None:
        bots = ", ".join(b.username for b in user_ensure_house_bots())
        if settings.DEMO_ACCOUNT:
            user = user_ensure_demo()
            self.stdout.write(f"demo account: username {user.username!r}, password 'demo'; house bots: {bots}")
            return
        disabled = user_disable_demo()
        self.stdout.write("no demo account: this is not the embedded default (the database is not SQLite or "
                          f"SITE_URL is https){'; the old one can no longer log in' if disabled else ''}; "
                          f"house bots: {bots}")
