"""Round-robin pairing tables: FIDE's Berger tables (C.05, Annex 1), as a pure function and a
command. No database.

    python -m tournaments.berger N [--double]

prints the table for N players, one line per round: ``round: a-b c-d ...`` with ``a`` Red and ``b``
Yellow by start number (the first-named player of a FIDE table has White; Red, who moves first,
plays White's part here, as in the Swiss). For an odd N the table of N + 1 players is used and
the player paired with the dummy N + 1 rests that round: the bye, omitted.

The tables: with n players (n even) there are n - 1 rounds. Round 1 pairs 1-n, 2-(n-1), ...,
n/2-(n/2+1). Every next round adds n/2 to each number other than n, counting within 1..n-1, and
player n alternates on the first board: second-named (Black) in odd rounds, first-named (White) in
even rounds. This reproduces the published tables; tests/tournaments/test_berger.py checks it
against them, copied from the handbook, for 3 to 14 players.

A double round-robin plays the table twice, the second cycle with the colours reversed. As
Annex 1 recommends for a double round-robin, the last two rounds of the first cycle are
exchanged, so that nobody gets the same colour three times running where the cycles meet.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

MIN_PLAYERS = 2  # a "group" of two is a match (a final of two group winners)
MAX_PLAYERS = 99

Pair = tuple[int, int]  # (Red, Yellow) by start number


def table(players: int) -> list[list[Pair]]:
    """The single round-robin table for ``players`` players: rounds of (Red, Yellow) pairs by
    start number, the board order of the FIDE table, byes (the dummy's opponent) omitted."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"a round-robin needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    size = players + players % 2  # an odd number plays with a dummy: the highest number
    half = size // 2

    def shift(number: int) -> int:
        return number if number == size else (number - 1 + half) % (size - 1) + 1

    rounds = [[(i, size + 1 - i) for i in range(1, half + 1)]]
    for number in range(2, size):
        pairs = [(shift(a), shift(b)) for a, b in rounds[-1]]
        first, second = pairs[0]
        other = first if second == size else second
        pairs[0] = (size, other) if number % 2 == 0 else (other, size)
        rounds.append(pairs)
    return [[(a, b) for a, b in pairs if size not in (a, b) or size == players] for pairs in rounds]


def schedule(players: int, *, double: bool = False) -> list[list[Pair]]:
    """Every round of a single or double round-robin, in playing order. A double round-robin is
    the table with its last two rounds exchanged, then the table again with colours reversed."""
    rounds = table(players)
    if not double:
        return rounds
    first = list(rounds)
    if len(first) >= 3:
        first[-2], first[-1] = first[-1], first[-2]
    return first + [[(b, a) for a, b in pairs] for pairs in rounds]


def rounds_for(players: int, *, double: bool = False) -> int:
    """How many rounds a group of ``players`` plays (with the rest round when odd)."""
    return (players + players % 2 - 1) * (2 if double else 1)


def snake(items: Sequence[T], groups: int) -> list[list[T]]:
    """Deal ``items`` (best first) into ``groups`` groups in snake order: 1, 2, ..., g, g, ...,
    2, 1, 1, 2, ... so that every group gets a fair share of the strong and the weak.

    >>> snake("ABCDEFGH", 3)
    [['A', 'F', 'G'], ['B', 'E', 'H'], ['C', 'D']]
    """
    if groups < 1:
        raise ValueError("at least one group")
    out: list[list[T]] = [[] for _ in range(groups)]
    for i, item in enumerate(items):
        turn, place = divmod(i, groups)
        out[place if turn % 2 == 0 else groups - 1 - place].append(item)
    return out


def text(players: int, *, double: bool = False) -> str:
    """The table as the command prints it."""
    return "".join(f"{number}: {' '.join(f'{a}-{b}' for a, b in pairs)}\n"
                   for number, pairs in enumerate(schedule(players, double=double), 1))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tournaments.berger",
        description="The FIDE Berger table (C.05 Annex 1) for N players: one line per round, "
                    "'round: red-yellow ...' by start number, the bye omitted.",
    )
    parser.add_argument("players", type=int, help=f"the number of players, {MIN_PLAYERS} to {MAX_PLAYERS}")
    parser.add_argument("--double", action="store_true",
                        help="a double round-robin: the second cycle with the colours reversed")
    args = parser.parse_args(argv)
    try:
        sys.stdout.write(text(args.players, double=args.double))
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
