"""Series of the boxed game on the site and the API (issue 16; rulings R15–R20)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from common.errors import Conflict, NotAPlayer, ServiceError
from games import services as svc
from games.engine import SERIES_COLORS, Phase
from games.engine.record import verify_series
from games.errors import GameIsOver, IllegalMoveError, NotYourTurn, StalePly
from games.management.commands.verify_games import check_game
from games.models import Game, Move
from games.ratings.models import SeriesRating, SeriesRatingChange
from games.ratings.services import pair_score
from games.rulesets import BOXED, match_of
from games.state import playing, record_of, replay
from games.tasks import sweep_clocks

from .factories import client_for, greedy_player, make_user
from .series_play import engine_now, play, started

pytestmark = pytest.mark.django_db

NAMES = ("ann", "bob", "cid", "dee")
# the long plays commit (so the replay kept per process by the services is used, as on the site)
PLAYED = pytest.mark.django_db(transaction=True)



def four(names=NAMES):
    return [make_user(n) for n in names]


# --- the lobby -------------------------------------------------------------------------------------


def test_a_series_starts_when_its_seats_are_filled():
    users = four()
    series = svc.game_open(user=users[0], seats=4)
    svc.game_join(user=users[1], game_id=series.pk)
    svc.game_join(user=users[2], game_id=series.pk)
    series.refresh_from_db()
    assert series.status == Game.Status.OPEN
    svc.game_join(user=users[3], game_id=series.pk)
    series.refresh_from_db()
    assert series.status == Game.Status.ACTIVE
    seats = list(series.seats.order_by("index"))
    # R15: seats in the order the players joined, each its colour; three courses on one lake
    assert [(s.index, s.color, s.user.username) for s in seats] == [
        (0, "yellow", "ann"), (1, "red", "bob"), (2, "orange", "cid"), (3, "purple", "dee")]
    assert len(series.course_keys) == 3 and series.first_start in range(4)
    assert series.phase == "place" and series.ply == 0
    # R15: the start player's right-hand neighbour places first
    assert series.to_move == (series.first_start - 1) % 4
    assert series.deadline is not None and all(s.grace_seconds == 7 * 86400 for s in seats)


def test_the_lobby_lists_every_open_game_a_page_at_a_time(monkeypatch):
    """GET /api/games/open/ and the series lobby page list the games open for players, newest
    first, page by page: an open game is never out of reach however many there are (issue 25:
    every game has what a two-player game has, pagination too)."""
    from common.pagination import Pages
    from games import views

    users = four()
    opened = [svc.game_open(user=users[i % 3], seats=3 + i % 4) for i in range(7)]
    started = opened[1]  # bob's, for four players: the three others fill it
    for u in (users[0], users[2], users[3]):
        svc.game_join(user=u, game_id=started.pk)
    started.refresh_from_db()
    assert started.status == Game.Status.ACTIVE
    still_open = [g.pk for g in reversed(opened) if g.pk != started.pk]  # newest first
    monkeypatch.setattr(Pages, "page_size", 4)
    monkeypatch.setattr(views, "LOBBY_PAGE_SIZE", 4)
    anonymous = APIClient()
    first = anonymous.get("/api/games/open/").json()
    assert first["count"] == 6 and [g["id"] for g in first["results"]] == still_open[:4]
    assert all(g["status"] == "open" and g["ruleset"] == "boxed" for g in first["results"])
    second = client_for(users[3]).get(first["next"]).json()
    assert [g["id"] for g in second["results"]] == still_open[4:] and second["next"] is None
    assert [g["your_seat"] for g in second["results"]] == [
        Game.objects.get(pk=g).created_by_id == users[3].pk for g in still_open[4:]]
    refused = anonymous.get("/api/games/open/?page=0")
    assert refused.status_code == 400 and refused.json()["field"] == "page"
    # the page: the same games, in pages of LOBBY_PAGE_SIZE, with a way to the next
    page1 = anonymous.get("/series/").content.decode()
    page2 = anonymous.get("/series/?page=2").content.decode()
    numbers = {g.pk: g.series_number for g in opened}
    for gid in still_open[:4]:
        assert f"Series {numbers[gid]} by" in page1 and f"Series {numbers[gid]} by" not in page2
    for gid in still_open[4:]:
        assert f"Series {numbers[gid]} by" in page2
    assert 'href="?page=2"' in page1 and "page 1 of 2" in page1 and 'href="?page=1"' in page2


def test_lobby_refusals_change_nothing():
    ann, bob, cid, dee = four()
    with pytest.raises(ServiceError) as info:
        svc.game_open(user=ann, seats=7)
    assert info.value.field == "seats" and info.value.rule == "R15"
    series = svc.game_open(user=ann, seats=5)
    with pytest.raises(Conflict):
        svc.game_join(user=ann, game_id=series.pk)  # a seat already
    svc.game_join(user=bob, game_id=series.pk)
    with pytest.raises(NotAPlayer):
        svc.game_start(user=bob, game_id=series.pk)  # only the creator starts
    with pytest.raises(Conflict) as info:
        svc.game_start(user=ann, game_id=series.pk)  # two players are not enough
    assert info.value.rule == "R15"
    with pytest.raises(Conflict):
        svc.game_leave(user=ann, game_id=series.pk)  # the creator cancels instead
    with pytest.raises(NotAPlayer):
        svc.game_leave(user=cid, game_id=series.pk)
    svc.game_leave(user=bob, game_id=series.pk)
    assert [s.user.username for s in series.seats.all()] == ["ann"]
    with pytest.raises(NotAPlayer):
        svc.game_cancel(user=bob, game_id=series.pk)
    svc.game_cancel(user=ann, game_id=series.pk)
    with pytest.raises(Conflict):
        svc.game_join(user=dee, game_id=series.pk)


def test_the_creator_starts_with_three_present():
    ann, bob, cid = four(("ann", "bob", "cid"))
    series = svc.game_open(user=ann, seats=6)
    svc.game_join(user=bob, game_id=series.pk)
    svc.game_join(user=cid, game_id=series.pk)
    svc.game_start(user=ann, game_id=series.pk, rng=random.Random(2))
    series.refresh_from_db()
    assert series.status == Game.Status.ACTIVE
    assert sorted(s.color for s in series.seats.all()) == ["orange", "red", "yellow"]


# --- play: a scripted series, every figure checked (R15–R20) ---------------------------------------


@pytest.mark.slow
@PLAYED
def test_a_scripted_four_player_series_gives_the_figures_of_r18_to_r20():
    """A fixed lake, lot and dice seed (random.Random(16)); each seat played by the engine's
    greedy player with its own fixed seed, through the services. Every figure of the series
    table is pinned, and cross-checked against R19's formula and R20's carried counters."""
    series = started(four())
    assert series.first_start == 0  # Yellow (ann) starts race A
    series = play(series.pk)
    assert series.status == Game.Status.FINISHED and series.phase == "over"
    _, seats, engine = engine_now(series.pk)
    by_color = {s.color: s for s in seats}

    # R18 positions per race (1-based; None: sank), R19 points per race, R20 carried counters
    expected = {
        #        positions         points per race   damage carried into A, B, C
        "yellow": ((4, 4, None), (0, 0, 0), (0, 1, 2)),
        "red": ((2, 3, 2), (2, 2, 6), (0, 1, 1)),
        "orange": ((3, 1, 1), (1, 6, 9), (0, 1, 1)),
        "purple": ((1, 2, None), (3, 4, 0), (0, 1, 1)),
    }
    table = {line.color: line for line in engine.standings()}
    for color, (positions, points, carried) in expected.items():
        assert table[color].positions == positions, color
        assert table[color].race_points == points, color
        assert tuple(engine.carried(i)[color] for i in range(3)) == carried, color
        assert table[color].points == sum(points) == by_color[color].points
    # R19: (n − p) × k, k = 1, 2, 3, with n = 4 boats in every race; no position scores 0
    for line in table.values():
        for k, (position, points) in enumerate(zip(line.positions, line.race_points, strict=True), start=1):
            assert points == ((4 - position) * k if position is not None else 0)
    # R20: a counter per earlier race in which the boat's damage rose
    scores = engine.scores()
    for color in expected:
        rose = [next(s for s in race if s.color == color).took_damage for race in scores]
        assert [engine.carried(i)[color] for i in range(3)] == [sum(rose[:i]) for i in range(3)]
    # R15: each race's start player is the previous one's left-hand neighbour
    assert [r.boats[r.start].color for r in engine.races] == ["yellow", "red", "orange"]
    # the series table (R19): 16 Orange, 10 Red, 7 Purple, 0 Yellow
    assert [(s.place, s.color, s.points) for s in engine.standings()] == [
        (1, "orange", 16), (2, "red", 10), (3, "purple", 7), (4, "yellow", 0)]
    assert series.winner.username == "cid"
    assert series.result_reason == "Orange wins the series with 16 points"
    assert [(s.color, s.place) for s in seats] == [("yellow", 4), ("red", 2), ("orange", 1), ("purple", 3)]
    # the stored state is the replay of the history, and the record verifies
    assert check_game(series) is None
    check = verify_series(record_of(series))
    assert check.ok, check.message
    # rated: pairwise Glicko-2 in the series pool, the two-player rating untouched
    changes = {c.user.username: c for c in SeriesRatingChange.objects.filter(game=series)}
    assert {n: c.score for n, c in changes.items()} == {"cid": 3.0, "bob": 2.0, "dee": 1.0, "ann": 0.0}
    assert changes["cid"].rating_after > 1500 > changes["ann"].rating_after
    assert SeriesRating.objects.get(user__username="cid").wins == 1
    from games.ratings.models import Rating

    assert not Rating.objects.exists()


def test_refused_actions_name_the_field_and_rule_and_change_nothing():
    users = four()
    series = started(users)
    mover = series.seats.get(index=series.to_move).user
    other = series.seats.exclude(index=series.to_move).first().user
    with pytest.raises(NotYourTurn):
        svc.game_place(user=other, game_id=series.pk, ply=0, cell=(0, 0), heading=0)
    with pytest.raises(StalePly):
        svc.game_place(user=mover, game_id=series.pk, ply=5, cell=(0, 0), heading=0)
    with pytest.raises(IllegalMoveError) as info:
        svc.game_place(user=mover, game_id=series.pk, ply=0, cell=(-50, -50), heading=0)
    assert info.value.rule.startswith("R") and info.value.field
    from games.engine import Change, DiceChoice

    with pytest.raises(IllegalMoveError) as info:
        svc.game_roll(user=mover, game_id=series.pk, ply=0, choice=DiceChoice(Change.ADD))
    assert info.value.rule == "R6"
    outsider = make_user("eve")
    with pytest.raises(NotAPlayer):
        svc.game_resign(user=outsider, game_id=series.pk)
    assert not Move.objects.exists()
    series.refresh_from_db()
    assert series.ply == 0


@pytest.mark.slow
@PLAYED
def test_a_player_who_resigns_leaves_and_the_others_play_on():
    users = four()
    series = started(users)
    # play into race A's moves, then Red resigns out of turn (R18: at any time)
    series = play(series.pk, stop=lambda s: s.race.phase is Phase.DICE and s.race.boats[s.race.to_move].moves >= 2)
    red = series.seats.get(color="red").user
    answer = svc.game_resign(user=red, game_id=series.pk)
    assert answer["status"] == "active"
    _, _, engine = engine_now(series.pk)
    boat = next(b for b in engine.race.boats if b.color == "red")
    assert boat.retired is not None and not boat.racing  # lifted off
    with pytest.raises(GameIsOver) as info:
        svc.game_resign(user=red, game_id=series.pk)
    assert info.value.rule == "R18"
    series = play(series.pk)
    _, _, engine = engine_now(series.pk)
    assert series.status == Game.Status.FINISHED and len(engine.races) == 3
    assert all("red" not in [b.color for b in r.boats] for r in engine.races[1:])  # no part in later races
    red_line = next(t for t in engine.standings() if t.color == "red")
    assert red_line.place == 4 and red_line.left is not None  # below everyone who stayed
    assert check_game(series) is None


@pytest.mark.slow
@PLAYED
def test_a_player_who_leaves_before_placing_is_not_counted_in_n_and_the_stored_series_is_its_replay():
    """R19 details: n is the number of boats placed in the race. The first player to place
    resigns before placing; the other three play race A out through the services: its positions
    score (3 − p) × 1, the stored points are the replay's, and verify_series finds no difference."""
    from games.engine import race_scores

    series = started(four())
    first = series.seats.get(index=series.to_move)
    svc.game_resign(user=first.user, game_id=series.pk)
    series = play(series.pk, stop=lambda s: len(s.races) > 1)
    series, seats, engine = engine_now(series.pk)
    race_a = engine.races[0]
    scores = {s.color: s for s in race_scores(race_a)}
    assert scores[first.color].position is None and scores[first.color].points == 0
    placed = sorted((s.position, s.points) for s in scores.values() if s.position is not None)
    assert placed == [(p, 3 - p) for p in range(1, len(placed) + 1)] and len(placed) >= 2
    assert {s.color: s.points for s in seats} == {c: s.points for c, s in scores.items()}
    assert check_game(series) is None
    call_command("verify_games")


@PLAYED
def test_a_series_of_rules_version_1_replays_and_verifies_with_the_points_scored_then():
    """Rules versions (docs/series.md): a series created before R18/R19's details changed keeps
    version 1 (the migration gave it 1; here its row says so before it starts). The scenario of
    the test above (same lot, seed and players): the first player to place resigns before
    placing, the other three play race A out. By version 1 n is all four boats, so the positions
    score (4 − p) × 1; the stored points are that replay's, verify_series and the exported record
    (series.rules_version 1) agree. The same history replayed by version 2 gives the same
    positions and (3 − p) × 1, so the row's version is what keeps the stored series verifiable."""
    from games.engine import RULES_VERSION, race_scores
    from games.engine.record import verify as verify_record

    users = four()
    series = svc.game_open(user=users[0], seats=4)
    assert series.rules_version == RULES_VERSION == 2  # a new series takes the newest version
    Game.objects.filter(pk=series.pk).update(rules_version=1)
    for user in users[1:-1]:
        svc.game_join(user=user, game_id=series.pk)
    svc.game_join(user=users[-1], game_id=series.pk, rng=random.Random(16))
    series.refresh_from_db()
    first = series.seats.get(index=series.to_move)
    svc.game_resign(user=first.user, game_id=series.pk)
    series = play(series.pk, stop=lambda s: len(s.races) > 1)
    series, seats, engine = engine_now(series.pk)
    assert series.rules_version == 1 and engine.rules_version == 1
    race_a = engine.races[0]
    scores = {s.color: s for s in race_scores(race_a)}
    assert scores[first.color].position is None and scores[first.color].points == 0
    placed = sorted((s.position, s.points) for s in scores.values() if s.position is not None)
    assert placed == [(p, 4 - p) for p in range(1, len(placed) + 1)] and len(placed) >= 2
    assert {s.color: s.points for s in seats} == {c: s.points for c, s in scores.items()}
    assert check_game(series) is None
    call_command("verify_games")
    record = record_of(series)
    assert record["series"]["rules_version"] == 1 and verify_record(record).ok
    # by version 2 the same history gives other points: the stored state would not be its replay
    series.rules_version = 2
    BOXED.forget()
    newer = replay(series, seats, list(series.moves.order_by("ply"))).races[0]
    assert newer.positions == race_a.positions
    assert sorted((s.position, s.points) for s in race_scores(newer) if s.position is not None) == [
        (p, 3 - p) for p in range(1, len(placed) + 1)]
    assert "the replay gives" in (check_game(series) or "")


def test_the_clock_sweep_times_out_the_player_to_move(eager):
    users = four()
    series = started(users)
    late = series.seats.get(index=series.to_move)
    Game.objects.filter(pk=series.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert sweep_clocks()["timed_out"] == 1
    assert sweep_clocks()["timed_out"] == 0  # safe to run twice
    series.refresh_from_db()
    late.refresh_from_db()
    assert late.left == "timeout" and series.status == Game.Status.ACTIVE
    assert series.to_move != late.index
    assert check_game(series) is None


def test_a_late_action_loses_on_time_and_does_not_count():
    users = four()
    series = started(users)
    late = series.seats.get(index=series.to_move)
    Game.objects.filter(pk=series.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    from games.errors import TimeOver

    with pytest.raises(TimeOver):
        svc.game_place(user=late.user, game_id=series.pk, ply=0, cell=(0, 0), heading=0)
    late.refresh_from_db()
    assert late.left == "timeout"
    assert list(Move.objects.values_list("kind", "termination")) == [("end", "timeout")]


def test_when_fewer_than_two_players_are_left_the_series_ends():
    users = four(("ann", "bob", "cid"))
    series = started(users)
    svc.game_resign(user=users[0], game_id=series.pk)
    svc.game_resign(user=users[1], game_id=series.pk)
    series.refresh_from_db()
    assert series.status == Game.Status.FINISHED
    assert series.winner.username == "cid"
    call_command("verify_games")


def test_pairwise_scores():
    assert (pair_score(1, 2), pair_score(2, 2), pair_score(3, 1)) == (1.0, 0.5, 0.0)


# --- the API -----------------------------------------------------------------------------------------


@pytest.mark.slow
@PLAYED
def test_a_four_player_series_through_the_api(monkeypatch):
    users = four()
    clients = {u.username: client_for(u) for u in users}
    made = clients["ann"].post("/api/series/", {"seats": 4, "days_per_move": 2, "rated": False}, format="json")
    assert made.status_code == 201, made.json()
    sid = made.json()["id"]  # the series' number (its old API: games/api_old_paths.py)
    assert clients["bob"].get("/api/series/").json()[0]["id"] == sid
    gid = Game.objects.get(series_number=sid).pk
    for name in ("bob", "cid"):
        assert clients[name].post(f"/api/series/{sid}/join/").status_code == 200
    real = svc._start
    monkeypatch.setattr(svc, "_start", lambda g, seats, now, rng: real(g, seats, now, random.Random(16)))
    joined = clients["dee"].post(f"/api/series/{sid}/join/").json()
    assert joined["status"] == "active" and [p["color"] for p in joined["players"]] == [
        "yellow", "red", "orange", "purple"]
    players = {}
    for _ in range(3000):
        row, seats, engine = engine_now(gid)
        if row.status != "active":
            break
        mover = next(s.user.username for s in seats if s.index == row.to_move)
        client = clients[mover]
        mine = client.get(f"/api/series/{sid}/").json()
        assert mine["your_turn"] and mine["your_color"] == SERIES_COLORS[row.to_move]
        state = engine.race
        player = players.setdefault(mover, greedy_player(NAMES.index(mover) + 1))
        ply = mine["ply"]
        if state.phase is Phase.PLACE:
            assert mine["placements"]["cells"]
            cell, heading = player.place(state)
            r = client.post(f"/api/series/{sid}/place/", {"ply": ply, "cell": list(cell), "heading": heading},
                            format="json")
        elif state.phase is Phase.DICE:
            assert mine["dice_options"]["choices"]
            choice = player.dice(state)
            r = client.post(f"/api/series/{sid}/roll/", {"ply": ply, "change": choice.change.value,
                                                         "remove": choice.remove, "reroll": list(choice.reroll)},
                            format="json")
        else:
            assert mine.get("options"), (mine["phase"], mine["to_move"], mine["your_turn"], state.phase, ply)
            r = client.post(f"/api/series/{sid}/direction/", {"ply": ply, "direction": player.direction(state)},
                            format="json")
        assert r.status_code == 200, r.json()
    final = clients["bob"].get(f"/api/series/{sid}/").json()
    assert final["status"] == "finished" and final["dice_seed"]
    # the same lake, lot, dice and players as the scripted series: the same table
    assert [(t["place"], t["color"], t["points"], t["race_points"]) for t in final["table"]] == [
        (1, "orange", 16, [1, 6, 9]), (2, "red", 10, [2, 2, 6]), (3, "purple", 7, [3, 4, 0]),
        (4, "yellow", 0, [0, 0, 0])]
    assert [t["carried_damage"] for t in final["table"]] == [[0, 1, 1], [0, 1, 1], [0, 1, 1], [0, 1, 2]]
    assert [r["start_player"] for r in final["races"]] == ["yellow", "red", "orange"]
    record = clients["bob"].get(f"/api/series/{sid}/record/").json()
    assert verify_series(record).ok
    assert not SeriesRatingChange.objects.exists()  # unrated


def test_api_refuses_bad_input_with_the_field():
    users = four()
    ann = client_for(users[0])
    r = ann.post("/api/series/", {"seats": 9}, format="json")
    assert r.status_code == 400 and r.json()["field"] == "seats"
    r = ann.post("/api/series/", {"seats": "4"}, format="json")
    assert r.status_code == 400 and r.json()["field"] == "seats"
    series = started(users)
    mover = series.seats.get(index=series.to_move).user
    for base in (f"/api/series/{series.series_number}/", f"/api/games/{series.pk}/"):  # old paths and new
        r = client_for(mover).post(f"{base}place/", {"ply": 0, "cell": [-40, -40], "heading": 0}, format="json")
        assert r.status_code == 400 and r.json()["code"] == "illegal_move" and r.json()["rule"].startswith("R")
        r = client_for(mover).post(f"{base}resign/", {"confirm": False}, format="json")
        assert r.status_code == 400 and r.json()["field"] == "confirm"
        assert APIClient().post(f"{base}join/").status_code in (401, 403)
    assert client_for(mover).get("/api/series/999999/").status_code == 404
    assert not Move.objects.exists()


def test_emails_your_turn_and_series_over(eager, mailoutbox, django_capture_on_commit_callbacks):
    users = four(("ann", "bob", "cid"))
    with django_capture_on_commit_callbacks(execute=True):
        series = started(users)
    mover = series.seats.get(index=series.to_move).user
    assert mailoutbox == [], "the your-turn email is held back (tests/games/test_series_email.py)"
    with time_machine.travel(timezone.now() + timedelta(seconds=125), tick=False), \
            django_capture_on_commit_callbacks(execute=True):
        sweep_clocks()
    assert [(m.to, m.subject) for m in mailoutbox] == [([mover.email],
                                                         f"Your turn in series {series.series_number} (race A)")]
    assert f"http://127.0.0.1:8000/games/{series.pk}/" in mailoutbox[0].body
    with django_capture_on_commit_callbacks(execute=True):
        svc.game_resign(user=users[0], game_id=series.pk)
        svc.game_resign(user=users[1], game_id=series.pk)
    over = [m for m in mailoutbox if "is over" in m.subject]
    assert sorted(m.to[0] for m in over) == sorted(u.email for u in users)
    # R18: the race ends where it stands, during placing: Orange, the only player left, was never
    # placed on the lake and takes no position (R18 details), n counts no boat (R19): 0 points,
    # and Orange wins, ranked above the two who left
    assert over[0].subject == (f"Series {series.series_number} is over: Orange wins the series with 0 points "
                               "(ended after race A: fewer than two players left)")
    assert "cid (Orange)" in over[0].body  # the colour by its name in the recipient's language


def test_house_bots_take_seats_and_play_through_the_services(eager, django_capture_on_commit_callbacks):
    from games.bots import house_bots

    ann = make_user("ann")
    series = svc.game_open(user=ann, seats=3, rated=False)
    with pytest.raises(ServiceError):
        svc.game_join(user=house_bots().first(), game_id=series.pk)  # the creator adds them
    with pytest.raises(ServiceError) as info:
        svc.game_add_bot(user=ann, game_id=series.pk, level="superb")
    assert info.value.field == "level"
    svc.game_add_bot(user=ann, game_id=series.pk, level="easy")
    with django_capture_on_commit_callbacks(execute=True):
        svc.game_add_bot(user=ann, game_id=series.pk, level="normal", rng=random.Random(4))
    series.refresh_from_db()
    seats = playing(list(series.seats.select_related("user")))
    # the bots acted (the task runs on commit) until it is Ann's turn
    assert series.status == "active" and seats[series.to_move].user == ann and not series.bot_to_move
    _, _, engine = engine_now(series.pk)
    with django_capture_on_commit_callbacks(execute=True):
        svc.game_place(user=ann, game_id=series.pk, ply=series.ply,
                         cell=engine.race.free_start_cells()[0], heading=0)
    series.refresh_from_db()
    assert seats[series.to_move].user == ann and series.ply >= 3  # both bots acted, on commit
    actions = list(Move.objects.order_by("ply"))
    assert {a.user.username for a in actions} == {"ann", "bot-easy", "bot-normal"}
    assert all(a.user.is_bot for a in actions if a.seat != seats[series.to_move].index)
    BOXED.forget()
    assert check_game(series) is None


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_bots_left_alone_play_the_series_to_its_end_without_recursing(eager):
    """R18: the last person resigns and the house bots play on. With real commits and tasks run
    in the calling thread (eager, as in the fuzz stage), each bot's move hands the turn to the
    next bot from inside its own commit: the receiver takes them one after another, not one
    inside the other (the fuzz stage once hit Python's recursion limit)."""
    import sys

    from accounts.services import user_ensure_house_bots

    user_ensure_house_bots()  # a transactional test may have flushed the migration's rows
    ann = make_user("ann")
    series = svc.game_open(user=ann, seats=3, rated=False)
    svc.game_add_bot(user=ann, game_id=series.pk, level="easy")
    svc.game_add_bot(user=ann, game_id=series.pk, level="strong", rng=random.Random(7))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(600)  # a few hundred bot actions would need thousands of frames if they nested
    try:
        svc.game_resign(user=ann, game_id=series.pk)
    finally:
        sys.setrecursionlimit(limit)
    series.refresh_from_db()
    assert series.status == "finished", series.status
    assert Move.objects.filter(game=series, user__is_bot=True).count() > 30
    BOXED.forget()
    assert check_game(series) is None


def test_reads_of_a_series_take_a_fixed_number_of_queries(django_assert_max_num_queries):
    """The API GET: the series, its seats, its actions (the replay is kept per process), however
    long the history; the page adds the session, the user and the players' series ratings
    (shown beside their names, issue 23)."""
    users = four()
    series = started(users)
    series = play(series.pk, stop=lambda s: s.race.phase is Phase.DICE and min(b.moves for b in s.race.boats) >= 2)
    match_of(series)  # this process has seen it
    client = client_for(users[0])
    with django_assert_max_num_queries(2):
        assert client.get(f"/api/games/{series.pk}/").status_code == 200
    with django_assert_max_num_queries(3):  # by its number: one query more
        assert client.get(f"/api/series/{series.series_number}/").status_code == 200
    from django.test import Client

    page = Client()
    page.force_login(users[0])
    # the first view of a course in a language draws the board's static layers and stores them
    # (games.board.static_layers; tests/games/test_query_budgets.py counts it); this process
    # keeps them after that
    assert page.get(f"/games/{series.pk}/").status_code == 200
    with django_assert_max_num_queries(5):
        assert page.get(f"/games/{series.pk}/").status_code == 200
