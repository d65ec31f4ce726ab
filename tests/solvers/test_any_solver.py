"""Approximate minimisers from any solver (issue 18, item 4): a user's CVXPY solve, checked and covered."""

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.models.audit import audit, canary_pair


def scs(program, w):
    program.solve(solver="SCS", eps_abs=1e-10, eps_rel=1e-10, max_iters=100_000)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, np.where(X[:, 0] + 0.2 * rng.normal(size=400) > 0, 1, -1)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_a_user_solver_is_checked_and_covered(data, delta):
    X, y = data
    learner = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, solver=scs)
    model = learner.fit(X, y, 1.0, delta=delta, random_state=0)
    info = learner.diagnostics_
    assert info.solver == "user solver" and info.converged
    calibration = model.certificate.calibration.to_dict()
    assert calibration["tol"] == dpcvx.privacy.calibrate.CONIC_TOL  # the default for a user solver
    assert calibration["amp_epsilon"] > 0  # the cover's share of epsilon, stated
    exact = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, tol=calibration["tol"]).fit(X, y, 1.0, delta=delta,
                                                                                 random_state=0)
    assert np.allclose(model.coef_, exact.coef_, atol=1e-3)


def test_a_user_solver_that_stops_early_is_refused_after_charging(data):
    X, y = data

    def sloppy(program, w):
        w.value = np.zeros(w.size)  # no solve at all

    accountant = dpcvx.PrivacyAccountant(5.0)
    with pytest.raises(dpcvx.SolverError, match="public"):
        dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, solver=sloppy).fit(X, y, 1.0, accountant=accountant)
    assert accountant.spent.epsilon == 1.0  # the solve ran on the private data


@pytest.mark.parametrize("kind", ["raises", "leaves w unset"])
def test_a_user_solver_that_fails_is_a_solver_error_naming_it(data, kind):
    """A user's solver raising an exception of its own (RuntimeError, KeyError) escaped untyped after the charge, and
    one leaving w.value None was reported as CLARABEL's status: both are the user's solver's SolverError, its text
    withheld (it ran on the data)."""
    X, y = data

    def failing(program, w):
        if kind == "raises":
            raise RuntimeError(f"diverged at {X[0, 0]!r}")

    with pytest.raises(dpcvx.SolverError, match="user's solver") as caught:
        dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, solver=failing).fit(X, y, 1.0, random_state=0)
    assert "CLARABEL" not in str(caught.value) and repr(X[0, 0]) not in str(caught.value)
    assert caught.value.__cause__ is None


def test_user_solvers_are_refused_for_kst12_problems_before_charging(data):
    X, y = data
    accountant = dpcvx.PrivacyAccountant(5.0)
    with pytest.raises(dpcvx.InputError, match="user solver"):
        dpcvx.PrivateERM(regularizer=lambda w: cp.norm1(w), data_norm=1.0, solver=scs).fit(
            X, y, 1.0, accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.slow
def test_audit_passes_a_loose_user_solver_within_the_public_bound():
    # SCS at modest precision with tol = 1e-3: a point far from the minimiser, within gamma / 2;
    # the cover's noise is calibrated for any such point
    def loose(program, w):
        program.solve(solver="SCS", eps_abs=1e-6, eps_rel=1e-6)

    learner = dpcvx.PrivateERM(lam=0.5, data_norm=1.0, solver=loose, tol=1e-3)
    report = audit(learner, 0.5, trials=300, neighbours=canary_pair(replacement="zero"), confidence=0.95,
                   fit_params={"mechanism": "objective"}, random_state=20)
    assert report.passed
