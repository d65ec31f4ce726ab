"""Random stopping for private selection (Papernot and Steinke, ICLR 2022; Liu and Talwar, STOC 2019).

Let Q be a randomised algorithm whose output carries a score (a run of private selection:
draw a candidate, fit it, score it with noise). The selection A runs Q independently K times,
K drawn from the truncated negative binomial D_{eta, gamma} below, independently of the data,
and outputs the run with the best score.

**The law of K** (Papernot and Steinke 2022, Section 2): for eta > 0 and gamma in (0, 1),

    P[K = k] = (1 - gamma)^k / (gamma^(-eta) - 1) * prod_{l=0}^{k-1} (l + eta) / (l + 1),   k = 1, 2, ...

that is, the number of failures before the eta-th success of Bernoulli(gamma) trials, conditioned on
being at least 1. At eta = 1 it is the geometric law P[K = k] = gamma (1 - gamma)^(k - 1) of Liu and
Talwar, with E[K] = 1 / gamma. In general E[K] = eta (1 - gamma) / (gamma (1 - gamma^eta)).

**The guarantee** (Papernot and Steinke 2022, Theorem 2): if Q is (lambda, e)- and (lambda', e')-RDP,
A is (lambda, e + (1 + eta)(1 - 1/lambda') e' + (1 + eta) log(1/gamma) / lambda' + log(E[K]) / (lambda - 1))-RDP.
If Q is e_Q-DP (pure), it is (lambda, e_Q)-RDP at every order; letting lambda and lambda' go to infinity
gives A (2 + eta) e_Q-DP (their corollary for pure DP; 3 e_Q at eta = 1, Liu and Talwar's Theorem 3.4).
This is not composition: the cost does not grow with E[K].

**(epsilon, delta).** :func:`stopping_rdp` evaluates the theorem on a grid of orders: at each order lambda
of the grid, with the best lambda' of the same grid,

    rdp_A(lambda) = rdp_Q(lambda) + (1 + eta) min_{lambda'} [(1 - 1/lambda') rdp_Q(lambda') + log(1/gamma) / lambda']
                    + log(E[K]) / (lambda - 1),

valid for every pair of orders (the theorem holds for each pair, so for the best one). :func:`stopping_epsilon`
converts it at delta with the library's one conversion
(:func:`dpcvx.privacy.privacy_curve.rdp_to_epsilon`) and rounds up. Orders above the grid's largest (1024) are
not used; for a pure e_Q-DP run the result tends to (2 + eta) e_Q as the orders grow, and is compared with
that pure bound in docs/theory.md, section 27.

**Exactness.** K is drawn from its law exactly: eta is a positive integer and gamma a rational, and K is
the sum of eta geometric counts, each a run of exact Bernoulli(1 - gamma) draws from an
:class:`~dpcvx.privacy.exact_sampling.IntegerSource` (one uniform integer each), rejected and redrawn when the sum
is 0. The candidate of a run is drawn uniformly with one uniform integer, and the noisy count with the
exact discrete Laplace (:func:`noisy_count`). No floating-point number is on the sampling path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..exceptions import InputError
from ..rounding import round_up
from ..validation import integer
from .exact_sampling import IntegerSource, bernoulli, discrete_laplace, rational
from .privacy_curve import RDP_ORDERS, rdp_to_epsilon

__all__ = ["StoppingRule", "draw_runs", "uniform_index", "noisy_count", "run_epsilon", "run_budget", "miss_probability",
           "stopping_rdp", "stopping_epsilon"]


@dataclass(frozen=True)
class StoppingRule:
    """The public law D_{eta, gamma} of the number of runs K: eta a positive integer, gamma rational in (0, 1)."""

    eta: int
    gamma: Fraction

    def __post_init__(self) -> None:
        integer("eta", self.eta, minimum=1)
        if not 0 < self.gamma < 1:
            raise InputError(f"gamma must lie in (0, 1), got {self.gamma}")

    @classmethod
    def with_mean(cls, mean_runs: float, eta: int = 1) -> StoppingRule:
        """The rule with E[K] = ``mean_runs`` (> 1): gamma = 1 / E[K] exactly at eta = 1; for eta > 1, gamma
        solved by bisection (E[K] decreases in gamma) and rounded to a rational with denominator <= 10^6,
        and the rule's own :attr:`mean_runs` is the E[K] it really has."""
        eta = integer("eta", eta, minimum=1)
        mean = rational("mean_runs", mean_runs)
        if mean <= 1:
            raise InputError(f"mean_runs (E[K]) must exceed 1, got {mean_runs}")
        if eta == 1:
            return cls(1, 1 / mean)
        low, high = 1e-12, 1 - 1e-12
        for _ in range(200):
            middle = (low + high) / 2
            if _mean(eta, middle) > mean:
                low = middle
            else:
                high = middle
        return cls(eta, Fraction(low).limit_denominator(10**6))

    @property
    def mean_runs(self) -> float:
        """E[K] = eta (1 - gamma) / (gamma (1 - gamma^eta))."""
        return _mean(self.eta, self.gamma)

    def pmf(self, k: int) -> float:
        """P[K = k] (for tests and documentation; in doubles)."""
        if k < 1:
            return 0.0
        gamma = float(self.gamma)
        return float(math.comb(k + self.eta - 1, k) * (1 - gamma) ** k / (gamma ** -self.eta - 1))


def _mean(eta: int, gamma: Fraction | float) -> float:
    gamma = float(gamma)
    return eta * (1 - gamma) / (gamma * (1 - gamma**eta))


def stopping_rdp(run_rdp: np.ndarray, rule: StoppingRule, orders: np.ndarray = RDP_ORDERS) -> np.ndarray:
    """The Renyi curve of the best of K runs (Papernot and Steinke 2022, Theorem 2) at ``orders`` (all > 1),
    from the run's Renyi curve ``run_rdp`` at the same orders (module docstring). In doubles; the terms are
    a few operations each, covered by the rounding up in :func:`stopping_epsilon`."""
    orders = np.asarray(orders, dtype=float)
    run_rdp = np.asarray(run_rdp, dtype=float)
    if run_rdp.shape != orders.shape or not np.all(orders > 1) or np.any(run_rdp < 0):
        raise InputError("stopping_rdp takes one non-negative Renyi value for each order, every order above 1")
    log_inverse_gamma = -math.log(float(rule.gamma))
    best_hat = float(np.min((1 - 1 / orders) * run_rdp + log_inverse_gamma / orders))
    return run_rdp + (1 + rule.eta) * best_hat + math.log(rule.mean_runs) / (orders - 1)


def stopping_epsilon(run_rdp: np.ndarray, rule: StoppingRule, delta: float,
                     orders: np.ndarray = RDP_ORDERS) -> float:
    """epsilon at ``delta`` of the best of K runs whose run has the Renyi curve ``run_rdp`` at ``orders``:
    Theorem 2 (:func:`stopping_rdp`), converted (:func:`~dpcvx.privacy.privacy_curve.rdp_to_epsilon`),
    rounded up. Not a composition: the result does not grow with E[K] beyond the log(E[K]) term."""
    return round_up(rdp_to_epsilon(stopping_rdp(run_rdp, rule, orders), delta, orders))


def run_epsilon(epsilon: float, eta: int) -> Fraction:
    """e_Q = epsilon / (2 + eta) as an exact rational: the pure budget of one run, so that random stopping
    costs (2 + eta) e_Q = epsilon exactly."""
    return rational("epsilon", epsilon, positive=True) / (2 + integer("eta", eta, minimum=1))


def run_budget(epsilon: float, eta: int) -> float:
    """e_Q as the largest double <= epsilon / (2 + eta) (:func:`run_epsilon`): the budget each run's fit and count
    take (they take doubles; rounding up would overspend). The one formula of a pure selection's run budget: the
    full-data procedure spends it, and a saved tuning record's ``run_epsilon`` is compared with it on load."""
    exact = run_epsilon(epsilon, eta)
    value = float(exact)
    return value if Fraction(value) <= exact else math.nextafter(value, 0.0)


def miss_probability(candidates: int, mean_runs: float) -> float:
    """P[a given one of m candidates is never tried] under geometric K (eta = 1) with E[K] = mu and each
    run's candidate uniform: sum_k gamma (1 - gamma)^(k-1) (1 - 1/m)^k = (m - 1) / (m + mu - 1), about
    m / (m + mu)."""
    m = integer("candidates", candidates, minimum=1)
    return (m - 1) / (m + float(mean_runs) - 1)


def draw_runs(rule: StoppingRule, source: IntegerSource) -> int:
    """K ~ D_{eta, gamma}, exactly: the failures before the eta-th success of Bernoulli(gamma) trials,
    redrawn while 0. The draw reads the public rule only, never the data."""
    fail = 1 - rule.gamma
    while True:
        total = 0
        for _ in range(rule.eta):
            while bernoulli(fail, source):
                total += 1
        if total >= 1:
            return total


def uniform_index(size: int, source: IntegerSource) -> int:
    """An index uniform on {0, ..., size - 1}: one uniform integer."""
    return source.below(integer("size", size, minimum=1))


def noisy_count(count: int, epsilon: Fraction, source: IntegerSource) -> int:
    """count + Z, Z ~ discrete Laplace of scale 1 / epsilon (P[Z = z] proportional to exp(-epsilon |z|)),
    exactly: epsilon-DP for a count of sensitivity 1 (Canonne, Kamath and Steinke 2020, Algorithm 2)."""
    return int(count) + discrete_laplace(1 / rational("epsilon", epsilon, positive=True), source)
