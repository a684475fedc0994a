"""Words of the tournaments app shown to people, in the reader's language (docs/i18n.md).

``tournaments.standings`` also runs as a command-line tool without Django, so its English
names of the tie-breaks stay there; the pages show these."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .standings import TIEBREAKS

TIEBREAK_LABELS = {
    "BH/C1": _("Buchholz Cut-1"),
    "BH": _("Buchholz"),
    "SB": _("Sonneborn-Berger"),
    "DE": _("direct encounter"),
    "WIN": _("number of wins"),
    "WON": _("games won over the board"),
    "BPG": _("games as Yellow (C.07's games with Black)"),
    "ARO": _("average rating of opponents"),
    "BUOYS": _("game points, buoys and finishing (R14)"),
    "DMG": _("damage taken (R14), less is better"),
}
assert TIEBREAK_LABELS.keys() == TIEBREAKS.keys()


# the column heads: FIDE's codes are the same in every language, the site's own are words
TIEBREAK_CODES = {
    "BUOYS": pgettext_lazy("tie-break column", "BUOYS"),
    "DMG": pgettext_lazy("tie-break column", "DMG"),
}


def tiebreak_code(code: str) -> str:
    """A tie-break's short name for a column head: FIDE's code, or the site's in the reader's language."""
    return str(TIEBREAK_CODES.get(code, code))


def tiebreak_label(code: str) -> str:
    return str(TIEBREAK_LABELS.get(code, TIEBREAKS.get(code, code)))
