"""Notices by channel (issue 26, docs/notifications.md): per kind of notice, the email (each, in the
daily digest, none) and the web push (on, off) each player chose; quiet hours; pushes encrypted
for each device, received by a stand-in push service (tests/push_service.py) and read as the
device would; devices that are gone removed; a busy service retried without a device getting a
push twice; a your-turn push dropped for a move seen live; My games urgent first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from accounts.services import user_set_notifications
from games import services
from games.live import events as live
from games.notifications import push
from games.notifications.models import Notice, PushSubscription
from games.notifications.notices import notify
from games.tasks import send_digests, send_push, sweep_clocks
from tests.push_service import PushService

from .factories import PASSWORD, make_game, make_user, placed_game

pytestmark = pytest.mark.django_db

KINDS = ("your_turn", "reminder", "game_over", "challenge", "tournament")


@pytest.fixture
def service(settings):
    stand_in = PushService()
    settings.PUSH_SERVICES = [stand_in.url]
    settings.YOUR_TURN_PUSH_DELAY = 0
    yield stand_in
    stand_in.close()


def subscribed(user: Any, service: PushService):
    device = service.device()
    push.subscribe(user=user, endpoint=device.endpoint, **device.keys)
    user.refresh_from_db()
    return device


def only(user: Any, kind: str, email: str, on: bool) -> None:
    """Every kind off but ``kind``, which gets ``email`` and push ``on``."""
    user_set_notifications(user=user, notify={k: {"email": "none", "push": False} for k in KINDS})
    user_set_notifications(user=user, notify={kind: {"email": email, "push": on}})
    user.refresh_from_db()


def happen(kind: str, user: Any, other: Any) -> tuple[str, str]:
    """Something of ``kind`` for ``user``: the key its notices are recorded under, and the tag of
    its notification (one per game on a device)."""
    if kind == "your_turn":
        game = make_game(yellow=user, red=other)  # Yellow places first: their turn
        return f"game:{game.pk}:ply:0", f"game-{game.pk}"
    if kind == "reminder":
        game = make_game(yellow=user, red=other)
        with time_machine.travel(game.reminder_at + timedelta(minutes=1), tick=False):
            assert services.game_remind(game_id=game.pk)
        return f"game:{game.pk}:turn:{game.turn_started_at.isoformat()}", f"game-{game.pk}"
    if kind == "game_over":
        game = placed_game(yellow=user, red=other)
        services.game_resign(user=other, game_id=game.pk)
        return f"game:{game.pk}", f"game-{game.pk}"
    if kind == "challenge":
        challenge = services.challenge_create(user=other, opponent=user)
        return f"challenge:{challenge.pk}", f"challenge-{challenge.pk}"
    game = make_game(yellow=user, red=other)  # a pairing, as tournaments.services records it
    notify(user, "pairing", f"pairing:7:1:{user.pk}", {"tournament": 7, "tournament_name": "Autumn Swiss",
                                                       "round": 1, "game": game.pk, "color": "yellow"})
    return f"pairing:7:1:{user.pk}", f"game-{game.pk}"


EVENT = {"tournament": "pairing"}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("email", "on"), [("each", True), ("none", False), ("digest", True), ("none", True),
                                           ("each", False)])
def test_each_kind_comes_by_the_channels_its_player_chose(kind, email, on, service, eager, mailoutbox,
                                                          django_capture_on_commit_callbacks):
    ann, bob = make_user("ann"), make_user("bob")
    device = subscribed(ann, service)
    only(ann, kind, email, on)
    event = EVENT.get(kind, kind)
    with django_capture_on_commit_callbacks(execute=True):
        key, tag = happen(kind, ann, bob)
    rows = {n.channel for n in Notice.objects.filter(user=ann, event=event, key=key)}
    listed_by_digest = kind in ("your_turn", "reminder")
    expected = ({"email"} if email == "each" else {"digest"} if email == "digest" and not listed_by_digest
                else set()) | ({"push"} if on else set())
    assert rows == expected
    # your turn's email is held (YOUR_TURN_EMAIL_DELAY); the rest go at once
    if email == "each" and kind != "your_turn":
        assert [m.to for m in mailoutbox if m.to == [ann.email]] == [[ann.email]]
    elif email != "each":
        assert not [m for m in mailoutbox if m.to == [ann.email]]
    if on:
        message = device.read(service.take())
        assert message["kind"] == event and message["title"]
        assert message["tag"] == tag
    else:
        assert service.nothing()
    # nothing of it reached bob, whose settings are the defaults and who has no device
    assert not Notice.objects.filter(user=bob, event=event, channel="push").exists()


def test_a_push_is_encrypted_for_its_device_signed_by_the_site_and_says_what_and_where(
        service, eager, django_capture_on_commit_callbacks):
    ann, bob = make_user("ann", language="de", time_zone="Europe/Berlin"), make_user("bob")
    phone, laptop = subscribed(ann, service), subscribed(ann, service)
    assert ann.push_devices == 2
    with django_capture_on_commit_callbacks(execute=True):
        game = make_game(yellow=ann, red=bob)
    got = {m.path: m for m in (service.take(), service.take())}
    assert set(got) == {phone.endpoint.split("/", 3)[3] and "/" + phone.endpoint.split("/", 3)[3],
                        "/" + laptop.endpoint.split("/", 3)[3]}
    for device in (phone, laptop):
        sent = got["/" + device.endpoint.split("/", 3)[3]]
        message = device.read(sent)
        assert message["title"] == f"Du bist am Zug in Partie {game.pk}"
        assert message["body"].startswith("gegen bob") and "Europe/Berlin" in message["body"]
        assert message["url"].endswith(f"/games/{game.pk}/") and message["tag"] == f"game-{game.pk}"
        headers = {k.lower(): v for k, v in sent.headers.items()}
        assert headers["content-encoding"] == "aes128gcm" and headers["urgency"] == "high"
        assert headers["topic"] == f"game-{game.pk}"
        assert headers["authorization"].startswith("vapid t=") and push.public_key() in headers["authorization"]
        # it lives until the deadline, no longer
        assert abs(int(headers["ttl"]) - (game.deadline - game.turn_started_at).total_seconds()) < 60
        with pytest.raises(Exception):  # noqa: B017 - another device's keys cannot read it
            (laptop if device is phone else phone).read(sent)
    assert service.nothing()
    row = Notice.objects.get(user=ann, channel="push")
    assert row.sent_at is not None and sorted(row.data["pushed"]) == sorted(ann.push_subscriptions.values_list(
        "pk", flat=True))


def test_quiet_hours_hold_emails_and_pushes_until_they_end(service, eager, mailoutbox,
                                                           django_capture_on_commit_callbacks):
    ann, bob = make_user("ann", time_zone="Europe/Berlin"), make_user("bob")
    device = subscribed(ann, service)
    user_set_notifications(user=ann, quiet=(22, 7))
    ann.refresh_from_db()
    night = datetime(2026, 12, 1, 22, 30, tzinfo=UTC)  # 23:30 in Berlin
    with time_machine.travel(night, tick=False), django_capture_on_commit_callbacks(execute=True):
        services.challenge_create(user=bob, opponent=ann)
    morning = datetime(2026, 12, 2, 6, 0, tzinfo=UTC)  # 07:00 in Berlin
    held = Notice.objects.filter(user=ann, event="challenge")
    assert {(n.channel, n.send_after) for n in held} == {("email", morning), ("push", morning)}
    assert not mailoutbox and service.nothing()
    with time_machine.travel(morning - timedelta(minutes=1), tick=False), django_capture_on_commit_callbacks(
            execute=True):
        sweep_clocks()
    assert not mailoutbox and service.nothing()
    with time_machine.travel(morning + timedelta(minutes=1), tick=False), django_capture_on_commit_callbacks(
            execute=True):
        sweep_clocks()
    assert [m.to for m in mailoutbox] == [[ann.email]]
    assert device.read(service.take())["kind"] == "challenge"
    # outside the window nothing waits; a window within a day (13 to 15) too
    user_set_notifications(user=ann, quiet=(13, 15))
    ann.refresh_from_db()
    assert ann.quiet_until(datetime(2026, 12, 2, 12, 30, tzinfo=UTC)) == datetime(2026, 12, 2, 14, 0, tzinfo=UTC)
    assert ann.quiet_until(datetime(2026, 12, 2, 14, 0, tzinfo=UTC)) is None
    assert ann.quiet_until(datetime(2026, 12, 2, 11, 59, tzinfo=UTC)) is None


def test_a_gone_device_is_removed_and_a_busy_service_is_retried_without_a_second_push(
        service, django_capture_on_commit_callbacks):
    ann, bob = make_user("ann"), make_user("bob")
    gone, busy, fine = (subscribed(ann, service) for _ in range(3))
    service.answer["/" + gone.endpoint.split("/", 3)[3]] = 410
    service.answer["/" + busy.endpoint.split("/", 3)[3]] = 503
    with django_capture_on_commit_callbacks(execute=False):
        services.challenge_create(user=bob, opponent=ann)
    row = Notice.objects.get(user=ann, channel="push")
    with pytest.raises(push.PushRetry):
        send_push.run(row.pk)
    assert fine.read(service.take())["kind"] == "challenge" and service.nothing()
    ann.refresh_from_db()
    assert ann.push_devices == 2 and not PushSubscription.objects.filter(endpoint=gone.endpoint).exists()
    row.refresh_from_db()
    assert row.sent_at is None and len(row.data["pushed"]) == 1
    assert "503" in PushSubscription.objects.get(endpoint=busy.endpoint).last_error
    del service.answer["/" + busy.endpoint.split("/", 3)[3]]
    assert send_push.run(row.pk) == 1  # the retry reaches the busy one only
    assert busy.read(service.take())["kind"] == "challenge" and service.nothing()
    assert send_push.run(row.pk) == 0  # and never again
    assert service.nothing()


def test_a_your_turn_push_waits_and_is_dropped_when_the_move_was_seen_live_or_played(
        settings, service, eager, django_capture_on_commit_callbacks):
    settings.YOUR_TURN_PUSH_DELAY = 10
    ann, bob = make_user("ann"), make_user("bob")
    device = subscribed(ann, service)
    t0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    with time_machine.travel(t0, tick=False), django_capture_on_commit_callbacks(execute=True):
        game = make_game(yellow=ann, red=bob)
    assert service.nothing(), "held: the eager task came early and left it for later"
    with time_machine.travel(t0 + timedelta(seconds=11), tick=False), django_capture_on_commit_callbacks(
            execute=True):
        sweep_clocks()
    assert device.read(service.take())["url"].endswith(f"/games/{game.pk}/")
    # a second game: ann has its page open (its stream marks her there), so the push is dropped
    with time_machine.travel(t0 + timedelta(minutes=5), tick=False), django_capture_on_commit_callbacks(
            execute=True):
        other = make_game(yellow=ann, red=make_user("cid"))
        live.mark_seen(ann.pk, other.pk)
    # a third: ann moves within the ten seconds: nothing either
    with time_machine.travel(t0 + timedelta(minutes=10), tick=False), django_capture_on_commit_callbacks(
            execute=True):
        third = make_game(yellow=ann, red=make_user("dee"))
        line = third.course.data["course"]["start_finish_cells"]
        services.game_place(user=ann, game_id=third.pk, ply=0, cell=tuple(line[0]), heading=0)
    with time_machine.travel(t0 + timedelta(minutes=11), tick=False), django_capture_on_commit_callbacks(
            execute=True):
        sweep_clocks()
    assert service.nothing()
    dropped = Notice.objects.filter(user=ann, channel="push", key__startswith=f"game:{other.pk}:")
    assert dropped.get().sent_at is not None and "pushed" not in dropped.get().data


def test_only_push_services_are_written_to_and_keys_must_be_a_browsers(service):
    ann = make_user("ann")
    client = APIClient()
    client.force_authenticate(ann)
    device = service.device()
    for endpoint in ("http://127.0.0.1:5432/", "https://example.org/push", "file:///etc/passwd",
                     service.url.replace("127.0.0.1", "localhost") + "push/x"):
        refused = client.post("/api/push/devices/", {**device.subscription(), "endpoint": endpoint}, format="json")
        assert refused.status_code == 400 and refused.json()["field"] == "endpoint", endpoint
    bad = client.post("/api/push/devices/", {**device.subscription(), "keys": {"p256dh": "A" * 87, "auth": "B" * 22}},
                      format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "keys.p256dh"
    assert not PushSubscription.objects.exists()
    made = client.post("/api/push/devices/", device.subscription(), format="json",
                       HTTP_USER_AGENT="Mozilla/5.0 (Linux; Android 14) Chrome/130.0 Mobile Safari/537.36")
    assert made.status_code == 201 and made.json()["name"] == "Chrome on Android"
    listed = client.get("/api/push/devices/").json()
    assert [d["endpoint"] for d in listed] == [device.endpoint]
    assert APIClient().get("/api/push/key/").json()["public_key"] == push.public_key()
    # the same browser signing in as another player: the device is theirs now
    bob = make_user("bob")
    other = APIClient()
    other.force_authenticate(bob)
    assert other.post("/api/push/devices/", device.subscription(), format="json").status_code == 201
    ann.refresh_from_db()
    bob.refresh_from_db()
    assert (ann.push_devices, bob.push_devices) == (0, 1)
    assert client.delete(f"/api/push/devices/{made.json()['id']}/").status_code == 404  # not ann's any more
    assert other.delete(f"/api/push/devices/{made.json()['id']}/").status_code == 204
    bob.refresh_from_db()
    assert bob.push_devices == 0


def test_the_settings_page_and_the_api_set_each_kind_and_the_quiet_hours():
    ann = make_user("ann")
    page = Client()
    page.login(username="ann", password=PASSWORD)
    shown = page.get("/settings/").content.decode()
    assert 'id="notifications"' in shown and 'name="game_over_email"' in shown and 'name="challenge_push"' in shown
    form = {"save": "1", "email": "ann@example.org", "digest_hour": 8, "reminder_hours": 24, "time_zone": "UTC",
            "quiet_from": 23, "quiet_to": 6, "next_game_link": "on"}
    for kind in KINDS:
        form[f"{kind}_email"] = "each"
        form[f"{kind}_push"] = "on"
    form.update(your_turn_email="digest", game_over_push="")
    assert page.post("/settings/", form).status_code == 302
    ann.refresh_from_db()
    assert ann.channels("your_turn") == {"email": "digest", "push": True}
    assert ann.channels("game_over") == {"email": "each", "push": False}
    assert (ann.quiet_from, ann.quiet_to, ann.email_mode) == (23, 6, "digest")
    refused = page.post("/settings/", {**form, "quiet_to": ""})
    assert refused.status_code == 400 and "Quiet hours need both hours" in refused.content.decode()
    api = APIClient()
    api.force_authenticate(ann)
    me = api.get("/api/me/").json()
    assert me["notifications"]["your_turn"] == {"email": "digest", "push": True} and me["quiet_from"] == 23
    changed = api.patch("/api/me/", {"notifications": {"challenge": {"push": False}}, "quiet_from": None,
                                     "quiet_to": None}, format="json").json()
    assert changed["notifications"]["challenge"] == {"email": "each", "push": False}
    assert changed["notifications"]["your_turn"] == {"email": "digest", "push": True}
    assert changed["quiet_from"] is None
    bad = api.patch("/api/me/", {"notifications": {"your_turn": {"email": "sometimes"}}}, format="json")
    assert bad.status_code == 400 and bad.json()["field"].startswith("notifications")
    half = api.patch("/api/me/", {"quiet_from": 3}, format="json")
    assert half.status_code == 400 and half.json()["field"] == "quiet_to"
    # the old preset still works on every kind's email (the pushes stay as chosen)
    preset = api.patch("/api/me/", {"email_mode": "none"}, format="json").json()
    assert preset["email_mode"] == "none" and preset["notifications"]["your_turn"] == {"email": "none", "push": True}
    assert preset["notifications"]["game_over"] == {"email": "none", "push": False}


def test_the_digest_carries_what_waited_for_it(eager, mailoutbox, django_capture_on_commit_callbacks):
    ann, bob = make_user("ann", digest_hour=8), make_user("bob")
    user_set_notifications(user=ann, notify={"game_over": {"email": "digest"}, "challenge": {"email": "digest"}})
    ann.refresh_from_db()
    t0 = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    with time_machine.travel(t0, tick=False), django_capture_on_commit_callbacks(execute=True):
        game = placed_game(yellow=ann, red=bob)
        services.game_resign(user=bob, game_id=game.pk)
        services.challenge_create(user=bob, opponent=ann)
    assert not [m for m in mailoutbox if m.to == [ann.email]]
    with time_machine.travel(t0 + timedelta(days=1) - timedelta(hours=1, minutes=55), tick=False), \
            django_capture_on_commit_callbacks(execute=True):
        assert send_digests() == 1
    digest = next(m for m in mailoutbox if m.to == [ann.email])
    assert digest.subject == "Powerboats: 2 new notices"
    assert f"Game {game.pk} is over: you won" in digest.body and "bob challenges you" in digest.body
    assert not Notice.objects.filter(user=ann, channel="digest", sent_at__isnull=True).exists()
    with time_machine.travel(t0 + timedelta(days=2) - timedelta(hours=1, minutes=55), tick=False):
        assert send_digests() == 0  # nothing new: no digest


def test_my_games_are_urgent_first_and_the_next_game_link_can_be_hidden():
    ann = make_user("ann")
    t0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    with time_machine.travel(t0, tick=False):
        slow = make_game(yellow=ann, red=make_user("bob"), days_per_move=7)  # ann's turn, deadline far
    with time_machine.travel(t0 + timedelta(hours=1), tick=False):
        soon = make_game(yellow=ann, red=make_user("cid"), days_per_move=1)  # ann's turn, deadline near
    with time_machine.travel(t0 + timedelta(hours=2), tick=False):
        waiting = make_game(yellow=make_user("dee"), red=ann)  # dee's turn
    with time_machine.travel(t0 + timedelta(hours=3), tick=False):
        fresh = make_game(yellow=make_user("eve"), red=ann)  # eve's turn, moved later
    with time_machine.travel(t0 + timedelta(hours=4), tick=False):
        done = placed_game(yellow=ann, red=make_user("fay"))
        services.game_resign(user=ann, game_id=done.pk)
    api = APIClient()
    api.force_authenticate(ann)
    order = [g["id"] for g in api.get("/api/games/").json()["results"]]
    assert order == [soon.pk, slow.pk, fresh.pk, waiting.pk, done.pk]
    page = Client()
    page.login(username="ann", password=PASSWORD)
    games = page.get("/games/").content.decode()
    assert games.index(f"/games/{soon.pk}/") < games.index(f"/games/{slow.pk}/") < games.index(f"/games/{fresh.pk}/")
    assert f"your turn: #{soon.pk}" in games and 'id="menu-next-game"' in games
    assert page.get("/games/next/").url == f"/games/{soon.pk}/"
    user_set_notifications(user=ann, next_game_link=False)
    hidden = page.get("/games/").content.decode()
    assert 'id="menu-next-game"' not in hidden and "next-game-quick" not in hidden and 'id="next-game"' not in hidden


def test_settings_saved_is_said_in_the_language_just_chosen():
    """A play-test switched Settings to Italian and was told "Settings saved." in English."""
    make_user("lina")
    page = Client()
    page.login(username="lina", password=PASSWORD)
    form = {"save": "1", "email": "lina@example.org", "digest_hour": 8, "reminder_hours": 24, "time_zone": "UTC",
            "quiet_from": "", "quiet_to": "", "language": "it"}
    for kind in KINDS:
        form[f"{kind}_email"] = "each"
    response = page.post("/settings/", form, follow=True)
    assert response.status_code == 200
    said = [str(m) for m in response.context["messages"]]
    assert said == ["Impostazioni salvate."], said
