"""The least double that passes a privacy test: the one bisection of the calibrations, with its far tests inferred.

A noise scale (or an epsilon) is calibrated as the least x with p(x) <= target for a profile p that decreases in x
(the analytic Gaussian mechanism's delta in sigma, Balle and Wang 2018; the objective-perturbation profile of
docs/theory.md, section 12). :func:`least_passing` finds it as every calibration of dpcvx does: double the upper end
from a public start until its test passes, halve the lower end while its test passes, then bisect
(:func:`bisect_ends`) until the ends are adjacent doubles. The result is the upper end, a point whose test passed.

**Inferred tests** (:func:`least_below`). Most of those tests are far from the boundary, where their outcome is
plain. Brent's method on log p(e^t) - log target (scipy's ``brentq``, inside a bracket of the doubling's points)
first locates the boundary x* to about a relative 1e-14, and the tests at a = x* (1 - w) and b = x* (1 + w), w =
``WINDOW``, are evaluated: p(a) > target and p(b) <= target. The bisection then runs with the tests below a taken as
failed and those above b as passed, and evaluates only the tests in [a, b]. Because p decreases, p(x) >= p(a) >
target for x < a and p(x) <= p(b) <= target for x > b. In floating point the same holds while the computed p errs
by less than its change over a relative w: about w times its slope d log p / d log x, against a relative error of a
few ulps for these profiles. So the bisection's sequence of midpoints, and its result, are those of the bisection
that evaluates every test, in about a third of the evaluations (the window holds the last 17 or so of the 50-odd
bisection steps). If the window's tests do not come out so (a profile too flat, or too noisy, to locate), every test
is evaluated.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from scipy.optimize import brentq

from ..exceptions import InputError

__all__ = ["BISECTIONS", "DOUBLINGS", "bisect_ends", "least_below", "least_passing"]

BISECTIONS = 200  # the calibrations' cap: ends a factor 2^k apart meet in about k + 53 steps
DOUBLINGS = 4096  # doublings of the upper end, and halvings of a failing lower end's search, before giving up
_LOCATED = 1e-14  # Brent's tolerance on log x: about a relative 1e-14 on x, a hundredth of the window
_FLOOR = 1e-300  # log p of a profile that underflowed to 0


def bisect_ends(passes: Callable[[float], bool], low: float, high: float) -> float:
    """Bisect [low, high] (low failing, high passing) until the ends are adjacent doubles; the passing end."""
    for _ in range(BISECTIONS):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if passes(middle):
            high = middle
        else:
            low = middle
    return high


def least_passing(passes: Callable[[float], bool], start: float) -> float:
    """The least passing double by the calibrations' bisection (module docstring), from ``start`` > 0."""
    low = high = start
    for _ in range(DOUBLINGS):
        if passes(high):
            break
        low, high = high, 2 * high
    else:
        raise InputError("no finite value meets this delta; the parameters are out of floating-point range")
    while low > 0 and passes(low):
        low /= 2
    return bisect_ends(passes, low, high)


def least_below(profile: Callable[[float], float], target: float, start: float, window: float) -> float:
    """:func:`least_passing` of the test profile(x) <= target, profile decreasing in x, with the tests outside
    x* (1 -+ ``window``) around the boundary x* inferred (module docstring): the same double, in fewer evaluations.
    ``window`` must exceed the relative band around x* in which the computed profile's rounding can decide a test."""
    def passes(x: float) -> bool:
        return profile(x) <= target

    ends = _window(profile, target, start, window)
    if ends is None:
        return least_passing(passes, start)
    low_end, high_end = ends

    def inferred(x: float) -> bool:
        return x > high_end or x >= low_end and passes(x)

    return least_passing(inferred, start)


def _window(profile: Callable[[float], float], target: float, start: float,
            width: float) -> tuple[float, float] | None:
    """(a, b) around the boundary with p(a) > target >= p(b) evaluated, or None (module docstring)."""
    low = high = start
    high_value = profile(high)
    for _ in range(DOUBLINGS):
        if high_value <= target:
            break
        low, high = high, 2 * high
        high_value = profile(high)
    else:
        return None
    if low == high:  # the start passed: halve to a failing end
        low_value = high_value
        while low_value <= target:
            low /= 2
            if low == 0:
                return None
            low_value = profile(low)
    log_target = math.log(target)

    def excess(t: float) -> float:
        return math.log(max(profile(math.exp(t)), _FLOOR)) - log_target

    try:
        boundary = math.exp(brentq(excess, math.log(low), math.log(high), xtol=_LOCATED))
    except ValueError:  # the bracket's values in logs do not change sign (a profile at the floor)
        return None
    low_end, high_end = boundary * (1 - width), boundary * (1 + width)
    if profile(low_end) > target and profile(high_end) <= target:
        return low_end, high_end
    return None
