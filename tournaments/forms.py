from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.forms import apply_clock, clock_field
from games.models import DAYS_PER_MOVE, GRACE_DAYS

from .labels import TIEBREAK_LABELS
from .models import ROUND_ROBIN_SETTINGS, TOURNAMENT_SETTINGS, RoundRobin, Tournament
from .services import MAX_DAYS
from .standings import parse_order

TIEBREAK_SLOTS = len(TIEBREAK_LABELS)  # room for every tie-break, each at most once


class TiebreakWidget(forms.MultiWidget):
    """The tie-breaks in order: one select per place, each offering every tie-break by its code
    and name (or none); an empty place is skipped."""

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__([forms.Select() for _ in range(TIEBREAK_SLOTS)], attrs)

    def decompress(self, value: Any) -> list[str]:
        try:
            codes = list(parse_order(value or ""))
        except ValueError:
            codes = []
        return codes + [""] * (TIEBREAK_SLOTS - len(codes))


class TiebreakField(forms.MultiValueField):
    """Tie-breaks chosen from the supported ones, in order; cleaned to the codes as the model (and
    the API) keep them: ``"BH/C1 BH SB"``."""

    widget = TiebreakWidget

    def __init__(self, **kwargs: Any) -> None:
        fields = [forms.ChoiceField(required=False) for _ in range(TIEBREAK_SLOTS)]
        for key in ("max_length", "empty_value", "required"):
            kwargs.pop(key, None)
        super().__init__(fields=fields, require_all_fields=False, required=False, **kwargs)

    def set_choices(self) -> None:
        """The choices and the places' names in the active language."""
        choices = [("", "—")] + [(code, f"{code} — {name}") for code, name in TIEBREAK_LABELS.items()]
        for index, (field, widget) in enumerate(zip(self.fields, self.widget.widgets, strict=True)):
            field.choices = choices  # type: ignore[attr-defined]
            widget.choices = choices  # type: ignore[attr-defined]
            widget.attrs["aria-label"] = _("Tie-break %(number)s") % {"number": index + 1}

    def compress(self, data_list: list[str]) -> str:
        return " ".join(code for code in data_list if code)


def _zone_help(form: forms.ModelForm) -> None:  # type: ignore[type-arg]
    """Say in which time zone the start and the close of registration are read and shown."""
    zone = timezone.get_current_timezone_name()
    for name in ("registration_closes_at", "starts_at"):
        form.fields[name].help_text = _("in your time zone (%(zone)s; Settings)") % {"zone": zone}


def _labels() -> dict[str, Any]:
    return {
        "name": _("Name"), "description": _("Description"), "rounds": _("Rounds"),
        "days_per_move": _("Days per move"), "grace_days": _("Grace days"), "vacation_allowed": _("Vacation allowed"),
        "registration_closes_at": _("Registration closes at"), "starts_at": _("Starts at"),
        "round_days": _("Days per round"), "pair_at_once": _("Pair at once"), "rated": _("Rated"),
        "lake_side": _("Lake"), "course_mode": _("Courses"), "min_players": _("Minimum players"),
        "max_players": _("Maximum players"), "entry": _("Entry"), "late_entry_until_round": _("Late entry until round"),
        "late_entry_byes": _("Late entry byes"), "requested_bye_points": _("Requested bye points"),
        "tiebreaks": _("Tie-breaks, in order"), "double": _("Double round-robin"), "group_count": _("Groups"),
        "final_group": _("Final group"), "pace": _("Pace"),
        "deadline_days": _("Deadline in days (every game at once)"), "round_days_rr": _("Days per round (round by round)"),
        "weekend_pause_allowed": _("Weekend pause allowed"), "auto_vacation_allowed": _("Automatic vacation allowed"),
    }


def _help_texts() -> dict[str, Any]:
    return {
        "round_days": _("a round's deadline, in days after pairing"),
        "pair_at_once": _("pair the next round as soon as a round closes"),
        "late_entry_until_round": _("late entries may join up to this round (0: none after the start)"),
        "late_entry_byes": _("what a late entrant scores for each round missed"),
        "double": _("every pair plays twice, once with each colour"),
        "group_count": _("groups, seeded by rating in snake order"),
        "final_group": _("the group winners play a final group"),
        "deadline_days": _("every game at once: a group's games must end this many days after its start"),
        "round_days_rr": _("round by round: a round's deadline, in days after it starts"),
        "weekend_pause_allowed": _("players who ask for it have their clocks stopped on Saturdays and Sundays"),
        "auto_vacation_allowed": _("a clock about to run out takes a vacation day of a player who asked for it"),
    }


def _clock_before_days(form: forms.ModelForm) -> None:  # type: ignore[type-arg]
    """The clock's shape first: it says whether days per move and grace apply."""
    names = [name for name in form.fields if name != "clock"]
    names.insert(names.index("days_per_move"), "clock")
    form.order_fields(names)


def _translate_fields(form: forms.ModelForm, round_robin: bool) -> None:  # type: ignore[type-arg]
    """Labels and help texts in the reader's language (the models' own are English)."""
    labels, helps = _labels(), _help_texts()
    for name, field in form.fields.items():
        key = f"{name}_rr" if round_robin and f"{name}_rr" in labels else name
        if key in labels:
            field.label = labels[key]
        if key in helps:
            field.help_text = helps[key]
    form.fields["invited_names"].label = _("Invited players (usernames, comma-separated)")
    form.fields["lake_side"].widget.choices = [("standard", pgettext_lazy("lake", "standard")),
                                               ("expert", pgettext_lazy("lake", "expert"))]


# a page offers a capped bank by its presets (games.forms.clock_field); the API takes any
BANK_FIELDS = ("clock_shape", "bank_add_hours", "bank_cap_days")


class TournamentForm(forms.ModelForm):  # type: ignore[type-arg]
    invited_names = forms.CharField(required=False)
    clock = clock_field()

    def clean(self) -> dict[str, Any]:
        return apply_clock(super().clean() or {})

    class Meta:
        model = Tournament
        fields = [name for name in TOURNAMENT_SETTINGS if name not in BANK_FIELDS]
        widgets = {
            "registration_closes_at": forms.DateTimeInput(attrs={"type": "datetime-local"}),
            "starts_at": forms.DateTimeInput(attrs={"type": "datetime-local"}),
            "days_per_move": forms.Select(choices=[(d, d) for d in DAYS_PER_MOVE]),
            "grace_days": forms.Select(choices=[(d, d) for d in GRACE_DAYS]),
            "lake_side": forms.Select(choices=[("standard", "standard"), ("expert", "expert")]),
            "description": forms.Textarea(attrs={"rows": 3}),
        }
        field_classes = {"tiebreaks": TiebreakField}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        now = timezone.now().replace(second=0, microsecond=0)
        self.fields["registration_closes_at"].initial = now + timedelta(days=7)
        self.fields["starts_at"].initial = now + timedelta(days=7, hours=1)
        _translate_fields(self, round_robin=False)
        _clock_before_days(self)
        self.fields["round_days"].widget.attrs.update(min=1, max=MAX_DAYS)  # the service refuses others
        _zone_help(self)
        tiebreaks = self.fields["tiebreaks"]
        assert isinstance(tiebreaks, TiebreakField)
        tiebreaks.set_choices()
        tiebreaks.help_text = _("After the score, the first that separates two players decides; "
                                "leave a place empty to skip it.")

    def clean_tiebreaks(self) -> str:
        try:
            return " ".join(parse_order(self.cleaned_data.get("tiebreaks") or ""))
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None


class RoundRobinForm(forms.ModelForm):  # type: ignore[type-arg]
    """A director's round-robin: one group (3-20 players) or several seeded in snake order."""

    invited_names = forms.CharField(required=False)
    clock = clock_field()

    def clean(self) -> dict[str, Any]:
        return apply_clock(super().clean() or {})

    class Meta:
        model = RoundRobin
        fields = [name for name in ROUND_ROBIN_SETTINGS if name not in BANK_FIELDS]
        widgets = {
            "registration_closes_at": forms.DateTimeInput(attrs={"type": "datetime-local"}),
            "starts_at": forms.DateTimeInput(attrs={"type": "datetime-local"}),
            "days_per_move": forms.Select(choices=[(d, d) for d in DAYS_PER_MOVE]),
            "grace_days": forms.Select(choices=[(d, d) for d in GRACE_DAYS]),
            "lake_side": forms.Select(choices=[("standard", "standard"), ("expert", "expert")]),
            "description": forms.Textarea(attrs={"rows": 3}),
        }

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        now = timezone.now().replace(second=0, microsecond=0)
        self.fields["registration_closes_at"].initial = now + timedelta(days=7)
        self.fields["starts_at"].initial = now + timedelta(days=7, hours=1)
        _translate_fields(self, round_robin=True)
        _clock_before_days(self)
        for name in ("deadline_days", "round_days"):  # the service refuses others
            self.fields[name].widget.attrs.update(min=1, max=MAX_DAYS)
        _zone_help(self)
