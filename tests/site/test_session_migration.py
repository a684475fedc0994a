"""accounts 0016 moves the sessions into accounts.PlayerSession: every session that has not
expired is copied with its player's id, so that nobody is logged out by the deployment."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore as DjangoStore
from django.contrib.sessions.models import Session
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.utils import timezone
from django.utils.crypto import salted_hmac

from tests.migrating import database_at

pytestmark = pytest.mark.django_db(transaction=True)
BEFORE = [("accounts", "0015_weekend_pause_and_auto_vacation")]


@pytest.mark.slow
def test_sessions_are_copied_with_their_players():
    executor = database_at(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    User = apps.get_model("accounts", "User")
    player = User.objects.create(username="stayer", name_key="stayer", email="s@example.com",
                                 password="pbkdf2_sha256$1$salt$notarealhash=")
    old = DjangoStore()  # the store sessions were saved with before (Django's table)
    old[SESSION_KEY], old[BACKEND_SESSION_KEY] = str(player.pk), "accounts.backends.PlayerBackend"
    # what AbstractBaseUser.get_session_auth_hash says (a migration's model has no such method)
    old[HASH_SESSION_KEY] = salted_hmac("django.contrib.auth.models.AbstractBaseUser.get_session_auth_hash",
                                        player.password, algorithm="sha256").hexdigest()
    old.create()
    anonymous = DjangoStore()
    anonymous["seen"] = True
    anonymous.create()
    expired = DjangoStore()
    expired["seen"] = True
    expired.set_expiry(timezone.now() + timedelta(seconds=1))
    expired.create()
    Session.objects.filter(pk=expired.session_key).update(
        expire_date=timezone.now() - timedelta(days=1))

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    from accounts.models import PlayerSession

    rows = {row.session_key: row.user_id for row in PlayerSession.objects.all()}
    assert rows == {old.session_key: player.pk, anonymous.session_key: None}, "the expired one is not copied"
    client = Client()
    client.cookies["sessionid"] = old.session_key
    assert client.get("/help/").context["user"].username == "stayer", "still logged in"
