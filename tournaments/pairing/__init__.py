"""Swiss pairings by the FIDE Dutch system (C.04.3, rules in force from February 2026).

``pair(tournament, absent)`` is a pure function from standings and history (a TRF, see
``tournaments.trf``) to the next round's boards; it needs no database. Red plays the role of
White (Red moves first).

The core is the Dutch engine of ``gacrux`` (Otto Milvang's FIDE pairing tool, MIT licence,
pinned in pyproject.toml), run on the TRF in a separate process because gacrux is a
command-line program rather than a library. Why this engine and how it was checked:
docs/tournaments.md.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass

from tournaments import trf


class PairingError(Exception):
    """No pairing could be made (e.g. too few players, or every pairing repeats a game)."""


@dataclass(frozen=True)
class Pairing:
    round: int
    boards: tuple[tuple[int, int], ...]  # (white = Red, black = Yellow) by start number, board order
    bye: int | None  # the start number with the pairing-allocated bye

    def text(self) -> str:
        """The output format of the FIDE pairing programs: the number of pairs, then
        ``white black`` per board, ``0`` as the opponent of the bye."""
        lines = [str(len(self.boards) + (self.bye is not None))]
        lines += [f"{w} {b}" for w, b in self.boards]
        if self.bye is not None:
            lines.append(f"{self.bye} 0")
        return "\n".join(lines) + "\n"


def with_absences(t: trf.Tournament, absent: Mapping[int, str]) -> str:
    """The TRF text with an extra cell ``0000 - Z`` (or ``H``) for each absent player in the
    round to pair; its points count in the player's score column, as the programs expect."""
    copy = dataclasses.replace(t, players=[dataclasses.replace(p, cells=list(p.cells)) for p in t.players])
    rounds = t.rounds_played
    for player in copy.players:
        if player.number in absent:
            player.cells += [trf.Cell(None, "-", "Z")] * (rounds - len(player.cells))
            player.cells.append(trf.Cell(None, "-", absent[player.number]))
    return trf.dump(copy)


def parse_output(text: str, round_number: int) -> Pairing:
    words = text.split()
    if not words:
        raise PairingError("the pairing engine found no pairing")
    count = int(words[0])
    boards: list[tuple[int, int]] = []
    bye = None
    for i in range(count):
        white, black = int(words[1 + 2 * i]), int(words[2 + 2 * i])
        if black == 0:
            bye = white
        elif white == 0:
            bye = black
        else:
            boards.append((white, black))
    return Pairing(round_number, tuple(boards), bye)


def pair_text(text: str, round_number: int) -> Pairing:
    """Pair the next round of a TRF(x) text (absences already given as extra cells)."""
    with tempfile.NamedTemporaryFile("w", suffix=".trf", delete=False, encoding="latin-1") as handle:
        handle.write(text)
        path = handle.name
    try:
        result = subprocess.run(
            [sys.executable, "-m", "gacrux.pairingchecker", "-i", path, "-p", "-o", "-", "-dT"],
            capture_output=True, text=True, timeout=600, check=False,
        )
    finally:
        os.unlink(path)
    if result.returncode != 0 or not result.stdout.strip():
        detail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        raise PairingError(f"no pairing for round {round_number}: {detail[0]}")
    return parse_output(result.stdout, round_number)


def pair(t: trf.Tournament, absent: Mapping[int, str] | None = None) -> Pairing:
    """The next round's pairing. ``absent`` maps start numbers of players who will not play
    to ``"Z"`` (no points) or ``"H"`` (a requested half-point bye)."""
    if len([p for p in t.players if p.number not in (absent or {})]) < 2:
        raise PairingError("a round needs at least two players")
    return pair_text(with_absences(t, absent or {}), t.rounds_played + 1)
