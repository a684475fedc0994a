"""Dice (R6): 1–2–3 dice, the dice choice, and injected sources of rolls.

A turn begins by choosing to keep the number of dice, add one or remove one (naming
which), and which of the kept dice to re-roll. The re-rolled dice and the added die are
rolled at once. Rolls come from a :class:`DiceSource`; the engine never rolls by itself.

>>> choice = DiceChoice(Change.KEEP, reroll=(1,))
>>> choice.apply((3, 2), FixedDice([1]))
((3, 1), (1,))
>>> DiceChoice(Change.REMOVE, remove=0).apply((3, 3, 2), FixedDice([]))
((3, 2), ())
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import itertools
import random
import secrets
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Protocol

from .errors import IllegalMove

FACES = (1, 2, 3)


class Change(StrEnum):
    KEEP = "keep"
    ADD = "add"
    REMOVE = "remove"


@dataclass(frozen=True, slots=True)
class DiceChoice:
    """What a player does with their dice at the start of a turn (R6).

    ``remove`` is the index of the held die put back (only with ``Change.REMOVE``);
    ``reroll`` the sorted indices of held dice rolled again (never the removed one).
    """

    change: Change
    remove: int | None = None
    reroll: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "change", Change(self.change))
        object.__setattr__(self, "reroll", tuple(sorted(self.reroll)))

    @property
    def rolls(self) -> int:
        """How many dice are rolled: the re-rolled ones and the added one."""
        return len(self.reroll) + (self.change is Change.ADD)

    def check(self, held: Sequence[int], first_move: bool = False) -> None:
        """Raise :class:`IllegalMove` (R6) unless this choice is allowed with ``held`` dice."""
        n = len(held)
        if first_move and (self.change is not Change.ADD or self.reroll):
            raise IllegalMove("R6", "your first move is forced: add one die", "change", "first_move_adds")
        if self.change is Change.REMOVE:
            if n == 0:
                raise IllegalMove("R6", "you hold no dice, so none can be removed", "remove", "no_die_to_remove")
            if self.remove is None or not 0 <= self.remove < n:
                raise IllegalMove("R6", f"remove must name one of your {n} dice (0..{n - 1})", "remove",
                                  "remove_index", {"n": n, "last": n - 1})
        elif self.remove is not None:
            raise IllegalMove("R6", "remove is only given when removing a die", "remove", "remove_not_removing")
        if len(set(self.reroll)) != len(self.reroll):
            raise IllegalMove("R6", "a die can be re-rolled only once", "reroll", "reroll_twice")
        for index in self.reroll:
            if not 0 <= index < n:
                raise IllegalMove("R6", f"re-roll index {index} is not one of your {n} dice", "reroll",
                                  "reroll_index", {"index": index, "n": n})
            if index == self.remove:
                raise IllegalMove("R6", "the removed die cannot be re-rolled", "reroll", "reroll_removed")

    def apply(
        self, held: Sequence[int], source: DiceSource, checked: bool = False
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The dice after the roll and the values rolled (re-rolled dice in order, then the added one).
        ``checked`` skips :meth:`check` when the caller has just done it."""
        if not checked:
            self.check(held)
        rolled = tuple(source.roll(self.rolls))
        if len(rolled) != self.rolls or any(v not in FACES for v in rolled):
            raise IllegalMove("R6", f"the dice source gave {rolled!r}, not {self.rolls} values from 1 to 3")
        values = iter(rolled)
        rerolled = set(self.reroll)
        dice = [next(values) if i in rerolled else v for i, v in enumerate(held) if i != self.remove]
        if self.change is Change.ADD:
            dice.append(next(values))
        return tuple(dice), rolled

    def kept_values(self, held: Sequence[int]) -> tuple[int, ...]:
        """The values that stay as they are."""
        rerolled = set(self.reroll)
        return tuple(v for i, v in enumerate(held) if i != self.remove and i not in rerolled)

    def distribution(self, held: Sequence[int]) -> dict[int, Fraction]:
        """Exact probability of each total after this choice (each face has chance 1/3)."""
        base = sum(self.kept_values(held))
        return {base + t: p for t, p in _sums(self.rolls)}


def sum_distribution(count: int) -> dict[int, Fraction]:
    """Exact distribution of the sum of ``count`` 1–2–3 dice."""
    return dict(_sums(count))


@functools.cache
def _sums(count: int) -> tuple[tuple[int, Fraction], ...]:
    """:func:`sum_distribution`, worked out once per number of dice (a page's danger table asks
    for it some eight times, each by Fraction arithmetic: ~0.13 ms)."""
    dist: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(count):
        nxt: dict[int, Fraction] = {}
        for total, p in dist.items():
            for face in FACES:
                nxt[total + face] = nxt.get(total + face, Fraction(0)) + p / 3
        dist = nxt
    return tuple(dist.items())


def all_choices(held: Sequence[int], first_move: bool = False) -> list[DiceChoice]:
    """Every legal choice, by index (2^n re-roll subsets for each change)."""
    n = len(held)
    if first_move:
        return [DiceChoice(Change.ADD)]
    result = []
    changes: list[tuple[Change, int | None]] = [(Change.KEEP, None), (Change.ADD, None)]
    changes += [(Change.REMOVE, i) for i in range(n)]
    for change, remove in changes:
        rest = [i for i in range(n) if i != remove]
        for k in range(len(rest) + 1):
            for subset in itertools.combinations(rest, k):
                result.append(DiceChoice(change, remove, subset))
    return result


def distinct_choices(held: Sequence[int], first_move: bool = False) -> list[DiceChoice]:
    """One choice for each different effect: (values kept as they are, number of dice rolled).

    Two choices with the same kept values and the same number of rolled dice are the
    same for the player, whichever dice they name. Much shorter than :func:`all_choices`.
    """
    if first_move:
        return [DiceChoice(Change.ADD)]
    seen: dict[tuple[tuple[int, ...], int], DiceChoice] = {}
    n = len(held)
    order = sorted(range(n), key=lambda i: held[i])
    changes: list[tuple[Change, int | None]] = [(Change.KEEP, None), (Change.ADD, None)]
    # removing any die of a value is the same as removing the first one of that value
    firsts = {held[i]: i for i in reversed(order)}
    changes += [(Change.REMOVE, i) for i in sorted(firsts.values())]
    for change, remove in changes:
        rest = [i for i in order if i != remove]
        counts = Counter(held[i] for i in rest)
        faces = sorted(counts)
        for kept_counts in itertools.product(*(range(counts[f] + 1) for f in faces)):
            reroll: list[int] = []
            kept: list[int] = []
            for face, keep in zip(faces, kept_counts, strict=True):
                indices = [i for i in rest if held[i] == face]
                kept += [face] * keep
                reroll += indices[keep:]
            choice = DiceChoice(change, remove, tuple(reroll))
            key = (tuple(sorted(kept)), choice.rolls)
            seen.setdefault(key, choice)
    return list(seen.values())


class DiceSource(Protocol):
    """Where rolled values come from. ``roll(n)`` returns n values, each 1, 2 or 3."""

    def roll(self, count: int) -> tuple[int, ...]: ...


class SystemDice:
    """Cryptographic dice from the operating system (``secrets``)."""

    def roll(self, count: int) -> tuple[int, ...]:
        return tuple(secrets.randbelow(3) + 1 for _ in range(count))


class RandomDice:
    """Reproducible dice from a ``random.Random`` (simulations and tests, never for play)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def roll(self, count: int) -> tuple[int, ...]:
        return tuple(self.rng.randint(1, 3) for _ in range(count))


class FixedDice:
    """Dice that give the listed values in order (replays and worked examples)."""

    def __init__(self, values: Iterable[int]) -> None:
        self.values = list(values)
        self.position = 0

    def roll(self, count: int) -> tuple[int, ...]:
        if self.position + count > len(self.values):
            raise IllegalMove("R6", f"no more recorded dice: {count} asked, {len(self.values) - self.position} left")
        out = tuple(self.values[self.position : self.position + count])
        self.position += count
        return out


class SeededDice:
    """Committed dice: the rolls of one turn derived from a secret seed (see docs/fair-dice.md).

    The values for the turn with number ``ply`` are read from
    HMAC-SHA256(seed, "powerboats/dice/<ply>/<block>") for block = 0, 1, ...: each byte
    below 255 gives the face ``byte % 3 + 1``; bytes equal to 255 are skipped so that
    every face has probability exactly 1/3.
    """

    def __init__(self, seed: bytes, ply: int) -> None:
        self.seed = seed
        self.ply = ply
        self.used = 0

    def _stream(self) -> Iterable[int]:
        for block in itertools.count():
            message = f"powerboats/dice/{self.ply}/{block}".encode()
            for byte in hmac.new(self.seed, message, hashlib.sha256).digest():
                if byte < 255:
                    yield byte % 3 + 1

    def roll(self, count: int) -> tuple[int, ...]:
        stream = iter(self._stream())
        values = [next(stream) for _ in range(self.used + count)]
        self.used += count
        return tuple(values[-count:]) if count else ()
