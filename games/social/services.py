"""Writes around a game (issue 13): its chat with moderation, and rematches. Each function owns
its transaction; refusals are ServiceErrors naming the field and change nothing.

Who may do what (docs/social.md):

* **chat** — the game's two players write (also after the game ended); everyone who can see
  the game reads (spectators read only). A line is 1 to ``CHAT_MAX_LENGTH`` characters with no
  control or invisible characters (Unicode category C*, so no line breaks either); it is
  escaped when shown; at most ``CHAT_BURST`` lines a minute per player and game (429). A player can **mute** the opponent's chat in a game (their lines are then
  hidden from that player only) and **report** a line of the opponent's to the staff (Django
  admin). ``chat_posted`` is published after the commit.
* **rematch** — after a game ended either player offers one: a challenge to the opponent with
  the same settings and the colours swapped. An offer when the opponent's own offer is open
  accepts theirs; against a house bot the rematch starts at once.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.names import control_characters
from common.errors import Conflict, NotAPlayer, NotFound, ServiceError
from games import clock, services
from games.house import is_house_bot
from games.models import COLORS, Challenge, Game
from games.signals import chat_posted

from .models import CHAT_MAX_LENGTH, ChatMessage, ChatMute, ChatReport

REPORT_REASON_MAX_LENGTH = 200
CHAT_BURST = 10  # lines a player may write in a game within CHAT_BURST_SECONDS
CHAT_BURST_SECONDS = 60


class TooFast(ServiceError):
    status = 429
    code = "throttled"


def _game_of_player(user: Any, game_id: int, *, lock: bool = False, what: str = "") -> tuple[Game, int]:
    games = Game.objects.all()
    if lock:
        games = games.select_for_update(of=("self",))
    game = games.filter(pk=game_id).first()
    if game is None:
        raise NotFound(gettext("no game %(game_id)s") % {"game_id": game_id}, "game")
    seat = game.seat_of(user)
    if seat is None:
        raise NotAPlayer(what or gettext("only the two players of a game can do this"), "game")
    return game, seat


def clean_chat_text(text: str) -> str:
    """A chat line as stored: stripped; refused when empty, too long, or holding control or
    invisible characters (which could hide or fake text)."""
    text = text.strip()
    if not text:
        raise ServiceError(gettext("a chat line cannot be empty"), "text")
    if len(text) > CHAT_MAX_LENGTH:
        raise ServiceError(gettext("a chat line has at most %(most)d characters (this one has %(length)d)")
                           % {"most": CHAT_MAX_LENGTH, "length": len(text)}, "text")
    bad = control_characters(text)
    if bad:
        raise ServiceError(gettext("a chat line cannot hold control or invisible characters (%(characters)s)")
                           % {"characters": ", ".join(dict.fromkeys(bad))}, "text")
    return text


@transaction.atomic
def chat_post(*, user: Any, game_id: int, text: str) -> ChatMessage:
    """A player writes a line in the game's chat."""
    game, _ = _game_of_player(user, game_id, what=gettext("only the two players of a game can write in its chat"))
    text = clean_chat_text(text)
    since = timezone.now() - timedelta(seconds=CHAT_BURST_SECONDS)
    if ChatMessage.objects.filter(game=game, user=user, created_at__gte=since).count() >= CHAT_BURST:
        raise TooFast(gettext("at most %(n)d lines a minute: wait a little") % {"n": CHAT_BURST}, "text")
    message = ChatMessage.objects.create(game=game, user=user, text=text)
    transaction.on_commit(lambda: chat_posted.send(
        sender=ChatMessage, game_id=game.pk, message_id=message.pk, user_id=user.pk))
    return message


@transaction.atomic
def chat_mute(*, user: Any, game_id: int, muted: bool = True) -> bool:
    """A player mutes (or, with ``muted=False``, unmutes) the opponent's chat in a game.
    Returns whether the opponent is muted now; doing it twice is harmless."""
    game, _ = _game_of_player(user, game_id, what=gettext("only the two players of a game can mute its chat"))
    if muted:
        ChatMute.objects.get_or_create(game=game, user=user)
    else:
        ChatMute.objects.filter(game=game, user=user).delete()
    return muted


@transaction.atomic
def chat_report(*, user: Any, message_id: int, reason: str = "", game_id: int | None = None) -> ChatReport:
    """A player reports a chat line of the opponent's to the staff (once per line); with
    ``game_id`` the line must belong to that game."""
    message = ChatMessage.objects.select_related("game").filter(pk=message_id).first()
    if message is None or (game_id is not None and message.game_id != game_id):
        raise NotFound(gettext("no chat line %(id)s") % {"id": message_id}, "message")
    if message.game.seat_of(user) is None:
        raise NotAPlayer(gettext("only the two players of a game can report its chat"), "message")
    if message.user_id == user.pk:
        raise ServiceError(gettext("you cannot report your own line"), "message")
    reason = reason.strip()
    if len(reason) > REPORT_REASON_MAX_LENGTH or control_characters(reason):
        raise ServiceError(gettext("a reason has at most %(most)d characters and no control characters")
                           % {"most": REPORT_REASON_MAX_LENGTH}, "reason")
    try:
        with transaction.atomic():
            return ChatReport.objects.create(message=message, reporter=user, reason=reason)
    except IntegrityError:
        raise Conflict(gettext("you have reported this line already"), "message") from None


# --- rematch --------------------------------------------------------------------------------


@transaction.atomic
def game_rematch(*, user: Any, game_id: int) -> Challenge | Game:
    """Offer a rematch of a finished game: a challenge to the opponent with the same settings
    and the colours swapped. Returns the challenge — or the new game, when the opponent had
    offered one already (theirs is accepted) or is a house bot (it accepts at once)."""
    game, seat = _game_of_player(user, game_id, lock=True, what=gettext("only the two players of a game can ask for a rematch"))  # one offer at a time
    if not game.over:
        raise Conflict(gettext("a rematch can be offered once the game is over"), "game")
    if game.multi_race:
        raise Conflict(gettext("a series is not played again as a rematch: open a new one in the lobby"), "game")
    opponent = game.player(1 - seat)
    earlier = Challenge.objects.filter(rematch_of=game).exclude(
        status__in=[Challenge.Status.CANCELLED, Challenge.Status.DECLINED]).first()
    if earlier is not None:
        if earlier.status == Challenge.Status.ACCEPTED:
            raise Conflict(gettext("the rematch has been played already: game %(number)s") % {"number": earlier.game_id},
                           "game")
        if earlier.created_by_id == user.pk:
            raise Conflict(gettext("you have offered a rematch already; it waits for your opponent"), "game")
        return services.challenge_accept(user=user, challenge_id=earlier.pk)
    original = Challenge.objects.filter(game=game).only("course_letter").first()
    challenge = services.challenge_create(
        user=user, opponent=opponent, color=COLORS[1 - seat], days_per_move=game.days_per_move,
        grace_days=game.grace_days, course_letter=original.course_letter if original else game.course_letter,
        lake_side=game.lake_side, rated=game.rated, terms=clock.terms(game),
    )
    challenge.rematch_of = game
    challenge.save(update_fields=["rematch_of"])
    if is_house_bot(opponent):
        return services.challenge_accept(user=opponent, challenge_id=challenge.pk)
    return challenge
