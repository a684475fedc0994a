"""Round-robin tournaments: groups by the Berger tables, every game at once or round by round,
standings (score, SB, DE, WIN, buoy points, damage), deadlines, the final group, run by Celery."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
import time_machine

from common.errors import Conflict, ServiceError
from games.models import Game, Seat
from tournaments import berger, selectors_formats, standings, trf
from tournaments import services_formats as services
from tournaments.models import Group, GroupGame, GroupPlayer, RoundRobin
from tournaments.simulate import end_game
from tournaments.tasks import formats_tick

from .formats_helpers import T0, finish, lower_number_wins, players, red_wins, round_robin

pytestmark = pytest.mark.django_db


def start(capture, when=T0) -> dict[str, int]:
    with time_machine.travel(when, tick=False), capture(execute=True):
        return formats_tick()


def test_a_round_robin_runs_itself_every_game_at_once(eager, mailoutbox, django_capture_on_commit_callbacks):
    """Beat starts it: one group of five (an odd number: each rests once), all ten games at once
    with the time control, each player emailed their group; games ending close the group, then
    the tournament, and everyone hears their place. Ticks run twice change nothing twice."""
    rr, users = round_robin(5, days_per_move=5, rated=False)
    with time_machine.travel(T0 - timedelta(minutes=1), tick=False):
        assert formats_tick()["round_robins_started"] == 0  # not yet
    done = start(django_capture_on_commit_callbacks)
    assert done["round_robins_started"] == 1
    assert start(django_capture_on_commit_callbacks)["round_robins_started"] == 0
    rr.refresh_from_db()
    group = rr.groups.get()
    assert rr.status == "running" and group.status == "playing" and group.rounds == 5
    assert group.deadline == T0 + timedelta(days=rr.deadline_days)
    games = Game.objects.filter(group_game__group=group)
    assert games.count() == 10 == GroupGame.objects.filter(group=group).count()
    assert all(g.days_per_move == 5 and not g.rated and not g.vacation_allowed for g in games)
    per_player = Counter(u for g in games for u in g.player_ids)
    assert set(per_player.values()) == {4}
    # the pairings are the Berger table of five by start number (Red first)
    numbers = {p.pk: p.number for p in group.players.all()}
    schedule = [[(numbers[g.red_id], numbers[g.yellow_id]) for g in group.games.filter(round=r).order_by("pk")]
                for r in range(1, 6)]
    assert schedule == berger.table(5)
    starts = [m for m in mailoutbox if m.subject == "Autumn round-robin: you play in Group A"]
    assert sorted(m.to[0] for m in starts) == sorted(u.email for u in users)
    assert "4 games" not in starts[0].body and starts[0].body.count("/games/") == 4

    with time_machine.travel(T0 + timedelta(hours=1), tick=False), django_capture_on_commit_callbacks(execute=True):
        finish(group, lower_number_wins)  # game_finished → group_advance → round_robin_advance
    group.refresh_from_db()
    rr.refresh_from_db()
    assert group.status == "finished" and rr.status == "finished"
    table = selectors_formats.group_table(group)
    assert [(r.player.number, r.score, r.rank) for r in table.rows] == [(1, 4.0, 1), (2, 3.0, 2), (3, 2.0, 3),
                                                                       (4, 1.0, 4), (5, 0.0, 5)]
    assert list(GroupPlayer.objects.filter(group=group).order_by("number").values_list("rank", "score", "games")) == [
        (1, 4.0, 4), (2, 3.0, 4), (3, 2.0, 4), (4, 1.0, 4), (5, 0.0, 4)]
    over = [m for m in mailoutbox if m.subject.startswith("Autumn round-robin is over: you finished")]
    assert len(over) == 5 and any("you finished 1st of 5" in m.subject for m in over)
    assert start(django_capture_on_commit_callbacks, T0 + timedelta(hours=2)) == {
        "round_robins_started": 0, "seasons_started": 0, "groups_started": 0, "groups_advanced": 0, "closed": 0}


def test_a_double_round_robin_plays_every_pair_twice_with_the_colours_reversed(eager,
                                                                               django_capture_on_commit_callbacks):
    rr, _ = round_robin(4, double=True)
    start(django_capture_on_commit_callbacks)
    group = Group.objects.get(round_robin=rr)
    assert group.rounds == 6 and group.games.count() == 12
    numbers = {p.pk: p.number for p in group.players.all()}
    rounds = {r: [(numbers[g.red_id], numbers[g.yellow_id]) for g in group.games.filter(round=r).order_by("pk")]
              for r in range(1, 7)}
    table = berger.table(4)
    for k in range(3):  # C.05 Annex 1: the second cycle is the first with the colours reversed
        assert rounds[4 + k] == [(b, a) for a, b in table[k]]
    assert [rounds[1], rounds[2], rounds[3]] == [table[0], table[2], table[1]]  # last two rounds exchanged
    colours = Counter((g.red_id, g.yellow_id) for g in group.games.all())
    assert all(colours[(b, a)] == 1 for a, b in colours)


def test_groups_are_seeded_by_rating_in_snake_order_and_the_winners_play_a_final(
        eager, mailoutbox, django_capture_on_commit_callbacks):
    ratings = [2000 - 10 * i for i in range(9)]  # player0 is the strongest
    rr, _ = round_robin(9, ratings=ratings, group_count=3, final_group=True, max_players=60)
    start(django_capture_on_commit_callbacks)
    groups = list(rr.groups.order_by("number"))
    members = [sorted(u.username for u in (p.user for p in g.players.all())) for g in groups]
    assert members == [["player0", "player5", "player6"], ["player1", "player4", "player7"],
                       ["player2", "player3", "player8"]]
    for g in groups:  # a group of three: three rounds, one game each, each player rests once
        assert g.rounds == 3 and g.games.count() == 3
    with time_machine.travel(T0 + timedelta(hours=1), tick=False), django_capture_on_commit_callbacks(execute=True):
        for g in groups[:2]:
            finish(g, lower_number_wins)
    rr.refresh_from_db()
    assert rr.status == "running" and not rr.groups.filter(final=True).exists()  # group C still plays
    with time_machine.travel(T0 + timedelta(hours=2), tick=False), django_capture_on_commit_callbacks(execute=True):
        finish(groups[2], lower_number_wins)
    final = rr.groups.get(final=True)
    winners = {g.players.get(number=1).user_id for g in groups}
    assert set(final.players.values_list("user_id", flat=True)) == winners
    assert final.status == "playing" and final.games.count() == 3 and final.name == "Final"
    assert any(m.subject == "Autumn round-robin: you play in Final" for m in mailoutbox)
    with time_machine.travel(T0 + timedelta(hours=3), tick=False), django_capture_on_commit_callbacks(execute=True):
        finish(final, red_wins)
    rr.refresh_from_db()
    assert rr.status == "finished"


def test_too_few_players_for_the_groups_asked_for_makes_fewer_groups_and_too_few_cancels(
        eager, django_capture_on_commit_callbacks):
    rr, _ = round_robin(7, group_count=4, max_players=80)
    start(django_capture_on_commit_callbacks)
    assert sorted(g.players.count() for g in rr.groups.all()) == [3, 4]  # 7 // 3 = 2 groups
    small, _ = round_robin(0, name="Small")
    for u in players(2, prefix="few"):
        services.round_robin_register(user=u, round_robin_id=small.pk, now=T0 - timedelta(days=1))
    start(django_capture_on_commit_callbacks)
    small.refresh_from_db()
    assert small.status == "cancelled" and not small.groups.exists()


def test_round_by_round_each_round_has_a_deadline_and_starts_when_the_last_one_is_complete(
        eager, mailoutbox, django_capture_on_commit_callbacks):
    rr, _ = round_robin(4, pace="rounds", round_days=7)
    start(django_capture_on_commit_callbacks)
    group = rr.groups.get()
    assert group.current_round == 1 and group.deadline == T0 + timedelta(days=7)
    assert group.games.filter(game__isnull=False).count() == 2 and group.games.count() == 6
    with time_machine.travel(T0 + timedelta(days=1), tick=False), django_capture_on_commit_callbacks(execute=True):
        finish(group, red_wins)  # round 1 complete: round 2 is created at once
    group.refresh_from_db()
    assert group.current_round == 2 and group.deadline == T0 + timedelta(days=8)
    assert list(group.games.filter(game__isnull=False).values_list("round", flat=True)) == [1, 1, 2, 2]
    assert sum(m.subject == "New pairing: round 2 of Autumn round-robin, Group A" for m in mailoutbox) == 4
    # round 2 is not played: at its deadline the games are adjudicated (nothing scored: drawn) and round 3 starts
    assert services.group_advance(group_id=group.pk, now=T0 + timedelta(days=7)) == "waiting"
    with django_capture_on_commit_callbacks(execute=True):
        assert services.group_advance(group_id=group.pk, now=T0 + timedelta(days=8)) == "paired"
    round2 = list(group.games.filter(round=2).select_related("game"))
    assert [g.result for g in round2] == ["=", "="] and all(g.game.termination == "adjudication" for g in round2)
    with time_machine.travel(T0 + timedelta(days=9), tick=False), django_capture_on_commit_callbacks(execute=True):
        finish(group, red_wins)
    group.refresh_from_db()
    rr.refresh_from_db()
    assert group.status == "finished" and rr.status == "finished"


def test_unfinished_games_at_the_final_deadline_are_adjudicated(eager, django_capture_on_commit_callbacks):
    """As in a Swiss (docs/tournaments.md): more points (R14), then buoys, then less damage, else a
    draw; a clock that ran out before the deadline decides first (the game is lost on time)."""
    rr, _ = round_robin(3, deadline_days=5)  # 3 days per move + 7 days grace: no clock runs out by day 5
    start(django_capture_on_commit_callbacks)
    group = rr.groups.get()
    first = group.games.order_by("round").first()
    with time_machine.travel(T0 + timedelta(hours=1), tick=False), django_capture_on_commit_callbacks(execute=True):
        end_game(first.game, "white", T0 + timedelta(hours=1))
    group.refresh_from_db()
    assert group.status == "playing" and group.games.filter(result="1").count() == 1
    assert services.group_advance(group_id=group.pk, now=T0 + timedelta(days=4)) == "waiting"
    with time_machine.travel(T0 + timedelta(days=5), tick=False), django_capture_on_commit_callbacks(execute=True):
        assert formats_tick()["groups_advanced"] == 1  # the beat finds the group at its deadline
    group.refresh_from_db()
    rr.refresh_from_db()
    assert group.status == "finished" and rr.status == "finished"
    results = list(group.games.order_by("round").values_list("result", "game__termination"))
    assert results == [("1", "resign"), ("=", "adjudication"), ("=", "adjudication")]


def test_registration_rules(eager, django_capture_on_commit_callbacks):
    rr, users = round_robin(3, max_players=4)
    with pytest.raises(Conflict, match="registered already"):
        services.round_robin_register(user=users[0], round_robin_id=rr.pk, now=T0 - timedelta(days=1))
    extra = players(2, prefix="extra")
    services.round_robin_register(user=extra[0], round_robin_id=rr.pk, now=T0 - timedelta(days=1))
    with pytest.raises(Conflict, match="full"):
        services.round_robin_register(user=extra[1], round_robin_id=rr.pk, now=T0 - timedelta(days=1))
    services.round_robin_withdraw(user=extra[0], round_robin_id=rr.pk)
    with pytest.raises(Conflict, match="registration is closed"):
        services.round_robin_register(user=extra[1], round_robin_id=rr.pk, now=T0)
    start(django_capture_on_commit_callbacks)
    with pytest.raises(Conflict, match="has started"):
        services.round_robin_withdraw(user=users[0], round_robin_id=rr.pk)
    assert RoundRobin.objects.get(pk=rr.pk).entries.count() == 3


@pytest.mark.parametrize("fields, field", [
    ({"name": " "}, "name"), ({"name": "Spring\u0000cup"}, "name"), ({"name": "Spring\u200bcup"}, "name"),
    ({"group_count": 0}, "group_count"), ({"final_group": True}, "final_group"),
    ({"min_players": 2}, "min_players"), ({"max_players": 21}, "max_players"), ({"pace": "fast"}, "pace"),
    ({"days_per_move": 4}, "days_per_move"), ({"lake_side": "sea"}, "lake_side"), ({"deadline_days": 0}, "deadline_days"),
    ({"starts_at": T0 - timedelta(days=3)}, "registration_closes_at"),
])
def test_a_bad_setting_is_refused_and_creates_nothing(fields, field):
    director = players(1, prefix="td")[0]
    options = dict(name="Bad", registration_closes_at=T0 - timedelta(hours=1), starts_at=T0)
    options.update(fields)
    with pytest.raises(ServiceError) as refused:
        services.round_robin_create(director=director, **options)
    assert refused.value.field == field and not RoundRobin.objects.exists()


def test_standings_score_then_sonneborn_berger_direct_encounter_wins_buoy_points_damage():
    """A group of four, worked by hand. Results (row against column):
    A beats B, draws C, loses to D: 1.5.   B beats C and D: 2.   C beats D: 1.5 (½ from A).  D: 1.
    Scores A 1.5, B 2, C 1.5, D 1. A and C are tied on 1.5:
    SB (C.07 9.1): A = 1·2 (B) + ½·1.5 (C) + 0·1 = 2.75; C = ½·1.5 (A) + 0·2 + 1·1 (D) = 1.75 → A ahead.
    Then the same scores with SB equal are broken by DE, WIN and, last, buoy points and damage (R14)."""
    from tests.games.factories import make_game

    users = players(4, prefix="t")
    director = players(1, prefix="td")[0]
    rr = services.round_robin_create(director=director, name="By hand", registration_closes_at=T0, starts_at=T0)
    group = Group.objects.create(round_robin=rr, number=1, rounds=3, status="finished")
    gp = [GroupPlayer.objects.create(group=group, user=u, number=i + 1) for i, u in enumerate(users)]
    a, b, c, d = gp
    plan = [(1, a, b, "1"), (1, c, d, "1"), (2, a, c, "="), (2, b, d, "1"), (3, d, a, "1"), (3, b, c, "1")]
    for number, red, yellow, result in plan:
        game = make_game(yellow=yellow.user, red=red.user)
        Game.objects.filter(pk=game.pk).update(status="finished")
        GroupGame.objects.create(group=group, round=number, red=red, yellow=yellow, game=game, result=result)
    rows = selectors_formats.group_table(group).rows
    assert [(r.player.number, r.score, r.values["SB"], r.rank) for r in rows] == [
        (2, 2.0, 2.5, 1), (1, 1.5, 2.75, 2), (3, 1.5, 1.75, 3), (4, 1.0, 1.5, 4)]
    # B's SB: beat C (1.5) and D (1) = 2.5; D's: beat A (1.5) = 1.5
    assert rows[0].wins == 2 and rows[1].wins == rows[2].wins == 1 and rows[1].draws == 1

    # now make A and C equal on SB too: C's game against D becomes a draw and B-C a C win.
    GroupGame.objects.filter(group=group, red=c, yellow=d).update(result="=")
    GroupGame.objects.filter(group=group, red=b, yellow=c).update(result="0")
    rows = {r.player.number: r for r in selectors_formats.group_table(group).rows}
    # scores: A 1.5, B 1, C 2, D 1.5
    assert {n: r.score for n, r in rows.items()} == {1: 1.5, 2: 1.0, 3: 2.0, 4: 1.5}
    # A: 1·1 (B) + ½·2 (C) = 2;  D: ½·2 (C) + 1·1.5 (A) = 2.5 → D ahead of A on SB
    assert rows[1].values["SB"] == 2.0 and rows[4].values["SB"] == 2.5 and rows[4].rank < rows[1].rank


def test_buoy_points_and_damage_break_what_the_results_cannot():
    """Three players, every game drawn: equal on score, SB, DE (all drew) and wins. Game points
    (R14) decide, then damage (less is better)."""
    from tests.games.factories import make_game

    users = players(3, prefix="d")
    director = players(1, prefix="td")[0]
    rr = services.round_robin_create(director=director, name="Draws", registration_closes_at=T0, starts_at=T0)
    group = Group.objects.create(round_robin=rr, number=1, rounds=3, status="finished")
    gp = [GroupPlayer.objects.create(group=group, user=u, number=i + 1) for i, u in enumerate(users)]
    points = {0: (1, 3), 1: (2, 0), 2: (1, 1)}  # per player per game: game points, damage
    for number, [(red, yellow)] in enumerate(berger.table(3), 1):  # one game a round, one player resting
        r, y = gp[red - 1], gp[yellow - 1]
        game = make_game(yellow=y.user, red=r.user)
        Game.objects.filter(pk=game.pk).update(status="finished")
        for seat, p in ((1, r), (0, y)):
            Seat.objects.filter(game=game, index=seat).update(points=points[p.number - 1][0],
                                                              damage=points[p.number - 1][1])
        GroupGame.objects.create(group=group, round=number, red=r, yellow=y, game=game, result="=")
    rows = selectors_formats.group_table(group).rows
    assert [r.player.number for r in rows] == [2, 3, 1]  # 4 buoy points; then 2 and 2: damage 2 beats 6
    assert [(r.buoy_points, r.damage) for r in rows] == [(4, 0), (2, 2), (2, 6)]
    assert [r.rank for r in rows] == [1, 2, 3] and all(r.values["DE"] == 0 for r in rows)


def test_a_rest_counts_nothing_in_a_round_robin_though_a_swiss_counts_it_as_a_draw():
    """tournaments.standings with round_robin: C.07 16.3 (a player's rounds without a game after
    their last game count as draws in their score as an opponent) is a Swiss rule for missed
    rounds; in a group of three, player 2 rests in the last round of the Berger table (R1 2-3,
    R2 1-2, R3 3-1) and must not be worth 1.5 as an opponent. Results: 2 beats 3, 1 beats 2,
    3 beats 1: everyone 1 point, and every SB 1 (each beat a player with 1)."""
    rest = trf.NOT_PAIRED
    t = trf.Tournament(name="Rest", rounds=3, players=[
        trf.Player(1, "A", 1500, [rest, trf.Cell(2, "w", "1"), trf.Cell(3, "b", "0")]),
        trf.Player(2, "B", 1500, [trf.Cell(3, "w", "1"), trf.Cell(1, "b", "0"), rest]),
        trf.Player(3, "C", 1500, [trf.Cell(2, "b", "0"), rest, trf.Cell(1, "w", "1")]),
    ])
    t = trf.parse(trf.dump(t))  # as the command reads it
    swiss = {s.number: s.values["SB"] for s in standings.compute(t, ["SB"], rounds=3)}
    group = {s.number: s.values["SB"] for s in standings.compute(t, ["SB"], rounds=3, round_robin=True)}
    assert group == {1: 1.0, 2: 1.0, 3: 1.0}
    assert swiss[1] == 1.5  # the Swiss rule: B's trailing rest counted as a draw


def test_the_standings_command_ranks_a_round_robin(tmp_path):
    """python -m tournaments.standings FILE --round-robin: the round-robin order (SB DE WIN BUOYS
    DMG) by default, rests counting nothing; here the game points (PBS, R14) decide."""
    rest = trf.NOT_PAIRED
    t = trf.Tournament(name="Rest", rounds=3, players=[
        trf.Player(1, "A", 1500, [rest, trf.Cell(2, "w", "1"), trf.Cell(3, "b", "0")]),
        trf.Player(2, "B", 1500, [trf.Cell(3, "w", "1"), trf.Cell(1, "b", "0"), rest]),
        trf.Player(3, "C", 1500, [trf.Cell(2, "b", "0"), rest, trf.Cell(1, "w", "1")]),
    ], buoys_damage={1: (3, 0), 2: (5, 1), 3: (4, 0)})
    path = tmp_path / "group.trf"
    path.write_text(trf.dump(t), encoding="utf-8")
    lines: list[str] = []
    assert standings.main([str(path), "--round-robin", "--csv"], out=lines.append) == 0
    assert "".join(lines).splitlines() == ["rank,start_no,PTS,SB,DE,WIN,BUOYS,DMG", "1,2,1.0,1.0,0,1,5,1",
                                           "2,3,1.0,1.0,0,1,4,0", "3,1,1.0,1.0,0,1,3,0"]
