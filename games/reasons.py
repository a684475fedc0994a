"""Results, outcomes and names of the engine and the site in the reader's language, at display
time.

A game's or a series' result is stored as data (``result_code``, ``result_params``: the engine's
``Outcome``, games/engine/rules.py) and said here with translated patterns
(:func:`result_text`); a result of an unknown code (none was stored before 0018) is shown in the
English the engine wrote (``result_reason``).

>>> result_text("finished", {"color": "red"}, "Red finished")
'Red finished'
>>> result_text("", {}, "something new")
'something new'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

from django.utils.translation import gettext, gettext_noop, ngettext, pgettext, pgettext_lazy

from common.words import kept_str

from .engine.rules import CUTOFF_MOVES

_COLOR_NAMES = {"yellow": pgettext_lazy("boat", "Yellow"), "red": pgettext_lazy("boat", "Red"),
                "orange": pgettext_lazy("boat", "Orange"), "purple": pgettext_lazy("boat", "Purple"),
                "black": pgettext_lazy("boat", "Black"), "green": pgettext_lazy("boat", "Green")}


# the six headings by their compass letters (games.engine.DIRECTION_NAMES, in that order); the
# API and the notation keep the English letters, the pages show these
_DIRECTION_LABELS = {"E": pgettext_lazy("compass", "E"), "NE": pgettext_lazy("compass", "NE"),
                     "NW": pgettext_lazy("compass", "NW"), "W": pgettext_lazy("compass", "W"),
                     "SW": pgettext_lazy("compass", "SW"), "SE": pgettext_lazy("compass", "SE")}


def direction_label(direction: int | str) -> str:
    """A heading (its index or its English compass letters) in the active language's letters."""
    from .engine import DIRECTION_NAMES

    name = DIRECTION_NAMES[direction] if isinstance(direction, int) else direction.upper()
    label = _DIRECTION_LABELS.get(name)
    return kept_str(label) if label is not None else name


def color_name(color: str) -> str:
    """"yellow" / "Yellow" → the colour's name in the active language (the series' colours
    too); one translation looked up, not six (a game page names a colour per move)."""
    name = _COLOR_NAMES.get(color.lower())
    return kept_str(name) if name is not None else color.capitalize()


def _color(params: Mapping[str, Any]) -> str:
    return color_name(str(params.get("color", "")))


_RESULTS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "finished": lambda p: gettext("%(color)s finished") % {"color": _color(p)},
    "sank": lambda p: gettext("%(color)s sank with %(damage)s damage") % {"color": _color(p), "damage": p["damage"]},
    "all_sank": lambda p: gettext("every boat sank"),
    "resigned": lambda p: gettext("%(color)s resigned") % {"color": _color(p)},
    "timeout": lambda p: gettext("%(color)s ran out of time") % {"color": _color(p)},
    "adjudicated_draw": lambda p: gettext("adjudicated at the round deadline: equal points (%(points)s) and damage, "
                                          "a draw") % {"points": p["points"]},
    "adjudicated_points": lambda p: gettext("adjudicated at the round deadline: %(color)s has more points "
                                            "(%(a)s to %(b)s)") % {"color": _color(p), "a": p["a"], "b": p["b"]},
    "adjudicated_buoys": lambda p: gettext("adjudicated at the round deadline: %(color)s has more buoys "
                                           "(%(a)s to %(b)s)") % {"color": _color(p), "a": p["a"], "b": p["b"]},
    "adjudicated_damage": lambda p: gettext("adjudicated at the round deadline: %(color)s has less damage "
                                            "(%(a)s to %(b)s)") % {"color": _color(p), "a": p["a"], "b": p["b"]},
    "cutoff_buoys": lambda p: gettext("%(moves)s moves each: %(color)s rounded more buoys (%(a)s to %(b)s)")
    % {"moves": CUTOFF_MOVES, "color": _color(p), "a": p["a"], "b": p["b"]},
    "cutoff_damage": lambda p: gettext("%(moves)s moves each: equal buoys (%(buoys)s); %(color)s has less damage "
                                       "(%(a)s to %(b)s)")
    % {"moves": CUTOFF_MOVES, "buoys": p["buoys"], "color": _color(p), "a": p["a"], "b": p["b"]},
    "cutoff_draw": lambda p: gettext("%(moves)s moves each: equal buoys (%(buoys)s) and equal damage (%(damage)s), "
                                     "a draw") % {"moves": CUTOFF_MOVES, "buoys": p["buoys"], "damage": p["damage"]},
    "series_won": lambda p: _series(p, won=True),
    "series_shared": lambda p: _series(p, won=False),
}


def _colors_and(colors: list[str]) -> str:
    names = [color_name(c) for c in colors]
    if len(names) == 1:
        return names[0]
    return gettext("%(first)s and %(last)s") % {"first": ", ".join(names[:-1]), "last": names[-1]}


def _series(params: Mapping[str, Any], won: bool) -> str:
    points = int(params["points"])
    values = {"names": _colors_and(list(params["colors"])), "points": points, "race": params.get("ended_after")}
    if won:
        text = ngettext("%(names)s wins the series with %(points)s point",
                        "%(names)s wins the series with %(points)s points", points) % values
    else:
        text = ngettext("%(names)s share first place with %(points)s point",
                        "%(names)s share first place with %(points)s points", points) % values
    if values["race"]:
        text += " " + gettext("(ended after race %(race)s: fewer than two players left)") % values
    return text


def result_text(code: str, params: Mapping[str, Any] | None, reason: str = "") -> str:
    """A result (a game's or a series': ``result_code``, ``result_params``) in the active
    language; ``reason``, the engine's English, for a code this does not know."""
    say = _RESULTS.get(code)
    if say is None:
        return reason
    try:
        return say(params or {})
    except (KeyError, TypeError, ValueError):  # parameters of another shape: the English as written
        return reason


def result_of(row: Any) -> str:
    """The result of a game (of any ruleset) in the active language."""
    return result_text(row.result_code, row.result_params, row.result_reason)


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
    """A group's outcome for a player as tournaments.services_formats worded it in English before
    it stored the outcome as data (:func:`place_text`): "you finished 2nd of 6 and move up to level
    1", in the active language. For the emails recorded before that and not yet sent."""
    match = _PLACE.match(outcome)
    if match:
        rank, players, tail = match.groups()
        for pattern, build in _PLACE_TAILS:
            more = pattern.match(tail)
            if more:
                return build(rank_text(int(rank)), players, *more.groups())
    return outcome


def place_text(place: Mapping[str, Any]) -> str:
    """Where a player finished a group and what follows (tournaments.services_formats._place:
    ``rank``, ``players``, ``move`` up/down/stay with ``level``, timeouts with ``timeouts`` and
    ``games``, left), in the active language."""
    values = {"rank": rank_text(int(place["rank"])), "players": place["players"], "level": place.get("level"),
              "timeouts": place.get("timeouts"), "games": place.get("games")}
    move = place.get("move")
    if move == "up":
        return gettext("you finished %(rank)s of %(players)s and move up to level %(level)s") % values
    if move == "down":
        return gettext("you finished %(rank)s of %(players)s and move down to level %(level)s") % values
    if move == "stay":
        return gettext("you finished %(rank)s of %(players)s and stay at level %(level)s") % values
    if move == "timeouts":
        return gettext("you finished %(rank)s of %(players)s; you lost %(timeouts)s of your %(games)s games "
                       "on time and leave the Competition") % values
    if move == "left":
        return gettext("you finished %(rank)s of %(players)s; you have left the Competition") % values
    return gettext("you finished %(rank)s of %(players)s") % values


def title_text(data: Mapping[str, Any]) -> str:
    """The name of a round-robin or of a Competition's season (its ``competition``, ``season``),
    in the active language: the site's own Competition is "The Competition" in English only."""
    if data.get("season") is None:
        return str(data.get("title", ""))
    name = gettext("The Competition") if data.get("competition_default") else str(data.get("competition", ""))
    return gettext("%(name)s, season %(number)s") % {"name": name, "number": data["season"]}


def rank_text(rank: int) -> str:
    """A place: 1st, 2nd (English), 1., 2. (German), 1º, 2º (Italian)."""
    if translation_language() == "en":
        suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
        return f"{rank}{suffix}"
    return pgettext("ordinal number", "%(n)s.") % {"n": rank}


def translation_language() -> str:
    from django.utils.translation import get_language

    return (get_language() or "en").split("-")[0]


_GROUP: list[tuple[re.Pattern[str], Callable[..., str]]] = [
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


# The engine's refusals by their code (games.engine.errors.EngineError.code), in the reader's
# language; the parameters are the engine's (numbers, cells, direction letters). A refusal with
# no code here keeps the engine's English.
REFUSALS: dict[str, str] = {
    "first_move_adds": gettext_noop("your first move is forced: add one die"),
    "no_die_to_remove": gettext_noop("you hold no dice, so none can be removed"),
    "remove_index": gettext_noop("remove must name one of your %(n)s dice (0..%(last)s)"),
    "remove_not_removing": gettext_noop("remove is only given when removing a die"),
    "reroll_twice": gettext_noop("a die can be re-rolled only once"),
    "reroll_index": gettext_noop("re-roll index %(index)s is not one of your %(n)s dice"),
    "reroll_removed": gettext_noop("the removed die cannot be re-rolled"),
    "choice_needed": gettext_noop("a dice choice is needed"),
    "heading_range": gettext_noop("the heading must point to a side of the cell: 0..5"),
    "not_on_line": gettext_noop("%(cell)s is not on the start/finish line"),
    "not_on_start_rows": gettext_noop("%(cell)s is not on the start/finish line or a row open for placing behind it"),
    "cell_taken": gettext_noop("%(cell)s is taken by another boat"),
    "not_a_heading": gettext_noop("the boat heads %(heading)s: it can keep that heading or turn 60° left or right "
                                  "(%(names)s), not %(shown)s"),
    "not_as_far_as_the_dice": gettext_noop(
        "direction %(direction)s is not allowed: it reaches only %(reach)s of %(total)s, and %(names)s reach all "
        "%(total)s: you must move as far as your dice say. Allowed: %(allowed)s"),
    "not_the_longest_way": gettext_noop(
        "direction %(direction)s is not allowed: no direction reaches %(total)s; it reaches %(reach)s, %(names)s "
        "reach %(longest)s: you must take the longest way. Allowed: %(allowed)s"),
}


def refusal_text(code: str, params: Mapping[str, object], message: str) -> str:
    """An engine refusal in the active language, from its code and parameters; the engine's own
    English ``message`` for a refusal without words here. The API's ``code`` and ``rule`` stay."""
    words = REFUSALS.get(code)
    return gettext(words) % dict(params) if words else message


def clock_text(source: Any) -> str:
    """A clock's terms in words (a challenge, a game, a tournament of any format): "3 days per move
    + 7 days grace" or "a bank of 10 days, +36 h per move, at most 10 days", then what does not
    stop it (docs/clocks.md)."""
    if getattr(source, "clock_shape", "move") == "bank":
        text = ngettext("a bank of %(start)s day", "a bank of %(start)s days", source.grace_days) % {
            "start": source.grace_days}
        text += ", " + ngettext("+%(hours)s hour per move", "+%(hours)s hours per move", source.bank_add_hours) % {
            "hours": source.bank_add_hours}
        text += ", " + ngettext("at most %(cap)s day", "at most %(cap)s days", source.bank_cap_days) % {
            "cap": source.bank_cap_days}
    else:
        text = ngettext("%(days)s day per move", "%(days)s days per move", source.days_per_move) % {
            "days": source.days_per_move}
        text += " + " + ngettext("%(grace)s day grace", "%(grace)s days grace", source.grace_days) % {
            "grace": source.grace_days}
    if not getattr(source, "vacation_allowed", True):
        text += ", " + gettext("no vacation")
    elif not getattr(source, "auto_vacation_allowed", True):
        text += ", " + gettext("no automatic vacation")
    if not getattr(source, "weekend_pause_allowed", True):
        text += ", " + gettext("no weekend pause")
    return text


def bank_text(start: int, add_hours: int, cap: int) -> str:
    """A capped bank in words: "a bank of 10 days, +36 hours per move, at most 10 days"."""
    return clock_text(SimpleNamespace(clock_shape="bank", grace_days=start, bank_add_hours=add_hours,
                                      bank_cap_days=cap))
