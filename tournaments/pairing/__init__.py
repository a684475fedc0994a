"""Swiss pairings by the FIDE Dutch system (C.04.3, rules in force from February 2026).

``pair(tournament, absent)`` is a pure, deterministic function from standings and history (a TRF,
see ``tournaments.trf``) to the next round's boards; it needs no database, and the same TRF
always gives the same boards. Red plays the role of White (Red moves first).

The core is the Dutch engine of ``gacrux`` (Otto Milvang's FIDE pairing tool, MIT licence,
pinned in pyproject.toml), run on the TRF in a separate process because gacrux is a
command-line program rather than a library. gacrux does not read the TRF(x) ``XXC`` line: left to
itself it draws the initial colour with ``random.random()``, or, when a player is absent before
round 1, reads "black1" out of the absence. So the TRF handed to it always carries the initial
colour as TRF-26 record ``152`` (which gacrux reads), taken from ``XXC``/``152`` in the file; a
file that states neither has it read back from its first round with a game, as bbpPairings does,
and round 1 of such a file cannot be paired. Why this engine and how it was checked:
docs/tournaments.md.
"""

from __future__ import annotations

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


def with_absences(t: trf.Tournament, absent: Mapping[int, str]) -> trf.Tournament:
    """A copy with an extra cell ``0000 - Z`` (or ``H``) for each player absent from the round
    to pair, as the programs expect (its points count in the player's score column)."""
    copy = t.copy()
    upto = t.rounds_paired
    for player in copy.players:
        if player.number in absent:
            if absent[player.number] not in ("Z", "H", "F"):
                raise PairingError(f"player {player.number}: an absence is Z, H or F, not {absent[player.number]!r}")
            del player.cells[upto:]
            player.cells += [trf.Cell(None, "-", "Z")] * (upto - len(player.cells))
            player.cells.append(trf.Cell(None, "-", absent[player.number]))
    return copy


def initial_color(t: trf.Tournament) -> str:
    """The initial colour (C.04.3: drawn by lot before round 1): the file's ``XXC``/``152``, else
    read back from its first round with a game."""
    color = t.first_color or trf.infer_first_color(t)
    if color is None:
        raise PairingError("the TRF does not give the initial colour (XXC white1|black1 or record 152 W|B), "
                           "which round 1 needs")
    return color


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


def engine_input(t: trf.Tournament) -> str:
    """The TRF the engine reads: the tournament as we write it, with the initial colour stated."""
    copy = t.copy()
    copy.first_color = initial_color(t)
    copy.buoys_damage = {}
    return trf.dump(copy)


def pair_tournament(t: trf.Tournament) -> Pairing:
    """Pair the round after the last paired one; absences for it are already extra cells."""
    round_number = t.rounds_paired + 1
    if not t.rounds:
        raise PairingError("the TRF does not say how many rounds are planned (XXR or 142), which the pairing needs")
    if round_number > t.rounds:
        raise PairingError(f"all {t.rounds} rounds have been paired")
    present = [p for p in t.players if len(p.cells) < round_number]
    if len(present) < 2:
        raise PairingError("a round needs at least two players")
    with tempfile.NamedTemporaryFile("w", suffix=".trf", delete=False, encoding="utf-8") as handle:
        handle.write(engine_input(t))
        path = handle.name
    try:
        result = subprocess.run(
            [sys.executable, "-m", "gacrux.pairingchecker", "-i", path, "-b", "utf-8", "-p", "-o", "-", "-dT"],
            capture_output=True, text=True, timeout=600, check=False,
        )
    finally:
        os.unlink(path)
    if result.returncode != 0 or not result.stdout.strip():
        detail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        raise PairingError(f"no pairing for round {round_number}: {detail[0]}")
    pairing = parse_output(result.stdout, round_number)
    if not pairing.boards and pairing.bye is None:  # gacrux prints "0" when none exists
        raise PairingError(f"no legal pairing for round {round_number}: every way of pairing the "
                           f"{len(present)} players breaks an absolute criterion (C.04.3), e.g. repeats a game")
    return pairing


def pair_text(text: str) -> Pairing:
    """Pair the next round of a TRF(x) text (absences for it given as extra cells)."""
    try:
        t = trf.parse(text)
    except trf.TrfError as exc:
        raise PairingError(f"not a valid TRF: {exc}") from exc
    return pair_tournament(t)


def pair(t: trf.Tournament, absent: Mapping[int, str] | None = None) -> Pairing:
    """The next round's pairing. ``absent`` maps start numbers of players who will not play
    to ``"Z"`` (no points) or ``"H"`` (a requested half-point bye)."""
    return pair_tournament(with_absences(t, absent or {}))
