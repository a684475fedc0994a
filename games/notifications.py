"""Emails about games: what goes out, to whom, with which text.

The services record one ``EmailLog`` row per email that must go out inside the transaction
of what caused it (a move, a time-out, a challenge; a unique key makes it exactly once), so
that the email exists if and only if the change committed. After the commit the ids are
published (``emails_recorded``) and a receiver queues ``send_email`` for each. The task renders
a plain-text and an HTML part, each with a direct link and a signed one-click unsubscribe
link, and sends it; a failing mail server is retried with back-off, and the clock sweep
queues again what was recorded but never sent (the broker was down).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.db.models import F
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from .models import COLORS, Challenge, EmailLog, Game
from .signals import emails_recorded

log = logging.getLogger(__name__)
User = get_user_model()
UNSUBSCRIBE_SALT = "powerboats.unsubscribe"

SUBJECTS = {
    "your_turn": "Your turn in game {game}",
    "reminder": "Reminder: your move in game {game} is due {due}",
    "game_over": "Game {game} is over: {result}",
    "challenge": "{by} challenges you to a game of Powerboats",
    "pairing": "New pairing: round {round} of {tournament}",
    "digest": "Your turn in {count} game{plural}",
    "tournament_over": "{tournament} is over: you finished {rank} of {players}",
    # round-robin groups and the Competition (tournaments.services_formats)
    "group_start": "{title}: you play in {group}",
    "group_over": "{title} is over: {outcome}",
}


def unsubscribe_token(user: Any) -> str:
    return signing.dumps({"u": user.pk}, salt=UNSUBSCRIBE_SALT)


def user_from_token(token: str) -> Any:
    """The user a token was made for, or None when it is not ours."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    return User.objects.filter(pk=data.get("u")).first()


def absolute(path: str) -> str:
    return settings.SITE_URL + path


Email = tuple[Any, str, str, dict[str, Any]]  # user, event, key, data


def record(emails: list[Email], hold: timedelta | None = None) -> list[int]:
    """Inside the caller's transaction: the rows of the emails whose recipients want them,
    published for sending when the transaction commits — or, with ``hold``, left for the clock
    sweep to send once that time has passed (``send_after``). The caller guarantees the keys
    are new (it holds the lock of what the emails are about); use :func:`notify` otherwise."""
    send_after = timezone.now() + hold if hold else None
    rows = [EmailLog(user=user, event=event, key=key, data=data, send_after=send_after)
            for user, event, key, data in emails if user.wants_email(event)]
    if not rows:
        return []
    EmailLog.objects.bulk_create(rows)
    ids = [row.pk for row in rows]
    if send_after is None:
        transaction.on_commit(lambda: emails_recorded.send(sender=EmailLog, ids=ids))
    return ids


def your_turn_hold() -> timedelta:
    """How long a your-turn email waits (settings.YOUR_TURN_EMAIL_DELAY, seconds): moves made in
    quick succession (a player and a bot, two players online) send none while the player is
    there, and no email is published on the move's own request (docs/performance.md)."""
    return timedelta(seconds=settings.YOUR_TURN_EMAIL_DELAY)


def notify(user: Any, event: str, key: str, data: dict[str, Any]) -> EmailLog | None:
    """Record an email to send once per user, event and key (a repeat is ignored)."""
    if not user.wants_email(event):
        return None
    try:
        with transaction.atomic():
            entry = EmailLog.objects.create(user=user, event=event, key=key, data=data)
    except IntegrityError:
        return None  # already recorded: exactly once
    transaction.on_commit(lambda: emails_recorded.send(sender=EmailLog, ids=[entry.pk]))
    return entry


def queue(entry_id: int) -> None:
    from .tasks import send_email

    try:
        send_email.delay(entry_id)
    except Exception:  # the broker is down: the sweep queues it again later; the move stands
        log.exception("could not queue email %s; it will be retried by the sweep", entry_id)


# --- what happened ------------------------------------------------------------------------


def your_turn(game: Game) -> list[Email]:
    """The player to move is told (once per ply)."""
    return [(game.player(game.to_move), "your_turn", f"game:{game.pk}:ply:{game.ply}", {"game": game.pk})]


def reminder(game: Game) -> list[Email]:
    return [(game.player(game.to_move), "reminder", f"game:{game.pk}:turn:{game.turn_started_at.isoformat()}",
             {"game": game.pk})]


def game_over(game: Game) -> list[Email]:
    return [(user, "game_over", f"game:{game.pk}", {"game": game.pk}) for user in (game.yellow, game.red)]


def challenge(challenge: Challenge) -> list[Email]:
    if challenge.opponent is None:
        return []
    return [(challenge.opponent, "challenge", f"challenge:{challenge.pk}", {"challenge": challenge.pk})]


# --- writing the email ----------------------------------------------------------------------


def local(when: datetime | None, user: Any) -> str:
    if when is None:
        return "—"
    return timezone.localtime(when, user.tz).strftime("%a %d %b %Y %H:%M") + f" ({user.time_zone})"


def _game_context(user: Any, game: Game) -> dict[str, Any]:
    seat = game.seat_of(user)
    opponent = game.player(1 - seat) if seat is not None else None
    seats = list(game.seats.order_by("index"))
    return {
        "game": game,
        "opponent": opponent,
        "color": COLORS[seat] if seat is not None else None,
        "link": absolute(reverse("game", args=[game.pk])),
        "deadline": local(game.deadline, user),
        "move_deadline": local(game.move_deadline, user),
        "seats": seats,
        "won": game.winner_id == user.pk,
        "draw": game.over and not game.winner_id,
    }


def message_for(entry: EmailLog) -> EmailMultiAlternatives:
    user = entry.user
    event = entry.event
    context: dict[str, Any] = {"user": user, "event": event, "site": settings.SITE_URL}
    fields: dict[str, Any] = {}
    if "game" in entry.data:
        game = Game.objects.select_related("yellow", "red", "winner").get(pk=entry.data["game"])
        context.update(_game_context(user, game))
        fields = {"game": game.pk, "due": local(game.deadline, user),
                  "result": "you won" if context["won"] else "a draw" if context["draw"] else "you lost"}
    if event == "challenge":
        challenge = Challenge.objects.select_related("created_by").get(pk=entry.data["challenge"])
        context.update(challenge=challenge, link=absolute(reverse("lobby")))
        fields = {"by": challenge.created_by.username}
    if event == "digest":
        games = Game.objects.filter(pk__in=entry.data["games"]).select_related("yellow", "red").order_by("deadline")
        context["games"] = [_game_context(user, g) for g in games]
        context["link"] = absolute(reverse("my_games"))
        fields = {"count": len(context["games"]), "plural": "" if len(context["games"]) == 1 else "s"}
    if event in ("pairing", "tournament_over"):
        context.update(entry.data)
        fields.update(round=entry.data.get("round"), tournament=entry.data.get("tournament_name"),
                      rank=entry.data.get("rank"), players=entry.data.get("players"))
    if event == "tournament_over":
        context["link"] = absolute(reverse("tournament", args=[entry.data["tournament"]]))
    if event in ("group_start", "group_over"):
        context.update(entry.data, link=absolute(entry.data["path"]))
        fields.update(title=entry.data["title"], group=entry.data["group"], outcome=entry.data.get("outcome"))
    unsubscribe = absolute(reverse("unsubscribe", args=[unsubscribe_token(user)]))
    context["unsubscribe"] = unsubscribe
    context["settings_link"] = absolute(reverse("settings"))
    subject = SUBJECTS[event].format(**fields)
    text = render_to_string(f"email/{event}.txt", context)
    html = render_to_string(f"email/{event}.html", context)
    message = EmailMultiAlternatives(
        subject, text, settings.DEFAULT_FROM_EMAIL, [user.email],
        headers={"List-Unsubscribe": f"<{unsubscribe}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"},
    )
    message.attach_alternative(html, "text/html")
    return message


def _moved_on(entry: EmailLog) -> bool:
    """A your-turn email whose turn is over (the player moved while it was held back)."""
    if entry.event != "your_turn":
        return False
    ply = int(entry.key.rsplit(":", 1)[1])
    return not Game.objects.filter(pk=entry.data.get("game"), ply=ply, status=Game.Status.ACTIVE).exists()


def send_logged(entry_id: int) -> bool:
    """Send one recorded email unless it went out already; raises when the server fails."""
    EmailLog.objects.filter(pk=entry_id, sent_at__isnull=True).update(attempts=F("attempts") + 1)
    with transaction.atomic():
        entry = EmailLog.objects.select_for_update().select_related("user").filter(pk=entry_id).first()
        if entry is None or entry.sent_at is not None:
            return False
        if not entry.user.wants_email(entry.event) or _moved_on(entry):
            entry.sent_at = timezone.now()  # unsubscribed since, or the player has moved already: nothing to send
            entry.save(update_fields=["sent_at"])
            return False
        message_for(entry).send()
        entry.sent_at = timezone.now()
        entry.save(update_fields=["sent_at"])
        return True
