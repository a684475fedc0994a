"""Swiss tournaments: the round lifecycle run by Celery tasks, entries, standings, TRF, pages, API."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from common.errors import Conflict, ServiceError
from games import services as game_services
from games.models import Game, Seat
from tests.games.factories import PASSWORD, make_user
from tournaments import selectors, services, trf
from tournaments.models import Entry, Registration, Round, Tournament
from tournaments.selectors import tournament_standings as standings
from tournaments.simulate import end_game
from tournaments.standings import compute
from tournaments.tasks import tournament_advance, tournament_tick

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)


def tournament(players: int = 5, **fields) -> tuple[Tournament, list]:
    director = make_user("director")
    options = dict(name="Autumn Swiss", rounds=3, registration_closes_at=T0 - timedelta(hours=1), starts_at=T0,
                   min_players=2, round_days=10)
    options.update(fields)
    with time_machine.travel(T0 - timedelta(days=2), tick=False):
        t = services.tournament_create(director=director, **options)
        users = [make_user(f"player{i}") for i in range(players)]
        for u in users:
            services.tournament_register(user=u, tournament_id=t.pk)
    return t, users


def finish_round(t: Tournament, results: str = "white") -> None:
    rnd = t.round_set.get(number=Tournament.objects.get(pk=t.pk).current_round)
    for e in rnd.entries.filter(color="w", game__isnull=False).select_related("game"):
        end_game(e.game, results, T0)


def test_the_round_lifecycle_runs_itself(eager, mailoutbox, django_capture_on_commit_callbacks):
    """Beat starts the tournament and pairs round 1; each round closes when its games end and
    the next is paired at once; after the last round the tournament finishes and winners hear."""
    t, _users = tournament(5)
    with time_machine.travel(T0 - timedelta(minutes=1), tick=False):
        assert tournament_tick()["started"] == 0  # not yet
    with time_machine.travel(T0, tick=False), django_capture_on_commit_callbacks(execute=True):
        assert tournament_tick()["started"] == 1
        assert tournament_tick()["started"] == 0  # run twice: started once
    t.refresh_from_db()
    assert t.status == "running" and t.current_round == 1 and t.first_color in "wb"
    rnd1 = t.round_set.get(number=1)
    assert rnd1.entries.filter(code="U").count() == 1  # 5 players: a pairing bye
    games = Game.objects.filter(tournament_entries__round=rnd1).distinct()
    assert games.count() == 2 and all(g.days_per_move == t.days_per_move and not g.vacation_allowed for g in games)
    assert sum("New pairing: round 1 of Autumn Swiss" in m.subject for m in mailoutbox) == 4
    for number in (1, 2, 3):
        with time_machine.travel(T0 + timedelta(hours=number), tick=False), \
                django_capture_on_commit_callbacks(execute=True):
            finish_round(t)  # game_finished → tournament_advance task → next round at once
            tournament_advance(t.pk)  # a task that runs twice pairs a round once
        t.refresh_from_db()
        assert Round.objects.filter(tournament=t).count() == number + (number < 3)
    assert t.status == "finished" and t.round_set.filter(status="closed").count() == 3
    assert sum("Autumn Swiss is over" in m.subject for m in mailoutbox) == 5
    met = set()
    for e in Entry.objects.filter(round__tournament=t, opponent__isnull=False):
        pair = frozenset({e.registration_id, e.opponent_id})
        assert e.round.number == min(x.round.number for x in Entry.objects.filter(
            round__tournament=t, registration_id=e.registration_id, opponent_id=e.opponent_id))
        met.add(pair)
    byes = Entry.objects.filter(round__tournament=t, code="U").values_list("registration_id", flat=True)
    assert len(byes) == len(set(byes)) == 3  # three rounds, three different players with the bye


def test_at_the_round_deadline_unfinished_games_are_adjudicated(eager, django_capture_on_commit_callbacks):
    t, _ = tournament(4, rounds=2, round_days=3)
    with time_machine.travel(T0, tick=False):
        services.tournament_start(tournament_id=t.pk, now=T0)
    assert services.tournament_advance(tournament_id=t.pk, now=T0 + timedelta(days=2)) == "waiting"
    with django_capture_on_commit_callbacks(execute=True):
        assert services.tournament_advance(tournament_id=t.pk, now=T0 + timedelta(days=3)) == "paired"
    r1 = t.round_set.get(number=1)
    games = Game.objects.filter(tournament_entries__round=r1).distinct()
    assert all(g.termination == "adjudication" for g in games)
    assert set(r1.entries.values_list("code", flat=True)) == {"="}  # nothing scored: drawn by the rule


def test_too_few_players_cancels_at_the_start():
    t, _ = tournament(2, min_players=3)
    assert services.tournament_start(tournament_id=t.pk, now=T0)
    t.refresh_from_db()
    assert t.status == "cancelled" and not t.round_set.exists()


def test_late_entry_and_withdrawal():
    t, users = tournament(4, rounds=4, late_entry_until_round=2, late_entry_byes="half")
    services.tournament_start(tournament_id=t.pk, now=T0)
    late = make_user("latecomer")
    registration = services.tournament_register(user=late, tournament_id=t.pk, now=T0)
    assert registration.joined_round == 2
    assert list(registration.entries.values_list("round__number", "code")) == [(1, "H")]
    services.tournament_withdraw(user=users[0], tournament_id=t.pk)
    finish_round(t)
    services.tournament_advance(tournament_id=t.pk, now=T0)
    r2 = t.round_set.get(number=2)
    gone = Registration.objects.get(user=users[0])
    assert r2.entries.get(registration=gone).code == "Z"  # no further pairings
    assert r2.entries.get(registration=registration).opponent is not None or \
        r2.entries.get(registration=registration).code == "U"
    assert Entry.objects.filter(round__number=1, registration=gone).exclude(code="").exists()  # results stand
    finish_round(t)
    services.tournament_advance(tournament_id=t.pk, now=T0)
    with pytest.raises(Conflict):  # too late now
        services.tournament_register(user=make_user("later"), tournament_id=t.pk, now=T0)


def test_the_director_removes_a_player_and_sets_a_bye():
    t, users = tournament(6, rounds=3, requested_bye_points="half")
    services.tournament_start(tournament_id=t.pk, now=T0)
    with pytest.raises(Exception):  # noqa: B017  (only the director)
        services.tournament_set_bye(director=users[1], tournament_id=t.pk, user=users[2], round_number=2)
    services.tournament_set_bye(director=t.director, tournament_id=t.pk, user=users[2], round_number=2)
    services.tournament_withdraw(user=users[3], tournament_id=t.pk, by_director=t.director)
    finish_round(t)
    services.tournament_advance(tournament_id=t.pk, now=T0)
    r2 = t.round_set.get(number=2)
    assert r2.entries.get(registration__user=users[2]).code == "H"
    removed = Registration.objects.get(user=users[3])
    assert removed.removed and r2.entries.get(registration=removed).code == "Z"


def test_duplicate_mode_races_every_board_on_one_course():
    t, _ = tournament(8, course_mode="duplicate")
    services.tournament_start(tournament_id=t.pk, now=T0)
    rnd = t.round_set.get(number=1)
    courses = {str(g.course) for g in Game.objects.filter(tournament_entries__round=rnd)}
    assert len(courses) == 1 and rnd.course is not None
    finish_round(t)
    services.tournament_advance(tournament_id=t.pk, now=T0)
    assert t.round_set.get(number=2).course != rnd.course  # a new course each round


def hand_worked() -> tuple[Tournament, dict[str, Registration]]:
    """Five players, three rounds, entered by hand (no pairing engine):
    R1: A 1-0 D, B = E, C bye (U).  R2: C 1-0 A, B +/- D (forfeit), E half-point bye (H).
    R3: A = B, D 0-1 E, C absent (Z)."""
    director = make_user("td")
    t = Tournament.objects.create(name="By hand", director=director, rounds=3, registration_closes_at=T0,
                                  starts_at=T0, status="finished")
    regs = {name: Registration.objects.create(tournament=t, user=make_user(name), rating=2000 - 10 * i)
            for i, name in enumerate("ABCDE")}
    rounds = {n: Round.objects.create(tournament=t, number=n, status="closed", deadline=T0) for n in (1, 2, 3)}

    def game(n, white, black, code_white):
        flip = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+"}
        Entry.objects.create(round=rounds[n], registration=regs[white], opponent=regs[black], color="w", code=code_white)
        Entry.objects.create(round=rounds[n], registration=regs[black], opponent=regs[white], color="b",
                             code=flip[code_white])

    game(1, "A", "D", "1"); game(1, "B", "E", "=")  # noqa: E702
    Entry.objects.create(round=rounds[1], registration=regs["C"], code="U")
    game(2, "C", "A", "1"); game(2, "B", "D", "+")  # noqa: E702
    Entry.objects.create(round=rounds[2], registration=regs["E"], code="H")
    game(3, "A", "B", "="); game(3, "D", "E", "0")  # noqa: E702
    Entry.objects.create(round=rounds[3], registration=regs["C"], code="Z")
    return t, regs


def test_standings_with_every_tie_break_on_a_hand_worked_tournament():
    """The figures are worked out by hand in docs/tournaments.md ("A worked example"), by FIDE
    C.07 as in force: own unplayed rounds against a dummy (16.4, capped as 16.4.1 and 16.4.2),
    opponents' unplayed rounds by their actual points except C's trailing absence (16.3), and
    voluntary unplayed rounds cut first in Cut-1 (16.5). The old virtual-opponent rule ranked
    C, B, E."""
    t, _ = hand_worked()
    table = {row.registration.user.username: row for row in standings(t)}
    want = {  # score, Buchholz Cut-1, Buchholz, Sonneborn-Berger, rank
        "B": (2.0, 3.5, 3.5, 1.75, 1),
        "C": (2.0, 3.0, 4.5, 3.0, 2),
        "E": (2.0, 2.0, 3.5, 1.75, 3),
        "A": (1.5, 4.5, 4.5, 1.0, 4),
        "D": (0.0, 3.5, 3.5, 0.0, 5),
    }
    for name, (score, cut1, bh, sb, rank) in want.items():
        row = table[name]
        got = (row.score, row.values["BH/C1"], row.values["BH"], row.values["SB"], row.rank)
        assert got == pytest.approx((score, cut1, bh, sb, rank)), name


def test_buoy_points_damage_and_direct_encounter_break_remaining_ties():
    """Four players, two rounds of draws: all equal on score, Buchholz and SB. Game points (R14)
    and damage from the games decide; direct encounter only counts among players who all met."""
    director = make_user("td")
    t = Tournament.objects.create(name="Ties", director=director, rounds=2, registration_closes_at=T0, starts_at=T0,
                                  status="finished")
    regs = {n: Registration.objects.create(tournament=t, user=make_user(n), rating=1500) for n in "WXYZ"}
    # game points in rounds 1 and 2, and damage per game
    points = {"W": ((2, 1), 1), "X": ((2, 1), 0), "Y": ((1, 0), 0), "Z": ((1, 0), 0)}
    for number, pairs in ((1, (("W", "X"), ("Y", "Z"))), (2, (("W", "Y"), ("X", "Z")))):
        rnd = Round.objects.create(tournament=t, number=number, status="closed", deadline=T0)
        for white, black in pairs:
            game = game_services.game_create(yellow=regs[black].user, red=regs[white].user)
            for name, seat in ((white, 1), (black, 0)):
                Seat.objects.filter(game=game, index=seat).update(points=points[name][0][number - 1],
                                                                  damage=points[name][1])
                Entry.objects.create(round=rnd, registration=regs[name], game=game, code="=",
                                     opponent=regs[black if name == white else white], color="w" if name == white else "b")
    table = standings(t)
    assert [r.score for r in table] == [1.0] * 4 and len({r.values["BH"] for r in table}) == 1
    order = [r.registration.user.username for r in table]
    assert order[:2] == ["X", "W"]  # equal buoy points (3), X took less damage
    assert {r.registration.user.username: r.values["BUOYS"] for r in table} == {"W": 3, "X": 3, "Y": 1, "Z": 1}
    assert {r.registration.user.username: r.values["DMG"] for r in table} == {"W": 2, "X": 0, "Y": 0, "Z": 0}
    y, z = table[2], table[3]
    assert y.rank == z.rank == 3 and y.values["DE"] == z.values["DE"] == 0  # they met and drew: still equal
    exported = trf.parse(selectors.tournament_trf_export(t))  # PBS records carry them to the command
    assert exported.buoys_damage == {1: (3, 2), 2: (3, 0), 3: (1, 0), 4: (1, 0)}
    assert [r.number for r in compute(exported, t.tiebreak_order)] == [2, 1, 3, 4]


def test_trf_export_reads_back():
    t, _regs = hand_worked()
    out = io.StringIO()
    call_command("export_trf", t.pk, stdout=out)
    parsed = trf.parse(out.getvalue())
    assert parsed.name == "By hand" and parsed.rounds == 3 and len(parsed.players) == 5
    by_name = {p.name: p for p in parsed.players}
    assert [c.result for c in by_name["C"].cells] == ["U", "1", "Z"]
    assert [(c.opponent, c.color, c.result) for c in by_name["B"].cells] == [(5, "w", "="), (4, "w", "+"),
                                                                              (1, "b", "=")]
    assert by_name["C"].points == 2.0 and by_name["B"].rank == 1 and by_name["C"].rank == 2
    assert by_name["D"].rank == 5
    assert Client().get(f"/tournaments/{t.pk}/trf/").content.decode("utf-8") == out.getvalue()


def test_simulate_tournament_writes_a_trf(tmp_path):
    path = tmp_path / "sim.trf"
    call_command("simulate_tournament", "--players", "9", "--rounds", "4", "--seed", "5", "--out", str(path),
                 "--forfeits", "0.1", "--withdrawals", "1", "--late-entries", "1", stdout=io.StringIO())
    parsed = trf.parse(path.read_text(encoding="utf-8"))
    assert len(parsed.players) == 10 and parsed.rounds == 4
    assert all(len(p.cells) == 4 for p in parsed.players)
    codes = {c.result for p in parsed.players for c in p.cells}
    assert {"1", "0"} <= codes and "Z" in codes  # games, and a withdrawal or the late entrant's missed round


def test_pages_and_api():
    t, _users = tournament(4)
    services.tournament_start(tournament_id=t.pk, now=T0)
    listing = Client().get("/tournaments/").content.decode()
    assert "Autumn Swiss" in listing
    page = Client().get(f"/tournaments/{t.pk}/").content.decode()
    assert 'id="standings"' in page and "Round 1" in page and 'id="cross"' in page
    api = APIClient().get(f"/api/tournaments/{t.pk}/").json()
    assert api["status"] == "running" and len(api["rounds"][0]["boards"]) == 2 and len(api["standings"]) == 4
    assert APIClient().get(f"/api/tournaments/{t.pk}/trf/").status_code == 200
    client = APIClient()
    client.login(username="player0", password=PASSWORD)
    again = client.post(f"/api/tournaments/{t.pk}/register/")
    assert again.status_code == 409 and again.json()["code"] == "conflict"
    created = client.post("/api/tournaments/", {"name": "", "rounds": 3, "registration_closes_at": T0.isoformat(),
                                                "starts_at": T0.isoformat()}, format="json")
    assert created.status_code == 400 and created.json()["field"] == "name"
    web = Client()
    web.login(username="player1", password=PASSWORD)
    form = web.get("/tournaments/new/")
    assert form.status_code == 200 and b"tournament-form" in form.content


def test_the_director_chooses_the_tie_break_order():
    """The order is part of the tournament (form, API, service); the standings follow it. On
    the worked example Sonneborn-Berger first puts C ahead of B and E."""
    t, _ = hand_worked()
    assert t.tiebreak_order == ("BH/C1", "BH", "SB", "BUOYS", "DMG", "DE")
    t.tiebreaks = "SB BH/C1"
    t.save(update_fields=["tiebreaks"])
    table = standings(t)
    assert [r.registration.user.username for r in table] == ["C", "B", "E", "A", "D"]
    assert list(table[0].values) == ["SB", "BH/C1"] and table[1].values == {"SB": 1.75, "BH/C1": 3.5}
    page = Client().get(f"/tournaments/{t.pk}/").content.decode()
    assert '<th title="Sonneborn-Berger">SB</th><th title="Buchholz Cut-1">BH/C1</th>' in page
    api = APIClient().get(f"/api/tournaments/{t.pk}/").json()
    assert api["tiebreak_order"] == ["SB", "BH/C1"] and api["standings"][0]["tiebreaks"] == {"SB": 3.0, "BH/C1": 3.0}


def test_a_tie_break_order_is_checked_in_the_service_the_api_and_the_form():
    director = make_user("td")
    fields = dict(name="Ordered", registration_closes_at=T0, starts_at=T0)
    t = services.tournament_create(director=director, tiebreaks="de, bpg  aro", **fields)
    assert t.tiebreaks == "DE BPG ARO"
    with pytest.raises(ServiceError, match="unknown tie-break TPR"):
        services.tournament_create(director=director, tiebreaks="BH TPR", **fields)
    client = APIClient()
    client.force_login(director)
    made = client.post("/api/tournaments/", {**fields, "tiebreaks": "WIN BH"}, format="json")
    assert made.status_code == 201 and made.json()["tiebreak_order"] == ["WIN", "BH"]
    refused = client.post("/api/tournaments/", {**fields, "tiebreaks": "BH BH"}, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == "tiebreaks"
    assert "BH is given twice" in refused.json()["message"]
    web = Client()
    web.force_login(director)
    data = {"name": "Web", "rounds": 3, "days_per_move": 3, "grace_days": 7,
            "registration_closes_at": "2030-09-01T10:00", "starts_at": "2030-09-01T12:00",
            "round_days": 30, "rated": "on", "lake_side": "standard",
            "course_mode": "random", "min_players": 4, "max_players": 100,
            "entry": "open", "late_entry_until_round": 0, "late_entry_byes": "zero",
            "requested_bye_points": "half"}
    # the page offers the tie-breaks in order, one select per place, each by its code and name
    page = web.get("/tournaments/new/").content.decode()
    selects = re.findall(r'<select name="tiebreaks_(\d+)" aria-label="Tie-break (\d+)"', page)
    assert [int(n) for n, _ in selects] == list(range(10)) and [int(n) for _, n in selects] == list(range(1, 11))
    assert '<option value="SB">SB — Sonneborn-Berger</option>' in page
    chosen = re.findall(r'<option value="([^"]+)" selected>', page.split('name="tiebreaks_0"', 1)[1])
    assert chosen[:6] == ["BH/C1", "BH", "SB", "BUOYS", "DMG", "DE"], "the default order is preselected"
    form = web.post("/tournaments/new/", {**data, "tiebreaks_0": "BH", "tiebreaks_1": "MAGIC"})
    assert form.status_code == 400 and "Select a valid choice. MAGIC is not one of the available choices." in \
        form.content.decode()
    form = web.post("/tournaments/new/", {**data, "tiebreaks_0": "BH", "tiebreaks_2": "BH"})
    assert form.status_code == 400 and "BH is given twice" in form.content.decode()
    form = web.post("/tournaments/new/", {**data, "tiebreaks_0": "SB", "tiebreaks_1": "", "tiebreaks_2": "BUOYS"})
    assert form.status_code == 302
    assert Tournament.objects.get(name="Web").tiebreaks == "SB BUOYS", "an empty place is skipped"


def test_a_tournament_without_a_legal_next_round_ends_with_the_rounds_played(caplog):
    """Four players, four rounds: after three rounds everyone has met everyone, so round 4
    cannot be paired (C.04.3 C1); the tournament finishes instead of closing an empty round."""
    t, _ = tournament(4, rounds=4)
    services.tournament_start(tournament_id=t.pk, now=T0)
    for _ in range(2):
        finish_round(t)
        assert services.tournament_advance(tournament_id=t.pk, now=T0) == "paired"
    finish_round(t)
    assert services.tournament_advance(tournament_id=t.pk, now=T0) == "finished"
    t.refresh_from_db()
    assert t.status == "finished" and list(t.round_set.values_list("number", "status")) == [
        (1, "closed"), (2, "closed"), (3, "closed")]
    assert "ends after round 3: no legal pairing for round 4" in caplog.text


def test_a_round_of_too_many_days_is_refused_by_the_form_the_api_and_the_service(caplog):
    """A round's deadline is 1 to 365 days after pairing. A play-test set 99,999,999 days in the
    form: the tournament was created, and its start failed at every beat (the deadline past the
    year 9999), which held up every other tournament's rounds too."""
    director = make_user("long-days")
    web = Client()
    web.login(username="long-days", password=PASSWORD)
    form = web.get("/tournaments/new/").content.decode()
    field = re.search(r'<input[^>]*name="round_days"[^>]*>', form)
    assert field and 'min="1"' in field.group() and 'max="365"' in field.group()  # the browser says so first
    posted = web.post("/tournaments/new/", {"name": "Forever", "rounds": 3, "round_days": 99999999,
                                            "registration_closes_at": "2030-01-01T10:00", "starts_at": "2030-01-01T11:00",
                                            "clock": "per_move", "days_per_move": 3, "grace_days": 7, "lake_side": "standard",
                                            "course_mode": "random", "min_players": 4, "max_players": 100, "entry": "open",
                                            "late_entry_until_round": 0, "late_entry_byes": "zero",
                                            "requested_bye_points": "half", "rated": "on"})
    assert posted.status_code == 400 and not Tournament.objects.filter(name="Forever").exists()
    api = APIClient()
    api.force_authenticate(director)
    for days, status in ((366, 400), (0, 400), (365, 201)):
        created = api.post("/api/tournaments/", {"name": f"Days {days}", "rounds": 3, "round_days": days,
                                                 "registration_closes_at": T0.isoformat(), "starts_at": T0.isoformat()},
                           format="json")
        assert created.status_code == status, created.json()
        if status == 400:
            assert created.json()["field"] == "round_days"
    with pytest.raises(ServiceError) as refused:
        services.tournament_create(director=director, name="Forever", rounds=3, round_days=400,
                                   registration_closes_at=T0, starts_at=T0)
    assert refused.value.field == "round_days"


def test_one_tournament_that_cannot_start_does_not_hold_up_the_others(caplog, monkeypatch):
    """The beat moves each tournament along on its own: one whose step fails is logged, with its
    traceback, and tried again at the next beat; the others start and advance."""
    broken, players = tournament(4, name="Broken")
    with time_machine.travel(T0 - timedelta(days=2), tick=False):
        fine = services.tournament_create(director=make_user("fine-director"), name="Fine", rounds=3, min_players=2,
                                          registration_closes_at=T0 - timedelta(hours=1), starts_at=T0)
        for u in players:
            services.tournament_register(user=u, tournament_id=fine.pk)
    start = services.tournament_start

    def start_or_fail(*, tournament_id, now=None):
        if tournament_id == broken.pk:
            raise OverflowError("date value out of range")
        return start(tournament_id=tournament_id, now=now)

    monkeypatch.setattr(services, "tournament_start", start_or_fail)
    with time_machine.travel(T0, tick=False):
        assert tournament_tick()["started"] == 1
    assert Tournament.objects.get(pk=fine.pk).status == "running"
    assert Tournament.objects.get(pk=broken.pk).status == "registration"
    assert f"tournament {broken.pk}" in caplog.text and "OverflowError" in caplog.text
    monkeypatch.setattr(services, "tournament_start", start)
    with time_machine.travel(T0 + timedelta(minutes=1), tick=False):
        assert tournament_tick()["started"] == 1  # tried again at the next beat
    assert Tournament.objects.get(pk=broken.pk).status == "running"
