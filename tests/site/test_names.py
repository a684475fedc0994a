"""Usernames: 3–30 printable characters, unique by case and by look (Unicode TR39 skeleton),
on every way of making an account: the sign-up form, the API, createsuperuser and the admin."""

from __future__ import annotations

import importlib
import re

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db.models import TextField
from django.db.models.functions import Cast
from django.test import Client
from rest_framework.test import APIClient

from accounts.names import name_key, validate_display_name

User = get_user_model()
GOOD_PASSWORD = "sea-spray-and-salt-42"
CYRILLIC_E = "\u0435"  # е, looks like Latin e

# (name, why it is refused) beside an existing account "demo"
REFUSED = [
    ("ab", "3 to 30"),
    ("a" * 31, "3 to 30"),
    ("ann\n", "control or invisible"),
    ("ann\r", "control or invisible"),
    ("an\u200dn", "control or invisible"),  # zero-width joiner (category Cf)
    ("ann\u202e", "control or invisible"),  # right-to-left override
    ("an\x00n", "null"),
    ("ann bob", "letters, digits"),
    (f"d{CYRILLIC_E}mo", "too like the existing name demo"),
    ("DEMO", "too like the existing name demo|already exists"),
    ("Demo", "too like the existing name demo|already exists"),
    (f"D{CYRILLIC_E.upper()}MO", "too like the existing name demo"),
    ("derno", "too like the existing name demo"),  # r + n looks like m
]


@pytest.fixture
def demo(db):
    return User.objects.create_user("demo", "demo@example.com", GOOD_PASSWORD)


def sign_up(name: str):
    return Client().post("/signup/", {"username": name, "email": "new@example.com",
                                      "password1": GOOD_PASSWORD, "password2": GOOD_PASSWORD})


@pytest.mark.parametrize(("name", "why"), REFUSED)
def test_the_sign_up_form_refuses_bad_and_look_alike_names(demo, name, why):
    response = sign_up(name)
    assert response.status_code == 400
    assert re.search(why, response.content.decode(), re.IGNORECASE)
    assert list(User.objects.values_list("username", flat=True)) == ["bot-easy", "bot-normal", "bot-strong", "demo"]


@pytest.mark.parametrize(("name", "why"), REFUSED)
def test_the_api_refuses_bad_and_look_alike_names(demo, name, why):
    response = APIClient().post("/api/accounts/", {"username": name, "password": GOOD_PASSWORD}, format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid" and body["field"] == "username"
    if why != "3 to 30":  # DRF's own length message says "no more than 30" / "at least 3"
        assert re.search(why, body["message"], re.IGNORECASE)
    assert User.objects.filter(is_bot=False).count() == 1


def test_good_names_are_accepted_everywhere(demo):
    assert sign_up("Zoë_2").status_code == 302
    created = APIClient().post("/api/accounts/", {"username": "ann.b-c@d+e", "password": GOOD_PASSWORD}, format="json")
    assert created.status_code == 201
    assert User.objects.get(username="Zoë_2").name_key == name_key("zoë_2")
    # the same names again, or look-alikes of them, are now taken
    assert sign_up("zoë_2").status_code == 400
    again = APIClient().post("/api/accounts/", {"username": "ANN.B-C@D+E", "password": GOOD_PASSWORD}, format="json")
    assert again.status_code == 400 and again.json()["field"] == "username"


def test_the_api_checks_the_name_as_it_will_be_stored(demo):
    """create_user stores NFKC: fullwidth ｄｅｍｏ would become demo."""
    response = APIClient().post("/api/accounts/", {"username": "ｄｅｍｏ", "password": GOOD_PASSWORD}, format="json")
    assert response.status_code == 400 and response.json()["message"] == "username: This name is taken."
    assert User.objects.filter(is_bot=False).count() == 1


def test_the_database_refuses_a_look_alike_that_skips_validation(demo):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(f"d{CYRILLIC_E}mo", "x@example.com", GOOD_PASSWORD)


def test_renaming_keeps_the_key_in_step(demo):
    demo.username = "captain"
    demo.save(update_fields=["username"])
    assert User.objects.get(pk=demo.pk).name_key == name_key("captain")
    assert sign_up("demo").status_code == 302, "the old name is free again"


def test_createsuperuser_refuses_a_look_alike(demo, monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", GOOD_PASSWORD)
    with pytest.raises(CommandError, match="too like the existing name demo"):
        call_command("createsuperuser", "--noinput", username=f"d{CYRILLIC_E}mo", email="root@example.com")
    call_command("createsuperuser", "--noinput", username="root", email="root@example.com")
    assert User.objects.get(username="root").is_superuser


def test_the_admin_refuses_a_look_alike(demo):
    User.objects.create_superuser("root", "root@example.com", GOOD_PASSWORD)
    client = Client()
    client.force_login(User.objects.get(username="root"))
    response = client.post("/admin/accounts/user/add/", {"username": f"D{CYRILLIC_E.upper()}MO", "password1": GOOD_PASSWORD,
                                                         "password2": GOOD_PASSWORD, "usable_password": "true"})
    assert response.status_code == 200 and b"too like the existing name demo" in response.content
    assert not User.objects.filter(username=f"D{CYRILLIC_E.upper()}MO").exists()
    # editing an account and keeping its name is fine
    change = client.get(f"/admin/accounts/user/{demo.pk}/change/")
    assert change.status_code == 200


def test_the_migration_fills_keys_and_keeps_old_clashes_working(demo):
    """Existing users get their key; a pair that already looked alike keeps both accounts."""
    legacy = User.objects.create_user("legacy", "l@example.com", GOOD_PASSWORD)
    # an account from before the rule, whose name looks like demo's
    User.objects.filter(pk=legacy.pk).update(username=f"d{CYRILLIC_E}mo", name_key="placeholder")
    User.objects.update(name_key=Cast("id", TextField()))
    fill = importlib.import_module("accounts.migrations.0006_user_name_key_fill").fill
    fill(apps, None)
    keys = dict(User.objects.values_list("username", "name_key"))
    assert keys["demo"] == "derno" and keys[f"d{CYRILLIC_E}mo"] == f"derno#{legacy.pk}"
    assert keys["bot-easy"] == "bot-easy"
    # the old account still saves (logins update last_login) and a third look-alike is refused
    legacy.refresh_from_db()
    legacy.first_name = "Old"
    legacy.save()
    assert User.objects.get(pk=legacy.pk).name_key == f"derno#{legacy.pk}"
    assert sign_up("DEMO").status_code == 400


@pytest.mark.parametrize("text", ["Spring Cup", "Zoë's cup – 2026", "カップ"])
def test_display_names_accept_printable_text(text):
    validate_display_name(text)


@pytest.mark.parametrize("text", ["Cup\n", "Cup\r\nX", "\x00", "Cup\u200b", "Cup\u2066", "   ", "\ue000"])
def test_display_names_refuse_control_and_invisible_characters(text):
    with pytest.raises(ValidationError):
        validate_display_name(text)
