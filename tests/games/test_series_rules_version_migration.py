"""Migration 0016 gives every series that exists when it runs rules version 1 (the details of
R18/R19 they were played and scored by, docs/series.md "Rules versions"): stored as the code
before the change stored them, they replay to their stored state and verify afterwards, while a
series created after the migration takes version 2.

The series are written at migration 0015 as that code wrote them: the history rows, and the
cached columns from the replay of the engine's version 1, which replays exactly as the engine
did before 267e853 (tests/engine/test_series.py verifies records that engine wrote). Then every
migration runs, 0020-0022 moving each series into the games (a game of the boxed rules whose
``series_number`` is the series' old id, issue 25), and what was checked of the series is
checked of those games, through the models and ``verify_games`` of now."""

from __future__ import annotations

import random
from hashlib import sha256
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games import services
from games.engine import SERIES_COLORS, Phase, SeededDice, Series, Termination, new_courses, race_scores
from games.engine.game import SeriesGame as EngineSeries
from games.engine.record import choice_json
from games.management.commands.verify_games import check_game
from games.models import Game
from games.rulesets import BOXED, match_of
from games.state import course_data, stored_course
from tests.migrating import database_at

from .factories import greedy_player, make_user

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("games", "0015_course_drawings")]



def cached(game: EngineSeries, users: list[Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The columns of the series and of its seats that the services of that code (``_store`` in
    games/services_series.py) cached from the engine's series: phase, race, whose turn, the
    table, who left, the result."""
    s = game.series
    table = {t.seat: t for t in s.standings()}
    left = {d.seat: d.termination.value for d in s.departures}
    columns: dict[str, Any] = {"ply": s.ply, "race": len(s.races) - 1, "status": "active", "result_reason": "",
                               "winner_id": None}
    if s.over:
        winner = s.winner
        columns.update(status="finished", phase="over", to_move=None, result_reason=s.result_text()[:200],
                       winner_id=users[s.seat_of(winner)].pk if winner else None)
    else:
        columns.update(phase=s.phase.value, to_move=s.to_move)
    seats = [{"index": i, "points": table[i].points, "place": table[i].place, "left": left.get(i, "")}
             for i in range(len(users))]
    return columns, seats


def old_series(apps: Any, users: list[Any], seed: bytes, play: Any) -> int:
    """A series as the code before rules versions stored it (no ``rules_version`` column): its
    actions, chosen by ``play(game, seed)`` on the engine's version 1 (as the services would
    have: seeded rolls), one ``SeriesAction`` row each, and the columns and seats ``_store``
    cached from that replay (``cached``)."""
    Game, Seat, Action = (apps.get_model("games", n) for n in ("SeriesGame", "SeriesSeat", "SeriesAction"))
    courses = new_courses("standard", rng=random.Random(seed))
    colors = list(SERIES_COLORS[:len(users)])
    game = EngineSeries(Series.start(courses, colors, 0, rules_version=1))
    rows = play(game, seed)

    row = Game.objects.create(
        created_by_id=users[0].pk, seats_wanted=len(users), status="active", first_start=0,
        course_keys=[stored_course(course_data(c)).key for c in courses],
        dice_seed=seed.hex(), dice_seed_sha256=sha256(seed).hexdigest(), phase="place",
    )
    # the cached columns, as services_series._store computed them from the replay
    columns, seats = cached(game, users)
    for field, value in columns.items():
        setattr(row, field, value)
    row.save()
    for seat, color, user in zip(seats, colors, users, strict=True):
        Seat.objects.create(series=row, color=color, user_id=user.pk, **seat)
    for ply, seat, kind, data in rows:
        Action.objects.create(series=row, ply=ply, race=0, seat=seat, user_id=users[seat].pk, kind=kind, data=data)
    return int(row.pk)


def leave(game: EngineSeries, seat: int) -> tuple[int, int, str, dict[str, Any]]:
    ply = game.series.ply
    game.resign(seat)
    return ply, seat, "leave", {"termination": Termination.RESIGN.value}


def two_leave_during_placing(game: EngineSeries, seed: bytes) -> list[tuple[int, int, str, dict[str, Any]]]:
    """Three players, start player Yellow (placing Orange, Red, Yellow): Yellow and Red leave
    before anyone placed. Orange, never placed, is alone: by version 1 ranked 1st of n = 3."""
    return [leave(game, 0), leave(game, 1)]


def first_placer_leaves(game: EngineSeries, seed: bytes) -> list[tuple[int, int, str, dict[str, Any]]]:
    """Four players, start player Yellow (placing Purple first): Purple leaves before placing;
    the other three play race A out (greedy players, seeded rolls) and race B begins."""
    rows = [leave(game, 3)]
    players = {seat: greedy_player(seat) for seat in range(4)}
    while len(game.series.races) == 1:
        ply, seat, state = game.series.ply, game.series.to_move, game.state
        if state.phase is Phase.PLACE:
            cell, heading = players[seat].place(state)
            game.place(cell, heading)
            rows.append((ply, seat, "place", {"cell": list(cell), "heading": heading}))
        elif state.phase is Phase.DICE:
            choice = players[seat].dice(state)
            move = game.choose_dice(choice, SeededDice(seed, ply))
            held = move if move is not None else game.state.pending
            assert held is not None
            rows.append((ply, seat, "roll", {"choice": choice_json(choice), "rolled": list(held.rolled),
                                             "dice": list(held.dice)}))
        else:
            direction = players[seat].direction(state)
            game.choose_direction(direction)
            rows.append((ply, seat, "direction", {"direction": direction}))
    return rows


@pytest.mark.slow
def test_series_that_exist_get_rules_version_1_and_verify_new_ones_take_version_2():
    executor = database_at(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    users = [make_user(n) for n in ("ann", "bob", "cid", "dee")]
    ended = old_series(apps, users[:3], sha256(b"ended").digest(), two_leave_during_placing)
    played = old_series(apps, users, sha256(b"played").digest(), first_placer_leaves)
    lobby = apps.get_model("games", "SeriesGame").objects.create(created_by_id=users[0].pk).pk  # still open

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    # each series is a game of the boxed rules numbered as it was, of rules version 1
    series_games = Game.objects.filter(series_number__isnull=False)
    assert dict(series_games.values_list("series_number", "rules_version")) == {ended: 1, played: 1, lobby: 1}
    assert set(series_games.values_list("ruleset", flat=True)) == {"boxed"}
    call_command("verify_games")  # every game, the series among them: raises CommandError on any difference
    # what the players saw stands: Orange 1st of the three boats, (3 − 1) × 1 (version 2: 0)
    series = Game.objects.get(series_number=ended)
    assert series.status == "finished"
    assert series.result_reason == "Orange wins the series with 2 points (ended after race A: fewer than two players left)"
    assert {s.color: s.points for s in series.seats.all()} == {"yellow": 0, "red": 0, "orange": 2}
    # Purple left before placing and still counts in n: (4 − p) × 1
    series = Game.objects.get(series_number=played)
    assert series.race == 1 and series.status == "active"
    engine = match_of(series, series.seat_list())
    assert isinstance(engine, Series)
    scores = race_scores(engine.races[0])
    placed = sorted((s.position, s.points) for s in scores if s.position is not None)
    assert placed == [(p, 4 - p) for p in range(1, len(placed) + 1)] and len(placed) >= 2
    assert {s.color: s.points for s in series.seats.all()} == {s.color: s.points for s in scores}
    # had the migration given them version 2, neither would be its replay
    for number in (ended, played):
        series = Game.objects.get(series_number=number)
        series.rules_version = 2
        BOXED.forget()
        assert "the replay gives" in (check_game(series) or ""), number
    # a series created now takes the newest version
    assert services.game_open(user=users[0], seats=3).rules_version == 2
