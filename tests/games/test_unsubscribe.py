"""One-click unsubscribe (RFC 8058) and links built from SITE_URL (issue 13)."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine
from django.core import signing
from django.test import Client
from django.urls import reverse

from accounts.services import user_set_email_mode
from games.notifications import emails as notifications
from games.notifications.models import Notice

from .factories import make_user

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def _link(user) -> str:
    return "/email/unsubscribe/" + notifications.unsubscribe_token(user) + "/"


def test_every_email_has_one_click_headers_and_links_from_site_url(settings):
    settings.SITE_URL = "http://127.0.0.1:8137"
    user = make_user("ulla")
    from games.services import challenge_create

    challenge = challenge_create(user=make_user("otto"), opponent=user)
    entry = Notice.objects.get(user=user, event="challenge", key=f"challenge:{challenge.pk}")
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
    page = Client(enforce_csrf_checks=True).post(_undo(page), {"resubscribe": "1"})
    user.refresh_from_db()
    assert page.status_code == 200 and user.email_mode == "each"


def _undo(page) -> str:
    """The link of the page's "send me emails again" button."""
    return re.search(r'action="(/email/unsubscribe/[^"]+/)" id="resubscribe-form"', page.content.decode()).group(1)


def test_a_link_makes_one_change_then_says_it_was_used():
    """A second POST with the same link (a mail client's retried one-click, a reader pressing
    twice) changes nothing and says the link was used; a GET shows that page too. Using a link
    also retires the links of the emails sent before it; the undo on the page has its own."""
    user = make_user("ulla")
    link, older = _link(user), _link(user)
    assert Client().post(link).status_code == 200
    user.refresh_from_db()
    assert user.email_mode == "none"
    user_set_email_mode(user=user, mode="each")  # back under Settings, say
    for page in (Client().post(link), Client().post(link, {"resubscribe": "1"}), Client().get(link)):
        assert page.status_code == 410 and b'id="link-used"' in page.content, page.content
        assert b"unsubscribe-form" not in page.content
        user.refresh_from_db()
        assert user.email_mode == "each"
    assert Client().post(older).status_code == 410
    user.refresh_from_db()
    assert user.email_mode == "each" and user.unsubscribe_version == 1
    assert Client().post(_link(user)).status_code == 200  # the next email's link works
    user.refresh_from_db()
    assert user.email_mode == "none"


def test_a_used_link_says_how_the_emails_stand():
    user = make_user("ulla")
    link = _link(user)
    Client().post(link)
    page = Client().post(link)
    assert page.status_code == 410 and "You are unsubscribed already." in page.content.decode()


def test_the_undo_link_works_once_too():
    user = make_user("ulla")
    page = Client().post(_link(user))
    undo = _undo(page)
    assert Client().post(undo, {"resubscribe": "1"}).status_code == 200
    user.refresh_from_db()
    assert user.email_mode == "each"
    assert Client().post(undo, {"resubscribe": "1"}).status_code == 410
    assert Client().post(undo).status_code == 410
    user.refresh_from_db()
    assert user.email_mode == "each"


def test_two_requests_with_one_link_make_one_change():
    """The link is used up in the same statement that checks it is unused: a request that read
    the account before another used the link changes nothing."""
    user = make_user("ulla")
    link = _link(user)
    read = notifications.user_from_token(link.split("/")[3])  # as a second request had read it
    assert Client().post(link).status_code == 200
    assert notifications.unsubscribe_link_use(user=read, mode="each") is False
    user.refresh_from_db()
    assert user.email_mode == "none" and user.unsubscribe_version == 1


def test_a_link_sent_to_an_old_address_changes_nothing():
    user = make_user("ulla")
    link = _link(user)
    user.email = "ulla@new.example.com"
    user.save(update_fields=["email"])
    for call in (Client().get, Client().post):
        page = call(link)
        assert page.status_code == 410 and b'id="link-address"' in page.content
    user.refresh_from_db()
    assert user.email_mode == "each"
    assert Client().post(_link(user)).status_code == 200  # a link sent to the new address
    user.refresh_from_db()
    assert user.email_mode == "none"


def test_the_link_does_not_show_the_address():
    user = make_user("ulla")
    user.email = "ulla.secret@example.com"
    token = notifications.unsubscribe_token(user)
    assert "ulla.secret" not in signing.b64_decode(token.split(":")[0].encode()).decode()


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


@pytest.mark.parametrize("payload", [
    {},  # no purpose (the first format)
    {"p": "unsubscribe"},  # no version, no address (before links worked once)
], ids=["no-purpose", "no-version"])
def test_a_token_of_an_older_format_is_refused(payload):
    user = make_user("ulla")
    token = signing.dumps({"u": user.pk, **payload}, salt=notifications.UNSUBSCRIBE_SALT)
    page = Client().post(f"/email/unsubscribe/{token}/")
    assert page.status_code == 400 and b"This link is not valid" in page.content
    user.refresh_from_db()
    assert user.email_mode == "each"


def test_bin_run_sets_site_url_from_its_port():
    script = (Path(__file__).resolve().parents[2] / "bin" / "run").read_text()
    assert 'export SITE_URL=${SITE_URL:-http://127.0.0.1:$PORT}' in script
    assert script.index("export SITE_URL") < script.index("powerboats_site.supervise")


# --- the token stays out of the logs ---------------------------------------------------------


def test_a_refused_link_is_logged_without_its_token(caplog):
    """Django logs the path of every 4xx (django.request): a used link (410) and a forged one
    (400) show up there with the token masked."""
    user = make_user("ulla")
    link = _link(user)
    token = link.split("/")[3]
    assert Client().post(link).status_code == 200
    forged = token[:-4] + "abcd"
    with caplog.at_level(logging.INFO):
        assert Client().post(link).status_code == 410
        assert Client().get(f"/email/unsubscribe/{forged}/").status_code == 400
    logged = [r for r in caplog.records if r.name == "django.request"]
    assert [r.status_code for r in logged] == [410, 400]  # type: ignore[attr-defined]
    text = caplog.text + "\n".join(r.getMessage() for r in caplog.records)
    assert token not in text and forged not in text and token[:20] not in text
    assert text.count("/email/unsubscribe/[hidden]/") >= 2


def test_the_access_logs_of_the_servers_mask_the_token(caplog):
    """uvicorn (the Procfile's server) logs every request's path, and gunicorn with
    --access-logfile; each as it calls its logger, formatted by uvicorn's own formatter."""
    from uvicorn.logging import AccessFormatter

    path = f"/email/unsubscribe/{notifications.unsubscribe_token(make_user('ulla'))}/"
    with caplog.at_level(logging.INFO):
        logging.getLogger("uvicorn.access").info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:50000", "POST", path, "1.1",
                                                 200)
        logging.getLogger("gunicorn.access").info('%(h)s "%(r)s" %(s)s', {"h": "127.0.0.1", "r": f"GET {path} HTTP/1.1",
                                                                          "s": "200"})
    uvicorn_line, gunicorn_line = caplog.records
    formatted = AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s').format(uvicorn_line)
    assert formatted == '127.0.0.1:50000 - "POST /email/unsubscribe/[hidden]/ HTTP/1.1" 200 OK'
    assert gunicorn_line.getMessage() == '127.0.0.1 "GET /email/unsubscribe/[hidden]/ HTTP/1.1" 200'


@pytest.mark.parametrize("access_log", [True, False])
def test_uvicorn_keeps_its_access_log_as_it_set_it_up(access_log):
    """uvicorn configures its loggers before it loads the site, whose LOGGING then adds the mask
    to them: uvicorn's handler, format and choices stay (--no-access-log still means none)."""
    code = textwrap.dedent(f"""
        import logging, sys, django, uvicorn
        uvicorn.Config("powerboats_site.asgi:application", access_log={access_log})  # sets up logging, as uvicorn does
        django.setup()
        logging.getLogger("uvicorn.access").info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:50000", "POST",
                                                 "/email/unsubscribe/" + sys.argv[1] + "/", "1.1", 410)
    """)
    token = notifications.unsubscribe_token(make_user("ulla"))
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "powerboats_site.settings"}
    out = subprocess.run([sys.executable, "-c", code, token], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert token not in out.stdout + out.stderr
    if access_log:
        assert out.stdout == 'INFO:     127.0.0.1:50000 - "POST /email/unsubscribe/[hidden]/ HTTP/1.1" 410 Gone\n'
    else:
        assert out.stdout == ""


def test_the_mask_knows_the_links_path():
    from powerboats_site.log_filters import TOKEN_IN_PATH

    path = reverse("unsubscribe", args=["TOKEN:abc.def-_"])
    assert TOKEN_IN_PATH.sub(r"\1[hidden]", path) == path.replace("TOKEN:abc.def-_", "[hidden]") != path
