"""The long form of each move: the compact notation (games/engine/notation.py, docs/notation.md)
spelled out in a sentence, for the move list of the game page.

Pure functions of plain values (no database, no request); only the words go through Django's
translation machinery, which is why this lives beside the engine and not in it (the engine
imports no Django). :func:`long_forms` reads a game's history rows in order, because a turn's
"turns left/right" depends on the heading the boat had before it.

>>> from django.utils.translation import override
>>> from games.engine.dice import Change, DiceChoice
>>> with override("en"):
...     describe_turn(color="red", choice=DiceChoice(Change.ADD), dice=(2, 3), direction=1,
...                   previous_heading=0, cells=5, rounded=(1,))
'Red rolls 2+3 (added a die), turns left to NE, moves 5 cells, rounds buoy 1'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from django.utils.translation import get_language

from common.lru import LRU
from common.words import gettext as _
from common.words import ngettext
from games.engine.dice import Change, DiceChoice
from games.engine.hexgrid import left, right
from games.engine.record import choice_from_json
from games.reasons import color_name, direction_label


def _and(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return _("%(first)s and %(last)s") % {"first": ", ".join(items[:-1]), "last": items[-1]}


def _dice(values: Sequence[int]) -> str:
    return "+".join(str(v) for v in values)


def describe_dice(*, color: str, choice: DiceChoice, dice: Sequence[int]) -> str:
    """What the player did with the dice (R6) and what they show, e.g. ``Red rolls 2+3 (added
    a die)``, ``Red keeps 3+1``, ``Red holds no dice``."""
    who = color_name(color)
    what: list[str] = []
    if choice.change is Change.ADD:
        what.append(_("added a die"))
    elif choice.change is Change.REMOVE:
        assert choice.remove is not None
        what.append(_("removed die %(n)d") % {"n": choice.remove + 1})
    if choice.reroll:
        dice_names = _and([str(i + 1) for i in choice.reroll])
        what.append(ngettext("re-rolled die %(dice)s", "re-rolled dice %(dice)s", len(choice.reroll))
                    % {"dice": dice_names})
    rolled = choice.change is Change.ADD or bool(choice.reroll)
    if not dice:
        text = _("%(who)s holds no dice") % {"who": who}
    elif rolled:
        text = _("%(who)s rolls %(dice)s") % {"who": who, "dice": _dice(dice)}
    else:
        text = _("%(who)s keeps %(dice)s") % {"who": who, "dice": _dice(dice)}
    if what:
        text += " (" + ", ".join(what) + ")"
    return text


def describe_turn(
    *,
    color: str,
    choice: DiceChoice,
    dice: Sequence[int],
    direction: int,
    previous_heading: int | None,
    cells: int,
    auto: bool = False,
    crash: bool = False,
    damage: int = 0,
    rounded: Sequence[int] = (),
    finished: bool = False,
    sunk: bool = False,
) -> str:
    """A whole turn (R6–R12) in words."""
    name = direction_label(direction)
    if previous_heading is None or direction == previous_heading:
        steer = _("goes straight on %(dir)s") % {"dir": name}
    elif direction == left(previous_heading):
        steer = _("turns left to %(dir)s") % {"dir": name}
    elif direction == right(previous_heading):
        steer = _("turns right to %(dir)s") % {"dir": name}
    else:  # not a legal turn; say what the record says
        steer = _("heads %(dir)s") % {"dir": name}
    if auto:
        steer += " " + _("(the only way allowed)")
    parts = [describe_dice(color=color, choice=choice, dice=dice), steer]
    parts.append(ngettext("moves %(n)d cell", "moves %(n)d cells", cells) % {"n": cells} if cells else _("does not move"))
    if crash:
        parts.append(ngettext("crashes: %(n)d damage", "crashes: %(n)d damage", damage) % {"n": damage})
    if rounded:
        parts.append(ngettext("rounds buoy %(buoys)s", "rounds buoys %(buoys)s", len(rounded))
                     % {"buoys": _and([str(b) for b in rounded])})
    if finished:
        parts.append(_("finishes"))
    if sunk:
        parts.append(_("sinks"))
    return ", ".join(parts)


def describe_placement(*, color: str, start_cell: int | None, heading: int) -> str:
    """``Yellow starts on line cell 2, heading NE`` (R5)."""
    values = {"who": color_name(color), "n": start_cell, "dir": direction_label(heading)}
    if start_cell is None:
        return _("%(who)s is placed, heading %(dir)s") % values
    return _("%(who)s starts on line cell %(n)d, heading %(dir)s") % values


def describe_end(*, termination: str, color: str | None) -> str:
    who = color_name(color) if color else ""
    if termination == "resign":
        return _("%(who)s resigns") % {"who": who}
    if termination == "timeout":
        return _("%(who)s loses on time") % {"who": who}
    return _("The game is adjudicated")


class Row(Protocol):
    """What :func:`long_forms` reads of a history row (games.models.Move)."""

    ply: int
    kind: str
    race: int
    seat: int
    termination: str
    choice: Any
    dice: Any
    direction: int | None
    auto: bool
    path: Any
    final: Any
    heading: int | None
    damage: int
    crash: bool
    rounded: Any
    finished: bool
    sunk: bool


Headings = dict[tuple[int, int], int | None]  # each boat's heading after the rows said, by race and seat


def long_forms(rows: Sequence[Row], colors: Sequence[str],
               lines: Sequence[Mapping[tuple[int, int], int]] | Mapping[tuple[int, int], int] | None = None
               ) -> list[str]:
    """The long form of every row, in order (a turn needs the heading its boat had before it, in
    its race), for a game of any ruleset.

    ``colors`` names the seats; ``lines`` numbers the start/finish line cells (1-based) of each
    race's course for placements (one mapping: every race's)."""
    return _said(rows, colors, lines, {})


def _said(rows: Sequence[Row], colors: Sequence[str],
          lines: Sequence[Mapping[tuple[int, int], int]] | Mapping[tuple[int, int], int] | None,
          headings: Headings) -> list[str]:
    """:func:`long_forms` of rows that follow those after which the boats had ``headings``
    (updated in place: the headings after these rows)."""
    per_race: Sequence[Mapping[tuple[int, int], int]] = [] if lines is None else \
        [lines] if isinstance(lines, Mapping) else lines
    out: list[str] = []
    for row in rows:
        race = getattr(row, "race", 0) or 0
        color = colors[row.seat] if 0 <= row.seat < len(colors) else "?"
        if row.kind == "place":
            cell = tuple(row.final) if row.final is not None else None
            line = per_race[min(race, len(per_race) - 1)] if per_race else None
            number = line.get(cell) if line is not None and cell is not None else None
            out.append(describe_placement(color=color, start_cell=number, heading=row.heading or 0))
            headings[(race, row.seat)] = row.heading
        elif row.kind == "roll":
            text = describe_dice(color=color, choice=choice_from_json(row.choice), dice=list(row.dice))
            out.append(text + " …")
        elif row.kind == "turn":
            assert row.direction is not None
            out.append(describe_turn(
                color=color, choice=choice_from_json(row.choice), dice=list(row.dice), direction=row.direction,
                previous_heading=headings.get((race, row.seat)), cells=len(row.path), auto=row.auto,
                crash=row.crash, damage=row.damage, rounded=list(row.rounded), finished=row.finished, sunk=row.sunk,
            ))
            headings[(race, row.seat)] = row.heading
        else:
            out.append(describe_end(termination=row.termination, color=color if row.termination != "adjudication"
                                    else None))
    return out


class KeptLongForms:
    """The long forms of a game's rows, kept per process for each game and language: a game's
    history only grows (games.appendonly), so the words of a row, once said, never change. A page
    shown again (its player's after the opponent's move, a spectator's, the replay control's) says
    only the rows that are new since, from the boats' headings kept with the words. ``seal`` is
    the game's dice commitment, different for every game: a game id used again (a test database
    rolled back) cannot find another game's words."""

    def __init__(self, size: int = 2048) -> None:
        self.forms: LRU[tuple[int, str, str], tuple[list[str], Headings]] = LRU(size)

    def of(self, game_id: int, seal: str, rows: Sequence[Row], colors: Sequence[str],
           lines: Sequence[Mapping[tuple[int, int], int]] | Mapping[tuple[int, int], int] | None = None
           ) -> list[str]:
        """:func:`long_forms` of a game's history ``rows`` (all of them from its first, in order: the
        first ``len(rows)`` words kept are theirs), in the active language."""
        key = (game_id, seal, get_language() or "")
        known = self.forms.get(key)
        if known is not None and len(known[0]) >= len(rows):  # a read older than the one kept: its first rows
            return known[0][:len(rows)] if len(known[0]) > len(rows) else known[0]
        if known is not None:  # said up to a move since: the new rows only
            headings = dict(known[1])
            said = known[0] + _said(rows[len(known[0]):], colors, lines, headings)
        else:
            headings = {}
            said = _said(rows, colors, lines, headings)
        self.forms.put(key, (said, headings))
        return said

    def by_ply(self, game_id: int, seal: str, rows: Sequence[Row], colors: Sequence[str],
               lines: Sequence[Mapping[tuple[int, int], int]] | Mapping[tuple[int, int], int] | None = None
               ) -> dict[int, str]:
        """:meth:`of`, each row's words under its ply (a page's move list, a series' actions)."""
        return dict(zip((row.ply for row in rows), self.of(game_id, seal, rows, colors, lines), strict=True))


KEPT_LONG_FORMS = KeptLongForms()
