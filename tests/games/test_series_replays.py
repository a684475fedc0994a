"""The replays a process keeps of its series (issue 25: the replay cache was not safe under the
web process's thread pool): a page that holds a kept replay sees one state while an action goes
on, because the action works on a fork of it; the kept replays are shared under a lock."""

from __future__ import annotations

import random
import threading

import pytest

from games import services_series as svc
from games.engine import Phase

from .factories import make_user
from .series_play import play

pytestmark = pytest.mark.django_db(transaction=True)  # the kept replay is stored on commit



def started():
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    series = svc.series_create(user=users[0], seats=3)
    for user in users[1:]:
        svc.series_join(user=user, series_id=series.pk, rng=random.Random(5))
    series.refresh_from_db()
    return series


def test_a_replay_read_by_a_page_is_not_changed_by_the_next_action():
    series = started()
    play(series.pk, seed=1, stop=lambda engine: engine.race.phase is Phase.DICE)
    series.refresh_from_db()
    seats = list(series.seats.select_related("user"))
    held = svc.engine_of(series, seats)  # what a page is reading
    ply, record = held.series.ply, held.record()
    play(series.pk, seed=1, stop=lambda engine: engine.ply >= ply + 3)
    assert held.series.ply == ply and held.record() == record, "the page's replay did not move under it"
    series.refresh_from_db()
    kept = svc.engine_of(series, list(series.seats.select_related("user")))
    assert kept is not held and kept.series.ply == series.ply >= ply + 3
    assert kept.record()["races"][0]["moves"] != record["races"][0]["moves"]
    assert kept.record() == svc.replay(series, list(series.seats.select_related("user"))).record()


def test_a_fork_is_a_series_game_of_its_own():
    series = started()
    play(series.pk, seed=1, stop=lambda engine: engine.race.phase is Phase.DICE)
    series.refresh_from_db()
    original = svc.replay(series, list(series.seats.select_related("user")))
    fork = original.fork()
    before = original.record()
    assert fork.record() == before and fork is not original
    fork.resign(original.series.to_move)
    assert original.record() == before and fork.record() != before
    assert original.series.ply == series.ply and fork.series.ply == series.ply + 1


def test_kept_replays_are_shared_by_threads_without_losing_one():
    series = started()
    seats = list(series.seats.select_related("user"))
    game = svc.replay(series, seats)
    errors: list[BaseException] = []

    def churn(n: int) -> None:
        try:
            for i in range(2000):
                svc._cache_put(series, game)
                svc.engine_of(series, seats)
                if i % 7 == n:
                    with svc._CACHE_LOCK:
                        svc._CACHE.clear()
        except BaseException as exc:  # a thread's failure is the test's
            errors.append(exc)

    threads = [threading.Thread(target=churn, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(svc._CACHE) <= svc.CACHE_SIZE
