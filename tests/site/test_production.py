"""Production-safe by default: an https SITE_URL turns on secure cookies, HSTS, the redirect
to https and trust in the proxy's X-Forwarded-Proto; `check --deploy` is clean; every page
has a Content-Security-Policy; the demo account exists only on the embedded default."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
User = get_user_model()
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "powerboats.example",
    "SITE_URL": "https://powerboats.example",
}
CONFIG = ("DATABASE_URL", "CELERY_BROKER_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "SITE_URL", "HSTS_SECONDS",
          "HSTS_INCLUDE_SUBDOMAINS", "HSTS_PRELOAD", "PROXY_COUNT", "CACHE_URL")


def environment(tmp_path: Path, **env: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if k not in CONFIG}
    return {**clean, "DJANGO_SETTINGS_MODULE": "powerboats_site.settings", "POWERBOATS_VAR_DIR": str(tmp_path), **env}


def settings_in(tmp_path: Path, **env: str) -> dict[str, object]:
    names = ["SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_HSTS_SECONDS",
             "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD", "SECURE_PROXY_SSL_HEADER", "DEMO_ACCOUNT",
             "CONTENT_SECURITY_POLICY", "CACHES", "REST_FRAMEWORK", "AXES_FAILURE_LIMIT", "AXES_COOLOFF_TIME",
             "CELERY_BROKER_TRANSPORT_OPTIONS", "CELERY_TASK_ACKS_LATE", "CELERY_TASK_REJECT_ON_WORKER_LOST"]
    code = ("import json; from django.conf import settings; settings._setup();"
            f"print(json.dumps({{n: getattr(settings, n) for n in {names!r}}}, default=str))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment(tmp_path, **env),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_a_task_whose_worker_dies_runs_again_within_minutes_not_an_hour(tmp_path):
    """Redis holds an unacknowledged task for visibility_timeout (an hour by default); see
    tests/site/test_celery_redelivery.py for a worker killed mid-task."""
    embedded = settings_in(tmp_path)
    assert embedded["CELERY_TASK_ACKS_LATE"] is True and embedded["CELERY_TASK_REJECT_ON_WORKER_LOST"] is True
    assert "visibility_timeout" not in embedded["CELERY_BROKER_TRANSPORT_OPTIONS"]  # the folder broker has none
    redis = settings_in(tmp_path, CELERY_BROKER_URL="redis://cache.example:6379/0")
    assert redis["CELERY_BROKER_TRANSPORT_OPTIONS"] == {"visibility_timeout": 300}
    assert redis["CELERY_TASK_ACKS_LATE"] is True and redis["CELERY_TASK_REJECT_ON_WORKER_LOST"] is True


def test_check_deploy_reports_no_issue_in_production(tmp_path):
    out = subprocess.run([sys.executable, "manage.py", "check", "--deploy"], cwd=ROOT,
                         env=environment(tmp_path, **PRODUCTION), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    ids = re.findall(r"^\S*: \(([\w.]+)\)", out.stdout + out.stderr, re.MULTILINE)
    assert ids == [], out.stdout + out.stderr  # drf-spectacular's schema warnings included
    assert "System check identified no issues" in out.stdout


def test_check_deploy_does_report_an_unsafe_setup(tmp_path):
    """The test above would notice: with an http SITE_URL the HTTPS warnings come back."""
    out = subprocess.run([sys.executable, "manage.py", "check", "--deploy"], cwd=ROOT,
                         env=environment(tmp_path, **{**PRODUCTION, "SITE_URL": "http://powerboats.example"}),
                         capture_output=True, text=True)
    ids = set(re.findall(r"^\S*: \(([\w.]+)\)", out.stdout + out.stderr, re.MULTILINE))
    assert {"security.W004", "security.W008", "security.W012", "security.W016"} <= ids


def test_https_follows_site_url(tmp_path):
    embedded = settings_in(tmp_path)
    assert embedded["SECURE_SSL_REDIRECT"] is False and embedded["SESSION_COOKIE_SECURE"] is False
    assert embedded["CSRF_COOKIE_SECURE"] is False and embedded["SECURE_HSTS_SECONDS"] == 0
    assert embedded["SECURE_PROXY_SSL_HEADER"] is None and embedded["DEMO_ACCOUNT"] is True
    assert embedded["CACHES"]["default"]["BACKEND"] == "django.core.cache.backends.db.DatabaseCache"
    assert embedded["REST_FRAMEWORK"]["NUM_PROXIES"] == 0
    assert (embedded["AXES_FAILURE_LIMIT"], embedded["AXES_COOLOFF_TIME"]) == (10, "0:15:00")

    https = settings_in(tmp_path, SITE_URL="https://powerboats.example")
    assert https["SECURE_SSL_REDIRECT"] is True and https["SESSION_COOKIE_SECURE"] is True
    assert https["CSRF_COOKIE_SECURE"] is True and https["SECURE_HSTS_SECONDS"] == 31_536_000
    assert https["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True and https["SECURE_HSTS_PRELOAD"] is False
    assert https["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert https["DEMO_ACCOUNT"] is False
    assert https["CONTENT_SECURITY_POLICY"]["DIRECTIVES"]["upgrade-insecure-requests"] is True

    tuned = settings_in(tmp_path, SITE_URL="https://powerboats.example", HSTS_SECONDS="3600", HSTS_PRELOAD="true",
                        PROXY_COUNT="1", CACHE_URL="redis://127.0.0.1:6379/11", LOGIN_FAILURE_LIMIT="5",
                        LOGIN_LOCKOUT_MINUTES="60")
    assert tuned["SECURE_HSTS_SECONDS"] == 3600 and tuned["SECURE_HSTS_PRELOAD"] is True
    assert tuned["REST_FRAMEWORK"]["NUM_PROXIES"] == 1
    assert tuned["CACHES"]["default"] == {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                          "LOCATION": "redis://127.0.0.1:6379/11"}
    assert (tuned["AXES_FAILURE_LIMIT"], tuned["AXES_COOLOFF_TIME"]) == (5, "1:00:00")

    postgres = settings_in(tmp_path, DATABASE_URL="postgres://u:p@db.example:5432/pb")
    assert postgres["DEMO_ACCOUNT"] is False and postgres["SECURE_SSL_REDIRECT"] is False


@pytest.mark.django_db
def test_the_embedded_default_serves_plain_http():
    response = Client().get("/accounts/login/")
    assert response.status_code == 200
    assert "Strict-Transport-Security" not in response
    assert not response.cookies["csrftoken"]["secure"]


@pytest.mark.django_db
def test_an_https_site_redirects_plain_http_and_sets_hsts(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_REDIRECT_EXEMPT = [r"^health/$"]
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    settings.SECURE_HSTS_SECONDS, settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = 31_536_000, True
    plain = Client().get("/accounts/login/")
    assert plain.status_code == 301 and plain["Location"] == "https://testserver/accounts/login/"
    assert Client().get("/health/").status_code == 200, "health checks may come over plain HTTP"
    forged = Client().get("/accounts/login/", HTTP_X_FORWARDED_PROTO="http")
    assert forged.status_code == 301
    secure = Client().get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
    assert secure.status_code == 200
    assert secure["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    assert secure.cookies["csrftoken"]["secure"]


@pytest.mark.django_db
def test_pages_and_api_answers_carry_a_content_security_policy():
    for url in ["/", "/accounts/login/", "/api/tournaments/", "/admin/login/"]:
        policy = Client().get(url)["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "object-src 'none'" in policy and "frame-ancestors 'none'" in policy
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy


@pytest.mark.django_db
def test_the_api_docs_inline_blocks_carry_the_nonce_of_the_header():
    response = Client().get("/api/docs/")
    assert response.status_code == 200
    nonce = re.search(r"script-src 'self' 'nonce-([^']+)'", response["Content-Security-Policy"]).group(1)
    page = response.content.decode()
    assert page.count(f'nonce="{nonce}"') == 2  # the <style> and the <script>
    assert not re.search(r"<(script|style)>", page), "every inline block has the nonce"


def test_no_template_has_inline_scripts_styles_or_handlers():
    pattern = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*\bnonce=)|<style(?![^>]*\bnonce=)|\sstyle=|\son[a-z]+=",
                         re.IGNORECASE)
    offenders = [str(path.relative_to(ROOT)) for path in (ROOT / "templates").rglob("*.html")
                 if "email" not in path.parts and pattern.search(path.read_text())]
    assert offenders == []


@pytest.mark.django_db
def test_ensure_demo_makes_the_demo_account_only_on_the_embedded_default(settings, capsys):
    settings.DEMO_ACCOUNT = False
    call_command("ensure_demo")
    assert "no demo account" in capsys.readouterr().out
    assert not User.objects.filter(username="demo").exists()
    assert User.objects.filter(username="bot-strong", is_bot=True).exists(), "the house bots are always there"

    settings.DEMO_ACCOUNT = True
    call_command("ensure_demo")
    assert authenticate(username="demo", password="demo") is not None

    settings.DEMO_ACCOUNT = False  # e.g. the same database now behind an https SITE_URL
    call_command("ensure_demo")
    assert "can no longer log in" in capsys.readouterr().out
    assert authenticate(username="demo", password="demo") is None
    assert User.objects.filter(username="demo").exists(), "its games stay"


@pytest.mark.django_db
def test_ensure_demo_leaves_a_person_called_demo_alone(settings):
    settings.DEMO_ACCOUNT = False
    User.objects.create_user("demo", "someone@example.org", "their-own-password-1")
    call_command("ensure_demo")
    assert authenticate(username="demo", password="their-own-password-1") is not None
