"""Pose a verified problem for Kifer, Smith and Thakurta (COLT 2012): a constraint set, a convex regularizer.

JMLR 2011's Theorem 2 needs a regularizer N that is twice differentiable and
strongly convex, over all of R^d. KST12's Theorem 1 drops both: N convex only
(L1, elastic net), the minimiser restricted to a closed convex set C, with
the strong convexity supplied by the added ridge Delta. Its conditions, beside
the loss's (convex, C^2, |l'| <= L, 0 <= l'' <= c, checked by the verifier as
for JMLR 2011; a loss that is only piecewise C^2 is refused, since KST12 needs a
continuous Hessian: :mod:`dpcvx.verification.verdict` decides, for every
theorem, which conditions it needs):

* ``constraint_set``: C is public, closed, convex and non-empty
  (:mod:`dpcvx.verification.constraints`);
* ``rank_one_hessian``: each record's Hessian has rank at most one. For a
  margin loss l(y w^T x) it is l''(y w^T x) x x^T: structural, for every loss
  PrivateERM accepts;
* ``regularizer_prox``: N is a ||w||_1 + (a quadratic), or quadratic, so that
  the solver's proximal map is exact and its optimality certificate holds
  (:mod:`dpcvx.solvers.proximal`). Other convex regularizers satisfy KST12 too,
  but dpcvx could not certify their approximate minimiser; they are refused.
"""

from __future__ import annotations

from dataclasses import replace

from .certificate import NO_CONSTRAINTS, Condition
from .constraints import Constraints, analyse_constraints
from .problem import VerifiedProblem
from .prox_form import NonsmoothForm

__all__ = ["with_kst12"]


def with_kst12(problem: VerifiedProblem, constraints: Constraints | None) -> VerifiedProblem:
    """``problem`` with KST12's conditions when it needs them (a constraint set or an L1 term), else itself."""
    variable = problem.regularizer.variable
    if variable is None:  # N could not be declared: the certificate refuses it (declaration)
        return problem
    constraint_set = analyse_constraints(constraints, variable)
    analysis = problem.regularizer.analysis
    composite = analysis is not None and analysis.composite
    if constraint_set is None and not composite:
        return problem
    quadratic = analysis is not None and analysis.quadratic is not None
    groups = analysis.groups if analysis is not None else ()
    boxed_groups = bool(groups) and constraint_set is not None and constraint_set.kind == "box"
    exact = (composite or quadratic) and not boxed_groups
    prox = Condition(
        "regularizer_prox", "N = a ||w||_1 + sum_g b_g ||w_g||_2 (disjoint g) + a quadratic, or quadratic "
        "(an exact proximal map with C)", exact,
        value=NonsmoothForm(analysis.l1_weight, len(analysis.groups)) if composite and analysis is not None else (
            "quadratic" if quadratic else "other"),
        method="symbolic",
        detail="" if exact else ("group norms with a box have no closed-form proximal map" if boxed_groups else
                                 "the solver certifies approximate minimisers only for these forms"),
        fix="" if exact else ("use a ball constraint with group norms" if boxed_groups else
                              "write N as a * cp.norm1(w) + b * cp.sum_squares(w) (elastic net), a sum of "
                              "c * cp.norm(w[g], 2) over disjoint index sets g (group lasso), or a quadratic"),
    )
    conditions = (
        Condition("constraint_set", "the minimiser is restricted to a public closed convex non-empty set C", True,
                  value=NO_CONSTRAINTS if constraint_set is None else constraint_set.describe(), method="given",
                  detail="recognised structurally from the declared CVXPY constraints (no data involved)"),
        Condition("rank_one_hessian", "each record's loss Hessian has rank <= 1", True, value="rank <= 1",
                  method="symbolic", detail="l(y w^T x) has Hessian l''(y w^T x) x x^T"),
        prox,
    )
    certificate = replace(problem.certificate, conditions=problem.certificate.conditions + conditions)
    return replace(problem, certificate=certificate, constraint_set=constraint_set)
