"""Game and challenge services: checks, refusals that change nothing, idempotency, fair dice,
and real concurrency on PostgreSQL."""

from __future__ import annotations

import hashlib

import pytest
from django.core.management import call_command

from common.errors import Conflict, NotAPlayer
from games import services
from games.engine import Change, DiceChoice, SeededDice
from games.errors import GameIsOver, IllegalMoveError, NotYourTurn, StalePly
from games.models import AppendOnly, Challenge, Game, IdempotentRequest, Move
from games.signals import game_finished

from .factories import greedy_action, make_game, make_user, placed_game, play_until, race, snapshot

pytestmark = pytest.mark.django_db


# --- challenges ---------------------------------------------------------------------------


def test_an_open_challenge_accepted_starts_a_game_with_the_chosen_colours():
    ann, bob = make_user("ann"), make_user("bob")
    challenge = services.challenge_create(user=ann, color="red", days_per_move=5, course_letter="B", lake_side="expert")
    game = services.challenge_accept(user=bob, challenge_id=challenge.pk)
    assert game.player(1) == ann and game.player(0) == bob
    assert game.course_letter == "B" and game.lake_side == "expert" and game.days_per_move == 5
    assert game.phase == "place" and game.to_move == 0 and game.ply == 0
    assert game.dice_seed_sha256 == hashlib.sha256(bytes.fromhex(game.dice_seed)).hexdigest()
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.ACCEPTED and challenge.game == game
    assert game.seats.count() == 2


def test_a_named_challenge_is_only_for_that_player_and_can_be_declined():
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    challenge = services.challenge_create(user=ann, opponent=bob)
    with pytest.raises(NotAPlayer):
        services.challenge_accept(user=cid, challenge_id=challenge.pk)
    services.challenge_decline(user=bob, challenge_id=challenge.pk)
    with pytest.raises(Conflict):
        services.challenge_accept(user=bob, challenge_id=challenge.pk)
    assert not Game.objects.exists()


def test_only_the_maker_cancels_and_nobody_accepts_their_own():
    ann, bob = make_user("ann"), make_user("bob")
    challenge = services.challenge_create(user=ann)
    with pytest.raises(Conflict):
        services.challenge_accept(user=ann, challenge_id=challenge.pk)
    with pytest.raises(NotAPlayer):
        services.challenge_cancel(user=bob, challenge_id=challenge.pk)
    services.challenge_cancel(user=ann, challenge_id=challenge.pk)
    with pytest.raises(Conflict):
        services.challenge_accept(user=bob, challenge_id=challenge.pk)


@pytest.mark.parametrize(
    ("options", "field"),
    [({"color": "green"}, "color"), ({"days_per_move": 4}, "days_per_move"), ({"course_letter": "D"}, "course_letter"),
     ({"lake_side": "deep"}, "lake_side")],
)
def test_bad_challenge_options_name_the_field(options, field):
    with pytest.raises(Exception) as err:
        services.challenge_create(user=make_user("ann"), **options)
    assert getattr(err.value, "field", None) == field
    assert not Challenge.objects.exists()


# --- turns --------------------------------------------------------------------------------


def test_yellow_places_first_and_red_moves_first():
    """R5 through the services."""
    game = make_game()
    line = game.course.data["course"]["start_finish_cells"]
    with pytest.raises(NotYourTurn):
        services.game_place(user=game.player(1), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    result = services.game_place(user=game.player(1), game_id=game.pk, ply=1, cell=tuple(line[1]), heading=0)
    assert result["phase"] == "dice" and result["to_move"] == "red" and result["ply"] == 2
    assert [m.kind for m in game.moves.all()] == ["place", "place"]


def test_a_refused_placement_changes_nothing():
    game = make_game()
    before = snapshot(game)
    off_line = [0, 5]
    with pytest.raises(IllegalMoveError) as err:
        services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(off_line), heading=0)
    assert err.value.rule == "R5" and err.value.field == "cell"
    assert snapshot(game) == before


def test_the_server_rolls_from_the_committed_seed():
    """Fair dice: the values rolled at ply p are SeededDice(seed, p), whatever the client sends."""
    game = placed_game()
    result = services.game_roll(user=game.player(1), game_id=game.pk, ply=2, choice=DiceChoice(Change.ADD))
    expected = SeededDice(bytes.fromhex(game.dice_seed), 2).roll(1)
    assert result["rolled"] == list(expected)
    game.refresh_from_db()
    assert game.ply == 3 or game.phase == "dice"


def test_illegal_dice_choices_are_refused_with_the_rule_and_change_nothing():
    game = placed_game()
    before = snapshot(game)
    with pytest.raises(IllegalMoveError) as err:
        services.game_roll(user=game.player(1), game_id=game.pk, ply=2, choice=DiceChoice(Change.KEEP))
    assert err.value.rule == "R6" and "first move" in err.value.message
    assert snapshot(game) == before


def test_a_stale_ply_is_refused():
    game = placed_game()
    before = snapshot(game)
    with pytest.raises(StalePly) as err:
        services.game_roll(user=game.player(1), game_id=game.pk, ply=1, choice=DiceChoice(Change.ADD))
    assert err.value.status == 409 and "ply 2" in err.value.message
    assert snapshot(game) == before


def test_only_players_move_and_only_on_their_turn():
    game = placed_game()
    stranger = make_user("stranger")
    with pytest.raises(NotAPlayer):
        services.game_roll(user=stranger, game_id=game.pk, ply=2, choice=DiceChoice(Change.ADD))
    with pytest.raises(NotYourTurn):
        services.game_roll(user=game.player(0), game_id=game.pk, ply=2, choice=DiceChoice(Change.ADD))


def test_a_whole_game_is_stored_as_its_replay():
    """The stored state equals the replay of the move rows at every step (verify_games)."""
    game = placed_game()
    for _ in range(12):
        greedy_action(game)
        call_command("verify_games", game.pk)
    game = play_until(game, lambda g: False)
    assert game.over and game.termination in {"finish", "sink", "cutoff"}
    call_command("verify_games")
    turns = game.moves.filter(kind=Move.Kind.TURN)
    assert turns.exists() and all(m.notation for m in turns)


def test_verify_games_exits_non_zero_on_a_mismatch(capsys):
    game = placed_game()
    for _ in range(6):
        greedy_action(game)
    seat = game.seats.get(index=1)
    seat.damage += 1
    seat.save()
    with pytest.raises(SystemExit) as exit_:
        from django.core.management import execute_from_command_line

        execute_from_command_line(["manage.py", "verify_games"])
    assert exit_.value.code == 1
    assert f"game {game.pk}: red: stored damage=" in capsys.readouterr().out


def test_the_move_history_is_append_only():
    game = placed_game()
    move = game.moves.first()
    move.heading = 3
    with pytest.raises(AppendOnly):
        move.save()
    with pytest.raises(AppendOnly):
        move.delete()


def test_a_retried_request_with_the_same_key_gets_the_first_answer():
    game = placed_game()
    first = services.game_roll(user=game.player(1), game_id=game.pk, ply=2, choice=DiceChoice(Change.ADD), idempotency_key="k1")
    again = services.game_roll(user=game.player(1), game_id=game.pk, ply=2, choice=DiceChoice(Change.ADD), idempotency_key="k1")
    assert again == first
    # placements, the roll, and the turn if its only direction was taken at once (R7)
    assert game.moves.count() == (3 if first["move"] is None else 4)
    with pytest.raises(Conflict):
        services.game_resign(user=game.player(1), game_id=game.pk, idempotency_key="k1")


def test_resigning_ends_the_game_and_announces_it_after_commit(django_capture_on_commit_callbacks):
    game = placed_game()
    finished = []
    game_finished.connect(lambda sender, game_id, **kw: finished.append(game_id), weak=False, dispatch_uid="t")
    try:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            services.game_resign(user=game.player(0), game_id=game.pk)
        assert finished == []  # not before the commit
        for callback in callbacks:
            callback()
        assert finished == [game.pk]
    finally:
        game_finished.disconnect(dispatch_uid="t")
    game.refresh_from_db()
    assert game.over and game.winner == game.player(1) and game.termination == "resign"
    with pytest.raises(GameIsOver) as err:
        services.game_roll(user=game.player(1), game_id=game.pk, ply=game.ply, choice=DiceChoice(Change.ADD))
    assert err.value.status == 409


def test_a_finished_games_dice_check_out_and_a_changed_roll_is_found(capsys):
    game = play_until(placed_game(), lambda g: False)
    call_command("check_dice", game.pk)
    assert f"game {game.pk}: ok" in capsys.readouterr().out
    move = game.moves.filter(kind=Move.Kind.TURN).order_by("ply").first()
    Move.objects.filter(pk=move.pk).update(rolled=[4])
    from django.core.management.base import CommandError

    with pytest.raises(CommandError):
        call_command("check_dice", game.pk)
    assert "rolled [4], the seed gives" in capsys.readouterr().out


# --- concurrency (PostgreSQL) ----------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_submissions_give_one_move_and_one_refusal():
    for _ in range(5):
        game = placed_game(yellow=make_user(f"y{Game.objects.count()}"), red=make_user(f"r{Game.objects.count()}"))
        roll = lambda game=game: services.game_roll(user=game.player(1), game_id=game.pk, ply=2, choice=DiceChoice(Change.ADD))  # noqa: E731
        results = race([roll, roll])
        ok = [r for r in results if isinstance(r, dict)]
        refused = [r for r in results if isinstance(r, StalePly)]
        assert len(ok) == 1 and len(refused) == 1, results
        game.refresh_from_db()
        assert game.ply == ok[0]["ply"]
        assert Move.objects.filter(game=game, kind=Move.Kind.TURN).count() == (1 if ok[0]["move"] else 0)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_retries_with_one_key_give_the_same_answer():
    game = placed_game()
    roll = lambda: services.game_roll(  # noqa: E731
        user=game.player(1), game_id=game.pk, ply=2, choice=DiceChoice(Change.ADD), idempotency_key="same")
    first, second = race([roll, roll])
    assert isinstance(first, dict) and first == second
    assert IdempotentRequest.objects.filter(key="same").count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_directions_store_one_move():
    game = placed_game()
    while True:
        greedy_action(game)
        game.refresh_from_db()
        if game.phase == "direction":
            break
    from games.state import state_of

    allowed = state_of(game).allowed_directions()
    go = [lambda d=d: services.game_choose_direction(user=game.player(game.to_move), game_id=game.pk, ply=game.ply,
                                                       direction=d) for d in (allowed * 2)[:2]]
    results = race(go)
    assert sum(isinstance(r, dict) for r in results) == 1
    assert sum(isinstance(r, StalePly) for r in results) == 1
    call_command("verify_games", game.pk)
