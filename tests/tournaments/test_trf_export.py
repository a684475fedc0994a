"""The site's TRF export, checked the way an arbiter would: simulated tournaments with forfeits,
withdrawals, late entries and requested byes (round 1 included) are exported, every round is
paired again from the exported file and must give what the site paired, colours included;
the standings of the file must equal gacrux's C.07 tie-break checker. With BBPPAIRINGS set to a
bbpPairings binary, its check mode (``--dutch FILE -c``) must accept every round as well."""

from __future__ import annotations

import io
import os
import subprocess
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from tests.games.factories import make_user
from tests.tournaments.test_standings import FIDE_CODES, assert_agrees_with_gacrux
from tournaments import selectors, services, standings, trf
from tournaments.models import Entry, Tournament
from tournaments.pairing import pair
from tournaments.simulate import simulate

pytestmark = pytest.mark.django_db
SIMULATION = dict(players=13, rounds=5, draws=0.2, forfeits=0.1, withdrawals=2, late_entries=1, byes=4)


def replay(exported: trf.Tournament, round_number: int) -> tuple[trf.Tournament, dict[int, str]]:
    """The file as it stood before a round: the earlier rounds, and who was absent from it."""
    before = exported.copy()
    absent = {}
    for p in before.players:
        cell = p.cell(round_number)
        if cell.opponent is None and cell.result in ("H", "Z", "F"):
            absent[p.number] = cell.result
        del p.cells[round_number - 1 :]
    return before, absent


def site_round(t: Tournament, numbers: dict[int, int], round_number: int) -> tuple[list[tuple[int, int]], int | None]:
    """What the site paired: (Red, Yellow) by start number in board order, and the bye."""
    entries = Entry.objects.filter(round__tournament=t, round__number=round_number)
    boards = [(numbers[e.registration_id], numbers[e.opponent_id]) for e in entries.filter(color="w").order_by("board")]
    bye = entries.filter(code="U").first()
    return boards, numbers[bye.registration_id] if bye else None


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 11])
def test_every_round_pairs_again_from_the_export_as_the_site_paired_it(seed):
    t = simulate(seed=seed, **SIMULATION)
    exported = trf.parse(selectors.tournament_trf_export(t))
    _, by_number = selectors.tournament_trf(t)
    numbers = {reg.pk: n for n, reg in by_number.items()}
    codes = {c.result for p in exported.players for c in p.cells}
    assert {"+", "-", "U", "H", "Z"} <= codes  # forfeits, the pairing bye, requested byes, withdrawals
    assert any(p.cells[0].result in "HZ" for p in exported.players)  # someone absent before round 1
    assert exported.first_color == t.first_color
    for round_number in range(1, t.rounds + 1):
        before, absent = replay(exported, round_number)
        again = pair(before, absent)
        boards, bye = site_round(t, numbers, round_number)
        assert (list(again.boards), again.bye) == (boards, bye), f"round {round_number}"
    # round 1 by the colour drawn at the start (C.04.3 E.5): the k-th player paired, top half
    present = [p.number for p in exported.players if p.cells[0].paired]
    first_board = min(site_round(t, numbers, 1)[0], key=min)
    top = min(first_board)
    place = present.index(top)  # 0-based among those paired: even places have odd pairing numbers
    top_colour = t.first_color if place % 2 == 0 else {"w": "b", "b": "w"}[t.first_color]
    assert first_board[0 if top_colour == "w" else 1] == top


@pytest.mark.slow
@pytest.mark.parametrize("seed", [5, 8])
def test_the_standings_of_an_export_equal_gacrux_c07_checker(seed, tmp_path):
    t = simulate(seed=seed, **SIMULATION)
    t.tiebreaks = "BH/C1 BH SB DE WIN WON BPG ARO BUOYS DMG"
    t.save(update_fields=["tiebreaks"])
    text = selectors.tournament_trf_export(t)
    exported = trf.parse(text)
    assert {"+", "-", "H", "Z"} <= {c.result for p in exported.players for c in p.cells}
    assert_agrees_with_gacrux(exported, FIDE_CODES, tmp_path)
    # the site's page and API rank as the file does, buoys and damage included
    site = {row.start_number: (row.rank, row.values) for row in selectors.tournament_standings(t)}
    from_file = {r.number: (r.rank, r.values) for r in standings.compute(exported, t.tiebreak_order)}
    assert site == from_file
    assert {p.number: p.rank for p in exported.players} == {n: rank for n, (rank, _) in site.items()}


@pytest.mark.skipif(not os.environ.get("BBPPAIRINGS"), reason="set BBPPAIRINGS to a bbpPairings binary")
@pytest.mark.parametrize("seed", [3, 11, 5])
def test_bbppairings_check_mode_accepts_every_round_of_the_export(seed, tmp_path):
    """bbpPairings (FIDE-endorsed) re-pairs every round of the file and lists any round whose
    pairings or colours differ; it must list none."""
    t = simulate(seed=seed, **SIMULATION)
    path = tmp_path / "export.trf"
    path.write_text(selectors.tournament_trf_export(t), encoding="utf-8")
    done = subprocess.run([os.environ["BBPPAIRINGS"], "--dutch", str(path), "-c"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(": Round #") == t.rounds and "Checker pairings" not in done.stdout, done.stdout


def test_a_name_in_any_script_exports_without_error(tmp_path):
    now = timezone.now()
    t = services.tournament_create(director=make_user("director"), name="Ünïcode Open ☃", rounds=2, min_players=2,
                                   registration_closes_at=now + timedelta(hours=1), starts_at=now + timedelta(hours=2))
    for name in ("Ωmega ☃", "Zoë", "plain"):
        services.tournament_register(user=make_user(name), tournament_id=t.pk, now=now)
    services.tournament_start(tournament_id=t.pk, now=now + timedelta(hours=2))
    path = tmp_path / "u.trf"
    call_command("export_trf", t.pk, "--out", str(path), stdout=io.StringIO())
    parsed = trf.parse(path.read_bytes().decode("utf-8"))
    assert {p.name for p in parsed.players} == {"Ωmega ☃", "Zoë", "plain"} and parsed.name == "Ünïcode Open ☃"
