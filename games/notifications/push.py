"""Web push, the push channel of the notices (docs/notifications.md): a player's devices and what
is sent to them.

A device subscribes in the browser (``PushManager.subscribe`` with the site's VAPID public key)
and hands the site its push service's endpoint and keys (:func:`subscribe`: Settings, the game
page at the first "your turn", ``POST /api/push/devices/``). A push is a ``Notice`` row of the push
channel, recorded in the transaction of what caused it like its email; the worker sends it
(:func:`send_push_logged`, the task ``games.tasks.send_push``) to each of the player's devices,
encrypted for that device (RFC 8291, aes128gcm) and signed with the site's VAPID key (RFC 8292)
by pywebpush. One notification per game on a device: the newer replaces the older (its ``tag``;
the push service keeps only the newest undelivered one per ``Topic``). A device the push service
says is gone (404, 410) is removed; a service that is busy or down is tried again with back-off;
the devices reached are noted on the row, so a retry reaches only the others: never twice.

The site sends to the push services of ``settings.PUSH_SERVICES`` only (a subscription naming
any other address is refused): no player can make the worker post to an address of their choice.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import threading
import time
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F
from django.templatetags.static import static
from django.utils import timezone, translation
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext as _
from py_vapid import Vapid02

from common.errors import NotFound, ServiceError
from games.models import Game

from .emails import absolute, compose, local
from .models import Notice, PushSubscription
from .notices import still_wanted

log = logging.getLogger(__name__)

MAX_DEVICES = 20  # per player: an old device is forgotten when a new one subscribes past this
MAX_TTL = 28 * 86400  # push services keep a message at most about four weeks
URGENT = ("your_turn", "reminder")


class PushRetry(Exception):
    """A push service was busy or down for some device: the task is tried again later."""


# --- the site's VAPID key -------------------------------------------------------------------------


@lru_cache(maxsize=1)
def vapid() -> Vapid02:
    """The site's VAPID key (settings.VAPID_PRIVATE_KEY: a PEM, or the raw key in base64url)."""
    key = settings.VAPID_PRIVATE_KEY.strip()
    if key.startswith("-----BEGIN"):
        return Vapid02.from_pem(key.encode())
    return Vapid02.from_string(key)


@lru_cache(maxsize=1)
def public_key() -> str:
    """The site's VAPID public key as a browser's ``applicationServerKey`` takes it: the
    uncompressed P-256 point in base64url."""
    raw = vapid().public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


# --- devices ----------------------------------------------------------------------------------------


def _unb64(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def allowed_endpoint(url: str) -> bool:
    """An endpoint of one of the push services the site sends to (settings.PUSH_SERVICES: URL
    prefixes, whose host may start with "*.")."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    if not parts.scheme or not parts.hostname or parts.username or parts.password:
        return False
    for prefix in settings.PUSH_SERVICES:
        allowed = urlsplit(prefix)
        if allowed.scheme != parts.scheme or (allowed.port or None) != (parts.port or None):
            continue
        host = allowed.hostname or ""
        if host.startswith("*."):
            if not parts.hostname.endswith(host[1:]):
                continue
        elif parts.hostname != host:
            continue
        if parts.path.startswith(allowed.path or "/"):
            return True
    return False


def _check_keys(p256dh: str, auth: str) -> None:
    try:
        point, secret = _unb64(p256dh), _unb64(auth)
    except (binascii.Error, ValueError):
        raise ServiceError(_("the keys must be base64url"), "keys") from None
    if len(point) != 65 or point[0] != 4:
        raise ServiceError(_("p256dh must be an uncompressed P-256 public key (65 bytes)"), "keys.p256dh")
    if len(secret) != 16:
        raise ServiceError(_("auth must be 16 bytes"), "keys.auth")


def _recount(user: Any) -> None:
    count = PushSubscription.objects.filter(user_id=user.pk).count()
    get_user_model().objects.filter(pk=user.pk).update(push_devices=count)
    user.push_devices = count


@transaction.atomic
def subscribe(*, user: Any, endpoint: str, p256dh: str, auth: str, name: str = "") -> PushSubscription:
    """Take a device's subscription for the player (again: the same endpoint is updated; one that
    another account of this browser had moves to this player)."""
    if not allowed_endpoint(endpoint):
        raise ServiceError(_("this is not the address of a push service the site sends to"), "endpoint")
    _check_keys(p256dh, auth)
    before = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
    device, _created = PushSubscription.objects.update_or_create(
        endpoint=endpoint, defaults={"user": user, "p256dh": p256dh, "auth": auth, "name": name[:80],
                                     "last_error": ""})
    others = PushSubscription.objects.filter(user=user).exclude(pk=device.pk).order_by("-created_at", "-pk")
    PushSubscription.objects.filter(pk__in=list(others.values_list("pk", flat=True)[MAX_DEVICES - 1:])).delete()
    if before is not None and before.user_id != user.pk:  # the browser's other account no longer gets its pushes
        _recount(before.user)
    _recount(user)
    return device


@transaction.atomic
def unsubscribe(*, user: Any, device_id: int | None = None, endpoint: str | None = None) -> None:
    """Forget one of the player's devices (by its id, or its endpoint as the browser knows it)."""
    found = PushSubscription.objects.filter(user=user)
    found = found.filter(pk=device_id) if device_id is not None else found.filter(endpoint=endpoint or "")
    if not found.delete()[0]:
        raise NotFound(_("no such device"), "device")
    _recount(user)


def devices(user: Any) -> list[PushSubscription]:
    return list(PushSubscription.objects.filter(user=user))


# --- what a push says -------------------------------------------------------------------------------


def _tag(entry: Notice) -> str:
    """One notification per game (or challenge, or tournament) on a device: the newer replaces it."""
    data = entry.data
    if "game" in data:
        return f"game-{data['game']}"
    if "challenge" in data:
        return f"challenge-{data['challenge']}"
    if "tournament" in data:
        return f"tournament-{data['tournament']}"
    return f"{entry.event}-{entry.pk}"[:32]


def payload(entry: Notice) -> dict[str, Any]:
    """The notification, in the player's language and time zone: its title (the email's subject),
    a line of detail, where a tap leads, and its tag."""
    user = entry.user
    with translation.override(user.language or settings.LANGUAGE_CODE), timezone.override(user.tz):
        title, context = compose(entry, user)
        body = ""
        game = context.get("game")
        if isinstance(game, Game):
            if game.multi_race:
                body = gettext("Series %(number)s, race %(race)s") % {"number": game.series_number,
                                                                      "race": context["race"]}
            elif context.get("opponent") is not None:
                body = gettext("against %(name)s") % {"name": context["opponent"].username}
            if entry.event in URGENT and game.deadline is not None:
                body += " · " + gettext("move by %(deadline)s") % {"deadline": local(game.deadline, user)}
        if entry.event == "auto_vacation" and context.get("low"):
            body += " · " + ngettext("%(days)s vacation day left this year", "%(days)s vacation days left this year",
                                     context["days_count"]) % {"days": context["days_left"]}
        return {"title": title, "body": body, "url": context["link"], "tag": _tag(entry), "kind": entry.event,
                "icon": absolute("/" + static("img/icon-192.png").lstrip("/"))}


def ttl(entry: Notice, now: datetime) -> int:
    """How long a push service keeps it for a device that is off: a turn until its deadline, the
    rest three days."""
    if entry.event in URGENT and "game" in entry.data:
        deadline = Game.objects.filter(pk=entry.data["game"]).values_list("deadline", flat=True).first()
        if deadline is not None:
            return max(60, min(MAX_TTL, int((deadline - now).total_seconds())))
    return 3 * 86400


# --- sending -----------------------------------------------------------------------------------------

_sessions = threading.local()


def _session() -> requests.Session:
    """One HTTP session per worker thread: connections to a push service are kept."""
    session: requests.Session | None = getattr(_sessions, "session", None)
    if session is None:
        session = _sessions.session = requests.Session()
    return session


_signed: dict[str, tuple[float, dict[str, str]]] = {}  # per push service: the VAPID headers, until when
_signed_lock = threading.Lock()
VAPID_HOURS = 12  # a signature's lifetime (RFC 8292: at most 24 h)


def vapid_headers(endpoint: str) -> dict[str, str]:
    """The VAPID ``Authorization`` header for a push service (its origin is the JWT's audience),
    signed once and used for an hour of its twelve: signing costs as much as encrypting."""
    parts = urlsplit(endpoint)
    audience = f"{parts.scheme}://{parts.netloc}"
    now = time.time()
    with _signed_lock:
        kept = _signed.get(audience)
        if kept is not None and kept[0] > now:
            return kept[1]
    claims = {"sub": settings.VAPID_SUBJECT, "aud": audience, "exp": int(now) + VAPID_HOURS * 3600}
    headers: dict[str, str] = vapid().sign(claims)
    with _signed_lock:
        _signed[audience] = (now + 3600, headers)
    return headers


class PushRefused(Exception):
    """A push service answered with an error (``status``: its HTTP status; None: no answer)."""

    def __init__(self, status: int | None, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def _send(device: PushSubscription, data: str, seconds: int, urgency: str, topic: str) -> None:
    # pywebpush is imported when a push goes out, not with the module: it brings aiohttp (~0.3 s
    # of CPU), which every process of the site (manage.py, each web and Celery worker) paid at start
    from pywebpush import WebPushException, webpush

    try:
        webpush({"endpoint": device.endpoint, "keys": {"p256dh": device.p256dh, "auth": device.auth}}, data=data,
                ttl=seconds, headers={"Urgency": urgency, "Topic": topic, **vapid_headers(device.endpoint)},
                timeout=settings.PUSH_TIMEOUT_SECONDS, requests_session=_session())
    except WebPushException as exc:
        raise PushRefused(exc.response.status_code if exc.response is not None else None, exc.message) from exc


def send_push_logged(entry_id: int) -> int:
    """Send one recorded push to each of the player's devices it has not reached yet, unless it
    went out already (or is no longer wanted: the player moved, saw the move live, turned pushes
    of this kind off). Returns how many devices took it; raises :class:`PushRetry` (after noting
    the devices reached) when a push service was busy or down for one of them."""
    Notice.objects.filter(pk=entry_id, sent_at__isnull=True).update(attempts=F("attempts") + 1)
    now = timezone.now()
    retry = False
    with transaction.atomic():
        entry = Notice.objects.select_for_update().select_related("user").filter(pk=entry_id).first()
        if entry is None or entry.sent_at is not None or entry.channel != Notice.Channel.PUSH:
            return 0
        if entry.send_after is not None and entry.send_after > now + timedelta(seconds=1):
            return 0  # early (the end of quiet hours): the sweep releases it when its time comes
        if not still_wanted(entry):
            entry.sent_at = now
            entry.save(update_fields=["sent_at"])
            return 0
        reached: list[int] = list(entry.data.get("pushed", []))
        before = len(reached)
        message = payload(entry)
        data, seconds = json.dumps(message, separators=(",", ":")), ttl(entry, now)
        urgency = "high" if entry.event in URGENT else "normal"
        topic = message["tag"].replace("_", "-")[:32]
        gone = 0
        now_reached: list[int] = []
        for device in PushSubscription.objects.filter(user_id=entry.user_id).exclude(pk__in=reached):
            try:
                _send(device, data, seconds, urgency, topic)
            except PushRefused as exc:
                status = exc.status
                if status in (404, 410):  # the browser dropped it: forget the device
                    device.delete()
                    gone += 1
                    continue
                device.last_error = f"{status or ''} {exc.message}".strip()[:200]
                device.save(update_fields=["last_error"])
                if status is None or status == 429 or status >= 500:
                    retry = True
                else:  # refused for good (a bad key, a payload too large): not retried
                    log.warning("push %s to device %s refused: %s", entry_id, device.pk, device.last_error)
                continue
            except requests.RequestException as exc:
                device.last_error = str(exc)[:200]
                device.save(update_fields=["last_error"])
                retry = True
                continue
            now_reached.append(device.pk)
        if now_reached:
            PushSubscription.objects.filter(pk__in=now_reached).update(last_pushed_at=now, last_error="")
            reached += now_reached
        if gone:
            _recount(entry.user)
        entry.data = {**entry.data, "pushed": reached}
        if not retry:
            entry.sent_at = now
        entry.save(update_fields=["data", "sent_at"])
        count = len(reached) - before
    if retry:
        raise PushRetry(f"push {entry_id}: a push service was busy or down")
    return count
