"""Exact solvers for the (perturbed) ERM problem, and the record of how a solve went.

* :func:`newton`: the fast path for a smooth loss (verified derivatives) and a
  quadratic regularizer. Damped Newton on F = n J_b with an Armijo line search;
  the Newton system is solved by Cholesky when the dimension is moderate and
  by conjugate gradients on Hessian-vector products beyond that.
* :func:`solve_with_cvxpy`: the general path. The same objective is written in
  CVXPY and solved by a conic solver (Clarabel by default, ECOS or SCS) with
  tightened tolerances.

Neither solver's own status is trusted: both report the gradient norm of the
sum-form objective F = n J_b at the returned point, computed in double
precision with the verified derivatives, and a point is accepted when it is
at most half the public bound gamma (the other half absorbs the rounding error
of the computed gradient; docs/theory.md, "Approximate minimisers"). The
release is then covered by approximate minima perturbation whatever point
within gamma was found.

Everything in :class:`SolveInfo` is measured on the private data: it is for
the data owner only, never part of a release.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.linalg as la
import scipy.sparse as sparse

from ..data.rows import Matrix
from ..exceptions import InputError, SolverError, withheld
from ..verification.problem import VerifiedProblem
from .blockwise import BlockwiseObjective
from .cg import (
    JACOBI_SLOW,
    CholeskyFactor,
    Preconditioner,
    cho_factor,
    cho_solve,
    preconditioned_cg,
    preconditioner_solve,
)
from .objective import PerturbedObjective, Residual, _norm, add_terms, hessian_sample_size, relative_residual

if TYPE_CHECKING:  # pragma: no cover - CVXPY is imported where an expression is built (the conic path only)
    import cvxpy as cp

__all__ = ["SolveInfo", "newton", "solve_with_cvxpy", "check_cvxpy_options", "CVXPY_SOLVER_OPTIONS",
           "DENSE_NEWTON_MAX_DIM"]

DENSE_NEWTON_MAX_DIM = 400
HESSIAN_FREE_MIN_DIM = 100  # from this width on, full-data Newton directions by preconditioned CG
CG_TARGET_FRACTION = 0.3  # CG stops once its residual is this fraction of the gradient target
STALL_ITERATIONS = 8  # near round-off, stop when the residual has not halved this often
ROUND_OFF_REGIME = 1e-6  # relative residual below which a stall is attributed to round-off
LOCAL_REGIME = 1e-2  # relative residual below which slow steps mean an inaccurate Hessian
SUBSAMPLE_UNTIL = 1e-3  # subsampled Hessians while the relative residual is above this
REUSE_CONTRACTION = 100.0  # a step cutting the residual this much lets its Hessian factor serve again
SLOW_SUBSAMPLED_STEPS = 4  # this many steps in a row that do not halve the residual end the subsampled Hessian
SAMPLED_REUSE_CONTRACTION = 10.0  # from HESSIAN_FREE_MIN_DIM columns, a reused subsampled factor serves on while its
# steps cut the residual this much
FLAT_CURVATURE = 0.3  # the subsampled Hessian ends once l'' over the rows is within this fraction of its largest
FLAT_SAMPLE_STEP = 64  # ... read on every this-th row's margins
LINE_NEWTON_STEPS = 4  # Newton steps in t of the line minimisation far from the optimum
LINE_SLOPE_FRACTION = 0.1  # the full step is kept when |phi'(1)| is below this fraction of |phi'(0)|
LINE_SLOPE_TOL = 0.01  # else Newton in t stops once |phi'(t)| is below this fraction
LINE_DAMPING_STEPS = 12  # at most this many steps in t for a failed full step's second trial (_line_damping)
FLAT_DECREASE = 1e-12  # a change of F below this fraction of |F| is round-off
SAMPLED_SLOW = 0.3  # dense rows beyond DENSE_NEWTON_MAX_DIM: a subsampled factor once CG cuts less than ~3x a product
LINE_SAMPLE_PER_FEATURE = 100  # subsampled directions take the line minimisation from this many rows per feature
_TINY = float(np.finfo(float).tiny)  # the smallest normal double: the floor's divisor never 0


CVXPY_SOLVER_OPTIONS: dict[str, dict[str, Any]] = {
    "CLARABEL": {"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "tol_feas": 1e-12,
                 "tol_ktratio": 1e-10, "max_iter": 500},
    "ECOS": {"abstol": 1e-10, "reltol": 1e-10, "feastol": 1e-10, "max_iters": 500},
    "SCS": {"eps_abs": 1e-12, "eps_rel": 1e-12, "max_iters": 200_000},
}


NOT_PRIVATE = "NOT PRIVATE - computed on the private data, do not publish"


@dataclass(frozen=True)
class SolveInfo:
    """How a solve went, measured on the private data. NOT PRIVATE: do not publish.

    ``gradient_norm`` is ||grad F(w)|| of the sum-form objective at the
    returned point, ``gradient_tolerance`` the public bound gamma it must stay
    within (half of it, for the rounding margin), ``relative_residual`` the
    same gradient relative to the sum of its terms' norms; ``passes`` the
    passes over X of Newton on a blockwise objective (a memmap, a Dask X or a
    row-major array read by blocks; None otherwise). ``final_margins`` are Newton's margins y_i x_i . w
    at the returned point, computed afresh by the final check, when it converged and they are in memory
    (else None), and ``offset_margins`` y_i x_i . u of the objective's ``offset`` u when a pass computed them:
    the training-rows check reads them instead of X (:mod:`dpcvx.models.fit_plan`), which
    then drops them (never in ``diagnostics_`` or :meth:`to_dict`).
    Kept on the learner (``diagnostics_``) for the data owner; never in a
    release, a saved model or the CLI's model output.
    """

    solver: str
    status: str
    iterations: int
    seconds: float
    gradient_norm: float
    gradient_tolerance: float
    relative_residual: float
    passes: int | None = None
    final_margins: np.ndarray | None = field(default=None, repr=False, compare=False)
    offset_margins: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def converged(self) -> bool:
        return self.gradient_norm <= 0.5 * self.gradient_tolerance

    def without_margins(self) -> SolveInfo:
        """This record with ``final_margins`` and ``offset_margins`` dropped: what a learner keeps as
        ``diagnostics_``."""
        return replace(self, final_margins=None, offset_margins=None)

    def to_dict(self) -> dict[str, Any]:
        return {"warning": NOT_PRIVATE, **asdict(self, dict_factory=_without_margins)}

    def __str__(self) -> str:
        return (f"{NOT_PRIVATE}: {self.solver} {self.status} after {self.iterations} iterations, "
                f"{self.seconds:.3g} s, ||grad F|| = {self.gradient_norm:.3g} "
                f"(public bound {self.gradient_tolerance:.3g})")

    def __repr__(self) -> str:
        return f"SolveInfo<{self}>"


def _without_margins(items: list[tuple[str, Any]]) -> dict[str, Any]:
    """:meth:`SolveInfo.to_dict`'s fields: the margins left out (an n-vector of the private data)."""
    return {key: value for key, value in items if key not in ("final_margins", "offset_margins")}


def _newton_direction(
    objective: PerturbedObjective, w: np.ndarray, margins: np.ndarray, gradient: np.ndarray, forcing: float,
    level: tuple[bool, bool], factor: CholeskyFactor | None = None, stale: CholeskyFactor | None = None,
    local: bool = False, next_gradient: bool = False, fresh: bool = False,
) -> tuple[np.ndarray, CholeskyFactor | None, np.ndarray | None, tuple[np.ndarray, ...] | None]:
    """(direction, Cholesky factor of the Hessian used or None, the margins' change along the direction or
    None, the gradient terms at the full step or None); a given ``factor`` is reused.

    CG directions solve H d = -g to ||H d + g|| <= forcing ||g|| with exact
    Hessian-vector products, preconditioned by ``stale`` (the factor of an
    earlier all-rows Hessian, when :func:`_hessian_free`); beyond
    ``DENSE_NEWTON_MAX_DIM``, from the first step by the diagonal of public column scales
    where X has an intercept column, else for dense rows that share a mean direction by a diagonal plus that
    direction (:meth:`PerturbedObjective.scale_preconditioner`; else
    none), then by diag(H) for a sparse X where it pays
    (:meth:`PerturbedObjective.jacobi_pays`; computed afresh outside the ``local``
    regime, the last one reused in it), and for dense rows by a subsampled Hessian's
    factor once CG is slow (:func:`_sampled_factor`). A CG
    direction comes with its margin change when the objective takes steps from
    CG's products (:attr:`PerturbedObjective.steps_from_products`), and with
    ``next_gradient`` the gradient terms at the full step when CG's products
    brought them (:func:`~dpcvx.solvers.cg.preconditioned_cg`).
    """
    if factor is not None:
        return -cho_solve(factor, gradient), factor, None, None
    d = objective.dim
    subsample, single = level
    hessian_free = _hessian_free(objective) and not subsample
    if hessian_free and stale is not None:
        return _cg_direction(objective, w, margins, gradient, forcing, stale, stale, next_gradient=next_gradient,
                             fresh=fresh)
    if d <= DENSE_NEWTON_MAX_DIM:
        H = objective.hessian(w, margins, single=single, subsample=subsample)
        try:
            factor = cho_factor(H)
            return -cho_solve(factor, gradient), factor, None, None
        except la.LinAlgError:
            return -la.lstsq(np.triu(H) + np.triu(H, 1).T, gradient)[0], None, None, None
    # beyond DENSE_NEWTON_MAX_DIM: CG on exact H v, by the public column scales' diagonal (an intercept column), or
    # a diagonal plus the rows' mean direction (un-centred dense rows; else none) until CG is slow, then for dense
    # rows by a subsampled Hessian's factor (:func:`_sampled_factor`), for a sparse X by diag(H) where it pays (a
    # question asked only once CG is slow without it)
    scaled = objective.scale_preconditioner(margins)
    if objective.dense:
        if not objective.can_subsample:
            return _cg_direction(objective, w, margins, gradient, forcing, scaled, None, next_gradient=next_gradient,
                                 fresh=fresh)

        def sampled() -> CholeskyFactor | None:
            return _sampled_factor(objective, w, margins)

        if objective.cg_slow:
            return _cg_direction(objective, w, margins, gradient, forcing, sampled(), None,
                                 next_gradient=next_gradient, fresh=fresh)
        return _cg_direction(objective, w, margins, gradient, forcing, scaled, None, deferred=sampled,
                             next_gradient=next_gradient, slow=SAMPLED_SLOW, fresh=fresh)

    def jacobi() -> np.ndarray | None:
        return objective.jacobi(w, margins, reuse=local) if objective.jacobi_pays else None

    if objective.jacobi_decided:
        diagonal = jacobi()
        return _cg_direction(objective, w, margins, gradient, forcing, scaled if diagonal is None else diagonal, None,
                             next_gradient=next_gradient, fresh=fresh)
    return _cg_direction(objective, w, margins, gradient, forcing, scaled, None, deferred=jacobi,
                         next_gradient=next_gradient, fresh=fresh)


def _cg_direction(objective: PerturbedObjective, w: np.ndarray, margins: np.ndarray, gradient: np.ndarray,
                  forcing: float, preconditioner: Preconditioner,
                  factor: CholeskyFactor | None,
                  deferred: Callable[[], Preconditioner] | None = None,
                  next_gradient: bool = False, slow: float = JACOBI_SLOW, fresh: bool = False,
                  ) -> tuple[np.ndarray, CholeskyFactor | None, np.ndarray | None, tuple[np.ndarray, ...] | None]:
    """:func:`~dpcvx.solvers.cg.preconditioned_cg`'s direction, ``factor`` (passed through), margin change
    (or None) and gradient terms at the full step (or None)."""
    direction, change, next_terms = preconditioned_cg(
        objective, w, margins, gradient, forcing, preconditioner, track_change=objective.steps_from_products,
        deferred=deferred, next_gradient=next_gradient, slow=slow, fresh=fresh)
    return direction, factor, change, next_terms


def _sampled_factor(objective: PerturbedObjective, w: np.ndarray, margins: np.ndarray) -> CholeskyFactor | None:
    """The Cholesky factor of the subsampled Hessian at w (single precision, :meth:`PerturbedObjective.hessian`),
    as CG's preconditioner for dense rows beyond ``DENSE_NEWTON_MAX_DIM`` columns once CG has been slow without
    one (``SAMPLED_SLOW``); from then on every Newton direction of the solve takes a fresh one
    (:attr:`PerturbedObjective.cg_slow`). None if the factorisation fails (CG then goes on unpreconditioned).

    Its m d^2 multiply-adds (m = :func:`~dpcvx.solvers.objective.hessian_sample_size` rows, at most a fifth of
    n at these widths) cost a fraction of a pass over X; on correlated columns, where unpreconditioned CG takes
    about ten Hessian-vector products (passes) per Newton direction, it takes one or two
    (docs/performance.md, round 14). Only the direction changes: every product, gradient and the
    stopping test stay exact."""
    objective.cg_slow = True
    try:
        return cho_factor(objective.hessian(w, margins, single=True, subsample=True))
    except la.LinAlgError:
        return None


def _line_minimum(objective: PerturbedObjective, w: np.ndarray, direction: np.ndarray, margins: np.ndarray,
                  change: np.ndarray, slope: float) -> tuple[float, float | None]:
    """(t, phi'(t) when computed at that t, else None): the step t >= 1 minimising phi(t) = F(w + t d) by
    Newton's method in t (to ``LINE_SLOPE_TOL``), when the full step undershoots: phi'(1) <
    ``LINE_SLOPE_FRACTION`` phi'(0). Else 1.0: the step's pass already holds the gradient at the full step, and
    fresh margins, and backtracking starts there. phi'(t) lets :func:`_step_descends` prove the step without F's
    values; it is None when the last Newton step in t moved t after its derivatives.

    Newton's first step from w = 0 undershoots on a loss whose curvature is largest at 0 and falls
    along the step (logistic): at 1e5 x 20 the first direction's minimum lies near t = 1.7, and
    Newton from there needs fewer iterations. So :func:`newton` takes this step length for its
    first step from 0 (later steps, and a warm start, keep t = 1: on the Huber hinge a longer step
    moved Newton off the active set it was about to find). The margins are affine in t (z + t dz),
    so each Newton step in t costs one l' and one l'' per row and no product with X
    (:meth:`PerturbedObjective.line_derivatives`). Only the step length changes: the line search's
    sufficient decrease and the gradient checks are as before.
    """
    t = 1.0
    for k in range(LINE_NEWTON_STEPS):
        phi1, phi2 = objective.line_derivatives(w, direction, margins, change, t)
        if k == 0 and phi1 >= LINE_SLOPE_FRACTION * slope:  # (slope < 0) no undershoot worth a pass
            return 1.0, None
        if abs(phi1) <= LINE_SLOPE_TOL * abs(slope) or not phi2 > 0:
            return t, phi1
        # a safeguarded Newton step in t: phi is convex and phi'(1) < 0, so its minimum lies beyond 1
        t = min(max(t - phi1 / phi2, 1.0), 4.0 * t)
    return t, None


def _accurate(objective: PerturbedObjective, subsample: bool) -> bool:
    """Whether a Newton direction is accurate enough for :func:`_line_minimum` to pay: from all rows, or from
    a subsample of at least ``LINE_SAMPLE_PER_FEATURE`` rows per feature (relative error sqrt(d / m) <= 0.1).
    Measured: with 50 rows per feature (1e4 x 20) or 20 (1e5 x 200) the longer steps made the next
    directions worse, and the solves slower; with 500 (1e5 x 20, 1e6 x 20) they saved two iterations."""
    return not subsample or hessian_sample_size(objective.n, objective.dim) >= LINE_SAMPLE_PER_FEATURE * objective.dim


def _line_damping(objective: PerturbedObjective, w: np.ndarray, direction: np.ndarray, margins: Any,
                  change: np.ndarray, slope: float) -> float:
    """The line search's second trial step once the full step failed its sufficient decrease: t in (0, 1) near
    the minimum of phi(t) = F(w + t d), in place of 1/2, where the margins are in memory (else 1/2).

    phi is convex with phi'(0) = ``slope`` < 0, and a full step that fails Armijo's test outside round-off
    overshoots the minimum (phi'(1) > 0). Newton in t from 1, kept inside the bracket [lo, hi] where phi'
    changes sign (a bisection where Newton leaves it), stops once |phi'(t)| <= ``LINE_SLOPE_TOL`` |phi'(0)| or
    after ``LINE_DAMPING_STEPS`` steps (Newton where it stays in the bracket and at least halves its last move,
    else bisection: the rule of rtsafe in Press et al.'s Numerical Recipes); each costs one l' and one l'' per row
    and no product with X (:meth:`PerturbedObjective.line_derivatives`). The step is still the line search's
    trial: its value decides, and halving goes on from it when it fails; the safeguard's comparison is unchanged.

    Halving from 1 took steps of 1/2 and 1/4 where the minimum lay elsewhere in (0, 1): on rows that repeat with
    both labels (the held-out generator duplicates) Newton's steps swing margins between the logistic's flat
    tails, and each damped step left them further from the optimum than the line's minimum would. ``python -m
    benchmarks.speed_ab`` against main (benchmarks/results/speed_ab_line_damping.md, dpcvx / lbfgs, three
    processes' medians, before -> after) at 20,000 x 1,000: low rank 1.36 / 1.42 / 1.30 -> 1.07 / 1.05 / 1.01,
    duplicates 5.37 / 5.35 / 5.24 -> 4.39 / 4.27 / 4.15; dominant, correlated, isotropic and balance 2 % within
    the spread. Beyond ``DENSE_NEWTON_MAX_DIM`` columns only, where it was measured: the dense Newton path keeps
    halving."""
    if not isinstance(margins, np.ndarray) or objective.dim <= DENSE_NEWTON_MAX_DIM:
        return 0.5
    lo, hi, t, moved = 0.0, 1.0, 1.0, 1.0
    for _ in range(LINE_DAMPING_STEPS):
        phi1, phi2 = objective.line_derivatives(w, direction, margins, change, t)
        if abs(phi1) <= LINE_SLOPE_TOL * abs(slope):
            break
        lo, hi = (t, hi) if phi1 < 0 else (lo, t)
        newton_t = t - phi1 / phi2 if phi2 > 0 else -1.0
        # Newton where it stays in the bracket and at least halves its last move, else bisection (rtsafe's rule)
        previous, t = t, newton_t if lo < newton_t < hi and abs(newton_t - t) <= 0.5 * moved else 0.5 * (lo + hi)
        moved = abs(t - previous)
    return t if 0.0 < t < 1.0 else 0.5


def _forcing(relative: float, floor: float, quadratic: float) -> float:
    """CG's relative tolerance for a Newton direction at this relative residual r, never below ``floor``
    (``CG_TARGET_FRACTION`` of the target over ||g||): sqrt(r), at most 0.1; but ``floor`` itself once the
    step can end the solve (:func:`_can_end`, with the last step's ``quadratic`` constant; measured at
    3e5 x 500: CG then takes one or two steps more, and saves an iteration of one pass and two CG steps)."""
    if _can_end(relative, floor, quadratic):
        return min(0.1, floor)
    return min(0.1, max(float(np.sqrt(relative)), floor))


def _slope_descends(objective: PerturbedObjective, terms: tuple[np.ndarray, ...], direction: np.ndarray,
                    change: np.ndarray, slope: float, guaranteed: float) -> bool:
    """Whether the full step's slopes prove both tests of the line search without F's values.

    phi(t) = F(w + t d) is its loss part, convex, plus its quadratic part, whose curvature q (n Lam d . H_N d +
    n Delta ||d||^2, :meth:`PerturbedObjective.quadratic_curvature`) is the same at every t; and l'' <= c, the
    verified curvature bound, so q <= phi''(t) <= M = c sum_i s_i dz_i^2 + q for every t, dz = ``change`` the
    margins' change along d (:meth:`PerturbedObjective.curvature_ceiling`). Hence phi'(t) <= s0 + M t and
    phi'(t) <= s1 - (1 - t) q, with s0 = phi'(0) (``slope``) and s1 = phi'(1) = grad F(w + d) . d (``terms``: the
    gradient terms at w + d, which the step's pass or CG's last product computes, or, for CG's in-memory
    directions, the next iteration's gradient computed before the line search instead of after it: on the margins
    CG's products updated, bitwise the terms that iteration reads), and for every u in [0, 1]

        phi(1) - phi(0) = int_0^1 phi'(t) dt <= B(u) = s0 u + M u^2 / 2 + (s1 - q)(1 - u) + q (1 - u^2) / 2,

    least where the two lines cross, u = (s1 - q - s0) / (M - q) (clipped to [0, 1]; any u gives a bound). B(0)
    = s1 - q / 2 is the bound of convexity alone, enough where the step undershoots (s1 < 0); where it overshoots
    (s1 > 0: balance 2 %, noisy rows) only the crossing proves the decrease. When B(u) is at most 1e-4 phi'(0)
    Armijo's sufficient decrease holds, and when it is at most -``guaranteed`` (the gradient step's decrease, 0
    without the safeguard) Newton's step decreases F at least as much as the safeguard's gradient step would:
    the full step is what the line search on values would take, and F's value, one loss evaluation per row (l =
    log(1 + e^-z) costs twice l' at d = 20), is not computed. Asked outside the round-off regime only, where
    the computed slopes are far above their rounding; elsewhere the values decide as before."""
    return _step_descends(objective, direction, change, 1.0, slope, float(add_terms(terms) @ direction), guaranteed)


def _step_descends(objective: PerturbedObjective, direction: np.ndarray, change: np.ndarray, t: float,
                   slope: float, end_slope: float, guaranteed: float) -> bool:
    """Whether the step t d is proved by :func:`_slope_descends`'s bound, given phi'(0) = ``slope`` and phi'(t) =
    ``end_slope``: psi(u) = phi(t u) has psi'(0) = t phi'(0), psi'(1) = t phi'(t), and its curvature between
    t^2 q and t^2 M, so the bound B(u) on psi(1) - psi(0) = phi(t) - phi(0) is the same, and Armijo's test at
    step t asks phi(t) <= phi(0) + 1e-4 t phi'(0). At t = 1 it is :func:`_slope_descends`; at the first step's
    line minimum (:func:`_line_minimum`, t > 1) phi'(t) is the one Newton in t stopped at."""
    s0, s1, q = t * slope, t * end_slope, t * t * objective.quadratic_curvature(direction)
    need = min(1e-4 * s0, -guaranteed)
    if s1 - 0.5 * q <= need:  # B(0)
        return True
    ceiling = t * t * objective.curvature_ceiling(direction, change)
    if not ceiling > q or not np.isfinite(ceiling):  # no verified curvature bound (or dz = 0): B(0) only
        return False
    u = min(max((s1 - q - s0) / (ceiling - q), 0.0), 1.0)
    return s0 * u + 0.5 * ceiling * u * u + (s1 - q) * (1 - u) + 0.5 * q * (1 - u * u) <= need


def _ends_solve(residual: Residual, target: float) -> bool:
    """Whether the full step ends the solve: the residual of the gradient terms at w + d, on margins computed
    afresh there (:func:`~dpcvx.solvers.objective.relative_residual`), passes the stopping test,
    ||grad F(w + d)|| / n <= ``target`` (the test the next iteration makes first, on that same residual).

    Such a step is taken without F's values (two loss evaluations per row: phi(0) and phi(1)). Neither the
    release nor the proved budget needs its decrease: the release is covered by the gradient bound at the point
    returned, whatever the path to it (docs/theory.md, section 7), and the budget's induction (section 7.1,
    :mod:`dpcvx.solvers.budget`) needs the safeguarded decrease only of steps after which the solve goes on; a
    step that lands on a converged point is the last one. Newton's last step is such a step; its slope test
    (:func:`_slope_descends`) fails there, phi'(1) being near 0, so its line search used to evaluate F twice to
    accept the same full step."""
    return residual.absolute <= target


def _cauchy_step(objective: PerturbedObjective, w: np.ndarray, margins: np.ndarray,
                 gradient: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(d, its margin change) of Newton's first step from zero where every direction comes from CG (beyond
    ``DENSE_NEWTON_MAX_DIM`` columns, in memory), else None: CG's first step d = alpha p, p = -M^-1 g, alpha =
    g^T M^-1 g / p^T H p, from the one product X p (p^T H p from the margins' change along p:
    :meth:`PerturbedObjective.curvature_along`), without CG's product X^T (l'' X p), which served only CG's
    residual test; M is the public column scales' diagonal (:meth:`PerturbedObjective.scale_preconditioner`:
    an intercept column), or a diagonal plus the rows' mean direction (un-centred rows), else I.
    :func:`_line_minimum` then lengthens it.

    Measured on the speed sweep's shapes (logistic, Lam 1e-3 to 1e-6, eps 0.1 and 1): the first CG
    stopped after that one step in 11 of 12 fits (sparse 200,000 x 100,000 and dense 1e5 x 500); it took
    two at Lam 1e-6, eps 1, on the sparse rows, where the Newton steps after it make up the difference."""
    if objective.dim <= DENSE_NEWTON_MAX_DIM or not objective.steps_from_products:
        return None
    search = -preconditioner_solve(objective.scale_preconditioner(margins))(gradient)
    change = objective.change_along(search)
    curvature = objective.curvature_along(w, search, change, margins)
    if not curvature > 0:
        return None
    alpha = -float(gradient @ search) / curvature
    return alpha * search, alpha * change


def _can_end(relative: float, floor: float, quadratic: float) -> bool:
    """Whether a Newton step from relative residual r can end the solve: its predicted next residual
    ``quadratic`` r^2 is below the target's share r floor / ``CG_TARGET_FRACTION`` (``floor`` as in
    :func:`_forcing`).

    ``quadratic`` is max(1, r_k / r_(k-1)^2) of the last full step (:func:`_quadratic`): the constant of
    Newton's quadratic term as observed, never below the 1 assumed before any step. Measured on the family
    sweep's 20,000 x 1,000 rows (benchmarks/family_sweep.py, balance 2%): from r = 1.3e-5 the step's
    residual was 8e-10, five times r^2; the step predicted to end the solve ran CG six products deep to a
    forcing of 4e-6 and still left a gradient four times the target, so one more iteration followed. The
    observed constant (9 from the step before) predicts that, and the step takes the ordinary forcing
    sqrt(r). Only the forcing depends on it: the stopping test is unchanged."""
    return quadratic * relative <= floor / CG_TARGET_FRACTION


def _quadratic(relative: float, previous: float, full_step: bool, last: float) -> float:
    """The quadratic constant :func:`_can_end` takes: max(1, r_k / r_(k-1)^2) after a full step from
    r_(k-1) = ``previous``, else the ``last`` one (a damped step or none yet: ``last`` starts at 1)."""
    if not full_step or not 0 < previous < np.inf:
        return last
    return max(1.0, relative / previous**2)


def _flat(objective: PerturbedObjective, margins: Any) -> bool:
    """Whether the loss's curvature is nearly the same on every row: min l''(z_i) >= (1 - ``FLAT_CURVATURE``)
    max l''(z_i) over every ``FLAT_SAMPLE_STEP``-th row's margins (:meth:`PerturbedObjective.every`: in memory, or
    recomputed from those rows of a narrow memmap; never for margins held on Dask workers). Then X^T diag(l'') X
    is within that fraction of l''_max X^T X at this point, and stays so while the margins stay where l'' is flat
    (labels that the rows barely predict, rows well inside the bound): the one all-rows Hessian :func:`newton`
    builds near the optimum serves as well from here, and the subsampled steps it would take first (each
    contracting the residual about sqrt(d / m)) are saved. Only the direction's Hessian changes; the gradient, the
    line search and the stopping test do not.

    ``FLAT_CURVATURE`` = 0.3: in in-process traces of the family's generators (and of labels drawn at random) after
    the first step the spread 1 - min l'' / max l'' was 0.06 to 0.25 on balance 2 %, inside and random labels, 0.3
    to 0.6 on noisy and balance 10 %, 0.7 to 1 on the others; where it was 0.25 or less the first all-rows step cut
    the residual a thousand- to ten-thousand-fold, while on noisy rows at 0.5 (1e6 x 20) it cut it 76-fold, less
    than ``REUSE_CONTRACTION``, and a second all-rows Hessian followed. ``python -m benchmarks.speed_ab`` against
    main (dpcvx / lbfgs, three alternating processes' medians, load 1.9 to 2.9;
    benchmarks/results/speed_ab_flat.md): balance 2 % 1.41 / 1.46 / 1.47 -> 1.40 / 1.26 / 1.25 at 1e5 x 200,
    1.12 / 1.11 / 1.17 -> 0.96 / 0.98 / 1.03 at 1e6 x 20, 1.05 / 1.12 / 1.19 -> 0.98 / 1.07 / 1.02 at 1e5 x 20,
    1.39 / 1.48 / 1.34 -> 1.12 / 1.08 / 1.14 at 1e4 x 20; inside, noisy and isotropic within the spread."""
    sample = objective.every(margins, FLAT_SAMPLE_STEP)
    if sample is None:
        return False
    curvature = objective.loss.second(sample)
    top = float(np.max(curvature))
    return top > 0 and float(np.min(curvature)) >= (1 - FLAT_CURVATURE) * top


def _hessian_free(objective: PerturbedObjective) -> bool:
    """Whether an all-rows Hessian, once built, only preconditions CG afterwards (no second one is built).

    An all-rows Hessian costs about n d^2 flops (compute bound), a Hessian-vector
    product one pass over X (memory bound, about 4 n d flops). From
    ``HESSIAN_FREE_MIN_DIM`` columns on (measured: 7 passes at d = 200, 13 at d = 500)
    one is built at most once per solve, in the local regime, and its factor
    preconditions CG on the exact Hessian in the later steps: the Hessian moves
    little there, so one or two CG steps do. Needs enough rows for a subsample
    (the cheap directions before the local regime).
    """
    return objective.dim >= HESSIAN_FREE_MIN_DIM and objective.can_subsample


def _hessian_ahead(hessian_free: bool, relative: float, previous: float) -> bool:
    """Whether a step's pass from a subsampled direction should form the all-rows Hessian at its full step
    ahead (:attr:`~dpcvx.solvers.blockwise.BlockwiseObjective.hessian_ahead`): below ``HESSIAN_FREE_MIN_DIM``
    columns (not ``hessian_free``, :func:`_hessian_free`, which :func:`newton` asks once a solve), when the last
    step's contraction, repeated, takes the relative residual below ``SUBSAMPLE_UNTIL`` (r^2 / r_prev <
    ``SUBSAMPLE_UNTIL``), where the next iteration would ask that Hessian (an estimate, and never from the first
    step, with no contraction known yet). Only where the Hessian is formed changes: the
    same Hessian to the bit, the same direction, step and stopping test; a wrong guess costs the Hessian's l'',
    cast, scaling and product without its read of X, and a missed one costs its own pass as before.

    Measured (in-process traces of the family's generators, seed 44,000; the eight at 10,000 x 20, 100,000 x 20 and
    100,000 x 50, balance 2 %, inside and isotropic at 1,000,000 x 20): right on 25 fits of 27, one pass fewer each,
    and never missed; wrong on noisy at 10,000 x 20 (0.0011 after 9.7e-4 predicted) and inside at 100,000 x 50
    (0.0010 after 6.1e-4), where the next guess was right. `speed_ab` against main (dpcvx / lbfgs, three alternating
    processes' medians, load 2.4 to 5.2; benchmarks/results/speed_ab_perf19.md): balance 2 % 1.24 / 1.34 / 1.22 ->
    1.13 / 1.21 / 1.22 at 1e6 x 20 and 1.20 / 1.31 / 1.24 -> 1.13 / 1.15 / 1.08 at 1e5 x 20, isotropic 0.61 / 0.70 /
    0.58 -> 0.54 / 0.57 / 0.52 at 1e6 x 20, inside within the spread. Not asked from ``HESSIAN_FREE_MIN_DIM``
    columns on, where the Hessian's product is most of its time and a wrong guess costs all of it: asked there (from
    the threshold ``LOCAL_REGIME``), the one wrong guess on the eight generators at 1e5 x 200 (balance 2 %: 0.014
    after 0.073, 0.0072 predicted) took that fit from 1.44 / 1.48 / 1.44 to 1.93 / 2.01 / 1.99 times lbfgs's time,
    and the right ones gained within the spread (benchmarks/results/perf19_ab1.md)."""
    return not hessian_free and previous < np.inf and relative**2 < SUBSAMPLE_UNTIL * previous


def _safeguard(objective: PerturbedObjective, w: np.ndarray, gradient: np.ndarray, beta: float
               ) -> tuple[np.ndarray, Any, float]:
    """(w+, its fresh margins, F(w+)) for the gradient step w+ = w - grad F / (n beta) of the safeguard: it
    decreases F by at least ||grad F||^2 / (2 n beta) (the descent lemma for the beta-smooth J_b = F / n;
    :mod:`dpcvx.solvers.budget`)."""
    w_next = w - gradient / (objective.n * beta)
    margins = objective.margins(w_next)
    return w_next, margins, objective.value(w_next, margins)


def newton(objective: PerturbedObjective, *, gradient_tolerance: float, max_iter: int = 100,
           w0: np.ndarray | None = None, beta: float | None = None) -> tuple[np.ndarray, SolveInfo]:
    """Minimise F = n J_b by damped Newton; stop once ||grad F|| <= gradient_tolerance / 2.

    ``beta`` (the public smoothness of J_b, :class:`dpcvx.solvers.budget.DescentRate`) turns on the
    safeguard that gives the solver gradient descent's proved rate: an iteration whose Newton step
    decreases F by less than the gradient step's guaranteed ||grad F||^2 / (2 n beta), or finds no
    step at all, takes the gradient step w - grad F / (n beta) instead when it is lower. With ``max_iter``
    the proved budget (:meth:`~dpcvx.solvers.budget.DescentRate.budget`), no data set can make the solve
    stop short of the bound (docs/theory.md, section 7.1). In the round-off regime F's computed values no
    longer order points, and the gradient norm is the merit, as below.

    Armijo backtracking on F along the Newton direction. Near the optimum F
    cannot decrease measurably in floating point; there a step that does not
    raise F beyond round-off and shrinks the gradient is accepted.

    The Newton direction starts from the cheapest Hessian: a subsampled one
    (large n), in single precision, used while the residual is above
    ``SUBSAMPLE_UNTIL`` (far from the optimum an inexact direction costs little;
    near it, two quadratically convergent full steps beat many linear ones) and
    the loss's curvature differs across the rows (:func:`_flat`: where it does
    not, the all-rows Hessian of the next step serves the rest of the solve).
    Then all rows in single precision; and once the residual is below
    ``LOCAL_REGIME``, a step that fails to halve it, full or damped, moves the
    solve up one level, finally to all rows in double precision: the subsample
    can miss the rows that carry the curvature (the Huber hinge's narrow
    quadratic band), and a single-precision Hessian of collinear columns gives
    directions whose damped steps crawl. Only the direction is approximate; the
    gradient, line search and residual are exact in double precision.
    When a full step from a fresh all-rows Hessian cut the residual by at least
    ``REUSE_CONTRACTION`` (the quadratic regime), the next directions reuse that
    Hessian's Cholesky factor (Shamanskii's variant of Newton): near the
    optimum the Hessian barely changes, and a reused factor costs one
    triangular solve instead of a pass over all rows. Reuse continues while
    each such step cuts the residual by that factor; otherwise a fresh
    Hessian is built; except from ``HESSIAN_FREE_MIN_DIM`` columns on, where the
    last all-rows factor instead preconditions CG on exact Hessian-vector
    products (:func:`_hessian_free`). A subsampled Hessian's factor is reused
    by the same rule (its full step cut the residual ``REUSE_CONTRACTION``-fold:
    a Hessian the regularizer dominates, rows well inside the bound), and from
    ``HESSIAN_FREE_MIN_DIM`` columns on, where an all-rows Hessian costs several
    passes, it serves on while each of its steps cuts the residual
    ``SAMPLED_REUSE_CONTRACTION``-fold (a linear rate of a tenth a pass; measured
    with ``python -m benchmarks.speed_ab``, benchmarks/results/speed_ab_sampled_reuse.md:
    "inside" at 100,000 x 200 1.58 / 1.56 / 1.38 -> 1.00 / 1.05 / 1.06 of lbfgs's
    time, no all-rows Hessian; the other generators take the same path). CG stops at a residual ``forcing`` ||g||
    with forcing = min(0.1, max(sqrt(relative residual), a fraction
    ``CG_TARGET_FRACTION`` of the target over ||g||)): tighter near the optimum,
    never tighter than the stopping rule needs. Beyond ``DENSE_NEWTON_MAX_DIM``
    columns every direction comes from CG, and no Hessian is formed except,
    on dense rows where CG is slow, a subsampled one as its preconditioner
    (:func:`_sampled_factor`).
    Once the residual is below ``ROUND_OFF_REGIME``, the line search takes the
    gradient norm as its merit (F's computed value is then round-off: the sum of
    the losses cancels against b^T w), and the solve stops early when the
    residual has not halved for ``STALL_ITERATIONS`` iterations at the exact
    Hessian (the round-off floor of an ill-conditioned problem; a stall at a
    cheaper level first moves to the exact one); far from the optimum, damped steps that
    reduce the residual slowly are normal and continue up to ``max_iter``.
    """
    start = time.perf_counter()
    n, hessian_free = objective.n, _hessian_free(objective)  # fixed for the solve (X's shape), asked once
    w = np.zeros(objective.dim) if w0 is None else np.array(w0, dtype=float)
    margins = objective.margins(w)
    value: float | None = None  # F(w), computed when a line search needs it (:func:`_slope_descends`)
    target = 0.5 * gradient_tolerance / n  # on the averaged gradient, as Residual.absolute
    status, iterations = "max_iter", 0
    levels = [(True, True), (False, True), (False, False)]  # (subsample, single precision)
    level = 0 if objective.can_subsample and objective.dim <= DENSE_NEWTON_MAX_DIM else 1
    previous, full_step, slow = np.inf, False, 0  # slow: consecutive steps that did not halve the residual
    quadratic = 1.0  # the last full step's r_k / r_(k-1)^2, at least 1 (:func:`_can_end`)
    factor, reused = None, False  # Cholesky factor of the last all-rows Hessian; last step reused it
    sampled: CholeskyFactor | None = None  # the last subsampled Hessian's factor, while its steps contract fast
    best, since_best = np.inf, 0
    fresh = True  # margins are X w computed afresh (not updated incrementally)
    pending: tuple[np.ndarray, ...] | None = None  # the gradient terms at w, when the step's pass computed them
    tested: tuple[tuple[np.ndarray, ...], Residual] | None = None  # terms whose residual a step's test computed
    # (:func:`_ends_solve`), and that residual: the next iteration reads it when it starts from the same terms
    while iterations < max_iter:
        iterations += 1
        terms = objective.gradient_terms(w, margins) if pending is None else pending
        residual = tested[1] if tested is not None and tested[0] is terms else relative_residual(terms, n)
        if residual.absolute <= target:
            if not fresh:  # margins were updated incrementally: confirm on fresh ones before stopping
                margins, terms = objective.fresh_gradient_terms(w)
                residual = relative_residual(terms, n)
            if residual.absolute <= target:
                status = "converged"  # on fresh margins: this residual is the final one
                break
        gradient = add_terms(terms)
        quadratic = _quadratic(residual.relative, previous, full_step, quadratic)
        local = residual.relative < LOCAL_REGIME  # where Newton steps converge fast
        contracted = full_step and residual.relative <= previous / REUSE_CONTRACTION
        reuse = factor is not None and contracted
        reuse_sampled = not reuse and sampled is not None and full_step and (
            contracted or (reused and hessian_free and residual.relative <= previous / SAMPLED_REUSE_CONTRACTION))
        not_halved = residual.relative > 0.5 * previous
        if local and not reused and not_halved and level < len(levels) - 1:
            level += 1  # full or damped: in the local regime a step that does not halve the residual means an
            # inaccurate Hessian (a damped step there crawled at 1e-9 on collinear columns in single precision)
        slow = slow + 1 if not_halved else 0
        # the subsample ends near the optimum, or when it misses curvature (rare one-hot columns at small Lam:
        # full steps that circled at 4% of the first residual for 100 iterations on Adult at Lam 10^-4.5)
        near = residual.relative < (LOCAL_REGIME if hessian_free else SUBSAMPLE_UNTIL)
        if level == 0 and (near or slow >= SLOW_SUBSAMPLED_STEPS or (np.any(w) and _flat(objective, margins))):
            level = 1
        ahead = level == 0 and not reuse_sampled and _hessian_ahead(hessian_free, residual.relative, previous)
        previous = residual.relative
        if residual.relative < ROUND_OFF_REGIME:
            improved = residual.relative < 0.5 * best
            best, since_best = (residual.relative, 0) if improved else (best, since_best + 1)
            if since_best >= STALL_ITERATIONS and level < len(levels) - 1:
                level, since_best = len(levels) - 1, 0  # no round-off verdict before the exact Hessian
            elif since_best >= STALL_ITERATIONS and beta is None:  # the proved path runs to its budget
                status = "stalled at round-off"
                break
        # CG need not beat the target: a residual below a fraction of it ends the solve
        gradient_norm = _norm(gradient)  # numpy's norm, sqrt(g . g), without its checks
        floor = CG_TARGET_FRACTION * target * n / max(gradient_norm, _TINY)
        forcing = _forcing(residual.relative, floor, quadratic)
        first_from_zero = iterations == 1 and w0 is None and isinstance(margins, np.ndarray)
        cauchy = _cauchy_step(objective, w, margins, gradient) if first_from_zero else None
        step_margins: np.ndarray | None
        can_end = _can_end(residual.relative, floor, quadratic)
        next_terms = None  # the gradient at the full step, when CG's products brought it (not if this step can end)
        if cauchy is not None:
            (direction, step_margins), used = cauchy, None
        else:
            direction, used, step_margins, next_terms = _newton_direction(
                objective, w, margins, gradient, forcing, levels[level],
                factor if reuse else sampled if reuse_sampled else None, factor, local, next_gradient=not can_end,
                fresh=can_end)
        reused = reuse or reuse_sampled
        if not reuse_sampled:  # an all-rows factor serves again, and preconditions CG (hessian_free); a subsampled one
            # serves again only while its steps contract fast (REUSE_CONTRACTION, SAMPLED_REUSE_CONTRACTION)
            factor, sampled = (None, used) if levels[level][0] else (used, None)
        full_margins = None  # X (w + d) afresh, when the step's pass computed it
        full_terms = next_terms  # and the gradient there, when the same pass (or CG's last) computed it
        if step_margins is None:  # not from CG's products: the step's own product
            if isinstance(objective, BlockwiseObjective):
                objective.hessian_ahead = ahead
            step_margins = objective.margin_change(direction)
            full_margins = objective.full_step_margins()
        elif can_end and next_terms is not None:  # CG's last read computed them on fresh margins (step_pass)
            full_margins = objective.full_step_margins()
        elif can_end:
            # CG's products gave the change, but this step can end the solve, whose last gradient must be
            # on fresh margins: compute both at the full step now (one read of a dense X, in place of the
            # gradient on updated margins and a fresh check after it)
            full_margins, full_terms = objective.fresh_gradient_terms(w + direction)
        slope = float(gradient @ direction)
        # the safeguard (docs/theory.md, section 7.1): where Newton finds no step, the gradient step, which
        # decreases F by the descent lemma whether or not the decrease shows in F's computed values; where it
        # finds one, the gradient step's guaranteed decrease is compared with Newton's only where it is above
        # F's round-off (and outside the round-off regime), where computed values can tell the two apart
        guarded = beta is not None
        guaranteed = 0.0 if beta is None else float(gradient @ gradient) / (2 * n * beta)
        if not slope < 0:
            if guarded:  # the safeguard's gradient step descends (the descent lemma), measurably or not
                assert beta is not None
                w, margins, value = _safeguard(objective, w, gradient, beta)
                full_step, fresh, pending = False, True, None
                continue
            status = "no descent direction"
            break
        step, end_slope = 1.0, None
        if first_from_zero and _accurate(objective, levels[level][0]):
            step, end_slope = _line_minimum(objective, w, direction, margins, step_margins, slope)
        if step != 1.0 and end_slope is not None and residual.relative >= ROUND_OFF_REGIME and _step_descends(
                objective, direction, step_margins, step, slope, end_slope, guaranteed):
            w = w + step * direction  # the line minimum proved: the step the line search on values would take
            margins, value, full_step, fresh, pending = margins + step * step_margins, None, False, False, None
            continue
        if step == 1.0:
            if full_terms is None and full_margins is not None:  # by blocks: from the step's pass (else None)
                full_terms = objective.full_step_gradient_terms(w + direction)
            elif full_terms is None and full_margins is None and residual.relative >= ROUND_OFF_REGIME:
                full_terms = objective.gradient_terms(w + direction, margins + step_margins)  # CG's margins
            full_residual = None
            if full_terms is not None and full_margins is not None:  # on fresh margins: the stopping test's residual
                full_residual = relative_residual(full_terms, n)
                tested = (full_terms, full_residual)
            if full_terms is not None and (
                    (full_residual is not None and _ends_solve(full_residual, target))
                    or (residual.relative >= ROUND_OFF_REGIME
                        and _slope_descends(objective, full_terms, direction, step_margins, slope, guaranteed))):
                w = w + direction
                margins = full_margins if full_margins is not None else margins + step_margins
                value, full_step, fresh, pending = None, True, full_margins is not None, full_terms
                continue
        if value is None:
            value = objective.value(w, margins)
        measurable = (guarded and guaranteed > FLAT_DECREASE * abs(value)
                      and residual.relative >= ROUND_OFF_REGIME)
        while step >= 1e-12:
            trial_margins = full_margins if step == 1.0 and full_margins is not None else margins + step * step_margins
            trial_value = objective.value(w + step * direction, trial_margins)
            if trial_value <= value + 1e-4 * step * slope:
                break
            flat = trial_value <= value + FLAT_DECREASE * abs(value)
            if flat or residual.relative < ROUND_OFF_REGIME:
                # near the optimum F is flat to round-off (and its computed value suffers the cancellation of
                # sum l against b^T w: 16 ulps of F apart at one point on 455 rows), so the gradient norm is
                # the merit: F - F* <= ||g||^2 / (2 mu) for a mu-strongly convex F. A flat step must shrink
                # it; in the round-off regime, a step that at least halves it is taken even if F rose.
                trial_norm = _norm(objective.gradient(w + step * direction, trial_margins))
                if trial_norm < (1.0 if flat else 0.5) * gradient_norm:
                    break
            step = _line_damping(objective, w, direction, margins, step_margins, slope) \
                if step == 1.0 and residual.relative >= ROUND_OFF_REGIME else step / 2
        if (guarded and step < 1e-12) or (measurable and trial_value > value - guaranteed):
            # Newton's step fell short of the gradient step's guaranteed decrease: the lower of the two
            assert beta is not None
            w_safe, margins_safe, value_safe = _safeguard(objective, w, gradient, beta)
            if step < 1e-12 or value_safe <= trial_value:
                w, margins, value = w_safe, margins_safe, value_safe
                full_step, fresh, pending = False, True, None
                continue
        if step < 1e-12:
            status = "line search failed"
            break
        w = w + step * direction
        margins, value, full_step = trial_margins, trial_value, step == 1.0
        fresh = full_step and full_margins is not None
        pending = full_terms if full_step else None
    if status != "converged":  # (a converged residual was computed on fresh margins)
        residual = objective.residual(w)  # on fresh margins, free of the updates' round-off
    dense = objective.dim <= DENSE_NEWTON_MAX_DIM and not hessian_free
    return w, SolveInfo(
        solver="newton" + ("" if dense else "-cg"),
        status=status,
        iterations=iterations,
        seconds=time.perf_counter() - start,
        gradient_norm=residual.absolute * n,
        gradient_tolerance=gradient_tolerance,
        relative_residual=residual.relative,
        passes=getattr(objective, "passes", None),  # a blockwise objective counts its passes over X
        final_margins=margins if status == "converged" and isinstance(margins, np.ndarray) else None,
        offset_margins=objective.offset_margins,
    )


def _gradient(expression: cp.Expression, w: cp.Variable) -> np.ndarray:
    gradient = expression.grad.get(w) if expression.grad else None
    if gradient is None:
        return np.zeros(w.size)
    return np.asarray(gradient.todense() if sparse.issparse(gradient) else gradient).ravel()


def _rejected(solver: str, solver_options: dict[str, Any], reason: str) -> InputError:
    return InputError(f"cvxpy_options {sorted(solver_options)} rejected by {solver} ({reason}); see the solver's "
                      "settings in CVXPY's documentation")


def check_cvxpy_options(solver: str, solver_options: dict[str, Any]) -> None:
    """Refuse settings ``solver`` rejects, before anything is charged: they are tried on a public problem of one
    variable, min (x - 1)^2 (the fit's own solve met them only after the charge and the noise). A setting the solver
    takes but that stops it short (an iteration limit) shows only on the fit's problem, after the charge."""
    import cvxpy as cp

    x = cp.Variable(1)
    options = {**CVXPY_SOLVER_OPTIONS.get(solver.upper(), {}), **solver_options}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cp.Problem(cp.Minimize(cp.sum_squares(x - 1))).solve(solver=solver, **options)
    except (TypeError, ValueError) as error:  # the problem is public: its text quotes no data
        raise _rejected(solver, solver_options, f"{type(error).__name__}: {error}") from None
    except cp.error.SolverError:
        pass  # a limit the one-variable problem could not meet says nothing of the settings' names


def solve_with_cvxpy(
    problem: VerifiedProblem, X: Matrix, y: np.ndarray, lam: float, noise: np.ndarray, extra_reg: float = 0.0, *,
    solver: str = "CLARABEL", solver_options: dict[str, Any] | None = None, gradient_tolerance: float,
    reference: PerturbedObjective | None = None, regression: bool = False,
    user_solver: Callable[[cp.Problem, cp.Variable], Any] | None = None, weights: np.ndarray | None = None,
    fallback: np.ndarray | None = None,
) -> tuple[np.ndarray, SolveInfo]:
    """Solve min_w J_b(w) through CVXPY for the verified problem; the gradient uses ``reference`` when given.

    The loss and regularizer are the verified expressions themselves
    (:meth:`~dpcvx.verification.problem.VerifiedProblem.loss_terms`,
    :meth:`~dpcvx.verification.problem.VerifiedProblem.regularizer_of`), never a new call
    of the user's callables. The problem is posed as F = n J_b (loss summed,
    not averaged), which conic solvers handle far more accurately than the
    1/n-scaled form. ``regression``: the loss is of the residual w^T x - y. ``weights``: the records' s_i
    (the loss sum_i s_i l(z_i)).

    ``user_solver(program, w)``, when given, solves ``program`` (any way it likes: any
    CVXPY solver and settings, or its own method setting ``w.value``) instead of
    dpcvx; its status is not read, only the gradient dpcvx computes at ``w.value``.

    ``fallback``: the conic point is a warm start only (the caller polishes it by Newton to a proved budget, which
    reaches the bound from any start): a solve that stops short or fails on this data (an iteration limit, a status
    other than optimal, a solver's numerical failure, a non-finite point) then returns ``fallback`` with an infinite
    gradient norm instead of raising after the charge, whatever the solver raised (a rejected option included: the
    point is a warm start only, and diagnostics_ says it stopped). Structure (not DCP, an atom CVXPY cannot pose)
    still raises: it fails alike on every data set.
    """
    import cvxpy as cp

    start = time.perf_counter()
    n, d = X.shape
    w = cp.Variable(d)
    margins = X @ w - y if regression else cp.multiply(y, X @ w)
    terms = (
        problem.loss_terms(margins, weights),
        (n * lam) * problem.regularizer_of(w),
        noise @ w,
        (n * extra_reg / 2) * cp.sum_squares(w),
    )
    constraints = [] if problem.constraint_set is None else problem.constraint_set.cvxpy(w)
    program = cp.Problem(cp.Minimize(sum(terms)), constraints)
    options = {**CVXPY_SOLVER_OPTIONS.get(solver.upper(), {}), **(solver_options or {})}
    name = "user solver" if user_solver is not None else f"cvxpy:{solver.upper()}"

    def stopped(status: str) -> tuple[np.ndarray, SolveInfo]:  # a warm start that failed: Newton starts at fallback
        assert fallback is not None
        return fallback, SolveInfo(solver=name, status=f"stopped ({status}), no warm start",
                                   iterations=0, seconds=time.perf_counter() - start, gradient_norm=np.inf,
                                   gradient_tolerance=gradient_tolerance, relative_residual=np.inf)

    try:
        with warnings.catch_warnings():
            # CVXPY warns "Solution may be inaccurate" on status optimal_inaccurate; dpcvx
            # replaces that warning by its own gradient check, which decides release.
            warnings.filterwarnings("ignore", message="Solution may be inaccurate")
            if user_solver is not None:
                user_solver(program, w)
            else:
                program.solve(solver=solver, **options)
    except cp.error.DCPError as error:
        raise SolverError(
            "the objective is not DCP, so CVXPY cannot solve it (the loss may be convex "
            "only by the verifier's second-derivative proof); use solver='fast'"
        ) from error
    except NotImplementedError as error:  # an atom without a canonicalization (a user subclass)
        # the problem's constants are the data (X, y): a foreign text may print them, so it is withheld
        raise SolverError(f"CVXPY cannot pose this problem for a conic solver ({withheld(error)}); write the "
                          "loss and regularizer with CVXPY's own atoms") from None
    except Exception as error:
        if user_solver is not None:  # the user's own code, on the data: its type only
            raise SolverError(f"the user's solver raised {withheld(error)}; nothing is released") from None
        if fallback is not None:
            # a private warm start: whatever the solver raised (its own failure, a ValueError or TypeError from
            # the data's numbers, anything else), Newton polishes from the public start to its proved budget, so no
            # exception of the solver's fails a fit after its charge on one data set and not its neighbour
            # (attacker probe P9 F1, session 71: a ValueError became a SolverError after the charge, and any other
            # error reached the caller raw, with its text)
            return stopped(f"the solver raised {type(error).__name__}")
        if isinstance(error, cp.error.SolverError):
            raise SolverError(f"CVXPY solver {solver} failed: {error}; try another cvxpy_solver") from error
        if not isinstance(error, (TypeError, ValueError)):
            raise
        # CVXPY passes unknown settings to the solver, which rejects them
        if not solver_options:
            raise SolverError(f"CVXPY could not solve this problem with {solver} ({withheld(error)}); try another "
                              "cvxpy_solver or solver='fast'") from None
        raise _rejected(solver, solver_options, withheld(error)) from None
    if user_solver is not None and w.value is None:
        raise SolverError("the user's solver left w.value None (it must set the variable it is given, as "
                          "program.solve() does); nothing is released")
    if w.value is None or (user_solver is None and program.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE)):
        if fallback is not None:
            return stopped(f"status {program.status!r}")
        raise SolverError(
            f"CVXPY solver {solver} returned status {program.status!r}; nothing is released. "
            "Try another cvxpy_solver or solver='fast'"
        )
    solution = np.asarray(w.value, dtype=float).ravel()
    if fallback is not None and not np.all(np.isfinite(solution)):
        return stopped("a non-finite point")
    if reference is not None:
        residual = reference.residual(solution)
    else:
        residual = relative_residual([_gradient(term, w) for term in terms], n=n)
    stats = program.solver_stats  # None when a user solver set w.value without program.solve
    return solution, SolveInfo(
        solver=name,
        status=str(program.status),
        iterations=int(getattr(stats, "num_iters", 0) or 0),
        seconds=time.perf_counter() - start,
        gradient_norm=residual.absolute * n,
        gradient_tolerance=gradient_tolerance,
        relative_residual=residual.relative,
    )

