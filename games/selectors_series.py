"""Reads of series (issue 16): queries only; payloads_series shapes them."""

from __future__ import annotations

from typing import Any

from django.db.models import F, Q, QuerySet

from .models_series import SeriesGame, SeriesSeat


def series_with_seats(series_id: int) -> tuple[SeriesGame, list[SeriesSeat]] | None:
    series = SeriesGame.objects.select_related("created_by", "winner").filter(pk=series_id).first()
    if series is None:
        return None
    return series, list(series.seats.select_related("user").order_by("index", "joined_at", "pk"))


def _with_seats(queryset: QuerySet[SeriesGame]) -> list[tuple[SeriesGame, list[SeriesSeat]]]:
    rows = list(queryset.select_related("created_by")[:100])
    seats: dict[int, list[SeriesSeat]] = {s.pk: [] for s in rows}
    for seat in SeriesSeat.objects.filter(series__in=rows).select_related("user").order_by("index", "joined_at"):
        seats[seat.series_id].append(seat)
    return [(s, seats[s.pk]) for s in rows]


def open_series_and_mine(user: Any) -> list[tuple[SeriesGame, list[SeriesSeat]]]:
    """Open series (the lobby) and every series the user has a seat in, newest first."""
    query = Q(status=SeriesGame.Status.OPEN)
    if getattr(user, "pk", None):
        query |= Q(seats__user=user) & ~Q(status=SeriesGame.Status.CANCELLED)
    return _with_seats(SeriesGame.objects.filter(query).distinct().order_by("-updated_at"))


def open_series() -> list[tuple[SeriesGame, list[SeriesSeat]]]:
    return _with_seats(SeriesGame.objects.filter(status=SeriesGame.Status.OPEN).order_by("-created_at"))


def series_to_move(user: Any) -> QuerySet[SeriesGame]:
    """The series going on where it is the user's turn (a started series' seat index is its
    place in the turn order: ``to_move`` names it), the soonest deadline first."""
    return SeriesGame.objects.filter(status=SeriesGame.Status.ACTIVE, seats__user=user,
                                     seats__index=F("to_move")).order_by("deadline", "pk")


def series_of(user: Any) -> list[tuple[SeriesGame, list[SeriesSeat]]]:
    return _with_seats(SeriesGame.objects.filter(seats__user=user).exclude(status=SeriesGame.Status.CANCELLED)
                       .distinct().order_by("-updated_at"))
