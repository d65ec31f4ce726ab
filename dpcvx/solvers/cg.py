"""Conjugate gradients on Newton's system H d = -g, and the Cholesky factors that precondition it.

:func:`preconditioned_cg` solves the system to a forcing tolerance with exact Hessian-vector products
(one pass over X each), preconditioned by a Cholesky factor of an earlier Hessian, a positive diagonal
(Jacobi, asked for only once CG is slow), a diagonal plus the rows' mean direction, or nothing; in memory it
also returns the margins' change along its direction, so Newton's step costs no product of its own, and on a
sparse X the gradient at that step when CG stops after its first step. :func:`cho_factor` and :func:`cho_solve`
are LAPACK's dpotrf and dpotrs without scipy's wrapper checks, for Newton's dense directions and CG's
factor preconditioner alike. Everything here reads private data through the objective; nothing it
measures enters a release.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.linalg as la
from scipy.linalg.lapack import dpotrf, dpotrs

from .objective import DiagonalPlusRankOne, PerturbedObjective

__all__ = ["CholeskyFactor", "cho_factor", "cho_solve", "preconditioned_cg", "preconditioner_solve", "JACOBI_SLOW"]

CholeskyFactor = tuple[np.ndarray, bool]  # (upper factor, lower=False), as scipy.linalg.cho_factor returns
Preconditioner = CholeskyFactor | np.ndarray | DiagonalPlusRankOne | None  # a factor, a positive diagonal, D + b u u^T
JACOBI_SLOW = 0.1  # CG asks whether diag(H) pays once its products cut the residual by less than 10x each on average
FIRST_STEP_FORCING = 0.1  # from this forcing on, CG's first step also computes the gradient at its step (step_pass)
#: the last step's sampled curvature is kept within these multiples of the exact one, computed after the read: the step
#: then keeps at least 1 - e^2 / (1 + e)^2 >= 0.8 of the exact step's decrease of CG's quadratic model (e the relative
#: error, -0.3 to 0.5); outside them (a sample of rows that carry none of the curvature: outliers of a Huber loss, rows
#: a logistic loss saturates) CG takes its exact step, and Newton computes the gradient there (a read more). Measured:
#: 0.69 to 1.10 over 36 last steps of 14 generators at 20,000 x 1,000 (one below 0.7, on low-rank rows); 0.005 where the
#: sampled rows were all outliers of a Huber loss
SAMPLED_CURVATURE = (0.7, 1.5)


def cho_factor(H: np.ndarray) -> CholeskyFactor:
    """The upper Cholesky factor of H (its upper triangle is read) by LAPACK's dpotrf, as
    ``scipy.linalg.cho_factor(H, lower=False)`` gives it, without that wrapper's checks (15 us a call,
    one call an iteration: 4 % of a fit at 1e4 x 20). Raises ``LinAlgError`` when H is not positive definite."""
    factor, info = dpotrf(H, lower=0, clean=0)
    if info != 0:
        raise la.LinAlgError(f"dpotrf: info {info}")
    return factor, False


def cho_solve(factor: CholeskyFactor, rhs: np.ndarray) -> np.ndarray:
    """H^-1 rhs from :func:`cho_factor`'s factor (LAPACK's dpotrs)."""
    solution, info = dpotrs(factor[0], rhs, lower=0)
    if info != 0:
        raise la.LinAlgError(f"dpotrs: info {info}")
    return np.asarray(solution)


def preconditioned_cg(objective: PerturbedObjective, w: np.ndarray, margins: np.ndarray, gradient: np.ndarray,
                       forcing: float, preconditioner: Preconditioner,
                       track_change: bool = False,
                       deferred: Callable[[], Preconditioner] | None = None,
                       next_gradient: bool = False, slow: float = JACOBI_SLOW, fresh: bool = False,
                       ) -> tuple[np.ndarray, np.ndarray | None, tuple[np.ndarray, ...] | None]:
    """(d, its margin change or None, the gradient terms at w + d or None): CG on H d = -g to
    ||H d + g|| <= forcing ||g||, one Hessian-vector product (a pass over X) per iteration, preconditioned
    by a Cholesky factor, by a positive diagonal or by a diagonal plus rank one
    (:class:`~dpcvx.solvers.objective.DiagonalPlusRankOne`).

    Preconditioned conjugate gradients (Hestenes and Stiefel 1952; Nocedal and Wright, Algorithm 5.3),
    at most 10 d iterations. With ``track_change``, each product also returns the margins' change along
    its search direction p_k (y * X p_k, the first of its two products), and d = sum_k alpha_k p_k
    gives the change along d as sum_k alpha_k y * X p_k: the Newton step then needs no product of its
    own (:attr:`PerturbedObjective.steps_from_products`).

    ``deferred`` is a preconditioner (a diagonal, or a Cholesky factor) asked for only once CG is slow
    without one: after two products or more whose residual cuts average less than 1 / ``slow`` each
    (``JACOBI_SLOW`` for a sparse X's diagonal). When it returns one, PCG restarts with it from the current
    iterate d_k (its residual -g - H d_k is the one CG tracks, and d_k's margin change is kept), so no
    product is lost.

    The last step takes half a product: alpha_k = rho_k / p_k^T H p_k needs only X p_k (p^T H p =
    sum_i l''(z_i) (x_i^T p)^2 + the regularizer's terms: :meth:`PerturbedObjective.curvature_along`);
    X^T (l'' X p_k) only updates the residual for the stopping test. So when the residual's largest
    contraction over one step so far in this CG (k >= 2) predicts that this step meets the forcing, it is
    taken from X p_k alone and CG stops (with ``track_change`` in memory, where X p_k is the margins' change
    anyway and half a product; a blockwise objective reads X once for either). Under a diagonal plus rank one
    the contraction is taken from the second step on: the first resolves the deflated direction and cut the
    residual far more than the steps after it (in an in-process trace at 300,000 x 500 on binary rows, each
    Newton direction then stopped after one product and a predicted step, and Newton took 9 iterations, where it
    takes 5).
    The prediction shapes only the direction: the gradient at the step, computed as always, decides what
    Newton does next. Measured on the sweep's shapes (logistic, Lam 1e-3 to 1e-6, eps 0.1 and 1): the same
    Newton iterations in all 12 fits, one X^T product fewer in each CG of two steps or more. A rate taken
    from earlier CGs (one observed ratio) predicted a first step too often: 3e5 x 500 took 6 iterations
    instead of 5, and was slower. So was a first step predicted from the contraction of the Cauchy step
    before it (:func:`~dpcvx.solvers.linear.newton`'s first step): on a 20,000 x 1,000 CSR (10 entries a
    row) the Cauchy step cut the gradient 25- to 40-fold where CG's first step cut its residual only 4- to
    10-fold, and 7 of 12 fits took a Newton iteration more.

    With ``next_gradient`` (and ``track_change``, where :attr:`PerturbedObjective.fuses_gradient`), the
    first step, which no rate predicts, is taken from X p_1 first (alpha_1 from the curvature along p_1),
    and its X^T product also brings the gradient terms at w + alpha_1 p_1, on the margins z + alpha_1 dz
    that Newton's full step would have (:meth:`PerturbedObjective.hessian_product_and_gradient`): when CG
    stops there, they are returned, and Newton's next gradient costs no product of its own. When CG goes
    on, they are dropped.

    On a dense X in memory (:attr:`PerturbedObjective.fuses_step`) that last step, and the first where the
    forcing is at least ``FIRST_STEP_FORCING`` (far from the optimum, where one step usually meets it), read X
    once for the step and the gradient at Newton's full step (:meth:`PerturbedObjective.step_pass`): the step
    length is fixed before that read, from a sample of the rows' curvature along p_k
    (:meth:`PerturbedObjective.estimated_curvature_along`). The first step's read also brings H p_1, and its
    residual at the guessed length decides whether CG stops there; if not, CG goes on from the exact step. With
    ``fresh`` (Newton's step can end the solve) the read computes the margins at w + d afresh, and the
    gradient on them, for the stopping test (:meth:`PerturbedObjective.full_step_margins`). Apart, the step's
    X p_k and the gradient took two reads, three with fresh margins. On a sparse X, whose products share no row
    blocks, only a last step with ``fresh`` takes the sampled length (:attr:`PerturbedObjective.fuses_fresh_step`):
    its X p_k is left out, and the fresh margins and gradient are the check's own two products. Measured
    (``python -m benchmarks.speed_ab``, benchmarks/results/speed_ab_step_pass.md and speed_ab_sparse_step.md;
    docs/performance.md, round 27). Only the direction changes: the
    gradient, line search and stopping test are exact as before.
    """
    direction = np.zeros_like(gradient)
    change: np.ndarray | None = None
    residual = -gradient
    start = float(np.linalg.norm(gradient))
    limit = forcing * start
    size = start
    solved = preconditioner_solve(preconditioner)
    search = solved(residual)
    rho = float(residual @ search)
    rate = 0.0  # the largest ||r_k+1|| / ||r_k|| of this CG's full steps so far (from k = 2 on)
    # a rank-one term deflates the rows' mean direction, which CG's first step resolves: its cut says nothing of the
    # steps after it, so the rate is taken from the second full step on
    first_rated = 2 if isinstance(preconditioner, DiagonalPlusRankOne) else 1
    predict = track_change and objective.steps_from_products  # X p_k is half a product (in memory)
    fuse = next_gradient and track_change and objective.fuses_gradient
    landing = (next_gradient or fresh) and track_change and objective.fuses_step
    next_terms: tuple[np.ndarray, ...] | None = None
    for k in range(1, 10 * objective.dim + 1):
        product: np.ndarray | None
        last = predict and k > first_rated and size * rate <= limit
        lands = (landing and (last or (k == 1 and forcing >= FIRST_STEP_FORCING))) or (
            last and fresh and track_change and objective.fuses_fresh_step)
        estimate = objective.estimated_curvature_along(search, margins) if lands else 0.0
        if estimate > 0:  # the step and the gradient at Newton's full step in one read
            guess = rho / estimate
            trial = direction + guess * search
            landed = objective.step_pass(w, search, guess, margins, change, w + trial, hessian=not last, fresh=fresh)
            if last:  # X p_k came with the read, or is the margins' change along p_k (fresh margins less z + change)
                assert change is not None  # (k >= 2: CG's earlier steps)
                along = landed.along if landed.along is not None else (landed.change - change) / guess
                curvature = objective.curvature_along(w, search, along, margins)
                if SAMPLED_CURVATURE[0] * curvature <= estimate <= SAMPLED_CURVATURE[1] * curvature:
                    return trial, landed.change, landed.terms
                product = None  # the sample missed the curvature: CG's exact step, and Newton's own gradient there
            else:
                product, along = landed.product, landed.along
                assert product is not None and along is not None
                curvature = float(search @ product)
                if not curvature > 0:
                    break
                if float(np.linalg.norm(residual - guess * product)) <= limit:  # the guessed step ends CG
                    return trial, landed.change, landed.terms
        elif last or (fuse and k == 1):  # alpha_k from X p_k alone
            product, along = None, objective.change_along(search)
            curvature = objective.curvature_along(w, search, along, margins)
        else:
            if track_change:
                product, along = objective.hessian_product(w, search, margins)
            else:
                product, along = objective.hessian_vector(w, search, margins), None
            curvature = float(search @ product)
        if not curvature > 0:  # H is positive definite; a non-positive curvature is round-off at the solution
            break
        alpha = rho / curvature
        direction += alpha * search
        if along is not None:
            change = alpha * along if change is None else change + alpha * along
        if product is None:
            if k > 1:  # the predicted last step
                break
            assert along is not None  # the change of the branch that left the product out
            product, next_terms = objective.hessian_product_and_gradient(w, search, along, margins,
                                                                         w + direction, margins + change)
        residual = residual - alpha * product  # not in place: M^-1 = I returns the residual itself as search
        size, previous_size = float(np.linalg.norm(residual)), size
        if k >= first_rated:
            rate = max(rate, size / previous_size)
        if size <= limit:
            break
        next_terms = None  # CG goes on: not the gradient at its direction
        if deferred is not None and k >= 2 and size > start * slow**k:
            late, deferred = deferred(), None
            if late is not None:  # restart: PCG from d_k, whose residual is r_k
                solved = preconditioner_solve(late)
                search = solved(residual)
                rho = float(residual @ search)
                continue
        preconditioned = solved(residual)
        rho, previous = float(residual @ preconditioned), rho
        search = preconditioned + (rho / previous) * search
    return direction, change, next_terms


def preconditioner_solve(preconditioner: Preconditioner) -> Callable[[np.ndarray], np.ndarray]:
    """r -> M^-1 r for a Cholesky factor of M, a positive diagonal M, a diagonal plus rank one, or M = I."""
    if preconditioner is None:
        return lambda r: r
    if isinstance(preconditioner, DiagonalPlusRankOne):
        return preconditioner.solve
    if isinstance(preconditioner, np.ndarray):
        inverse = 1.0 / preconditioner
        return lambda r: inverse * r
    factor = preconditioner
    return lambda r: cho_solve(factor, r)
