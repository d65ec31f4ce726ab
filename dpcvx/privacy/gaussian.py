"""The analytic Gaussian mechanism (Balle and Wang, ICML 2018, Theorem 8).

Adding N(0, sigma^2 I) to a query of L2 sensitivity Delta is
(epsilon, delta)-DP if and only if

    Phi(Delta / (2 sigma) - epsilon sigma / Delta)
        - e^epsilon Phi(-Delta / (2 sigma) - epsilon sigma / Delta) <= delta,

with Phi the standard normal CDF. The left side decreases in sigma, so the
smallest valid sigma is found by bisection; unlike the classical
sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon it holds for every epsilon > 0
and is never larger.

**Precision.** With a = Delta / (2 sigma) and b = epsilon sigma / Delta (so epsilon = 2 a b), the two terms
Phi(a - b) and e^epsilon Phi(-a - b) nearly cancel when the interval (-a - b, a - b) is narrow: at small epsilon
the calibrated a is tiny, and their difference, computed as written, loses a relative ~1e-16 / epsilon (a sigma
3e-7 too small at epsilon 2e-8). :func:`gaussian_delta` therefore computes narrow intervals (a <= ``_NARROW``) in a
form without the cancellation (docs/theory.md, section 9):

    delta = phi(b - a) int_{b-a}^{b+a} (1 - t R(t)) dt,     R(t) = Phi(-t) / phi(t) (Mills' ratio),

from e^epsilon phi(a + b) = phi(a - b) and R'(t) = t R(t) - 1; the integrand is positive and smooth, and
three-point Gauss-Legendre quadrature over an interval of width 2a <= 0.02 gives it to a relative 1e-14.
Elsewhere the difference as written errs by less than 2e-13 of sigma (a relative 1e-10 of delta at most, where
delta's elasticity in sigma is b^2 > 1000), which the relative ``ROUNDING`` of the calibrations covers.
"""

from __future__ import annotations

import math

from scipy.special import erfcx, log_ndtr, ndtr

from ..rounding import round_up
from ..validation import EPSILON_MAX, check_delta, check_epsilon, positive
from .least_value import bisect_ends, least_below

__all__ = ["gaussian_delta", "GAUSSIAN_WINDOW", "analytic_gaussian_sigma", "analytic_gaussian_multiplier",
           "gaussian_epsilon"]


_NARROW = 0.01  # a = Delta / (2 sigma) at or below which gaussian_delta integrates (module docstring)

#: The relative window around a Gaussian profile's boundary outside which a bisection's tests are inferred
#: (:func:`~dpcvx.privacy.least_value.least_below`): it must hold the band in sigma in which the computed profile's
#: rounding decides a test. Computed without cancellation (module docstring), the profiles of this module and of
#: :mod:`~dpcvx.privacy.objective_gaussian` err by far less than 1e-11 of sigma at every epsilon in
#: [1e-12, 1e6]; ``tests/privacy/test_least_value.py`` checks that this window gives the full bisection's double
#: at epsilon from 1e-12 to 1e3 and delta from 1e-300, and that a window of 1e-15 does not.
GAUSSIAN_WINDOW = 1e-11

#: The epsilon above which :func:`gaussian_delta` writes e^epsilon Phi(-a - b) as phi(a - b) R(a + b) (module
#: docstring): the exponent epsilon + ln Phi(-a - b), a difference of two numbers of epsilon's size, loses an absolute
#: epsilon * 1e-16 (at a noise multiplier of 1e-11 it came out above 709 and e^ overflowed: a bare OverflowError).
#: Above every calibrated epsilon (``EPSILON_MAX``), so the calibrations' doubles are unchanged.
_WIDE = EPSILON_MAX

#: The epsilon from which :func:`gaussian_epsilon` answers math.inf: 2^1000, whose double is finite (a noise
#: multiplier of 1e-200, whose epsilon is about 5e399, raised a bare OverflowError).
_EPSILON_CEILING = 2.0**1000

_NODE = math.sqrt(3 / 5)  # three-point Gauss-Legendre on [-1, 1]: nodes 0, +-sqrt(3/5), weights 8/9, 5/9


def gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """The smallest delta for which N(0, sigma^2) noise is (epsilon, delta)-DP at this sensitivity.

    Phi(a - b) - e^epsilon Phi(-a - b) as written where it is accurate, and as the integral of the module
    docstring where the interval is narrow (a <= ``_NARROW``) and the two terms cancel."""
    ratio = sensitivity / sigma
    a, b = ratio / 2, float(epsilon) / ratio  # Python floats: a square beyond the range is inf, not a warning
    if a <= _NARROW:
        integral = a * (8 / 9 * _mills_slope(b) + 5 / 9 * (_mills_slope(b - a * _NODE) + _mills_slope(b + a * _NODE)))
        return math.exp(-(b - a) ** 2 / 2) / math.sqrt(2 * math.pi) * integral
    if epsilon > _WIDE:  # e^epsilon Phi(-a - b) = phi(a - b) R(a + b): no exponent of epsilon's size to round
        return float(ndtr(a - b)) - math.exp(-(a - b) * (a - b) / 2) / math.sqrt(2 * math.pi) * _mills(a + b)
    return float(ndtr(a - b)) - math.exp(epsilon + float(log_ndtr(-a - b)))  # Python floats: the same doubles


def _mills(t: float) -> float:
    """Mills' ratio R(t) = Phi(-t) / phi(t) = sqrt(pi / 2) erfcx(t / sqrt(2))."""
    return math.sqrt(math.pi / 2) * float(erfcx(t / math.sqrt(2)))


def _mills_slope(t: float) -> float:
    """-R'(t) = 1 - t R(t) > 0, R(t) Mills' ratio (:func:`_mills`)."""
    return 1 - t * _mills(t)


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
                                sensitivity / epsilon, GAUSSIAN_WINDOW))


def analytic_gaussian_multiplier(epsilon: float, delta: float) -> float:
    """z(epsilon, delta): the least noise multiplier sigma / Delta of the analytic Gaussian mechanism at (epsilon,
    delta) (:func:`analytic_gaussian_sigma` at unit sensitivity, rounded up alike): a function of (epsilon, delta)
    alone. A mechanism whose sigma is z Delta rounded up is covered by the Gaussian curve of multiplier z whatever its
    Delta (Balle and Wang 2018: the privacy profile depends on sigma / Delta only)."""
    return analytic_gaussian_sigma(1.0, epsilon, delta)


def gaussian_epsilon(noise_multiplier: float, delta: float) -> float:
    """The exact epsilon at ``delta`` of a Gaussian mechanism with noise multiplier z = sigma / Delta.

    The smallest epsilon with ``gaussian_delta(z, 1, epsilon) <= delta`` (Balle and Wang 2018,
    Theorem 8: the condition is an equivalence, so this is the mechanism's privacy profile read
    at ``delta``), by bisection to double precision, the end moved up by the relative
    ``ROUNDING`` of :mod:`dpcvx.rounding`. 0 when the mechanism is (0, delta)-DP. A composition
    of Gaussian mechanisms is one with z = (sum z_i^-2)^(-1/2) (Dong, Roth and Su 2022,
    Corollary 2), so this is also the exact epsilon of such a composition. math.inf when that epsilon, about
    1 / (2 z^2), is beyond the float range (z below about 1e-154: no finite guarantee in doubles).
    """
    z = positive("noise_multiplier", noise_multiplier)
    delta = check_delta(delta, allow_zero=False)
    if gaussian_delta(z, 1.0, 0.0) <= delta:
        return 0.0
    low, high = 0.0, 1.0
    while high < _EPSILON_CEILING and gaussian_delta(z, 1.0, high) > delta:
        low, high = high, 2 * high
    if high >= _EPSILON_CEILING:
        return math.inf
    return round_up(bisect_ends(lambda epsilon: gaussian_delta(z, 1.0, epsilon) <= delta, low, high))
