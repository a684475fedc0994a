"""Check a finished game's dice from its record alone (docs/fair-dice.md).

    python -m games.fairdice record.json

Needs no database: the record holds the revealed seed, its SHA-256 committed at the
start, and for every move the ply of its roll and the values rolled.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from games.engine import SeededDice


def check_record(record: Mapping[str, Any]) -> list[str]:
    """Problems found (an empty list when every roll matches the committed seed)."""
    dice = record.get("meta", {}).get("dice", {})
    seed_hex, committed = dice.get("seed"), dice.get("seed_sha256")
    if not committed:
        return ["the record has no committed seed hash"]
    if not seed_hex:
        return ["the seed is not revealed yet: it is published when the game ends"]
    seed = bytes.fromhex(seed_hex)
    problems = []
    if hashlib.sha256(seed).hexdigest() != committed:
        problems.append("the revealed seed does not match the SHA-256 committed at the start")
    for index, move in enumerate(record.get("moves", []), 1):
        expected = list(SeededDice(seed, move["roll_ply"]).roll(len(move["rolled"])))
        if expected != move["rolled"]:
            problems.append(f"move {index} ({move['color']} {move['number']}): rolled {move['rolled']}, the seed gives {expected}")
    pending = record.get("pending")
    if pending and "roll_ply" in pending:  # the last roll, if its direction never came
        expected = list(SeededDice(seed, pending["roll_ply"]).roll(len(pending["rolled"])))
        if expected != pending["rolled"]:
            problems.append(f"the last roll (never moved): rolled {pending['rolled']}, the seed gives {expected}")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(__doc__)
        return 2
    bad = 0
    for name in args:
        with open(name, encoding="utf-8") as handle:
            record = json.load(handle)
        problems = check_record(record)
        moves = len(record.get("moves", []))
        print(f"{name}: " + ("; ".join(problems) if problems else f"ok: all {moves} rolls follow from the committed seed"))
        bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
