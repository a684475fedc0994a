"""The Competition: levels of round-robin groups, seasons closed and started by Celery beat,
promotion and relegation, newcomers at the lowest level, removals; a season closed twice."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
import time_machine

from common.errors import Conflict, NotFound
from games.notifications.models import Notice
from tests.games.factories import race
from tournaments import services_formats as services
from tournaments.models import Competition, CompetitionMember, Group, GroupGame, GroupPlayer, Season
from tournaments.simulate import end_game
from tournaments.tasks import formats_tick, season_advance

from .formats_helpers import T0, players

pytestmark = pytest.mark.django_db


def index(user) -> int:
    return int(user.username[1:])


def stronger_wins(g: GroupGame) -> str:
    """The player with the lower index (c0 is the strongest) wins; c1 never moves: forfeits."""
    red, yellow = index(g.red.user), index(g.yellow.user)
    if 1 in (red, yellow):
        return "forfeit-white" if red == 1 else "forfeit-black"
    return "white" if red < yellow else "black"


def play_out(season: Season, when) -> None:
    for g in GroupGame.objects.filter(group__season=season, result="").select_related("game", "red__user",
                                                                                        "yellow__user"):
        end_game(g.game, stronger_wins(g), when)


def levels(season: Season) -> dict[int, list[list[str]]]:
    out: dict[int, list[list[str]]] = {}
    for group in season.groups.order_by("level", "number"):
        out.setdefault(group.level, []).append(sorted(p.user.username for p in group.players.all()))
    return out


def test_a_season_end_to_end_promotion_relegation_removals_and_the_next_season(
        eager, mailoutbox, django_capture_on_commit_callbacks):
    """Twelve players (c0 strongest) in groups of at most five: season 1 places them by rating,
    level 1 (five) and level 2 (seven: groups of 4 and 3). Every game ends (c1 never moves and
    loses all on time; c3 leaves during the season; "late" registers during it); the last game
    closes the season through the receivers and tasks: level 1's bottom two go down, each level-2
    group's winner goes up (a third of a group), c1 and c3 are out; three days later beat starts
    season 2 with everyone still registered, the vacancy at level 1 filled by the best level-2
    runner-up (c7: 2nd with 2 of 3, before c8: 2nd with 1 of 2), and the late registrant at the
    lowest level. Level 2 in order: stayers c8, c10, c9, c11 (by place, then score per game),
    the relegated c4, the newcomer: dealt in snake order A B B A A B."""
    c = Competition.objects.create(name="The Ladder", group_size=5, break_days=3, season_days=60, rated=False)
    users = players(12, prefix="c", ratings=[2000 - 10 * i for i in range(12)])
    users[6].language = "de"  # c6's emails are written in German (the names of the season and level too)
    users[6].save(update_fields=["language"])
    with time_machine.travel(T0, tick=False):
        for u in users:
            services.competition_join(user=u, competition_id=c.pk)
    c.refresh_from_db()
    assert c.next_season_at == T0 + timedelta(days=3)  # planned once enough players joined
    with time_machine.travel(T0 + timedelta(days=2), tick=False):
        assert formats_tick()["seasons_started"] == 0  # not yet
    with time_machine.travel(T0 + timedelta(days=3), tick=False), django_capture_on_commit_callbacks(execute=True):
        assert formats_tick()["seasons_started"] == 1
    season = Season.objects.get(competition=c)
    assert season.number == 1 and season.status == "playing"
    assert levels(season) == {1: [["c0", "c1", "c2", "c3", "c4"]],
                              2: [["c5", "c8", "c9"], ["c10", "c11", "c6", "c7"]]}  # snake: 5, 6 6, 5 5, ...
    assert all(g.status == "playing" for g in season.groups.all())
    assert GroupGame.objects.filter(group__season=season, game__isnull=False).count() == 10 + 3 + 6  # all at once
    subjects = Counter(m.subject for m in mailoutbox)
    assert subjects["The Ladder, season 1: you play in Level 1"] == 5
    assert subjects["The Ladder, season 1: you play in Level 2, group A"] == 3
    assert subjects["The Ladder, season 1: you play in Level 2, group B"] == 3
    assert subjects["The Ladder, Saison 1: du spielst in Stufe 2, Gruppe B"] == 1, subjects  # c6, in German

    with time_machine.travel(T0 + timedelta(days=4), tick=False):
        services.competition_join(user=players(1, prefix="late")[0], competition_id=c.pk)
        services.competition_leave(user=users[3], competition_id=c.pk)
        with pytest.raises(Conflict):
            services.competition_join(user=users[0], competition_id=c.pk)
    mailoutbox.clear()
    with time_machine.travel(T0 + timedelta(days=5), tick=False), django_capture_on_commit_callbacks(execute=True):
        play_out(season, T0 + timedelta(days=5))  # the last game_finished closes the groups, then the season
    season.refresh_from_db()
    c.refresh_from_db()
    assert season.status == "closed" and c.next_season_at == T0 + timedelta(days=5 + 3)
    moves = dict(GroupPlayer.objects.filter(group__season=season).values_list("user__username", "move"))
    assert moves == {"c0": "stay", "c2": "stay", "c3": "out", "c4": "down", "c1": "out",
                     "c5": "up", "c8": "stay", "c9": "stay", "c6": "up", "c7": "stay", "c10": "stay", "c11": "stay"}
    c1 = GroupPlayer.objects.get(group__season=season, user=users[1])
    assert (c1.rank, c1.games, c1.timeouts) == (5, 4, 4)
    assert CompetitionMember.objects.get(competition=c, user=users[1]).removal == "timeouts"
    subjects = {m.to[0]: m.subject for m in mailoutbox if m.subject.startswith("The Ladder, season 1 is over: ")}
    assert subjects["c4@example.com"] == "The Ladder, season 1 is over: you finished 4th of 5 and move down to level 2"
    assert subjects["c5@example.com"] == "The Ladder, season 1 is over: you finished 1st of 3 and move up to level 1"
    assert subjects["c0@example.com"] == "The Ladder, season 1 is over: you finished 1st of 5 and stay at level 1"
    assert "lost 4 of your 4 games on time" in subjects["c1@example.com"]
    german = [m.subject for m in mailoutbox if m.to == ["c6@example.com"] and "Saison 1" in m.subject]
    assert german == ["The Ladder, Saison 1 ist beendet: du bist 1. von 4 und steigst auf in Stufe 1"], german

    with time_machine.travel(T0 + timedelta(days=8), tick=False), django_capture_on_commit_callbacks(execute=True):
        assert formats_tick()["seasons_started"] == 1
        assert formats_tick()["seasons_started"] == 0  # run twice: one season 2
    second = Season.objects.get(competition=c, number=2)
    assert levels(second) == {1: [["c0", "c2", "c5", "c6", "c7"]],
                              2: [["c11", "c4", "c8"], ["c10", "c9", "late0"]]}
    assert not GroupPlayer.objects.filter(group__season=second, user__in=[users[1], users[3]]).exists()
    assert second.groups.filter(status="playing").count() == 3


def test_the_same_season_close_run_twice_changes_nothing_twice(eager, mailoutbox, django_capture_on_commit_callbacks):
    c = Competition.objects.create(name="Twice", group_size=5, break_days=2, rated=False)
    users = players(6, prefix="c", ratings=[2000 - 10 * i for i in range(6)])
    for u in users:
        services.competition_join(user=u, competition_id=c.pk, now=T0)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.competition_start_season(competition_id=c.pk, now=T0 + timedelta(days=2)) == "started"
        assert services.competition_start_season(competition_id=c.pk, now=T0 + timedelta(days=2)) == "nothing"
    season = Season.objects.get(competition=c)
    for g in season.groups.all():
        services.group_start(group_id=g.pk, now=T0 + timedelta(days=2))  # started by the receiver already
    with time_machine.travel(T0 + timedelta(days=3), tick=False):
        for g in GroupGame.objects.filter(group__season=season).select_related("game", "red__user", "yellow__user"):
            end_game(g.game, "white" if index(g.red.user) < index(g.yellow.user) else "black", T0 + timedelta(days=3))
        assert season_advance(season.pk) == "waiting"  # the groups have not recorded their results yet
        for g in season.groups.all():
            assert services.group_advance(group_id=g.pk) == "finished"
            assert services.group_advance(group_id=g.pk) == "nothing"
        with django_capture_on_commit_callbacks(execute=True):
            assert season_advance(season.pk) == "closed"
        moves = list(GroupPlayer.objects.filter(group__season=season).order_by("pk").values_list("move", flat=True))
        emails = Notice.objects.filter(event="group_over").count()
        with django_capture_on_commit_callbacks(execute=True):
            assert season_advance(season.pk) == "nothing"
            assert services.season_advance(season_id=season.pk, now=T0 + timedelta(days=4)) == "nothing"
            formats_tick()
    c.refresh_from_db()
    assert c.next_season_at == T0 + timedelta(days=3 + 2)  # not pushed again
    assert list(GroupPlayer.objects.filter(group__season=season).order_by("pk").values_list("move", flat=True)) == moves
    assert Notice.objects.filter(event="group_over").count() == emails == 6
    assert sum(m.subject.startswith("Twice, season 1 is over: ") for m in mailoutbox) == 6


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_closing_and_starting_seasons_at_once_do_it_once():
    """Threads on PostgreSQL: two season closes at once close it once; two season starts at once
    make one season (the row lock, and the one-playing-season constraint behind it)."""
    c = Competition.objects.create(name="Race", group_size=5, break_days=1, rated=False)
    for u in players(4, prefix="c"):
        services.competition_join(user=u, competition_id=c.pk, now=T0)
    starts = race([lambda: services.competition_start_season(competition_id=c.pk, now=T0 + timedelta(days=1))] * 2)
    assert sorted(starts) == ["nothing", "started"], starts
    season = Season.objects.get(competition=c)
    group = season.groups.get()
    assert sorted(race([lambda: services.group_start(group_id=group.pk, now=T0 + timedelta(days=1))] * 2)) == [
        False, True]
    with time_machine.travel(T0 + timedelta(days=2), tick=False):
        for g in group.games.select_related("game"):
            end_game(g.game, "white", T0 + timedelta(days=2))
    assert services.group_advance(group_id=group.pk, now=T0 + timedelta(days=2)) == "finished"
    closes = race([lambda: services.season_advance(season_id=season.pk, now=T0 + timedelta(days=2))] * 3)
    assert sorted(closes) == ["closed", "nothing", "nothing"], closes
    assert Notice.objects.filter(event="group_over", key=f"season:{season.pk}:over").count() == 4
    assert Season.objects.filter(competition=c).count() == 1


def test_joining_and_leaving(django_capture_on_commit_callbacks):
    c = Competition.objects.create(name="Door", min_players=3, break_days=3)
    a, b, d = players(3, prefix="j")
    services.competition_join(user=a, competition_id=c.pk, now=T0)
    services.competition_join(user=b, competition_id=c.pk, now=T0)
    c.refresh_from_db()
    assert c.next_season_at is None  # two players: nothing planned
    services.competition_leave(user=b, competition_id=c.pk, now=T0)
    with pytest.raises(NotFound):
        services.competition_leave(user=b, competition_id=c.pk, now=T0)
    services.competition_join(user=b, competition_id=c.pk, now=T0 + timedelta(hours=1))  # rejoins
    services.competition_join(user=d, competition_id=c.pk, now=T0 + timedelta(hours=2))
    c.refresh_from_db()
    assert c.next_season_at == T0 + timedelta(hours=2, days=3)
    assert CompetitionMember.objects.filter(competition=c, active=True).count() == 3
    services.competition_leave(user=d, competition_id=c.pk, now=T0 + timedelta(days=1))  # down to two again
    assert services.competition_start_season(competition_id=c.pk, now=T0 + timedelta(days=4)) == "waiting"
    c.refresh_from_db()
    assert c.next_season_at is None and not c.seasons.exists()
    with pytest.raises(NotFound):
        services.competition_join(user=d, competition_id=10**6)


def test_level_sizes_and_moves_for_small_groups():
    """docs/tournaments.md: levels fill from the top (1, 2, 4, ... groups of the group size), the
    lowest has as few groups as it needs and at least three players; at most a third of a group
    goes up and at most half goes down."""
    assert services.level_plan(2, 11) == []
    assert services.level_plan(11, 11) == [(11, 1)]
    assert services.level_plan(13, 11) == [(10, 1), (3, 1)]
    assert services.level_plan(60, 11) == [(11, 1), (22, 2), (27, 3)]
    for players_count in range(3, 400):
        plan = services.level_plan(players_count, 11)
        assert sum(n for n, _ in plan) == players_count
        for level, (n, groups) in enumerate(plan, 1):
            assert groups <= 2 ** (level - 1) and n >= 3 * groups and n <= 11 * groups
    assert services.moves_for(8, 2, 3, 2, 4) == (2, 4)
    assert services.moves_for(6, 2, 3, 2, 4) == (2, 3)
    assert services.moves_for(4, 2, 3, 2, 4) == (1, 2)
    assert services.moves_for(11, 1, 1, 2, 4) == (0, 0)  # a single level: nobody moves
    assert Group.objects.count() == 0


def test_staff_set_the_competitions_numbers_in_the_admin(client):
    """Its numbers are checked: a group of fewer than five could not lend the level below its
    last players and keep three (docs/tournaments.md)."""
    staff = players(1, prefix="staff")[0]
    staff.is_staff = staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    c = Competition.objects.create(name="Admin")
    form = {"name": "Admin", "description": "", "group_size": 4, "promote": 2, "relegate": 4, "break_days": 3,
            "season_days": 150, "min_players": 3, "days_per_move": 3, "grace_days": 7, "vacation_allowed": "on",
            "rated": "on", "lake_side": "standard", "next_season_at_0": "", "next_season_at_1": ""}
    refused = client.post(f"/admin/tournaments/competition/{c.pk}/change/", form)
    assert refused.status_code == 200 and "greater than or equal to 5" in refused.content.decode()
    saved = client.post(f"/admin/tournaments/competition/{c.pk}/change/", {**form, "group_size": 9})
    assert saved.status_code == 302
    c.refresh_from_db()
    assert c.group_size == 9


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_runs_a_season_from_start_to_close_and_starts_the_next(mailoutbox):
    """Real Celery (a worker thread on the Redis broker): beat's tick starts the season, the
    receivers' tasks start its group, close it when the last game ends and close the season;
    the tick run twice afterwards starts one season 2, with the player who joined meanwhile."""
    import time

    from celery.contrib.testing.worker import start_worker
    from django.utils import timezone

    from powerboats_site.celery import app

    def wait_for(check, seconds: float = 30) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if check():
                return True
            time.sleep(0.2)
        return False

    c = Competition.objects.create(name="Worker", group_size=5, break_days=0, rated=False)
    users = players(3, prefix="w")
    for u in users:
        services.competition_join(user=u, competition_id=c.pk)
    Competition.objects.filter(pk=c.pk).update(next_season_at=timezone.now() - timedelta(minutes=1))
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=20):
        formats_tick.delay()
        assert wait_for(lambda: GroupGame.objects.filter(group__season__competition=c, game__isnull=False).count() == 3)
        services.competition_join(user=players(1, prefix="late")[0], competition_id=c.pk)
        for g in GroupGame.objects.filter(group__season__competition=c).select_related("game", "red__user"):
            end_game(g.game, "white", timezone.now())
        assert wait_for(lambda: Season.objects.filter(competition=c, status="closed").exists())
        formats_tick.delay()
        formats_tick.delay()
        assert wait_for(lambda: GroupGame.objects.filter(group__season__number=2, group__season__competition=c,
                                                         game__isnull=False).count() == 6)
        assert wait_for(lambda: sum(m.subject.startswith("Worker, season 1 is over: ") for m in mailoutbox) == 3)
        # the group's start emails are tasks of their own: wait for them too, not only for the games
        assert wait_for(lambda: sum(m.subject == "Worker, season 2: you play in Level 1" for m in mailoutbox) == 4), \
            sorted(m.subject for m in mailoutbox)
    seasons = list(Season.objects.filter(competition=c).order_by("number").values_list("number", "status"))
    assert seasons == [(1, "closed"), (2, "playing")]
    second = Season.objects.get(competition=c, number=2)
    assert sorted(second.groups.get().players.values_list("user__username", flat=True)) == ["late0", "w0", "w1", "w2"]
