"""Glicko-2, from Mark Glickman's "Example of the Glicko-2 system" (steps 1–8).

Pure Python, no Django. Ratings are on the Glicko scale (1500, 350, 0.06); internally the
Glicko-2 scale (μ, φ) = ((r − 1500) / 173.7178, RD / 173.7178) is used, as in the paper.

>>> player = Rating(1500, 200, 0.06)
>>> new = rate(player, [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)], tau=0.5)
>>> round(new.rating, 2), round(new.deviation, 2), round(new.volatility, 5)
(1464.05, 151.52, 0.05999)

(The paper prints 1464.06: it rounds its intermediate values; computed exactly it is 1464.0507.)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

SCALE = 173.7178  # 400 / ln(10)
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
TAU = 0.5  # the system constant: how much volatility may change (the paper suggests 0.3 to 1.2)
EPSILON = 0.000001  # convergence tolerance of the volatility iteration (step 5)


@dataclass(frozen=True, slots=True)
class Rating:
    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY

    @property
    def mu(self) -> float:
        return (self.rating - DEFAULT_RATING) / SCALE

    @property
    def phi(self) -> float:
        return self.deviation / SCALE


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected_score(player: Rating, opponent: Rating) -> float:
    """E(s | μ, μj, φj) of step 3: the player's expected score against the opponent."""
    return _e(player.mu, opponent.mu, opponent.phi)


def idle(player: Rating, periods: float = 1.0) -> Rating:
    """Step 6 for rating periods without games: φ* = sqrt(φ² + n·σ²)."""
    phi = math.sqrt(player.phi**2 + periods * player.volatility**2)
    return Rating(player.rating, phi * SCALE, player.volatility)


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility σ', by the Illinois algorithm on f(x)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        num = ex * (delta * delta - phi * phi - v - ex)
        den = 2.0 * (phi * phi + v + ex) ** 2
        return num / den - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def rate(player: Rating, results: Iterable[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period with these (opponent, score) results.

    Scores are 1 for a win, 0.5 for a draw, 0 for a loss. With no results the deviation
    grows as in step 6.
    """
    games = list(results)
    if not games:
        return idle(player)
    mu, phi, sigma = player.mu, player.phi, player.volatility
    # step 3: the estimated variance v
    v_inv = 0.0
    delta_sum = 0.0
    for opponent, score in games:
        g = _g(opponent.phi)
        e = _e(mu, opponent.mu, opponent.phi)
        v_inv += g * g * e * (1.0 - e)
        delta_sum += g * (score - e)
    v = 1.0 / v_inv
    # step 4: the estimated improvement delta
    delta = v * delta_sum
    # step 5: the new volatility
    sigma_new = _volatility(phi, sigma, delta, v, tau)
    # step 6: the pre-rating-period value
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    # step 7: the new deviation and rating
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    # step 8: back to the Glicko scale
    return Rating(mu_new * SCALE + DEFAULT_RATING, phi_new * SCALE, sigma_new)
