"""Standings of a Swiss tournament with their tie-breaks (docs/tournaments.md).

Score: 1 for a win, a forfeit win (``+``) or a pairing-allocated bye (``U``); ½ for a draw or a
half-point bye (``H``); 0 for a loss, a forfeit loss (``-``) or an absence (``Z``). Then, in
this order (FIDE C.07, in its version with the *virtual opponent* for unplayed rounds):

1. Buchholz Cut-1 — Buchholz without the lowest contribution;
2. Buchholz — the sum of the opponents' scores;
3. Sonneborn-Berger — the sum, over games, of the result times the opponent's score;
4. buoy points — the sum of game points (R14) scored in the tournament's games;
5. fewest damage — the sum of damage taken in them (lower ranks higher);
6. direct encounter — among players still equal who have all met, the points scored in their games.

Unplayed rounds: for the player's own unplayed round R (a forfeit either way, a bye, an absence) the
opponent is a virtual one whose score is ``SPR + (1 − SfPR) + ½·(n − R)``: the player's score
before round R, plus the opposite of what the player got in round R, plus a draw in each later
round (n = rounds completed). For opponents' scores, their unplayed rounds count as draws (½).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from games.models import Seat

from .models import Entry, Registration, Round, Tournament

SCORE = {"1": 1.0, "+": 1.0, "U": 1.0, "F": 1.0, "=": 0.5, "H": 0.5, "0": 0.0, "-": 0.0, "Z": 0.0}
PLAYED = {"1", "0", "="}


@dataclass
class Cell:
    round: int
    opponent: Registration | None
    color: str
    code: str
    game_id: int | None = None


@dataclass
class Row:
    registration: Registration
    cells: dict[int, Cell] = field(default_factory=dict)
    score: float = 0.0
    buchholz_cut1: float = 0.0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    buoy_points: int = 0
    damage: int = 0
    direct: float = 0.0
    rank: int = 0
    start_number: int = 0

    def key(self) -> tuple[float, ...]:
        return (-self.score, -self.buchholz_cut1, -self.buchholz, -self.sonneborn_berger, -self.buoy_points,
                self.damage)


def standings(t: Tournament) -> list[Row]:
    rows = {r.pk: Row(r, start_number=i + 1) for i, r in enumerate(t.ranking())}
    completed = t.round_set.filter(status=Round.Status.CLOSED).count()
    entries = (
        Entry.objects.filter(round__tournament=t)
        .exclude(code="")
        .select_related("round", "opponent")
    )
    game_ids = set()
    for e in entries:
        if e.registration_id in rows:
            rows[e.registration_id].cells[e.round.number] = Cell(e.round.number, e.opponent, e.color, e.code, e.game_id)
            if e.game_id and e.code in PLAYED:
                game_ids.add(e.game_id)
    # buoy points and damage from the games' seats
    seats: dict[tuple[int, int], Seat] = {(s.game_id, s.user_id): s for s in Seat.objects.filter(game_id__in=game_ids)}
    for row in rows.values():
        row.score = sum(SCORE.get(c.code, 0.0) for c in row.cells.values())
        for c in row.cells.values():
            seat = seats.get((c.game_id, row.registration.user_id)) if c.game_id else None
            if seat is not None:
                row.buoy_points += seat.points
                row.damage += seat.damage

    def adjusted(row: Row) -> float:
        """An opponent's score for tie-breaks: their unplayed rounds count as draws."""
        return sum(SCORE[c.code] if c.code in PLAYED else 0.5 for c in row.cells.values())

    adjusted_score = {pk: adjusted(row) for pk, row in rows.items()}
    for row in rows.values():
        contributions: list[float] = []
        sb = 0.0
        before = 0.0
        for number in sorted(row.cells):
            c = row.cells[number]
            got = SCORE.get(c.code, 0.0)
            if c.code in PLAYED and c.opponent is not None:
                opp = adjusted_score.get(c.opponent.pk, 0.0)
            else:  # the virtual opponent of an unplayed round
                opp = before + (1.0 - got) + 0.5 * max(0, completed - number)
            contributions.append(opp)
            sb += got * opp
            before += got
        row.buchholz = sum(contributions)
        row.buchholz_cut1 = row.buchholz - min(contributions) if contributions else 0.0
        row.sonneborn_berger = sb
    ordered = sorted(rows.values(), key=lambda r: (r.key(), r.start_number))
    # direct encounter among players equal on everything before it (when they have all met)
    groups: dict[tuple[float, ...], list[Row]] = defaultdict(list)
    for row in ordered:
        groups[row.key()].append(row)
    for group in groups.values():
        if len(group) < 2:
            continue
        members = {r.registration.pk for r in group}
        met = all(
            any(c.opponent is not None and c.opponent.pk == other and c.code in PLAYED for c in r.cells.values())
            for r in group for other in members - {r.registration.pk}
        )
        if met:
            for r in group:
                r.direct = sum(SCORE[c.code] for c in r.cells.values()
                               if c.code in PLAYED and c.opponent is not None and c.opponent.pk in members)
    ordered.sort(key=lambda r: ((*r.key(), -r.direct), r.start_number))
    previous: tuple[float, ...] | None = None
    for place, row in enumerate(ordered, 1):
        key = (*row.key(), -row.direct)
        row.rank = ordered[place - 2].rank if previous == key else place
        previous = key
    return ordered
