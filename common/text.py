"""Checks on text that need nothing of Django (the TRF files of tournaments/trf.py read them too,
in processes that pair a tournament without the site)."""

from __future__ import annotations


def digits(text: str) -> bool:
    """Whether ``text`` is one or more of the ASCII digits 0-9. ``str.isdigit`` also takes
    superscripts ("¹", which ``int`` refuses: a 500 the fuzz stage found) and other scripts'
    digits ("٣", which ``int`` reads as 3)."""
    return text.isascii() and text.isdigit()
