"""Site forms. They only parse input; the rules are checked by the services and the engine."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm

from games.engine import Change, DiceChoice

from .models import DAYS_PER_MOVE, ColorChoice, CourseLetter, LakeSide

User = get_user_model()


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    email = forms.EmailField(required=True, help_text="for your-turn emails and password resets")

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]
        model = User
        fields = ("username", "email")


class ChallengeForm(forms.Form):
    color = forms.ChoiceField(choices=ColorChoice.choices, initial=ColorChoice.RANDOM, label="Your colour")
    days_per_move = forms.TypedChoiceField(
        choices=[(d, f"{d} day{'s' if d > 1 else ''} per move") for d in DAYS_PER_MOVE], coerce=int, initial=3,
        label="Time control",
    )
    course_letter = forms.ChoiceField(choices=CourseLetter.choices, required=False, initial="", label="Course")
    lake_side = forms.ChoiceField(choices=LakeSide.choices, initial=LakeSide.STANDARD, label="Lake")
    rated = forms.BooleanField(required=False, initial=True)
    opponent = forms.CharField(required=False, label="Challenge a player (username; empty: open to all)")

    def clean_opponent(self) -> Any:
        name = self.cleaned_data["opponent"].strip()
        if not name:
            return None
        try:
            return User.objects.get(username__iexact=name)
        except User.DoesNotExist:
            raise forms.ValidationError(f"there is no player called {name!r}") from None


class PlaceForm(forms.Form):
    ply = forms.IntegerField(min_value=0)
    cell = forms.RegexField(regex=r"^-?\d+,-?\d+$", error_messages={"invalid": "pick a start cell"})
    heading = forms.TypedChoiceField(choices=[(i, i) for i in range(6)], coerce=int)

    def cell_value(self) -> tuple[int, int]:
        q, r = self.cleaned_data["cell"].split(",")
        return int(q), int(r)


class DiceForm(forms.Form):
    ply = forms.IntegerField(min_value=0)
    change = forms.RegexField(
        regex=r"^(keep|add|remove-\d+)$",
        error_messages={"required": "choose keep, add or remove a die", "invalid": "choose keep, add or remove a die"},
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
    confirm = forms.BooleanField(required=True, error_messages={"required": "tick the box to confirm"})
