"""L over the residuals a constrained regression can reach: least squares on a ball (KST12).

A regression's loss is a function l(r) of the residual r = w^T x - y. When the
weights are restricted to a public set C with sup_{w in C} ||w|| <= W, the
rows to ||x|| <= R and the labels to |y| <= B (all public), every residual the
mechanism can meet lies in [-rho, rho], rho = W R + B. Kifer, Smith and
Thakurta's Theorem 1 (COLT 2012) needs the gradient bound only on C: the
minimiser lies in C and the change of variables from the noise to the
minimiser is taken there (docs/theory.md, section 16). So a loss that is not
Lipschitz on R, such as the squared error, has on C the constant

    L_rho = sup_{|r| <= rho} |l'(r)| = max(|l'(-rho)|, |l'(rho)|),

exact for a convex C^1 loss, whose l' is non-decreasing. It is evaluated in
exact arithmetic (sympy) at the rational rho, rounded up; the curvature bound
stays the one over R, which must be finite.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from .certificate import Condition
from .exact import float_up, plain
from .problem import VerifiedProblem

__all__ = ["with_bounded_residual"]


def _endpoint_slope(problem: VerifiedProblem, rho: float) -> Any:
    """max(|l'(-rho)|, |l'(rho)|) as an exact number, or None when it cannot be evaluated exactly."""
    expression, variable = problem.loss.expression, problem.loss.variable
    if expression is None or variable is None:
        return None
    import sympy as sp  # exact calculus: only for a constrained regression

    from .translate import UnsupportedAtom, to_sympy

    residual = sp.Symbol("r", real=True)
    try:
        form = to_sympy(expression, variable, residual).rewrite(sp.Piecewise)
        slope = sp.diff(form, residual)
        bound = sp.Rational(rho)
        values = [sp.Abs(slope.subs(residual, point)) for point in (-bound, bound)]
        if not all(value.is_number and value.is_finite for value in values):
            return None
        return plain(sp.Max(*values))
    except UnsupportedAtom:
        return None
    except Exception:  # noqa: BLE001 - sympy failed in this process (loss_analysis.sympy_failure): not evaluated
        return None


REGRESSION_FIX = ("a regression loss that grows faster than linearly (squared error) has a finite L on a ball: "
                  "declare constraints=lambda w: [cp.norm(w, 2) <= W] with a public W and mechanism='objective' "
                  "(KST12; L is then taken over the residuals |r| <= W R + B), or use dpcvx.DPLinearRegression "
                  "(AdaSSP)")

#: The loss conditions L over the reachable residuals rests on (beside a bounded set), and what a loss failing
#: each lacks, in the words of a fix.
_NEEDED = {"convexity": "is not proved convex", "differentiability": "is not proved C^1",
           "curvature": "has no proved finite curvature"}


def _regression_fix(conditions: dict[str, Condition], weight_bound: float | None) -> str:
    """The fix of a regression loss whose L over R is not finite, naming what stands between it and a finite L
    over the reachable residuals: the loss itself (not convex, not C^1, or an unbounded curvature: the exponential
    and powers above 2 have l'' unbounded, which a ball does not cure, since c is taken over all residuals), the
    declared set (it does not bound ||w||), or nothing but a ball (:data:`REGRESSION_FIX`). ``conditions`` are the
    certificate's by name, ``weight_bound`` W = sup ||w|| over the declared set (None: no set)."""
    lacks = [f"{_NEEDED[name]} ({conditions[name].detail})" for name in _NEEDED
             if name in conditions and conditions[name].passed is not True]
    if lacks:
        return ("constraints do not make L finite for this loss: L over the residuals a ball of weights can reach "
                "needs a convex C^1 loss with a finite curvature c = sup |l''(r)| over all residuals (KST12), and "
                f"this loss {'; it '.join(lacks)}: use a loss with a bounded slope, dpcvx.losses.huber_regression(m=B "
                "/ 4) (cp.huber(p - y, m), m in the label's unit, B its bound), or the squared error cp.square(p - y) "
                "(c = 2) and "
                "declare constraints=lambda w: [cp.norm(w, 2) <= W] and mechanism='objective'")
    if weight_bound is not None and not math.isfinite(weight_bound):
        return ("the declared constraint set does not bound ||w||, so the residuals it lets the weights reach are "
                "unbounded: declare a bounded set, a ball [cp.norm(w, 2) <= W] or a box [w >= -W, w <= W], with a "
                "public W")
    if weight_bound is not None:
        return ("l'(r) could not be evaluated exactly at the ends of the reachable residuals |r| <= W R + B: write "
                "the loss with atoms the verifier translates (docs/verifier.md), such as cp.square(p - y)")
    return REGRESSION_FIX


def _with_lipschitz(problem: VerifiedProblem, condition: Condition) -> VerifiedProblem:
    certificate = problem.certificate
    conditions = tuple(condition if item.name == "lipschitz" else item for item in certificate.conditions)
    return replace(problem, certificate=replace(certificate, conditions=conditions))


def with_bounded_residual(problem: VerifiedProblem, weight_bound: float | None, norm_bound: float,
                          label_bound: float) -> VerifiedProblem:
    """``problem`` with L taken over |r| <= rho = W R + B when that is finite and no larger than L over R.

    ``weight_bound`` is W = sup_{w in C} ||w|| of the declared constraint set
    (None: no constraint set), ``norm_bound`` R (the mapped rows, intercept
    included) and ``label_bound`` B. Applies only to a convex C^1 loss with a
    finite curvature bound; otherwise ``problem`` keeps its own conditions, and
    an unbounded L gets the regression's fix (:func:`_regression_fix`).
    """
    names = {item.name: item for item in problem.certificate.conditions}
    current = names["lipschitz"]
    needed = ("convexity", "differentiability", "curvature")
    applies = all(name in names and names[name].passed is True for name in needed)
    slope = None
    if applies and weight_bound is not None and math.isfinite(weight_bound):
        rho = math.nextafter((weight_bound * norm_bound + label_bound) * (1 + 1e-15), math.inf)
        slope = _endpoint_slope(problem, rho)  # rho: an upper bound on every reachable |r|
    if slope is None:
        if current.passed is True:
            return problem
        return _with_lipschitz(problem, replace(current, fix=_regression_fix(names, weight_bound)))
    if current.passed is True and float_up(current.value) <= float_up(slope):
        return problem
    bounded = Condition(
        "lipschitz", f"L = sup |l'(r)| over the reachable residuals |r| <= rho = W R + B = {rho:.17g} is finite",
        True, slope, "symbolic",
        f"max(|l'(-rho)|, |l'(rho)|) in exact arithmetic (l convex, so l' is non-decreasing); W = {weight_bound:.17g} "
        f"bounds ||w|| on the declared constraint set, R = {norm_bound:.17g}, B = {label_bound:.17g} "
        "(KST12 needs the bound on C only)")
    return _with_lipschitz(problem, bounded)
