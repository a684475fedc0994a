"""Series ratings as two-player ratings (issue 23; docs/ratings.md, "Series of the boxed game"):
the same deviation bounds, the same growth over idle weeks, provisional ratings marked with a
question mark and kept off the multi-player leaderboard (page and API).

A series is rated as pairwise results (``games.ratings.rate_series``): every pair of players is a
game won by the one placed higher in the series table (R19; players who left rank below, R18),
and each player is rated once with Glicko-2 against all the others, from the ratings before the
series. The figures below are worked out by hand from Glickman's steps (``games/ratings/glicko2.py``),
scale 173.7178, τ = 0.5.
"""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from games import services as svc
from games.engine import SERIES_COLORS
from games.models import Game, Ruleset, Seat
from games.ratings.models import SeriesRating, SeriesRatingChange
from games.ratings.selectors import is_provisional, series_display
from games.ratings.services import MAX_DEVIATION, MIN_DEVIATION, before_game, rate_series

from .factories import make_user

pytestmark = pytest.mark.django_db

AT = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)
NAMES = ("ann", "bob", "cid", "dee")



def rated_players(idle_days: dict[str, int] | None = None) -> list:
    """Four established players: 1500, deviation 45 (the floor), volatility 0.03, last rated 3
    days before AT (no whole idle week) unless ``idle_days`` says otherwise."""
    users = []
    for name in NAMES:
        user = make_user(name)
        days = (idle_days or {}).get(name, 3)
        SeriesRating.objects.create(user=user, rating=1500, deviation=45, volatility=0.03, series=12,
                                    last_rated_at=AT - timedelta(days=days))
        users.append(user)
    return users


def finished_series(users, places) -> tuple[Game, list[Seat]]:
    """A finished rated series whose table (R19) placed ``users`` at ``places``."""
    series = Game.objects.create(ruleset=Ruleset.BOXED, series_number=1, created_by=users[0],
                                 seats_wanted=len(users), rated=True, status=Game.Status.FINISHED,
                                 phase=Game.Phase.OVER, to_move=None, finished_at=AT)
    seats = [Seat.objects.create(game=series, index=i, user=u, color=SERIES_COLORS[i], place=p)
             for i, (u, p) in enumerate(zip(users, places, strict=True))]
    return series, seats


def test_a_four_player_series_worked_by_hand_keeps_the_deviation_at_the_floor():
    """Ann 1st, Bob 2nd, Cid 3rd, Dee 4th of a four-player series. Everyone brings 1500 ± 45,
    σ = 0.03 (rated 3 days ago: no idle week), so every pair is an even game.

    Pairwise scores out of 3: Ann 3 (beat all), Bob 2, Cid 1, Dee 0.

    Step 2: φ = 45 / 173.7178 = 0.2590408, φ² = 0.0671021, μ = 0 for everyone.
    Step 3: g(φ) = 1 / √(1 + 3φ²/π²) = 1 / √(1.0203970) = 0.9899551; E = 1 / (1 + e⁰) = 0.5;
            v = 1 / Σ g²·E·(1 − E) = 1 / (3 · 0.9800111 · 0.25) = 1 / 0.7350083 = 1.3605288.
    Step 4: Σ g·(s − E) = g · (score − 1.5): Ann 1.4849327, Bob 0.4949776, Cid −0.4949776,
            Dee −1.4849327; Δ = v · that: ±2.020294 (Ann, Dee), ±0.673431 (Bob, Cid).
    Step 5: σ' (Illinois iteration on f(x), a = ln σ²): 0.0300022 for Δ² = 4.0816 (Ann, Dee),
            0.0299992 for Δ² = 0.4535 (Bob, Cid).
    Step 6: φ*² = φ² + σ'² = 0.0680023 (Ann, Dee), 0.0680021 (Bob, Cid).
    Step 7: φ' = 1 / √(1/φ*² + 1/v) = 1 / √(14.70539 + 0.73501) = 0.2544900 (Bob, Cid: 0.2544897);
            μ' = μ + φ'² · Σ g(s − E) = 0.0647652 · 1.4849327 = 0.0961719 (Ann),
            0.0647650 · 0.4949776 = 0.0320572 (Bob), −0.0320572 (Cid), −0.0961719 (Dee).
    Step 8: r' = 1500 + 173.7178 μ' = 1516.7068, 1505.5689, 1494.4311, 1483.2932;
            RD' = 173.7178 φ' = 44.2094 for all four: below the minimum deviation 45, so the
            bound binds and every deviation is stored as 45 (the rating comes from the unbounded
            φ', as for two-player games).
    """
    users = rated_players()
    series, seats = finished_series(users, [1, 2, 3, 4])
    assert rate_series(series, seats) is True
    rows = {r.user.username: r for r in SeriesRating.objects.select_related("user")}
    expected = {"ann": 1516.7068, "bob": 1505.5689, "cid": 1494.4311, "dee": 1483.2932}
    for name, rating in expected.items():
        row = rows[name]
        assert row.rating == pytest.approx(rating, abs=1e-3), name
        assert row.deviation == MIN_DEVIATION == 45.0, name  # unbounded 44.2094
        assert row.series == 13 and row.last_rated_at == AT
    assert rows["ann"].volatility == pytest.approx(0.0300022, abs=1e-7)
    assert rows["bob"].volatility == pytest.approx(0.0299992, abs=1e-7)
    assert rows["ann"].wins == 1 and rows["bob"].wins == 0
    changes = {c.user.username: c for c in SeriesRatingChange.objects.filter(game=series)}
    assert {n: (c.place, c.score) for n, c in changes.items()} == {
        "ann": (1, 3.0), "bob": (2, 2.0), "cid": (3, 1.0), "dee": (4, 0.0)}
    assert all(c.rating_before == 1500 and c.deviation_after == 45.0 for c in changes.values())
    assert changes["dee"].rating_after == pytest.approx(1483.2932, abs=1e-3)
    assert rate_series(series, seats) is False  # once


def test_a_year_idle_players_deviation_grows_before_the_series_is_rated():
    """The same series, but Dee's last rated series was 365 days before: 52 whole idle weeks
    (``RATING_PERIOD``), as for a two-player game.

    Before the series (step 6 per idle period, docs/ratings.md): Dee's deviation
    √(45² + 52 · (0.03 · 173.7178)²) = √(2025 + 1412.3245) = 58.6287, φ = 0.3374939, φ² = 0.1139021.
    Dee (4th, lost to all three, each 1500 ± 45 with g = 0.9899551, E = 0.5): v = 1.3605288 and
    Σ g(s − E) = −1.4849327 as before, Δ = −2.020294, σ' = 0.0300020; φ*² = 0.1139021 +
    0.0300020² = 0.1148023; φ' = 1 / √(8.71063 + 0.73501) = 0.3253751, φ'² = 0.1058690;
    μ' = −0.1058690 · 1.4849327 = −0.1572083: r' = 1472.6901, RD' = 56.5235 (within the bounds).
    Not idle she would have ended at 1483.2932 ± 45: the wider deviation she brought moves her
    rating more. The others now meet an opponent with g(0.3374939) = 0.9831259 in place of
    0.9899551: v = 1.3667930, and Ann 1516.6720, Bob 1505.5317, Cid 1494.3914, each with an
    unbounded deviation 44.214, stored as 45.
    """
    users = rated_players(idle_days={"dee": 365})
    dee_row = SeriesRating.objects.get(user__username="dee")
    brought = before_game(dee_row, AT)
    assert brought.deviation == pytest.approx(math.sqrt(45**2 + 52 * (0.03 * 173.7178) ** 2), abs=1e-6)
    assert brought.deviation == pytest.approx(58.6287, abs=1e-4) and brought.rating == 1500
    series, seats = finished_series(users, [1, 2, 3, 4])
    rate_series(series, seats)
    rows = {r.user.username: r for r in SeriesRating.objects.select_related("user")}
    assert rows["dee"].rating == pytest.approx(1472.6901, abs=1e-3)
    assert rows["dee"].deviation == pytest.approx(56.5235, abs=1e-3)
    assert rows["dee"].last_rated_at == AT
    for name, rating in {"ann": 1516.6720, "bob": 1505.5317, "cid": 1494.3914}.items():
        assert rows[name].rating == pytest.approx(rating, abs=1e-3), name
        assert rows[name].deviation == 45.0, name


def test_idle_growth_stops_at_the_maximum_deviation():
    """A deviation of 345 (σ 0.06) idle a year would grow to √(345² + 52 · (0.06 · 173.7178)²) =
    √(119025 + 5649.2980) = 353.0925: it is brought to a series as 350, the maximum."""
    user = make_user("eve")
    row = SeriesRating.objects.create(user=user, rating=1500, deviation=345, volatility=0.06, series=1,
                                      last_rated_at=AT - timedelta(days=365))
    assert before_game(row, AT).deviation == MAX_DEVIATION == 350.0
    assert before_game(row, AT - timedelta(days=300)).deviation == pytest.approx(
        math.sqrt(345**2 + 9 * (0.06 * 173.7178) ** 2), abs=1e-6)  # 65 days: 9 weeks, within the bounds


def test_a_series_finished_through_the_services_is_rated_at_its_finishing_time():
    """R18: two of three players resign, so the series ends; it is rated when it finishes, each
    player's idle weeks counted up to then and the deviations within the bounds."""
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    SeriesRating.objects.create(user=users[2], rating=1500, deviation=45, volatility=0.03, series=9,
                                last_rated_at=AT - timedelta(days=365))
    with time_machine.travel(AT, tick=False):
        series = svc.game_open(user=users[0], seats=3)
        svc.game_join(user=users[1], game_id=series.pk)
        svc.game_join(user=users[2], game_id=series.pk, rng=random.Random(16))
        svc.game_resign(user=users[0], game_id=series.pk)
        svc.game_resign(user=users[1], game_id=series.pk)
    series.refresh_from_db()
    assert series.status == Game.Status.FINISHED and series.finished_at == AT
    rows = {r.user.username: r for r in SeriesRating.objects.select_related("user")}
    assert all(r.last_rated_at == AT and MIN_DEVIATION <= r.deviation <= MAX_DEVIATION for r in rows.values())
    # Cid won both pairs from 1500 ± 58.6 (45 grown over 52 idle weeks) against two new players
    # (350): far from the floor, and higher than the 45 a Cid rated last week would bring
    assert rows["cid"].rating > 1500 and 45 < rows["cid"].deviation < 58.6287
    assert rows["ann"].deviation < 350 and rows["ann"].rating < 1500


def test_provisional_series_ratings_are_marked_and_kept_off_the_leaderboard():
    """The two-player rule (deviation 110 or more: provisional): shown as '1700?' beside the
    player's name on a series page, left off the multi-player leaderboard on /series/ and in
    GET /api/series/leaderboard/ (whose rows say ``provisional``); no series rating yet is
    '1500?'; a house bot (never rated in series) shows none."""
    def rated(name, rating, deviation):
        user = make_user(name)
        SeriesRating.objects.create(user=user, rating=rating, deviation=deviation, series=5, last_rated_at=AT)
        return user

    steady = rated("steady", 1612.4, 60)
    edge = rated("edgy", 1650, 109.9)
    shaky = rated("shaky", 1700, 120)
    border = rated("bordo", 1680, 110)  # 110 is provisional (as Rating.provisional)
    fresh = make_user("fresh")
    assert [is_provisional(SeriesRating.objects.get(user=u)) for u in (steady, edge, shaky, border)] == [
        False, False, True, True]
    assert is_provisional(None) and series_display(None) == "1500?"
    assert series_display(SeriesRating.objects.get(user=shaky)) == "1700?"

    lobby = Client().get("/series/").content.decode()
    start = lobby.index('id="leaderboard"')
    board = lobby[start:lobby.index("</table>", start)]
    assert "steady" in board and "1612 ± 60" in board and "edgy" in board
    assert "shaky" not in board and "bordo" not in board and "?" not in board
    assert board.index("edgy") < board.index("steady")  # by rating
    api = APIClient().get("/api/series/leaderboard/").json()
    assert [(r["username"], r["rating"], r["provisional"]) for r in api] == [
        ("edgy", 1650.0, False), ("steady", 1612.4, False)]

    # an open series: its seats with their series ratings
    series = svc.game_open(user=shaky, seats=4)
    svc.game_join(user=steady, game_id=series.pk)
    svc.game_join(user=fresh, game_id=series.pk)
    page = Client().get(f"/games/{series.pk}/").content.decode()
    assert '<li>shaky <small class="rating">1700?</small></li>' in page
    assert '<li>steady <small class="rating">1612</small></li>' in page
    assert '<li>fresh <small class="rating">1500?</small></li>' in page
    # started (a house bot takes the last seat): the series table shows them too
    svc.game_add_bot(user=shaky, game_id=series.pk, level="easy", rng=random.Random(4))
    series.refresh_from_db()
    assert series.status == Game.Status.ACTIVE
    page = Client().get(f"/games/{series.pk}/").content.decode()
    table = page[page.index('id="series-table"'):]
    assert 'shaky <small class="rating">1700?</small>' in table
    assert 'steady <small class="rating">1612</small>' in table
    assert 'fresh <small class="rating">1500?</small>' in table
    assert table.count('class="rating"') == 3  # none for the bot
