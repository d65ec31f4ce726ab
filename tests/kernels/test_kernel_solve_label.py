"""The kernel solve's method label: the curator's NOT PRIVATE SolveReport names what ran (the hinge's interior point
alone, or the interior point and then FISTA, which depends on the private data); no release states either (a release
holds public inputs and privatised values only), so the releases of neighbouring data sets where different dual
solvers ran differ only in their privatised values."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpcvx.data.kernels import RBFKernel
from dpcvx.exceptions import SolverError
from dpcvx.models.release_audit import release_diff
from dpcvx.models.tddl import TDDL
from dpcvx.privacy.kernel_calibrate import solve_tolerance
from dpcvx.release.serialization import model_to_dict
from dpcvx.solvers import kernel as kernel_module
from dpcvx.solvers.kernel import solve_kernel_erm
from dpcvx.verification.kernel_loss import resolve_loss

HINGE = resolve_loss("hinge")


def _rows(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2)) / np.sqrt(2)
    return X, np.where((X ** 2).sum(axis=1) < 0.25, 1.0, -1.0)


def _solve(n: int = 40, lam: float = 0.1, tolerance: float | None = None):
    X, y = _rows(n, 0)
    tolerance = solve_tolerance(n, lam, 1.0, 1.0) if tolerance is None else tolerance
    return solve_kernel_erm(RBFKernel(2.0).gram(X, X), y, lam, HINGE, tolerance, 1.0).report


def test_report_names_the_interior_point_when_it_certified():
    report = _solve()
    assert report.method == "dual interior point" and report.distance_bound <= report.tolerance


@pytest.mark.parametrize("limit", [0, 2])
def test_report_names_the_fallback_when_it_ran(monkeypatch, limit):
    # on main: "dual interior point", though FISTA produced the certified point
    monkeypatch.setattr(kernel_module, "MAX_INTERIOR_POINT_STEPS", limit)
    report = _solve()
    assert report.method == "dual interior point+FISTA"
    assert report.distance_bound <= report.tolerance and report.iterations > limit


def test_failure_names_no_solver_that_ran():
    # a tolerance no arithmetic reaches: the interior point and then FISTA ran. Which ran depends on the data, and the
    # error is raised after a learner's charge (the command line prints it): its text names neither (P6 F2, session 71)
    with pytest.raises(SolverError, match="^the kernel ERM could not certify") as caught:
        _solve(tolerance=0.0)
    assert "interior point" not in str(caught.value) and "FISTA" not in str(caught.value)


def test_releases_of_neighbours_with_different_dual_solvers_differ_only_in_privatised_values(monkeypatch):
    X, y = _rows(60, 1)
    Z, _ = _rows(15, 2)
    neighbour_X, neighbour_y = X.copy(), y.copy()
    neighbour_X[0], neighbour_y[0] = [0.05, -0.05], -y[0]

    def fit(rows, labels):
        learner = TDDL("rbf", gamma=2.0, lam=0.1, loss="hinge", span="training")
        return learner, learner.fit(rows, labels, 1.0, Z=Z, random_state=3)

    one, first = fit(X, y)
    monkeypatch.setattr(kernel_module, "MAX_INTERIOR_POINT_STEPS", 1)  # the neighbour's solve takes the fallback
    two, second = fit(neighbour_X, neighbour_y)
    assert one.diagnostics_["solve_report"].method == "dual interior point"
    assert two.diagnostics_["solve_report"].method == "dual interior point+FISTA"
    assert release_diff(first, second) == []
    assert str(first.certificate) == str(second.certificate)
    for release in (first, second):
        text = json.dumps(model_to_dict(release), sort_keys=True).lower() + str(release).lower()
        for word in ("interior", "fista", "newton", "closed form", "solve_report"):
            assert word not in text, word
