"""Grid estimates of a scalar loss's conditions: the last resort, opt-in only.

Nothing here is a proof, and an estimate can be wrong in the unsafe direction
(a curvature peak narrower than the grid spacing is missed; see
tests/verification/test_verify_soundness.py). Every result is marked "estimate" in the
certificate and refused unless the caller passes ``allow_estimates=True``
(and not ``strict=True``); the certificate is then *conditional*. Proofs come
from :mod:`dpcvx.verification.symbolic` and :mod:`dpcvx.verification.validated`. The estimate is
deliberately pessimistic where it can be:

* Grid: ``GRID_POINTS`` points ``z = sinh(t)``, ``t`` uniform, reaching
  ``|z| = GRID_REACH``: dense near 0, where losses bend, and still reaching
  far into the tails.
* Derivatives: central differences with steps proportional to ``max(1, |z|)``.
* Suprema: the largest grid value, refined by bounded scalar maximisation
  around the best grid points, times ``1 + SAFETY_FACTOR``.
* Unbounded: if ``|l'|`` (or ``|l''|``) is still larger beyond ``|z| = 1e4``
  than anywhere inside it, the supremum is reported as infinite.
* Kinks and curvature jumps: the grid interval with the largest change is
  bisected; a change that does not shrink with the interval is a jump.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

__all__ = [
    "NumericAnalysis",
    "analyse",
    "GRID_POINTS",
    "GRID_REACH",
    "SAFETY_FACTOR",
    "UNDEFINED_SAMPLES",
]

GRID_POINTS = 8001
GRID_REACH = 1e6
INNER_REACH = 1e4
SAFETY_FACTOR = 0.01
UNDEFINED_SAMPLES = 64
_BISECTIONS = 60
_CANDIDATES = 6

Function = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class NumericAnalysis:
    """What the numeric route found; suprema include the safety factor.

    ``overflow``: when l is not finite on the grid only because it is infinite on the grid's tails (no NaN, which
    marks a violated domain constraint, and finite between), the smallest |z| at which it is infinite: float
    overflow of a loss that may well be finite there (log1p(exp(-z)) at z = -800), not evidence of a restricted
    domain. None otherwise. ``undefined``: grid points where l is not finite (at most ``UNDEFINED_SAMPLES``, spread
    over all of them, ascending), where the verifier looks for the domain constraints that are violated."""

    finite: bool
    convex: bool
    kinks: tuple[float, ...]
    curvature_jumps: tuple[float, ...]
    lipschitz: float
    curvature: float
    overflow: float | None = None
    undefined: tuple[float, ...] = ()

    @property
    def c1(self) -> bool:
        return not self.kinks

    @property
    def c2(self) -> bool:
        return self.c1 and not self.curvature_jumps


def _grid() -> np.ndarray:
    reach = np.arcsinh(GRID_REACH)
    return np.sinh(np.linspace(-reach, reach, GRID_POINTS))


def _first(f: Function, z: np.ndarray, step: np.ndarray | None = None) -> np.ndarray:
    h = 1e-5 * np.maximum(1.0, np.abs(z)) if step is None else step
    return (f(z + h) - f(z - h)) / (2 * h)


def _second(f: Function, z: np.ndarray, step: np.ndarray | None = None) -> np.ndarray:
    h = 1e-3 * np.maximum(1.0, np.abs(z)) if step is None else step
    return (f(z + h) - 2 * f(z) + f(z - h)) / h**2


def _supremum(derivative: Callable, z: np.ndarray, values: np.ndarray) -> float:
    """sup |derivative| with local refinement; inf when it grows into the tails."""
    magnitude = np.abs(values)
    inner = np.abs(z) <= INNER_REACH
    inner_max, outer_max = magnitude[inner].max(), magnitude[~inner].max()
    if outer_max > inner_max * (1 + 1e-3) + 1e-12:
        return float("inf")
    best = float(magnitude.max())
    for index in np.argsort(magnitude)[-_CANDIDATES:]:
        lo, hi = z[max(index - 1, 0)], z[min(index + 1, len(z) - 1)]
        result = minimize_scalar(
            lambda t: -abs(float(derivative(np.array([t]))[0])),
            bounds=(lo, hi),
            method="bounded",
            options={"xatol": 1e-10 * max(1.0, abs(lo), abs(hi))},
        )
        if np.isfinite(result.fun):
            best = max(best, -float(result.fun))
    return best * (1 + SAFETY_FACTOR)


def _jumps(derivative: Callable, z: np.ndarray, values: np.ndarray, resolution: float) -> tuple:
    """Points where ``derivative`` jumps: changes that survive bisection.

    ``derivative(points, step)`` is evaluated with a step well below the width
    of the interval being bisected, down to ``resolution * max(1, |z|)``.
    """
    change = np.abs(np.diff(values))
    scale = 1.0 + np.abs(values).max()
    found: list[float] = []
    for index in np.argsort(change)[-_CANDIDATES:]:
        initial = change[index]
        if initial <= 1e-6 * scale:
            continue
        lo, hi = z[index], z[index + 1]
        for _ in range(_BISECTIONS):
            if hi - lo <= resolution * max(1.0, abs(lo)):
                break
            mid = 0.5 * (lo + hi)
            step = np.full(3, (hi - lo) / 20)
            left, middle, right = derivative(np.array([lo, mid, hi]), step)
            if abs(middle - left) >= abs(right - middle):
                hi = mid
            else:
                lo = mid
        step = np.full(2, (hi - lo) / 20)
        left, right = derivative(np.array([lo, hi]), step)
        if abs(right - left) > 0.25 * initial and abs(right - left) > 1e-6 * scale:
            point = round(0.5 * (lo + hi), 6)
            if all(abs(point - other) > 1e-6 for other in found):
                found.append(point)
    return tuple(sorted(found))


def _overflow(z: np.ndarray, values: np.ndarray) -> float | None:
    """The smallest |z| of the (ascending) grid ``z`` where ``values`` is infinite, when the only non-finite values
    are infinities on the grid's tails (:attr:`NumericAnalysis.overflow`); None otherwise."""
    infinite = np.isinf(values)
    inside = np.flatnonzero(~infinite)
    if np.isnan(values).any() or inside.size == 0 or infinite[inside[0]:inside[-1] + 1].any():
        return None
    return float(np.abs(z[infinite]).min())


def _undefined(z: np.ndarray, values: np.ndarray) -> tuple[float, ...]:
    """At most ``UNDEFINED_SAMPLES`` of the grid points where ``values`` is not finite, evenly spread over them."""
    bad = z[~np.isfinite(values)]
    picks = np.unique(np.linspace(0, bad.size - 1, min(bad.size, UNDEFINED_SAMPLES)).round().astype(int))
    return tuple(float(point) for point in bad[picks])


def analyse(f: Function) -> NumericAnalysis:
    """Numeric estimates of the conditions for a vectorised scalar function ``f``."""
    z = _grid()
    with np.errstate(all="ignore"):
        try:
            values = f(z)
        except Exception:  # a user loss may raise anything outside its domain
            values = np.full_like(z, np.nan)
        finite = bool(np.all(np.isfinite(values)))
        if not finite:
            return NumericAnalysis(False, False, (), (), float("inf"), float("inf"), _overflow(z, values),
                                   _undefined(z, values))
        d1 = _first(f, z)
        d2 = _second(f, z)
        kinks = _jumps(lambda p, s: _first(f, p, s), z, d1, 1e-9)
        jumps2 = _jumps(lambda p, s: _second(f, p, s), z, d2, 1e-4) if not kinks else ()
        scale1 = 1.0 + np.abs(d1).max()
        convex = bool(np.all(np.diff(d1) >= -1e-7 * scale1))
        if not kinks:
            convex = convex and bool(d2.min() >= -1e-6 * (1.0 + np.abs(d2).max()))
        lipschitz = _supremum(lambda p: _first(f, p), z, d1)
        curvature = float("inf") if kinks else _supremum(lambda p: _second(f, p), z, d2)
    return NumericAnalysis(finite, convex, kinks, jumps2, lipschitz, curvature)
