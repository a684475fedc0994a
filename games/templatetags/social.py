"""Template helpers of the social features (issue 13)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from games.selectors import outcome

register = template.Library()

OUTCOME_WORDS = {"won": _("won"), "lost": _("lost"), "draw": _("draw")}


@register.simple_tag
def result_for(game: Any, user: Any) -> str:
    """A finished game's result from ``user``'s side as a small badge ("won", "lost", "draw"),
    or nothing (the game goes on, or ``user`` does not play in it)."""
    seen = outcome(game, user)
    if seen is None:
        return ""
    return format_html('<span class="outcome {}" data-outcome="{}">{}</span>', seen, seen, OUTCOME_WORDS[seen])


RED_SIDE = {"1": "won", "+": "won", "0": "lost", "-": "lost", "=": "draw"}
FLIPPED = {"won": "lost", "lost": "won", "draw": "draw"}


@register.simple_tag(takes_context=True)
def pairing_result_for_viewer(context: Any, code: str, red_id: int | None, yellow_id: int | None) -> str:
    """A tournament pairing's result (``code`` from Red's side, as in the TRF: 1 0 = + −) as a
    badge from the side of the viewer, when the viewer is one of its two players."""
    user = context.get("user")
    seen = RED_SIDE.get(code or "")
    if seen is None or user is None or not user.is_authenticated:
        return ""
    if user.pk == yellow_id:
        seen = FLIPPED[seen]
    elif user.pk != red_id:
        return ""
    return format_html(' <span class="outcome {}" data-outcome="{}">{}</span>', seen, seen, OUTCOME_WORDS[seen])
