from django import template

register = template.Library()


@register.filter
def grace(seconds: int) -> str:
    """A grace bank in days and hours, e.g. 6 d 21 h."""
    seconds = int(seconds or 0)
    days, rest = divmod(seconds, 86400)
    hours = rest // 3600
    if days and hours:
        return f"{days} d {hours} h"
    if days:
        return f"{days} d"
    minutes = (rest % 3600) // 60
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"
