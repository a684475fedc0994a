"""The API of web push (docs/notifications.md): the site's VAPID public key, and a player's devices
— listed, subscribed (the browser's ``PushSubscription.toJSON()`` as it is), removed. The
choices per kind and channel are part of ``/api/me/`` (games.api)."""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.schema import PatternCharField, errors
from common.strict import StrictInput

from . import push
from .models import PushSubscription


class KeysIn(StrictInput):
    p256dh = PatternCharField(pattern="^[A-Za-z0-9_-]{87}=?$", min_length=87, max_length=88,
                              help_text="the device's P-256 public key (an uncompressed point, 65 bytes), base64url")
    auth = PatternCharField(pattern="^[A-Za-z0-9_-]{22}(==)?$", min_length=22, max_length=24,
                            help_text="the device's authentication secret (16 bytes), base64url")


class DeviceIn(StrictInput):
    endpoint = serializers.URLField(max_length=1000, help_text="the push service's address for this device")
    keys = KeysIn()
    expirationTime = serializers.IntegerField(required=False, allow_null=True, min_value=0,
                                              help_text="as the browser gives it (not used)")
    name = serializers.CharField(required=False, allow_blank=True, max_length=80, default="",
                                 help_text="what you call this device (else: the browser's name)")


class DeviceOut(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = PushSubscription
        fields = ["id", "name", "endpoint", "created_at", "last_pushed_at", "last_error"]


class KeyOut(serializers.Serializer):  # type: ignore[type-arg]
    public_key = serializers.CharField(help_text="the applicationServerKey for PushManager.subscribe (base64url)")


class PushKey(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=KeyOut, summary="The site's VAPID public key (applicationServerKey)")
    def get(self, request: Request) -> Response:
        return Response({"public_key": push.public_key()})


class Devices(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=DeviceOut(many=True), summary="Your devices that take web push")
    def get(self, request: Request) -> Response:
        return Response(DeviceOut(push.devices(request.user), many=True).data)

    @extend_schema(request=DeviceIn, responses={201: DeviceOut},
                   summary="Turn web push on for a device: its subscription as the browser gives it")
    def post(self, request: Request) -> Response:
        serializer = DeviceIn(data=request.data)
        serializer.is_valid(raise_exception=True)
        data: dict[str, Any] = dict(serializer.validated_data)
        name = data["name"] or _browser(request.headers.get("User-Agent", ""))
        device = push.subscribe(user=request.user, endpoint=data["endpoint"], p256dh=data["keys"]["p256dh"],
                                auth=data["keys"]["auth"], name=name)
        return Response(DeviceOut(device).data, status=status.HTTP_201_CREATED)


class Device(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None, **errors(404, e404="no such device of yours")},
                   summary="Turn web push off for a device")
    def delete(self, request: Request, device_id: int) -> Response:
        push.unsubscribe(user=request.user, device_id=device_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _browser(agent: str) -> str:
    """A device's name from its browser's User-Agent: the browser and the system, roughly."""
    browser = next((name for key, name in (("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"),
                                            ("Chrome/", "Chrome"), ("Safari/", "Safari")) if key in agent), "")
    system = next((name for key, name in (("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"),
                                           ("Windows", "Windows"), ("Mac OS", "macOS"), ("Linux", "Linux"))
                   if key in agent), "")
    return " on ".join(part for part in (browser, system) if part)[:80]


urlpatterns = [
    path("push/key/", PushKey.as_view(), name="api_push_key"),
    path("push/devices/", Devices.as_view(), name="api_push_devices"),
    path("push/devices/<id:device_id>/", Device.as_view(), name="api_push_device"),
]
