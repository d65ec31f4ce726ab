"""Proximal Newton for composite objectives: L1 or group norms and/or a constraint set (KST12 problems).

    F(w) = f(w) + g(w),   f = n J_b for the smooth part (loss, quadratic part of N, noise, ridge),
                          g(w) = kappa ||w||_1 + sum_g kappa_g ||w_g||_2 + indicator of C
                          (kappa = n Lam a, kappa_g = n Lam b_g for N = a ||w||_1 + sum_g b_g ||w_g||_2 + ...)

with C a ball or a box (:class:`~dpcvx.verification.constraints.ConstraintSet`) and
disjoint groups g. The proximal map of g is exact: soft-thresholding, then block
soft-thresholding of each group (the sparse-group-lasso composition), then the
projection onto C (coordinatewise for a box, which the verifier allows with the L1
term only; for a ball the projection of the thresholded point is the proximal map of
the sum, because thresholding keeps directions and a ball projection only rescales,
and a norm's subdifferential does not change under positive scaling; docs/theory.md,
section 14).

Each outer step minimises the quadratic model
``grad^T (z - w) + (z - w)^T H (z - w) / 2 + g(z)`` by accelerated proximal
gradient (FISTA with adaptive restart; Beck and Teboulle 2009, O'Donoghue and
Candes 2015), then a backtracking line search on F along z - w (Lee, Sun and
Saunders 2014). H is the exact Hessian of f (dense for d <= 400, else through
Hessian-vector products).

**The optimality certificate.** For any w and t > 0, w+ = prox_{t g}(w - t grad f(w))
satisfies (w - w+)/t - grad f(w) in the subdifferential of g at w+, so

    s = grad f(w+) + (w - w+) / t - grad f(w)   is a subgradient of F at w+.

The solver returns w+ once ||s|| <= gamma / 2, the public bound. F is
mu-strongly convex (mu = n (Lam m + Delta) > 0), and 0 is a subgradient at the
minimiser w*, so ||w+ - w*|| <= ||s|| / mu: the same distance the smooth path's
||grad F|| <= gamma / 2 guarantees, covered by the same approximate-minimiser
noise (docs/theory.md, sections 7 and 14). w+ lies in C by construction.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from ..verification.constraints import ConstraintSet
from .linear import DENSE_NEWTON_MAX_DIM, FLAT_DECREASE, SolveInfo
from .objective import PerturbedObjective

__all__ = ["proximal_newton", "CompositeTerm"]

INNER_ITERATIONS = 5000
STALL_OUTER = 6


class CompositeTerm:
    """g(w) = kappa ||w||_1 + sum_g kappa_g ||w_g||_2 + indicator of C, with its exact proximal map.

    ``groups`` are (coordinates, kappa_g) over disjoint coordinate sets. The map is
    soft-thresholding, then block soft-thresholding of each group, then the
    projection onto C (no groups with a box: the verifier refuses that pair).
    """

    def __init__(self, kappa: float, constraint: ConstraintSet | None,
                 groups: tuple[tuple[np.ndarray, float], ...] = ()) -> None:
        self.kappa = float(kappa)
        self.constraint = constraint
        self.groups = tuple((np.asarray(indices, dtype=np.intp), float(weight)) for indices, weight in groups)

    def value(self, w: np.ndarray) -> float:
        return self.kappa * float(np.abs(w).sum()) + sum(weight * float(np.linalg.norm(w[indices]))
                                                         for indices, weight in self.groups)

    def prox(self, v: np.ndarray, t: float) -> np.ndarray:
        """argmin_z g(z) + ||z - v||^2 / (2 t)."""
        threshold = t * self.kappa
        z = np.sign(v) * np.maximum(np.abs(v) - threshold, 0.0) if threshold > 0 else v
        if t > 0 and self.groups:
            z = z.copy()
            for indices, weight in self.groups:
                norm = float(np.linalg.norm(z[indices]))
                z[indices] *= max(0.0, 1.0 - t * weight / norm) if norm > 0 else 0.0
        return z if self.constraint is None else self.constraint.project(z)


def _top_eigenvalue(matvec: Callable[[np.ndarray], np.ndarray], d: int) -> float:
    """An upper estimate of lambda_max of a PSD operator (power iteration, padded by 10%)."""
    v = np.linspace(1.0, 2.0, d)  # a fixed start with no symmetry: the estimate is only a step size
    v /= np.linalg.norm(v)
    estimate = 0.0
    for _ in range(50):
        u = matvec(v)
        norm = float(np.linalg.norm(u))
        if norm == 0:
            return 1.0
        if abs(norm - estimate) <= 1e-3 * norm:
            estimate = norm
            break
        estimate, v = norm, u / norm
    return 1.1 * estimate


def _model_minimiser(gradient: np.ndarray, matvec: Callable[[np.ndarray], np.ndarray], w: np.ndarray,
                     g: CompositeTerm, step: float, start: np.ndarray, tolerance: float) -> np.ndarray:
    """FISTA with adaptive restart on q(z) = grad^T (z - w) + (z - w)^T H (z - w) / 2 + g(z)."""
    z = start.copy()
    y, momentum = z.copy(), 1.0
    for _ in range(INNER_ITERATIONS):
        model_gradient = gradient + matvec(y - w)
        z_next = g.prox(y - step * model_gradient, step)
        mapping = (y - z_next) / step
        if float(np.linalg.norm(mapping)) <= tolerance:
            return z_next
        restart = float(mapping @ (z_next - z)) > 0  # the model went up: drop the momentum
        next_momentum = 1.0 if restart else (1 + np.sqrt(1 + 4 * momentum * momentum)) / 2
        y = z_next if restart else z_next + ((momentum - 1) / next_momentum) * (z_next - z)
        z, momentum = z_next, next_momentum
    return z


def _hessian_operator(objective: PerturbedObjective, w: np.ndarray,
                      margins: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """v -> H v for the Hessian of f at w: a dense matrix for d <= 400, Hessian-vector products beyond."""
    if objective.dim <= DENSE_NEWTON_MAX_DIM:
        upper = objective.hessian(w, margins)
        H = np.triu(upper) + np.triu(upper, 1).T
        return lambda v: H @ v
    return lambda v: objective.hessian_vector(w, v, margins)


def proximal_newton(objective: PerturbedObjective, g: CompositeTerm, *, gradient_tolerance: float,
                    max_iter: int = 100, w0: np.ndarray | None = None, beta: float | None = None,
                    mu: float | None = None) -> tuple[np.ndarray, SolveInfo]:
    """Minimise f + g (module docstring); stop at a point with a subgradient of norm <= gradient_tolerance / 2.

    ``beta`` (the public smoothness of J_b, :class:`dpcvx.solvers.budget.DescentRate`) turns on the safeguard that
    gives proximal gradient's proved rate (:mod:`dpcvx.solvers.budget`, "The composite path"): at each iterate w
    the step T(w) = prox_{t g}(w - t grad f(w)), t = 1 / (n beta), whose certificate is at most 2 n beta
    ||w - T(w)||, is a stopping test of its own, and an iteration whose Newton point decreases F by less than
    T's guaranteed Q(w) (or finds none) takes the lower of it and T(w). Once Newton's steps stall, the solve goes on
    by V-FISTA from that iterate (``mu`` the public strong convexity of J_b: its momentum; without it, T's plain
    steps). With ``max_iter`` the proved budget (both phases) no data set can make the solve stop short of the bound
    (docs/theory.md, section 7.1)."""
    start_time = time.perf_counter()
    d, n = objective.dim, objective.n
    w = g.prox(np.zeros(d) if w0 is None else np.asarray(w0, dtype=float), 0.0)
    target = 0.5 * gradient_tolerance
    status, iterations, best, since_best = "max_iter", 0, np.inf, 0
    subgradient_norm, scale = np.inf, 1.0
    released = w
    newton_steps = True  # until a proved solve's Newton steps stall: then V-FISTA's steps alone
    extrapolated = w  # V-FISTA's y, from the point where Newton's steps stalled
    momentum = 0.0 if beta is None or mu is None else (math.sqrt(beta / mu) - 1) / (math.sqrt(beta / mu) + 1)
    while iterations < max_iter:
        iterations += 1
        margins = objective.margins(w)
        gradient = objective.gradient(w, margins)
        safe: tuple[np.ndarray, float] | None = None  # (T(w), its guaranteed decrease Q(w)) of a proved solve
        bound = np.inf
        if beta is not None:
            t = 1.0 / (n * beta)
            proximal = g.prox(w - t * gradient, t)
            move = proximal - w
            bound = 2.0 * float(np.linalg.norm(move)) / t  # >= the norm of T(w)'s certificate
            safe = proximal, -(float(gradient @ move) + float(move @ move) / (2 * t) + g.value(proximal) - g.value(w))
            if not newton_steps and bound > target:  # V-FISTA from where Newton's steps stalled (module docstring)
                following = g.prox(extrapolated - t * objective.gradient(extrapolated), t)
                extrapolated = following + momentum * (following - w)
                w = following
                continue
        norm = np.inf
        if newton_steps:
            matvec = _hessian_operator(objective, w, margins)
            step = 1.0 / _top_eigenvalue(matvec, d)
            # the certificate at w: a subgradient of F at w+ (module docstring)
            candidate = g.prox(w - step * gradient, step)
            subgradient = objective.gradient(candidate) + (w - candidate) / step - gradient
            norm = float(np.linalg.norm(subgradient))
            scale = max(float(np.linalg.norm(gradient)), float(np.linalg.norm((w - candidate) / step)), 1e-300)
            if norm < subgradient_norm:
                released, subgradient_norm = candidate, norm
            if norm <= target:
                released, subgradient_norm, status = candidate, norm, "converged"
                break
        if safe is not None and bound <= target:  # T(w)'s certificate, bounded: the budget's stopping test
            released, subgradient_norm, status = safe[0], bound, "converged"
            scale = max(float(np.linalg.norm(gradient)), bound / 2, 1e-300)
            break
        if norm < 0.5 * best:
            best, since_best = norm, 0
        else:
            since_best += 1
            if since_best >= STALL_OUTER and safe is not None:  # the proved solve runs on, on V-FISTA's steps
                newton_steps, extrapolated = False, w
                continue
            if since_best >= STALL_OUTER:
                status = "stalled"
                break
        z = _model_minimiser(gradient, matvec, w, g, step, candidate, tolerance=0.1 * min(norm, best))
        direction = z - w
        value = objective.value(w, margins) + g.value(w)
        decrease = float(gradient @ direction) + g.value(z) - g.value(w)
        t = 1.0
        while t >= 1e-12:
            trial = w + t * direction
            trial_value = objective.value(trial) + g.value(trial)
            if trial_value <= value + 1e-4 * t * min(decrease, 0.0) or trial_value <= value:
                break
            if t == 1.0 and trial_value <= value + 1e-12 * abs(value):
                break  # near the optimum F is flat to round-off: the full Newton step is the right one
            t /= 2
        if safe is not None and (t < 1e-12 or (safe[1] > FLAT_DECREASE * abs(value) and value - trial_value < safe[1])):
            # Newton's point fell short of T(w)'s guaranteed decrease (compared where it is above F's round-off, as
            # on the smooth path: docs/theory.md, section 7.1, "Floating point"): the lower of the two
            safe_value = objective.value(safe[0]) + g.value(safe[0])
            if t < 1e-12 or safe_value <= trial_value:
                w = safe[0]
                continue
        if t < 1e-12:
            status = "line search failed"
            break
        w = g.prox(w + t * direction, 0.0) if g.constraint is not None else w + t * direction
    return released, SolveInfo(
        solver="proximal-newton",
        status=status,
        iterations=iterations,
        seconds=time.perf_counter() - start_time,
        gradient_norm=subgradient_norm,
        gradient_tolerance=gradient_tolerance,
        relative_residual=subgradient_norm / scale,
    )
