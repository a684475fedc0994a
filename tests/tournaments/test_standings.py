"""Standings and tie-breaks by FIDE C.07 as in force (tournaments.standings), from a TRF alone:
the worked example of docs/tournaments.md, direct encounter, the command, and agreement with
gacrux's C.07 tie-break checker on random tournaments with byes, forfeits and withdrawals."""

from __future__ import annotations

import io
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tournaments import standings, trf

C = trf.Cell
FIDE_CODES = ["BH/C1", "BH", "SB", "DE", "WIN", "WON", "BPG", "ARO"]
FLIP = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+"}


def tournament(rounds: list[list[tuple[int, int, str]]], players: int, byes: dict[tuple[int, int], str] | None = None,
               first_color: str = "w") -> trf.Tournament:
    """Players 1..n; ``rounds`` lists (white, black, white's result) per round; ``byes`` maps
    (round, player) to U, F, H or Z."""
    t = trf.Tournament(name="T", rounds=len(rounds), first_color=first_color, start="2026-09-01")
    t.players = [trf.Player(n, f"P{n}", 2100 - 10 * n) for n in range(1, players + 1)]
    for r, boards in enumerate(rounds, 1):
        for white, black, result in boards:
            t.player(white).cells.append(C(black, "w", result))
            t.player(black).cells.append(C(white, "b", FLIP[result]))
        for (rr, n), code in (byes or {}).items():
            if rr == r:
                t.player(n).cells.append(C(None, "-", code))
    trf.validate(t)
    return t


def worked_example() -> trf.Tournament:
    """docs/tournaments.md: A-E are 1-5. R1: A 1-0 D, B = E, C bye (U). R2: C 1-0 A, B wins by
    forfeit against D, E half-point bye (H). R3: A = B, D 0-1 E, C absent (Z)."""
    return tournament([[(1, 4, "1"), (2, 5, "=")], [(3, 1, "1"), (2, 4, "+")], [(1, 2, "="), (4, 5, "0")]], 5,
                      {(1, 3): "U", (2, 5): "H", (3, 3): "Z"})


def run_gacrux(path: Path, order: list[str], rounds: int) -> dict[int, tuple[int, list[str]]]:
    """gacrux's tie-break checker with the C.07 rules of 2026 (/V2026 on the Buchholz family),
    after ``rounds`` rounds."""
    codes = ["PTS", *(f"{c}/V2026" if c.startswith(("BH", "SB")) else c for c in order)]
    out = subprocess.run([sys.executable, "-m", "gacrux.tiebreakchecker", "-i", str(path), "-b", "utf-8", "-n",
                          str(rounds), "-t", *codes, "-d", "C", "-r"], capture_output=True, text=True, check=True).stdout
    lines = [line.split(",") for line in out.splitlines() if line and line[0].isdigit()]
    return {int(cells[1]): (int(cells[0]), cells[2:]) for cells in lines}


def ours(path: Path, order: list[str]) -> dict[int, tuple[int, list[str]]]:
    out = io.StringIO()
    assert standings.main([str(path), "--csv", "--tiebreaks", *order], out=out.write) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == ",".join(["rank", "start_no", "PTS", *order])
    rows = [line.split(",") for line in lines[1:]]
    return {int(cells[1]): (int(cells[0]), cells[2:]) for cells in rows}


def same(a: str, b: str) -> bool:
    if a in ("", "-0") or b in ("", "-0"):
        return a in ("", "-0") and b in ("", "-0")
    return float(a) == float(b)


def assert_agrees_with_gacrux(t: trf.Tournament, order: list[str], tmp_path: Path) -> None:
    path = tmp_path / "t.trf"
    path.write_text(trf.dump(t), encoding="utf-8")
    mine, theirs = ours(path, order), run_gacrux(path, order, t.rounds_played)
    assert mine.keys() == theirs.keys()
    for number, (rank, values) in mine.items():
        their_rank, their_values = theirs[number]
        assert rank == their_rank, f"player {number}: rank {rank}, gacrux {their_rank}\n{trf.dump(t)}"
        for code, a, b in zip(["PTS", *order], values, their_values, strict=True):
            assert same(a, b), f"player {number} {code}: {a}, gacrux {b}\n{trf.dump(t)}"


def test_the_worked_example_ranks_b_c_e_under_c07(tmp_path):
    """The figures of docs/tournaments.md: C's bye (U) and absence (Z) and E's half-point bye
    count against a dummy opponent on the player's own score, capped at a draw a round (C.07
    16.4.2): 1½; B's forfeit win against D is capped by D's score, 0 (16.4.1); C's trailing
    absence counts as a draw in C's score as an opponent, 2½ (16.3); Cut-1 cuts C's absence and
    E's half-point bye, the voluntary unplayed rounds, first (16.5)."""
    rows = {r.name: r for r in standings.compute(worked_example(), ["BH/C1", "BH", "SB"])}
    want = {  # PTS, BH/C1, BH, SB, rank
        "P2": (2.0, 3.5, 3.5, 1.75, 1),
        "P3": (2.0, 3.0, 4.5, 3.0, 2),
        "P5": (2.0, 2.0, 3.5, 1.75, 3),
        "P1": (1.5, 4.5, 4.5, 1.0, 4),
        "P4": (0.0, 3.5, 3.5, 0.0, 5),
    }
    for name, (pts, cut1, bh, sb, rank) in want.items():
        row = rows[name]
        assert (row.points, row.values["BH/C1"], row.values["BH"], row.values["SB"], row.rank) == (
            pts, cut1, bh, sb, rank), name
    assert_agrees_with_gacrux(worked_example(), FIDE_CODES, tmp_path)


def test_direct_encounter_separates_only_who_no_one_could_still_catch(tmp_path):
    """C.07 6: 1, 3 and 4 finish on 2; 1 beat both others, who never met: 1 goes ahead (2
    points, the others could reach at most 1), 3 and 4 stay equal and share the place."""
    t = tournament([[(1, 3, "1"), (4, 2, "1"), (5, 6, "1")],
                    [(1, 4, "1"), (3, 5, "1"), (2, 6, "1")],
                    [(6, 1, "1"), (3, 2, "1"), (4, 5, "1")]], 6)
    rows = {r.number: r for r in standings.compute(t, ["DE"])}
    assert [rows[n].points for n in (1, 3, 4)] == [2.0, 2.0, 2.0]
    assert [(rows[n].values["DE"], rows[n].rank) for n in (1, 3, 4)] == [(1, 1), (2, 2), (2, 2)]
    assert_agrees_with_gacrux(t, ["DE", "BH"], tmp_path)


def test_direct_encounter_leaves_a_group_tied_when_someone_could_still_draw_level():
    """1, 2, 3 and 4 finish on 2; 1 scored 2 of 3 against the others, but 2, who met only 1,
    could still have reached 2: nobody is separated (DE 0 for all)."""
    t = tournament([[(1, 2, "1"), (3, 4, "1"), (5, 6, "1")],
                    [(1, 3, "1"), (2, 5, "1"), (4, 6, "1")],
                    [(4, 1, "1"), (2, 6, "1"), (3, 5, "1")]], 6)
    rows = {r.number: r for r in standings.compute(t, ["DE"])}
    assert {rows[n].values["DE"] for n in (1, 2, 3, 4)} == {0} and {rows[n].rank for n in (1, 2, 3, 4)} == {1}


def test_wins_games_as_yellow_and_average_rating_of_opponents():
    """WIN counts unplayed wins (+, U), WON only games; BPG counts Yellow's (b) games over the
    board, not forfeits; ARO averages the opponents of games played (C.07 7.1-7.3, 10.1, 15.2)."""
    t = tournament([[(1, 2, "1"), (3, 4, "+")], [(2, 3, "="), (4, 1, "0")]], 5, {(1, 5): "U", (2, 5): "H"})
    rows = {r.number: r for r in standings.compute(t, ["WIN", "WON", "BPG", "ARO"])}
    assert [(rows[n].values["WIN"], rows[n].values["WON"], rows[n].values["BPG"]) for n in (1, 2, 3, 4, 5)] == [
        (2, 2, 1), (0, 0, 1), (1, 0, 1), (0, 0, 0), (1, 0, 0)]
    assert rows[1].values["ARO"] == round((2080 + 2060) / 2) and rows[3].values["ARO"] == 2080
    by_aro = {r.number: r for r in standings.compute(t, ["ARO"])}
    assert by_aro[5].values["ARO"] is None  # no games: ranks below 3, also on 1½
    assert (by_aro[3].rank, by_aro[5].rank) == (2, 3)


def test_buoys_and_damage_come_from_pbs_records_and_less_damage_ranks_higher():
    t = tournament([[(1, 2, "="), (3, 4, "=")]], 4)
    t.buoys_damage = {1: (3, 2), 2: (3, 1), 3: (1, 0), 4: (2, 0)}
    rows = standings.compute(trf.parse(trf.dump(t)), ["BUOYS", "DMG"])
    assert [r.number for r in rows] == [2, 1, 4, 3]
    t.buoys_damage = {}
    with pytest.raises(ValueError, match="PBS records"):
        standings.compute(t, ["BH", "BUOYS"])


def test_the_order_is_checked():
    assert standings.parse_order("bh/c1, BH  sb") == ("BH/C1", "BH", "SB")
    with pytest.raises(ValueError, match="unknown tie-break XYZ"):
        standings.parse_order("BH XYZ")
    with pytest.raises(ValueError, match="BH is given twice"):
        standings.parse_order(["BH", "SB", "BH"])


def test_the_command_prints_a_table_or_csv_and_refuses_bad_input(tmp_path):
    path = tmp_path / "example.trf"
    path.write_text(trf.dump(worked_example()), encoding="utf-8")
    csv = subprocess.run([sys.executable, "-m", "tournaments.standings", str(path), "--csv", "--tiebreaks", "BH/C1",
                          "BH", "SB"], capture_output=True, text=True, check=True).stdout.splitlines()
    assert csv == ["rank,start_no,PTS,BH/C1,BH,SB", "1,2,2.0,3.5,3.5,1.75", "2,3,2.0,3.0,4.5,3.0",
                   "3,5,2.0,2.0,3.5,1.75", "4,1,1.5,4.5,4.5,1.0", "5,4,0.0,3.5,3.5,0.0"]
    text = subprocess.run([sys.executable, "-m", "tournaments.standings", str(path), "--tiebreaks", "BH/C1", "SB"],
                          capture_output=True, text=True, check=True).stdout.splitlines()
    assert text[0].split() == ["rank", "start_no", "name", "PTS", "BH/C1", "SB"]
    assert text[1].split() == ["1", "2", "P2", "2.0", "3.5", "1.75"]
    bad = tmp_path / "bad.trf"
    bad.write_text(trf.dump(worked_example()).replace("0001 b =", "0003 b ="), encoding="utf-8")
    for args, message in (([str(bad)], "round 3: player 1 meets 2, but 2's cell says 0003"),
                          ([str(path), "--tiebreaks", "BH", "SB", "MAGIC"], "unknown tie-break MAGIC"),
                          ([str(tmp_path / "missing.trf")], "cannot read")):
        done = subprocess.run([sys.executable, "-m", "tournaments.standings", *args], capture_output=True, text=True)
        assert done.returncode == 1 and message in done.stderr, done.stderr


def test_the_default_order_needs_pbs_records_so_a_plain_trf_gets_a_clear_error(tmp_path):
    path = tmp_path / "plain.trf"
    path.write_text(trf.dump(worked_example()), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "tournaments.standings", str(path)], capture_output=True, text=True)
    assert done.returncode == 1 and "BUOYS and DMG need game points and damage" in done.stderr


def random_tournament(rng: random.Random) -> trf.Tournament:
    """Random pairings (no repeats) with random results: draws, forfeits, half- and zero-point
    byes, pairing byes, withdrawals (absent for the rest) and late entries (absent at first)."""
    n = rng.randint(8, 16)
    rounds = rng.randint(4, 7)
    t = trf.Tournament(name="Random", rounds=rounds, first_color="w", start="2026-09-01")
    t.players = [trf.Player(i, f"P{i}", rng.randint(1400, 2200)) for i in range(1, n + 1)]
    met: set[frozenset[int]] = set()
    gone = {rng.randint(1, n): rng.randint(2, rounds) for _ in range(2)}  # withdraws before that round
    late = {rng.randint(1, n): rng.randint(2, 3)}  # joins in that round
    had_bye: set[int] = set()
    for r in range(1, rounds + 1):
        absent = {p for p, after in gone.items() if r >= after} | {p for p, joins in late.items() if r < joins}
        absent |= {p for p in range(1, n + 1) if rng.random() < 0.08}
        for p in sorted(absent):
            t.player(p).cells.append(C(None, "-", rng.choice("HZ") if p not in gone or r < gone[p] else "Z"))
        present = [p for p in range(1, n + 1) if p not in absent]
        rng.shuffle(present)
        if len(present) % 2:
            bye = next((p for p in present if p not in had_bye), present[0])
            present.remove(bye)
            had_bye.add(bye)
            t.player(bye).cells.append(C(None, "-", rng.choice("UUUF")))
        while present:
            a = present.pop()
            b = next((q for q in present if frozenset({a, q}) not in met), present[0])
            present.remove(b)
            met.add(frozenset({a, b}))
            x = rng.random()
            result = "+" if x < 0.06 else "-" if x < 0.12 else "=" if x < 0.3 else rng.choice("10")
            t.player(a).cells.append(C(b, "w", result))
            t.player(b).cells.append(C(a, "b", FLIP[result]))
    trf.validate(t)
    return t


@pytest.mark.parametrize("seed", range(1, 9))
def test_random_tournaments_agree_with_gacrux_c07_checker(seed, tmp_path):
    """Every FIDE tie-break and every rank as gacrux's tie-break checker computes them (C.07 with
    the 2026 update), once with direct encounter first so that it decides often."""
    rng = random.Random(seed)
    t = random_tournament(rng)
    order = FIDE_CODES if seed % 2 else ["DE", "BPG", "WIN", "BH/C1", "SB", "BH", "WON", "ARO"]
    assert_agrees_with_gacrux(t, order, tmp_path)
