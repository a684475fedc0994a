"""Preferences and vacation on the settings page and through the API."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from .factories import PASSWORD, make_game, make_user

pytestmark = pytest.mark.django_db


def test_settings_page_saves_preferences_and_refuses_bad_ones():
    ann = make_user("ann")
    client = Client()
    client.login(username="ann", password=PASSWORD)
    assert client.get("/settings/").status_code == 200
    good = {"save": "1", "email": "ann@example.org", "digest_hour": 7, "reminder_hours": 12,
            "time_zone": "Europe/Amsterdam", "your_turn_email": "digest", "reminder_email": "digest",
            "game_over_email": "each", "challenge_email": "each", "tournament_email": "each"}
    assert client.post("/settings/", good).status_code == 302
    ann.refresh_from_db()
    assert (ann.email_mode, ann.digest_hour, ann.reminder_hours, ann.time_zone) == ("digest", 7, 12, "Europe/Amsterdam")
    bad = {**good, "time_zone": "Mars/Olympus", "digest_hour": 25}
    response = client.post("/settings/", bad)
    assert response.status_code == 400 and b"not a time zone" in response.content and b"0 to 23" in response.content
    ann.refresh_from_db()
    assert ann.time_zone == "Europe/Amsterdam"


def test_vacation_from_the_settings_page_moves_the_deadline():
    game = make_game()
    client = Client()
    client.login(username=game.player(0).username, password=PASSWORD)
    before = game.deadline
    assert client.post("/settings/", {"vacation_start": "1", "days": 3}).status_code == 302
    game.refresh_from_db()
    assert (game.deadline - before).days == 3
    assert b"on-vacation" in client.get("/settings/").content
    assert client.post("/settings/", {"vacation_start": "1", "days": 2}).status_code == 409
    assert client.post("/settings/", {"vacation_end": "1"}).status_code == 302
    game.refresh_from_db()
    assert abs((game.deadline - before).total_seconds()) < 5


def test_me_and_vacation_through_the_api():
    make_user("ann")
    client = APIClient()
    client.login(username="ann", password=PASSWORD)
    me = client.get("/api/me/").json()
    assert me["email_mode"] == "each" and me["vacation"] is None and me["vacation_days_left"] == 14
    changed = client.patch("/api/me/", {"email_mode": "none", "reminder_hours": 6}, format="json")
    assert changed.status_code == 200 and changed.json()["email_mode"] == "none"
    bad = client.patch("/api/me/", {"digest_hour": 30}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "digest_hour"
    bad = client.patch("/api/me/", {"time_zone": "Nowhere/Land"}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "time_zone"
    started = client.post("/api/me/vacation/", {"days": 2}, format="json")
    assert started.status_code == 201 and started.json()["vacation"] is not None
    assert client.post("/api/me/vacation/", {"days": "two"}, format="json").status_code == 400
    assert client.post("/api/me/vacation/", {}, format="json").status_code == 409
    ended = client.delete("/api/me/vacation/")
    assert ended.status_code == 200 and ended.json()["vacation"] is None
    assert client.delete("/api/me/vacation/").status_code == 409
