"""Standings and tie-breaks by FIDE C.07 as in force (tournaments.standings), from a TRF alone:
the worked example of docs/tournaments.md, direct encounter, the command, agreement with
gacrux's C.07 tie-break checker on random tournaments with byes, forfeits and withdrawals, and
the command on TRFs written by FIDE programs (no PBS records; fixtures next to this file)."""

from __future__ import annotations

import csv
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


def run_gacrux(path: Path, order: list[str], rounds: int, encoding: str = "utf-8") -> dict[int, tuple[int, list[str]]]:
    """gacrux's tie-break checker with the C.07 rules of 2026 (/V2026 on the Buchholz family),
    after ``rounds`` rounds."""
    codes = ["PTS", *(f"{c}/V2026" if c.startswith(("BH", "SB")) else c for c in order)]
    out = subprocess.run([sys.executable, "-m", "gacrux.tiebreakchecker", "-i", str(path), "-b", encoding, "-n",
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
    assert_file_agrees_with_gacrux(path, order, t.rounds_played)


def assert_file_agrees_with_gacrux(path: Path, order: list[str], rounds: int, encoding: str = "utf-8") -> None:
    mine, theirs = ours(path, order), run_gacrux(path, order, rounds, encoding)
    assert mine.keys() == theirs.keys()
    text = path.read_bytes().decode(encoding)
    for number, (rank, values) in mine.items():
        their_rank, their_values = theirs[number]
        assert rank == their_rank, f"player {number}: rank {rank}, gacrux {their_rank}\n{text}"
        for code, a, b in zip(["PTS", *order], values, their_values, strict=True):
            assert same(a, b), f"player {number} {code}: {a}, gacrux {b}\n{text}"


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


def test_without_pbs_records_the_default_order_leaves_buoys_and_dmg_out_and_says_so(tmp_path):
    """The worked example written without the site's PBS records: ranked by the rest of the
    default order (BH/C1 BH SB DE), and a note on stderr; the standard output is the table alone."""
    path = tmp_path / "plain.trf"
    path.write_text(trf.dump(worked_example()), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "tournaments.standings", str(path), "--csv"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["rank,start_no,PTS,BH/C1,BH,SB,DE", "1,2,2.0,3.5,3.5,1.75,0",
                                        "2,3,2.0,3.0,4.5,3.0,0", "3,5,2.0,2.0,3.5,1.75,0", "4,1,1.5,4.5,4.5,1.0,0",
                                        "5,4,0.0,3.5,3.5,0.0,0"]
    assert done.stderr == (f"{path}: tie-breaks BUOYS and DMG left out: the file has no PBS records (game points "
                           "and damage, R14, which only this site's exports carry)\n")


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


# --- any TRF: files written by FIDE programs, without the site's PBS records -------------------

HERE = Path(__file__).resolve().parent
# Written by hand as Swiss-Manager writes them (Latin-1, CRLF, 102-132 records, XXR, XXC, titles,
# federations, FIDE ids, an unrated player); lines 16-22 are players 1-7. Four rounds:
# R1: 1-4 1-0, 5-2 0-1, 3-6 ½-½, 7 the pairing-allocated bye (U).
# R2: 2-1 ½-½, 7-3 0-1, 4-5 won by 4 by forfeit (+ -), 6 a half-point bye (H).
# R3: 1-3 0-1, 6-2 0-1, 4-7 ½-½, 5 absent (Z): 5 has withdrawn.
# R4: 3-2 ½-½, 7-1 0-1, 6-4 1-0, 5 absent (Z).
HAND = HERE / "fide_swiss_7p4r.trf"
# Written by gacrux's random tournament generator (FIDE Dutch pairings, TRF-26 records 142-212):
#   python -m gacrux.tournamentgenerator -g 1 -p 13 -N 6 -R 2400 40 -S 0.06 0.06 0.06 -m dutch -o FILE
GENERATED = HERE / "gacrux_dutch_13p6r.trf"
NO_PBS = "the file has no PBS records (game points and damage, R14, which only this site's exports carry)"


def command(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tournaments.standings", *map(str, args)], capture_output=True,
                          text=True)


def test_a_fide_trf_without_pbs_records_is_ranked_by_what_it_can_give():
    """The hand-written file, by the default order: BUOYS and DMG are left out (said on stderr).

    Scores: 1 2½, 2 3, 3 3, 4 1½ (the forfeit win counts 1), 5 0, 6 2 (the H counts ½), 7 1½ (the
    U counts 1). As opponents' scores (16.3) 5's absences after its last round that was not
    voluntarily unplayed (round 1; the forfeit loss is voluntary) count as draws: 5 has 1; the
    others have their score (6's H is followed by games). Dummy opponents (16.4): 4's forfeit
    win min(1½, 5's 1) = 1; 5's forfeit loss min(0, 1½) = 0 and absences min(0, ½·4) = 0; 6's H
    min(2, 2) = 2; 7's U min(1½, 2) = 1½.

    ===  =====================  ======  ======  ======================================
     n   contributions          BH      BH/C1   SB
    ===  =====================  ======  ======  ======================================
     1   1½  3   3   1½         9       7½      1½ + 1½ + 0 + 1½ = 4½
     2   1   2½  2   3          8½      7½      1 + 1¼ + 2 + 1½ = 5¾
     3   2   1½  2½  3          9       7½      1 + 1½ + 2½ + 1½ = 6½
     4   2½  1   1½  2          7       6       0 + 1 + ¾ + 0 = 1¾
     5   3   0   0   0          3       3       0 (cut: a voluntary 0)
     6   3   2   3   1½         9½      7½      1½ + 1 + 0 + 1½ = 4 (cut: the H, voluntary)
     7   1½  3   1½  2½         8½      7       1½ + 0 + ¾ + 0 = 2¼
    ===  =====================  ======  ======  ======================================

    3 and 2 tie on 3 and on BH/C1; BH puts 3 first. 7 and 4 tie on 1½; BH/C1 puts 7 first.
    Direct encounter decides nothing (every tie left is one drawn game)."""
    done = command(HAND, "--csv")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "rank,start_no,PTS,BH/C1,BH,SB,DE",
        "1,3,3.0,7.5,9.0,6.5,0",
        "2,2,3.0,7.5,8.5,5.75,0",
        "3,1,2.5,7.5,9.0,4.5,0",
        "4,6,2.0,7.5,9.5,4.0,0",
        "5,7,1.5,7.0,8.5,2.25,0",
        "6,4,1.5,6.0,7.0,1.75,0",
        "7,5,0.0,3.0,3.0,0.0,0",
    ]
    assert done.stderr == f"{HAND}: tie-breaks BUOYS and DMG left out: {NO_PBS}\n"
    table = command(HAND)
    assert table.returncode == 0
    header, *rows = table.stdout.splitlines()
    assert header.split() == ["rank", "start_no", "name", "PTS", "BH/C1", "BH", "SB", "DE"]
    names = [row[header.index("name"):].split("  ")[0] for row in rows]  # Latin-1 read as such
    assert names == ["Dahl, Anders", "Berg, Siri", "Aune, Per", "Ødegård, Ida", "Holm, Even", "Eide, Nora",
                     "Foss, Lars"]


def test_requested_tie_breaks_the_file_cannot_give_are_left_out_by_name():
    """Asked for DE WIN PS ARO BUOYS: BUOYS needs PBS records and ARO a rating for player 7, so
    both are left out, each said with its reason. WIN counts 4's forfeit win and 7's U (7.1); PS
    sums the running scores (2: 1 1½ 2½ 3 = 8; 3: ½ 1½ 2½ 3 = 7½; 7: 1 1 1½ 1½ = 5; 4: 0 1 1½ 1½ = 4),
    which separates 2 from 3 and 7 from 4 where WIN does not. With --unrated 1400 ARO is computed:
    the average of the opponents of games over the board (4's forfeit not counted, 15.2), rounded:
    3: (1875 + 1400 + 2510 + 2405) / 4 = 2047½ → 2048; 4: (2510 + 1400 + 1875) / 3 → 1928."""
    done = command(HAND, "--csv", "--tiebreaks", "DE", "WIN", "PS", "ARO", "BUOYS")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "rank,start_no,PTS,DE,WIN,PS",
        "1,2,3.0,0,2,8.0",
        "2,3,3.0,0,2,7.5",
        "3,1,2.5,0,2,6.5",
        "4,6,2.0,0,1,4.5",
        "5,7,1.5,0,1,5.0",
        "6,4,1.5,0,1,4.0",
        "7,5,0.0,0,0,0.0",
    ]
    assert done.stderr.splitlines() == [
        f"{HAND}: tie-break ARO left out: player 7 has no rating (give a rating for the unrated: --unrated RATING)",
        f"{HAND}: tie-break BUOYS left out: {NO_PBS}",
    ]
    rated = command(HAND, "--csv", "--tiebreaks", "ARO", "--unrated", "1400")
    assert (rated.returncode, rated.stderr) == (0, "")
    assert rated.stdout.splitlines() == ["rank,start_no,PTS,ARO", "1,2,3.0,2174", "2,3,3.0,2048", "3,1,2.5,2064",
                                         "4,6,2.0,2285", "5,7,1.5,2320", "6,4,1.5,1928", "7,5,0.0,2405"]


def test_fide_trfs_agree_with_gacrux_c07_checker():
    """Every tie-break the files can give, PS included, as gacrux's checker computes them: the
    hand-written file (Latin-1; ARO left out, player 7 being unrated) and the generated one,
    whose scores are counted by hand here from its cells (6: + = = 1 = 1 = 4½; 1: 1 1 Z 1 = =
    = 4; ...) and whose leader was worked out by hand: 6's forfeit win counts min(4½, 12's 2) = 2,
    BH 2 + 3½ + 4 + 2 (10's trailing Z a draw) + 4 + 3 = 18½, Cut-1 16½, SB 12¾."""
    assert_file_agrees_with_gacrux(HAND, ["BH/C1", "BH", "SB", "DE", "WIN", "WON", "BPG", "PS"], 4, "latin-1")
    fide = ["BH/C1", "BH", "SB", "DE", "WIN", "WON", "BPG", "ARO", "PS"]
    assert_file_agrees_with_gacrux(GENERATED, fide, 6)
    rows = ours(GENERATED, fide)
    assert {n: (rank, values[0]) for n, (rank, values) in rows.items()} == {
        6: (1, "4.5"), 1: (2, "4.0"), 3: (3, "4.0"), 4: (4, "4.0"), 2: (5, "3.5"), 7: (6, "3.5"), 5: (7, "3.0"),
        9: (8, "3.0"), 13: (9, "2.5"), 8: (10, "2.0"), 12: (11, "2.0"), 11: (12, "2.0"), 10: (13, "1.5")}
    assert rows[6][1][1:4] == ["16.5", "18.5", "12.75"]


def test_a_scoring_record_that_states_one_half_zero_is_read(tmp_path):
    text = HAND.read_bytes().decode("latin-1").replace(
        "XXC white1", "XXC white1\r\nXXS WW=1 BW=1 WD=0.5 BD=0.5 WL=0 BL=0 ZPB=0 HPB=0.5 FPB=1 PAB=1 FW=1 FL=0")
    path = tmp_path / "xxs.trf"
    path.write_bytes(text.encode("latin-1"))
    out = io.StringIO()
    assert standings.main([str(path), "--csv"], out=out.write) == 0
    assert out.getvalue().splitlines()[1:3] == ["1,3,3.0,7.5,9.0,6.5,0", "2,2,3.0,7.5,8.5,5.75,0"]


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s.replace("   7 w =", "   7 w X", 1),
     "line 19: player 4, round 3 (columns 112-119): unknown result 'X' (one of 1 0 = W L D + - U F H Z)"),
    (lambda s: s.replace("   3 b =", "   3 b 1", 1),
     "line 17: round 4: players 2 and 3 have results '1' and '=', which do not match"),
    (lambda s: s.replace("  0000 - Z  0000 - Z", " 0000 - Z  0000 - Z", 1),
     "line 20: player 5, round 3 (columns 112-119): a round cell starts every 10 columns from column 92"),
    (lambda s: s.replace("XXC white1", "XXC white1\r\nXXS W=3 D=1"),
     "line 16: record XXS counts W as 3 points: these standings count 1 for a win, ½ for a draw"),
    (lambda s: s.replace("XXC white1", "XXC white1\r\n162  W 1.0    D 0.5    L 0.0    P 0.5"),
     "line 16: record 162 counts P as 0.5 points"),
    (lambda s: '[Event "Autumn Rapid Open 2026"]\r\n\r\n1. e4 e5 2. Nf3 *\r\n',
     "no player records (lines starting 001) and no other TRF record: not a TRF"),
    (lambda s: "", "no player records"),
    (lambda s: s.replace("XXR 4", "XXR four"), "line 14: XXR must give the number of rounds, not 'four'"),
])
def test_a_bad_file_is_refused_naming_the_line_without_a_traceback(change, message, tmp_path, capsys):
    path = tmp_path / "bad.trf"
    path.write_bytes(change(HAND.read_bytes().decode("latin-1")).encode("latin-1", "replace"))
    out = io.StringIO()
    assert standings.main([str(path)], out=out.write) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}: {message}") and err.count("\n") == 1 and out.getvalue() == "", err


def test_a_tournament_nobody_entered_has_empty_standings_as_before(tmp_path):
    """The site exports a tournament without players as its head records alone."""
    path = tmp_path / "empty.trf"
    path.write_text(trf.dump(trf.Tournament(name="Nobody came", rounds=5)), encoding="utf-8")
    out = io.StringIO()
    assert standings.main([str(path), "--csv"], out=out.write) == 0
    assert out.getvalue() == "rank,start_no,PTS,BH/C1,BH,SB,BUOYS,DMG,DE\n"


def test_bytes_that_are_no_text_are_refused_without_a_traceback(tmp_path):
    path = tmp_path / "noise.trf"
    path.write_bytes(bytes(range(256)) * 40 + b"\n001 \xff\xfe\x00 1\n")
    done = command(path)
    assert done.returncode == 1 and "Traceback" not in done.stderr and done.stderr.startswith(f"{path}: "), done.stderr


def test_a_trf_written_by_bbppairings_is_ranked_with_buchholz_as_its_own_scores_say():
    """A 32-player, 5-round tournament generated by bbpPairings (v6.0.0, a FIDE-endorsed Dutch
    program: ``bbpPairings.exe --dutch -g -o FILE -s 11``; its lines end with a bare CR) is
    ranked without the site's PBS records; for every player who played all five rounds, the
    Buchholz printed is the sum of the opponents' scores as the file states them (C.07: with
    no unplayed round there is nothing to adjust), and the ranking follows the scores."""
    path = Path(__file__).with_name("bbp_dutch_32p5r.trf")
    run = subprocess.run([sys.executable, "-m", "tournaments.standings", str(path), "--csv"],
                         capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2])
    assert run.returncode == 0, run.stderr
    assert "BUOYS and DMG left out" in run.stderr
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    assert len(rows) == 32
    points = [float(r["PTS"]) for r in rows]
    assert points == sorted(points, reverse=True)
    scores: dict[int, float] = {}
    rounds: dict[int, list[tuple[str, str]]] = {}
    for line in path.read_text(encoding="latin-1").replace("\r\n", "\n").replace("\r", "\n").splitlines():
        if line.startswith("001"):
            start = int(line[4:8])
            scores[start] = float(line[80:84])
            rounds[start] = [(line[i:i + 4].strip(), line[i + 7:i + 8]) for i in range(91, len(line), 10)]
    checked = 0
    for row in rows:
        start = int(row["start_no"])
        games = rounds[start]
        if len(games) == 5 and all(opp.isdigit() and opp != "0000" and result in "10=" for opp, result in games):
            assert float(row["BH"]) == sum(scores[int(opp)] for opp, _ in games), start
            checked += 1
    assert checked >= 20
