"""The Huber loss of the residual at any threshold m, from the shipped proof at m = 1 by exact scaling.

``dpcvx.losses.huber_regression(m)`` is l_m(r) = huber(r, m) / 2: r^2 / 2 for |r| <= m and m |r| - m^2 / 2
beyond. For every m > 0 and real r,

    l_m(r) = m^2 l_1(r / m),

since for |r| <= m, m^2 (r / m)^2 / 2 = r^2 / 2, and for |r| > m, m^2 (|r| / m - 1/2) = m |r| - m^2 / 2. So,
with u = r / m (a bijection of R onto R that preserves order),

- l_m'(r) = m l_1'(u) and l_m''(r) = l_1''(u) wherever l_1 has them: L_m = sup |l_m'| = m L_1 and
  c_m = sup |l_m''| = c_1, each supremum taken over all of R;
- l_m is finite on R, convex (l_m'' >= 0 on every piece, and l_m' jumps down nowhere, as l_1' does not) and
  C^1 exactly when l_1 is; l_m'' jumps at the points m z, z a jump of l_1'' (so l_m is piecewise C^2 exactly
  when l_1 is);
- CVXPY's DCP verdict is the same (huber(x, M) is convex for every M > 0).

m enters the proof as the verifier reads the constant of the expression: the exact value of the double
(:func:`dpcvx.verification.exact.exact_constant`), so L_m = m L_1 is exact and equals what a
fresh proof of huber(z, m) / 2 finds. :func:`scaled_huber` rebuilds the verified loss at m from the shipped
record at m = 1 (text, conditions and derivatives), so the first fit at a new label bound (m = B / 4 by
default) proves nothing afresh; tests/verification/test_scaled_huber.py compares it with fresh proofs at
several m, exactly.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from .condition import Condition, number_text
from .exact import exact_constant
from .loss_declaration import declared_loss
from .problem import Loss, LossDerivatives, VerifiedLoss

__all__ = ["HUBER", "UNIT_THRESHOLD", "scaled_huber"]

HUBER = "huber_regression"  # the catalogue name of the loss scaled
UNIT_THRESHOLD = 1.0  # the threshold of the shipped proof
_JUMPS = "l'' jumps at z = "


def _scaled_jumps(detail: str, m: Fraction) -> str:
    """The detail "l'' jumps at z = a, b: ..." with every jump point multiplied by m."""
    head, _, rest = detail.partition(_JUMPS)
    points, colon, tail = rest.partition(":")
    scaled = ", ".join(number_text(Fraction(point.strip()) * m) for point in points.split(","))
    return f"{head}{_JUMPS}{scaled}{colon}{tail}"


def _scaled_condition(condition: Condition, m: Fraction, unit_text: str, text: str) -> Condition:
    """One condition of l_1 as the condition of l_m (module docstring)."""
    if condition.name == "lipschitz":
        assert isinstance(condition.value, Fraction)  # the shipped proof's exact supremum
        return replace(condition, value=condition.value * m)
    if condition.name == "declaration":
        return replace(condition, detail=condition.detail.replace(unit_text, text))
    if condition.name == "twice_differentiability" and _JUMPS in condition.detail:
        return replace(condition, detail=_scaled_jumps(condition.detail, m))
    return condition  # domain, convexity, C^1, curvature: the same at every m > 0


def _threshold_text(m: float) -> str:
    """The constant as CVXPY prints it in the expression's text (a numpy double)."""
    return str(np.float64(m))


@dataclass(frozen=True)
class _Rescaled:
    """z -> factor * function(z / m) (no factor: function(z / m)): l, l' and l'' of the Huber loss at threshold m
    from the unit loss's (m^2 l_1(z / m), m l_1'(z / m), l_1''(z / m)), the same operations as the expressions
    written out; an object, not a closure, so that a verified loss and a plan holding it can be pickled."""

    function: Callable[[np.ndarray], np.ndarray]
    m: float
    factor: float | None

    def __call__(self, z: np.ndarray) -> np.ndarray:
        values = self.function(np.asarray(z) / self.m)
        return values if self.factor is None else self.factor * values


def scaled_huber(unit: VerifiedLoss, loss: Loss, m: float) -> VerifiedLoss:
    """The verified Huber loss at threshold ``m`` from ``unit``, the verified loss at m = 1 (module docstring).

    ``loss`` is ``dpcvx.losses.huber_regression(m)`` (its expression is built from it on first use)."""
    exact = exact_constant(m)
    unit_text, text = (f"huber(z, {_threshold_text(value)}) / 2.0" for value in (UNIT_THRESHOLD, m))
    conditions = tuple(_scaled_condition(condition, exact, unit_text, text) for condition in unit.conditions)
    derivatives = None
    if unit.derivatives is not None:
        base = unit.derivatives
        derivatives = LossDerivatives(_Rescaled(base.value, m, m * m), _Rescaled(base.first, m, m),
                                      _Rescaled(base.second, m, None))
    return VerifiedLoss(unit.text.replace(unit_text, text), conditions, unit.dcp_convex, derivatives,
                        build=functools.partial(declared_loss, loss))
