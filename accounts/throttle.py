"""No password guessing: failed logins are counted per account and per address, and
password-reset emails are rate-limited the same two ways.

Logins (the login form, the admin's, ``POST /api/token/``) go through django-axes: its
authentication backend refuses a login while the account or the address has
``AXES_FAILURE_LIMIT`` failures within ``AXES_COOLOFF_TIME``, and its database handler
keeps the counts in the database, so every web process on every machine sees the same
counts. While locked, even the right password is refused; the lock lifts by itself.
:func:`lockout_response` turns a lockout into a page with a message (429) or, under
``/api/``, ``{"code", "message", "field"}`` with ``Retry-After``.

Password-reset requests are counted with DRF's throttle classes in Django's cache (the
database by default, ``CACHE_URL`` in README), see :func:`password_reset_refusal`.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
from datetime import datetime, timedelta
from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.helpers import get_cool_off, get_failure_limit
from axes.signals import user_locked_out
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy, gettext_noop, ngettext
from rest_framework import status
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

USERNAME_FIELD_LIMIT = 150  # no account has a longer name; longer input is counted by its start


class LoginLockoutBackend(AxesStandaloneBackend):
    """Axes' backend (first in ``AUTHENTICATION_BACKENDS``): refuses any login while locked.

    ``authenticate()`` without a request (Django's test client ``login()``, scripts) has
    nothing to count by and is let through to the next backend; every login over HTTP
    passes its request (Django's forms, DRF's token view)."""

    def authenticate(self, request: HttpRequest | None, username: str | None = None,
                     password: str | None = None, **kwargs: Any) -> None:
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)  # type: ignore[no-any-return]


def client_ip(request: HttpRequest) -> str | None:
    """The client's address: ``REMOTE_ADDR``, or with ``PROXY_COUNT`` proxies in front the
    address the outermost of them saw in ``X-Forwarded-For`` (DRF's rule, ``NUM_PROXIES``).
    Anything that is not an IP address falls back to ``REMOTE_ADDR``."""
    # DRF's rule reads only request.META, which a Django request has as DRF's does
    for candidate in (BaseThrottle().get_ident(request), request.META.get("REMOTE_ADDR")):  # type: ignore[arg-type]
        try:
            return str(ipaddress.ip_address(str(candidate).strip()))
        except ValueError:
            continue
    return None


def attempted_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """The name a login tried, cut to the longest possible username (the API takes any length)."""
    name = (credentials or {}).get("username")
    return None if name is None else str(name)[:USERNAME_FIELD_LIMIT]


def lockout_ends_at(request: HttpRequest, credentials: dict[str, Any] | None) -> datetime:
    """When the account and the address may try again: for each locked count (per account,
    per address), the moment its oldest failure still needed to reach the limit is older than
    the cool-off time."""
    from axes.handlers.proxy import AxesProxyHandler

    cool_off = get_cool_off(request) or timedelta(0)
    now = timezone.now()
    handler = AxesProxyHandler.get_implementation()
    if not hasattr(handler, "get_user_attempts"):
        return now + cool_off
    limit = get_failure_limit(request, credentials)
    ends = now
    for attempts in handler.get_user_attempts(request, credentials):
        total = 0
        for attempt_time, failures in attempts.order_by("-attempt_time").values_list("attempt_time", "failures_since_start"):
            total += failures
            if total >= limit:
                ends = max(ends, attempt_time + cool_off)
                break
    return ends


_WHAT = {  # what was refused, then how long to wait: two sentences, translated whole (docs/i18n.md)
    "login": gettext_noop("Too many failed logins for this account or from this address."),
    "reset_address": gettext_noop("Too many password reset requests from this address."),
    "reset_email": gettext_noop("Too many password reset requests for this email address."),
}


def _wait_message(what: str, seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    at = timezone.now() + timedelta(seconds=seconds)
    wait = ngettext("Try again in %(minutes)s minute (after %(time)s UTC).",
                    "Try again in %(minutes)s minutes (after %(time)s UTC).", minutes)
    return f"{gettext(_WHAT[what])} " + wait % {"minutes": minutes, "time": f"{at:%H:%M}"}


def login_lockout(request: HttpRequest, credentials: dict[str, Any] | None) -> tuple[str, int]:
    """The message and the seconds to wait for a locked-out login."""
    seconds = max(1, math.ceil((lockout_ends_at(request, credentials) - timezone.now()).total_seconds()))
    return _wait_message("login", seconds), seconds


def lockout_response(request: HttpRequest, original_response: HttpResponse | None,
                     credentials: dict[str, Any] | None) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: the login page with the message, or JSON under ``/api/``."""
    message, seconds = login_lockout(request, credentials)
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"code": "throttled", "message": message, "field": "username"},
                                status=status.HTTP_429_TOO_MANY_REQUESTS)
    else:
        form = AuthenticationForm(request, initial={"username": attempted_username(request, credentials) or ""})
        response = render(request, "registration/login.html", {"form": form, "lockout": message,
                                                               "next": request.POST.get("next", "")},
                          status=status.HTTP_429_TOO_MANY_REQUESTS)
    response["Retry-After"] = str(seconds)
    return response


class LoginLocked(APIException):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = "throttled"
    default_detail = gettext_lazy("Too many failed logins for this account or from this address.")

    def __init__(self, message: str, wait: int) -> None:
        super().__init__(message)
        self.wait = wait  # DRF's exception handler sends it as Retry-After


@receiver(user_locked_out)
def refuse_api_login(sender: object, request: Any, **kwargs: Any) -> None:
    """DRF's token view wraps the request, so Axes' middleware never sees the lockout: answer
    429 from inside the view instead (the way Axes' documentation integrates DRF)."""
    if isinstance(request, Request):
        message, seconds = login_lockout(request, getattr(request, "axes_credentials", None))
        raise LoginLocked(message, seconds)


# --- password reset ----------------------------------------------------------------------


class _Rate(SimpleRateThrottle):
    """One of DRF's counters in Django's cache, keyed by whatever we choose."""

    def __init__(self, scope: str, rate: str, ident: str) -> None:
        self.scope, self.rate, self.ident = scope, rate, ident
        super().__init__()

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.ident}


def password_reset_refusal(request: HttpRequest, email: str) -> tuple[str, int] | None:
    """Count a password-reset request; ``(message, seconds)`` when there were too many lately
    from this address or for this email address (``PASSWORD_RESET_RATES``)."""
    rates = settings.PASSWORD_RESET_RATES
    digest = hashlib.sha256(email.strip().casefold().encode()).hexdigest()
    checks = [
        (_Rate("password_reset_address", rates["address"], client_ip(request) or "unknown"), "reset_address"),
        (_Rate("password_reset_email", rates["email"], digest), "reset_email"),
    ]
    for throttle, what in checks:
        if not throttle.allow_request(request, None):  # type: ignore[arg-type]  # a form's request, no API view
            seconds = max(1, math.ceil(throttle.wait() or 1))
            return _wait_message(what, seconds), seconds
    return None
