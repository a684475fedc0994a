"""Compact move notation (docs/notation.md).

A turn reads ``<number><colour> <choice> <dice> <direction>[*] <cells>[ x<damage>][ b<buoys>][ F][ S]``:

>>> from games.engine.dice import Change, DiceChoice
>>> format_choice(DiceChoice(Change.ADD, reroll=(1,)))
'+/2'
>>> parse_choice('-1/2') == DiceChoice(Change.REMOVE, remove=0, reroll=(1,))
True
>>> parse_choice('=')
DiceChoice(change=<Change.KEEP: 'keep'>, remove=None, reroll=())
"""

from __future__ import annotations

import re

from .dice import Change, DiceChoice
from .hexgrid import DIRECTION_NAMES
from .rules import Move, Placement

_CHOICE = re.compile(r"^(?P<change>=|\+|-(?P<remove>[1-9][0-9]*))(?:/(?P<reroll>[1-9]+))?$")


def format_choice(choice: DiceChoice) -> str:
    """``=`` keep, ``+`` add, ``-k`` remove die k; ``/ij`` re-roll dice i and j (1-based)."""
    if choice.change is Change.KEEP:
        text = "="
    elif choice.change is Change.ADD:
        text = "+"
    else:
        assert choice.remove is not None
        text = f"-{choice.remove + 1}"
    if choice.reroll:
        text += "/" + "".join(str(i + 1) for i in choice.reroll)
    return text


def parse_choice(text: str) -> DiceChoice:
    match = _CHOICE.match(text.strip())
    if not match:
        raise ValueError(f"not a dice choice: {text!r} (e.g. '=', '+/2', '-1/23')")
    change = {"=": Change.KEEP, "+": Change.ADD}.get(match["change"], Change.REMOVE)
    remove = int(match["remove"]) - 1 if match["remove"] else None
    reroll = tuple(sorted(int(c) - 1 for c in match["reroll"] or ""))
    if len(set(reroll)) != len(reroll):
        raise ValueError(f"a die is named twice in {text!r}")
    return DiceChoice(change, remove, reroll)


def format_move(move: Move) -> str:
    parts = [
        f"{move.number}{move.color[0].upper()}",
        format_choice(move.choice),
        "".join(str(v) for v in move.dice) or "0",
        DIRECTION_NAMES[move.direction] + ("*" if move.auto else ""),
        str(len(move.path)),
    ]
    if move.crash:
        parts.append(f"x{move.damage}")
    if move.rounded:
        parts.append("b" + "".join(str(b) for b in move.rounded))
    if move.finished:
        parts.append("F")
    if move.sunk:
        parts.append("S")
    return " ".join(parts)


def format_roll(number: int, color: str, choice: DiceChoice, dice: tuple[int, ...]) -> str:
    """A roll still awaiting its direction: the first three parts of a turn, then ``…``.

    >>> format_roll(4, "red", DiceChoice(Change.ADD, reroll=(0,)), (3, 1))
    '4R +/1 31 …'
    """
    return f"{number}{color[0].upper()} {format_choice(choice)} {''.join(str(v) for v in dice) or '0'} …"


ENDINGS = {"resign": "resigns", "timeout": "loses on time", "adjudication": "adjudicated"}


def format_end(termination: str, color: str | None) -> str:
    """How a game ended other than by a move: ``Y resigns``, ``R loses on time``, ``adjudicated``.

    >>> format_end("timeout", "red")
    'R loses on time'
    """
    text = ENDINGS.get(termination, termination)
    return f"{color[0].upper()} {text}" if color and termination != "adjudication" else text


def format_placement(placement: Placement) -> str:
    q, r = placement.cell
    return f"{placement.color[0].upper()}@{q},{r} {DIRECTION_NAMES[placement.heading]}"
