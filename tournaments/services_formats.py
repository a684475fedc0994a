"""Writes for round-robin tournaments and the Competition (docs/tournaments.md).

Both are made of round-robin *groups* (``Group``): players with Berger start numbers drawn by
lot, the whole schedule stored when the group is drawn, games created when the group starts (all
at once, or round by round), results recorded as games end, unfinished games adjudicated at the
deadline, then the group finishes and its event (the round-robin, or the Competition's season)
moves on.

Every function owns its transaction. Those that move something along lock its row first
(``select_for_update``) and check its state again, so a task that runs twice, or two workers at
once, change nothing twice: a group is started once, a season closed once, the next season
created once (a unique constraint allows one playing season per competition). Lock order, where
two rows are locked: a group before a game (adjudication), a season before its competition.
After the commit, events (``tournaments.signals``) tell the receivers, which queue the next task.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.names import validate_display_name
from common.errors import Conflict, NotAPlayer, NotFound, ServiceError
from games import clock
from games import services as game_services
from games.engine import new_course
from games.models import Game
from games.notifications.notices import notify
from games.ratings.models import Rating
from games.state import course_data

from . import berger
from .models import (
    Competition,
    CompetitionMember,
    Group,
    GroupGame,
    GroupPlayer,
    Pace,
    RoundRobin,
    RoundRobinEntry,
    Season,
    Tournament,
)
from .selectors_formats import group_table
from .services import _result_code, check_clock, check_days, on_its_own
from .signals import group_finished, groups_drawn

log = logging.getLogger(__name__)

MIN_GROUP = 3  # a round-robin group has at least three players (a final of two winners excepted)
MAX_GROUP = 20  # and at most twenty
MAX_GROUPS = 50


def _ratings(user_ids: Sequence[int]) -> dict[int, float]:
    return dict(Rating.objects.filter(user_id__in=user_ids).values_list("user_id", "rating"))


# --- a group's rules, from its event --------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    title: str  # "Spring round-robin", "The Competition, season 3"
    days_per_move: int
    grace_days: int
    vacation_allowed: bool
    rated: bool
    lake_side: str
    deadline_days: int  # every game at once: the group's deadline
    round_days: int  # round by round: each round's deadline
    courses: dict[str, Any]  # duplicate mode: round → course
    competition: str | None = None  # the Competition's name, for a season's group
    season: int | None = None  # its number
    terms: dict[str, Any] = field(default_factory=dict)  # the clock's other terms (games.clock.TERMS)

    def names(self) -> dict[str, Any]:
        """What an email names the event by, in words it can put in the reader's language
        (games.notifications.emails.title_text): "The Competition, season 3" is said in German as
        "Die Liga, Saison 3"; ``title`` is the English, for what reads the entry as it was."""
        if self.season is None:
            return {"title": self.title}
        return {"title": self.title, "competition": self.competition, "season": self.season,
                "competition_default": self.competition == Competition.DEFAULT_NAME}


def rules_of(group: Group) -> Rules:
    if group.round_robin_id:
        rr = group.round_robin
        assert rr is not None
        return Rules(rr.name, rr.days_per_move, rr.grace_days, rr.vacation_allowed, rr.rated, rr.lake_side,
                     rr.deadline_days, rr.round_days, rr.courses or {}, terms=clock.terms(rr))
    season = group.season
    assert season is not None
    c = season.competition
    return Rules(f"{c.name}, season {season.number}", c.days_per_move, c.grace_days, c.vacation_allowed, c.rated,
                 c.lake_side, c.season_days, c.season_days, {}, competition=c.name, season=season.number,
                 terms=clock.terms(c))


def _draw(*, players: Sequence[tuple[Any, float]], number: int, double: bool, pace: str, rng: random.Random,
          round_robin: RoundRobin | None = None, season: Season | None = None, level: int = 0,
          final: bool = False) -> Group:
    """A new group (waiting): start numbers drawn by lot (FIDE C.05), and its whole schedule from
    the Berger tables. Its games are created when it starts (``group_start``)."""
    order = list(players)
    rng.shuffle(order)
    group = Group.objects.create(round_robin=round_robin, season=season, number=number, level=level, final=final,
                                 double=double, pace=pace, rounds=berger.rounds_for(len(order), double=double))
    places = GroupPlayer.objects.bulk_create(
        [GroupPlayer(group=group, user=user, number=i, rating=rating) for i, (user, rating) in enumerate(order, 1)])
    by_number = {p.number: p for p in places}
    GroupGame.objects.bulk_create([
        GroupGame(group=group, round=r, red=by_number[a], yellow=by_number[b])
        for r, pairs in enumerate(berger.schedule(len(order), double=double), 1) for a, b in pairs
    ])
    return group


def _locked_group(group_id: int) -> Group | None:
    return (Group.objects.select_for_update(of=("self",)).select_related("round_robin", "season__competition")
            .filter(pk=group_id).first())


def _create_games(group: Group, rules: Rules, rounds: Sequence[int]) -> list[GroupGame]:
    """The games of ``rounds`` (those not created yet), with the event's time control and lake."""
    pairings = list(group.games.filter(round__in=rounds, game__isnull=True).select_related("red__user", "yellow__user"))
    for g in pairings:
        g.game = game_services.game_create(
            yellow=g.yellow.user, red=g.red.user, lake_side=rules.lake_side, days_per_move=rules.days_per_move,
            grace_days=rules.grace_days, vacation_allowed=rules.vacation_allowed, rated=rules.rated,
            course_json=rules.courses.get(str(g.round)), terms=rules.terms,
        )
    GroupGame.objects.bulk_update(pairings, ["game"])
    return pairings


def group_start(*, group_id: int, now: datetime | None = None) -> bool:
    """Start a drawn group: create every game (every game at once) or round 1's (round by round),
    set the deadline and email each player their group and games. Returns whether this call did."""
    now = now or timezone.now()
    with transaction.atomic():
        group = _locked_group(group_id)
        if group is None or group.status != Group.Status.WAITING:
            return False
        rules = rules_of(group)
        at_once = group.pace == Pace.AT_ONCE
        group.status = Group.Status.PLAYING
        group.started_at = now
        group.current_round = group.rounds if at_once else 1
        group.deadline = now + timedelta(days=rules.deadline_days if at_once else rules.round_days)
        group.save(update_fields=["status", "started_at", "current_round", "deadline"])
        created = _create_games(group, rules, range(1, group.current_round + 1))
        players = list(group.players.select_related("user"))
        path = reverse("group", args=[group.pk])
        for p in players:
            games = [{"game": g.game_id, "path": reverse("game", args=[g.game_id]), "round": g.round, "color": "Red" if g.red_id == p.pk else "Yellow",
                      "opponent": (g.yellow if g.red_id == p.pk else g.red).user.username}
                     for g in created if p.pk in (g.red_id, g.yellow_id)]
            notify(p.user, "group_start", f"group:{group.pk}:start", {
                **rules.names(), "group": group.name, "path": path, "players": len(players),
                "opponents": sorted(q.user.username for q in players if q.pk != p.pk), "games": games,
                "at_once": at_once, "rounds": group.rounds, "deadline": f"{group.deadline:%Y-%m-%d %H:%M} UTC",
            })
        return True


def _record_results(group: Group) -> list[GroupGame]:
    """Copy the results of the group's ended games into its pairings; returns those still going."""
    going = []
    for g in group.games.filter(result="", game__isnull=False).select_related("game", "red"):
        game = g.game
        assert game is not None
        if not game.over:
            going.append(g)
            continue
        g.result = _result_code(game, g.red)  # Red's side (it has a user_id, as a registration)
        g.save(update_fields=["result"])
    return going


def group_advance(*, group_id: int, now: datetime | None = None) -> str:
    """Move a playing group along: record the results of its ended games; at the deadline
    adjudicate those still going (as in a Swiss: points R14, buoys, damage, else a draw); round by
    round, start the next round when one is complete; finish when every game has ended. Safe to
    run any number of times. Returns what it did: nothing, waiting, paired, finished."""
    now = now or timezone.now()
    with transaction.atomic():
        group = _locked_group(group_id)
        if group is None or group.status != Group.Status.PLAYING:
            return "nothing"
        going = _record_results(group)
        if going:
            if group.deadline is not None and now < group.deadline:
                return "waiting"
            for g in going:
                assert g.game_id is not None
                game_services.game_adjudicate(game_id=g.game_id, now=now)
            _record_results(group)
        rules = rules_of(group)
        if group.current_round < group.rounds:  # round by round: the next round
            group.current_round += 1
            group.deadline = now + timedelta(days=rules.round_days)
            group.save(update_fields=["current_round", "deadline"])
            for g in _create_games(group, rules, [group.current_round]):
                assert g.game is not None
                for me, other, colour in ((g.red, g.yellow, "red"), (g.yellow, g.red, "yellow")):
                    notify(me.user, "pairing", f"group:{group.pk}:round:{g.round}", {
                        "game": g.game_id, "round": g.round, "tournament_name": f"{rules.title}, {group.name}",
                        **rules.names(), "group": group.name,
                        "opponent_name": other.user.username, "color": colour.capitalize(),
                    })
            return "paired"
        _finish_group(group, rules, now)
        return "finished"


def _finish_group(group: Group, rules: Rules, now: datetime) -> None:
    """Write each player's place, score, games and time-outs; a round-robin's players hear at
    once (the Competition's when the season closes, with their promotion or relegation)."""
    group.status = Group.Status.FINISHED
    group.finished_at = now
    group.save(update_fields=["status", "finished_at"])
    table = group_table(group)
    for row in table.rows:
        row.player.rank, row.player.score = row.rank, row.score
        row.player.games, row.player.timeouts = row.played, row.timeouts
    GroupPlayer.objects.bulk_update([r.player for r in table.rows], ["rank", "score", "games", "timeouts"])
    if group.round_robin_id:
        podium = ", ".join(f"{r.rank}. {r.username} ({r.score:g})" for r in table.rows[:3])
        for row in table.rows:
            notify(row.player.user, "group_over", f"group:{group.pk}:over", {
                **rules.names(), "group": group.name, "path": reverse("group", args=[group.pk]),
                "rank": row.rank, "players": len(table.rows), "score": row.score, "podium": podium,
                "place": {"rank": row.rank, "players": len(table.rows)},
            })
    ids = (group.pk, group.round_robin_id, group.season_id)
    transaction.on_commit(lambda: group_finished.send(sender=Group, group_id=ids[0], round_robin_id=ids[1],
                                                      season_id=ids[2]))


def _announce(groups: Sequence[Group]) -> None:
    ids = [g.pk for g in groups]
    transaction.on_commit(lambda: groups_drawn.send(sender=Group, group_ids=ids))


# --- round-robin tournaments ---------------------------------------------------------------------


def _check_round_robin(fields: dict[str, Any]) -> None:
    if not str(fields.get("name", "")).strip():
        raise ServiceError(_("a round-robin needs a name"), "name")
    try:  # as a Swiss tournament's: no control or invisible characters (its emails carry the name)
        validate_display_name(str(fields["name"]))
    except DjangoValidationError as exc:
        raise ServiceError(f"name: {' '.join(exc.messages)}", "name") from None
    check_clock(fields)
    if fields.get("lake_side", "standard") not in ("standard", "expert"):
        raise ServiceError(_("lake side must be standard or expert"), "lake_side", "R2")
    if fields.get("course_mode", "random") not in Tournament.CourseMode.values:
        raise ServiceError(_("course mode must be random or duplicate"), "course_mode")
    if fields.get("pace", Pace.AT_ONCE) not in Pace.values:
        raise ServiceError(_("pace must be at_once or rounds"), "pace")
    if fields.get("entry", "open") not in Tournament.Entry.values:
        raise ServiceError(_("entry must be open or invited"), "entry")
    groups = fields.get("group_count", 1)
    if not 1 <= groups <= MAX_GROUPS:
        raise ServiceError(_("groups must be 1 to %(MAX_GROUPS)s") % {"MAX_GROUPS": MAX_GROUPS}, "group_count")
    if fields.get("final_group") and groups < 2:
        raise ServiceError(_("a final group needs at least two groups"), "final_group")
    low, high = fields.get("min_players", 3), fields.get("max_players", 20)
    if low < MIN_GROUP:
        raise ServiceError(_("a round-robin needs at least %(MIN_GROUP)s players") % {"MIN_GROUP": MIN_GROUP}, "min_players")
    if high > MAX_GROUP * groups:
        raise ServiceError(ngettext("at most %(per_group)s players per group: %(most)s for %(groups)s group",
                                    "at most %(per_group)s players per group: %(most)s for %(groups)s groups", groups)
                           % {"per_group": MAX_GROUP, "most": MAX_GROUP * groups, "groups": groups}, "max_players")
    if low > high:
        raise ServiceError(_("the minimum of players is above the maximum"), "min_players")
    check_days(fields, "deadline_days", "round_days")
    if fields["registration_closes_at"] > fields["starts_at"]:
        raise ServiceError(_("registration must close before the start"), "registration_closes_at")


@transaction.atomic
def round_robin_create(*, director: Any, invited: list[Any] | None = None, **fields: Any) -> RoundRobin:
    _check_round_robin(fields)
    rr = RoundRobin.objects.create(director=director, **fields)
    if invited:
        rr.invited.set(invited)
    return rr


def _locked_round_robin(round_robin_id: int) -> RoundRobin:
    rr = RoundRobin.objects.select_for_update().filter(pk=round_robin_id).first()
    if rr is None:
        raise NotFound(_("no round-robin %(round_robin_id)s") % {"round_robin_id": round_robin_id}, "round_robin")
    return rr


@transaction.atomic
def round_robin_register(*, user: Any, round_robin_id: int, now: datetime | None = None) -> RoundRobinEntry:
    """Join before registration closes (a round-robin takes no late entries: its schedule is made
    at the start)."""
    now = now or timezone.now()
    rr = _locked_round_robin(round_robin_id)
    if rr.entry == Tournament.Entry.INVITED and user.pk != rr.director_id and not rr.invited.filter(pk=user.pk).exists():
        raise NotAPlayer(_("this round-robin is by invitation only"), "round_robin")
    if rr.status != RoundRobin.Status.REGISTRATION:
        raise Conflict(_("the round-robin is %(status)s: no entries after the start") % {"status": rr.status}, "round_robin")
    if now > rr.registration_closes_at:
        raise Conflict(_("registration is closed"), "round_robin")
    if rr.entries.filter(user=user).exists():
        raise Conflict(_("you are registered already"), "round_robin")
    if rr.entries.count() >= rr.max_players:
        raise Conflict(_("the round-robin is full (%(max_players)s players)") % {"max_players": rr.max_players}, "round_robin")
    return RoundRobinEntry.objects.create(round_robin=rr, user=user)


@transaction.atomic
def round_robin_withdraw(*, user: Any, round_robin_id: int) -> None:
    """Withdraw before the start. Afterwards the schedule is fixed: resign your games instead."""
    rr = _locked_round_robin(round_robin_id)
    entry = rr.entries.filter(user=user).first()
    if entry is None:
        raise NotFound(_("you are not registered"), "round_robin")
    if rr.status != RoundRobin.Status.REGISTRATION:
        raise Conflict(_("the round-robin has started: its games are set (resign a game to give it up)"),
                       "round_robin")
    entry.delete()


def round_robin_start(*, round_robin_id: int, now: datetime | None = None) -> bool:
    """At the start time: cancel with too few players; otherwise seed by rating (then name) into
    the groups in snake order (fewer groups when there are fewer than three players per group
    asked for), draw start numbers by lot, and announce the groups (their games start at once).
    Returns whether this call did anything."""
    now = now or timezone.now()
    with transaction.atomic():
        try:
            rr = _locked_round_robin(round_robin_id)
        except NotFound:
            return False
        if rr.status != RoundRobin.Status.REGISTRATION or rr.starts_at > now:
            return False
        entries = list(rr.entries.select_related("user"))
        if len(entries) < max(rr.min_players, MIN_GROUP):
            rr.status = RoundRobin.Status.CANCELLED
            rr.finished_at = now
            rr.save(update_fields=["status", "finished_at"])
            return True
        ratings = _ratings([e.user_id for e in entries])
        for e in entries:
            e.rating = ratings.get(e.user_id, e.rating)
        RoundRobinEntry.objects.bulk_update(entries, ["rating"])
        seeded = sorted(entries, key=lambda e: (-e.rating, e.user.username.lower()))
        count = max(1, min(rr.group_count, len(seeded) // MIN_GROUP))
        dealt = berger.snake(seeded, count)
        if rr.course_mode == Tournament.CourseMode.DUPLICATE:
            sizes = [len(d) for d in dealt] + ([count] if rr.final_group and count > 1 else [])
            rounds = max(berger.rounds_for(n, double=rr.double) for n in sizes)
            rr.courses = {str(r): course_data(new_course(rr.lake_side)) for r in range(1, rounds + 1)}
        rng = random.SystemRandom()
        groups = [_draw(round_robin=rr, number=number, players=[(e.user, e.rating) for e in members],
                        double=rr.double, pace=rr.pace, rng=rng)
                  for number, members in enumerate(dealt, 1)]
        rr.status = RoundRobin.Status.RUNNING
        rr.started_at = now
        rr.save(update_fields=["status", "started_at", "courses"])
        _announce(groups)
        return True


def round_robin_advance(*, round_robin_id: int, now: datetime | None = None) -> str:
    """When every group has finished: draw the final group of the group winners (if asked for),
    or finish. Returns nothing, waiting, final or finished."""
    now = now or timezone.now()
    with transaction.atomic():
        try:
            rr = _locked_round_robin(round_robin_id)
        except NotFound:
            return "nothing"
        if rr.status != RoundRobin.Status.RUNNING:
            return "nothing"
        groups = list(rr.groups.all())
        if any(g.status != Group.Status.FINISHED for g in groups):
            return "waiting"
        main = [g for g in groups if not g.final]
        if rr.final_group and len(main) > 1 and not any(g.final for g in groups):
            winners = []
            for g in sorted(main, key=lambda g: g.number):
                first = g.players.select_related("user").order_by("rank", "number").first()
                assert first is not None
                winners.append((first.user, first.rating))
            final = _draw(round_robin=rr, number=1, final=True, players=winners, double=rr.double, pace=rr.pace,
                          rng=random.SystemRandom())
            _announce([final])
            return "final"
        rr.status = RoundRobin.Status.FINISHED
        rr.finished_at = now
        rr.save(update_fields=["status", "finished_at"])
        return "finished"


# --- the Competition --------------------------------------------------------------------------------


def _locked_competition(competition_id: int) -> Competition:
    c = Competition.objects.select_for_update().filter(pk=competition_id).first()
    if c is None:
        raise NotFound(_("no competition %(competition_id)s") % {"competition_id": competition_id}, "competition")
    return c


def _playing(c: Competition) -> Season | None:
    return c.seasons.filter(status=Season.Status.PLAYING).first()


def _schedule_if_ready(c: Competition, now: datetime) -> None:
    """With no season playing or planned and enough players: the next season starts after the break."""
    if c.next_season_at is None and _playing(c) is None and \
            c.members.filter(active=True).count() >= max(c.min_players, MIN_GROUP):
        c.next_season_at = now + timedelta(days=c.break_days)
        c.save(update_fields=["next_season_at"])


@transaction.atomic
def competition_join(*, user: Any, competition_id: int, now: datetime | None = None) -> CompetitionMember:
    """Register: the player plays from the next season on, at the lowest level (or, rejoining
    during the season they left, where that season puts them)."""
    now = now or timezone.now()
    c = _locked_competition(competition_id)
    member = CompetitionMember.objects.filter(competition=c, user=user).first()
    if member is not None and member.active:
        raise Conflict(_("you are in the Competition already"), "competition")
    if member is None:
        member = CompetitionMember.objects.create(competition=c, user=user, joined_at=now)
    else:
        member.active, member.removal, member.left_at, member.joined_at = True, "", None, now
        member.save(update_fields=["active", "removal", "left_at", "joined_at"])
    _schedule_if_ready(c, now)
    return member


@transaction.atomic
def competition_leave(*, user: Any, competition_id: int, now: datetime | None = None) -> CompetitionMember:
    """Leave: no place in the next season. Games of a season under way are played out (or
    resigned); the season's end then counts the player out."""
    now = now or timezone.now()
    c = _locked_competition(competition_id)
    member = CompetitionMember.objects.filter(competition=c, user=user, active=True).first()
    if member is None:
        raise NotFound(_("you are not in the Competition"), "competition")
    member.active, member.removal, member.left_at = False, CompetitionMember.Removal.LEFT, now
    member.save(update_fields=["active", "removal", "left_at"])
    return member


def level_plan(players: int, group_size: int, minimum: int = MIN_GROUP) -> list[tuple[int, int]]:
    """How many players and groups each level has, top first: level k holds up to 2^(k-1) groups
    of ``group_size``; levels fill from the top; the lowest has as few groups as its players
    need. If that leaves it fewer than ``minimum`` players, the level above hands it its last ones.

    >>> level_plan(30, 11)
    [(11, 1), (19, 2)]
    >>> level_plan(12, 11)
    [(9, 1), (3, 1)]
    >>> level_plan(80, 11)
    [(11, 1), (22, 2), (44, 4), (3, 1)]
    """
    if players < minimum:
        return []
    plan: list[list[int]] = []
    left, level = players, 1
    while left > 0:
        capacity = group_size * 2 ** (level - 1)
        plan.append([min(left, capacity), 0])
        left -= plan[-1][0]
        level += 1
    if len(plan) > 1 and plan[-1][0] < minimum:
        need = minimum - plan[-1][0]
        plan[-2][0] -= need
        plan[-1][0] += need
    for level, row in enumerate(plan, 1):
        row[1] = 2 ** (level - 1) if level < len(plan) else math.ceil(row[0] / group_size)
    return [(n, g) for n, g in plan]


def moves_for(size: int, level: int, lowest: int, promote: int, relegate: int) -> tuple[int, int]:
    """How many of a group of ``size`` move up and down: the top ``promote`` (at most a third of
    the group, none at level 1) and the bottom ``relegate`` (at most half the group, none at the
    lowest level).

    >>> moves_for(11, 2, 3, 2, 4), moves_for(7, 2, 3, 2, 4), moves_for(5, 2, 3, 2, 4), moves_for(3, 2, 3, 2, 4)
    ((2, 4), (2, 3), (1, 2), (1, 1))
    >>> moves_for(11, 1, 3, 2, 4), moves_for(11, 3, 3, 2, 4)
    ((0, 4), (2, 0))
    """
    up = 0 if level <= 1 else min(promote, size // 3)
    down = 0 if level >= lowest else min(relegate, size // 2)
    return up, down


KIND: dict[str, int] = {GroupPlayer.Move.STAY: 0, GroupPlayer.Move.UP: 1, GroupPlayer.Move.DOWN: 2}


def placement_order(members: Sequence[CompetitionMember], last: dict[int, GroupPlayer],
                    ratings: dict[int, float]) -> list[CompetitionMember]:
    """The next season's players in one order, cut into levels from the top: first by the level
    last season's end gives them (up, same, down); within a level those who stayed, then those
    promoted, then those relegated, each by their place, then by score per game, rating and name;
    newcomers last, by rating then name (so they start at the lowest level)."""

    def key(m: CompetitionMember) -> tuple[Any, ...]:
        rating = ratings.get(m.user_id, 1500.0)
        name = m.user.username.lower()
        p = last.get(m.user_id)
        if p is None or p.move not in KIND:
            return (1, 0, 0, 0, 0.0, -rating, name)
        step: dict[str, int] = {GroupPlayer.Move.UP: -1, GroupPlayer.Move.DOWN: 1}
        target = p.group.level + step.get(p.move, 0)
        per_game = (p.score or 0.0) / p.games if p.games else 0.0
        return (0, max(1, target), KIND[p.move], p.rank or 99, -per_game, -rating, name)

    return sorted(members, key=key)


def competition_start_season(*, competition_id: int, now: datetime | None = None) -> str:
    """When the next season is due: place everyone still registered (movements of the last season
    applied, newcomers at the lowest level), draw the groups (a single round-robin each, every game
    at once) and announce them. With too few players the Competition waits for more. Returns
    nothing, waiting or started."""
    now = now or timezone.now()
    with transaction.atomic():
        try:
            c = _locked_competition(competition_id)
        except NotFound:
            return "nothing"
        if c.next_season_at is None or c.next_season_at > now or _playing(c) is not None:
            return "nothing"
        members = list(c.members.filter(active=True).select_related("user"))
        plan = level_plan(len(members), c.group_size, max(c.min_players, MIN_GROUP))
        if len(members) < c.min_players or not plan:
            c.next_season_at = None  # the next join that makes enough players plans it again
            c.save(update_fields=["next_season_at"])
            return "waiting"
        last_season = c.seasons.order_by("-number").first()
        last = {p.user_id: p for p in GroupPlayer.objects.filter(group__season=last_season).select_related("group")}\
            if last_season else {}
        ratings = _ratings([m.user_id for m in members])
        order = placement_order(members, last, ratings)
        season = Season.objects.create(competition=c, number=(last_season.number + 1) if last_season else 1,
                                       started_at=now, deadline=now + timedelta(days=c.season_days))
        rng = random.SystemRandom()
        groups = []
        start = 0
        for level, (count, group_count) in enumerate(plan, 1):
            at_level = order[start:start + count]
            start += count
            for number, dealt in enumerate(berger.snake(at_level, group_count), 1):
                groups.append(_draw(season=season, level=level, number=number, double=False, pace=Pace.AT_ONCE,
                                    players=[(m.user, ratings.get(m.user_id, 1500.0)) for m in dealt], rng=rng))
        c.next_season_at = None
        c.save(update_fields=["next_season_at"])
        _announce(groups)
        return "started"


def season_advance(*, season_id: int, now: datetime | None = None) -> str:
    """When every group of the season has finished: decide each player's move (up, stay, down;
    out for those who left, or lost on time in more than half their games), close the season,
    plan the next one after the break and email everyone. Returns nothing, waiting or closed."""
    now = now or timezone.now()
    with transaction.atomic():
        season = Season.objects.select_for_update().filter(pk=season_id).first()
        if season is None or season.status != Season.Status.PLAYING:
            return "nothing"
        groups = list(season.groups.all())
        if not groups or any(g.status != Group.Status.FINISHED for g in groups):
            return "waiting"
        c = _locked_competition(season.competition_id)
        lowest = max(g.level for g in groups)
        players = list(GroupPlayer.objects.filter(group__season=season).select_related("group", "user")
                       .order_by("group__level", "group__number", "rank", "number"))
        members = {m.user_id: m for m in c.members.filter(user_id__in=[p.user_id for p in players])}
        by_group: dict[int, list[GroupPlayer]] = {}
        for p in players:
            by_group.setdefault(p.group_id, []).append(p)
        changed_members = []
        for group in groups:
            places = by_group.get(group.pk, [])
            up, down = moves_for(len(places), group.level, lowest, c.promote, c.relegate)
            for i, p in enumerate(places):
                member = members.get(p.user_id)
                if member is None or not member.active:
                    p.move = GroupPlayer.Move.OUT
                elif p.games and p.timeouts * 2 > p.games:
                    p.move = GroupPlayer.Move.OUT
                    member.active, member.removal, member.left_at = False, CompetitionMember.Removal.TIMEOUTS, now
                    changed_members.append(member)
                elif i < up:
                    p.move = GroupPlayer.Move.UP
                elif i >= len(places) - down:
                    p.move = GroupPlayer.Move.DOWN
                else:
                    p.move = GroupPlayer.Move.STAY
        GroupPlayer.objects.bulk_update(players, ["move"])
        CompetitionMember.objects.bulk_update(changed_members, ["active", "removal", "left_at"])
        season.status = Season.Status.CLOSED
        season.closed_at = now
        season.save(update_fields=["status", "closed_at"])
        c.next_season_at = now + timedelta(days=c.break_days)
        c.save(update_fields=["next_season_at"])
        names = Rules(f"{c.name}, season {season.number}", c.days_per_move, c.grace_days, c.vacation_allowed, c.rated,
                      c.lake_side, c.season_days, c.season_days, {}, competition=c.name, season=season.number).names()
        for p in players:
            notify(p.user, "group_over", f"season:{season.pk}:over", {
                **names, "group": p.group.name, "path": reverse("group", args=[p.group_id]),
                "rank": p.rank, "players": len(by_group[p.group_id]), "score": p.score,
                "place": _place(p, members.get(p.user_id), len(by_group[p.group_id])),
                "next_season": f"{c.next_season_at:%Y-%m-%d %H:%M} UTC",
            })
        return "closed"


def _place(p: GroupPlayer, member: CompetitionMember | None, size: int) -> dict[str, Any]:
    """Where a player finished the season and what follows, as data; the email says it in the
    reader's language (games.reasons.place_text)."""
    place: dict[str, Any] = {"rank": p.rank or size, "players": size}
    if p.move == GroupPlayer.Move.UP:
        place.update(move="up", level=p.group.level - 1)
    elif p.move == GroupPlayer.Move.DOWN:
        place.update(move="down", level=p.group.level + 1)
    elif p.move == GroupPlayer.Move.STAY:
        place.update(move="stay", level=p.group.level)
    elif member is not None and member.removal == CompetitionMember.Removal.TIMEOUTS:
        place.update(move="timeouts", timeouts=p.timeouts, games=p.games)
    else:
        place.update(move="left")
    return place


# --- the beat's work ----------------------------------------------------------------------------------


def due(now: datetime) -> dict[str, Any]:
    """What the minute tick looks at, each one indexed query without the models' default order
    (tests/tournaments/test_formats_site.py checks the plans on PostgreSQL)."""
    return {
        "round_robins_to_start": RoundRobin.objects.filter(status=RoundRobin.Status.REGISTRATION, starts_at__lte=now)
        .order_by().values_list("pk", flat=True),  # index round_robin_status_start
        "round_robins_running": RoundRobin.objects.filter(status=RoundRobin.Status.RUNNING)
        .order_by().values_list("pk", flat=True),  # index round_robin_status_start
        "seasons_to_start": Competition.objects.filter(next_season_at__lte=now)
        .order_by().values_list("pk", flat=True),  # partial index competition_next_season
        "seasons_playing": Season.objects.filter(status=Season.Status.PLAYING)
        .order_by().values_list("pk", flat=True),  # partial unique index one_playing_season
        "groups_waiting": Group.objects.filter(status=Group.Status.WAITING)
        .order_by().values_list("pk", flat=True),  # partial index group_waiting
        "groups_due": Group.objects.filter(status=Group.Status.PLAYING, deadline__lte=now)
        .order_by().values_list("pk", flat=True),  # partial index group_playing_deadline
        # the backstop for a lost task: a game that ended, its result not recorded yet (partial
        # index group_game_open: only the pairings still open, then each game by its key)
        "groups_with_results": GroupGame.objects.filter(result="", game__status=Game.Status.FINISHED)
        .order_by().values_list("group_id", flat=True).distinct(),
    }


def formats_tick(*, now: datetime | None = None) -> dict[str, int]:
    """Every minute (beat): start round-robins and seasons that are due, start drawn groups,
    adjudicate at deadlines, record results a lost task missed, close finished events."""
    now = now or timezone.now()
    queries = due(now)  # each evaluated when its turn comes: a group drawn above is started below
    done = {"round_robins_started": 0, "seasons_started": 0, "groups_started": 0, "groups_advanced": 0,
            "closed": 0}
    for pk in list(queries["round_robins_to_start"]):
        done["round_robins_started"] += on_its_own(round_robin_start, "round-robin", pk, False, round_robin_id=pk, now=now)
    for pk in list(queries["seasons_to_start"]):
        done["seasons_started"] += on_its_own(competition_start_season, "competition", pk, None, competition_id=pk, now=now) == "started"
    for pk in list(queries["groups_waiting"]):
        done["groups_started"] += on_its_own(group_start, "group", pk, False, group_id=pk, now=now)
    for pk in sorted(set(queries["groups_due"]) | set(queries["groups_with_results"])):
        done["groups_advanced"] += on_its_own(group_advance, "group", pk, None, group_id=pk, now=now) in ("paired", "finished")
    for pk in list(queries["round_robins_running"]):
        done["closed"] += on_its_own(round_robin_advance, "round-robin", pk, None, round_robin_id=pk, now=now) in ("final", "finished")
    for pk in list(queries["seasons_playing"]):
        done["closed"] += on_its_own(season_advance, "season", pk, None, season_id=pk, now=now) == "closed"
    return done
