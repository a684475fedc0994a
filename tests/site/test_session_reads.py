"""The two reads every page starts with — the session (powerboats_site.sessions) and its player
(accounts.backends.PlayerBackend) — are put together once per process instead of by the ORM.
They must answer as Django's own do: the same data, nobody for an expired session, an inactive
or deleted player, or a changed password."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore as DjangoStore
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.backends import PlayerBackend
from powerboats_site.sessions import SessionStore

pytestmark = pytest.mark.django_db
PASSWORD = "a long enough password 1"


def test_a_session_reads_as_djangos_own_store_reads_it():
    store = SessionStore()
    store.update({"a": 1, "words": "ünïcode", "nested": {"x": [1, 2]}})
    store.create()
    ours, djangos = SessionStore(store.session_key), DjangoStore(store.session_key)
    assert ours.load() == djangos.load() == {"a": 1, "words": "ünïcode", "nested": {"x": [1, 2]}}
    assert ours.session_key == store.session_key


def test_an_expired_or_unknown_session_is_empty_and_its_key_forgotten():
    store = SessionStore()
    store["a"] = 1
    store.create()
    Session.objects.filter(pk=store.session_key).update(expire_date=timezone.now() - timedelta(seconds=1))
    for key in (store.session_key, "no-such-session-key-0123456789ab"):
        again = SessionStore(key)
        assert again.load() == {} and again.session_key is None


def test_the_backend_reads_the_player_as_the_orm_does():
    user = get_user_model().objects.create_user("reader", "r@example.com", PASSWORD, time_zone="Europe/Rome")
    with CaptureQueriesContext(connection) as queries:
        read = PlayerBackend().get_user(user.pk)
    orm = get_user_model().objects.get(pk=user.pk)
    assert len(queries.captured_queries) == 1
    for field in get_user_model()._meta.concrete_fields:
        assert getattr(read, field.attname) == getattr(orm, field.attname), field.name
    assert PlayerBackend().get_user(10**9) is None
    get_user_model().objects.filter(pk=user.pk).update(is_active=False)
    assert PlayerBackend().get_user(user.pk) is None, "an inactive player is nobody (user_can_authenticate)"


def test_a_logged_in_player_sees_pages_until_logged_out_deactivated_or_their_password_changes():
    user = get_user_model().objects.create_user("walker", "w@example.com", PASSWORD)
    client = Client()
    response = client.post("/accounts/login/", {"username": "walker", "password": PASSWORD})
    assert response.status_code == 302
    session = SessionStore(client.cookies["sessionid"].value)
    assert session[BACKEND_SESSION_KEY] == "accounts.backends.PlayerBackend"
    assert client.get("/").context["user"] == user
    assert client.get("/games/").status_code == 200
    user.set_password("another long password 2")
    user.save()
    assert not client.get("/").context["user"].is_authenticated, "a changed password ends other sessions"
    client.post("/accounts/login/", {"username": "walker", "password": "another long password 2"})
    assert client.get("/").context["user"] == user
    get_user_model().objects.filter(pk=user.pk).update(is_active=False)
    assert not client.get("/").context["user"].is_authenticated
    get_user_model().objects.filter(pk=user.pk).update(is_active=True)
    client.post("/accounts/login/", {"username": "walker", "password": "another long password 2"})
    client.post("/accounts/logout/")
    assert not client.get("/").context["user"].is_authenticated


def test_signing_up_logs_the_new_player_in():
    client = Client()
    response = client.post("/signup/", {"username": "newcomer", "email": "n@example.com",
                                        "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302, response.content[:500]
    assert client.get("/").context["user"].username == "newcomer"
