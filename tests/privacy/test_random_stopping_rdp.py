"""Theorem 2 of Papernot and Steinke (random stopping) in its Renyi form, checked against exact divergences.

For a run Q with a finite or Gaussian score, the law of the best of K runs is computed directly from the
probability generating function of geometric K (E[x^K] = gamma x / (1 - (1 - gamma) x)), and its Renyi
divergence at each order is evaluated numerically: the theorem's bound must lie above it, and a variant
without the theorem's log(1/gamma) and log(E[K]) terms must fall below it somewhere.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from dpcvx.exceptions import InputError
from dpcvx.privacy.privacy_curve import RDP_ORDERS, CurvePart, PrivacyCurve, compose_epsilon, rdp_to_epsilon
from dpcvx.privacy.stopping import StoppingRule, stopping_epsilon, stopping_rdp


def _renyi(p: np.ndarray, q: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """D_alpha(p || q) = log(sum p^alpha q^(1 - alpha)) / (alpha - 1) at each order, in logs."""
    a = orders[:, None]
    return logsumexp(a * np.log(p) + (1 - a) * np.log(q), axis=1) / (orders - 1)


def _symmetric_rdp(p: np.ndarray, q: np.ndarray, orders: np.ndarray) -> np.ndarray:
    return np.maximum(_renyi(p, q, orders), _renyi(q, p, orders))


def _geometric_pgf(gamma: float, x: np.ndarray) -> np.ndarray:
    return gamma * x / (1 - (1 - gamma) * x)


def _best_of_k(p: np.ndarray, gamma: float) -> np.ndarray:
    """Law of the best of K i.i.d. draws (outcomes in increasing order of score), K geometric."""
    below = np.concatenate([[0.0], np.cumsum(p)[:-1]])
    return _geometric_pgf(gamma, np.cumsum(p)) - _geometric_pgf(gamma, below)


def _without_log_terms(run_rdp: np.ndarray, rule: StoppingRule, orders: np.ndarray) -> np.ndarray:
    """A broken bound: Theorem 2 with its log(1/gamma) / lambda' and log(E[K]) / (lambda - 1) terms dropped."""
    return run_rdp + (1 + rule.eta) * float(np.min((1 - 1 / orders) * run_rdp))


def _three_outcome_runs(epsilon: float):
    """Pure epsilon-DP runs with scores 0 < 1 < 2: on the neighbour the best score is e^-eps times less
    likely and the middle one e^eps times more likely (the shape behind Liu and Talwar's 3 eps lower bound)."""
    for a in np.geomspace(1e-4, 0.3, 12):
        for b in np.geomspace(1e-4, 0.9, 12):
            p = np.array([1 - a - b, b, a])
            q = np.array([0.0, b * math.exp(epsilon), a * math.exp(-epsilon)])
            q[0] = 1 - q[1] - q[2]
            if q[0] > 0 and np.max(np.abs(np.log(p / q))) <= epsilon:
                yield p, q


def test_the_theorem_bounds_the_exact_divergence_of_a_pure_run_and_the_log_terms_are_needed():
    """Every order of the library's grid, E[K] = 16: the bound is above the exact divergence of the
    best of K (margin at least 0.1 here) and the variant without the log terms is below it (by > 1)."""
    epsilon, rule = 1.0, StoppingRule.with_mean(16)
    gamma, orders = float(rule.gamma), RDP_ORDERS
    smallest_margin, largest_miss = math.inf, -math.inf
    for p, q in _three_outcome_runs(epsilon):
        run = _symmetric_rdp(p, q, orders)
        exact = _symmetric_rdp(_best_of_k(p, gamma), _best_of_k(q, gamma), orders)
        smallest_margin = min(smallest_margin, float(np.min(stopping_rdp(run, rule, orders) - exact)))
        largest_miss = max(largest_miss, float(np.max(exact - _without_log_terms(run, rule, orders))))
    assert smallest_margin > 0.1
    assert largest_miss > 1.0


def test_the_theorem_bounds_the_exact_divergence_of_a_gaussian_run():
    """Q's score is N(0, 1) or N(1/z, 1) (a Gaussian of noise multiplier z, Renyi curve alpha / (2 z^2));
    the best of K has density G'(F(s)) f(s), integrated on a grid (orders 1.5 .. 32, where the grid
    [-40, 80] holds the integrand's mass). The bound holds; without the log terms it fails."""
    z, rule = 2.0, StoppingRule.with_mean(16)
    gamma, orders = float(rule.gamma), np.array([1.5, 2.0, 4.0, 8.0, 16.0, 32.0])
    s = np.linspace(-40, 80, 240_001)
    step = s[1] - s[0]

    def log_density(shift: float) -> np.ndarray:  # log of G'(F(s)) f(s), G'(x) = gamma / (1 - (1 - gamma) x)^2
        cdf = stats.norm.cdf(s - shift)
        return math.log(gamma) - 2 * np.log1p(-(1 - gamma) * cdf) + stats.norm.logpdf(s - shift)

    p, q = log_density(0.0), log_density(1 / z)
    exact = np.array([max(float(logsumexp(a * p + (1 - a) * q) + math.log(step)),
                          float(logsumexp(a * q + (1 - a) * p) + math.log(step))) / (a - 1) for a in orders])
    run = PrivacyCurve((CurvePart.gaussian(z, 1.0, "score"),)).rdp(orders)
    assert run is not None
    assert np.all(stopping_rdp(run, rule, orders) >= exact + 0.05)
    assert np.any(_without_log_terms(run, rule, orders) < exact)


@pytest.mark.parametrize("epsilon, mean", [(0.5, 16.0), (1.0, 4.0), (3.0, 2.0)])
def test_for_a_pure_run_the_renyi_form_tends_to_the_pure_bound_and_is_never_worse(epsilon, mean):
    """Orders up to 1e9: at the largest order the theorem gives at most (2 + eta) epsilon, and exactly that
    (to 1e-6) when log(1/gamma) >= epsilon; converted at delta it is within 1e-6 of it or below."""
    rule = StoppingRule.with_mean(mean)
    orders = np.geomspace(2, 1e9, 400)
    run = CurvePart("epsilon-delta", "pure run", epsilon=epsilon).rdp(orders)
    assert run is not None
    limit = float(stopping_rdp(run, rule, orders)[-1])
    pure = (2 + rule.eta) * epsilon
    assert limit <= pure + 1e-6
    if -math.log(float(rule.gamma)) >= epsilon:
        assert limit == pytest.approx(pure, abs=1e-6)
    assert stopping_epsilon(run, rule, 1e-6, orders) <= pure + 1e-6


def test_the_library_conversion_is_the_one_compose_epsilon_uses():
    # ten pure parts beside the Gaussian, where Renyi DP beats basic composition (0.1 k + the Gaussian's epsilon at
    # 1e-6; compose_epsilon takes the smaller, and with one pure part basic is the smaller)
    pure = tuple(CurvePart("epsilon-delta", f"b{i}", epsilon=0.1) for i in range(10))
    curve = PrivacyCurve((CurvePart.gaussian(3.0, 1.0, "a"), *pure))
    rdp = curve.rdp()
    assert rdp is not None
    assert compose_epsilon([curve], 1e-6, method="rdp") == pytest.approx(rdp_to_epsilon(rdp, 1e-6), rel=1e-9)
    assert compose_epsilon([curve], 1e-6, method="basic") > rdp_to_epsilon(rdp, 1e-6)
    assert PrivacyCurve((CurvePart("epsilon-delta", "c", epsilon=0.1, delta=1e-9),)).rdp() is None
    with pytest.raises(InputError):
        rdp_to_epsilon(rdp, 0.0)
    with pytest.raises(InputError):
        stopping_rdp(rdp[:-1], StoppingRule.with_mean(4))


@pytest.mark.parametrize("run", [
    CurvePart("epsilon-delta", "pure run", epsilon=0.4).rdp(RDP_ORDERS),
    CurvePart.gaussian(5.0, 1.0, "Gaussian run").rdp(RDP_ORDERS),
], ids=["pure", "gaussian"])
@pytest.mark.parametrize("eta, mean", [(1, 16.0), (2, 8.0)])
def test_stopping_rdp_is_the_theorem_evaluated_pair_by_pair(run, eta, mean):
    """Theorem 2 written out for every pair (lambda, lambda') of a coarse grid, its best lambda' taken by
    hand: the library's vectorised form agrees to 1e-12 (a dropped or misplaced term would not)."""
    rule = StoppingRule.with_mean(mean, eta)
    orders, curve = RDP_ORDERS[::7], run[::7]
    log_inverse_gamma, log_mean = -math.log(float(rule.gamma)), math.log(rule.mean_runs)
    expected = [min(curve[i] + (1 + eta) * (1 - 1 / orders[j]) * curve[j] + (1 + eta) * log_inverse_gamma / orders[j]
                    + log_mean / (orders[i] - 1) for j in range(orders.size)) for i in range(orders.size)]
    assert stopping_rdp(curve, rule, orders) == pytest.approx(expected, rel=1e-12)
