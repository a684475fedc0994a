"""The engine's result sentences (``Game.result_reason``, stored in English as the engine
words them) in the reader's language, at display time.

The engine stays free of Django (docs/architecture.md), so its sentences are matched here
against the shapes it produces (games/engine/rules.py) and rebuilt from translated
patterns; a sentence of an unknown shape is shown as it is.

>>> reason_text("Red finished")
'Red finished'
>>> reason_text("something new")
'something new'
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.utils.translation import gettext, pgettext, pgettext_lazy

from .engine.rules import CUTOFF_MOVES

_COLOR_NAMES = {"yellow": pgettext_lazy("boat", "Yellow"), "red": pgettext_lazy("boat", "Red"),
                "orange": pgettext_lazy("boat", "Orange"), "purple": pgettext_lazy("boat", "Purple"),
                "black": pgettext_lazy("boat", "Black"), "green": pgettext_lazy("boat", "Green")}


def color_name(color: str) -> str:
    """"yellow" / "Yellow" → the colour's name in the active language (the series' colours
    too); one translation looked up, not six (a game page names a colour per move)."""
    name = _COLOR_NAMES.get(color.lower())
    return str(name) if name is not None else color.capitalize()


_C = r"(Yellow|Red)"
_N = r"(\d+)"
_CUT = f"{CUTOFF_MOVES} moves each: "
_ADJ = "adjudicated at the round deadline: "

_PATTERNS: list[tuple[re.Pattern[str], Callable[..., str]]] = [
    (re.compile(f"^{_C} finished$"), lambda c: gettext("%(color)s finished") % {"color": c}),
    (re.compile(f"^{_C} sank with {_N} damage$"),
     lambda c, d: gettext("%(color)s sank with %(damage)s damage") % {"color": c, "damage": d}),
    (re.compile("^every boat sank$"), lambda: gettext("every boat sank")),
    (re.compile(f"^{_C} resigned$"), lambda c: gettext("%(color)s resigned") % {"color": c}),
    (re.compile(f"^{_C} ran out of time$"), lambda c: gettext("%(color)s ran out of time") % {"color": c}),
    (re.compile(f"^{_ADJ}equal points \\({_N}\\) and damage, a draw$"),
     lambda p: gettext("adjudicated at the round deadline: equal points (%(points)s) and damage, a draw")
     % {"points": p}),
    (re.compile(f"^{_ADJ}{_C} has more points \\({_N} to {_N}\\)$"),
     lambda c, a, b: gettext("adjudicated at the round deadline: %(color)s has more points (%(a)s to %(b)s)")
     % {"color": c, "a": a, "b": b}),
    (re.compile(f"^{_ADJ}{_C} has more buoys \\({_N} to {_N}\\)$"),
     lambda c, a, b: gettext("adjudicated at the round deadline: %(color)s has more buoys (%(a)s to %(b)s)")
     % {"color": c, "a": a, "b": b}),
    (re.compile(f"^{_ADJ}{_C} has less damage \\({_N} to {_N}\\)$"),
     lambda c, a, b: gettext("adjudicated at the round deadline: %(color)s has less damage (%(a)s to %(b)s)")
     % {"color": c, "a": a, "b": b}),
    (re.compile(f"^{_CUT}{_C} rounded more buoys \\({_N} to {_N}\\)$"),
     lambda c, a, b: gettext("%(moves)s moves each: %(color)s rounded more buoys (%(a)s to %(b)s)")
     % {"moves": CUTOFF_MOVES, "color": c, "a": a, "b": b}),
    (re.compile(f"^{_CUT}equal buoys \\({_N}\\); {_C} has less damage \\({_N} to {_N}\\)$"),
     lambda n, c, a, b: gettext("%(moves)s moves each: equal buoys (%(buoys)s); %(color)s has less damage "
                                "(%(a)s to %(b)s)") % {"moves": CUTOFF_MOVES, "buoys": n, "color": c, "a": a, "b": b}),
    (re.compile(f"^{_CUT}equal buoys \\({_N}\\) and equal damage \\({_N}\\), a draw$"),
     lambda n, d: gettext("%(moves)s moves each: equal buoys (%(buoys)s) and equal damage (%(damage)s), a draw")
     % {"moves": CUTOFF_MOVES, "buoys": n, "damage": d}),
]


_SC = r"(?:Yellow|Red|Orange|Purple|Black|Green)"
_SERIES = re.compile(f"^({_SC}(?: and {_SC})*) (wins the series|share first place) with {_N} points"
                     r"(?: \(ended after race ([ABC]): fewer than two players left\))?$")


def _colors_and(names: str) -> str:
    colors = [color_name(c) for c in names.split(" and ")]
    if len(colors) == 1:
        return colors[0]
    return gettext("%(first)s and %(last)s") % {"first": ", ".join(colors[:-1]), "last": colors[-1]}


def series_result_text(reason: str) -> str | None:
    """A series' result (games.engine.series.Series.result_text) in the active language, or
    None if the sentence is of another shape."""
    match = _SERIES.match(reason)
    if match is None:
        return None
    names, how, points, race = match.groups()
    values = {"names": _colors_and(names), "points": points, "race": race}
    if how == "wins the series":
        text = gettext("%(names)s wins the series with %(points)s points") % values
    else:
        text = gettext("%(names)s share first place with %(points)s points") % values
    if race:
        text += " " + gettext("(ended after race %(race)s: fewer than two players left)") % values
    return text


def reason_text(reason: str) -> str:
    """The engine's result sentence in the active language (unchanged if of an unknown shape)."""
    for pattern, build in _PATTERNS:
        match = pattern.match(reason)
        if match:
            args = [color_name(g) if g in ("Yellow", "Red") else g for g in match.groups()]
            return build(*args)
    series = series_result_text(reason)
    return reason if series is None else series


_ORD = r"(\d+)(?:st|nd|rd|th)"
_PLACE = re.compile(f"^you finished {_ORD} of (\\d+)(.*)$")
_PLACE_TAILS: list[tuple[re.Pattern[str], Callable[..., str]]] = [
    (re.compile(r"^$"), lambda r, n: gettext("you finished %(rank)s of %(players)s") % {"rank": r, "players": n}),
    (re.compile(r"^ and move up to level (\d+)$"),
     lambda r, n, level: gettext("you finished %(rank)s of %(players)s and move up to level %(level)s")
     % {"rank": r, "players": n, "level": level}),
    (re.compile(r"^ and move down to level (\d+)$"),
     lambda r, n, level: gettext("you finished %(rank)s of %(players)s and move down to level %(level)s")
     % {"rank": r, "players": n, "level": level}),
    (re.compile(r"^ and stay at level (\d+)$"),
     lambda r, n, level: gettext("you finished %(rank)s of %(players)s and stay at level %(level)s")
     % {"rank": r, "players": n, "level": level}),
    (re.compile(r"^; you lost (\d+) of your (\d+) games on time and leave the Competition$"),
     lambda r, n, t, g: gettext("you finished %(rank)s of %(players)s; you lost %(timeouts)s of your %(games)s games "
                                "on time and leave the Competition")
     % {"rank": r, "players": n, "timeouts": t, "games": g}),
    (re.compile(r"^; you have left the Competition$"),
     lambda r, n: gettext("you finished %(rank)s of %(players)s; you have left the Competition")
     % {"rank": r, "players": n}),
]


def outcome_text(outcome: str) -> str:
    """A group's outcome for a player, as tournaments.services_formats words it in English
    ("you finished 2nd of 6 and move up to level 1"), in the active language."""
    match = _PLACE.match(outcome)
    if match:
        rank, players, tail = match.groups()
        for pattern, build in _PLACE_TAILS:
            more = pattern.match(tail)
            if more:
                return build(rank_text(int(rank)), players, *more.groups())
    return outcome


def rank_text(rank: int) -> str:
    """A place: 1st, 2nd (English), 1., 2. (German), 1º, 2º (Italian)."""
    if translation_language() == "en":
        suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
        return f"{rank}{suffix}"
    return pgettext("ordinal number", "%(n)s.") % {"n": rank}


def translation_language() -> str:
    from django.utils.translation import get_language

    return (get_language() or "en").split("-")[0]


_GROUP = [
    (re.compile(r"^Final$"), lambda: pgettext("group", "Final")),
    (re.compile(r"^Group (\w+)$"), lambda x: pgettext("group", "Group %(letter)s") % {"letter": x}),
    (re.compile(r"^Level (\d+)$"), lambda n: pgettext("group", "Level %(level)s") % {"level": n}),
    (re.compile(r"^Level (\d+), group (\w+)$"),
     lambda n, x: pgettext("group", "Level %(level)s, group %(letter)s") % {"level": n, "letter": x}),
]


def group_text(name: str) -> str:
    """A group's name (tournaments.models.Group.name: "Group A", "Level 2, group B", "Final")."""
    for pattern, build in _GROUP:
        match = pattern.match(name)
        if match:
            return build(*match.groups())
    return name


_D = r"([A-Z]{1,2})"
_NAMES = r"([A-Z]{1,2}(?:, [A-Z]{1,2})*)"
_ENGINE: list[tuple[re.Pattern[str], Callable[..., str]]] = [
    (re.compile("^your first move is forced: add one die$"), lambda: gettext("your first move is forced: add one die")),
    (re.compile("^you hold no dice, so none can be removed$"),
     lambda: gettext("you hold no dice, so none can be removed")),
    (re.compile(r"^remove must name one of your (\d+) dice \(0\.\.(\d+)\)$"),
     lambda n, last: gettext("remove must name one of your %(n)s dice (0..%(last)s)") % {"n": n, "last": last}),
    (re.compile("^remove is only given when removing a die$"),
     lambda: gettext("remove is only given when removing a die")),
    (re.compile("^a die can be re-rolled only once$"), lambda: gettext("a die can be re-rolled only once")),
    (re.compile(r"^re-roll index (-?\d+) is not one of your (\d+) dice$"),
     lambda i, n: gettext("re-roll index %(index)s is not one of your %(n)s dice") % {"index": i, "n": n}),
    (re.compile("^the removed die cannot be re-rolled$"), lambda: gettext("the removed die cannot be re-rolled")),
    (re.compile("^a dice choice is needed$"), lambda: gettext("a dice choice is needed")),
    (re.compile(r"^the heading must point to a side of the cell: 0\.\.5$"),
     lambda: gettext("the heading must point to a side of the cell: 0..5")),
    (re.compile(r"^(\(-?\d+, -?\d+\)) is not on the start/finish line$"),
     lambda cell: gettext("%(cell)s is not on the start/finish line") % {"cell": cell}),
    (re.compile(r"^(\(-?\d+, -?\d+\)) is taken by another boat$"),
     lambda cell: gettext("%(cell)s is taken by another boat") % {"cell": cell}),
    (re.compile(f"^the boat heads {_D}: it can keep that heading or turn 60° left or right \\({_NAMES}\\), not (.+)$"),
     lambda h, names, shown: gettext("the boat heads %(heading)s: it can keep that heading or turn 60° left or right "
                                     "(%(names)s), not %(shown)s") % {"heading": h, "names": names, "shown": shown}),
    (re.compile(f"^direction {_D} is not allowed: {_D} reaches only (\\d+) of (\\d+), and {_NAMES} reach(?:es)? all "
                f"(\\d+): you must move as far as your dice say\\. Allowed: {_NAMES}$"),
     lambda d, _d, reach, total, names, _t, allowed: gettext(
         "direction %(direction)s is not allowed: it reaches only %(reach)s of %(total)s, and %(names)s reach all "
         "%(total)s: you must move as far as your dice say. Allowed: %(allowed)s")
     % {"direction": d, "reach": reach, "total": total, "names": names, "allowed": allowed}),
    (re.compile(f"^direction {_D} is not allowed: no direction reaches (\\d+); {_D} reaches (\\d+), {_NAMES} "
                f"reach(?:es)? (\\d+): you must take the longest way\\. Allowed: {_NAMES}$"),
     lambda d, total, _d, reach, names, longest, allowed: gettext(
         "direction %(direction)s is not allowed: no direction reaches %(total)s; it reaches %(reach)s, %(names)s "
         "reach %(longest)s: you must take the longest way. Allowed: %(allowed)s")
     % {"direction": d, "total": total, "reach": reach, "names": names, "longest": longest, "allowed": allowed}),
]


def engine_message_text(message: str) -> str:
    """An engine refusal (``IllegalMove.message``, English: the engine has no Django) in the
    active language; the API's ``code`` and ``rule`` stay as they are. Unknown shapes pass."""
    for pattern, build in _ENGINE:
        match = pattern.match(message)
        if match:
            return build(*match.groups())
    return message
