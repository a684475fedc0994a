"""A push service on localhost, standing in for FCM or Mozilla's in the tests (no network here):
it takes what the site POSTs to a device's endpoint (RFC 8030), answers as it is told (201, or
404/410 for a device that is gone, 429/500 for a busy one), and a ``Device`` — a key pair and an
auth secret made as a browser makes them — decrypts what it received (RFC 8291, aes128gcm), so
a test reads the notification the site sent, as the device's service worker would."""

from __future__ import annotations

import base64
import json
import os
import queue
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Device:
    """A browser's subscription: its endpoint at the push service, its P-256 key and auth secret."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    secret: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def keys(self) -> dict[str, str]:
        point = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                   serialization.PublicFormat.UncompressedPoint)
        return {"p256dh": b64(point), "auth": b64(self.secret)}

    def subscription(self) -> dict[str, Any]:
        """As ``PushSubscription.toJSON()`` gives it in a browser."""
        return {"endpoint": self.endpoint, "expirationTime": None, "keys": self.keys}

    def read(self, message: Received) -> dict[str, Any]:
        """The notification in a push, decrypted with this device's keys."""
        plain = http_ece.decrypt(message.body, private_key=self.key, auth_secret=self.secret, version="aes128gcm")
        return json.loads(plain)


class PushService:
    """The stand-in: ``url`` is its address; ``answer[path] = status`` makes it refuse one device's
    pushes; ``received`` is a queue of what came."""

    def __init__(self) -> None:
        service = self
        self.received: queue.Queue[Received] = queue.Queue()
        self.answer: dict[str, int] = {}

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status = service.answer.get(self.path, 201)
                if status == 201:
                    service.received.put(Received(self.path, dict(self.headers.items()), body))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.devices = 0

    def device(self) -> Device:
        self.devices += 1
        return Device(f"{self.url}push/device-{self.devices}-{b64(os.urandom(6))}")

    def take(self, timeout: float = 10.0) -> Received:
        return self.received.get(timeout=timeout)

    def nothing(self, wait: float = 0.5) -> bool:
        try:
            self.received.get(timeout=wait)
        except queue.Empty:
            return True
        return False

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
