"""How many web pushes a worker sends per second (issue 26, docs/notifications.md).

    python bench/push.py [--pushes 300] [--repeat 3]

Sets up the site on a fresh SQLite database in memory, with a push service standing in for FCM
in another process on localhost (it takes each POST and answers 201, as FCM does). It makes
``--pushes`` players, each with one device subscribed (keys made as a browser makes them), and
records a push for each (a named challenge: what the site records in the challenge's
transaction), then sends them one by one as a worker process does (``send_push_logged``: lock
the row, check it is still wanted, write the notification in the player's language, encrypt it
for the device (aes128gcm), sign it (VAPID), POST it, note the device reached).

Printed, each the best of ``--repeat``: the baseline, a plain POST of a body of the same size to
the same service with the same kind of HTTP session (what no push can beat); encryption and
signing alone; and the whole send, in pushes per second and as a share of the baseline.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.pop(0)  # not bench/: its http.py would hide the standard library's
sys.path.insert(0, str(ROOT))


def stand_in(port: mp.Value) -> None:  # type: ignore[valid-type]
    """A push service: takes a POST, answers 201 with no body (HTTP/1.1, connections kept)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port.value = server.server_address[1]
    server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pushes", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    port = mp.get_context("spawn").Value("i", 0)
    service = mp.get_context("spawn").Process(target=stand_in, args=(port,), daemon=True)
    service.start()
    while not port.value:
        time.sleep(0.01)
    url = f"http://127.0.0.1:{port.value}/"

    var = tempfile.mkdtemp(prefix="push-bench-")
    os.environ["DATABASE_URL"] = "sqlite://:memory:"  # one process: nothing to share, no fsync
    os.environ.update(POWERBOATS_VAR_DIR=var, PUSH_SERVICES=url, EMAIL_URL="memorymail://", LOG_LEVEL="WARNING",
                      CELERY_TASK_ALWAYS_EAGER="false", CELERY_BROKER_URL="memory://")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "powerboats_site.settings")
    import django

    django.setup()
    import base64

    import requests
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from django.apps import apps
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection, transaction
    from pywebpush import WebPusher

    from accounts.models import User
    from games import services
    from games.notifications import push
    from games.notifications.models import Notice, PushSubscription

    # the tables as the models are now, without replaying every migration (what is measured is sending)
    settings.MIGRATION_MODULES = {config.label: None for config in apps.get_app_configs()}
    call_command("migrate", run_syncdb=True, verbosity=0)
    engine = connection.vendor

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    def device_keys() -> dict[str, str]:
        key = ec.generate_private_key(ec.SECP256R1())
        point = key.public_key().public_bytes(serialization.Encoding.X962,
                                              serialization.PublicFormat.UncompressedPoint)
        return {"p256dh": b64(point), "auth": b64(os.urandom(16))}

    challenger = User.objects.create(username="pusher", password="!")  # no hashing: nobody logs in
    rounds: list[list[int]] = []
    for r in range(args.repeat):
        with transaction.atomic():
            for i in range(args.pushes):
                player = User.objects.create(username=f"p{r}x{i}", password="!")
                push.subscribe(user=player, endpoint=f"{url}push/{r}-{i}", **device_keys())
                player.refresh_from_db()
                services.challenge_create(user=challenger, opponent=player)
        ids = list(Notice.objects.filter(channel="push", sent_at__isnull=True, user__username__startswith=f"p{r}x")
                   .values_list("pk", flat=True))
        rounds.append(ids)
    sample = Notice.objects.get(pk=rounds[0][0])
    # the notification, plus aes128gcm's header (salt, record size, the sender's key), delimiter and tag
    body_size = len(json.dumps(push.payload(sample), separators=(",", ":")).encode()) + 86 + 1 + 16
    devices = list(PushSubscription.objects.filter(user_id=sample.user_id))

    session = requests.Session()
    best_post = 0.0
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        for i in range(args.pushes):
            session.post(f"{url}push/baseline-{i}", data=b"x" * body_size, headers={"TTL": "60"}, timeout=10)
        best_post = max(best_post, args.pushes / (time.perf_counter() - t0))

    best_seal = 0.0
    info = {"endpoint": devices[0].endpoint, "keys": {"p256dh": devices[0].p256dh, "auth": devices[0].auth}}
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        for _i in range(args.pushes):  # what each push costs before its POST: encryption, a fresh signature
            WebPusher(info).encode(b"x" * (body_size - 103), "aes128gcm")
            push.vapid().sign({"sub": settings.VAPID_SUBJECT, "aud": url.rstrip("/"), "exp": int(time.time()) + 3600})
        best_seal = max(best_seal, args.pushes / (time.perf_counter() - t0))

    best_send = 0.0
    reached = 0
    for ids in rounds:
        t0 = time.perf_counter()
        for entry_id in ids:
            reached += push.send_push_logged(entry_id)
        best_send = max(best_send, len(ids) / (time.perf_counter() - t0))
    assert reached == args.pushes * args.repeat, f"{reached} devices reached of {args.pushes * args.repeat}"
    assert not Notice.objects.filter(channel="push", sent_at__isnull=True).exists()

    print(f"push bench: {args.pushes} pushes to {args.pushes} devices, best of {args.repeat}; a stand-in push "
          f"service on localhost; {engine}; load average {os.getloadavg()[0]:.2f}")
    print(f"  baseline, a plain POST of {body_size} bytes:  {best_post:7.0f}/s")
    print(f"  encrypt and sign only (no POST):          {best_seal:7.0f}/s  (a signature is kept an hour by the site)")
    print(f"  send_push, one worker process:            {best_send:7.0f} pushes/s = "
          f"{100 * best_send / best_post:.0f}% of the baseline POST")
    service.terminate()


if __name__ == "__main__":
    main()
