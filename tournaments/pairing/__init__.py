"""Swiss pairings by the FIDE Dutch system (C.04.3, rules in force from February 2026).

``pair(tournament, absent)`` is a pure, deterministic function from standings and history (a TRF,
see ``tournaments.trf``) to the next round's boards; it needs no database, and the same TRF
always gives the same boards. Red plays the role of White (Red moves first).

The core is the Dutch engine of ``gacrux`` (Otto Milvang's FIDE pairing tool, MIT licence,
pinned in pyproject.toml), run on the TRF in a separate process because gacrux is a
command-line program rather than a library: a child forked for each pairing from a process that
keeps the engine loaded (``warm.py``, one per process that pairs), so a pairing does not pay the
engine's imports again. gacrux does not read the TRF(x) ``XXC`` line: left to
itself it draws the initial colour with ``random.random()``, or, when a player is absent before
round 1, reads "black1" out of the absence. So the TRF handed to it always carries the initial
colour as TRF-26 record ``152`` (which gacrux reads), taken from ``XXC``/``152`` in the file; a
file that states neither has it read back from its first round with a game, as bbpPairings does,
and round 1 of such a file cannot be paired. Why this engine and how it was checked:
docs/tournaments.md.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

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


ENGINE_MODULE = "gacrux.pairingchecker"
ENGINE_TIMEOUT = 600.0  # seconds a pairing may take before the engine's child is stopped
ENGINE_IDLE = 300.0  # seconds the warm process waits for the next pairing before it exits
_WARM = str(Path(__file__).with_name("warm.py"))


@dataclass
class _Warm:
    """The process that keeps the engine loaded, for the process that started it (a process forked
    from that one forgets it and starts its own: ``_forget_warm``)."""

    process: subprocess.Popen[bytes] | None = None


_warm = _Warm()
_warm_lock = threading.Lock()  # one request at a time on its pipes


def _forget_warm() -> None:
    """In a child forked from a process with a warm process (a Celery worker's pool): that one is
    its parent's; the child starts its own when it pairs, with a lock no other thread holds."""
    global _warm_lock
    _warm.process = None
    _warm_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_warm)


def _warm_process() -> subprocess.Popen[bytes]:
    process = _warm.process
    if process is None or process.poll() is not None:
        _stop_warm()
        process = subprocess.Popen([sys.executable, _WARM, str(ENGINE_IDLE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        _warm.process = process
    return process


def _stop_warm() -> None:
    process, _warm.process = _warm.process, None
    if process is not None:
        process.kill()
        process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()


def run_engine(args: list[str], timeout: float = ENGINE_TIMEOUT) -> subprocess.CompletedProcess[str]:
    """``python -m gacrux.pairingchecker ARGS``, run by the warm process (started on first use,
    and again if it exited, idle, or died): its status and output, as ``subprocess.run`` gives them."""
    request = json.dumps({"args": args, "timeout": timeout}).encode() + b"\n"
    with _warm_lock:
        for _ in range(2):  # once more if the warm process had exited (a broken pipe, no answer)
            process = _warm_process()
            assert process.stdin is not None and process.stdout is not None
            try:
                process.stdin.write(request)
                process.stdin.flush()
                # it stops the child at ``timeout``: a process that does not answer well after is stuck
                if not select.select([process.stdout], [], [], timeout + 60)[0]:
                    _stop_warm()
                    break
                line = process.stdout.readline()
            except OSError:
                line = b""
            if line:
                answer = json.loads(line)
                return subprocess.CompletedProcess([ENGINE_MODULE, *args], answer["returncode"], answer["stdout"],
                                                   answer["stderr"])
            _stop_warm()
    return subprocess.CompletedProcess([ENGINE_MODULE, *args], 1, "", "the pairing engine's process stopped")


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
        result = run_engine(["-i", path, "-b", "utf-8", "-p", "-o", "-", "-dT"])
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
