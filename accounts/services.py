"""Account services (writes)."""

from __future__ import annotations

from django.db import transaction

from .models import User

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo"


@transaction.atomic
def user_ensure_demo() -> User:
    """The demo player, created if missing; its password is reset to 'demo'."""
    user, _ = User.objects.get_or_create(username=DEMO_USERNAME, defaults={"email": "demo@example.invalid"})
    user.set_password(DEMO_PASSWORD)
    user.save(update_fields=["password"])
    return user
