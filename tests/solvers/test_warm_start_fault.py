"""solver='cvxpy' is a proved path: the conic point is a warm start, and Newton polishes from the public start to its
proved budget. A fault of the conic solve must therefore never fail the fit after its charge (attacker probe P9 F1,
session 71): only CVXPY's own SolverError went to the public start; a ValueError became a SolverError after the
charge, and any other error reached the caller raw, with its text. The fault is simulated (no data found to trigger
one): every kind now releases, as CVXPY's own SolverError did."""

import cvxpy as cp
import numpy as np
import pytest

import dpcvx


def _rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    return X, np.where(X.sum(axis=1) > 0, 1, -1)


@pytest.mark.parametrize("fault", [cp.error.SolverError, ValueError, RuntimeError, ArithmeticError])
def test_a_conic_fault_falls_back_to_the_public_start_and_releases(monkeypatch, fault):
    X, y = _rows()

    def broken(self, *args, **kwargs):
        raise fault("secret 0.4242")

    monkeypatch.setattr(cp.Problem, "solve", broken)
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    model = dpcvx.PrivateERM("logistic", lam=1e-2, data_norm=1.0, solver="cvxpy").fit(
        X, y, epsilon=1.0, random_state=0, accountant=accountant)
    assert np.all(np.isfinite(model.coef_)) and accountant.spent == dpcvx.PrivacyCost(1.0, 0.0)
    assert "secret" not in str(model.certificate.to_dict())
