"""Reads for ratings, leaderboards and tournaments (their TRF and their standings)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from games.models import Seat
from games.ratings.models import PROVISIONAL_DEVIATION, Rating, RatingChange

from . import standings, trf
from .models import Entry, Registration, Round, RoundRobin, Tournament

ACTIVE_DAYS = 90  # the leaderboard shows players with a rated game in this many days
MIN_GAMES_FOR_POINTS = 5


def leaderboard(now: datetime | None = None) -> QuerySet[Rating]:
    """Established (not provisional), active players by rating."""
    since = (now or timezone.now()) - timedelta(days=ACTIVE_DAYS)
    return (
        Rating.objects.filter(deviation__lt=PROVISIONAL_DEVIATION, last_rated_at__gte=since, games__gt=0)
        .select_related("user")
        .order_by("-rating", "user_id")
    )


def provisional_players(now: datetime | None = None) -> QuerySet[Rating]:
    """Active players whose rating is still provisional (deviation 110 or more), by rating: the
    leaderboard shows them in their own section rather than not at all (issue 13)."""
    since = (now or timezone.now()) - timedelta(days=ACTIVE_DAYS)
    return (
        Rating.objects.filter(deviation__gte=PROVISIONAL_DEVIATION, last_rated_at__gte=since, games__gt=0)
        .select_related("user")
        .order_by("-rating", "user_id")
    )


def points_table(now: datetime | None = None) -> QuerySet[Rating]:
    """Active players with enough rated games, by average game points (R14)."""
    since = (now or timezone.now()) - timedelta(days=ACTIVE_DAYS)
    return (
        Rating.objects.filter(last_rated_at__gte=since, games__gte=MIN_GAMES_FOR_POINTS)
        .select_related("user")
        .order_by("-points_per_game", "-games", "user_id")
    )


def rating_of(user: Any) -> Rating | None:
    return Rating.objects.filter(user=user).first()


def history(user: Any, limit: int = 500) -> list[RatingChange]:
    """The player's rating changes, oldest first (at most ``limit`` most recent)."""
    rows = list(
        RatingChange.objects.filter(user=user).select_related("opponent", "game").order_by("-created_at", "-id")[:limit]
    )
    rows.reverse()
    return rows


def history_svg(changes: list[RatingChange], width: int = 640, height: int = 200) -> str:
    """The rating over time as a small SVG chart, drawn on the server."""
    if not changes:
        return ""
    values = [changes[0].rating_before] + [c.rating_after for c in changes]
    low, high = min(values) - 20, max(values) + 20
    pad = 36
    step = (width - pad - 10) / max(1, len(values) - 1)

    def y(v: float) -> float:
        return 10 + (high - v) / (high - low) * (height - 30)

    points = " ".join(f"{pad + i * step:.1f},{y(v):.1f}" for i, v in enumerate(values))
    ticks = []
    for v in (low + 20, (low + high) / 2, high - 20):
        ticks.append(f'<text x="2" y="{y(v) + 4:.1f}" class="tick">{v:.0f}</text>'
                     f'<line x1="{pad}" x2="{width - 10}" y1="{y(v):.1f}" y2="{y(v):.1f}" class="grid"/>')
    after = gettext("%(rating)s after game %(game)s")
    dots = "".join(
        f'<circle cx="{pad + i * step:.1f}" cy="{y(v):.1f}" r="2.5"><title>'
        f'{after % {"rating": f"{v:.0f}", "game": changes[i - 1].game_id}}</title></circle>'
        for i, v in enumerate(values) if i
    )
    label = gettext("rating history")
    games = ngettext("%(games)s rated game", "%(games)s rated games", len(changes)) % {"games": len(changes)}
    return (
        f'<svg class="rating-chart" viewBox="0 0 {width} {height}" role="img" aria-label="{label}">'
        f'{"".join(ticks)}<polyline points="{points}"/>{dots}'
        f'<text x="{pad}" y="{height - 4}" class="tick">{games}</text></svg>'
    )


# --- tournaments ------------------------------------------------------------------------------

PLAYED = {"1", "0", "="}


def tournament_trf(t: Tournament, *, game_points: bool = False) -> tuple[trf.Tournament, dict[int, Registration]]:
    """The tournament as a TRF over its closed rounds, and start number → registration.

    Start numbers follow the initial ranking (rating at entry, then name); a late entry takes
    its place in it, and its missed rounds are absences (``Z`` or ``H``), so every earlier round
    pairs the same from the file. ``first_color`` is the colour drawn at the start. With
    ``game_points`` the ``PBS`` figures (game points and damage, R14) of the games over the board
    are filled in, for the standings."""
    regs = [r for r in t.ranking() if r.entries.exists() or not r.removed]
    numbers = {r.pk: i + 1 for i, r in enumerate(regs)}
    rounds = list(t.round_set.filter(status=Round.Status.CLOSED).order_by("number").values_list("number", flat=True))
    cells: dict[int, dict[int, trf.Cell]] = {r.pk: {} for r in regs}
    game_ids: dict[int, list[int]] = {r.pk: [] for r in regs}
    for e in Entry.objects.filter(round__tournament=t, round__number__in=rounds).select_related("round"):
        if e.registration_id not in cells:
            continue
        opponent = numbers.get(e.opponent_id) if e.opponent_id else None
        cells[e.registration_id][e.round.number] = trf.Cell(opponent, e.color if opponent else "-", e.code or "Z")
        if e.game_id and e.code in PLAYED:
            game_ids[e.registration_id].append(e.game_id)
    players = []
    for r in regs:
        row = [cells[r.pk].get(n, trf.Cell(None, "-", "Z")) for n in rounds]
        players.append(trf.Player(number=numbers[r.pk], name=r.user.username, rating=round(r.rating), cells=row))
    out = trf.Tournament(name=t.name, rounds=t.rounds, players=players, first_color=t.first_color,
                         start=t.started_at.date().isoformat() if t.started_at else "",
                         arbiter=t.director.username, time_control=f"{t.days_per_move} days per move")
    if game_points:
        seats = {(s.game_id, s.user_id): s for s in
                 Seat.objects.filter(game_id__in=[g for ids in game_ids.values() for g in ids])}
        for r in regs:
            mine = [seats[(g, r.user_id)] for g in game_ids[r.pk] if (g, r.user_id) in seats]
            out.buoys_damage[numbers[r.pk]] = (sum(s.points for s in mine), sum(s.damage for s in mine))
    return out, {numbers[r.pk]: r for r in regs}


@dataclass
class TableCell:
    """A cross-table cell: one player's closed round as the site has it (with the game)."""

    round: int
    opponent: Registration | None
    color: str
    code: str
    game_id: int | None = None


@dataclass
class StandingRow:
    registration: Registration
    start_number: int
    rank: int
    score: float
    values: dict[str, standings.Value]  # by tie-break code, in the tournament's order
    buoy_points: int
    damage: int
    cells: dict[int, TableCell] = field(default_factory=dict)


def tournament_standings(t: Tournament) -> list[StandingRow]:
    """The standings after the closed rounds, by the tournament's tie-break order: the TRF of
    the tournament ranked by ``tournaments.standings`` (the same code as the command)."""
    data, by_number = tournament_trf(t, game_points=True)
    rows = []
    for s in standings.compute(data, t.tiebreak_order):
        points, damage = data.buoys_damage.get(s.number, (0, 0))
        rows.append(StandingRow(by_number[s.number], s.number, s.rank, s.points, s.values, points, damage))
    by_registration = {row.registration.pk: row for row in rows}
    closed = Entry.objects.filter(round__tournament=t, round__status=Round.Status.CLOSED)
    for e in closed.select_related("round", "opponent__user"):
        row = by_registration.get(e.registration_id)
        if row is not None:
            row.cells[e.round.number] = TableCell(e.round.number, e.opponent, e.color, e.code, e.game_id)
    return rows


def tournament_trf_export(t: Tournament) -> str:
    """The TRF export: the closed rounds, each player's place in the standings as the rank,
    game points and damage as ``PBS`` records."""
    data, _ = tournament_trf(t, game_points=True)
    places = {s.number: s.rank for s in standings.compute(data, t.tiebreak_order)}
    for player in data.players:
        player.rank = places.get(player.number, 0)
    return trf.dump(data)


@dataclass(frozen=True)
class Upcoming:
    """A tournament or round-robin that takes players or is about to start (the home page)."""

    name: str
    url: str
    kind: str  # "swiss" or "round-robin"
    registration_closes_at: datetime
    starts_at: datetime
    players: int


def upcoming_events(limit: int = 4, now: datetime | None = None) -> list[Upcoming]:
    """Swiss tournaments and round-robins still in registration, the soonest start first (two
    queries, each with its registrations counted)."""
    now = now or timezone.now()
    swiss = (Tournament.objects.filter(status=Tournament.Status.REGISTRATION, starts_at__gte=now - timedelta(days=1))
             .annotate(players=Count("registrations")).order_by("starts_at")[:limit])
    robins = (RoundRobin.objects.filter(status=RoundRobin.Status.REGISTRATION, starts_at__gte=now - timedelta(days=1))
              .annotate(players=Count("entries")).order_by("starts_at")[:limit])
    events = [Upcoming(t.name, reverse("tournament", args=[t.pk]), "swiss", t.registration_closes_at, t.starts_at,
                       t.players) for t in swiss]
    events += [Upcoming(r.name, reverse("round_robin", args=[r.pk]), "round-robin", r.registration_closes_at,
                        r.starts_at, r.players) for r in robins]
    return sorted(events, key=lambda e: e.starts_at)[:limit]
