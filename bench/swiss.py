"""Swiss pairing speed: a round of 300 and of 1,000 players at round 5 of 9.

    python bench/swiss.py [--sizes 300 1000] [--seed 1]

Rounds 1–4 are made quickly (players sorted by score and rating, paired down the list avoiding
rematches, the stronger player winning more often, 15% draws, a few absences) so that round 5
has realistic score groups, colour histories and floats; then ``tournaments.pairing.pair`` pairs
round 5 by the FIDE Dutch rules and the time is printed (whole call: TRF, engine, parsing).
For scale (issue 7): a C++ Dutch engine takes about 1 s for 300 players and 35–47 s for 1,000 on
this machine; the goals are under 2 s and under 30 s.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.pop(0)  # not bench/: its http.py would hide the standard library's
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments import trf
from tournaments.pairing import pair

GOALS = {300: 2.0, 1000: 30.0}
FLIP = {"1": "0", "0": "1", "=": "="}


def quick_round(t: trf.Tournament, rng: random.Random) -> None:
    """A plausible Swiss round (not the Dutch rules: only to make realistic standings)."""
    absent = {p.number for p in t.players if rng.random() < 0.01}
    order = sorted((p for p in t.players if p.number not in absent), key=lambda p: (-p.points, -p.rating))
    met = {p.number: {c.opponent for c in p.cells if c.opponent} for p in t.players}
    waiting = list(order)
    if len(waiting) % 2:
        bye = next(p for p in reversed(waiting) if all(c.result != "U" for c in p.cells))
        waiting.remove(bye)
        bye.cells.append(trf.Cell(None, "-", "U"))
    while waiting:
        a = waiting.pop(0)
        b = next((p for p in waiting if p.number not in met[a.number]), waiting[0])
        waiting.remove(b)
        whites_a = sum(c.color == "w" for c in a.cells)
        whites_b = sum(c.color == "w" for c in b.cells)
        white, black = (a, b) if whites_a <= whites_b else (b, a)
        gap = (white.rating - black.rating) / 400
        x = rng.random()
        res = "=" if x < 0.15 else ("1" if rng.random() < 1 / (1 + 10 ** -gap) else "0")
        white.cells.append(trf.Cell(black.number, "w", res))
        black.cells.append(trf.Cell(white.number, "b", FLIP[res]))
    for p in t.players:
        if p.number in absent:
            p.cells.append(trf.Cell(None, "-", "Z"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 1000])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for n in args.sizes:
        rng = random.Random(args.seed * 1000 + n)
        ratings = sorted((round(rng.gauss(1800, 250)) for _ in range(n)), reverse=True)
        t = trf.Tournament(name=f"Bench {n}", rounds=9)
        t.players = [trf.Player(number=i + 1, name=f"Player {i + 1}", rating=r) for i, r in enumerate(ratings)]
        for _ in range(4):
            quick_round(t, rng)
        groups = len({p.points for p in t.players})
        start = time.perf_counter()
        result = pair(t)
        seconds = time.perf_counter() - start
        goal = GOALS.get(n)
        verdict = f"goal {goal:g} s: {'ok' if seconds < goal else 'MISSED'}" if goal else ""
        print(f"{n:5d} players, round 5 of 9 ({groups} score groups): {len(result.boards)} boards"
              f"{' + bye' if result.bye else ''} in {seconds:.2f} s   {verdict}")


if __name__ == "__main__":
    main()
