"""Glicko-2 against the paper's example and an independent computation."""

from __future__ import annotations

import math

import pytest

from games.ratings.glicko2 import Rating, expected_score, idle, rate

OPPONENTS = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]


def test_the_papers_example():
    """Glickman, "Example of the Glicko-2 system": 1500/200/0.06, tau 0.5 → 1464.06 / 151.52 / 0.05999."""
    new = rate(Rating(1500, 200, 0.06), OPPONENTS, tau=0.5)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)


def reference(r: float, rd: float, sigma: float, games, tau: float) -> tuple[float, float, float]:
    """The paper's steps written out again, with bisection instead of the Illinois method."""
    q = 173.7178
    mu, phi = (r - 1500) / q, rd / q
    g = lambda p: 1 / math.sqrt(1 + 3 * p**2 / math.pi**2)  # noqa: E731
    terms = []
    for opp, s in games:
        mj, pj = (opp.rating - 1500) / q, opp.deviation / q
        e = 1 / (1 + math.exp(-g(pj) * (mu - mj)))
        terms.append((g(pj), e, s))
    v = 1 / sum(gj**2 * e * (1 - e) for gj, e, _ in terms)
    delta = v * sum(gj * (s - e) for gj, e, s in terms)
    a = math.log(sigma**2)

    def f(x):
        return math.exp(x) * (delta**2 - phi**2 - v - math.exp(x)) / (2 * (phi**2 + v + math.exp(x)) ** 2) - (x - a) / tau**2

    lo, hi = a - 30, a + 30  # f is decreasing: f(lo) > 0 > f(hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    sigma2 = math.exp(lo / 2)
    phi_star = math.sqrt(phi**2 + sigma2**2)
    phi2 = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    mu2 = mu + phi2**2 * sum(gj * (s - e) for gj, e, s in terms)
    return mu2 * q + 1500, phi2 * q, sigma2


@pytest.mark.parametrize(
    ("r", "rd", "sigma", "tau"),
    [(1700, 150, 0.06, 0.5), (2150, 60, 0.045, 0.75), (1210, 320, 0.09, 0.3), (1500, 200, 0.06, 0.5)],
)
def test_players_away_from_1500_match_an_independent_computation(r, rd, sigma, tau):
    """The paper's example hides errors that scale with the player's own rating (or use the
    rating where the deviation belongs); players far from 1500 do not."""
    new = rate(Rating(r, rd, sigma), OPPONENTS, tau=tau)
    want = reference(r, rd, sigma, OPPONENTS, tau)
    assert new.rating == pytest.approx(want[0], abs=1e-4)
    assert new.deviation == pytest.approx(want[1], abs=1e-4)
    assert new.volatility == pytest.approx(want[2], abs=1e-7)


def test_expected_score_and_idle_growth():
    assert expected_score(Rating(1500, 50), Rating(1500, 50)) == pytest.approx(0.5)
    assert expected_score(Rating(1700, 50), Rating(1500, 50)) > 0.7
    grown = idle(Rating(1600, 60, 0.06), 52)
    assert grown.rating == 1600 and 60 < grown.deviation < 120
    assert rate(Rating(1600, 60, 0.06), []).deviation > 60
