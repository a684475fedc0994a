"""What a player is told, and by which channels: one pipeline for every notice (docs/notifications.md).

The services record a ``Notice`` row per notice and channel — an email at once, a web push, or a
line that waits for the player's daily digest — inside the transaction of what caused it (a move,
a time-out, a challenge, a pairing; a unique key makes each exactly once), so that a notice exists
if and only if the change committed. Which channels a player gets for each kind of notice is
theirs to choose (``accounts.models.User.channels``: email each, in the digest or none; push on or
off); during their quiet hours nothing is sent at once: it waits for the end of them.

After the commit the rows are published (``notices_recorded``) and a receiver queues their
sending (games.notifications.emails, games.notifications.push); a your-turn notice is held a
little (``hold``) and dropped when it is released if the player acted meanwhile or had the game
live in front of them. The clock sweep releases held notices whose time has come and queues again
what was recorded but never sent.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from common.db.writing import Writes
from games.house import is_house_bot
from games.live import events as live
from games.models import Challenge, Game
from games.signals import notices_recorded

from .models import Notice

Note = tuple[Any, str, str, dict[str, Any]]  # user, event, key, data
# listed by the digest itself (the games where it is the player's turn, with their deadlines)
LISTED_BY_DIGEST = ("your_turn", "reminder")


def _after(now: datetime, hold: timedelta | None, quiet: datetime | None) -> datetime | None:
    held = now + hold if hold else None
    if quiet is not None and (held is None or quiet > held):
        return quiet
    return held


def rows_for(notes: list[Note], *, now: datetime, hold: timedelta | None = None,
             push_hold: timedelta | None = None) -> list[Notice]:
    """The rows of these notices by the channels each recipient wants: an email (at once, or
    held), a line of their next digest, a push (at once, or held); what would go out in their
    quiet hours waits for the end of them."""
    rows = []
    for user, event, key, data in notes:
        quiet = user.quiet_until(now)
        if user.wants_email(event):
            rows.append(Notice(user=user, event=event, channel=Notice.Channel.EMAIL, key=key, data=data,
                               send_after=_after(now, hold, quiet)))
        elif user.wants_in_digest(event) and event not in LISTED_BY_DIGEST:
            rows.append(Notice(user=user, event=event, channel=Notice.Channel.DIGEST, key=key, data=data))
        if user.wants_push(event):
            rows.append(Notice(user=user, event=event, channel=Notice.Channel.PUSH, key=key, data=data,
                               send_after=_after(now, push_hold, quiet)))
    return rows


def _publish(rows: list[Notice], now: datetime) -> None:
    """After the commit: the emails and pushes to send, each with how long it waits (a push held
    a few seconds is queued with that countdown; an email held, or anything held longer than a
    minute, is left to the sweep, which releases it when its time has come). The ids are read
    then: rows sent with the caller's other writes have theirs only once those are sent."""
    sent = [row for row in rows if row.channel != Notice.Channel.DIGEST]
    due = []
    for row in sent:
        wait = (row.send_after - now).total_seconds() if row.send_after else 0.0
        if row.send_after is None or (row.channel == Notice.Channel.PUSH and wait <= 60):
            due.append((row, max(wait, 0.0)))
    if due:
        transaction.on_commit(lambda: notices_recorded.send(
            sender=Notice, notices=[(row.pk, row.channel, wait) for row, wait in due]))


def record(notes: list[Note], hold: timedelta | None = None, writes: Writes | None = None,
           push_hold: timedelta | None = None) -> list[Notice]:
    """Inside the caller's transaction: the rows of these notices by every channel their
    recipients want, published for sending when the transaction commits (:func:`_publish`). The
    caller guarantees the keys are new (it holds the lock of what the notices are about); use
    :func:`notify` otherwise. With ``writes`` the rows join the caller's other writes
    (common.db.writing), sent with them."""
    now = timezone.now()
    rows = rows_for(notes, now=now, hold=hold, push_hold=push_hold)
    if not rows:
        return []
    if writes is not None:
        writes.insert(rows)
    else:
        Notice.objects.bulk_create(rows)
    _publish(rows, now)
    return rows


def your_turn_hold() -> timedelta:
    """How long a your-turn email waits (settings.YOUR_TURN_EMAIL_DELAY, seconds): moves made in
    quick succession (a player and a bot, two players online) send none while the player is
    there, and no email is published on the move's own request (docs/performance.md)."""
    return timedelta(seconds=settings.YOUR_TURN_EMAIL_DELAY)


def your_turn_push_hold() -> timedelta:
    """How long a your-turn push waits (settings.YOUR_TURN_PUSH_DELAY, seconds): long enough for
    a page the player has open to be seen live, short enough to arrive within seconds."""
    return timedelta(seconds=settings.YOUR_TURN_PUSH_DELAY)


def notify(user: Any, event: str, key: str, data: dict[str, Any]) -> list[Notice]:
    """Record a notice once per user, event, key and channel (a repeat is ignored), by every
    channel the user wants for it."""
    now = timezone.now()
    recorded = []
    for row in rows_for([(user, event, key, data)], now=now):
        try:
            with transaction.atomic():
                row.save(force_insert=True)
        except IntegrityError:
            continue  # already recorded: exactly once
        recorded.append(row)
    _publish(recorded, now)
    return recorded


# --- what happened ------------------------------------------------------------------------


def your_turn(game: Game) -> list[Note]:
    """The player to move is told (once per ply; held, :func:`your_turn_hold`, and dropped at
    release when the player had the game live or acted meanwhile) — never a house bot, and not
    when every other player still in the game is a house bot (their answers come within
    seconds) unless the player asked for those (``bot_turn_emails``, Settings; issue 13). The
    players are loaded with the game: no query."""
    player = game.user_to_move
    if player is None or is_house_bot(player):
        return []
    others = [s.user for s in game.seat_list() if s.index is not None and s.user_id != player.pk and not s.left]
    if others and all(is_house_bot(u) for u in others) and not player.bot_turn_emails:
        return []
    return [(player, "your_turn", f"game:{game.pk}:ply:{game.ply}", {"game": game.pk})]


def reminder(game: Game) -> list[Note]:
    assert game.turn_started_at is not None
    return [(game.user_to_move, "reminder", f"game:{game.pk}:turn:{game.turn_started_at.isoformat()}",
             {"game": game.pk})]


def game_over(game: Game) -> list[Note]:
    return [(user, "game_over", f"game:{game.pk}", {"game": game.pk}) for user in game.players]


def challenge(challenge: Challenge) -> list[Note]:
    if challenge.opponent is None:
        return []
    return [(challenge.opponent, "challenge", f"challenge:{challenge.pk}", {"challenge": challenge.pk})]


# --- at release: is it still worth sending? -----------------------------------------------------


def seen_live(entry: Notice) -> bool:
    """A your-turn notice for a move the player saw live: they had the game's page, or their API
    event stream, open when it was made or since (games.live.models.LiveSeen)."""
    return entry.event == "your_turn" and live.saw_live(entry.user_id, entry.data.get("game"), entry.created_at)


def moved_on(entry: Notice) -> bool:
    """A your-turn notice whose turn is over (the player moved, or the game went on, while it was
    held back)."""
    if entry.event != "your_turn":
        return False
    ply = int(entry.key.rsplit(":", 1)[1])
    return not Game.objects.filter(pk=entry.data.get("game"), ply=ply, status=Game.Status.ACTIVE).exists()


def still_wanted(entry: Notice) -> bool:
    """Whether a recorded email or push should still go out: the player still wants it by that
    channel, their turn has not passed, they did not see the move live."""
    user = entry.user
    wants = user.wants_push(entry.event) if entry.channel == Notice.Channel.PUSH else user.wants_email(entry.event)
    return wants and not moved_on(entry) and not seen_live(entry)
