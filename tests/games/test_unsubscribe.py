"""One-click unsubscribe (RFC 8058) and links built from SITE_URL (issue 13)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import signing
from django.test import Client

from games import notifications
from games.models import EmailLog

from .factories import make_user

pytestmark = pytest.mark.django_db


def _link(user) -> str:
    return "/email/unsubscribe/" + notifications.unsubscribe_token(user) + "/"


def test_every_email_has_one_click_headers_and_links_from_site_url(settings):
    settings.SITE_URL = "http://127.0.0.1:8137"
    user = make_user("ulla")
    from games.services import challenge_create

    challenge = challenge_create(user=make_user("otto"), opponent=user)
    entry = EmailLog.objects.get(user=user, event="challenge", key=f"challenge:{challenge.pk}")
    message = notifications.message_for(entry)
    header = message.extra_headers["List-Unsubscribe"]
    assert re.fullmatch(r"<http://127\.0\.0\.1:8137/email/unsubscribe/[^>]+/>", header)
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert "http://127.0.0.1:8137/lobby/" in message.body
    assert ":8000" not in message.body and ":8000" not in message.alternatives[0][0]


def test_get_shows_a_button_and_changes_nothing_post_unsubscribes():
    user = make_user("ulla")
    link = _link(user)
    page = Client().get(link)
    assert page.status_code == 200 and b'id="unsubscribe-form"' in page.content
    user.refresh_from_db()
    assert user.email_mode == "each"
    # a mail client's one-click POST (RFC 8058 §3.2), no cookies, no CSRF token
    page = Client(enforce_csrf_checks=True).post(link, {"List-Unsubscribe": "One-Click"})
    assert page.status_code == 200 and b"You are unsubscribed" in page.content
    user.refresh_from_db()
    assert user.email_mode == "none"
    page = Client(enforce_csrf_checks=True).post(link, {"resubscribe": "1"})
    user.refresh_from_db()
    assert page.status_code == 200 and user.email_mode == "each"


def test_an_expired_token_gets_a_clear_page_and_changes_nothing(settings):
    settings.UNSUBSCRIBE_LINK_DAYS = 60
    user = make_user("ulla")
    with time_machine.travel(datetime.now(UTC) - timedelta(days=61)):
        link = _link(user)
    for call in (Client().get, Client().post):
        page = call(link)
        assert page.status_code == 400 and b"This link has expired" in page.content
    user.refresh_from_db()
    assert user.email_mode == "each"
    with time_machine.travel(datetime.now(UTC) - timedelta(days=59)):
        fresh = _link(user)
    assert Client().post(fresh).status_code == 200
    user.refresh_from_db()
    assert user.email_mode == "none"


@pytest.mark.parametrize("token", [
    "forged-token",
    # signed with our key but another salt (another purpose's token)
    signing.dumps({"u": 1, "p": "unsubscribe"}, salt="powerboats.other"),
], ids=["garbage", "another-salt"])  # fixed ids: the signed token holds a timestamp
def test_a_forged_token_gets_a_clear_page_and_changes_nothing(token):
    user = make_user("ulla")
    page = Client().post(f"/email/unsubscribe/{token}/")
    assert page.status_code == 400 and b"This link is not valid" in page.content
    user.refresh_from_db()
    assert user.email_mode == "each"


def test_a_token_without_the_unsubscribe_purpose_is_refused():
    user = make_user("ulla")
    token = signing.dumps({"u": user.pk}, salt=notifications.UNSUBSCRIBE_SALT)  # no purpose (old format)
    assert Client().post(f"/email/unsubscribe/{token}/").status_code == 400
    user.refresh_from_db()
    assert user.email_mode == "each"


def test_bin_run_sets_site_url_from_its_port():
    from pathlib import Path

    script = (Path(__file__).resolve().parents[2] / "bin" / "run").read_text()
    assert 'export SITE_URL=${SITE_URL:-http://127.0.0.1:$PORT}' in script
    assert script.index("export SITE_URL") < script.index("honcho")
