"""The series a process keeps (issue 25: the replay cache was not safe under the web process's
thread pool; games.rulesets.Boxed): immutable engine ``Series`` values kept by (game id, dice-seed
hash, ply), shared by the threads under a lock and never changed. A page that holds a kept series
sees one state while an action goes on, because the action makes a new series from it; an action
refused (or rolled back) leaves the kept series as it was."""

from __future__ import annotations

import dataclasses
import random
import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.engine import Change, DiceChoice, Phase
from games.errors import IllegalMoveError
from games.models import Game, Move
from games.rulesets import BOXED, CACHE_SIZE, match_of
from games.state import replay

from .factories import make_user
from .series_play import play

pytestmark = pytest.mark.django_db(transaction=True)  # a series is kept on commit



def started():
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    series = services.game_open(user=users[0], seats=3)
    for user in users[1:]:
        services.game_join(user=user, game_id=series.pk, rng=random.Random(5))
    series.refresh_from_db()
    return series


def seats_of(series: Game) -> list:
    return list(series.seats.select_related("user"))


def replayed(series: Game, upto: int | None = None):
    """The series as its history makes it (up to ``upto`` plies), replayed anew: not a kept one."""
    rows = [r for r in Move.objects.filter(game=series).order_by("ply") if upto is None or r.ply < upto]
    return replay(series, seats_of(series), rows)


def in_dice_phase() -> Game:
    series = started()
    play(series.pk, seed=1, stop=lambda engine: engine.race.phase is Phase.DICE)
    series.refresh_from_db()
    return series


def test_a_series_read_by_a_page_is_not_changed_by_the_next_action():
    series = in_dice_phase()
    held = match_of(series, seats_of(series))  # what a page is reading
    assert match_of(series, seats_of(series)) is held, "kept: read again without a replay"
    ply, races = held.ply, held.races
    assert held == replayed(series)
    play(series.pk, seed=1, stop=lambda engine: engine.ply >= ply + 3)
    assert held.ply == ply and held.races is races, "the page's series did not move under it"
    assert held == replayed(series, upto=ply)
    with pytest.raises(dataclasses.FrozenInstanceError):
        held.races = ()  # type: ignore[misc]  # a kept series cannot be changed in place
    series.refresh_from_db()
    kept = match_of(series, seats_of(series))
    assert kept is not held and kept.ply == series.ply >= ply + 3
    assert kept.races[0] != held.races[0]
    assert kept == replayed(series)
    assert match_of(series, seats_of(series)) is kept, "the series the last action made is the one kept"


def test_a_series_acted_on_is_a_new_one_and_the_kept_one_stays_as_it_was():
    series = in_dice_phase()
    original = match_of(series, seats_of(series))
    before = replayed(series)
    after = original.resign(original.to_move)
    assert after is not original and after != original
    assert original == before and original.ply == series.ply and not original.left
    assert after.ply == series.ply + 1 and after.left == {original.to_move}
    assert match_of(series, seats_of(series)) is original, "nothing committed: the kept series is still it"


def test_a_refused_action_leaves_the_kept_series_as_it_was(monkeypatch):
    """Refused by the services before the engine (a direction while the dice are awaited), by the
    engine (R6: the first move adds one die), or rolled back after the engine made the new series
    (a failing write): the kept series is the same value as before, and the game's stored state
    too."""
    series = in_dice_phase()
    kept = match_of(series, seats_of(series))
    before = replayed(series)
    mover = series.seat_at(series.to_move).user
    with pytest.raises(IllegalMoveError):
        services.game_choose_direction(user=mover, game_id=series.pk, ply=series.ply, direction=0)
    with pytest.raises(IllegalMoveError) as info:
        services.game_roll(user=mover, game_id=series.pk, ply=series.ply, choice=DiceChoice(Change.KEEP))
    assert info.value.rule == "R6"

    def failing_send(self):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(services.Writes, "send", failing_send)
    with pytest.raises(RuntimeError):
        services.game_roll(user=mover, game_id=series.pk, ply=series.ply, choice=DiceChoice(Change.ADD))
    monkeypatch.undo()
    series.refresh_from_db()
    assert series.ply == kept.ply and Move.objects.filter(game=series).count() == kept.ply
    assert match_of(series, seats_of(series)) is kept and kept == before
    # and the action, made again, goes on from it
    services.game_roll(user=mover, game_id=series.pk, ply=series.ply, choice=DiceChoice(Change.ADD))
    series.refresh_from_db()
    assert series.ply > kept.ply and kept == before
    assert match_of(series, seats_of(series)) == replayed(series)


def test_a_page_that_read_the_game_before_an_action_sees_the_series_at_the_games_ply():
    """A page (or an API read, a bot) reads the game, another request's action commits, then the
    page asks for the series of the game it read, which this process has not kept (it never saw
    it, or dropped it): it gets the series at that game's ply, the state its columns say, not a
    later one."""
    series = in_dice_phase()
    page_game = Game.objects.get(pk=series.pk)
    seats = seats_of(page_game)
    play(series.pk, seed=1, stop=lambda engine: engine.ply >= page_game.ply + 2)  # another request
    BOXED.forget()
    found = match_of(page_game, seats)
    assert found.ply == page_game.ply, (found.ply, page_game.ply)
    assert found == replayed(series, upto=page_game.ply)


def test_a_page_reading_while_an_action_is_being_recorded_sees_the_series_before_it(monkeypatch):
    """Between the engine's decision and the commit (the action's new series made, its state being
    written), a page reads the game as committed: it gets the kept series as it was, and once the
    action commits the series it made is the one kept."""
    series = in_dice_phase()
    held = match_of(series, seats_of(series))
    before = replayed(series)
    during: list[tuple[object, object]] = []
    store_state = services.store_state

    def reading_meanwhile(game, seats, match):
        during.append((match_of(series, seats_of(series)), match))  # ``series``: the page's, as committed
        return store_state(game, seats, match)

    monkeypatch.setattr(services, "store_state", reading_meanwhile)
    mover = series.seat_at(series.to_move).user
    services.game_roll(user=mover, game_id=series.pk, ply=series.ply, choice=DiceChoice(Change.ADD))
    monkeypatch.undo()
    (read, made), = during
    assert read is held and held == before and made.ply > held.ply
    series.refresh_from_db()
    assert series.ply == made.ply and match_of(series, seats_of(series)) is made
    assert made == replayed(series) and held == before


def test_pages_reading_in_threads_while_actions_go_on_each_see_one_state():
    """Readers in threads (as a web process's) read kept series over and over while the series is
    played on in another thread, whose actions keep the series they make: the series held since
    before (a page still showing it) and each newer one read for a game as committed. Every read
    of a ply gives the same series, at that ply, the one the history makes there. (The readers
    read no database: the test's SQLite, a shared in-memory cache, locks a table against its
    writer; every ply they ask for was kept by the actions.)"""
    series = in_dice_phase()
    seats = seats_of(series)
    start = series.ply
    held = match_of(series, seats)
    committed: list[Game] = [Game.objects.get(pk=series.pk)]  # the games as committed, published
    seen: dict[int, object] = {start: held}
    errors: list[BaseException] = []
    done = threading.Event()

    def read() -> None:
        try:
            while not done.is_set():
                assert match_of(series, seats) is held
                game = committed[-1]
                found = match_of(game, seats)
                assert found.ply == game.ply, (found.ply, game.ply)
                assert seen.setdefault(found.ply, found) is found, f"two series read at ply {found.ply}"
        except BaseException as exc:  # a thread's failure is the test's
            errors.append(exc)

    readers = [threading.Thread(target=read) for _ in range(3)]
    for t in readers:
        t.start()

    def publish(engine) -> bool:
        committed.append(Game.objects.get(pk=series.pk))
        return engine.ply >= start + 12

    try:
        play(series.pk, seed=1, stop=publish)
    finally:
        done.set()
        for t in readers:
            t.join()
    assert errors == [], [repr(e)[:200] for e in errors]
    assert len(seen) > 2 and held.ply == start
    for ply, found in seen.items():
        assert found == replayed(series, upto=ply), ply


def test_kept_series_are_shared_by_threads_without_losing_one():
    series = started()
    seats = seats_of(series)
    made = replayed(series)
    errors: list[BaseException] = []

    def churn(n: int) -> None:
        try:
            for i in range(2000):
                BOXED.keep(series, made)
                assert BOXED.match_of(series, seats) == made
                if i % 7 == n:
                    BOXED.forget()
        except BaseException as exc:  # a thread's failure is the test's
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=churn, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(BOXED._kept) <= CACHE_SIZE


def test_a_series_missing_from_the_kept_ones_is_replayed_onward_from_the_latest_kept_before_it(
        django_assert_num_queries):
    """An action another process made (or one whose transaction a test never commits) was not
    kept here: the series is replayed from the latest kept before it, only the rows after that
    read, and it is the whole history's replay at every ply."""
    series = started()
    seats = seats_of(series)
    play(series.pk, seed=3, stop=lambda engine: engine.ply >= 40)
    series.refresh_from_db()
    end = series.ply
    BOXED.forget()
    at = {}
    for ply in (10, 11, 25, end):
        series.ply = ply  # the game as it was read at that ply
        with django_assert_num_queries(1):  # the rows after the kept one (the first: the whole history)
            at[ply] = match_of(series, seats)
    for ply, match in at.items():
        assert match.ply == ply and match == replayed(series, ply), ply
    # the onward replay reads only the rows after the kept series
    BOXED.forget()
    series.ply = 10
    match_of(series, seats)
    series.ply = end
    with CaptureQueriesContext(connection) as read:
        assert match_of(series, seats) == at[end]
    [query] = read.captured_queries
    assert '"ply" >= 10' in query["sql"] and f'"ply" < {end}' in query["sql"], query["sql"]
