"""Constraint sets: the closed convex set C of Kifer, Smith and Thakurta (COLT 2012), declared in CVXPY.

``PrivateERM(constraints=lambda w: [...])`` restricts the minimiser to a set C.
The privacy theorem (KST12, Theorem 1; docs/theory.md, section 14) needs C
closed, convex, non-empty and public (it may not depend on the data). The
verifier calls the user's callable ONCE, on the variable of the verified
regularizer, and recognises the set structurally; it never evaluates the
constraints on data. Recognised forms (w the whole weight vector, intercept
last when fitted):

* a Euclidean ball: ``cp.norm(w, 2) <= r`` (also ``cp.norm2(w)``, ``cp.pnorm(w, 2)``), r > 0;
* a box: ``w <= u``, ``w >= l``, ``l <= w``, ``cp.norm_inf(w) <= r`` and ``cp.abs(w) <= r``,
  with scalar or per-coordinate constant bounds (several combine into one box).

A ball and a box together are refused: the solver projects onto C exactly,
and their intersection has no closed-form projection. Any other constraint is
refused with an :class:`~dpcvx.exceptions.AssumptionError` naming the forms.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import AssumptionError, InputError
from ..rounding import EPS
from ..validation import check_callable, integer

if TYPE_CHECKING:  # pragma: no cover - CVXPY is imported where a set is read or posed (a fit without one: never)
    import cvxpy as cp

__all__ = ["ConstraintSet", "analyse_constraints", "SUPPORTED_FORMS", "CONSTRAINTS_SIGNATURE"]

#: What a ``constraints`` argument is (:func:`dpcvx.validation.check_callable`).
CONSTRAINTS_SIGNATURE = "w -> list of CVXPY constraints"

SUPPORTED_FORMS = ("cp.norm(w, 2) <= r (a Euclidean ball), or bounds w <= u, w >= l, cp.norm_inf(w) <= r, "
                   "cp.abs(w) <= r (a box) with constant r, l, u")
Constraints = Callable[["cp.Variable"], Any]
_BALL = "||w||_2 <= "  # how describe() begins a ball's text
_INSIDE = 1 - 8 * EPS  # projections land strictly inside, so rounding never leaves C


@dataclass(frozen=True)
class ConstraintSet:
    """A public closed convex set: a ball ``||w|| <= radius`` or a box ``lower <= w <= upper``."""

    kind: str  # "ball" or "box"
    dim: int
    radius: float | None = None
    lower: tuple[float, ...] | None = None
    upper: tuple[float, ...] | None = None

    def project(self, v: np.ndarray) -> np.ndarray:
        """The Euclidean projection onto C (pulled inside by a few ulps)."""
        if self.kind == "ball":
            assert self.radius is not None
            norm = float(np.linalg.norm(v))
            return v if norm <= self.radius * _INSIDE else v * (self.radius * _INSIDE / norm)
        assert self.lower is not None and self.upper is not None
        return np.clip(v, np.asarray(self.lower), np.asarray(self.upper))

    def projection_step(self) -> str:
        """The release's post-processing record for :meth:`project` (docs/theory.md, section 14)."""
        return (f"Euclidean projection onto the public constraint set C = {{{self.describe()}}}, a few ulps "
                "inside (post-processing of the noisy release: no privacy cost)")

    def contains(self, v: np.ndarray) -> bool:
        if self.kind == "ball":
            assert self.radius is not None
            return bool(np.linalg.norm(v) <= self.radius)
        assert self.lower is not None and self.upper is not None
        return bool(np.all(v >= np.asarray(self.lower)) and np.all(v <= np.asarray(self.upper)))

    def norm_bound(self) -> float:
        """W = sup_{w in C} ||w||_2 (rounded up; inf for a box unbounded on some side)."""
        if self.kind == "ball":
            assert self.radius is not None
            return float(self.radius)
        corner = np.maximum(np.abs(np.asarray(self.lower)), np.abs(np.asarray(self.upper)))
        return float(np.linalg.norm(corner)) * (1 + 1e-15) if np.all(np.isfinite(corner)) else math.inf

    def cvxpy(self, w: cp.Variable) -> list[cp.Constraint]:
        """C as CVXPY constraints on ``w`` (for the conic path)."""
        import cvxpy as cp

        if self.kind == "ball":
            return [cp.norm(w, 2) <= self.radius]
        lower, upper = np.asarray(self.lower), np.asarray(self.upper)
        out = []
        if np.any(np.isfinite(lower)):
            finite = np.isfinite(lower)
            out.append(w[finite] >= lower[finite])
        if np.any(np.isfinite(upper)):
            finite = np.isfinite(upper)
            out.append(w[finite] <= upper[finite])
        return out

    def describe(self) -> str:
        """The set as the ``constraint_set`` condition states it (a model file holds the text;
        :meth:`described_radius` reads a ball's radius back)."""
        if self.kind == "ball":
            return f"{_BALL}{self.radius:.17g}"
        lower, upper = np.asarray(self.lower), np.asarray(self.upper)
        if np.all(lower == lower[0]) and np.all(upper == upper[0]):
            return f"{lower[0]:.17g} <= w_j <= {upper[0]:.17g} for every j"
        return f"box with per-coordinate bounds (lower {lower.tolist()}, upper {upper.tolist()})"

    @staticmethod
    def described_radius(text: Any) -> float | None:
        """The radius of the ball :meth:`describe` states as ``text`` (its inverse for a ball: the radius written
        with 17 significant digits reads back exactly), else None (a box, no set, or another text)."""
        if not isinstance(text, str) or not text.startswith(_BALL):
            return None
        try:
            radius = float(text[len(_BALL):])
        except ValueError:
            return None
        return radius if radius > 0 and math.isfinite(radius) and f"{_BALL}{radius:.17g}" == text else None

    def to_dict(self) -> dict[str, Any]:
        if self.kind == "ball":
            return {"kind": "ball", "dim": self.dim, "radius": self.radius}
        return {"kind": "box", "dim": self.dim, "lower": [_json_bound(v) for v in self.lower or ()],
                "upper": [_json_bound(v) for v in self.upper or ()]}

    @classmethod
    def from_dict(cls, data: Any) -> ConstraintSet:
        if not isinstance(data, dict) or data.get("kind") not in ("ball", "box"):
            raise InputError(f"a constraint set is an object with kind 'ball' or 'box', got {data!r}")
        dim = integer("constraint_set.dim", data.get("dim"))
        if data["kind"] == "ball":
            radius = data.get("radius")
            if set(data) != {"kind", "dim", "radius"} or not isinstance(radius, (int, float)) or not radius > 0:
                raise InputError(f"a ball constraint set has kind, dim and a positive radius, got {data!r}")
            return cls("ball", dim, radius=float(radius))
        if set(data) != {"kind", "dim", "lower", "upper"}:
            raise InputError(f"a box constraint set has kind, dim, lower and upper, got {sorted(data)}")
        lower = tuple(_read_bound(v) for v in data["lower"])
        upper = tuple(_read_bound(v) for v in data["upper"])
        return _box(dim, np.array(lower), np.array(upper))


def _json_bound(value: float) -> float | str:
    return value if np.isfinite(value) else ("inf" if value > 0 else "-inf")


def _read_bound(value: Any) -> float:
    if value in ("inf", "-inf"):
        return float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        raise InputError(f"a box bound is a finite number, 'inf' or '-inf', got {value!r}")
    return float(value)


def _box(dim: int, lower: np.ndarray, upper: np.ndarray) -> ConstraintSet:
    if lower.shape != (dim,) or upper.shape != (dim,):
        raise InputError(f"box bounds must have {dim} entries")
    empty = (lower > upper) | (upper == -np.inf) | (lower == np.inf)  # w <= -inf holds for no number
    if np.any(empty):
        raise AssumptionError(f"the box is empty: a lower bound exceeds its upper bound, or a bound is -inf above or "
                              f"+inf below (coordinates {np.flatnonzero(empty).tolist()}); C must be non-empty")
    return ConstraintSet("box", dim, lower=tuple(lower.tolist()), upper=tuple(upper.tolist()))


def _constant(node: Any, dim: int) -> np.ndarray | None:
    """A constant expression as a vector of ``dim`` bounds (a scalar broadcast), else None."""
    import cvxpy as cp

    if not isinstance(node, cp.Expression) or not node.is_constant() or node.parameters():
        return None
    value = np.asarray(node.value, dtype=float)
    if np.isnan(value).any():
        raise AssumptionError(f"a bound of the constraint set is NaN ({node}); a closed convex set has numbers or "
                              "+-inf as bounds")
    if value.size == 1:
        return np.full(dim, float(value.ravel()[0]))
    return value.ravel() if value.size == dim else None


def _scalar_bound(side: Any, bound: np.ndarray) -> np.ndarray:
    """The bound of a scalar ``side`` (a norm of w): CVXPY compares a scalar with each entry of a vector, so
    ||w|| <= (5, 1, 1) is ||w|| <= 1, the least entry (the first was taken: the set certified and solved was the
    ball of radius 5)."""
    return np.full(bound.shape, bound.min()) if side.size == 1 else bound


def _is_w(node: Any, w: cp.Variable) -> bool:
    import cvxpy as cp

    return isinstance(node, cp.Variable) and node.id == w.id


def _refuse(constraint: Any, why: str) -> AssumptionError:
    return AssumptionError(
        f"constraint {constraint} is not a recognised closed convex set ({why}). dpcvx proves privacy "
        f"for a public closed convex set and solves over it exactly; declare one of: {SUPPORTED_FORMS}")


def analyse_constraints(constraints: Constraints | None, w: cp.Variable) -> ConstraintSet | None:
    """Call ``constraints(w)`` once and recognise the set (None: no constraints)."""
    import cvxpy as cp

    from . import atoms

    if constraints is None:
        return None
    check_callable("constraints", constraints, CONSTRAINTS_SIGNATURE)
    try:
        declared = constraints(w)
        declared = [declared] if isinstance(declared, cp.Constraint) else list(declared or [])
    except Exception as error:  # the user's callable: any failure is a typed refusal
        raise InputError(f"constraints(w) raised {type(error).__name__}: {error}; it must return a list of "
                         "CVXPY constraints on w") from None
    if not declared:
        return None
    dim = int(w.size)
    radius: float | None = None
    lower, upper = np.full(dim, -np.inf), np.full(dim, np.inf)
    boxed = False
    for constraint in declared:
        if not isinstance(constraint, cp.constraints.Inequality):
            raise _refuse(constraint, "only inequalities <= and >= are recognised")
        if constraint.parameters():
            raise _refuse(constraint, "it holds a cp.Parameter: the set must be fixed when declared")
        if any(variable.id != w.id for variable in constraint.variables()):
            raise _refuse(constraint, "it involves a variable other than the weights w")
        small, large = constraint.args  # small <= large
        bound_above, bound_below = _constant(large, dim), _constant(small, dim)
        if bound_above is not None:
            bound_above = _scalar_bound(small, bound_above)
        if bound_above is not None and isinstance(small, atoms.PNORMS) and atoms.norm_order(small) == 2 \
                and _is_w(small.args[0], w):
            if bound_above[0] <= 0:
                raise AssumptionError(f"the ball radius in {constraint} must be positive")
            radius = min(float(bound_above[0]), radius) if radius is not None else float(bound_above[0])
        elif bound_above is not None and _is_w(small.args[0] if small.args else None, w) and (
                isinstance(small, atoms.NORM_INF + atoms.ABS) or (dim == 1 and isinstance(small, atoms.NORMS))):
            # in one dimension every norm is |w| (CVXPY builds cp.norm(w, 2) of one entry as norm1)
            lower, upper, boxed = np.maximum(lower, -bound_above), np.minimum(upper, bound_above), True
        elif bound_above is not None and _is_w(small, w):
            upper, boxed = np.minimum(upper, bound_above), True
        elif bound_below is not None and _is_w(large, w):
            lower, boxed = np.maximum(lower, bound_below), True
        else:
            raise _refuse(constraint, "not a ball or a box on w")
    if radius is not None and boxed:
        raise AssumptionError("a ball and a box together are not supported: their intersection has no exact "
                              "projection; declare one of them")
    if radius is not None:
        return ConstraintSet("ball", dim, radius=radius)
    return _box(dim, lower, upper)
