"""The rounding policy for doubles: every constant a privacy proof rests on is moved to its safe side.

Direction, by what the proof needs:

* upward (the proof needs them no smaller): the Lipschitz bound L, the
  curvature bound c, sensitivities, noise scales, error bounds;
* downward (the proof needs them no larger): the strong convexity m, the
  shares of epsilon (eps', eps_2, the per-round budgets) and beta.

Margin, by how the double was obtained:

* a correctly rounded result (``math.fsum``, the nearest double to an exact
  number) is at most half an ulp away: one ulp to the safe side
  (:func:`next_down`, :func:`next_up`, :func:`sum_down`);
* a short formula in floating point (a few operations, ``log1p``, ``expm1``,
  ``sqrt``: relative error a few ulps, far below 1e-12) moves by the relative
  margin ``ROUNDING`` = 1e-12 (:func:`round_down`, :func:`round_up`);
* a computed non-negative error bound grows by a relative ``4 eps`` plus
  ``UNDERFLOW`` = 1e-300, which covers its own rounding and any absolute error
  of underflowing products (each below 2^-1074) (:func:`bound_up`).

Exact (sympy) numbers become doubles under the same directions in
:mod:`dpcvx.verification.exact` (the nearest double, one ulp to the safe
side), and the interval arithmetic of :mod:`dpcvx.verification.validated`
rounds each end outward, which is this policy applied to both ends. No other
module rounds a proof constant.

Error-free transformations (:func:`two_sum`, :func:`two_product`) return a sum or product of two
doubles together with its exact rounding error, so that an error bound can be carried without
loss (Knuth, TAOCP vol. 2, 4.2.2; Dekker 1971; Ogita, Rump and Oishi 2005).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TypeVar

import numpy as np

__all__ = ["ROUNDING", "RECORD_TOLERANCE", "same_recorded", "EPS", "UNDERFLOW", "round_down", "round_up", "next_down",
           "next_up", "sum_down", "bound_up", "two_sum", "two_product"]

ROUNDING = 1e-12
#: How far a number a model file records may lie from the one the loader recomputes and still be read as the same
#: (``release.records.calibration_record.same_number``, ``privacy.privacy_curve.check_recorded_curve``), relative.
#: The loaded certificate holds the recomputed number, never the recorded one, so this decides only what is called
#: edited. It covers another machine's libm (a few ulps) and the files of dpcvx before the Gaussian profiles were
#: computed without cancellation (2026-12-01): their Gaussian scales lie up to about 6e-11 from today's at
#: epsilon >= 1e-5 (2e-11 for the approximate minimiser's sigma of an ordinary release). A file calibrated at a
#: smaller epsilon by that dpcvx may be refused as edited: refit it.
RECORD_TOLERANCE = 1e-9


def same_recorded(recorded: float | None, recomputed: float | None) -> bool:
    """Whether a number a file records is the recomputed one: equal (None as None), or both numbers within a relative
    ``RECORD_TOLERANCE``. The one comparison of a recorded number, for calibrations and privacy curves alike."""
    return recorded == recomputed or (recorded is not None and recomputed is not None and math.isclose(
        float(recorded), float(recomputed), rel_tol=RECORD_TOLERANCE, abs_tol=0.0))
EPS = float(np.finfo(float).eps)  # 2u: one rounding has relative error <= EPS / 2
UNDERFLOW = 1e-300

Bound = TypeVar("Bound", float, np.ndarray)


def round_down(value: float) -> float:
    """value moved down by a relative ROUNDING: a computed quantity a proof needs no larger."""
    return value * (1 - ROUNDING) if value > 0 else value * (1 + ROUNDING)


def round_up(value: float) -> float:
    """value moved up by a relative ROUNDING: a computed quantity a proof needs no smaller."""
    return value * (1 + ROUNDING) if value > 0 else value * (1 - ROUNDING)


def next_down(value: float) -> float:
    """The next double below a correctly rounded value: <= the exact value it rounds."""
    return math.nextafter(value, -math.inf)


def next_up(value: float) -> float:
    """The next double above a correctly rounded value: >= the exact value it rounds."""
    return math.nextafter(value, math.inf)


def sum_down(values: Iterable[float]) -> float:
    """A double <= the exact sum of the doubles ``values`` (fsum is correctly rounded; 0 only when exact)."""
    total = math.fsum(values)
    return total if total == 0 else next_down(total)


def bound_up(bound: Bound) -> Bound:
    """A computed error bound (>= 0, float or array) enlarged to cover its own rounding and underflow."""
    return bound * (1 + 4 * EPS) + UNDERFLOW


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(fl(a + b), exact rounding error) elementwise (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(high, low) with a = high + low exactly, each half of the significand (Veltkamp's splitting)."""
    c = 134217729.0 * a
    high = c - (c - a)
    return high, a - high


def two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(fl(a * b), exact rounding error) elementwise (Dekker's TwoProduct; no overflow assumed)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl
