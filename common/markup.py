"""Text put into HTML written in Python (the move list, the danger table, the players' rows)."""

from __future__ import annotations

import html
from typing import Any


def text(value: Any) -> str:
    """What Django's ``escape`` says of a value, a number as it is, without its check for lazy
    text (~1 µs a call, and a page's move list and danger table make a hundred and more).

    >>> text('<a href="x">') + text(3) + text("l'eau & co")
    '&lt;a href=&quot;x&quot;&gt;3l&#x27;eau &amp; co'
    """
    return str(value) if type(value) is int else html.escape(str(value))
