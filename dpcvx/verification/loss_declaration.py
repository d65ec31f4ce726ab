"""The declared loss: the user's callable called once on a scalar variable, and what a verification starts from.

Nothing here needs sympy: a verification served from the proof cache
(:mod:`dpcvx.verification.loss_record`) runs only this; the proving routes are
:mod:`dpcvx.verification.loss_analysis`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sparse

from ..validation import positive
from .certificate import Condition
from .problem import Loss

if TYPE_CHECKING:  # pragma: no cover - CVXPY is imported where an expression is built (a catalogue fit needs none)
    import cvxpy as cp

__all__ = ["LOSS_CONDITIONS", "SLOPE_SIGN", "NON_INCREASING", "NON_DECREASING", "SIGN_CHANGE",
           "SYMBOLIC_SECONDS", "UnfixedConstant", "CONSTANT_FIX", "check_constants",
           "check_time_limit", "cvxpy_evaluator", "declared_loss", "pending_conditions", "loss_at_zero", "loss_value",
           "violated_constraints"]

SYMBOLIC_SECONDS = 20.0
DOMAIN_TOLERANCE = 1e-9  # a domain constraint whose residual exceeds this is violated

#: The fix of a declaration refused by :func:`check_constants` (the generic "pass a callable such as ..." named
#: neither the parameter nor the non-finite number).
CONSTANT_FIX = ("write every constant as a fixed finite number where the expression is built: a cp.Parameter p as "
                "float(p.value), no NaN or infinity, nothing beyond a double's range (1.8e308)")


class UnfixedConstant(TypeError):
    """A declared expression holds a cp.Parameter or a non-finite constant (:func:`check_constants`); its fix is
    :data:`CONSTANT_FIX`."""


def declared_loss(loss: Loss) -> tuple[cp.Variable, cp.Expression]:
    """Call the loss on a scalar variable and check what comes back."""
    import cvxpy as cp

    variable = cp.Variable(name="z")
    if not callable(loss):
        raise TypeError(f"loss must be a callable z -> CVXPY expression, got {type(loss).__name__}")
    expression = loss(variable)
    if not isinstance(expression, cp.Expression):
        raise TypeError(f"loss(z) returned {type(expression).__name__}, not a CVXPY expression")
    if expression.size != 1:
        raise TypeError(f"loss(z) must be a scalar, got shape {expression.shape}")
    others = [v for v in expression.variables() if v.id != variable.id]
    if others:
        raise TypeError(f"loss(z) uses variables other than z: {[v.name() for v in others]}")
    check_constants(expression, "loss(z)")
    return variable, expression


def check_constants(expression: cp.Expression, name: str) -> None:
    """Refuse a declaration (``name``: "loss(z)", "regularizer(w)" or "l(p, y)") unless every constant is a fixed
    finite number: a cp.Parameter (its value can change after the proof, and CVXPY reads it when it solves: a
    regularizer proved at p = 1 was minimised at p = 1e-4 under the noise for m = 2, and the cache handed that live
    expression to a later declaration with the same numbers), or a NaN or infinite constant (no loss or regularizer
    is finite with it; the solver would compute with it). The one check of the declared expressions, so that each
    fails with the same words; constraint sets refuse a cp.Parameter too
    (:func:`~dpcvx.verification.constraints.analyse_constraints`)."""
    parameters = expression.parameters()
    if parameters:
        shown = parameters[0].name()
        value = parameters[0].value
        example = f"float({shown}.value)" if value is not None and np.size(value) == 1 else f"{shown}.value"
        raise UnfixedConstant(f"{name} holds the cp.Parameter {shown}: what is proved must be what is solved, and a "
                        f"parameter's value can change between the two; write its value as a constant ({example}, "
                        "read when the loss or regularizer is declared)")
    for leaf in expression.constants():
        value = leaf.value
        # a scipy.sparse constant (cp.sum_squares(A @ w) with a sparse A): its stored entries, the rest being 0
        values = np.asarray(value.data if sparse.issparse(value) else value, dtype=float)
        if not np.all(np.isfinite(values)):
            bad = values[~np.isfinite(values)].flat[0]
            raise UnfixedConstant(f"{name} uses the non-finite constant {bad}: every constant of "
                            "a loss or a regularizer must be a finite number")


def loss_value(loss: Loss, z: float) -> float | None:
    """l(z) at one public point z (public: a property of the loss), None when it is not a finite number.

    A catalogue loss (:func:`dpcvx.losses.catalogue_entry`) served from the shipped catalogue by its name takes l(z)
    from the record's numpy l (no CVXPY; tests/verification/test_catalogue_template.py checks it equals CVXPY's
    value at 0); any other, a subclass of MarginLoss included, from CVXPY."""
    from ..losses import catalogue_entry
    from .loss_record import template_lookup

    entry = catalogue_entry(loss)
    served = None if entry is None else template_lookup(entry.spec, SYMBOLIC_SECONDS)
    try:
        if served is not None and served[1] is not None:
            computed = served[1].value(np.full(1, float(z)))[0]
        else:
            import cvxpy as cp

            computed = loss(cp.Constant(float(z))).value
        value = float(computed) if computed is not None else math.nan
    except Exception:  # noqa: BLE001 - any callable may fail here: the caller falls back to a bound
        return None
    return value if math.isfinite(value) else None


def loss_at_zero(loss: Loss) -> float | None:
    """l(0), the loss of the zero model at every record (:func:`loss_value` at 0), None unless positive."""
    value = loss_value(loss, 0.0)
    return value if value is not None and value > 0 else None


def cvxpy_evaluator(loss: Loss) -> Callable[[np.ndarray], np.ndarray]:
    """Evaluate the CVXPY loss on arrays; NaN where a domain constraint is violated."""
    import cvxpy as cp

    built: dict[int, tuple[cp.Variable, cp.Expression | None, bool]] = {}

    def build(size: int) -> tuple[cp.Variable, cp.Expression | None, bool]:
        if size not in built:
            variable = cp.Variable(size)
            try:
                expression = loss(variable)
                vectorised = expression.shape == (size,)
            except Exception:
                expression, vectorised = None, False
            built[size] = (variable, expression, vectorised)
        return built[size]

    scalar_variable, scalar_expression = declared_loss(loss)

    def at(expression: cp.Expression, variable: cp.Variable, values: np.ndarray | float) -> np.ndarray:
        variable.value = values
        out = np.asarray(expression.value, dtype=float).reshape(np.shape(values))
        for constraint in expression.domain:
            residual = np.asarray(constraint.residual, dtype=float)
            if residual.shape == out.shape:
                out = np.where(residual > DOMAIN_TOLERANCE, np.nan, out)
            elif np.any(residual > DOMAIN_TOLERANCE):
                out = np.full_like(out, np.nan)
        return out

    def evaluate(values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        variable, expression, vectorised = build(values.size)
        if vectorised and expression is not None:  # vectorised: the loss built an expression
            return at(expression, variable, values.ravel()).reshape(values.shape)
        return np.array(
            [at(scalar_expression, scalar_variable, float(v)) for v in values.ravel()]
        ).reshape(values.shape)

    return evaluate


def violated_constraints(expression: cp.Expression, variable: cp.Variable,
                         points: tuple[float, ...]) -> dict[str, float]:
    """The domain constraints of ``expression`` (a loss of the scalar ``variable``) violated at some of ``points``,
    by their text, each with the point of smallest |z| that violates it. The variable's value is restored."""
    found: dict[str, float] = {}
    kept = variable.value
    try:
        for point in sorted(points, key=abs):
            variable.value = point
            for constraint in expression.domain:
                with np.errstate(all="ignore"):
                    residual = np.asarray(constraint.residual, dtype=float)
                if np.any(residual > DOMAIN_TOLERANCE):
                    found.setdefault(str(constraint), point)
    finally:
        variable.value = kept
    return found


#: The loss's condition that l' has one sign (:meth:`~.loss_analysis.LossAnalyser.slope_sign`): no theorem needs it;
#: proved, it lets the Gaussian objective perturbation use the tighter profile (docs/theory.md, section 12.3). Its
#: values: l' <= 0 everywhere, l' >= 0 everywhere, or l' takes both signs.
SLOPE_SIGN = ("slope_sign", "l'(z) has one sign on R (l' <= 0 everywhere, or l' >= 0)")
NON_INCREASING, NON_DECREASING, SIGN_CHANGE = "l' <= 0", "l' >= 0", "changes sign"

LOSS_CONDITIONS = (
    ("convexity", "l is convex"),
    ("differentiability", "l is continuously differentiable (C^1)"),
    ("twice_differentiability", "l is twice differentiable (C^2)"),
    ("lipschitz", "L = sup |l'(z)| is finite"),
    ("curvature", "c = sup |l''(z)| is finite"),
    SLOPE_SIGN,
)


def pending_conditions(reason: str, names: tuple[tuple[str, str], ...] = LOSS_CONDITIONS) -> tuple[Condition, ...]:
    """The conditions ``names`` as not established (passed None), each for ``reason``."""
    return tuple(Condition(name, description, None, None, "none", reason) for name, description in names)


def check_time_limit(time_limit: Any) -> float:
    """Seconds for one verification, shared by its worker calls (sympy, then validated bounds; see
    :class:`~dpcvx.verification.deadline.Budget`): None for the default, else a positive number
    (:func:`dpcvx.validation.positive`: text such as "1" is refused as every number parameter refuses it)."""
    return SYMBOLIC_SECONDS if time_limit is None else positive("time_limit", time_limit)
