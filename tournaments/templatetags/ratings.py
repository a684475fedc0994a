from typing import Any

from django import template

from games.ratings.models import Rating
from games.ratings.selectors import display

register = template.Library()


@register.filter
def rating(user: Any) -> str:
    """A player's rating as shown everywhere: '1543', or '1500?' while provisional."""
    try:
        return display(user.rating)
    except Rating.DoesNotExist:
        return display(None)
