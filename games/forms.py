"""Site forms. They only parse input; the rules are checked by the services and the engine."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.functional import lazy
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts.models import EmailWay, Kind
from accounts.names import USERNAME_MAX_LENGTH, USERNAME_MIN_LENGTH
from common.errors import ServiceError
from games.engine import Change, DiceChoice

from . import clock
from .models import DAYS_PER_MOVE, GRACE_DAYS, ColorChoice, CourseLetter, LakeSide
from .reasons import bank_text
from .rulesets import BOXED

User = get_user_model()


@lazy
def _days_per_move(days: int) -> str:
    return ngettext("%(days)d day per move", "%(days)d days per move", days) % {"days": days}


@lazy
def _grace_days(days: int) -> str:
    return ngettext("%(days)d day of grace", "%(days)d days of grace", days) % {"days": days}


def clock_choices() -> list[tuple[str, str]]:
    """The clocks a page offers (games.clock.PRESETS): days per move and a grace bank (chosen in
    their own fields), or a capped bank of a preset (the API takes any bank)."""
    return [("move", gettext("days per move and a grace bank")),
            *[(key, bank_text(*terms)) for key, terms in clock.PRESETS.items()]]


def clock_field() -> forms.ChoiceField:
    return forms.ChoiceField(choices=clock_choices, initial="move", required=False, label=_("Clock"),
                             help_text=_("a capped bank has no days per move and no grace bank (those below are "
                                         "not used): what a move does not use stays in the bank, and each move adds "
                                         "to it"))


def apply_clock(data: dict[str, Any]) -> dict[str, Any]:
    """Cleaned data with the page's ``clock`` choice replaced by the terms it stands for (a
    preset bank sets its start as ``grace_days``); the services check them (games.services.clock_fields)."""
    choice = data.pop("clock", "") or "move"
    preset = clock.PRESETS.get(choice)
    if preset is None:
        data["clock_shape"] = "move"
    else:
        start, add, cap = preset
        data.update(clock_shape="bank", grace_days=start, bank_add_hours=add, bank_cap_days=cap)
    return data


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    """The name rules are on ``User.username`` (accounts/names.py)."""

    email = forms.EmailField(required=True, label=_("Email"), help_text=_("for your-turn emails and password resets"))

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]
        model = User
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        assert isinstance(username, forms.CharField)
        username.strip = False  # "ann\n" is refused, as by the API, not quietly cut to "ann"
        # the browser keeps to the name's length (accounts/names.py), not to the column's 150
        username.widget.attrs.update(minlength=USERNAME_MIN_LENGTH, maxlength=USERNAME_MAX_LENGTH)


class ChallengeForm(forms.Form):
    color = forms.ChoiceField(choices=ColorChoice.choices, initial=ColorChoice.RANDOM, label=_("Your colour"))
    clock = clock_field()
    days_per_move = forms.TypedChoiceField(
        choices=[(d, _days_per_move(d)) for d in DAYS_PER_MOVE], coerce=int, initial=3,
        label=_("Time control"),
    )
    grace_days = forms.TypedChoiceField(
        choices=[(d, _grace_days(d)) for d in GRACE_DAYS], coerce=int, initial=7,
        required=False, empty_value=7,  # type: ignore[arg-type]  # Django takes any value (django-stubs: a str)
        label=_("Grace bank"), help_text=_("used when a move takes longer than its days; the game is lost when it is gone"),
    )
    course_letter = forms.ChoiceField(choices=CourseLetter.choices, required=False, initial="", label=_("Course"))
    lake_side = forms.ChoiceField(choices=LakeSide.choices, initial=LakeSide.STANDARD, label=_("Lake"))
    rated = forms.BooleanField(required=False, initial=True, label=_("Rated"))
    opponent = forms.CharField(required=False, label=_("Challenge a player (username; empty: open to all)"))

    def clean_opponent(self) -> Any:
        name = self.cleaned_data["opponent"].strip()
        if not name:
            return None
        try:
            return User.objects.get(username__iexact=name)
        except User.DoesNotExist:
            raise forms.ValidationError(_("there is no player called %(name)r") % {"name": name}) from None


class PlaceForm(forms.Form):
    ply = forms.IntegerField(min_value=0)
    cell = forms.RegexField(regex=r"^-?\d+,-?\d+$", error_messages={"invalid": _("pick a start cell")})
    heading = forms.TypedChoiceField(choices=[(i, i) for i in range(6)], coerce=int)

    def cell_value(self) -> tuple[int, int]:
        q, r = self.cleaned_data["cell"].split(",")
        return int(q), int(r)


class DiceForm(forms.Form):
    ply = forms.IntegerField(min_value=0)
    change = forms.RegexField(
        regex=r"^(keep|add|remove-\d+)$",
        error_messages={"required": _("choose keep, add or remove a die"), "invalid": _("choose keep, add or remove a die")},
    )
    reroll = forms.TypedMultipleChoiceField(choices=[(i, i) for i in range(64)], coerce=int, required=False)

    def choice(self) -> DiceChoice:
        """``keep``, ``add`` or ``remove-<index>``, and the indices to re-roll."""
        change = self.cleaned_data["change"]
        reroll = tuple(self.cleaned_data.get("reroll") or ())
        if change.startswith("remove-"):
            return DiceChoice(Change.REMOVE, int(change.split("-", 1)[1]), reroll)
        return DiceChoice(Change(change), None, reroll)


class DirectionForm(forms.Form):
    ply = forms.IntegerField(min_value=0)
    direction = forms.TypedChoiceField(choices=[(i, i) for i in range(6)], coerce=int)


class ResignForm(forms.Form):
    confirm = forms.BooleanField(required=True, error_messages={"required": _("tick the box to confirm")})


class PreferencesForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = User
        fields = ("email", "digest_hour", "reminder_hours", "time_zone", "language", "bot_turn_emails")
        labels = {"email": _("Email"), "digest_hour": _("Digest at (your local hour, 0–23)"),
                  "reminder_hours": _("Remind me when this many hours are left"), "time_zone": _("Time zone"),
                  "language": _("Language"),
                  "bot_turn_emails": _("Email “your turn” in games against the house bots too")}
        help_texts = {"language": _("of the pages and your emails; empty: your browser's"),
                      "bot_turn_emails": _(
                          "Off: the bots answer within seconds, so you are only told when a game against them ends. "
                          "A move you saw live on the game page is never emailed.")}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        language = self.fields["language"]
        assert isinstance(language, forms.ChoiceField)
        # no setting: named, not "---------" (a play-test did not know what that meant)
        language.choices = [("", _("your browser's (emails in English)")), *settings.LANGUAGES]

    def clean_digest_hour(self) -> int:
        hour = self.cleaned_data["digest_hour"]
        if not 0 <= hour <= 23:
            raise forms.ValidationError(_("an hour is 0 to 23"))
        return int(hour)

    def clean_reminder_hours(self) -> int:
        hours = self.cleaned_data["reminder_hours"]
        if not 1 <= hours <= 24 * 14:
            raise forms.ValidationError(_("between 1 and 336 hours"))
        return int(hours)


HOURS = [("", _("none")), *((h, f"{h:02d}:00") for h in range(24))]


class PlanForm(forms.Form):
    """The plan panel of the game and series pages (games/plans.py): the dice choice of the next
    turn and a way per total (``way_<total>``), and optionally the turn after (``then_…``)."""

    change = forms.RegexField(regex=r"^(keep|add|remove-[0-9])$")
    reroll = forms.TypedMultipleChoiceField(choices=[(i, i) for i in range(10)], coerce=int, required=False)
    careful = forms.BooleanField(required=False)
    then = forms.BooleanField(required=False)
    then_change = forms.ChoiceField(choices=[("keep", "keep"), ("add", "add")], required=False)
    then_careful = forms.BooleanField(required=False)

    def _ways(self, prefix: str) -> dict[str, str]:
        return {key[len(prefix):]: str(value) for key, value in self.data.items()
                if key.startswith(prefix) and key[len(prefix):].isdigit() and value != "ask"}

    def turns(self) -> list[dict[str, Any]]:
        change = self.cleaned_data["change"]
        remove = int(change.split("-", 1)[1]) if change.startswith("remove-") else None
        turns = [{"dice": {"change": change.split("-", 1)[0], "remove": remove, "reroll": self.cleaned_data["reroll"]},
                  "ways": self._ways("way_"), "careful": self.cleaned_data["careful"]}]
        if self.cleaned_data["then"]:
            turns.append({"dice": {"change": self.cleaned_data["then_change"] or "keep", "remove": None, "reroll": []},
                          "ways": self._ways("then_way_"), "careful": self.cleaned_data["then_careful"]})
        return turns


class NotificationsForm(forms.Form):
    """Per kind of notice its email (each, in the daily digest, none) and its push (on, off); the
    quiet hours; the "Next game" link (accounts.services.user_set_notifications)."""

    quiet_from = forms.TypedChoiceField(choices=HOURS, coerce=int, empty_value=None, required=False,
                                        label=_("Quiet from"))
    quiet_to = forms.TypedChoiceField(choices=HOURS, coerce=int, empty_value=None, required=False,
                                      label=_("until"))
    next_game_link = forms.BooleanField(required=False, label=_("Show the “Next game” link"))

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        kwargs.setdefault("initial", {})
        kwargs["initial"].update(quiet_from=user.quiet_from, quiet_to=user.quiet_to,
                                 next_game_link=user.next_game_link)
        for kind in Kind.values:
            channels = user.channels(kind)
            kwargs["initial"].update({f"{kind}_email": channels["email"], f"{kind}_push": channels["push"]})
        super().__init__(*args, **kwargs)
        for kind, label in Kind.choices:
            self.fields[f"{kind}_email"] = forms.ChoiceField(choices=EmailWay.choices, label=label, required=False)
            self.fields[f"{kind}_push"] = forms.BooleanField(required=False, label=label)

    def rows(self) -> list[tuple[str, forms.BoundField, forms.BoundField]]:
        """The table's rows: each kind with its email and push fields."""
        return [(str(label), self[f"{kind}_email"], self[f"{kind}_push"]) for kind, label in Kind.choices]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if (data.get("quiet_from") is None) != (data.get("quiet_to") is None):
            raise forms.ValidationError(_("Quiet hours need both hours, or neither."))
        return data

    def notify(self) -> dict[str, dict[str, Any]]:
        """The kinds the form sent (a row of the table sends its email choice; its push box is sent
        only when ticked): a form without the table leaves them as they are."""
        return {kind: {"email": self.cleaned_data[f"{kind}_email"], "push": self.cleaned_data[f"{kind}_push"]}
                for kind in Kind.values if self.cleaned_data.get(f"{kind}_email")}


class SeriesForm(forms.Form):
    """Open a series of the boxed game (games.services.game_open)."""

    seats = forms.TypedChoiceField(choices=[(n, n) for n in range(BOXED.min_seats, BOXED.max_seats + 1)], coerce=int,
                                   initial=4, label=_("Players"))
    clock = clock_field()
    days_per_move = forms.TypedChoiceField(choices=[(d, d) for d in DAYS_PER_MOVE], coerce=int, initial=3,
                                           label=_("Days per move"))
    grace_days = forms.TypedChoiceField(choices=[(d, d) for d in GRACE_DAYS], coerce=int, initial=7,
                                        label=_("Grace bank (days)"))
    lake_side = forms.ChoiceField(choices=LakeSide.choices, initial=LakeSide.STANDARD, label=_("Lake"))
    rated = forms.BooleanField(required=False, initial=True, label=_("Rated"))
    score_variant = forms.BooleanField(required=False, initial=False, label=_("Score variant (R19)"))


class VacationForm(forms.Form):
    days = forms.IntegerField(min_value=1, max_value=366, required=False, label=_("Days"),
                              help_text=_("empty: all the days you have left this year"))


def posted_turn(form: forms.Form, act: Callable[[], Any], page: Callable[[ServiceError, int], HttpResponse],
                board_url: str) -> HttpResponse:
    """A turn form posted from the game or the series page: an invalid form or a refused
    action shows the page again with the refusal (400, or the refusal's own status); a taken
    action goes back to the board."""
    if not form.is_valid():
        return page(form_error(form), 400)
    try:
        act()
    except ServiceError as exc:
        return page(exc, exc.status)
    return redirect(board_url + "#board")


def form_error(form: forms.Form) -> ServiceError:
    """A turn form's first error as the refusal the game pages show (field and message), the
    same shape as a service's refusal."""
    field, errors = next(iter(form.errors.items()))
    return ServiceError(f"{field}: {' '.join(str(e) for e in errors)}", field)
