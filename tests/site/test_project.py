"""The project skeleton: settings from the environment, the demo account, manage.py prepare (README
command 1 itself, bin/run, is run from nothing by tests/site/test_supervise.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]


def settings_in(env: dict[str, str], tmp_path: Path) -> dict[str, object]:
    """Load the settings module in a fresh interpreter with the given environment."""
    code = (
        "import json, django.conf, os; from django.conf import settings; settings._setup();"
        "print(json.dumps({'db': settings.DATABASES['default']['ENGINE'], 'name': str(settings.DATABASES['default']['NAME']),"
        "'broker': settings.CELERY_BROKER_URL, 'opts': settings.CELERY_BROKER_TRANSPORT_OPTIONS,"
        "'email': settings.EMAIL_BACKEND, 'debug': settings.DEBUG, 'hosts': settings.ALLOWED_HOSTS,"
        "'key': settings.SECRET_KEY}, default=str))"
    )
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL", "EMAIL_URL", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS"}}
    full = {**clean, "DJANGO_SETTINGS_MODULE": "powerboats_site.settings", "POWERBOATS_VAR_DIR": str(tmp_path), **env}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full, capture_output=True, text=True, check=True)
    import json

    return json.loads(out.stdout)


def test_embedded_defaults_need_no_server(tmp_path):
    s = settings_in({}, tmp_path)
    assert s["db"] == "django.db.backends.sqlite3" and s["name"] == str(tmp_path / "db.sqlite3")
    assert s["broker"] == "folder://" and s["opts"]["polling_interval"] == 0.1
    assert s["email"] == "django.core.mail.backends.console.EmailBackend"
    assert s["debug"] is False
    assert len(s["key"]) > 40 and (tmp_path / "secret_key").read_text() == s["key"]
    assert settings_in({}, tmp_path)["key"] == s["key"], "the generated key is kept"


def test_environment_selects_postgres_redis_and_smtp(tmp_path):
    s = settings_in(
        {
            "DATABASE_URL": "postgres://u:p@db.example:5432/pb",
            "CELERY_BROKER_URL": "redis://cache.example:6379/0",
            "EMAIL_URL": "smtp+tls://mailer:secret@smtp.example:587",
            "DEBUG": "true",
            "SECRET_KEY": "x" * 50,
            "ALLOWED_HOSTS": "powerboats.example,www.powerboats.example",
        },
        tmp_path,
    )
    assert s["db"] == "django.db.backends.postgresql" and s["name"] == "pb"
    assert s["broker"] == "redis://cache.example:6379/0" and s["opts"] == {"visibility_timeout": 300}
    assert s["email"] == "django.core.mail.backends.smtp.EmailBackend"
    assert s["debug"] is True and s["key"] == "x" * 50
    assert s["hosts"] == ["powerboats.example", "www.powerboats.example"]


@pytest.mark.django_db
def test_demo_account_can_log_in(client, settings):
    settings.DEMO_ACCOUNT = True  # the embedded default (tests/site/test_production.py: only there)
    call_command("ensure_demo")
    call_command("ensure_demo")  # twice in a row is fine
    assert authenticate(username="demo", password="demo") is not None
    assert client.login(username="demo", password="demo")
    page = client.get("/")
    assert page.status_code == 200 and b"demo" in page.content


@pytest.mark.django_db(transaction=True)
def test_prepare_makes_the_cache_table_and_the_demo_account_only_without_database_only(settings):
    """manage.py prepare (bin/run's, a release's): migrate, the cache's table, ensure_demo; with
    --database-only (the fuzz stage, the benches, the tests' template databases) no account."""
    from django.db import connection

    from accounts.models import User

    settings.DEMO_ACCOUNT = True
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE powerboats_cache")
    call_command("prepare", "--database-only", verbosity=0)
    assert "powerboats_cache" in connection.introspection.table_names()
    assert not User.objects.filter(username="demo").exists()
    call_command("prepare", verbosity=0)
    assert authenticate(username="demo", password="demo") is not None


@pytest.mark.django_db
def test_prepare_stops_on_a_failed_system_check_before_it_migrates(monkeypatch):
    """As manage.py migrate: the system checks run first, and an error stops it."""
    from django.core import checks
    from django.core.management.base import SystemCheckError
    from django.db.migrations.executor import MigrationExecutor

    def broken(**kwargs):
        return [checks.Error("a broken setting", id="tests.E001")]

    migrated = []
    monkeypatch.setattr(MigrationExecutor, "migrate", lambda self, *a, **k: migrated.append(a))
    monkeypatch.setattr(checks.registry.registry, "registered_checks", {*checks.registry.registry.registered_checks, broken})
    with pytest.raises(SystemCheckError, match="a broken setting"):
        call_command("prepare", verbosity=0)
    assert migrated == []


@pytest.mark.django_db
def test_home_and_health(client):
    assert client.get("/").status_code == 200
    assert client.get("/health/").json() == {"status": "ok"}


def test_every_bench_script_keeps_bench_off_its_path():
    """bench/http.py (the name issue 10 asks for) would hide the standard library's http from any
    script run from bench/: each script that sets up Django drops bench/ from sys.path first."""
    from pathlib import Path

    for script in sorted((Path(__file__).resolve().parents[2] / "bench").glob("*.py")):
        text = script.read_text()
        if script.name != "http.py" and not script.name.startswith("_") and "django" in text:  # _fill.py: imported
            assert "sys.path.pop(0)" in text, f"{script.name} runs with bench/ first on sys.path"


def test_browser_tests_wait_for_functions_not_expressions():
    """Playwright runs a wait_for_function given as an expression through eval while it polls, and the
    site's Content-Security-Policy refuses eval: such a wait passes only when it is true at once, and
    fails on a slower machine. Given as a function ("() => …") it is compiled once and polls."""
    import ast
    from pathlib import Path

    found = []
    for path in sorted((Path(__file__).resolve().parents[1]).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "wait_for_function"
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                found.append((path.name, node.lineno, node.args[0].value))
    assert found, "no browser test waits for a function: this check has nothing to look at"
    expressions = [f"{name}:{line}" for name, line, text in found
                   if not (text.lstrip().startswith(("(", "function")) or text.split("=>")[0].strip().isidentifier())]
    assert not expressions, f"waits for an expression, which the CSP refuses once it polls: {expressions}"
