"""The least double that passes a privacy test: the bisection of the Gaussian calibrations, its far tests inferred.

A noise scale (or an epsilon) is calibrated as the least x with p(x) <= target for a profile p that decreases in x
(the analytic Gaussian mechanism's delta in sigma, Balle and Wang 2018; the objective-perturbation profile of
docs/theory.md, section 12). :func:`least_passing` finds it as the Gaussian calibrations do: double the upper end
from a public start until its test passes, halve the lower end while its test passes, then bisect
(:func:`bisect_ends`) until the ends are adjacent doubles. The result is the upper end, a point whose test passed.

**Inferred tests** (:func:`least_below`). Most of those tests are far from the boundary, where their outcome is
plain. Brent's method on log p(e^t) - log target (scipy's ``brentq``, inside the doubling's evaluated ends) first
locates the boundary x* to a hundredth of the window, and the tests at a = x* (1 - w) and b = x* (1 + w) are
evaluated, w the caller's window: p(a) > target and p(b) <= target. The bisection then runs with the tests below a
taken as failed and those above b as passed, and evaluates only the tests in [a, b]. Because p decreases, p(x) >=
p(a) > target for x < a and p(x) <= p(b) <= target for x > b. In floating point the same holds while the computed p
errs by less than its change over a relative w: the caller's window is wider than the band in which the rounding
of its profile decides a test (:data:`~dpcvx.privacy.gaussian.GAUSSIAN_WINDOW`). So the bisection's sequence of
midpoints, and its result, are those of the bisection that evaluates every test, in about half the evaluations (the
window holds the last 16 to 20 of the 50-odd bisection steps). If the window's tests do not come out so (a profile
too flat to locate), every test is evaluated.

**Brackets** (:func:`bracket`). A caller that needs only bounds on the least passing double (to rule out a
candidate) takes the doubling's ends narrowed by Brent's method to a relative width, both evaluated: the same
located ends, without the bisection.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from scipy.optimize import brentq

from ..exceptions import InputError

__all__ = ["BISECTIONS", "DOUBLINGS", "bisect_ends", "bracket", "least_below", "least_passing"]

BISECTIONS = 200  # the calibrations' cap: ends a factor 2^k apart meet in about k + 53 steps
DOUBLINGS = 4096  # doublings of the upper end, and halvings of a failing lower end's search, before giving up
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
    ends = _ends(passes, start)
    if ends is None:
        raise InputError("no finite value meets this delta; the parameters are out of floating-point range")
    return bisect_ends(passes, *ends)


def _ends(passes: Callable[[float], bool], start: float) -> tuple[float, float] | None:
    """The bisection's ends from ``start``: the upper end doubled from it until its test passes, the lower end the
    last failing one, or, from a passing start, halved until its test fails (0 if it never does); None when no
    passing end is found."""
    low = high = start
    for _ in range(DOUBLINGS):
        if passes(high):
            break
        low, high = high, 2 * high
    else:
        return None
    if low == high:  # the start passed
        while low > 0 and passes(low):
            low /= 2
    return low, high


def least_below(profile: Callable[[float], float], target: float, start: float, window: float) -> float:
    """:func:`least_passing` of the test profile(x) <= target, profile decreasing in x, with the tests outside
    x* (1 -+ ``window``) around the boundary x* inferred (module docstring): the same double, in fewer evaluations.
    ``window`` must exceed the relative band around x* in which the computed profile's rounding can decide a test."""
    def passes(x: float) -> bool:
        return profile(x) <= target

    ends = _doubled(profile, target, start)
    located = None if ends is None else _located(profile, target, *ends, 2 * window)
    if located is None:
        return least_passing(passes, start)
    low_end, high_end = located

    def inferred(x: float) -> bool:
        return x > high_end or x >= low_end and passes(x)

    return least_passing(inferred, start)


def bracket(profile: Callable[[float], float], target: float, start: float,
            relative: float) -> tuple[float, float] | None:
    """Evaluated ends (a, b) around the least x with profile(x) <= target (profile decreasing): p(a) > target
    >= p(b), with b / a - 1 about ``relative`` where Brent's method locates the boundary, else the doubling's
    ends (b = 2 a); None when no failing end is found. The least passing double of :func:`least_passing` from
    any start lies in (a, b] (a test passes at b and fails at a, and the tests change once)."""
    ends = _doubled(profile, target, start)
    if ends is None:
        return None
    return _located(profile, target, *ends, relative) or ends


def _doubled(profile: Callable[[float], float], target: float, start: float) -> tuple[float, float] | None:
    """The evaluated ends (a, b) of :func:`_ends` for the test profile(x) <= target, p(a) > target >= p(b); None where
    it finds none, or a lower end of 0 (Brent's method works in logs)."""
    ends = _ends(lambda x: profile(x) <= target, start)
    return None if ends is None or ends[0] == 0 else ends


def _located(profile: Callable[[float], float], target: float, low: float, high: float,
             relative: float) -> tuple[float, float] | None:
    """The boundary x* in (low, high) located by Brent's method on log p(e^t) - log target to a two-hundredth of
    ``relative``, and the ends x* (1 -+ relative / 2) if their tests come out p(a) > target >= p(b); else None."""
    log_target = math.log(target)

    def excess(t: float) -> float:
        return math.log(max(profile(math.exp(t)), _FLOOR)) - log_target

    try:
        boundary = math.exp(brentq(excess, math.log(low), math.log(high), xtol=relative / 200))
    except ValueError:  # the bracket's values in logs do not change sign (a profile at the floor)
        return None
    low_end, high_end = boundary * (1 - relative / 2), boundary * (1 + relative / 2)
    if profile(low_end) > target and profile(high_end) <= target:
        return low_end, high_end
    return None
