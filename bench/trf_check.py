"""Check the site's TRF exports the way an arbiter would, on simulated tournaments.

    python bench/trf_check.py [--tournaments 20] [--seed 1] [--repeat 10] [--bbp PATH] [--out DIR]

Simulates tournaments in a throw-away SQLite database (random sizes and lengths, draws,
forfeits, withdrawals, late entries, requested byes including before round 1), exports each as
the site does, and for every export:

- pairs every round again from the exported file (``tournaments.pairing``) and compares it with
  what the site paired, colours included;
- pairs round 1 of the file ``--repeat`` times and counts the distinct outputs (1 expected);
- compares the standings (``tournaments.standings``) with gacrux's C.07 tie-break checker;
- with ``--bbp PATH`` (a bbpPairings binary you built yourself; it is not part of this project),
  runs its check mode, ``PATH --dutch FILE -c``, which re-pairs every round and lists the
  rounds whose pairings or colours differ.

Prints one line per tournament and the totals.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.pop(0)  # not bench/: its http.py would hide the standard library's
sys.path.insert(0, str(ROOT))
FIDE = ["BH/C1", "BH", "SB", "DE", "WIN", "WON", "BPG", "ARO"]


def gacrux_standings(path: Path, rounds: int) -> dict[int, list[str]]:
    """gacrux's C.07 checker (2026 rules) after ``rounds`` rounds (those in the file: a
    tournament that ended early has fewer than XXR plans)."""
    codes = ["PTS", *(f"{c}/V2026" if c.startswith(("BH", "SB")) else c for c in FIDE)]
    out = subprocess.run([sys.executable, "-m", "gacrux.tiebreakchecker", "-i", str(path), "-b", "utf-8", "-n",
                          str(rounds), "-t", *codes, "-d", "C", "-r"], capture_output=True, text=True, check=True).stdout
    rows = [line.split(",") for line in out.splitlines() if line[:1].isdigit()]
    return {int(r[1]): [r[0], *r[2:]] for r in rows}


def same(a: str, b: str) -> bool:
    empty = ("", "-0")
    return (a in empty and b in empty) or (a not in empty and b not in empty and float(a) == float(b))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tournaments", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=10, help="pair round 1 of each file this many times")
    parser.add_argument("--bbp", help="a bbpPairings binary: run its check mode on every export")
    parser.add_argument("--out", help="keep the exported TRF files in this folder")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="trf-check-"))
    out_dir = Path(args.out) if args.out else scratch / "trf"
    out_dir.mkdir(parents=True, exist_ok=True)
    os.environ["DATABASE_URL"] = f"sqlite:///{scratch / 'db.sqlite3'}"
    if os.environ.get("BENCH_DB_TEMPLATE"):  # a migrated SQLite database to copy (the suite's tiny run)
        import sqlite3

        with sqlite3.connect(os.environ["BENCH_DB_TEMPLATE"]) as src, sqlite3.connect(scratch / "db.sqlite3") as dst:
            src.backup(dst)
        src.close()
        dst.close()
    os.environ["POWERBOATS_VAR_DIR"] = str(scratch / "var")
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "powerboats_site.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from tournaments import selectors, standings, trf
    from tournaments.models import Entry
    from tournaments.pairing import pair
    from tournaments.simulate import simulate

    call_command("migrate", verbosity=0)  # (on a copy of BENCH_DB_TEMPLATE: nothing left to do)
    rng = random.Random(args.seed)
    totals = {"rounds": 0, "repaired": 0, "distinct1": 0, "standings": 0, "bbp_rounds": 0, "bbp_flagged": 0,
              "bbp_refused": 0}
    for i in range(args.tournaments):
        options = dict(players=rng.randint(9, 30), rounds=rng.randint(5, 8), draws=rng.uniform(0.1, 0.3),
                       forfeits=rng.uniform(0.03, 0.1), withdrawals=rng.randint(0, 3),
                       late_entries=rng.randint(0, 2), byes=rng.randint(0, 4))
        t = simulate(seed=args.seed * 1000 + i, name=f"Check {i + 1}", **options)  # type: ignore[arg-type]
        text = selectors.tournament_trf_export(t)
        path = out_dir / f"check-{i + 1:02d}.trf"
        path.write_text(text, encoding="utf-8")
        exported = trf.parse(text)
        _, by_number = selectors.tournament_trf(t)
        numbers = {reg.pk: n for n, reg in by_number.items()}
        agree = 0
        first: set[str] = set()
        played = exported.rounds_played  # fewer than planned when no legal pairing was left
        for r in range(1, played + 1):
            before = exported.copy()
            absent = {p.number: p.cell(r).result for p in before.players
                      if p.cell(r).opponent is None and p.cell(r).result in "HZF"}
            for p in before.players:
                del p.cells[r - 1 :]
            again = pair(before, absent)
            entries = Entry.objects.filter(round__tournament=t, round__number=r)
            boards = [(numbers[e.registration_id], numbers[e.opponent_id])
                      for e in entries.filter(color="w").order_by("board")]
            bye = entries.filter(code="U").first()
            agree += (list(again.boards), again.bye) == (boards, numbers[bye.registration_id] if bye else None)
            if r == 1:
                first = {pair(before, absent).text() for _ in range(args.repeat)} | {again.text()}
        ours = {s.number: [str(s.rank), standings.fmt(s.points), *(standings.fmt(s.values[c]) for c in FIDE)]
                for s in standings.compute(exported, FIDE)}
        theirs = gacrux_standings(path, played)
        standings_ok = ours.keys() == theirs.keys() and all(
            len(ours[n]) == len(theirs[n]) and all(same(a, b) for a, b in zip(ours[n], theirs[n], strict=True))
            for n in ours)
        totals["rounds"] += played
        totals["repaired"] += agree
        totals["distinct1"] += len(first) == 1
        totals["standings"] += standings_ok
        line = (f"{path.name}: {len(exported.players):2d} players, {played}/{t.rounds} rounds, "
                f"{sum(1 for p in exported.players for c in p.cells if c.result in '+-')} forfeit cells, "
                f"{sum(1 for p in exported.players if p.cells and p.cells[0].result in 'HZ')} absent in round 1: "
                f"re-paired {agree}/{played}, round 1 x{args.repeat}: {len(first)} output(s), "
                f"standings {'=' if standings_ok else '≠'} gacrux")
        if args.bbp:
            done = subprocess.run([args.bbp, "--dutch", str(path), "-c"], capture_output=True, text=True)
            checked = done.stdout.count(": Round #")
            flagged = done.stdout.count("Checker pairings")
            totals["bbp_rounds"] += checked
            totals["bbp_flagged"] += flagged
            totals["bbp_refused"] += done.returncode != 0
            line += (f"; bbpPairings: {checked} rounds checked, {flagged} differ"
                     + (f", exit {done.returncode}: {done.stderr.strip()}" if done.returncode else ""))
        print(line, flush=True)
    n = args.tournaments
    print(f"\n{n} tournaments, {totals['rounds']} rounds: re-paired from the export as the site paired them in "
          f"{totals['repaired']}/{totals['rounds']} rounds; round 1 gave one output in {totals['distinct1']}/{n} "
          f"files ({args.repeat} pairings each); standings equal gacrux's C.07 checker in {totals['standings']}/{n}")
    if args.bbp:
        print(f"bbpPairings check mode: {n - totals['bbp_refused']}/{n} files read, {totals['bbp_rounds']} rounds "
              f"checked, {totals['bbp_flagged']} with different pairings or colours")
    print(f"exports in {out_dir}")


if __name__ == "__main__":
    main()
