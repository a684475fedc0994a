from __future__ import annotations

from datetime import timedelta

from django import forms
from django.utils import timezone

from games.models import DAYS_PER_MOVE, GRACE_DAYS

from .models import ROUND_ROBIN_SETTINGS, TOURNAMENT_SETTINGS, RoundRobin, Tournament
from .standings import TIEBREAKS, parse_order


class TournamentForm(forms.ModelForm):  # type: ignore[type-arg]
    invited_names = forms.CharField(required=False, label="Invited players (usernames, comma-separated)")

    class Meta:
        model = Tournament
        fields = TOURNAMENT_SETTINGS
        widgets = {
            "registration_closes_at": forms.DateTimeInput(attrs={"type": "datetime-local"}),
            "starts_at": forms.DateTimeInput(attrs={"type": "datetime-local"}),
            "days_per_move": forms.Select(choices=[(d, d) for d in DAYS_PER_MOVE]),
            "grace_days": forms.Select(choices=[(d, d) for d in GRACE_DAYS]),
            "lake_side": forms.Select(choices=[("standard", "standard"), ("expert", "expert")]),
            "description": forms.Textarea(attrs={"rows": 3}),
            "tiebreaks": forms.TextInput(attrs={"size": 40}),
        }
        labels = {"tiebreaks": "Tie-breaks, in order"}
        help_texts = {"tiebreaks": "After the score, space-separated, from: " + "; ".join(
            f"{code} {name}" for code, name in TIEBREAKS.items())}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        now = timezone.now().replace(second=0, microsecond=0)
        self.fields["registration_closes_at"].initial = now + timedelta(days=7)
        self.fields["starts_at"].initial = now + timedelta(days=7, hours=1)

    def clean_tiebreaks(self) -> str:
        try:
            return " ".join(parse_order(self.cleaned_data.get("tiebreaks") or ""))
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None


class RoundRobinForm(forms.ModelForm):  # type: ignore[type-arg]
    """A director's round-robin: one group (3-20 players) or several seeded in snake order."""

    invited_names = forms.CharField(required=False, label="Invited players (usernames, comma-separated)")

    class Meta:
        model = RoundRobin
        fields = ROUND_ROBIN_SETTINGS
        widgets = {
            "registration_closes_at": forms.DateTimeInput(attrs={"type": "datetime-local"}),
            "starts_at": forms.DateTimeInput(attrs={"type": "datetime-local"}),
            "days_per_move": forms.Select(choices=[(d, d) for d in DAYS_PER_MOVE]),
            "grace_days": forms.Select(choices=[(d, d) for d in GRACE_DAYS]),
            "lake_side": forms.Select(choices=[("standard", "standard"), ("expert", "expert")]),
            "description": forms.Textarea(attrs={"rows": 3}),
        }
        labels = {
            "double": "Double round-robin",
            "group_count": "Groups",
            "final_group": "Final group",
            "deadline_days": "Deadline in days (every game at once)",
            "round_days": "Days per round (round by round)",
        }

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        now = timezone.now().replace(second=0, microsecond=0)
        self.fields["registration_closes_at"].initial = now + timedelta(days=7)
        self.fields["starts_at"].initial = now + timedelta(days=7, hours=1)
