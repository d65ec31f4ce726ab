"""The hinge's dual solve runs to a proved budget (dpcvx.solvers.budget.dual_budget): where Mehrotra's interior point
has not certified the public tolerance within its step limit, accelerated projected gradient (FISTA) from its best
iterate certifies within a budget of public constants only, instead of a SolverError after the charge."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcvx.data.kernels import RBFKernel
from dpcvx.privacy.kernel_calibrate import solve_tolerance
from dpcvx.solvers import kernel as kernel_module
from dpcvx.solvers.budget import dual_budget, dual_smoothness
from dpcvx.solvers.kernel import KernelERM, solve_kernel_erm
from dpcvx.verification.kernel_loss import resolve_loss

HINGE = resolve_loss("hinge")


def _rows(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)


def _budget(n: int, lam: float) -> int:
    return dual_budget(lam, HINGE.pieces.a1, HINGE.pieces.a2, 1.0, solve_tolerance(n, lam, 1.0, 1.0) / 2)


@pytest.mark.parametrize(("n", "lam", "seed"), [(30, 0.1, 0), (60, 0.03, 1), (80, 0.1, 2)])
def test_fallback_alone_certifies_within_its_budget_from_a_poor_start(n, lam, seed):
    # FISTA from the corner u = a2 = 0 of the box (w = 0: every margin 0 on the wrong side of the kink 1), no
    # interior point
    X, y = _rows(n, seed)
    gram = kernel_module.as_gram(RBFKernel(1.0).gram(X, X))
    tolerance, budget = solve_tolerance(n, lam, 1.0, 1.0), _budget(n, lam)
    beta, steps, gap = kernel_module._dual_accelerated_gradient(
        gram, y, lam, HINGE.pieces, tolerance, np.full(n, HINGE.pieces.a2), dual_smoothness(lam, 1.0, n), budget)
    assert 0 < steps <= budget
    assert math.sqrt(2 * gap / lam) <= tolerance
    reference = solve_kernel_erm(gram, y, lam, HINGE, tolerance, 1.0)  # the interior point: the same minimiser
    gram_matrix = RBFKernel(1.0).gram(X, X)
    difference = beta - reference.coef
    assert math.sqrt(max(float(difference @ gram_matrix @ difference), 0.0)) <= 2 * tolerance


def test_budget_takes_public_constants_only_and_is_the_same_on_neighbouring_data(monkeypatch):
    limits = []
    fallback = kernel_module._dual_accelerated_gradient

    def recording(*args, **kwargs):  # kwargs: the progress bar
        limits.append(args[-1])
        return fallback(*args, **kwargs)

    monkeypatch.setattr(kernel_module, "_dual_accelerated_gradient", recording)
    monkeypatch.setattr(kernel_module, "MAX_INTERIOR_POINT_STEPS", 2)
    X, y = _rows(50, 3)
    neighbour_X, neighbour_y = X.copy(), y.copy()
    neighbour_X[0], neighbour_y[0] = [3.0, -3.0, 0.0], -y[0]
    reports = [KernelERM(rows, labels, kernel=RBFKernel(1.0), loss=HINGE, lam=0.1).report
               for rows, labels in ((X, y), (neighbour_X, neighbour_y))]
    assert limits[0] == limits[1] == _budget(50, 0.1)
    assert all(report.distance_bound <= report.tolerance for report in reports)
    # the rate: b^2 / g = 4 (a2 - a1)^2 n^2 / (SOLVE_RTOL^2 L^2), whatever lam and the data
    assert _budget(50, 0.1) == _budget(50, 1e-4) == pytest.approx(4e6 * 50 ** 2, rel=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("limit", [0, 1, 3])
def test_interior_point_cut_short_still_certifies(monkeypatch, limit):
    # on main: SolverError ("produced no finite duality gap" at 0, "could not certify" otherwise), after a charge
    monkeypatch.setattr(kernel_module, "MAX_INTERIOR_POINT_STEPS", limit)
    X, y = _rows(60, 4)
    lam = 0.05
    tolerance = solve_tolerance(60, lam, 1.0, 1.0)
    solution = solve_kernel_erm(RBFKernel(1.0).gram(X, X), y, lam, HINGE, tolerance, 1.0)
    assert solution.report.distance_bound <= tolerance
    assert limit < solution.report.iterations <= limit + _budget(60, lam)


def test_fallback_stops_at_the_rounding_floor_of_an_unreachable_tolerance():
    # a tolerance 10^-6 of the public one is below the certificate's rounding: the solve stops at the floor (a fixed
    # point of the iteration in doubles) long before its astronomical budget, and fails instead of running on
    X, y = _rows(40, 5)
    lam = 0.1
    gram = kernel_module.as_gram(RBFKernel(1.0).gram(X, X))
    tolerance = 1e-6 * solve_tolerance(40, lam, 1.0, 1.0)
    budget = dual_budget(lam, HINGE.pieces.a1, HINGE.pieces.a2, 1.0, tolerance / 2)
    _, steps, gap = kernel_module._dual_accelerated_gradient(
        gram, y, lam, HINGE.pieces, tolerance, np.full(40, -0.5), dual_smoothness(lam, 1.0, 40), budget)
    assert steps < 10 ** 5 < budget
    assert math.sqrt(2 * gap / lam) > tolerance
