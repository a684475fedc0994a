"""The shape of a series as the site and the API show it (no queries beyond the seats and the
actions the caller passes, no writes): every boat, whose turn, positions so far, the series
table (R19: points per race, total; R20: carried damage), the next race's start player, and
for the player to move what they may do."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.engine import DIRECTION_NAMES, Series
from games.engine.record import race_result_json
from games.engine.series import LETTERS

from .models_series import SeriesAction, SeriesGame, SeriesSeat
from .payloads import turn_choices


def next_start_player(series: Series) -> str | None:
    """R15: the next race's start player (the left-hand neighbour of this race's, skipping
    players who left), or None when no race follows."""
    if series.over or len(series.races) >= len(series.courses):
        return None
    race = series.race
    seat = series.seat_of(race.boats[race.start].color)
    left = series.left
    for _ in range(len(series.colors)):
        seat = (seat + 1) % len(series.colors)
        if seat not in left:
            return series.colors[seat]
    return None


def series_table(series: Series, seats: Sequence[SeriesSeat]) -> list[dict[str, Any]]:
    """The series table (R19), with each race's points and position and the damage counters
    each boat carried into each race (R20)."""
    names = {s.color: s.user.username for s in seats}
    carried = [series.carried(i) for i in range(len(series.races))]
    out = []
    for line in series.standings():
        out.append({
            "place": line.place,
            "color": line.color,
            "username": names.get(line.color, ""),
            "points": line.points,
            "race_points": list(line.race_points),
            "positions": list(line.positions),
            "carried_damage": [c.get(line.color) for c in carried],
            "left": line.left.value if line.left else None,
        })
    return out


def series_summary(series: SeriesGame, seats: Sequence[SeriesSeat], user: Any = None) -> dict[str, Any]:
    """A series in a list (the lobby, my series)."""
    uid = getattr(user, "pk", None)
    ordered = sorted(seats, key=lambda s: (s.index if s.index is not None else 99, s.joined_at))
    return {
        "id": series.pk,
        "status": series.status,
        "created_by": series.created_by.username,
        "seats": series.seats_wanted,
        "players": [{"username": s.user.username, "color": s.color or None, "left": s.left or None} for s in ordered],
        "days_per_move": series.days_per_move,
        "grace_days": series.grace_days,
        "lake_side": series.lake_side,
        "rated": series.rated,
        "score_variant": series.score_variant,
        "phase": series.phase,
        "race": LETTERS[series.race] if series.status != SeriesGame.Status.OPEN else None,
        "ply": series.ply,
        "to_move": next((s.color for s in ordered if s.index == series.to_move), None)
        if series.status == SeriesGame.Status.ACTIVE else None,
        "your_seat": any(s.user_id == uid for s in seats),
        "your_turn": series.status == SeriesGame.Status.ACTIVE and any(
            s.user_id == uid and s.index == series.to_move for s in seats),
        "created_at": series.created_at.isoformat(),
        "result": series.result_reason or None,
    }


def series_detail(series: SeriesGame, seats: Sequence[SeriesSeat], engine: Series | None,
                  actions: Sequence[SeriesAction] = (), user: Any = None, replayed: bool = False) -> dict[str, Any]:
    """Everything a client needs to show a series and, for the player to move, to act. With
    ``replayed``, ``engine`` is the series at an earlier action (the page's replay, ?at=): whose
    turn it was then, and no one's turn to act now."""
    data = series_summary(series, seats, user)
    if replayed and engine is not None:
        race_then = engine.race
        data["your_turn"] = False
        data["to_move"] = (race_then.boats[race_then.to_move].color
                           if race_then.phase.value in ("place", "dice", "direction") else None)
    data.update(dice_seed_sha256=series.dice_seed_sha256 or None,
                dice_seed=series.dice_seed if series.over else None,
                clock={"move_deadline": series.move_deadline.isoformat() if series.move_deadline else None,
                       "deadline": series.deadline.isoformat() if series.deadline else None,
                       "grace_seconds": {s.color: s.grace_seconds for s in seats if s.color}},
                boats=[], positions=[], table=[], races=[], start_player=None, next_start_player=None,
                your_color=None, history=[])
    if engine is None:
        return data
    uid = getattr(user, "pk", None)
    by_color = {s.color: s for s in seats}
    mine = next((s for s in seats if s.user_id == uid and s.index is not None), None)
    race = engine.race
    data["your_color"] = mine.color if mine else None
    data["boats"] = [
        {
            "color": b.color,
            "username": by_color[b.color].user.username,
            "cell": list(b.cell) if b.cell is not None and b.racing else None,
            "heading": b.heading,
            "heading_name": DIRECTION_NAMES[b.heading],
            "dice": list(b.dice),
            "damage": b.damage,
            "carried": b.carried,
            "buoys": b.buoys,
            "next_buoy": b.next_buoy if b.next_buoy <= 3 else None,
            "moves": b.moves,
            "finished": b.finished,
            "sunk": b.sunk,
            "left": b.retired.value if b.retired else None,
            "racing": b.racing,
        }
        for b in race.boats
    ]
    data["positions"] = [race.boats[i].color for i in race.positions]
    data["table"] = series_table(engine, seats)
    data["races"] = [
        {"letter": LETTERS[i], "multiplier": i + 1, "start_player": r.boats[r.start].color,
         "boats": [b.color for b in r.boats], "result": race_result_json(r)}
        for i, r in enumerate(engine.races)
    ]
    data["start_player"] = race.boats[race.start].color
    data["next_start_player"] = next_start_player(engine)
    data["history"] = [{"ply": a.ply, "race": LETTERS[a.race], "seat": a.seat, "kind": a.kind,
                        "notation": a.notation} for a in actions]
    if data["your_turn"]:
        data.update(turn_choices(race))
    return data
