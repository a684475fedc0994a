"""The read every page starts with — the session (powerboats_site.sessions, in
accounts.PlayerSession) and its player, in one query, handed to the backend
(accounts.backends.PlayerBackend) by accounts.middleware — is put together once per process
instead of by the ORM. It must answer as Django's own reads do: the same data, nobody for an
expired session, an inactive or deleted player, or a changed password."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore as DjangoStore
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.backends import READ_WITH_SESSION, PlayerBackend
from accounts.models import PlayerSession
from powerboats_site.sessions import SessionStore

pytestmark = pytest.mark.django_db
PASSWORD = "a long enough password 1"


class DjangoRead(DjangoStore):
    """Django's own store, reading our table with the ORM (under the name that signs the data)."""

    __qualname__ = "SessionStore"

    @classmethod
    def get_model_class(cls) -> type[PlayerSession]:
        return PlayerSession


def test_a_session_reads_as_djangos_own_store_reads_it():
    store = SessionStore()
    store.update({"a": 1, "words": "ünïcode", "nested": {"x": [1, 2]}})
    store.create()
    ours, djangos = SessionStore(store.session_key), DjangoRead(store.session_key)
    assert ours.load() == djangos.load() == {"a": 1, "words": "ünïcode", "nested": {"x": [1, 2]}}
    assert ours.session_key == store.session_key


def test_an_expired_or_unknown_session_is_empty_and_its_key_forgotten():
    store = SessionStore()
    store["a"] = 1
    store.create()
    PlayerSession.objects.filter(pk=store.session_key).update(expire_date=timezone.now() - timedelta(seconds=1))
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


def test_a_page_reads_the_session_and_its_player_in_one_query():
    user = get_user_model().objects.create_user("onequery", "o@example.com", PASSWORD)
    client = Client()
    client.post("/accounts/login/", {"username": "onequery", "password": PASSWORD})
    row = PlayerSession.objects.get(pk=client.cookies["sessionid"].value)
    assert row.user_id == user.pk, "the session's row names its player"
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/help/")
    assert response.context["user"] == user
    reads = [q["sql"] for q in queries.captured_queries]
    assert len(reads) == 1 and "JOIN" in reads[0], reads  # the help page reads nothing else
    store = SessionStore(row.pk)
    store.load()
    user.refresh_from_db()  # logging in set last_login
    assert store.player == user and store.player.get_session_auth_hash() == user.get_session_auth_hash()
    for field in get_user_model()._meta.concrete_fields:
        assert getattr(store.player, field.attname) == getattr(user, field.attname), field.name


def test_the_player_read_with_a_session_is_only_taken_for_that_player_in_that_call():
    ann = get_user_model().objects.create_user("ann", "a@example.com", PASSWORD)
    bob = get_user_model().objects.create_user("bob", "b@example.com", PASSWORD)
    token = READ_WITH_SESSION.set(bob)
    try:
        with CaptureQueriesContext(connection) as queries:
            assert PlayerBackend().get_user(bob.pk) is bob
        assert queries.captured_queries == []
        assert PlayerBackend().get_user(ann.pk) == ann, "another id: read from the database"
        bob.is_active = False
        assert PlayerBackend().get_user(bob.pk) is None, "the backend's checks still apply"
    finally:
        READ_WITH_SESSION.reset(token)
    assert READ_WITH_SESSION.get() is None
    client = Client()
    client.post("/accounts/login/", {"username": "ann", "password": PASSWORD})
    client.get("/help/")
    assert READ_WITH_SESSION.get() is None, "nothing is left for the next request"


def test_a_session_whose_row_names_no_player_still_logs_its_player_in():
    """A session copied without its player's id (or whose column and data disagree) reads its
    player by the id in its data, as Django's checks do."""
    user = get_user_model().objects.create_user("copied", "c@example.com", PASSWORD)
    client = Client()
    client.post("/accounts/login/", {"username": "copied", "password": PASSWORD})
    other = get_user_model().objects.create_user("other", "x@example.com", PASSWORD)
    key = client.cookies["sessionid"].value
    for column in (None, other.pk):
        PlayerSession.objects.filter(pk=key).update(user=column)
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/help/").context["user"] == user
        assert len(queries.captured_queries) == 2  # the session, then its player by the data's id


def test_logging_out_and_deleting_a_player_end_their_sessions_rows():
    user = get_user_model().objects.create_user("leaver", "l@example.com", PASSWORD)
    client = Client()
    client.post("/accounts/login/", {"username": "leaver", "password": PASSWORD})
    key = client.cookies["sessionid"].value
    client.post("/accounts/logout/")
    assert not PlayerSession.objects.filter(pk=key).exists()
    client.post("/accounts/login/", {"username": "leaver", "password": PASSWORD})
    key = client.cookies["sessionid"].value
    row = PlayerSession.objects.get(pk=key)
    assert row.user_id == user.pk and key not in str(row), "the admin never shows a session's key"
    user.delete()
    assert not PlayerSession.objects.filter(pk=key).exists(), "deleting the player deleted the row"
    assert not client.get("/").context["user"].is_authenticated


def test_a_session_naming_a_player_deleted_since_still_saves():
    """A session copied by the migration whose player was gone names them in its data still."""
    store = SessionStore()
    store[SESSION_KEY] = str(10**9)  # nobody
    store.create()  # no constraint on the column: no IntegrityError
    again = SessionStore(store.session_key)
    again["more"] = 1
    again.save()
    assert PlayerSession.objects.get(pk=store.session_key).user_id == 10**9
    assert SessionStore(store.session_key).load()["more"] == 1
    client = Client()
    client.cookies["sessionid"] = store.session_key
    assert not client.get("/help/").context["user"].is_authenticated
