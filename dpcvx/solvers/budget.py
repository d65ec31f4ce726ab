"""The proved iteration budget of the smooth path: after it, the certified gradient bound holds whatever the data.

A fit whose solver can stop short of the public bound gamma on some data sets and not on their
neighbours releases that event, which no privacy theorem covers (docs/theory.md, section 7.1,
"A failed fit must not speak"). So the smooth path's iteration count is not a tuning knob: it is a
bound proved from public constants, the public start and the drawn noise only.

**The rate.** Newton's solver works on the averaged objective

    J_b(w) = (1/n) sum_i l(z_i) + Lam N(w) + (Delta/2) ||w||^2 + b^T w / n,

which is mu-strongly convex and beta-smooth with the public constants

    mu   = Lam m_N + Delta                  (m_N: N's certified modulus),
    beta = c R^2 + Lam lambda_max(N) + Delta  (c >= l'', ||x_i|| <= R after clipping).

Every iteration of :func:`dpcvx.solvers.linear.newton` takes a step that decreases J_b at least as
much as the gradient step w - grad J_b(w) / beta (Newton's step when it does, that gradient step
otherwise: the safeguard), and a gradient step decreases J_b by at least ||g||^2 / (2 beta)
(the descent lemma). (A full step that lands where the stopping test holds, on fresh margins, is
taken without that comparison: the solve ends there, so no later iterate depends on its decrease;
``linear._ends_solve``.) With the Polyak-Lojasiewicz inequality ||g||^2 >= 2 mu (J_b - J*),

    J_b(w_k) - J* <= (1 - mu / beta)^k (J_b(w_0) - J*) <= (1 - mu / beta)^k G_0^2 / (2 mu),

and ||grad J_b(w_k)||^2 <= 2 beta (J_b(w_k) - J*) (smoothness), so

    ||grad J_b(w_k)|| <= sqrt(beta / mu) (1 - mu / beta)^(k / 2) G_0,

where G_0 >= ||grad J_b(w_0)||: since |l'| <= L and ||x_i|| <= R,

    G_0 = L R + ||Lam grad N(w_0) + Delta w_0|| + ||b|| / n

(Nesterov, Lectures on Convex Optimization, 2018, Theorems 2.1.5 and 2.1.15). The budget is the
least k with the right-hand side at most the solver's target, gamma / (2 n): a function of L, c, m,
R, Lam, Delta, n, the public start w_0 and the drawn noise b, never of the data.

A user's ``max_iter`` below the budget at b = 0 (the smallest budget any draw can need) is refused
before the charge; above it, the solver still runs to the budget of the noise it drew.

**The composite path** (an L1 or group term, a constraint set: KST12 problems). There F = f + g with f the
smooth part, n J_b above with N's quadratic part (mu and beta as above: the L1 and group terms add no
strong convexity to m), and g = n Lam (a ||w||_1 + sum_g b_g ||w_g||) + the indicator of C. The proximal
gradient step of :func:`dpcvx.solvers.proximal.proximal_newton`'s safeguard, in the averaged scale,

    T(w) = prox_{g / beta}(w - grad f(w) / beta),

(i) decreases F by at least Q(w) = -[grad f(w)^T (T - w) + (beta / 2) ||T - w||^2 + g(T) - g(w)] >=
(beta / 2) ||T - w||^2 (T minimises the bracket, which is 0 at T = w and beta-strongly convex), and
(ii) Q(w) >= (mu / beta) (F(w) - F*) (Karimi, Nutini and Schmidt, ECML-PKDD 2016, Theorem 5 and Lemma 1:
a mu-strongly convex f satisfies their proximal-PL inequality with the same mu). Every iteration takes a
point whose decrease is at least Q (Newton's, when its decrease is), else T(w) itself, so
F(w_k) - F* <= (1 - mu / beta)^k (F(w_0) - F*). The certificate of the iterate w is the subgradient
s = grad f(T) + beta (w - T) - grad f(w) of F at T (the proximal map's optimality), and since grad f is
beta-Lipschitz, ||s|| <= 2 beta ||w - T|| <= 2 sqrt(2 beta Q) <= 2 sqrt(2 beta (F(w) - F*)). With
F(w_0) - F* <= ||s_0||^2 / (2 mu) for any subgradient s_0 of F at w_0 (strong convexity),

    ||s_k|| <= 2 sqrt(beta / mu) (1 - mu / beta)^(k / 2) G_0,

the smooth bound with G_0 doubled, where G_0 bounds a subgradient at the start w_0 = P_C(public start or 0):
the smooth part's L R + ||Lam grad N_q(w_0) + Delta w_0|| + ||b|| / n, plus Lam (a ||sign(w_0)|| +
sum_g b_g [w_0,g != 0]) (0 lies in C's normal cone). The solve releases T(w_k) once 2 beta ||w_k - T(w_k)||
(or a computed subgradient's norm) is at most the target: by the budget it is, whatever the data.

Where Newton's steps stall (six iterations without halving the certificate: an inexact model minimiser on an
ill-conditioned F), plain steps T would take about beta / mu iterations (an attacker probe: 1,085,777 steps, 75 s, on
50 rows at mu / beta 1.7e-5), so the solve goes on from that iterate w_s by V-FISTA, x_(k+1) = T(y_k), y_(k+1) =
x_(k+1) + q (x_(k+1) - x_k), y_0 = x_0 = w_s, q = (sqrt(kappa) - 1) / (sqrt(kappa) + 1), kappa = beta / mu, for which
F(x_k) - F* <= (1 - 1 / sqrt(kappa))^k (F(x_0) - F* + (mu / 2) ||x_0 - x*||^2) (Beck, First-Order Methods in
Optimization, SIAM 2017, Theorem 10.42). F(w_s) <= F(w_0) (every safeguarded step descends) and (mu / 2) ||x_0 -
x*||^2 <= F(x_0) - F*, so F(x_k) - F* <= 2 (1 - sqrt(mu / beta))^k G_0^2 / (2 mu), and T(x_k)'s certificate is at
most 2 sqrt(2 beta (F(x_k) - F*)) <= 2 sqrt(2) sqrt(beta / mu) (1 - sqrt(mu / beta))^(k / 2) G_0. The budget is the
safeguarded steps' (the switch comes within it, or the solve has ended) plus V-FISTA's plus one.

**The kernel ERM.** The same rate, with the same formula (:func:`descent_iterations`), bounds the
kernel learners' Newton solve of a C^1 loss (:func:`kernel_budget`): J(w) = (1/n) sum l(y_i <w, phi(x_i)>)
+ (lam/2) ||w||^2 in the RKHS, mu = lam, beta = lam + c R_phi^2, G_0 = L R_phi at w_0 = 0, target
lam gamma / 2 (gamma the public solve tolerance).

**The kernel ERM of a two-piece linear loss (the hinge).** Its dual (:func:`dual_budget`) is the box QP

    min_u G(u) = (1/(2 lam n^2)) u^T Q u + (1/n) sum_i l*(u_i),  u in [a1, a2]^n,  Q = diag(y) K diag(y),

with w(u) = -(1/(lam n)) sum_i u_i y_i phi(x_i) and G(u) = -D(u), D the Lagrange dual of J. Its gradient
Q u / (lam n^2) + l*' / n is L_G-Lipschitz with L_G = R_phi^2 / (lam n) >= lambda_max(K) / (lam n^2) (since
lambda_max(K) <= trace K <= n R_phi^2, :func:`dual_smoothness`), and ||u_0 - u*||^2 <= n (a2 - a1)^2 for any
u_0 in the box. Accelerated projected gradient (FISTA) from u_0 then gives

    eps_k = G(u_k) - G* <= 2 L_G ||u_0 - u*||^2 / (k + 1)^2 <= b^2 / (k + 1)^2,  b = (a2 - a1) R_phi sqrt(2 / lam)

(Beck and Teboulle, SIAM J. Imaging Sci. 2009, Theorem 4.4): n cancels. Two facts turn eps into the duality
gap J(w(u)) - D(u), the certificate the solver computes. (i) The Lagrangian is lam-strongly convex in w and
minimised at w(u), and J(w*) = D* (strong duality), so (lam/2) ||w(u) - w*||^2 <= D* - D(u) = eps. (ii) With
g_i in the subdifferential of l at z*_i = y_i <w*, phi(x_i)> and 0 = (1/n) sum g_i y_i phi(x_i) + lam w*
(optimality), J(w) - J* = (1/n) sum [l(z_i) - l(z*_i) - g_i (z_i - z*_i)] + (lam/2) ||w - w*||^2, and each
bracket is at most (a2 - a1) |z_i - z*_i| <= (a2 - a1) R_phi ||w - w*|| (the slopes of l lie in [a1, a2]). So

    gap(u) = (J(w(u)) - J*) + eps <= 2 eps + b sqrt(eps),

which is at most the target gap g = lam d^2 / 2 (d the target distance: sqrt(2 gap / lam) <= d) once
sqrt(eps) <= s = 2 g / (b + sqrt(b^2 + 8 g)), the positive root of 2 s^2 + b s = g; that is after
k = ceil(b / s) - 1 steps. With d = gamma / 2 (gamma = SOLVE_RTOL 2 L R_phi / (lam n)), b / s is about
b^2 / g = 4 (a2 - a1)^2 n^2 / (SOLVE_RTOL^2 L^2): 4 10^6 n^2 steps for the hinge (3.6 10^11 at n = 300).
Astronomical, and meant as a proof of termination only: the fallback runs after the interior point, which
certifies in 10 to 25 steps (docs/theory.md, section 7.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..verification.problem import Quadratic, VerifiedProblem

if TYPE_CHECKING:
    from ..verification.constraints import ConstraintSet

__all__ = ["DescentRate", "NonsmoothPart", "descent_rate", "descent_iterations", "kernel_budget", "kernel_smoothness",
           "dual_budget", "dual_smoothness"]

# Relative slack on every rounded constant: the budget is an upper bound, so each double is nudged
# to its safe side (mu down, beta and G_0 up) by far more than the rounding of the few operations.
_SLACK = 1e-12


@dataclass(frozen=True)
class NonsmoothPart:
    """The composite path's g: ``l1_weight`` a, ``groups`` (coordinates, b_g) and the constraint set C of
    N = a ||w||_1 + sum_g b_g ||w_g|| + quadratic in ``dim`` coordinates (module docstring, "The composite path")."""

    l1_weight: float
    groups: tuple[tuple[tuple[int, ...], float], ...]
    constraint: ConstraintSet | None
    dim: int

    def start(self, w0: np.ndarray | None) -> np.ndarray:
        """Where the proximal solve starts: the projection onto C of ``w0`` (None: zero)."""
        start = np.zeros(self.dim) if w0 is None else np.asarray(w0, dtype=float)
        return start if self.constraint is None else self.constraint.project(start)

    def subgradient_bound(self, w0: np.ndarray) -> float:
        """||a sign(w_0) + sum_g b_g w_0,g / ||w_0,g|||| bounded by a ||sign(w_0)|| + sum of b_g over the groups
        where w_0 is not 0: a subgradient of N's non-smooth part at w_0 (0 from C's normal cone)."""
        ones = float(np.count_nonzero(w0))
        return self.l1_weight * math.sqrt(ones) + sum(weight for indices, weight in self.groups
                                                      if np.any(w0[list(indices)]))


@dataclass(frozen=True)
class DescentRate:
    """The public rate of the safeguarded solver on J_b (module docstring): ``mu`` and ``beta`` of J_b,
    ``gradient_bound`` the L R part of G_0, ``quadratic`` N's quadratic (its quadratic part on the composite path),
    ``lam`` and ``extra_reg`` (Delta); ``nonsmooth`` the composite path's g, None on the smooth path."""

    mu: float
    beta: float
    gradient_bound: float
    quadratic: Quadratic
    lam: float
    extra_reg: float
    nonsmooth: NonsmoothPart | None = None

    def start_gradient_bound(self, w0: np.ndarray | None, noise_norm: float, n: int) -> float:
        """G_0 >= ||grad J_b(w_0)|| = L R + ||Lam grad N(w_0) + Delta w_0|| + ||b|| / n (public); on the composite
        path, a subgradient's bound at the projected start, Lam times :meth:`NonsmoothPart.subgradient_bound` more."""
        nonsmooth = 0.0
        if self.nonsmooth is not None:
            start = self.nonsmooth.start(w0)
            w0, nonsmooth = (start if np.any(start) else None), self.lam * self.nonsmooth.subgradient_bound(start)
        if w0 is not None:
            regularizer = self.lam * self.quadratic.gradient(w0) + self.extra_reg * w0
        else:  # w_0 = 0: grad N(0) is N's linear term
            regularizer = np.zeros(0) if self.quadratic.linear is None else self.lam * self.quadratic.linear
        return (self.gradient_bound + float(np.linalg.norm(regularizer)) + nonsmooth + noise_norm / n) * (1 + _SLACK)

    def iterations(self, start_gradient_bound: float, target: float) -> int:
        """The least k with sqrt(beta / mu) (1 - mu / beta)^(k / 2) G_0 <= ``target`` (:func:`descent_iterations`);
        on the composite path with G_0 doubled (the certificate's bound 2 beta ||w - T(w)||, module docstring)."""
        factor = 1.0 if self.nonsmooth is None else 2.0
        return descent_iterations(self.mu, self.beta, factor * start_gradient_bound, target)

    def budget(self, w0: np.ndarray | None, noise: np.ndarray | None, n: int, gradient_tolerance: float) -> int:
        """The proved budget for the solver's target gamma / (2 n) from ``w0`` (None: zero) with noise ``b``; on the
        composite path the safeguarded steps' and then V-FISTA's (:meth:`accelerated_iterations`), one more for the
        iteration at which the solve switches."""
        noise_norm = 0.0 if noise is None else scaled_norm(noise)
        start, target = self.start_gradient_bound(w0, noise_norm, n), 0.5 * gradient_tolerance / n
        steps = self.iterations(start, target)
        return steps if self.nonsmooth is None else steps + self.accelerated_iterations(start, target) + 1

    def accelerated_iterations(self, start_gradient_bound: float, target: float) -> int:
        """The least k with 2 sqrt(2) sqrt(beta / mu) (1 - sqrt(mu / beta))^(k / 2) G_0 <= ``target``: V-FISTA's
        budget from any iterate w_s of the safeguarded steps (module docstring, "The composite path")."""
        return descent_iterations(self.mu, self.beta, 2.0 * math.sqrt(2.0) * start_gradient_bound, target,
                                  rate=math.sqrt(self.mu / self.beta))


def scaled_norm(vector: np.ndarray) -> float:
    """||v||_2 without the overflow of the sum of squares: the largest |v_i| times the norm of v over it (numpy's
    norm squares the entries as they are, so a vector of entries near 1e300, the noise of a loss with L near 1e300,
    had an infinite norm). Rounding as numpy's norm, times the largest entry."""
    largest = float(np.max(np.abs(vector))) if vector.size else 0.0
    if largest == 0.0 or not math.isfinite(largest):
        return largest
    return largest * float(np.linalg.norm(vector / largest))


def descent_iterations(mu: float, beta: float, start_gradient_bound: float, target: float,
                       rate: float | None = None) -> int:
    """The least k >= 1 with sqrt(beta / mu) (1 - r)^(k / 2) G_0 <= ``target``, r = ``rate`` (default mu / beta): the
    proved budget of a safeguarded descent on a mu-strongly convex, beta-smooth function (module docstring), for both
    paths (the linear J_b, :class:`DescentRate`, and the kernel ERM, :func:`kernel_budget`); with r = sqrt(mu / beta),
    V-FISTA's (:meth:`DescentRate.accelerated_iterations`). mu, beta and G_0 = ``start_gradient_bound`` must already
    be on their safe sides (mu down, beta and G_0 up); ``target`` > 0."""
    ratio = beta / mu
    need = math.log(ratio) + 2.0 * math.log(start_gradient_bound / target)
    if need <= 0:
        return 1
    step = mu / beta if rate is None else rate
    contraction = -math.log1p(-step) if mu < beta else math.inf
    return max(1, math.ceil(need / contraction) + 1)


def kernel_budget(lam: float, curvature: float, lipschitz: float, feature_bound: float, target: float) -> int:
    """The proved Newton budget of the kernel ERM J(w) = (1/n) sum l(y_i <w, phi(x_i)>) + (lam/2) ||w||^2
    (:func:`dpcvx.solvers.kernel.solve_kernel_erm`, a C^1 loss): the least k after which ||grad J(w_k)||_H <=
    ``target``, from public constants only.

    J is mu = lam strongly convex and beta = lam + c R_phi^2 smooth in the RKHS (its Hessian is
    (1/n) sum l''(z_i) phi(x_i) phi(x_i)^T + lam I with 0 <= l'' <= c and ||phi(x_i)||^2 = K(x_i, x_i) <= R_phi^2,
    the kernel's public bound, after the rows' feature scaling; over span phi(Z) the projected features are no
    longer). The solve starts at beta = 0, where grad J = (1/n) sum y_i l'(0) phi(x_i), so G_0 = L R_phi. Every
    iteration decreases J at least as much as the gradient step in the RKHS (the safeguard of
    :func:`dpcvx.solvers.kernel._newton`), so the rate of the module docstring applies (Nesterov 2018, Theorems
    2.1.5 and 2.1.15): a function of lam, c, L, R_phi and ``target`` (the public tolerance's share), never of the
    data. Each constant is nudged to its safe side as in :func:`descent_rate`."""
    return descent_iterations(lam * (1 - _SLACK), kernel_smoothness(lam, curvature, feature_bound),
                              lipschitz * feature_bound * (1 + _SLACK), target)


def kernel_smoothness(lam: float, curvature: float, feature_bound: float) -> float:
    """beta = lam + c R_phi^2, nudged up: the kernel ERM's public smoothness (:func:`kernel_budget`), whose gradient
    step w - grad J / beta the safeguard of :func:`dpcvx.solvers.kernel._newton` takes."""
    return (lam + curvature * feature_bound ** 2) * (1 + _SLACK)


def dual_budget(lam: float, a1: float, a2: float, feature_bound: float, distance: float) -> int:
    """The proved FISTA budget on the dual box QP of a two-piece linear loss with slopes a1 < a2 (module docstring):
    the least k after which the duality gap of u_k is at most lam ``distance``^2 / 2, so sqrt(2 gap / lam) <=
    ``distance``, from ANY start in the box: k = ceil(b / s) - 1, b = (a2 - a1) R_phi sqrt(2 / lam) (nudged up),
    s = 2 g / (b + sqrt(b^2 + 8 g)) with g = lam ``distance``^2 / 2 (nudged down), and b / s nudged up. A function of
    lam, a1, a2, R_phi and ``distance`` (the public tolerance's share), never of the data; ``distance`` > 0."""
    b = (a2 - a1) * feature_bound * math.sqrt(2 / lam) * (1 + _SLACK)
    gap = lam * distance ** 2 / 2 * (1 - _SLACK)
    root = 2 * gap / (b + math.sqrt(b * b + 8 * gap)) * (1 - _SLACK)
    return max(1, math.ceil(b / root * (1 + _SLACK)) - 1)


def dual_smoothness(lam: float, feature_bound: float, n: int) -> float:
    """L_G = R_phi^2 / (lam n), nudged up: a public Lipschitz constant of the gradient of the dual objective
    G(u) = (1/(2 lam n^2)) u^T Q u + (1/n) sum l*(u_i) (:func:`dual_budget`), since lambda_max(Q) = lambda_max(K) <=
    trace K <= n R_phi^2. FISTA's projected gradient step is u - grad G(u) / L_G."""
    return feature_bound ** 2 / (lam * n) * (1 + _SLACK)


def _largest_eigenvalue(quadratic: Quadratic) -> float:
    """An upper bound on lambda_max of N's Hessian alpha I + diag(diagonal) + dense (Frobenius for dense)."""
    bound = float(quadratic.alpha)
    if quadratic.diagonal is not None:
        bound += float(np.max(quadratic.diagonal, initial=0.0))
    if quadratic.dense is not None:
        bound += float(np.linalg.norm(quadratic.dense))
    return bound


def descent_rate(problem: VerifiedProblem, lam: float, extra_reg: float, norm_bound: float) -> DescentRate | None:
    """The public :class:`DescentRate` of the smooth path for this problem, or None where no budget is proved:
    a loss without a proved finite L or c (a loss of the residual over unbounded residuals, the squared error's,
    has L = inf: then G_0 = L R and the target are infinite and the budget was NaN, refused as a bare ValueError by
    ``fit_nonprivate``), a regularizer that is not quadratic, or J_b not strongly convex.

    ``lam`` and ``extra_reg`` are the solver's (already scaled to the rows, as :meth:`SolverChoice.solve`
    scales them); ``norm_bound`` is R after clipping (the intercept feature included)."""
    certificate = problem.certificate
    quadratic = problem.smooth_quadratic if problem.kst12 else problem.quadratic
    if (quadratic is None or problem.derivatives is None or certificate.lipschitz is None
            or certificate.curvature is None or certificate.strong_convexity is None
            or not math.isfinite(problem.lipschitz) or not math.isfinite(problem.curvature)):
        return None
    mu = (lam * problem.strong_convexity + extra_reg) * (1 - _SLACK)
    if not mu > 0:
        return None
    beta = (problem.curvature * norm_bound ** 2 + lam * _largest_eigenvalue(quadratic) + extra_reg) * (1 + _SLACK)
    nonsmooth = NonsmoothPart(problem.l1_weight * (1 + _SLACK), tuple((indices, weight * (1 + _SLACK))
                                                                       for indices, weight in problem.groups),
                              problem.constraint_set, problem.dim) if problem.kst12 else None
    return DescentRate(mu=mu, beta=max(beta, mu), gradient_bound=problem.lipschitz * norm_bound * (1 + _SLACK),
                       quadratic=quadratic, lam=lam, extra_reg=extra_reg, nonsmooth=nonsmooth)
