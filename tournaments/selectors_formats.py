"""Reads for round-robin groups and the Competition: standings, cross tables, levels, a player's
history (docs/tournaments.md). Standings are those of ``tournaments.standings`` (the one
implementation of the tie-breaks), computed from a TRF built per group.

Every read here takes a fixed number of queries whatever the number of groups, players and games
(the pages and the API pin them in tests)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from games.models import Game, Seat

from . import standings, trf
from .models import Competition, CompetitionMember, Group, GroupGame, GroupPlayer, RoundRobin, Season

ORDER = standings.ROUND_ROBIN_ORDER  # after the score: SB, DE, WIN, BUOYS, DMG
SYMBOLS = {"1": "1", "0": "0", "=": "½", "+": "+", "-": "−"}


@dataclass
class Row:
    """A player's line in a group's standings."""

    player: GroupPlayer
    rank: int
    score: float
    values: dict[str, standings.Value]  # by tie-break code, in ORDER
    played: int = 0  # games ended (forfeits included)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    timeouts: int = 0  # games lost on time (forfeits included)
    buoy_points: int = 0
    damage: int = 0

    @property
    def username(self) -> str:
        return str(self.player.user.username)


@dataclass
class CrossCell:
    """One cell of the cross table: the results of the row player against the column player,
    from the row player's side (two in a double round-robin), and the games."""

    results: list[str] = field(default_factory=list)  # per game: 1 ½ 0 + − or · (going) or "" (not started)
    game_ids: list[int] = field(default_factory=list)
    itself: bool = False

    @property
    def text(self) -> str:
        return "×" if self.itself else " ".join(r or "–" for r in self.results)


@dataclass
class Table:
    group: Group
    rows: list[Row]  # best first
    players: list[GroupPlayer]  # by start number
    pairings: list[GroupGame]  # by round
    cross: list[tuple[GroupPlayer, Row, list[CrossCell]]] = field(default_factory=list)  # by start number

    @property
    def games_total(self) -> int:
        return len(self.pairings)

    @property
    def games_over(self) -> int:
        return sum(1 for g in self.pairings if g.result)

    def rounds(self) -> list[tuple[int, list[GroupGame]]]:
        by_round: dict[int, list[GroupGame]] = defaultdict(list)
        for g in self.pairings:
            by_round[g.round].append(g)
        return sorted(by_round.items())


def group_trf(group: Group, players: list[GroupPlayer], pairings: list[GroupGame],
              seats: dict[tuple[int, int], tuple[int, int]]) -> trf.Tournament:
    """The group as a TRF: one cell per round of the Berger schedule; a game that ended is a
    game (or a forfeit), a rest or a game still going is blank (no round for that player, see
    ``tournaments.standings``). ``PBS`` game points and damage (R14) of the games over the board."""
    number = {p.pk: p.number for p in players}
    user = {p.pk: p.user_id for p in players}
    cells: dict[int, list[trf.Cell]] = {p.number: [trf.NOT_PAIRED] * group.rounds for p in players}
    points: dict[int, list[int]] = {p.number: [0, 0] for p in players}
    for g in pairings:
        if not g.result:
            continue
        red, yellow = number[g.red_id], number[g.yellow_id]
        cells[red][g.round - 1] = trf.Cell(yellow, "w", g.result)
        cells[yellow][g.round - 1] = trf.Cell(red, "b", trf.MIRROR[g.result])
        if g.result in trf.PLAYED_RESULTS and g.game_id:
            for side, pk in ((red, g.red_id), (yellow, g.yellow_id)):
                got = seats.get((g.game_id, user[pk]), (0, 0))
                points[side][0] += got[0]
                points[side][1] += got[1]
    out = trf.Tournament(name=str(group), rounds=group.rounds)
    for p in players:
        out.players.append(trf.Player(number=p.number, name=p.user.username, rating=round(p.rating),
                                      cells=cells[p.number]))
        out.buoys_damage[p.number] = (points[p.number][0], points[p.number][1])
    return out


def group_tables(groups: list[Group]) -> dict[int, Table]:
    """Standings and cross tables of ``groups``, in three queries whatever their size."""
    ids = [g.pk for g in groups]
    if not ids:
        return {}
    players: dict[int, list[GroupPlayer]] = defaultdict(list)
    for p in GroupPlayer.objects.filter(group_id__in=ids).select_related("user").order_by("group_id", "number"):
        players[p.group_id].append(p)
    pairings: dict[int, list[GroupGame]] = defaultdict(list)
    query = (GroupGame.objects.filter(group_id__in=ids).select_related("game")
             .only("id", "group_id", "round", "red_id", "yellow_id", "result", "game_id", "game__status",
                   "game__termination", "game__winner_color")
             .order_by("group_id", "round", "pk"))
    for g in query:
        pairings[g.group_id].append(g)
    seats = {(s["game_id"], s["user_id"]): (s["points"], s["damage"]) for s in
             Seat.objects.filter(game__group_game__group_id__in=ids, game__status=Game.Status.FINISHED)
             .values("game_id", "user_id", "points", "damage")}
    return {g.pk: _table(g, players[g.pk], pairings[g.pk], seats) for g in groups}


def group_table(group: Group) -> Table:
    return group_tables([group])[group.pk]


def _table(group: Group, players: list[GroupPlayer], pairings: list[GroupGame],
           seats: dict[tuple[int, int], tuple[int, int]]) -> Table:
    by_number = {p.number: p for p in players}
    by_pk = {p.pk: p for p in players}
    data = group_trf(group, players, pairings, seats)
    rows: dict[int, Row] = {}
    ranked = standings.compute(data, ORDER, round_robin=True) if players else []
    for s in ranked:
        points, damage = data.buoys_damage[s.number]
        rows[s.number] = Row(by_number[s.number], s.rank, s.points, s.values, buoy_points=points, damage=damage)
    for g in pairings:
        if not g.result:
            continue
        red, yellow = rows[by_pk[g.red_id].number], rows[by_pk[g.yellow_id].number]
        for row, result in ((red, g.result), (yellow, trf.MIRROR[g.result])):
            row.played += 1
            if result in ("1", "+"):
                row.wins += 1
            elif result == "=":
                row.draws += 1
            else:
                row.losses += 1
        if g.game is not None and g.game.termination == "timeout":
            (yellow if g.game.winner_color == "red" else red).timeouts += 1
    table = Table(group, [rows[s.number] for s in ranked], players, pairings)
    cells: dict[tuple[int, int], CrossCell] = defaultdict(CrossCell)
    for g in pairings:
        red_no, yellow_no = by_pk[g.red_id].number, by_pk[g.yellow_id].number
        for me, other, result in ((red_no, yellow_no, g.result), (yellow_no, red_no, trf.MIRROR.get(g.result, ""))):
            cell = cells[(me, other)]
            cell.results.append(SYMBOLS.get(result, "·" if g.game_id else ""))
            if g.game_id:
                cell.game_ids.append(g.game_id)
    for p in players:
        line = [CrossCell(itself=True) if q.pk == p.pk else cells[(p.number, q.number)] for q in players]
        table.cross.append((p, rows[p.number], line))
    return table


# --- round-robins -------------------------------------------------------------------------------


def round_robins(status: str) -> QuerySet[RoundRobin]:
    """Round-robins in one state, with their number of players (one query)."""
    order = "-finished_at" if status == RoundRobin.Status.FINISHED else "starts_at"
    return (RoundRobin.objects.filter(status=status).select_related("director")
            .annotate(player_count=Count("entries")).order_by(order, "pk"))


def round_robin_groups(rr: RoundRobin) -> list[Group]:
    return list(rr.groups.order_by("final", "number"))


# --- the Competition --------------------------------------------------------------------------


def current_season(competition: Competition) -> Season | None:
    """The season playing, else the last one."""
    return competition.seasons.order_by("-number").first()


def season_levels(season: Season) -> list[tuple[int, list[Table]]]:
    """The season's levels, top first, each with its groups' tables (three queries and one for
    the groups)."""
    groups = list(season.groups.order_by("level", "number"))
    tables = group_tables(groups)
    levels: dict[int, list[Table]] = defaultdict(list)
    for g in groups:
        levels[g.level].append(tables[g.pk])
    return sorted(levels.items())


def membership(competition: Competition, user: Any) -> CompetitionMember | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return CompetitionMember.objects.filter(competition=competition, user=user).first()


def waiting_members(competition: Competition, season: Season | None) -> QuerySet[CompetitionMember]:
    """Registered players who are not in the season shown: they join the next one."""
    members = competition.members.filter(active=True).select_related("user").order_by("joined_at", "pk")
    if season is not None:
        members = members.exclude(user__group_places__group__season=season)
    return members


def history(competition: Competition, user: Any) -> QuerySet[GroupPlayer]:
    """A player's seasons in the Competition, newest first: the level, the group, the place of
    how many, the score and what the season's end did (one query: the group's size is counted
    in a subquery)."""
    size = (GroupPlayer.objects.filter(group_id=OuterRef("group_id")).values("group_id")
            .annotate(n=Count("pk")).values("n"))
    return (GroupPlayer.objects.filter(user=user, group__season__competition=competition)
            .select_related("group__season")
            .annotate(group_size=Coalesce(Subquery(size), 0))
            .order_by("-group__season__number"))
