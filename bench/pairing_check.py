"""Second opinion on our pairings: random tournaments paired round by round by
``tournaments.pairing`` (FIDE Dutch), then re-paired by an independent Dutch engine
(caissify-pairings' checker, which compares pairs, not colours).

    python bench/pairing_check.py [--tournaments 30] [--seed 1]

Prints, per tournament, its size and rounds, and whether every round's pairs agree; at the
end the totals. Colours are checked separately against the absolute colour criteria.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.pop(0)  # not bench/: its http.py would hide the standard library's
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments import trf
from tournaments.pairing import pair

FLIP = {"1": "0", "0": "1", "=": "="}


def random_tournament(rng: random.Random, absences: float = 0.04) -> trf.Tournament:
    n = rng.randint(9, 40)
    rounds = rng.randint(5, 9)
    t = trf.Tournament(name="Check", rounds=rounds, first_color=rng.choice("wb"))
    ratings = sorted((round(rng.gauss(1800, 250)) for _ in range(n)), reverse=True)
    t.players = [trf.Player(number=i + 1, name=f"P{i + 1}", rating=r) for i, r in enumerate(ratings)]
    for _ in range(rounds):
        absent = {p.number: rng.choice("HZ") for p in t.players if rng.random() < absences}
        result = pair(t, absent)
        for w, b in result.boards:
            x = rng.random()
            res = "=" if x < 0.15 else ("1" if rng.random() < 0.6 else "0")
            t.player(w).cells.append(trf.Cell(b, "w", res))
            t.player(b).cells.append(trf.Cell(w, "b", FLIP[res]))
        if result.bye is not None:
            t.player(result.bye).cells.append(trf.Cell(None, "-", "U"))
        for number, code in absent.items():
            t.player(number).cells.append(trf.Cell(None, "-", code))
    return t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tournaments", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--absences", type=float, default=0.04, help="chance a player misses a round (H or Z)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rounds_total = rounds_ok = 0
    for i in range(args.tournaments):
        t = random_tournament(rng, args.absences)
        with tempfile.NamedTemporaryFile("w", suffix=".trf", delete=False) as handle:
            handle.write(trf.dump(t))
        out = subprocess.run([sys.executable, "-m", "caissify_pairings", "--check", handle.name], capture_output=True,
                             text=True, timeout=1800).stdout
        ok = sum(1 for line in out.splitlines() if line.strip().startswith("Round") and line.strip().endswith("OK"))
        rounds_total += t.rounds
        rounds_ok += ok
        print(f"tournament {i + 1:3d}: {len(t.players):3d} players, {t.rounds} rounds: {ok}/{t.rounds} rounds agree")
    print(f"pairs agree in {rounds_ok}/{rounds_total} rounds of {args.tournaments} random tournaments")


if __name__ == "__main__":
    main()
