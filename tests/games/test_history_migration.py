"""The migrations of issue 10 keep every game: histories in the old layout (a turn at its roll's
ply, no roll or end rows, the course inside the game row) come out in the new one and verify —
also a game resigned between a roll and its direction, whose roll the old layout lost and the
migration recovers from the committed seed."""

from __future__ import annotations

from hashlib import sha256

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games.engine import Change, DiceChoice, GameState, Phase, SeededDice
from games.engine.notation import format_move, format_placement
from games.engine.record import choice_json
from games.engine.rules import Placement
from tests.migrating import database_at

from .factories import fixed_course

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("games", "0003_termination_length"), ("accounts", "0007_user_name_key_unique"),
          ("tournaments", "0002_swiss")]


def old_game(apps, yellow, red, seed: bytes, course_json, turns: int, then: str):
    """A game written as the old code wrote it: play ``turns`` turns (adding a die, taking the
    first allowed direction), then ``then``: "pending" (roll and stop), "resign_pending" (roll,
    then Red resigns) or "" (stop after the turns)."""
    from games.engine.record import course_from_json, grid_json

    Game, Seat, Move = (apps.get_model("games", n) for n in ("Game", "Seat", "Move"))
    course = course_from_json({"grid": grid_json(), **course_json})
    state = GameState.initial(course)
    game = Game.objects.create(
        yellow=yellow, red=red, course=course_json, course_letter=course.letter, lake_side=course.lake.side,
        dice_seed=seed.hex(), dice_seed_sha256=sha256(seed).hexdigest(),
    )
    for seat in (0, 1):
        cell = course.line[2 * seat]
        Move.objects.create(game=game, ply=state.ply, seat=seat, user=(yellow, red)[seat], kind="place", final=list(cell),
                            heading=0, notation=format_placement(Placement(seat, ("yellow", "red")[seat], cell, 0)))
        state = state.place(cell, 0)
    played = 0
    while played < turns and not state.over:
        state, move = state.choose_dice(DiceChoice(Change.ADD if len(state.boat.dice) < 2 else Change.KEEP),
                                        SeededDice(seed, state.ply))
        if move is None:
            state, move = state.choose_direction(state.allowed_directions()[0])
        Move.objects.create(
            game=game, ply=move.roll_ply, seat=move.seat, user=(yellow, red)[move.seat], kind="turn", number=move.number,
            choice=choice_json(move.choice), dice_before=list(move.dice_before), rolled=list(move.rolled),
            dice=list(move.dice), direction=move.direction, auto=move.auto, start=list(move.start), reach=move.reach,
            path=[list(c) for c in move.path], final=list(move.final), heading=move.heading, damage=move.damage,
            damage_total=move.damage_total, crash=move.crash, rounded=list(move.rounded), finished=move.finished,
            sunk=move.sunk, notation=format_move(move),
        )
        played += 1
    pending = None
    if then and not state.over:
        for choice in state.distinct_dice_choices():  # a roll that awaits its direction
            rolled, move = state.choose_dice(choice, SeededDice(seed, state.ply))
            if move is None:
                state = rolled
                break
        else:
            raise AssertionError("choose another seed: every roll took its only direction at once")
        assert state.pending is not None
        pending = {"choice": choice_json(state.pending.choice), "dice_before": list(state.pending.dice_before),
                   "rolled": list(state.pending.rolled), "dice": list(state.pending.dice)}
        if then == "resign_pending":
            state = state.resign(1)
    game.ply, game.phase, game.to_move = state.ply, state.phase.value, state.to_move
    game.pending = pending if state.phase is Phase.DIRECTION else None
    if state.outcome is not None:
        game.status, game.termination, game.result_reason = "finished", state.outcome.termination.value, state.outcome.reason
        game.winner_color = ("yellow", "red")[state.outcome.winner] if state.outcome.winner is not None else ""
        game.winner = (yellow, red)[state.outcome.winner] if state.outcome.winner is not None else None
    game.save()
    for i, boat in enumerate(state.boats):
        Seat.objects.create(
            game=game, index=i, color=boat.color, user=(yellow, red)[i], q=boat.cell[0], r=boat.cell[1],
            heading=boat.heading, dice=list(boat.dice), damage=boat.damage, next_buoy=boat.next_buoy,
            count=boat.count, entries=list(boat.entries), finished=boat.finished, sunk=boat.sunk, moves=boat.moves,
            points=boat.points, grace_seconds=7 * 86400,
        )
    return game.pk


@pytest.mark.slow
def test_old_histories_are_converted_and_verify():
    executor = database_at(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    User = apps.get_model("accounts", "User")
    yellow = User.objects.create(username="oldy", name_key="oldy", email="y@example.com")
    red = User.objects.create(username="oldr", name_key="oldr", email="r@example.com")
    course = fixed_course(3)
    ids = {}
    for name, turns, then in (("going", 6, ""), ("pending", 4, "pending"), ("resigned_pending", 5, "resign_pending")):
        for i in range(30):  # a seed whose last roll awaits its direction
            try:
                ids[name] = old_game(apps, yellow, red, sha256(f"{name}{i}".encode()).digest(), course, turns, then)
                break
            except AssertionError:
                continue
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    from games.models import Game, Move

    call_command("verify_games", *ids.values())
    kinds = list(Move.objects.filter(game_id=ids["resigned_pending"]).order_by("ply").values_list("kind", flat=True))
    assert kinds[-2:] == ["roll", "end"], "the lost roll is back, then the resignation"
    game = Game.objects.get(pk=ids["pending"])
    assert game.phase == "direction" and Move.objects.filter(game=game).order_by("ply").last().kind == "roll"
    assert Game.objects.get(pk=ids["going"]).course.compact  # the course moved to its own table
