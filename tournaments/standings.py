"""Standings of a Swiss tournament and their tie-breaks, by FIDE C.07 as in force (the 2024
edition with the update applied from March 2026), computed from a TRF alone. The site's
standings page, its API and this command are this one implementation
(``selectors.tournament_standings`` builds the TRF from the database and calls :func:`compute`).

    python -m tournaments.standings FILE.trf [--tiebreaks BH/C1 BH SB ...] [--csv] [--unrated RATING]

The file may be any TRF: the site's exports, or TRF-16/TRF(x) files written by FIDE pairing and
tournament programs (records other than those :mod:`tournaments.trf` reads are skipped).

Score (PTS) comes first: 1 for a win, a forfeit win (``+``), the pairing-allocated bye (``U``) or
a full-point bye (``F``); ½ for a draw or a half-point bye (``H``); 0 for a loss, a forfeit
loss (``-``) or an absence (``Z``). Then the tie-breaks in the order given (codes of C.07):

======  =========================================================================================
BH/C1   Buchholz Cut-1 (8.1, 14.1): Buchholz without its least significant contribution; a
        voluntary unplayed round's contribution is cut first (16.5).
BH      Buchholz (8.1): the sum of the opponents' scores, unplayed rounds as in art. 16 (below).
SB      Sonneborn-Berger (9.1): the sum over rounds of the result × the opponent's score.
DE      Direct encounter (6): among players still tied, the points from their games with each
        other; when not all of them have met, a player goes ahead only with more points than
        any other could still reach. Applied again to those still tied. The value is the place
        it gives within the tied group, 0 when it separates nobody. Games over the board only.
WIN     Number of wins (7.1), with or without playing (``1 + U F``).
WON     Number of games won over the board (7.2).
BPG     Number of games played with Black (7.3): Yellow here. Yellow, who places first and moves
        second, is Black in every TRF the site writes (``b``), so a FIDE program computing BPG
        from the export counts the same games; measured, neither colour has an advantage
        (docs/ratings.md), so nothing speaks for turning the mapping round.
ARO     Average rating of opponents (10.1): over games played, rounded to a whole number;
        forfeits do not count (15.2).
BUOYS   Game points (R14): buoys rounded and finishing, summed over the tournament's games.
DMG     Damage taken in them (R14); less ranks higher.
PS      Sum of progressive scores (C.07's PS): the score after each round, summed; an unplayed
        round counts what it scored. The command's only: the site does not offer it.
======  =========================================================================================

Unplayed rounds (art. 16): a player's own unplayed round — a bye, a forfeit either way, an
absence — counts against a dummy opponent whose score is the player's own score (16.4),
capped by the scheduled opponent's score for a forfeit (16.4.1) and by a draw in every round
for a bye or an absence (16.4.2). An opponent's score counts what the opponent got in each
round, except that rounds without an opponent after the opponent's last round that was not a
voluntary unplayed one (the absences that trail a withdrawal) count as draws (16.3). Players
equal on everything share the place.

BUOYS and DMG come from the ``PBS`` records of the site's exports; a TRF without them cannot be
ranked by them. ARO needs every player's rating (or ``--unrated``). :func:`compute` refuses a
tie-break the file cannot give; the command leaves it out, the default ones included, and says
which and why on stderr. It refuses a file whose ``XXS`` or ``162`` record states another scoring
system than 1-½-0 (:func:`check_scoring`).

Round-robins (``--round-robin``; the site's round-robin groups and the Competition, ranked by
score, SB, DE, WIN, BUOYS, DMG: :data:`ROUND_ROBIN_ORDER`): a round in which a player has neither
an opponent nor a result (a blank cell: the rest of an odd group, or a game still going) is no
round for that player. It counts nothing: no dummy opponent, and no draw in the opponents' scores
of 16.3, which are Swiss rules for rounds a player missed. Everything else is as above.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tournaments import trf

DRAW = 0.5
# code: what the site calls it
TIEBREAKS: dict[str, str] = {
    "BH/C1": "Buchholz Cut-1",
    "BH": "Buchholz",
    "SB": "Sonneborn-Berger",
    "DE": "direct encounter",
    "WIN": "number of wins",
    "WON": "games won over the board",
    "BPG": "games as Yellow (C.07's games with Black)",
    "ARO": "average rating of opponents",
    "BUOYS": "game points, buoys and finishing (R14)",
    "DMG": "damage taken (R14), less is better",
}
# what the command also computes, on any TRF; the site offers TIEBREAKS (its forms, API and labels)
COMMAND_TIEBREAKS: dict[str, str] = {**TIEBREAKS, "PS": "sum of progressive scores"}
PBS_CODES = ("BUOYS", "DMG")
LOWER_IS_BETTER = {"DMG"}
DEFAULT_ORDER: tuple[str, ...] = ("BH/C1", "BH", "SB", "BUOYS", "DMG", "DE")
# round-robin groups (docs/tournaments.md, "Round-robin tournaments"): after the score
ROUND_ROBIN_ORDER: tuple[str, ...] = ("SB", "DE", "WIN", "BUOYS", "DMG")

Value = float | int | None


def parse_order(codes: str | Iterable[str], known: Mapping[str, str] = TIEBREAKS) -> tuple[str, ...]:
    """Tie-break codes in order, from a list or a text such as ``"BH/C1 BH SB"`` (spaces or
    commas), each one of ``known`` (the site's by default); raises ValueError naming what is wrong."""
    words = codes.replace(",", " ").split() if isinstance(codes, str) else list(codes)
    order = tuple(w.strip().upper() for w in words if w.strip())
    unknown = [c for c in order if c not in known]
    if unknown:
        raise ValueError(f"unknown tie-break {', '.join(unknown)}: use {', '.join(known)}")
    repeated = sorted({c for c in order if order.count(c) > 1})
    if repeated:
        raise ValueError(f"tie-break {', '.join(repeated)} is given twice")
    return order


@dataclass
class Standing:
    number: int  # start number
    name: str
    points: float
    values: dict[str, Value] = field(default_factory=dict)  # by tie-break code
    rank: int = 0


@dataclass
class _Contribution:
    value: float  # the opponent's (or the dummy's) score
    result: float  # what the player got in the round
    voluntary: bool  # a voluntary unplayed round (C.07 16)


class _Tables:
    """Per-player figures over the first ``rounds`` rounds of a TRF."""

    def __init__(self, t: trf.Tournament, rounds: int, round_robin: bool = False) -> None:
        self.t = t
        self.rounds = rounds
        self.players = {p.number: p for p in t.players}
        self.cells = {n: [p.cell(r) for r in range(1, rounds + 1)] for n, p in self.players.items()}
        if round_robin:  # a blank round is no round for the player (a rest, or a game still going)
            self.cells = {n: [c for c in cells if c != trf.NOT_PAIRED] for n, cells in self.cells.items()}
        self.score = {n: sum(c.points for c in cells) for n, cells in self.cells.items()}
        self.adjusted = {n: self._adjusted(cells) for n, cells in self.cells.items()}
        self.contributions = {n: self._contributions(n) for n in self.players}

    @staticmethod
    def _adjusted(cells: Sequence[trf.Cell]) -> float:
        """The score as an opponent's (16.3): rounds without an opponent after the last round
        that was not voluntarily unplayed count as draws."""
        last = max((r for r, c in enumerate(cells, 1) if not c.voluntarily_unplayed), default=0)
        return sum(c.points if r <= last or c.opponent is not None else DRAW for r, c in enumerate(cells, 1))

    def _contributions(self, number: int) -> list[_Contribution]:
        own = self.score[number]
        out = []
        for c in self.cells[number]:
            if c.played:
                assert c.opponent is not None
                out.append(_Contribution(self.adjusted[c.opponent], c.points, False))
                continue
            if c.opponent is not None:  # a forfeit: capped by the scheduled opponent (16.4.1)
                dummy = min(own, self.adjusted[c.opponent])
            else:  # a bye or an absence: capped by a draw in every round (16.4.2)
                dummy = min(own, DRAW * self.rounds)
            out.append(_Contribution(dummy, c.points, c.voluntarily_unplayed))
        return out

    def value(self, code: str, number: int, unrated: int | None) -> Value:
        contributions = self.contributions[number]
        cells = self.cells[number]
        if code == "BH":
            return sum(c.value for c in contributions)
        if code == "BH/C1":
            if not contributions:
                return 0.0
            voluntary = [c for c in contributions if c.voluntary]
            cut = min(voluntary or contributions, key=lambda c: c.value)
            return sum(c.value for c in contributions) - cut.value
        if code == "SB":
            return sum(c.value * c.result for c in contributions)
        if code == "PS":  # the score after each round, summed; unplayed rounds count what they scored
            running = total = 0.0
            for c in cells:
                running += c.points
                total += running
            return total
        if code == "WIN":
            return sum(1 for c in cells if c.points == 1.0)
        if code == "WON":
            return sum(1 for c in cells if c.played and c.points == 1.0)
        if code == "BPG":
            return sum(1 for c in cells if c.played and c.color == "b")
        if code == "ARO":
            ratings = [self.players[c.opponent].rating or unrated for c in cells if c.played and c.opponent]
            if not ratings:
                return None
            total = sum(r or 0 for r in ratings)
            return round(total / len(ratings) + 0.000001)  # as gacrux rounds
        if code in ("BUOYS", "DMG"):
            points, damage = self.t.buoys_damage.get(number, (0, 0))
            return points if code == "BUOYS" else damage
        raise ValueError(code)

    def direct_encounter(self, group: list[int]) -> list[list[int]]:
        """Split a tied group by direct encounter (art. 6), again within each part still tied
        while that changes anything; the parts in order, best first."""
        parts = self._de_split(group)
        if len(parts) == 1:
            return parts
        out: list[list[int]] = []
        for part in parts:
            out += self.direct_encounter(part) if len(part) > 1 else [part]
        return out

    def _de_split(self, group: list[int]) -> list[list[int]]:
        members = set(group)
        scored: dict[int, float] = {}
        met: dict[int, int] = {}
        for n in group:
            against: dict[int, list[float]] = {}
            for c in self.cells[n]:
                if c.played and c.opponent in members:
                    against.setdefault(c.opponent, []).append(c.points)
            scored[n] = sum(sum(v) / len(v) for v in against.values())
            met[n] = len(against)
        everyone = len(group) - 1
        if all(met[n] == everyone for n in group):
            ordered = sorted(group, key=lambda n: (-scored[n], n))
            return _split(ordered, lambda n: scored[n])
        # not all have met: a player goes ahead only with more than any other could still reach
        most = {n: scored[n] + (everyone - met[n]) * 1.0 for n in group}
        ordered = sorted(group, key=lambda n: (-scored[n], -most[n], n))
        parts: list[list[int]] = []
        i = 0
        while i < len(ordered) - 1 and scored[ordered[i]] > max(most[n] for n in ordered[i + 1 :]):
            parts.append([ordered[i]])
            i += 1
        parts.append(ordered[i:])
        return parts


def _split(ordered: list[int], key: Callable[[int], object]) -> list[list[int]]:
    parts: list[list[int]] = []
    for n in ordered:
        if parts and key(parts[-1][0]) == key(n):
            parts[-1].append(n)
        else:
            parts.append([n])
    return parts


def _sort_key(code: str, value: Value) -> tuple[int, float]:
    """Better first: a missing value (ARO without games) last."""
    if value is None:
        return (1, 0.0)
    return (0, float(value) if code in LOWER_IS_BETTER else -float(value))


def _best_first(group: list[int], code: str, values: dict[int, Value]) -> list[int]:
    return sorted(group, key=lambda n: (_sort_key(code, values[n]), n))


def unavailable(t: trf.Tournament, codes: Iterable[str], unrated: int | None = None) -> dict[str, str]:
    """The tie-breaks among ``codes`` that this file cannot give, each with the reason: BUOYS and
    DMG without ``PBS`` records (only the site's exports carry them), ARO when a player has no
    rating and ``unrated`` gives none. Every other tie-break needs the rounds alone."""
    out: dict[str, str] = {}
    for code in codes:
        if code in PBS_CODES and t.players and not t.buoys_damage:
            out[code] = ("the file has no PBS records (game points and damage, R14, which only this site's "
                         "exports carry)")
        if code == "ARO" and unrated is None:
            missing = [p.number for p in t.players if not p.rating]
            if missing:
                shown = ", ".join(map(str, missing[:10])) + (", ..." if len(missing) > 10 else "")
                who = f"players {shown} have" if len(missing) > 1 else f"player {shown} has"
                out[code] = f"{who} no rating (give a rating for the unrated: --unrated RATING)"
    return out


def describe(missing: Mapping[str, str]) -> list[tuple[list[str], str]]:
    """``unavailable``'s answer as (codes, reason), codes with the same reason together."""
    by_reason: dict[str, list[str]] = {}
    for code, why in missing.items():
        by_reason.setdefault(why, []).append(code)
    return [(codes, why) for why, codes in by_reason.items()]


def compute(t: trf.Tournament, order: Iterable[str] = DEFAULT_ORDER, *, rounds: int | None = None,
            unrated: int | None = None, round_robin: bool = False) -> list[Standing]:
    """The standings after ``rounds`` rounds (all the file's rounds by default), best first.
    With ``round_robin`` a blank round (no opponent, no result) counts nothing (module docstring).

    Raises ValueError when a tie-break cannot be computed from the file (:func:`unavailable`)."""
    codes = parse_order(order, COMMAND_TIEBREAKS)
    played_rounds = t.rounds_played if rounds is None else rounds
    missing = unavailable(t, codes, unrated)
    if missing:
        raise ValueError("; ".join(f"cannot rank by {' and '.join(codes)}: {why}" for codes, why in describe(missing)))
    tables = _Tables(t, played_rounds, round_robin)
    rows = {p.number: Standing(p.number, p.name, tables.score[p.number]) for p in t.players}
    groups = _split(sorted(rows, key=lambda n: (-rows[n].points, n)), lambda n: rows[n].points)
    for code in codes:
        if code == "DE":
            for n in rows:
                rows[n].values[code] = 0
            refined: list[list[int]] = []
            for group in groups:
                parts = tables.direct_encounter(group) if len(group) > 1 else [group]
                if len(parts) > 1:
                    place = 1
                    for part in parts:
                        for n in part:
                            rows[n].values[code] = place
                        place += len(part)
                refined += parts
            groups = refined
            continue
        values = {n: tables.value(code, n, unrated) for n in rows}
        for n, value in values.items():
            rows[n].values[code] = value
        refined = []
        for group in groups:
            refined += _split(_best_first(group, code, values), values.__getitem__)
        groups = refined
    out: list[Standing] = []
    for group in groups:  # players equal on everything share the place
        place = len(out) + 1
        for n in sorted(group):
            rows[n].rank = place
            out.append(rows[n])
    return out


# --- the command ---------------------------------------------------------------------------------


def fmt(value: Value) -> str:
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    if value == int(value) or value * 2 == int(value * 2):
        return f"{value:.1f}"
    return f"{value:.2f}"


def table(rows: Sequence[Standing], order: Sequence[str]) -> list[list[str]]:
    """The CSV: a header ``rank,start_no,PTS,<codes>``, then one line per player."""
    lines = [["rank", "start_no", "PTS", *order]]
    for row in rows:
        lines.append([str(row.rank), str(row.number), fmt(row.points), *(fmt(row.values[c]) for c in order)])
    return lines


# the points of each result as the scoring records name them (TRF(x) XXS as JaVaFo and bbpPairings
# read it; TRF-26 162 as gacrux writes it, P being the pairing-allocated bye); other keys are not checked
STANDARD_POINTS: dict[str, dict[str, float]] = {
    "XXS": {"WW": 1, "BW": 1, "W": 1, "WD": 0.5, "BD": 0.5, "D": 0.5, "WL": 0, "BL": 0, "FW": 1, "FL": 0,
            "ZPB": 0, "HPB": 0.5, "FPB": 1, "PAB": 1},
    "162": {"W": 1, "D": 0.5, "L": 0, "P": 1},
}
_POINTS = re.compile(r"([A-Za-z]+)\s*=?\s*([0-9]+(?:[.,][0-9]+)?)")
# the records of a TRF's head (TRF-16 012 to 132, TRF-26 142 to 222, TRF(x) XX.): a file with one
# and no player is a tournament nobody has entered (its standings are empty), one with neither no TRF
TRF_RECORDS = {f"{n:02d}2" for n in range(1, 23)} | {"XXR", "XXC", "XXS", "XXA", "XXZ"}


def check_scoring(text: str) -> None:
    """Refuse a TRF whose scoring system is not the one counted here (1 for a win, ½ for a draw,
    0 for a loss, 1 for the pairing-allocated bye), as TRF(x)'s ``XXS`` (e.g. ``XXS W=3 D=1``)
    and TRF-26's ``162`` (``162  W 1.0    D 0.5 ...``) may state it: its standings would be
    other numbers, and its points column would only disagree with the results. Raises TrfError
    naming the line."""
    for number, line in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        standard = STANDARD_POINTS.get(line[:3])
        if standard is None:
            continue
        for key, value in _POINTS.findall(line[3:]):
            key = key.upper()
            if key in standard and abs(float(value.replace(",", ".")) - standard[key]) > 1e-9:
                raise trf.TrfError(f"record {line[:3]} counts {key} as {value} points: these standings count "
                                   "1 for a win, ½ for a draw, 0 for a loss, 1 for the pairing-allocated bye, "
                                   "and no other scoring system", number)


def main(argv: Sequence[str] | None = None, out: Callable[[str], object] = sys.stdout.write) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tournaments.standings",
        description="The standings of any TRF with FIDE C.07 tie-breaks (docs/tournaments.md); no database needed. "
                    "Tie-breaks the file cannot give (BUOYS and DMG without the site's PBS records, ARO without "
                    "ratings) are left out, and said so on stderr.",
    )
    parser.add_argument("file", help="a TRF file (UTF-8, else Latin-1)")
    parser.add_argument("--tiebreaks", nargs="*", default=None, metavar="CODE",
                        help=f"tie-breaks in order, from: {', '.join(COMMAND_TIEBREAKS)} "
                             f"(default: {' '.join(DEFAULT_ORDER)})")
    parser.add_argument("--csv", action="store_true", help="CSV: rank,start_no,PTS,<tie-breaks>")
    parser.add_argument("--rounds", type=int, help="standings after this round (default: every round in the file)")
    parser.add_argument("--unrated", type=int, metavar="RATING", help="the rating ARO counts for an unrated player")
    parser.add_argument("--round-robin", action="store_true",
                        help="a round-robin: a blank round (a rest) counts nothing; the default tie-breaks become "
                             + " ".join(ROUND_ROBIN_ORDER))
    args = parser.parse_args(argv)
    try:
        default = ROUND_ROBIN_ORDER if args.round_robin else DEFAULT_ORDER
        order = parse_order(default if args.tiebreaks is None else args.tiebreaks, COMMAND_TIEBREAKS)
        text = trf.decode(Path(args.file).read_bytes())
        check_scoring(text)
        t = trf.parse(text)
        if not t.players and not any(line[:3] in TRF_RECORDS for line in text.splitlines()):
            raise trf.TrfError("no player records (lines starting 001) and no other TRF record: not a TRF")
        if args.rounds is not None and not 0 <= args.rounds <= t.rounds_played:
            raise ValueError(f"--rounds must be 0 to {t.rounds_played}")
        left_out = unavailable(t, order, args.unrated)
        order = tuple(code for code in order if code not in left_out)
        rows = compute(t, order, rounds=args.rounds, unrated=args.unrated, round_robin=args.round_robin)
    except OSError as exc:
        print(f"cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 1
    except ValueError as exc:  # TrfError is one
        print(f"{args.file}: {exc}", file=sys.stderr)
        return 1
    for codes, why in describe(left_out):
        print(f"{args.file}: tie-break{'s' if len(codes) > 1 else ''} {' and '.join(codes)} left out: {why}",
              file=sys.stderr)
    lines = table(rows, order)
    if args.csv:
        writer = csv.writer(_Writer(out), lineterminator="\n")
        writer.writerows(lines)
        return 0
    names = {row.number: row.name for row in rows}
    lines[0].insert(2, "name")
    for line in lines[1:]:
        line.insert(2, names[int(line[1])])
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    for line in lines:
        out("  ".join(cell.ljust(w) if i == 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths, strict=True)))
            .rstrip() + "\n")
    return 0


class _Writer:
    def __init__(self, out: Callable[[str], object]) -> None:
        self.write = out


if __name__ == "__main__":
    sys.exit(main())
