"""The kernel Newton's proved budget (dpcvx.solvers.budget.kernel_budget): public constants only, respected by the
solver, and an upper bound on the safeguard's gradient descent, which every Newton step outdoes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcvx.data.kernels import RBFKernel
from dpcvx.privacy.kernel_calibrate import solve_tolerance
from dpcvx.solvers import kernel as kernel_module
from dpcvx.solvers.budget import kernel_budget, kernel_smoothness
from dpcvx.solvers.kernel import KernelERM, solve_kernel_erm
from dpcvx.verification.kernel_loss import resolve_loss


def _rows(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)


def test_budget_bounds_the_gradient_descent_of_the_safeguard():
    # the rate the budget takes (mu = lam, beta = lam + c R_phi^2, G_0 = L R_phi at beta = 0) holds for the
    # safeguard's step alone: after the budget, ||grad J||_H <= the target
    X, y = _rows(40, 1)
    loss, lam, n = resolve_loss("logistic"), 0.3, 40
    gram = RBFKernel(1.0).gram(X, X)
    target = 1e-6
    steps, smooth = kernel_budget(lam, loss.curvature, 1.0, 1.0, target), kernel_smoothness(lam, loss.curvature, 1.0)
    beta = np.zeros(n)
    for _ in range(steps):
        r = y * loss.derivatives.first(y * (gram @ beta)) / n + lam * beta
        beta = beta - r / smooth
    r = y * loss.derivatives.first(y * (gram @ beta)) / n + lam * beta
    assert math.sqrt(r @ gram @ r) <= target
    assert 5 < steps < 200


def test_budget_is_the_same_on_neighbouring_data_and_bounds_the_steps(monkeypatch):
    limits = []
    newton = kernel_module._newton

    def recording(*args, **kwargs):  # kwargs: the progress bar
        limits.append(args[-1])
        return newton(*args, **kwargs)

    monkeypatch.setattr(kernel_module, "_newton", recording)
    X, y = _rows(60, 2)
    loss, lam = resolve_loss("logistic"), 1e-3
    neighbour_X, neighbour_y = X.copy(), y.copy()
    neighbour_X[0], neighbour_y[0] = [3.0, -3.0, 0.0], -y[0]
    reports = [KernelERM(rows, labels, kernel=RBFKernel(1.0), loss=loss, lam=lam).report
               for rows, labels in ((X, y), (neighbour_X, neighbour_y))]
    tolerance = solve_tolerance(60, lam, 1.0, 1.0)
    assert limits[0] == limits[1] == kernel_budget(lam, 0.25, 1.0, 1.0, lam * tolerance / 2)
    assert all(report.iterations <= limits[0] for report in reports)


def test_safeguarded_newton_certifies_where_the_step_limit_stopped_it():
    # the Huber hinge at lam = 1e-8: where l'' = 0 at most margins Newton's damped steps crawl, and the step limit
    # of 100 raised SolverError after a learner's charge; the safeguarded solve (its gradient steps where Newton's
    # fall short) certifies within its proved budget, here after 73 steps
    X, y = _rows(100, 0)
    loss, lam = resolve_loss("huber_hinge"), 1e-8
    gram = RBFKernel(10.0).gram(X, X)
    tolerance = solve_tolerance(100, lam, 1.0, 1.0)
    solution = solve_kernel_erm(gram, y, lam, loss, tolerance, 1.0)
    assert solution.report.distance_bound <= tolerance
    assert solution.report.iterations <= kernel_budget(lam, loss.curvature, 1.0, 1.0, lam * tolerance / 2)


@pytest.mark.parametrize("limit", [1, 3])
def test_newton_stops_at_its_step_limit(limit):
    X, y = _rows(80, 3)
    loss = resolve_loss("logistic")
    gram = kernel_module.as_gram(RBFKernel(0.1).gram(X, X))
    _, steps, _ = kernel_module._newton(gram, y, 1e-6, loss.derivatives, 1e-12, loss.curvature,
                                        kernel_smoothness(1e-6, loss.curvature, 1.0), limit)
    assert steps == limit
