"""Emails about games, the email channel of the notices (games.notifications.notices records
them): the text of each, in the recipient's language and time zone, and its sending.

The task renders a plain-text and an HTML part, each with a direct link and a signed one-click
unsubscribe link, and sends it; a failing mail server is retried with back-off, and the clock
sweep queues again what was recorded but never sent (the broker was down). The daily digest lists
the games where it is the player's turn and what waited for it (the notices of the digest channel).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.db.models import F
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import formats, timezone, translation
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext, gettext_noop, ngettext

from accounts.services import user_set_email_mode
from games.models import Challenge, Game
from games.reasons import color_name, group_text, outcome_text, place_text, rank_text, result_of, title_text

from .models import Notice
from .notices import still_wanted

log = logging.getLogger(__name__)
User = get_user_model()
UNSUBSCRIBE_SALT = "powerboats.unsubscribe"

# translated when the email is written, in the recipient's language (docs/i18n.md)
SUBJECTS = {
    "your_turn": gettext_noop("Your turn in game {game}"),
    "reminder": gettext_noop("Reminder: your move in game {game} is due {due}"),
    "game_over": gettext_noop("Game {game} is over: {result}"),
    "challenge": gettext_noop("{by} challenges you to a game of Powerboats"),
    "pairing": gettext_noop("New pairing: round {round} of {tournament}"),
    "digest": None,  # a plural: ngettext in message_for
    "tournament_over": gettext_noop("{tournament} is over: you finished {rank} of {players}"),
    # round-robin groups and the Competition (tournaments.services_formats)
    "group_start": gettext_noop("{title}: you play in {group}"),
    "group_over": gettext_noop("{title} is over: {outcome}"),
    "auto_vacation": gettext_noop("A vacation day was used for you: your clocks stop until {until}"),
}
# a game of the boxed rules is named as a series (by its number and race)
SERIES_SUBJECTS = {
    "your_turn": gettext_noop("Your turn in series {series} (race {race})"),
    "game_over": gettext_noop("Series {series} is over: {result}"),
    "reminder": gettext_noop("Reminder: your move in series {series} is due {due}"),
}


UNSUBSCRIBE_PURPOSE = "unsubscribe"


def _address(email: str) -> str:
    """Which address a link was sent to, without writing the address into the link (keyed with
    SECRET_KEY, so it cannot be guessed from a list of addresses)."""
    return salted_hmac(UNSUBSCRIBE_SALT + ".address", email).hexdigest()[:16]


def unsubscribe_token(user: Any) -> str:
    """A signed, timestamped token for one-click unsubscribing (RFC 8058). It names the user, its
    purpose, the account's ``unsubscribe_version`` and (keyed, not readable) the email address it
    is sent to; :func:`user_from_token` accepts it for ``UNSUBSCRIBE_LINK_DAYS`` while both are
    still the account's: using a link for a change raises the version (:func:`unsubscribe_link_use`),
    so the link works once, and a new address leaves the links sent to the old one behind."""
    return signing.dumps({"u": user.pk, "p": UNSUBSCRIBE_PURPOSE, "v": user.unsubscribe_version,
                          "a": _address(user.email)}, salt=UNSUBSCRIBE_SALT)


class BadToken(Exception):
    """An unsubscribe token that does nothing, and why (``reason``): ``invalid`` (forged, for
    another purpose, of another format, for no account), ``expired``, ``used`` (a change was
    made with it, or with a link sent after it) or ``address`` (sent to an address the account no
    longer has). ``user`` is the account for ``used``: the page may say how its emails stand."""

    STATUS = {"invalid": 400, "expired": 400, "used": 410, "address": 410}

    def __init__(self, reason: str = "invalid", user: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.user = user

    @property
    def expired(self) -> bool:
        return self.reason == "expired"

    @property
    def status(self) -> int:
        return self.STATUS[self.reason]


def user_from_token(token: str) -> Any:
    """The user an unsubscribe token was made for, while it may still change something; raises
    :class:`BadToken` naming why not."""
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT, max_age=timedelta(days=settings.UNSUBSCRIBE_LINK_DAYS))
    except signing.SignatureExpired:
        raise BadToken("expired") from None
    except signing.BadSignature:
        raise BadToken() from None
    if not isinstance(data, dict) or data.get("p") != UNSUBSCRIBE_PURPOSE or not isinstance(data.get("v"), int):
        raise BadToken()
    user_id = data.get("u")
    if not isinstance(user_id, int):
        raise BadToken()
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        raise BadToken()
    if not constant_time_compare(str(data.get("a")), _address(user.email)):
        raise BadToken("address")
    if data["v"] != user.unsubscribe_version:
        raise BadToken("used", user)
    return user


@transaction.atomic
def unsubscribe_link_use(*, user: Any, mode: str) -> bool:
    """Make the change of an unsubscribe link (``mode``: ``none`` to unsubscribe, ``each`` to
    come back) and use the link up: the account's ``unsubscribe_version`` is raised with it.
    ``user`` is as :func:`user_from_token` read it; False, changing nothing, when another request
    used a link of that version in between."""
    raised = User.objects.filter(pk=user.pk, unsubscribe_version=user.unsubscribe_version).update(
        unsubscribe_version=F("unsubscribe_version") + 1)
    if not raised:
        return False
    user_set_email_mode(user=user, mode=mode)
    user.unsubscribe_version += 1
    return True


def absolute(path: str) -> str:
    return str(settings.SITE_URL) + path


# --- writing the email ----------------------------------------------------------------------


def local(when: datetime | None, user: Any) -> str:
    if when is None:
        return "—"
    # day and month names, and their order, in the active language (the recipient's, see message_for)
    return formats.date_format(timezone.localtime(when, user.tz), long_datetime_format()) + f" ({user.time_zone})"


def long_datetime_format() -> str:
    """The active language's ``LONG_DATETIME`` (powerboats_site/formats/<lang>/formats.py)."""
    for module in formats.get_format_modules(translation.get_language()):
        value = getattr(module, "LONG_DATETIME", None)
        if value:
            return str(value)
    return "D j M Y H:i"


def _game_context(user: Any, game: Game) -> dict[str, Any]:
    """What an email about a game says of it: the player's opponent (a two-player game) or the
    series' table, the deadlines in the reader's time zone, how it ended for them."""
    seat = game.seat_of(user)
    seats = [s for s in game.seat_list() if s.index is not None]
    opponent = next((s.user for s in seats if s.user_id != user.pk), None) if not game.multi_race else None
    return {
        "game": game,
        "opponent": opponent,
        "color": color_name(game.color_of(seat) or "") if seat is not None else None,
        "link": absolute(reverse("game", args=[game.pk])),
        "deadline": local(game.deadline, user),
        "move_deadline": local(game.move_deadline, user),
        "seats": seats,
        "table": sorted(seats, key=lambda s: (s.place or 99, s.index)),
        "race": "ABC"[game.race],
        "won": game.winner_id == user.pk,
        "draw": game.over and not game.winner_id,
    }


def plural_count(value: float) -> int:
    """The number that picks the plural form for a score: a whole score is itself, a half one
    (1.5) takes the form of "other", as in English, German and Italian ("1.5 points")."""
    number = float(value)
    return int(number) if number.is_integer() else 2


def message_for(entry: Notice) -> EmailMultiAlternatives:
    """The email in the recipient's language (``User.language``, else the site's) and time zone."""
    user = entry.user
    with translation.override(user.language or settings.LANGUAGE_CODE), timezone.override(user.tz):
        return _message_for(entry, user)


def compose(entry: Notice, user: Any) -> tuple[str, dict[str, Any]]:
    """What a notice says, in the active language: its subject (an email's, a push's title) and
    the context its texts are written from (``link``: where it leads)."""
    event = entry.event
    context: dict[str, Any] = {"user": user, "event": event, "site": settings.SITE_URL,
                               "link": absolute(reverse("my_games"))}
    fields: dict[str, Any] = {}
    subjects = SUBJECTS
    if "game" in entry.data:
        game = Game.objects.select_related("winner").get(pk=entry.data["game"])
        context.update(_game_context(user, game))
        fields = {"game": game.pk, "due": local(game.deadline, user),
                  "result": gettext("you won") if context["won"] else gettext("a draw") if context["draw"]
                  else gettext("you lost")}
        if game.multi_race:
            subjects = {**SUBJECTS, **SERIES_SUBJECTS}
            fields.update(series=game.series_number, race=context["race"], result=result_of(game))
    if event == "challenge":
        challenge = Challenge.objects.select_related("created_by").get(pk=entry.data["challenge"])
        context.update(challenge=challenge, link=absolute(reverse("lobby")))
        fields = {"by": challenge.created_by.username}
    if event == "digest":
        games = Game.objects.filter(pk__in=entry.data["games"]).prefetch_related("seats__user").order_by("deadline",
                                                                                                         "pk")
        context["games"] = [_game_context(user, g) for g in games]
        context["count"] = len(context["games"])
        context["news"] = [{"text": text, "link": about["link"]}
                           for text, about in (compose(n, user) for n in waiting_for_digest(entry))]
        fields = {"count": context["count"]}
    if event in ("pairing", "tournament_over"):
        context.update(entry.data)
        if "color" in entry.data:
            context["color"] = color_name(entry.data["color"])
        if "rank" in entry.data:
            context["rank"] = rank_text(entry.data["rank"])
        if "group" in entry.data:  # a round of a round-robin or of a Competition's group, named in this language
            context["tournament_name"] = f"{title_text(entry.data)}, {group_text(entry.data['group'])}"
        fields.update(round=entry.data.get("round"), tournament=context.get("tournament_name"),
                      rank=context.get("rank"), players=entry.data.get("players"))
    if "score" in entry.data:
        context["score_count"] = plural_count(entry.data["score"])
    if event == "auto_vacation":
        until = datetime.fromisoformat(entry.data["until"])
        left = entry.data.get("days_left", 0)
        context.update(until=local(until, user), days_left=formats.number_format(left, decimal_pos=1 if left % 1 else 0),
                       days_count=plural_count(left), low=entry.data.get("low", False))
        fields["until"] = context["until"]
    if event == "tournament_over":
        context["link"] = absolute(reverse("tournament", args=[entry.data["tournament"]]))
    if event in ("group_start", "group_over"):
        context.update(entry.data, link=absolute(entry.data["path"]), group=group_text(entry.data["group"]))
        context["games"] = [{**g, "color": color_name(g.get("color", ""))} for g in entry.data.get("games", [])]
        context["title"] = title_text(entry.data)
        if entry.data.get("place"):
            context["outcome"] = place_text(entry.data["place"])
        elif entry.data.get("outcome"):  # recorded before the outcome was stored as data
            context["outcome"] = outcome_text(entry.data["outcome"])
        fields.update(title=context["title"], group=context["group"], outcome=context.get("outcome"))
    if event == "pairing" and "game" in entry.data:
        context["link"] = absolute(reverse("game", args=[entry.data["game"]]))
    template = subjects[event]
    if template is None:
        if not fields["count"]:  # only what waited for the digest: no game to move
            template = ngettext("Powerboats: {news} new notice", "Powerboats: {news} new notices",
                                len(context["news"]))
            fields["news"] = len(context["news"])
        else:
            template = ngettext("Your turn in {count} game", "Your turn in {count} games", fields["count"])
    else:
        template = gettext(template)
    return template.format(**fields), context


def _message_for(entry: Notice, user: Any) -> EmailMultiAlternatives:
    event = entry.event
    subject, context = compose(entry, user)
    unsubscribe = absolute(reverse("unsubscribe", args=[unsubscribe_token(user)]))
    context["unsubscribe"] = unsubscribe
    context["settings_link"] = absolute(reverse("settings"))
    text = render_to_string(f"email/{event}.txt", context)
    html = render_to_string(f"email/{event}.html", context)
    message = EmailMultiAlternatives(
        subject, text, settings.DEFAULT_FROM_EMAIL, [user.email],
        headers={"List-Unsubscribe": f"<{unsubscribe}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"},
    )
    message.attach_alternative(html, "text/html")
    return message


def waiting_for_digest(entry: Notice) -> list[Notice]:
    """The notices a digest carries besides the games to move: those of the digest channel it was
    made with (``data["notices"]``) that no digest has sent yet, oldest first."""
    ids = entry.data.get("notices") or []
    if not ids:
        return []
    return list(Notice.objects.filter(pk__in=ids, user_id=entry.user_id, channel=Notice.Channel.DIGEST,
                                      sent_at__isnull=True).order_by("created_at", "pk"))


def send_logged(entry_id: int) -> bool:
    """Send one recorded email unless it went out already; raises when the server fails. A
    digest marks the notices it carried as sent with it."""
    Notice.objects.filter(pk=entry_id, sent_at__isnull=True).update(attempts=F("attempts") + 1)
    with transaction.atomic():
        entry = Notice.objects.select_for_update().select_related("user").filter(pk=entry_id).first()
        if entry is None or entry.sent_at is not None:
            return False
        if not still_wanted(entry):
            # unsubscribed since, the player has moved already, or saw the move live: nothing to send
            entry.sent_at = timezone.now()
            entry.save(update_fields=["sent_at"])
            return False
        carried = waiting_for_digest(entry) if entry.event == "digest" else []
        message_for(entry).send()
        entry.sent_at = timezone.now()
        entry.save(update_fields=["sent_at"])
        Notice.objects.filter(pk__in=[n.pk for n in carried]).update(sent_at=entry.sent_at)
        return True
