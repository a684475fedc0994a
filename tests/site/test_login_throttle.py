"""No password guessing: failed logins lock the account and the address for a while, on the
login form and on /api/token/; password-reset emails are rate-limited the same two ways."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

User = get_user_model()
RIGHT = "the-right-password-7"
LIMIT = 10  # settings.AXES_FAILURE_LIMIT
LOCK = timedelta(minutes=15)  # settings.AXES_COOLOFF_TIME


@pytest.fixture
def ann():
    return User.objects.create_user("ann", "ann@example.com", RIGHT)


def form_login(client: Client, password: str, username: str = "ann"):
    return client.post("/accounts/login/", {"username": username, "password": password})


def token(client: APIClient, password: str, username: str = "ann"):
    return client.post("/api/token/", {"username": username, "password": password}, format="json")


@pytest.fixture(autouse=True)
def _documented_limits(settings):
    """The defaults (LOGIN_FAILURE_LIMIT, LOGIN_LOCKOUT_MINUTES), whatever the environment says."""
    settings.AXES_FAILURE_LIMIT = LIMIT
    settings.AXES_COOLOFF_TIME = LOCK


def test_counts_live_in_the_database_shared_by_all_processes(settings, ann):
    assert settings.AXES_HANDLER == "axes.handlers.database.AxesDatabaseHandler"
    form_login(Client(), "wrong")
    token(APIClient(REMOTE_ADDR="10.1.1.1"), "wrong")
    assert sorted(AccessAttempt.objects.values_list("username", "ip_address", "failures_since_start")) == [
        ("ann", "10.1.1.1", 1), ("ann", "127.0.0.1", 1)]


def test_the_login_form_locks_after_repeated_failures_and_unlocks_after_the_lock_period(ann):
    client = Client()
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        for _ in range(LIMIT - 1):
            assert form_login(client, "wrong").status_code == 200  # the form again, "enter a correct ..."
        locked = form_login(client, "wrong")
        assert locked.status_code == 429
        assert "Too many failed logins" in locked.content.decode() and "Try again in 15 minutes" in locked.content.decode()
        assert int(locked["Retry-After"]) == 15 * 60
        refused = form_login(client, RIGHT)  # even the right password
        assert refused.status_code == 429 and "_auth_user_id" not in client.session
        assert b'id="lockout"' in refused.content and b'name="username"' in refused.content
    with time_machine.travel(start + LOCK - timedelta(seconds=30), tick=False):
        still = form_login(client, RIGHT)
        assert still.status_code == 429 and int(still["Retry-After"]) == 30
        assert "Try again in 1 minute " in still.content.decode()
    with time_machine.travel(start + LOCK + timedelta(seconds=1), tick=False):
        response = form_login(client, RIGHT)
        assert response.status_code == 302 and client.session["_auth_user_id"] == str(ann.pk)


def test_the_api_token_locks_after_repeated_failures_and_unlocks_after_the_lock_period(ann):
    client = APIClient()
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        for _ in range(LIMIT - 1):
            assert token(client, "wrong").status_code == 400
        for password in ["wrong"] * 30 + [RIGHT]:  # 40 wrong passwords, then the right one
            response = token(client, password)
            assert response.status_code == 429
            body = response.json()
            assert body["code"] == "throttled" and "Try again in 15 minutes" in body["message"]
            assert int(response["Retry-After"]) == 15 * 60
            assert "token" not in body
    with time_machine.travel(start + LOCK + timedelta(seconds=1), tick=False):
        response = token(client, RIGHT)
        assert response.status_code == 200 and response.json()["token"]


def test_the_admin_login_locks_too(ann):
    ann.is_staff = True
    ann.save(update_fields=["is_staff"])
    client = Client()
    for _ in range(LIMIT):
        client.post("/admin/login/", {"username": "ann", "password": "wrong"})
    refused = client.post("/admin/login/", {"username": "ann", "password": RIGHT})
    assert refused.status_code == 429 and "Too many failed logins" in refused.content.decode()
    assert client.get("/admin/").status_code == 302, "not logged in"


def test_failures_on_one_account_from_many_addresses_lock_the_account(ann):
    for i in range(LIMIT):
        form_login(Client(REMOTE_ADDR=f"10.0.0.{i + 1}"), "wrong")
    assert form_login(Client(REMOTE_ADDR="10.0.1.1"), RIGHT).status_code == 429
    assert token(APIClient(REMOTE_ADDR="10.0.1.2"), RIGHT).status_code == 429
    # other accounts are not locked
    User.objects.create_user("bob", "bob@example.com", RIGHT)
    assert form_login(Client(REMOTE_ADDR="10.0.1.1"), RIGHT, username="bob").status_code == 302


def test_failures_on_many_accounts_from_one_address_lock_the_address(ann):
    attacker = APIClient(REMOTE_ADDR="192.0.2.7")
    for i in range(LIMIT):
        token(attacker, "guess", username=f"someone{i}")
    assert token(attacker, RIGHT).status_code == 429, "the address is locked, whatever the account"
    assert form_login(Client(REMOTE_ADDR="192.0.2.7"), RIGHT).status_code == 429
    assert token(APIClient(REMOTE_ADDR="192.0.2.8"), RIGHT).status_code == 200, "ann from elsewhere is fine"


def test_a_forged_forwarded_for_header_does_not_give_a_new_address(ann, settings):
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == 0
    for i in range(LIMIT):
        token(APIClient(HTTP_X_FORWARDED_FOR=f"203.0.113.{i}"), "guess", username=f"someone{i}")
    assert token(APIClient(HTTP_X_FORWARDED_FOR="203.0.113.99"), RIGHT).status_code == 429


def test_behind_a_proxy_the_forwarded_address_counts(ann, settings):
    from rest_framework.settings import api_settings

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    api_settings.reload()
    try:
        for i in range(LIMIT):
            token(APIClient(HTTP_X_FORWARDED_FOR="203.0.113.5"), "guess", username=f"someone{i}")
        assert AccessAttempt.objects.filter(ip_address="203.0.113.5").count() == LIMIT
        assert token(APIClient(HTTP_X_FORWARDED_FOR="203.0.113.5"), RIGHT).status_code == 429
        assert token(APIClient(HTTP_X_FORWARDED_FOR="203.0.113.6"), RIGHT).status_code == 200
        # a forged first entry does not help: the proxy appends the address it saw
        assert token(APIClient(HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.5"), RIGHT).status_code == 429
        # rubbish where an address should be falls back to the connection's address
        token(APIClient(HTTP_X_FORWARDED_FOR="not-an-address"), "guess")
        assert AccessAttempt.objects.filter(ip_address="127.0.0.1").exists()
    finally:
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 0}
        api_settings.reload()


def test_a_huge_username_on_the_api_is_counted_not_a_crash(ann):
    response = token(APIClient(), "guess", username="x" * 100_000)
    assert response.status_code == 400
    assert AccessAttempt.objects.get().username == "x" * 150


def test_counters_start_empty_in_each_test():
    assert AccessAttempt.objects.count() == 0


def reset(client: Client, email: str):
    return client.post("/accounts/password_reset/", {"email": email})


def test_password_reset_is_limited_per_email_address(ann):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        for _ in range(3):
            assert reset(Client(), "ann@example.com").status_code == 302
        assert len(mail.outbox) == 3
        refused = reset(Client(REMOTE_ADDR="10.9.9.9"), "ANN@example.com ")
        assert refused.status_code == 429 and int(refused["Retry-After"]) == 3600
        page = refused.content.decode()
        assert "Too many password reset requests for this email address" in page and "Try again in 60 minutes" in page
        assert len(mail.outbox) == 3, "no email while refused"
        assert reset(Client(), "bob@example.com").status_code == 302, "another address is counted apart"
    with time_machine.travel(start + timedelta(hours=1, seconds=1), tick=False):
        assert reset(Client(), "ann@example.com").status_code == 302
        assert len(mail.outbox) == 4


def test_password_reset_is_limited_per_address(ann):
    client = Client(REMOTE_ADDR="192.0.2.50")
    for i in range(10):
        assert reset(client, f"person{i}@example.com").status_code == 302
    refused = reset(client, "ann@example.com")
    assert refused.status_code == 429
    assert "Too many password reset requests from this address" in refused.content.decode()
    assert len(mail.outbox) == 0
    assert reset(Client(REMOTE_ADDR="192.0.2.51"), "ann@example.com").status_code == 302
    assert len(mail.outbox) == 1


def test_an_invalid_password_reset_form_is_a_400():
    assert reset(Client(), "not an email").status_code == 400
