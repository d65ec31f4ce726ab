"""The exact non-private kernel ERM that every private kernel learner starts from.

w* = argmin_w (1/n) sum_i l(y_i <w, phi(x_i)>) + (lam/2) ||w||^2
   = sum_i beta_i phi(x_i)                      (representer theorem)

(Jain and Thakurta, ICML 2013, eq. 2). The paper's privacy proofs assume the
exact minimiser; here the inexactness is covered in the proof instead: every
solve iterates until it certifies ||w - w*|| <= gamma in the RKHS (by
lam-strong convexity), gamma = SOLVE_RTOL 2 L R / (lam n) a PUBLIC tolerance
(:func:`dpcvx.privacy.kernel_calibrate.solve_tolerance`), and the learners calibrate
with the enlarged sensitivity 2 L R / (lam n) + 2 gamma. The solvers stop on
reaching gamma, never on a data-dependent budget. Newton (a C^1 loss with a
proved curvature c) runs to a PROVED budget of public constants
(:func:`dpcvx.solvers.budget.kernel_budget`; docs/theory.md, section 7.1), so
in exact arithmetic it cannot stop short of gamma; so does the hinge's dual
solve (the interior point, then, where it has not certified gamma within
MAX_INTERIOR_POINT_STEPS, accelerated projected gradient to the proved
:func:`dpcvx.solvers.budget.dual_budget`). A Newton budget above the linear
path's ``MAX_PROVED_ITERATIONS`` (lam tiny against c R_phi^2, where the
floating-point certificate failed after the charge on some data sets and not on
their neighbours) is refused before the charge, by the linear path's rule
(:func:`newton_step_limit`). Where the arithmetic still cannot certify gamma,
:class:`SolverError` is raised after the accountant was charged (residual risk:
docs/kernels.md).

:class:`KernelERM` checks its inputs and builds the Gram matrix on
construction; :meth:`KernelERM.solve` runs the solver, so a learner validates
everything, then charges the accountant, then solves.

* C^1 losses, damped Newton in representer form. The RKHS gradient is
  Phi r with r = (1/n) y * l'(z) + lam beta, so ||w - w*|| <= ||grad J|| / lam
  = sqrt(r^T K r) / lam. The Newton system (lam I + (1/n) D K) d = -r,
  D = diag(l''(z)), is solved through the symmetric matrix
  lam I + (1/n) D^(1/2) K D^(1/2) on the points with l'' > 0 only. Each step
  is safeguarded against the RKHS gradient step beta - r / beta_s,
  beta_s = lam + c R_phi^2 (:func:`_newton`), which gives the proved budget;
  the certificate is on margins K beta computed afresh (:func:`_gradient_norm_bound`).
* Two-piece linear losses (hinge), the dual box QP
  min_u (1/(2 lam n)) u^T Q u + sum l*(u_i), u in [a1, a2]^n, Q = (y y^T) * K,
  by a Mehrotra primal-dual interior-point method; w = -(1/(lam n)) sum u_i y_i phi(x_i).
  Where it has not certified gamma within its step limit, FISTA on the same QP from its
  best iterate (:func:`_dual_accelerated_gradient`): grad G(u) = (z_k - z(u)) / n is
  R_phi^2 / (lam n)-Lipschitz, and after k steps from any u_0 in the box
  G(u_k) - G* <= eps_k = 2 (a2 - a1)^2 R_phi^2 / (lam (k + 1)^2) (Beck and Teboulle 2009,
  Theorem 4.4) and gap <= 2 eps_k + (a2 - a1) R_phi sqrt(2 eps_k / lam)
  (budget.py's module docstring), which bounds its steps by public constants.
  The duality gap is (1/n) sum [l(z_i) + l*(u_i) - u_i z_i] (Fenchel-Young,
  each term >= 0, computed as (a2 - u)(z - z_k)_+ + (u - a1)(z_k - z)_+ with
  z_k the kink, so without cancellation), and ||w - w*|| <= sqrt(2 gap / lam).
  When lam is so large (or R_phi so small) that no margin can reach the kink
  (C R_phi < |z_k|, public constants), w* is in closed form: u_i is the slope
  of the piece every margin lies on.

Certificates at large n: the tolerance gamma is O(1/n), while the rounding
pads of products K v grow with their length n. The last iterate whose
n-term certificate does not reach gamma is certified again with K v summed
by blocks (``by_blocks`` of :mod:`~dpcvx.solvers.gram`: pads of
b + n / b ~ 2 sqrt(n) terms), which certifies the hinge on 100,000 rows.

Cost: one dense Gram matrix (8 n^2 bytes) and a workspace of the same size
for the dense Cholesky factorisations (none for a two-piece loss in closed
form, which solves no system), O(n^3) per Newton or interior-point
step (O(n^2) per FISTA step), both allocated when the problem is built (before a learner's charge:
the solve allocates no further n x n array, and a problem too large for
memory is an InputError then); measured times are in docs/kernels.md.
With PUBLIC landmarks Z the ERM is minimised over the subspace span phi(Z)
instead: K is replaced by the factored Gram matrix Psi Psi^T of the Nystrom
features (:mod:`dpcvx.data.nystrom`), 8 n r bytes and O(n r^2) per step
(r <= |Z|; with the two workspaces of the Woodbury solves, three n x r
arrays), with the same certificate ||w - w*_Z|| <= gamma in that subspace.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import LinAlgError, eigvalsh

from ..data.kernels import CallableKernel, Kernel, as_rows, feature_scaling, kernel_expansion
from ..data.nystrom import NystromFeatures, symmetric_gram
from ..exceptions import InputError, SolverError
from ..privacy.calibrate import minimiser_sensitivity
from ..privacy.kernel_calibrate import is_indefinite, loss_radius, solve_tolerance
from ..progress import NoProgress, Progress
from ..rounding import round_up
from ..validation import MODERATE_MAX, label_vector, outside_classes, outside_head
from ..verification.kernel_loss import KernelLoss, TwoPieceLinear
from ..verification.problem import LossDerivatives
from .budget import dual_budget, dual_smoothness, kernel_budget, kernel_smoothness
from .choice import MAX_PROVED_ITERATIONS, exceeds_limit, refuse_unsafeguarded
from .gram import DenseGram, FactoredGram, GramOperator, as_gram, sum_by_blocks

__all__ = ["SolveReport", "KernelERMSolution", "solve_kernel_erm", "KernelERM", "as_labels", "newton_step_limit",
           "least_newton_lam"]

KERNEL_CLASSES = (-1, 1)  # the kernel learners' labels: the public pair, as the paper states its y_i in {-1, +1}

MAX_NEWTON_STEPS = 100  # a zero tolerance's limit only: a C^1 loss without a proved c is refused (check_newton_route)
MAX_INTERIOR_POINT_STEPS = 200
STALLED_STEPS = 3  # interior point: within tolerance, stop after this many steps without progress
AIM = 0.1  # solve to AIM * tolerance when the arithmetic allows; accept up to the tolerance
ARMIJO = 1e-4
EPS = np.finfo(float).eps
ROUNDING = 1e3 * EPS  # a change of J below ROUNDING max(1, |J|) is taken for rounding (J's computed values)
# SolveReport.method, what ran (NOT PRIVATE: whether the dual fallback runs depends on the private data)
NEWTON = "newton"
DUAL_CLOSED_FORM = "dual closed form"
DUAL_INTERIOR_POINT = "dual interior point"
DUAL_FALLBACK = "dual interior point+FISTA"  # the interior point did not certify; FISTA from its best iterate did


def as_labels(y: ArrayLike, n: int) -> np.ndarray:
    """y as a float vector of -1/+1 labels of length n, or a typed error: labels outside the kernel learners' classes
    (-1, +1) refused as every entry refuses them, counted and placed, a missing label told apart
    (:func:`dpcvx.validation.outside_head`), never shown."""
    labels = label_vector(y, n, KERNEL_CLASSES)  # a column vector flattened, as every entry takes it; another shape
    # named; each label read by value ("1.0", "+1", True for 1: dpcvx.validation.declared_labels)
    assert isinstance(labels, np.ndarray)
    outside = outside_classes(labels, KERNEL_CLASSES)
    if outside is not None:
        raise InputError(f"{outside_head(outside, labels, KERNEL_CLASSES, fixed=True)}: labels must be -1 or +1 "
                         "(map {0, 1} labels with 2 * y - 1)")
    return labels.astype(float)


@dataclass(frozen=True)
class SolveReport:
    """How the non-private minimiser was computed: measured on the PRIVATE data.

    ``method`` names what ran: "newton" (a C^1 loss), "dual closed form" (a two-piece loss whose margins public
    constants keep off its kink), "dual interior point", or "dual interior point+FISTA" where the interior point
    did not certify the tolerance and FISTA from its best iterate did. Which of the last two ran, the iterations,
    seconds, residual and distance bound are functions of the training data that no noise has touched: they go to
    a learner's ``diagnostics_`` (marked NOT PRIVATE), never into a release (which states no solver at all).
    """

    method: str
    iterations: int  # of both solvers for "dual interior point+FISTA"
    seconds: float
    residual: float  # ||grad J||_H (newton) or the duality gap (the dual routes)
    residual_name: str
    distance_bound: float  # certified ||w - w*||_H
    tolerance: float  # the largest distance_bound accepted


@dataclass(frozen=True)
class KernelERMSolution:
    """Representer coefficients beta (PRIVATE) and the accuracy report."""

    coef: np.ndarray
    report: SolveReport


def _gradient_norm_bound(r: np.ndarray, gram_r: np.ndarray, gram_max: float, first: np.ndarray,
                         curvature_bound: float, beta: np.ndarray, lam: float, terms: int,
                         quadratic: float | None = None) -> float:
    """Upper bound on ||grad J||_H = ||Phi r|| at ``beta`` from r = (1/n) y l'(z) + lam beta computed on margins
    z = y K beta that were computed as ONE product K beta (fresh, never updated step by step).

    The pads (u = EPS / 2 the unit roundoff; gamma_m = m u / (1 - m u) <= m EPS; a computed inner product of
    length m errs by at most gamma_m |x|^T |y|, Higham, Accuracy and Stability of Numerical Algorithms, 2nd
    ed., section 3.1; |K_ij| <= sqrt(K_ii K_jj) <= max K_ii = ``gram_max`` for a positive semidefinite K, and
    for K = F F^T also (|F| |F|^T)_ij <= gram_max by Cauchy-Schwarz), m = ``terms`` the length of the inner
    products behind one entry of K v (n dense, n + r for F (F^T v), b + n / b (+ r) by blocks):

    * margins: |fl(K beta)_i - (K beta)_i| <= m EPS gram_max ||beta||_1 (valid for a fresh product only: margins
      updated as f + t K d carry the rounding of every step's K d, which ||beta||_1 does not bound);
    * r: a few EPS per term of (1/n) y l'(z) and lam beta, plus the margins' error times ``curvature_bound``
      >= sup l'' / n per entry (mean value theorem: the loss's proved c, not l'' at the computed margins,
      which can miss a jump of l'' within the margins' error); ||Phi e|| <= sqrt(gram_max) ||e||_1;
    * r^T K r computed as r @ fl(K r): fl(K r) errs by gamma_m gram_max ||r||_1 per entry and the outer sum
      of n terms by gamma_n |r|^T |fl(K r)|, so by at most (m + n) EPS ||r||_1^2 gram_max <= 2 m EPS ||r||_1^2
      gram_max in all (m >= n; by blocks the outer sum is blocked too and both lengths are m).

    ``quadratic``: r^T K r when computed otherwise than as ``r @ gram_r`` (by blocks).
    """
    n = r.size
    product_pad = 2 * terms * EPS * np.sum(np.abs(r)) ** 2 * gram_max
    margin_error = terms * EPS * gram_max * np.sum(np.abs(beta))
    r_error = EPS * (4 * np.sum(np.abs(first)) / n + 4 * lam * np.sum(np.abs(beta))) \
        + curvature_bound * margin_error
    quadratic = float(r @ gram_r) if quadratic is None else quadratic
    return math.sqrt(max(quadratic, 0.0) + product_pad) + math.sqrt(gram_max) * r_error


def _armijo_step(objective_at: Callable[[float], float], current: float, slope: float) -> float | None:
    """Backtracking step length; 1 when the decrease is below rounding level (Newton's
    final steps, which the Armijo test cannot resolve); None when no step is found."""
    if -slope <= ROUNDING * max(1.0, abs(current)):
        return 1.0
    t = 1.0
    while t > 1e-12:
        if objective_at(t) <= current + ARMIJO * t * slope:
            return t
        t /= 2
    return None


def _gradient_line(objective: Callable[[np.ndarray, float], float], f: np.ndarray, gram_r: np.ndarray,
                   quadratic: float, cross: float, squared: float, smoothness: float) -> tuple[float, float]:
    """(s, J) of the lowest of the gradient steps beta - s r, s = 2^k / beta_s for k = 0, 1, ... while J decreases
    (margins f - s K r, beta^T K beta - 2 s r^T f + s^2 r^T K r: O(n) each). The first, s = 1 / beta_s, decreases J
    by at least r^T K r / (2 beta_s) (the descent lemma), so the lowest does too; the longer ones are tried because
    beta_s = lam + c R_phi^2 is the curvature of the worst direction, and along the gradient J is often far flatter
    (lam, where l'' = 0 at most margins)."""
    length, value = 1.0 / smoothness, objective(f - gram_r / smoothness, quadratic - 2 * cross / smoothness
                                                + squared / smoothness ** 2)
    while True:
        longer = 2 * length
        trial = objective(f - longer * gram_r, quadratic - 2 * longer * cross + longer * longer * squared)
        if not trial < value:
            return length, value
        length, value = longer, trial


def _newton(gram: GramOperator, y: np.ndarray, lam: float, loss: LossDerivatives, tolerance: float,
            curvature: float | None, smoothness: float | None, step_limit: int,
            bar: Progress | None = None) -> tuple[np.ndarray, int, float]:
    """Damped Newton in representer form from beta = 0, safeguarded by the RKHS gradient step; (beta, steps, the
    certified bound on ||grad J||_H at beta).

    The safeguard (``smoothness`` = beta_s = lam + c R_phi^2, :func:`~dpcvx.solvers.budget.kernel_smoothness`):
    the gradient step w - grad J / beta_s is beta - r / beta_s in representer coordinates, its margins
    f - (K r) / beta_s (K r is computed for the certificate anyway: O(n) per step), and it decreases J by at least
    r^T K r / (2 beta_s) (the descent lemma). A step where Newton finds no descent direction or no Armijo step
    takes the lowest of the gradient steps beta - 2^k r / beta_s (:func:`_gradient_line`); one whose Newton step
    decreases J by less than that guarantee (where the guarantee is above J's rounding) takes the lower of that
    and Newton's (below J's rounding the two cannot be told apart in doubles and Newton's is taken: the proof is one
    in exact arithmetic, as the linear path's, docs/theory.md section 7.1). So every step decreases J at least as
    much as the gradient step, and
    ``step_limit`` = the proved :func:`~dpcvx.solvers.budget.kernel_budget` bounds the steps to the target
    lam gamma / 2 in exact arithmetic (Nesterov 2018, Theorems 2.1.5 and 2.1.15). A loss without a proved curvature c
    is refused before (:func:`check_newton_route`); ``smoothness`` is None (no safeguard, ``MAX_NEWTON_STEPS``) only
    at a zero tolerance, which no solve certifies.

    The margins f are updated step by step (f + t K d); the certificate (:func:`_gradient_norm_bound`) holds only
    for margins computed as one product, so where the running bound says stop, f = K beta is computed afresh (one
    O(n^2) product) and the solve stops only if the bound on fresh margins says so too. It stops when the bound
    reaches AIM gamma lam; or, once J no longer decreases measurably (Newton's decrement below J's rounding), when
    the bound has not halved in ``STALLED_STEPS`` such steps (the rounding floor: then it is accepted if within
    gamma lam, otherwise certified by blocks and, failing that, reported as it is, and the solve fails before its
    budget: a floating-point event, which further steps at the floor would not change); or at ``step_limit``; or
    where no step is found (without the safeguard, or where J is not finite). Every stop certifies fresh margins.
    ``bar`` counts the steps (:mod:`dpcvx.progress`; the count follows the data: the curator's view only).
    """
    bar = NoProgress() if bar is None else bar
    n = y.size
    gram_max = float(np.max(np.abs(gram.diagonal())))
    beta, f = np.zeros(n), np.zeros(n)
    fresh = True  # f = K beta as one product (at beta = 0 exactly)

    def objective(values: np.ndarray, quadratic: float) -> float:
        return float(np.mean(loss.value(y * values))) + lam * quadratic / 2

    step, best, stalled, stuck = 0, math.inf, 0, False  # stuck: no step found (no safeguard, or J not finite)
    while True:
        z = y * f
        first, second = loss.first(z), loss.second(z)
        r = y * first / n + lam * beta
        gram_r = gram @ r
        curvature_bound = float(np.max(np.abs(second))) if curvature is None else curvature
        gradient_norm = _gradient_norm_bound(r, gram_r, gram_max, first, curvature_bound, beta, lam,
                                             gram.product_terms)
        distance = gradient_norm / lam
        if distance <= AIM * tolerance or stalled >= STALLED_STEPS or step >= step_limit or stuck:
            if fresh:
                break
            f, fresh = gram @ beta, True  # certify on margins computed afresh
            continue
        step += 1
        bar.update()
        active = np.flatnonzero(second > 0)
        correction = np.zeros(n)
        if active.size:
            root = np.sqrt(second[active])
            solve = gram.shifted_solver(root / math.sqrt(n), lam, rows=active)
            correction[active] = root * solve(root * gram_r[active]) / n
        direction = -(r - correction) / lam
        gram_direction = gram @ direction
        slope = float(gram_r @ direction)
        quadratic = float(beta @ f)
        cross, curvature_term = float(direction @ f), float(direction @ gram_direction)
        current = objective(f, quadratic)

        def along(t: float, f: np.ndarray = f, g: np.ndarray = gram_direction, q: float = quadratic,
                  c: float = cross, k: float = curvature_term) -> float:
            return objective(f + t * g, q + 2 * t * c + t * t * k)

        t = _armijo_step(along, current, slope) if slope < 0 else None
        if -slope <= ROUNDING * max(1.0, abs(current)):  # J cannot resolve Newton's decrease: the rounding floor
            improved = gradient_norm < 0.5 * best
            best, stalled = (gradient_norm, 0) if improved else (best, stalled + 1)
        if smoothness is not None:
            squared = max(float(r @ gram_r), 0.0)  # ||grad J||_H^2
            guaranteed = squared / (2 * smoothness)
            measurable = guaranteed > ROUNDING * max(1.0, abs(current))
            newton_value = math.inf if t is None else along(t) if measurable else -math.inf
            if newton_value > current - guaranteed:  # Newton's step (if any) falls short of the guarantee
                length, value = _gradient_line(objective, f, gram_r, quadratic, float(r @ f), squared, smoothness)
                if value <= newton_value:
                    beta, f, fresh = beta - length * r, f - length * gram_r, False
                    continue
        if t is None:
            stuck = True
            continue
        beta, f, fresh = beta + t * direction, f + t * gram_direction, False
    if distance > tolerance:  # the n-term products' rounding bound is too coarse: certify by blocks
        gradient_norm = _gradient_by_blocks(gram, y, lam, loss, beta, gram_max, curvature)
    return beta, step, gradient_norm


def _gradient_by_blocks(gram: GramOperator, y: np.ndarray, lam: float, loss: LossDerivatives, beta: np.ndarray,
                        gram_max: float, curvature: float | None) -> float:
    """The bound of :func:`_gradient_norm_bound` at ``beta``, its margins z = y K beta and K r recomputed by blocks
    (``gram.by_blocks``): the rounding pads scale with b + n / b ~ 2 sqrt(n) terms instead of n. The tolerance is
    O(1/n) and the n-term pads grow with n, so from some public n on only this bound can certify the minimiser."""
    n = y.size
    margins, terms = gram.by_blocks(beta)
    z = y * margins
    first, second = loss.first(z), loss.second(z)
    r = y * first / n + lam * beta
    gram_r, _ = gram.by_blocks(r)
    quadratic, _ = sum_by_blocks(gram_r[None, :], r, along_rows=False)  # r^T (K r), an n-term sum, by blocks too
    # the pad of r^T K r covers the rounding of K r and of the outer sum, each of m = b + n / b (+ r) terms
    curvature_bound = float(np.max(np.abs(second))) if curvature is None else curvature
    return _gradient_norm_bound(r, gram_r, gram_max, first, curvature_bound, beta, lam, terms,
                                quadratic=float(quadratic[0]))


def _fenchel_gap(gram: GramOperator, y: np.ndarray, lam: float, pieces: TwoPieceLinear,
                 u: np.ndarray, gram_max: float, by_blocks: bool = False) -> tuple[np.ndarray, float]:
    """beta = -y u / (lam n) and an upper bound on the duality gap (1/n) sum [l(z) + l*(u) - u z].

    Each Fenchel-Young term is computed as (a2 - u)(z - z_k)_+ + (u - a1)(z_k - z)_+
    (:meth:`~dpcvx.verification.kernel_loss.TwoPieceLinear.fenchel_young`): non-negative factors, so
    its rounding is relative to the term (a few eps, log2(n) eps for numpy's pairwise sum). The
    rounding of z - z_k (of z = y K beta, m eps max|K| ||beta||_1 per margin, m the product length
    of K v, and of z_k, 2 eps |z_k|) enters times the term's slope in z on the side z lies on, or the
    larger slope where the computed z is within that rounding of the kink (the true z may lie on the
    other side: the term is Lipschitz with the larger slope). The
    sum l(z) + l*(u) - u z instead cancels parts of the size of the loss's offsets (l(0) = 1 for the
    hinge) down to a gap that the tolerance asks to be O(1 / (lam n^2)): from lam n^2 ~ 1e9 (n = 200
    at lam = 1e4) its rounding alone exceeded that, and no iterate could be certified. ``by_blocks``: z from
    ``gram.by_blocks``, whose rounding bound takes b + n / b ~ 2 sqrt(n) terms, not n (:func:`_certified_gap`).
    """
    beta, z, margin_error = _dual_margins(gram, y, lam, pieces, u, gram_max, by_blocks)
    return beta, _gap_bound(pieces, u, z, margin_error)


def _dual_margins(gram: GramOperator, y: np.ndarray, lam: float, pieces: TwoPieceLinear, u: np.ndarray,
                  gram_max: float, by_blocks: bool = False) -> tuple[np.ndarray, np.ndarray, float]:
    """beta = -y u / (lam n), the margins z = y K beta as one product (by blocks if ``by_blocks``) and the bound on
    the rounding of z - z_k (:func:`_fenchel_gap`)."""
    beta = -y * u / (lam * y.size)
    if by_blocks:
        product, product_terms = gram.by_blocks(beta)
    else:
        product, product_terms = gram @ beta, gram.product_terms
    margin_error = product_terms * EPS * gram_max * float(np.sum(np.abs(beta))) + 2 * EPS * abs(pieces.kink)
    return beta, y * product, margin_error


def _gap_bound(pieces: TwoPieceLinear, u: np.ndarray, z: np.ndarray, margin_error: float) -> float:
    """The upper bound of :func:`_fenchel_gap` on the duality gap of u from its margins z (``margin_error``: the
    bound on the rounding of z - z_k)."""
    terms = pieces.fenchel_young(z, u)
    # the term is Lipschitz in z with the slope of the side z lies on; within margin_error of the kink the
    # computed z may lie on the other side, so there the larger of the two slopes
    above, below = pieces.a2 - u, u - pieces.a1
    slope = np.where(np.abs(z - pieces.kink) <= margin_error, np.maximum(above, below),
                     np.where(z > pieces.kink, above, below))
    mean = float(np.mean(terms))
    return mean + EPS * (4 + math.log2(u.size)) * mean + margin_error * float(np.mean(slope))


def _certified_gap(gram: GramOperator, y: np.ndarray, lam: float, pieces: TwoPieceLinear, u: np.ndarray,
                   gram_max: float, gap: float, tolerance: float) -> float:
    """``gap`` (of :func:`_fenchel_gap`) when it certifies sqrt(2 gap / lam) <= ``tolerance``; otherwise the gap of
    the same u with its margins computed by blocks. The tolerance asks for a gap O(1 / (lam n^2)), and one margin
    within the n-term rounding of the kink pads it by O(eps R_phi^2 ||beta||_1), whatever n: from about 10^5 rows on
    only the blocked margins (pad O(sqrt(n) eps / n) per such margin) certify the hinge's minimiser."""
    if math.sqrt(2 * gap / lam) <= tolerance:
        return gap
    return _fenchel_gap(gram, y, lam, pieces, u, gram_max, by_blocks=True)[1]


def _one_piece(gram: GramOperator, y: np.ndarray, lam: float, pieces: TwoPieceLinear, tolerance: float
               ) -> tuple[np.ndarray, int, float]:
    """The minimiser when no margin can reach the kink, in closed form: u_i = a1 for all i (the
    kink above every margin) or a2 (below), w* = -(u / (lam n)) sum_i y_i phi(x_i); the duality gap
    of that point certifies it as for the interior point (:func:`_fenchel_gap`)."""
    slope = pieces.a1 if pieces.kink > 0 else pieces.a2
    u, gram_max = np.full(y.size, slope), float(np.max(gram.diagonal()))
    beta, gap = _fenchel_gap(gram, y, lam, pieces, u, gram_max)
    return beta, 0, _certified_gap(gram, y, lam, pieces, u, gram_max, gap, tolerance)


def _dual_interior_point(gram: GramOperator, y: np.ndarray, lam: float, pieces: TwoPieceLinear,
                         tolerance: float, smoothness: float, step_limit: int,
                         bar: Progress | None = None) -> tuple[np.ndarray, int, float, str]:
    """Mehrotra predictor-corrector on min 1/2 p^T Q p + c^T p, 0 <= p <= 1, u = a1 + (a2 - a1) p,
    Q = diag(y) K diag(y); where it has not certified ``tolerance`` within MAX_INTERIOR_POINT_STEPS (or its
    step fails), accelerated projected gradient from its best iterate to the proved budget ``step_limit``
    (:func:`_dual_accelerated_gradient`; ``smoothness`` = L_G). (beta, the steps of both, the certified gap, what
    ran: ``DUAL_INTERIOR_POINT`` or ``DUAL_FALLBACK``; which one depends on the private data, so it goes to the
    NOT PRIVATE :class:`SolveReport` only.)

    The slacks p (to 0) and q (to 1) are separate variables with the residual
    p + q - 1, so neither loses precision near its bound. ``bar`` counts the steps of both (:mod:`dpcvx.progress`).
    """
    bar = NoProgress() if bar is None else bar
    n = y.size
    width = pieces.a2 - pieces.a1

    def Q(v: np.ndarray) -> np.ndarray:
        return y * (gram @ (y * v))

    c = (pieces.a1 / width) * Q(np.ones(n)) + pieces.conjugate_slope * lam * n / width
    p, q = np.full(n, 0.5), np.full(n, 0.5)
    z_low, z_up = np.ones(n), np.ones(n)
    gram_max = float(np.max(gram.diagonal()))
    jitter = n * EPS * gram_max
    best_gap, best_beta, best_u, stalled = math.inf, None, None, 0

    def max_step(values: np.ndarray, change: np.ndarray) -> float:
        shrinking = change < 0
        return min(1.0, float(np.min(-values[shrinking] / change[shrinking]))) if shrinking.any() else 1.0

    iterations = 0
    for step in range(MAX_INTERIOR_POINT_STEPS):
        iterations = step  # the count reported
        u = np.clip(pieces.a1 + width * p, pieces.a1, pieces.a2)
        beta, gap = _fenchel_gap(gram, y, lam, pieces, u, gram_max)
        if gap < best_gap:
            best_gap, best_beta, best_u, stalled = gap, beta, u, 0
        else:
            stalled += 1
        best_distance = math.sqrt(2 * best_gap / lam)
        if best_distance <= AIM * tolerance or (best_distance <= tolerance and stalled >= STALLED_STEPS):
            break
        dual_residual = Q(p) + c - z_low + z_up
        primal_residual = p + q - 1
        mu = (p @ z_low + q @ z_up) / (2 * n)
        barrier = z_low / p + z_up / q
        try:
            solve = gram.shifted_solver(y, barrier)
        except LinAlgError:
            try:
                solve = gram.shifted_solver(y, barrier + jitter)
            except LinAlgError:
                break

        def newton_direction(target: float | np.ndarray, correction_low: float | np.ndarray,
                             correction_up: float | np.ndarray,
                             p: np.ndarray = p, q: np.ndarray = q, z_low: np.ndarray = z_low,
                             z_up: np.ndarray = z_up, solve: Callable[[np.ndarray], np.ndarray] = solve,
                             dual_residual: np.ndarray = dual_residual, primal_residual: np.ndarray = primal_residual,
                             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
            rhs = (-dual_residual + (target - correction_low) / p - z_low
                   - (target - correction_up + z_up * primal_residual) / q + z_up)
            dp = solve(rhs)
            dq = -primal_residual - dp
            dz_low = (target - correction_low - p * z_low - z_low * dp) / p
            dz_up = (target - correction_up - q * z_up - z_up * dq) / q
            return dp, dq, dz_low, dz_up

        dp, dq, dz_low, dz_up = newton_direction(0.0, 0.0, 0.0)
        alpha = min(max_step(p, dp), max_step(q, dq), max_step(z_low, dz_low), max_step(z_up, dz_up))
        mu_affine = ((p + alpha * dp) @ (z_low + alpha * dz_low)
                     + (q + alpha * dq) @ (z_up + alpha * dz_up)) / (2 * n)
        centering = (mu_affine / mu) ** 3
        dp, dq, dz_low, dz_up = newton_direction(centering * mu, dp * dz_low, dq * dz_up)
        alpha = 0.99 * min(max_step(p, dp), max_step(q, dq), max_step(z_low, dz_low),
                           max_step(z_up, dz_up))
        if alpha < 1e-12:  # no further progress is possible in floating point
            break
        p, q = p + alpha * dp, q + alpha * dq
        z_low, z_up = z_low + alpha * dz_low, z_up + alpha * dz_up
        bar.update()  # one step (its O(n^3) factorisation) done
    if best_beta is not None and best_u is not None:
        certified = _certified_gap(gram, y, lam, pieces, best_u, gram_max, best_gap, tolerance)
        if math.sqrt(2 * certified / lam) <= tolerance:
            return best_beta, iterations, certified, DUAL_INTERIOR_POINT
    start = np.full(n, pieces.a1 + width / 2) if best_u is None else best_u  # its own start if no finite gap
    beta, steps, certified = _dual_accelerated_gradient(gram, y, lam, pieces, tolerance, start, smoothness,
                                                        step_limit, bar=bar)
    return beta, iterations + steps, certified, DUAL_FALLBACK


def _dual_accelerated_gradient(gram: GramOperator, y: np.ndarray, lam: float, pieces: TwoPieceLinear,
                               tolerance: float, start: np.ndarray, smoothness: float, step_limit: int,
                               bar: Progress | None = None) -> tuple[np.ndarray, int, float]:
    """FISTA (Beck and Teboulle 2009) on the dual box QP min G(u) = (1/(2 lam n^2)) u^T Q u + (1/n) sum l*(u_i),
    u in [a1, a2]^n, from ``start`` (in the box); (beta of the best iterate, steps, its certified gap).

    grad G(u) = (z_k - z(u)) / n, z(u) = y K beta(u) the margins of w(u) and z_k the kink (l*' = z_k), so the
    projected gradient step with ``smoothness`` L_G = R_phi^2 / (lam n) (:func:`~dpcvx.solvers.budget.dual_smoothness`)
    is u <- clip(v + (z(v) - z_k) / (n L_G), a1, a2), and
    v_(k+1) = u_k + ((t_k - 1) / t_(k+1)) (u_k - u_(k-1)), t_(k+1) = (1 + sqrt(1 + 4 t_k^2)) / 2, t_1 = 1. The margins
    of u_k are computed afresh (one product K beta per step, which the certificate :func:`_fenchel_gap` needs
    anyway) and those of v by linearity. After ``step_limit`` = the proved
    :func:`~dpcvx.solvers.budget.dual_budget` steps the gap of u_k is at most lam (gamma / 2)^2 / 2 from any start in
    the box (Theorem 4.4 there; the conversion to the gap in budget.py's module docstring), so in exact arithmetic
    the best iterate certifies gamma. It stops when that bound reaches AIM gamma; at ``step_limit``; or at the
    rounding floor: where the projected gradient step at u_k (from its fresh margins) moves no coordinate by more
    than its rounding (the margins' rounding bound times the step length, and a few eps of |u|), u_k is a fixed
    point of the iteration in doubles, and further steps would not change the certificate; the proof is one in
    exact arithmetic, as Newton's (:func:`_newton`). Every stop certifies the best iterate, by blocks if the n-term
    bound does not reach gamma (:func:`_certified_gap`); short of gamma the solve fails (SolverError).
    """
    bar = NoProgress() if bar is None else bar
    n, kink = y.size, pieces.kink
    gram_max = float(np.max(gram.diagonal()))
    length = 1.0 / (n * smoothness)  # the step 1 / L_G times the 1 / n of grad G
    u_rounding = 4 * EPS * max(abs(pieces.a1), abs(pieces.a2))
    current = start
    best_beta, margins, margin_error = _dual_margins(gram, y, lam, pieces, current, gram_max)
    best_gap, best_u = _gap_bound(pieces, current, margins, margin_error), current
    point, point_margins, t, step = current, margins, 1.0, 0
    while math.sqrt(2 * best_gap / lam) > AIM * tolerance and step < step_limit:
        moved = np.clip(current + length * (margins - kink), pieces.a1, pieces.a2) - current
        if float(np.max(np.abs(moved))) <= length * margin_error + u_rounding:  # the rounding floor
            break
        step += 1
        bar.update()
        following = np.clip(point + length * (point_margins - kink), pieces.a1, pieces.a2)
        beta, following_margins, margin_error = _dual_margins(gram, y, lam, pieces, following, gram_max)
        gap = _gap_bound(pieces, following, following_margins, margin_error)
        if gap < best_gap:
            best_gap, best_beta, best_u = gap, beta, following
        t_next = (1 + math.sqrt(1 + 4 * t * t)) / 2
        momentum = (t - 1) / t_next
        point = following + momentum * (following - current)
        point_margins = following_margins + momentum * (following_margins - margins)
        current, margins, t = following, following_margins, t_next
    return best_beta, step, _certified_gap(gram, y, lam, pieces, best_u, gram_max, best_gap, tolerance)


def solve_kernel_erm(gram: np.ndarray | GramOperator, y: np.ndarray, lam: float, loss: KernelLoss,
                     tolerance: float, feature_bound: float, bar: Progress | None = None) -> KernelERMSolution:
    """Minimise (1/n) sum l(y_i (K beta)_i) + (lam/2) beta^T K beta; certify ||w - w*|| <= tolerance.

    ``gram`` is K as an array or a :mod:`~dpcvx.solvers.gram` operator (dense, or a
    low-rank factor K = F F^T solved by Woodbury at O(n r^2) per step), with
    K_ii <= ``feature_bound``^2 (the public R_phi). A two-piece loss whose kink no
    margin can reach, C R_phi < |z_k| with C >= ||w*|| the public
    :func:`~dpcvx.privacy.kernel_calibrate.constraint_radius`, is minimised in closed
    form (:func:`_one_piece`; a choice made on public constants only).

    A Newton budget beyond ``MAX_PROVED_ITERATIONS`` is not refused here, the bare solver, which releases nothing:
    :class:`KernelERM` refuses it before a learner's charge (:func:`newton_step_limit`).

    ``bar`` (:mod:`dpcvx.progress`) counts the solver's steps, each an O(n^3) factorisation on a dense K (an FISTA
    step, O(n^2)): shown to the curator on a terminal when asked, never released (the count follows the data).
    """
    gram = as_gram(gram)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # overflow in exp of a far-off trial point
        if loss.derivatives is not None:
            curvature = check_newton_route(loss)  # a C^1 loss without a proved c is refused (docs/theory.md, 7.1)
            smoothness, step_limit = None, MAX_NEWTON_STEPS  # a zero tolerance, which no solve certifies
            if tolerance > 0:  # the proved budget (public constants only; beyond the limit KernelERM refuses it)
                smoothness = kernel_smoothness(lam, curvature, feature_bound)
                step_limit = _newton_budget(curvature, loss.lipschitz_bound, lam, feature_bound, tolerance)
            beta, iterations, residual = _newton(gram, y, lam, loss.derivatives, tolerance, curvature, smoothness,
                                                 step_limit, bar=bar)
            method, distance, residual_name = NEWTON, residual / lam, "||grad J||_H"
        elif loss.pieces is not None:
            if _margins_within_one_piece(loss, lam, feature_bound):
                method = DUAL_CLOSED_FORM
                beta, iterations, residual = _one_piece(gram, y, lam, loss.pieces, tolerance)
            else:  # the fallback's proved budget to gamma / 2 (public constants only; none for gamma = 0)
                pieces = loss.pieces
                step_limit = (dual_budget(lam, pieces.a1, pieces.a2, feature_bound, tolerance / 2)
                              if tolerance > 0 else 0)
                beta, iterations, residual, method = _dual_interior_point(
                    gram, y, lam, pieces, tolerance, dual_smoothness(lam, feature_bound, y.size), step_limit, bar=bar)
            distance, residual_name = math.sqrt(2 * residual / lam), "duality gap"
        else:
            raise InputError(f"the loss {loss.text} has no exact kernel solver route (neither "
                             "derivatives nor two pieces)")
    report = SolveReport(method, iterations, time.perf_counter() - start, residual,
                         residual_name, distance, tolerance)
    if not distance <= tolerance:
        raise SolverError(
            f"the kernel ERM could not certify ||w - w*|| <= gamma = {tolerance:.3g} "
            "(the public solve tolerance): the floating-point arithmetic stopped improving before it (the proved "
            "step budget holds in exact arithmetic); nothing is released, and the budget "
            "charged for this call stays spent. Fixes: a larger lam, a smooth loss such as "
            "'logistic', or check that the kernel is positive semidefinite"
        )
    return KernelERMSolution(beta, report)


def check_newton_route(loss: KernelLoss) -> float:
    """The proved curvature c of a C^1 ``loss`` (the Newton route), or :class:`InputError` where c is not proved:
    the one rule of docs/theory.md, section 7.1 ("Not yet covered"), checked before a learner's charge
    (:class:`KernelERM`'s construction) and by :func:`solve_kernel_erm` itself.

    Without c Newton has no safeguard and no proved step budget, and a fallback that needs no c is not practical:
    the projected subgradient method on the ball ||w|| <= C = L R_phi / lam (which holds w*), steps 2 / (lam (k + 1))
    and weighted averaging, has J(w_bar) - J* <= 2 G^2 / (lam (k + 1)), G = L R_phi + lam C = 2 L R_phi
    (Lacoste-Julien, Schmidt and Bach 2012), so ||w_bar - w*|| <= gamma after k = 4 G^2 / (lam^2 gamma^2) =
    4 n^2 / SOLVE_RTOL^2 steps (4 10^6 n^2, 1.6 10^11 at n = 200, each O(n^2)): beyond ``MAX_PROVED_ITERATIONS``
    (10^7) from n = 2 on. Before this rule Newton ran unsafeguarded to ``MAX_NEWTON_STEPS`` after the charge, in a
    plain fit and inside tune alike. Public: the verified loss only."""
    if loss.curvature is not None:
        return loss.curvature
    raise InputError(
        f"the loss {loss.text} is C^1 but its curvature c (a bound on l'') is not proved, so the kernel solver's "
        "Newton steps have neither a safeguard nor a proved step budget, and no method that needs no c reaches the "
        "public tolerance within a practical proved budget (the subgradient method's is about 4 10^6 n^2 steps): "
        "the solve could stop short after the charge on some data sets and not on others, an event no theorem "
        "covers (docs/theory.md, section 7.1). Use a loss whose curvature the verifier proves ('logistic', "
        "dpcvx.losses.huber_hinge()) or the hinge (its dual route); nothing was charged")


def _newton_budget(curvature: float, lipschitz: float, lam: float, feature_bound: float, tolerance: float) -> int:
    """The proved Newton budget to the target lam ``tolerance`` / 2 (:func:`~dpcvx.solvers.budget.kernel_budget`)."""
    return kernel_budget(lam, curvature, lipschitz, feature_bound, lam * tolerance / 2)


def least_newton_lam(curvature: float, lipschitz: float, feature_bound: float, n: int) -> float:
    """The least lam (rounded up to three significant digits) whose proved Newton budget at the learners' public
    tolerance gamma = :func:`~dpcvx.privacy.kernel_calibrate.solve_tolerance` of n rows is within
    ``MAX_PROVED_ITERATIONS``: the public fix :func:`newton_step_limit`'s refusal names. The budget falls as lam
    grows (beta / mu = 1 + c R_phi^2 / lam, while the target lam gamma / 2 = SOLVE_RTOL L R_phi / n does not
    depend on lam), so a bisection on log lam finds it. Public: c, L, R_phi and n only."""
    def within(lam: float) -> bool:
        return not exceeds_limit(_newton_budget(curvature, lipschitz, lam, feature_bound,
                                                solve_tolerance(n, lam, lipschitz, feature_bound)))

    low, high = 1e-300, 1.0  # within(low) is False for any n >= 1 (beta / mu is 1e300 c R_phi^2 there)
    while not within(high) and high < 1e300:
        low, high = high, high * 1e3
    for _ in range(80):  # the ratio high / low to within 1 + 1e-12 or so
        middle = math.sqrt(low * high)
        low, high = (low, middle) if within(middle) else (middle, high)
    exponent = math.floor(math.log10(high)) - 2
    rounded = math.ceil(high / 10.0 ** exponent) * 10.0 ** exponent
    return rounded if within(rounded) else high


def newton_step_limit(loss: KernelLoss, lam: float, feature_bound: float, tolerance: float, n: int) -> int:
    """The proved budget of the kernel ERM's Newton solve (a C^1 ``loss`` with a proved c, :func:`check_newton_route`)
    to ``tolerance`` on ``n`` rows, or :class:`InputError` where it is above ``MAX_PROVED_ITERATIONS``: the linear
    path's rule (:func:`~dpcvx.solvers.choice.exceeds_limit`, refused by
    :func:`~dpcvx.solvers.choice.refuse_unsafeguarded`, docs/theory.md, section 7.1), checked before a learner's
    charge by :class:`KernelERM`'s construction, which every kernel learner's fit (TDDL, PINP, TDIL, their
    ``fit_nonprivate`` and ``check_fit_inputs``, and so tune's checks of them) builds before its charge.
    :func:`solve_kernel_erm` itself, the bare solver that releases nothing, runs to the budget however large.

    Beyond the limit lam is too small against c R_phi^2 for gradient steps to be a practical safeguard, and the
    certificate of ||w - w*|| <= gamma failed in floating point after the charge on some data sets and released on
    their neighbours (an attacker probe: TDDL, rbf gamma 40, the Huber hinge at h 0.01, lam 6.75e-8, n 400, raised
    SolverError on a data set and released on one with a label flipped: a budget of 3.4 10^10 steps). Public: the
    verified loss, lam, R_phi, the tolerance and n (replace-one neighbours: n is public)."""
    curvature = check_newton_route(loss)
    budget = _newton_budget(curvature, loss.lipschitz_bound, lam, feature_bound, tolerance)
    if not exceeds_limit(budget):
        return budget
    least = least_newton_lam(curvature, loss.lipschitz_bound, feature_bound, n)
    refuse_unsafeguarded(
        "The kernel ERM's Newton solve (TDDL, PINP, TDIL)",
        f"has a proved iteration budget of {budget:.3g} steps at lam = {lam:.3g} with the loss {loss.text} "
        f"(c = {curvature:.3g}), R_phi = {feature_bound:.3g} and n = {n}, above {MAX_PROVED_ITERATIONS:.0e}: lam is "
        "too small against c R_phi^2 for gradient steps to be a practical safeguard, and the floating-point "
        "certificate of ||w - w*|| <= gamma can fail there on some data sets and not on their neighbours. Use "
        f"lam >= {least:.3g} (the least lam within the limit for this loss, kernel and n), or a loss of smaller "
        "curvature c (a Huber hinge of larger h: c = 1 / (2 h))")


def _margins_within_one_piece(loss: KernelLoss, lam: float, feature_bound: float) -> bool:
    """Whether every margin z_i = <w*, phi(x_i)> lies strictly on one side of the two-piece loss's
    kink z_k, from public constants: |z_i| <= ||w*|| R_phi <= C R_phi < |z_k|. Then l'(z_i) is that
    piece's slope at every row and the KKT conditions give w* in closed form (:func:`_one_piece`)."""
    assert loss.pieces is not None, "a two-piece loss"
    radius = loss_radius(lam, loss, feature_bound)
    return round_up(radius * feature_bound) < abs(loss.pieces.kink)


def _memory_refusal(n: int, rank: int | None, solves: bool = True) -> str:
    """Why a kernel ERM of ``n`` rows was refused for memory, and the fixes (public facts only: n, the rank r of
    the public sample's span, and whether the solve needs a workspace)."""
    if rank is None:
        held = ("two {n:,} x {n:,} arrays of doubles, the Gram matrix and its solver's workspace ({gb:.3g} GB each)"
                if solves else "a {n:,} x {n:,} array of doubles, the Gram matrix ({gb:.3g} GB)")
        return (f"the kernel ERM over the whole RKHS of {n:,} training rows holds "
                f"{held.format(n=n, gb=8 * n * n / 1e9)}, and this machine could not allocate that memory; nothing was "
                "charged. Fixes: TDDL(span='public') (the default when n > |Z|, "
                "or above 10,000 rows with float_safe=True) minimises over the span of the public sample in "
                "8 n |Z| bytes; or fit fewer rows")
    return (f"the kernel ERM over the span of the public sample holds three {n:,} x {rank} arrays of doubles (the "
            f"Nystrom features and the solver's workspaces, {8 * n * rank / 1e9:.3g} GB each), and this machine could "
            "not allocate them; nothing was charged. Fixes: a smaller public sample Z, or fewer training rows")


def _check_scale(loss: KernelLoss, lam: float, feature_bound: float) -> None:
    """Refuse, before a learner's charge, public constants whose scale the solver's arithmetic cannot hold: it squares
    gradients of J, up to L R_phi, and its smoothness beta = lam + c R_phi^2 (:func:`_gradient_line`), which overflow
    above ``MODERATE_MAX`` (a loss of L = 1e200 raised a bare OverflowError in the solve, after the charge). A loss
    and lam scaled down by the same public constant have the same minimiser."""
    gradient = loss.lipschitz_bound * feature_bound
    smoothness = kernel_smoothness(lam, 0.0 if loss.curvature is None else loss.curvature, feature_bound)
    if gradient <= MODERATE_MAX and smoothness <= MODERATE_MAX:
        return
    raise InputError(
        f"the kernel solver's scale is beyond its floating point: the gradients of J reach L R_phi = {gradient:.3g} "
        f"and its smoothness lam + c R_phi^2 = {smoothness:.3g}, and above {MODERATE_MAX:.0e} their squares overflow. "
        "Divide the loss by a public constant k and lam by the same k (the same minimiser); nothing was charged")


def _refuse_indefinite_callable(matrix: np.ndarray) -> None:
    """InputError, before a learner's charge, when a user's kernel callable gives the training rows a Gram matrix
    that is not positive semidefinite (:func:`~dpcvx.privacy.kernel_calibrate.is_indefinite`, on K / max |K_ij| so
    that no entry overflows the eigensolver; O(n^3) time and a copy of K, as one step of the solve over the whole
    RKHS). A kernel is positive semidefinite by definition; one that is not has no feature map, so |K_ij| is not
    bounded by sqrt(K_ii K_jj) <= R_phi^2 and neither the solver's proved step budget nor the sensitivity holds:
    after the charge the solve could spin or fail and the predictions overflow (an attacker probe, sixty-fourth
    session: one row whose entries against the others are 1e300 raised a bare ValueError, or spun for minutes,
    after charging, where its neighbour released). The refusal reads the private Gram matrix, as its finiteness
    check does, and spends nothing; the named kernels are positive semidefinite by construction and are not
    decomposed. Over span phi(Z) (``landmarks``) K = Psi Psi^T is positive semidefinite by construction."""
    scale = float(np.max(np.abs(matrix))) if matrix.size else 0.0
    if scale == 0.0:
        return
    try:
        indefinite = is_indefinite(eigvalsh(matrix / scale, overwrite_a=True, check_finite=False))  # one copy
    except LinAlgError:
        indefinite = True
    if indefinite:
        raise InputError("the kernel callable's Gram matrix of the training rows is not positive semidefinite; a "
                         "kernel must be (k(x, x') = <phi(x), phi(x')>): check the function on your rows, or use "
                         "one of the named kernels 'linear', 'poly', 'rbf', 'laplacian'")


class KernelERM:
    """The kernel ERM minimiser w* to the public tolerance gamma (PRIVATE: the curator's object,
    never released).

    Construction checks X, y and the kernel and builds the Gram matrix (no
    solve); :meth:`solve` certifies ||w - w*|| <= gamma (``solve=True``, the
    default, solves at once). Rows with ||phi(x)|| above the kernel's public
    R_phi are scaled down to it in feature space (:func:`dpcvx.data.kernels.feature_scaling`).

    ``landmarks`` (PUBLIC points, never the training rows) restricts the
    minimisation to span phi(landmarks): the Gram matrix is then the factored
    Psi Psi^T of their Nystrom features, linear in n.
    """

    def __init__(self, X: ArrayLike, y: ArrayLike, *, kernel: Kernel, loss: KernelLoss, lam: float,
                 solve: bool = True, landmarks: np.ndarray | None = None) -> None:
        X = as_rows(X)
        y = as_labels(y, X.shape[0])
        if loss.derivatives is not None:
            check_newton_route(loss)
        _check_scale(loss, lam, kernel.feature_bound)
        if loss.derivatives is not None:  # a proved budget beyond the limit refused, before a learner's charge
            newton_step_limit(loss, lam, kernel.feature_bound,
                              solve_tolerance(X.shape[0], lam, loss.lipschitz_bound, kernel.feature_bound), X.shape[0])
        self.kernel, self.loss, self.lam = kernel, loss, lam
        self.n, self.n_features = X.shape
        X, scaling = feature_scaling(kernel, X)  # a row beyond floating point is the zero feature
        self.nystrom = None if landmarks is None else NystromFeatures(kernel, landmarks)
        gram: GramOperator
        # a two-piece loss whose margins no public constant lets reach its kink is solved in closed form: no shifted
        # system, so no workspace (public constants only, as solve_kernel_erm's choice)
        solves = loss.pieces is None or not _margins_within_one_piece(loss, lam, kernel.feature_bound)
        try:  # the Gram matrix and the solver's workspace, allocated before a learner's charge
            if self.nystrom is None:
                gram = DenseGram(scaling[:, None] * symmetric_gram(kernel, X) * scaling[None, :], solves=solves)
                if isinstance(kernel, CallableKernel):
                    _refuse_indefinite_callable(gram.matrix)
            else:
                gram = FactoredGram(self.nystrom.transform(X, scaling))
        except MemoryError:
            raise InputError(_memory_refusal(self.n, None if self.nystrom is None else self.nystrom.rank,
                                             solves)) from None
        self.sensitivity = minimiser_sensitivity(self.n, loss.lipschitz_bound, kernel.feature_bound, lam)
        self.tolerance = solve_tolerance(self.n, lam, loss.lipschitz_bound, kernel.feature_bound)
        self._gram: GramOperator | None = gram
        self._labels, self._scaling, self._rows = y, scaling, X
        self.report: SolveReport | None = None
        self._weights: np.ndarray | None = None
        if solve:
            self.solve()

    def solve(self, bar: Progress | None = None) -> KernelERM:
        """Certify ||w - w*|| <= gamma (the public tolerance); SolverError if the arithmetic cannot. ``bar`` counts
        the solver's steps (:func:`solve_kernel_erm`)."""
        if self._weights is not None:
            return self
        gram = self._gram
        assert gram is not None  # dropped only once the weights are set
        solution = solve_kernel_erm(gram, self._labels, self.lam, self.loss, self.tolerance,
                                    self.kernel.feature_bound, bar)
        self.report = solution.report
        if isinstance(gram, FactoredGram):  # w = sum_i beta_i psi(x_i), coordinates in the basis of span phi(Z)
            self._weights = gram.factor.T @ solution.coef
        else:
            self._weights = self._scaling * solution.coef
        self._gram = None  # n^2 (or n r) floats: not kept once solved
        return self

    def check_predict(self, Z: np.ndarray) -> None:
        """Raise, before a learner's charge, the error :meth:`predict` would raise on public points ``Z``: a user's
        kernel callable run on the shapes and values the expansion gives it (TDDL's predictions at Z), which its
        fit's square Gram matrices never did (a kernel that fails on a non-square pair, returns the wrong shape or an
        entry that is not finite). After the charge TDDL evaluates them by :meth:`answer`, which never raises."""
        if self.nystrom is None and isinstance(self.kernel, CallableKernel):
            kernel_expansion(self.kernel, as_rows(Z, "Z", self.n_features), self._rows, np.zeros(self.n))

    def check_query_shapes(self) -> None:
        """Raise, before a learner's charge, when a user's kernel callable fails on the shapes of a query against the
        rows ((1, d) against (n, d)), which its fit's square Gram matrices never gave it, or returns a matrix of
        another shape. It is called on public points (the origin, n times), never on a row: its refusal reads nothing
        private (PINP probed the first training row, so a fit was refused when a row beyond floating point came
        first and fitted as the zero feature when it came fifth). After the charge a query's entries follow
        :meth:`answer`'s rule and never raise."""
        if self.nystrom is None and isinstance(self.kernel, CallableKernel):
            self.kernel._called(np.zeros((1, self.n_features)), np.zeros((self.n, self.n_features)))

    @property
    def fitted_rows(self) -> np.ndarray:
        """The training rows as the Gram matrix was computed on them: a row beyond floating point is the zero row
        (its zero feature, :func:`~dpcvx.data.kernels.feature_scaling`), every other row as given (PRIVATE)."""
        return self._rows

    def predict(self, Z: np.ndarray) -> np.ndarray:
        """<w*, phi(z)> for each row z of Z (PRIVATE values)."""
        return self._expansion(Z, total=False)

    def answer(self, Z: np.ndarray) -> np.ndarray:
        """<w*, phi(z)> for each row z of Z as :meth:`predict`, a callable kernel's entries by the public per-entry
        rule of :meth:`~dpcvx.data.kernels.CallableKernel.total_gram` (an entry k(z, x_i) that is not finite, or
        whose evaluation raises, is 0, as for a row beyond floating point): PRIVATE values computed after a
        learner's charge (PINP's answers, TDDL's predictions at Z), which no row can make raise. The named kernels'
        values are :meth:`predict`'s. Proof: docs/theory.md, section 11, K5, "A callable kernel's answers are
        total"."""
        return self._expansion(Z, total=True)

    def _expansion(self, Z: np.ndarray, total: bool) -> np.ndarray:
        if self._weights is None:
            raise InputError("the kernel ERM is not solved yet: call solve() first")
        Z = as_rows(Z, "Z", self.n_features)
        if self.nystrom is not None:
            return self.nystrom.transform(Z) @ self._weights
        return kernel_expansion(self.kernel, Z, self._rows, self._weights, total=total)
