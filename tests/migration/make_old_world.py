"""Make tests/migration/old_world.json: games and series as the code before one game for any
number of boats (issue 25) stored them, with what that code served about them, for the test of
the migration that moves them into the one game model (tests/migration/test_one_game_migration.py).

Run once, at the commit that adds it (the last one with ``Game.yellow``/``red`` and the series
tables), with::

    MAKE_OLD_WORLD=1 .venv/bin/pytest tests/migration/make_old_world.py

It plays through the services of that code (the lobby, the actions, the clock sweep, vacations,
idempotency keys, house bots), then writes every row of the tables involved (Django's JSON
serialization) and, per game and series, what the API answered: the record, the state as a
player and as a spectator sees it, the list of a player's games and series. The code it uses is
gone after the change, so it is kept for the record of how the file was made, not run by the suite.
"""

from __future__ import annotations

import json
import os
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.core import serializers
from rest_framework.test import APIClient

OUT = Path(__file__).resolve().parent / "old_world.json"
T0 = datetime(2026, 9, 1, 8, 0, tzinfo=UTC)

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(os.environ.get("MAKE_OLD_WORLD") != "1", reason="run by hand (MAKE_OLD_WORLD=1)")]

TABLES = ["accounts.user", "accounts.vacation", "games.lakecourse", "games.challenge", "games.game", "games.seat",
          "games.move", "games.emaillog", "games.idempotentrequest", "games.rating", "games.ratingchange",
          "games.liveevent", "games.liveseen", "games.seriesgame", "games.seriesseat", "games.seriesaction",
          "games.seriesrating", "games.seriesratingchange"]


def client(user: Any) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def test_make_the_old_world(monkeypatch):
    from accounts.models import User
    from games import services, services_series, vacations
    from games.engine import Phase
    from games.engine.players import GreedyPlayer
    from games.models import Game
    from games.models_series import SeriesGame
    from games.state import state_of
    from games.tasks import sweep_clocks
    from games.tasks_series import series_bot_act, sweep_series_clocks
    from tests.games.factories import fixed_course, make_user

    draws = random.Random(25)
    monkeypatch.setattr(random, "SystemRandom", lambda: random.Random(draws.random()))
    monkeypatch.setattr(services.secrets, "token_bytes", lambda n=32: draws.randbytes(n))
    services_series._CACHE.clear()
    clock = time_machine.travel(T0, tick=False)
    now = clock.start()

    def tick(minutes: float = 7) -> None:
        now.shift(timedelta(minutes=minutes))

    names = ("ann", "bob", "cid", "dee", "eve", "fay")
    users = {n: make_user(n) for n in names}
    bots = {u.bot_level: u for u in User.objects.filter(is_bot=True)}
    assert set(bots) >= {"easy", "normal", "strong"}, "the house bots (accounts migration 0004)"

    # --- two-player games --------------------------------------------------------------------
    def play_game(game: Game, until: Any, seed: int) -> Game:
        players = {0: GreedyPlayer(random.Random(seed)), 1: GreedyPlayer(random.Random(seed + 1))}
        for _ in range(600):
            game.refresh_from_db()
            if game.over or until(game):
                return game
            state = state_of(game)
            user = game.player(game.to_move)
            p = players[game.to_move]
            tick(3)
            if state.phase is Phase.PLACE:
                cell, heading = p.place(state)
                services.game_place(user=user, game_id=game.pk, ply=game.ply, cell=cell, heading=heading)
            elif state.phase is Phase.DICE:
                services.game_roll(user=user, game_id=game.pk, ply=game.ply, choice=p.dice(state),
                                   idempotency_key=f"k{game.pk}-{game.ply}" if game.ply % 7 == 0 else None)
            else:
                services.game_choose_direction(user=user, game_id=game.pk, ply=game.ply,
                                               direction=p.direction(state))
        raise AssertionError("did not get there")

    ann, bob, cid, dee, eve, fay = (users[n] for n in names)
    challenge = services.challenge_create(user=ann, color="yellow", days_per_move=2, rated=True)
    finished = services.challenge_accept(user=bob, challenge_id=challenge.pk)
    play_game(finished, lambda g: False, 1)
    awaiting = services.game_create(yellow=cid, red=dee, course_json=fixed_course(5), days_per_move=3)
    play_game(awaiting, lambda g: g.phase == "direction" and g.ply > 20, 3)
    resigned = services.game_create(yellow=eve, red=ann, course_json=fixed_course(6, letter="B"))
    play_game(resigned, lambda g: g.phase == "direction" and g.ply > 12, 5)
    tick()
    services.game_resign(user=eve, game_id=resigned.pk, idempotency_key="resign-1")
    dice = services.game_create(yellow=bob, red=cid, course_json=fixed_course(7, letter="C"), rated=False)
    play_game(dice, lambda g: g.phase == "dice" and g.ply > 8, 7)
    late = services.game_create(yellow=dee, red=fay, days_per_move=1, grace_days=0)
    play_game(late, lambda g: g.phase == "dice" and g.ply > 4, 9)
    adjudicated = services.game_create(yellow=fay, red=ann, course_json=fixed_course(8))
    play_game(adjudicated, lambda g: g.ply > 30 and g.phase == "dice", 11)
    tick()
    services.game_adjudicate(game_id=adjudicated.pk)
    vs_bot = services.game_create(yellow=ann, red=bots["easy"], course_json=fixed_course(9), rated=False)

    # --- series ------------------------------------------------------------------------------
    def series_now(series_id: int) -> tuple[Any, list[Any], Any]:
        series = SeriesGame.objects.get(pk=series_id)
        seats = list(series.seats.select_related("user"))
        return series, seats, services_series.engine_of(series, seats).series

    def play_series(series_id: int, seed: int, until: Any = None, limit: int = 6000) -> None:
        players: dict[int, GreedyPlayer] = {}
        for _ in range(limit):
            series, seats, engine = series_now(series_id)
            if series.status != SeriesGame.Status.ACTIVE or (until and until(series, engine)):
                return
            seat = services_series.playing_seats(seats)[series.to_move]
            tick(2)
            if seat.user.is_bot:
                series_bot_act(series_id=series_id, ply=series.ply)
                continue
            p = players.setdefault(seat.index, GreedyPlayer(random.Random(seed + seat.index)))
            state = engine.race
            key = f"s{series_id}-{series.ply}" if series.ply % 11 == 0 else None
            if state.phase is Phase.PLACE:
                cell, heading = p.place(state)
                services_series.series_place(user=seat.user, series_id=series_id, ply=series.ply, cell=cell,
                                             heading=heading, idempotency_key=key)
            elif state.phase is Phase.DICE:
                services_series.series_roll(user=seat.user, series_id=series_id, ply=series.ply,
                                            choice=p.dice(state), idempotency_key=key)
            else:
                services_series.series_direction(user=seat.user, series_id=series_id, ply=series.ply,
                                                 direction=p.direction(state), idempotency_key=key)
        raise AssertionError("the series did not get there")

    def opened(creator: Any, others: list[Any], seed: int, **options: Any) -> int:
        series = services_series.series_create(user=creator, seats=len(others) + 1, **options)
        for user in others[:-1]:
            services_series.series_join(user=user, series_id=series.pk)
        services_series.series_join(user=others[-1], series_id=series.pk, rng=random.Random(seed))
        return int(series.pk)

    # a rated 4-boat series, played to its end
    four = opened(ann, [bob, cid, dee], 16, days_per_move=2, rated=True)
    play_series(four, 1)
    # a 3-boat series in race B, one player resigned in race A, a roll awaiting its direction
    three = opened(bob, [cid, eve], 21, score_variant=True)
    play_series(three, 3, lambda s, e: len(e.races) == 1 and e.race.ply > 25)
    tick()
    services_series.series_resign(user=eve, series_id=three, idempotency_key="leave-1")
    play_series(three, 3, lambda s, e: len(e.races) == 2 and e.race.phase is Phase.DIRECTION and e.race.ply > 30)
    # a 5-boat series in which a player lost on time (the sweep), then in play
    five = opened(dee, [ann, bob, cid, fay], 33, days_per_move=1, grace_days=0)
    play_series(five, 5, lambda s, e: e.race.phase is Phase.DICE and e.race.ply > 12)
    tick(60 * 24 * 2)
    sweep_series_clocks()
    play_series(five, 5, lambda s, e: e.race.phase is Phase.DICE and e.race.ply > 20)
    # a series with a house bot (not rated), a player on vacation
    bot_series = services_series.series_create(user=cid, seats=3, rated=True)
    services_series.series_join(user=fay, series_id=bot_series.pk)
    services_series.series_add_bot(user=cid, series_id=bot_series.pk, level="normal", rng=random.Random(7))
    play_series(bot_series.pk, 7, lambda s, e: e.race.phase is Phase.DICE and e.race.ply > 9)
    # a version-1 series (created before rules versions), stopped during placing
    old = opened(eve, [fay, ann], 44)
    SeriesGame.objects.filter(pk=old).update(rules_version=1)
    services_series._CACHE.clear()
    play_series(old, 9, lambda s, e: e.race.ply >= 2)
    # one open in the lobby, one cancelled
    lobby = services_series.series_create(user=fay, seats=6, lake_side="expert")
    services_series.series_join(user=eve, series_id=lobby.pk)
    cancelled = services_series.series_create(user=eve, seats=3)
    services_series.series_cancel(user=eve, series_id=cancelled.pk)
    from games.models import LiveSeen

    LiveSeen.objects.create(user=ann, series_id=four, at=T0)  # a series' page seen live
    LiveSeen.objects.create(user=cid, game_id=awaiting.pk, at=T0)  # a game's page
    LiveSeen.objects.create(user=bob, at=T0)  # the API event stream
    tick()
    vacations.vacation_start(user=cid, days=3)
    tick(30)
    sweep_clocks()

    # --- what the old code served ----------------------------------------------------------
    served: dict[str, Any] = {"games": {}, "series": {}}
    spectator = client(users["fay"])
    for game in Game.objects.order_by("pk"):
        player = client(game.yellow)
        url = f"/api/games/{game.pk}/"
        served["games"][str(game.pk)] = {
            "record": player.get(url + "record/").json(),
            "player": player.get(url).json(),
            "spectator": spectator.get(url).json(),
        }
    for series in SeriesGame.objects.order_by("pk"):
        url = f"/api/series/{series.pk}/"
        player = client(series.created_by)
        entry = {"player": player.get(url).json(), "spectator": client(users["eve"]).get(url).json()}
        record = player.get(url + "record/")
        entry["record"] = record.json() if record.status_code == 200 else None
        served["series"][str(series.pk)] = entry
    served["lists"] = {n: {"games": client(u).get("/api/games/").json(), "series": client(u).get("/api/series/").json()}
                       for n, u in users.items()}
    rows = json.loads(serializers.serialize("json", [obj for label in TABLES
                                                    for obj in _model(label).objects.order_by("pk")]))
    OUT.write_text(json.dumps({"made_at": "the last commit with the series tables (issue 25)",
                               "rows": rows, "served": served}, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    clock.stop()
    assert vs_bot.pk and late.pk and dice.pk and awaiting.pk


def _model(label: str) -> Any:
    from django.apps import apps

    return apps.get_model(label)
