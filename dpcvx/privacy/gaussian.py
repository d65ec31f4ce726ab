"""The analytic Gaussian mechanism (Balle and Wang, ICML 2018, Theorem 8).

Adding N(0, sigma^2 I) to a query of L2 sensitivity Delta is
(epsilon, delta)-DP if and only if

    Phi(Delta / (2 sigma) - epsilon sigma / Delta)
        - e^epsilon Phi(-Delta / (2 sigma) - epsilon sigma / Delta) <= delta,

with Phi the standard normal CDF. The left side decreases in sigma, so the
smallest valid sigma is found by bisection; unlike the classical
sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon it holds for every epsilon > 0
and is never larger.
"""

from __future__ import annotations

import math

from scipy.special import log_ndtr, ndtr

from ..rounding import round_up
from ..validation import check_delta, check_epsilon, positive
from .least_value import bisect_ends, least_below

__all__ = ["gaussian_delta", "gaussian_window", "analytic_gaussian_sigma", "gaussian_epsilon"]


def gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """The smallest delta for which N(0, sigma^2) noise is (epsilon, delta)-DP at this sensitivity."""
    ratio = sensitivity / sigma
    a, b = ratio / 2, epsilon / ratio
    return float(ndtr(a - b)) - math.exp(epsilon + float(log_ndtr(-a - b)))  # Python floats: the same doubles


def gaussian_window(epsilon: float) -> float:
    """The relative window max(1e-11, 1e-12 / epsilon) around a Gaussian profile's boundary outside which a
    bisection's tests are inferred (:func:`~dpcvx.privacy.least_value.least_below`).

    A profile Phi(A) - e^epsilon Phi(B) is a difference of two near terms as epsilon -> 0, so its computed value
    decides a test only to a relative band in sigma that widens like 1 / epsilon, and the window must hold that
    band. ``tests/privacy/test_least_value.py`` checks that this window gives the full bisection's double at
    epsilon from 1e-7 to 20, and that a window of 1e-15 does not.
    """
    return max(1e-11, 1e-12 / epsilon)


def analytic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """The smallest sigma with gaussian_delta <= delta, found by bisection to double precision
    (:func:`~dpcvx.privacy.least_value.least_below` from sensitivity / epsilon).

    The end of the bisection is moved up by the relative ``ROUNDING`` of
    :mod:`dpcvx.rounding` (a noise scale is a quantity the proof needs no
    smaller), which covers the rounding of ``gaussian_delta`` itself.
    """
    sensitivity = positive("sensitivity", sensitivity)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)  # the Gaussian mechanism needs delta > 0
    return round_up(least_below(lambda sigma: gaussian_delta(sigma, sensitivity, epsilon), delta,
                                sensitivity / epsilon, gaussian_window(epsilon)))


def gaussian_epsilon(noise_multiplier: float, delta: float) -> float:
    """The exact epsilon at ``delta`` of a Gaussian mechanism with noise multiplier z = sigma / Delta.

    The smallest epsilon with ``gaussian_delta(z, 1, epsilon) <= delta`` (Balle and Wang 2018,
    Theorem 8: the condition is an equivalence, so this is the mechanism's privacy profile read
    at ``delta``), by bisection to double precision, the end moved up by the relative
    ``ROUNDING`` of :mod:`dpcvx.rounding`. 0 when the mechanism is (0, delta)-DP. A composition
    of Gaussian mechanisms is one with z = (sum z_i^-2)^(-1/2) (Dong, Roth and Su 2022,
    Corollary 2), so this is also the exact epsilon of such a composition.
    """
    z = positive("noise_multiplier", noise_multiplier)
    delta = check_delta(delta, allow_zero=False)
    if gaussian_delta(z, 1.0, 0.0) <= delta:
        return 0.0
    low, high = 0.0, 1.0
    while gaussian_delta(z, 1.0, high) > delta:
        low, high = high, 2 * high
    return round_up(bisect_ends(lambda epsilon: gaussian_delta(z, 1.0, epsilon) <= delta, low, high))
