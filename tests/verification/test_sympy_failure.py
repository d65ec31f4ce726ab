"""sympy failing in the caller's process is no crash of the verifier: the step's route is not taken, and the loss is
refused (typed, naming the condition and a fix) or settled by another route, before any charge.

Probe A of session 65 (F2): for cp.max of logistic(-z) and logistic(-z) +- 1e-9 z, Piecewise's rewrite of the
maximum recursed without end in LossAnalyser.numeric, and dpcvx.verify and PrivateERM.fit raised a bare
RecursionError. The other sympy steps of the caller's process (the loss's form, the domain's forms, the
derivatives' code, a regression loss's residual proof, the endpoint slope of a constrained regression) are checked
here with a step made to raise.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import AssumptionError, DPCVXError
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.verification import loss_analysis, prediction_loss, verifier

pytestmark = pytest.mark.usefixtures("uncached_verifier")  # tests/verification/conftest.py


def _data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(200, 2))
    return X, np.where(X[:, 0] > 0, 1, -1)


def _recursion(*args, **kwargs):
    raise RecursionError("maximum recursion depth exceeded")


def near_maximum(z):
    """The probe's loss: logistic(-z) + 1e-9 |z| as a maximum of three smooth branches."""
    return cp.max(cp.hstack([cp.logistic(-z), cp.logistic(-z) + 1e-9 * z, cp.logistic(-z) - 1e-9 * z]))


def steep(z):
    """1.3 logistic(-z / 3): not in the shipped catalogue, so analysed here (L = 13/30, c = 13/360)."""
    return 1.3 * cp.logistic(-z / 3)


@pytest.mark.slow  # about 7 s: the default run on a bare clone must stay within 5 minutes
def test_the_probes_maximum_is_refused_typed_before_any_charge():
    certificate = dpcvx.verify(near_maximum, dim=2)  # returned, not raised
    assert not certificate.allows("output") and not certificate.allows("objective")
    X, y = _data()
    accountant = PrivacyAccountant(5.0)
    with pytest.raises(DPCVXError) as refused:
        dpcvx.PrivateERM(loss=near_maximum, lam=0.1, data_norm=1.0).fit(X, y, 1.0, "output", random_state=0,
                                                                        accountant=accountant)
    assert "differentiability" in str(refused.value) and "fix" in str(refused.value).lower()
    assert accountant.spent.epsilon == 0


def test_sympy_failing_on_the_loss_form_leaves_no_sympy_route(monkeypatch):
    """The loss's form (to_sympy) raising: no symbolic or validated route, the conditions not proved, and a fit
    refused with them, typed and before the charge."""
    monkeypatch.setattr(loss_analysis, "to_sympy", _recursion)
    verified = verifier.verify_loss(steep)
    lipschitz = next(c for c in verified.conditions if c.name == "lipschitz")
    assert lipschitz.method not in ("symbolic", "validated")
    assert "sympy could not build the loss's form (RecursionError" in lipschitz.detail
    X, y = _data()
    accountant = PrivacyAccountant(5.0)
    with pytest.raises(AssumptionError):
        dpcvx.PrivateERM(loss=steep, lam=0.1, data_norm=1.0).fit(X, y, 1.0, "output", random_state=0,
                                                                 accountant=accountant)
    assert accountant.spent.epsilon == 0


def test_sympy_failing_on_the_grid_form_or_the_derivatives_code_falls_back(monkeypatch):
    """The grid's rewrite (lambdify) and the derivatives' code (numpy_code) raising: CVXPY evaluates the loss on the
    grid, the generic solver goes without derivatives, and the proofs (in the worker) stand: the fit releases."""
    monkeypatch.setattr(loss_analysis, "lambdify", _recursion)
    monkeypatch.setattr(loss_analysis, "numpy_code", _recursion)
    verified = verifier.verify_loss(steep, time_limit=60)
    assert verified.derivatives is None
    conditions = {c.name: c for c in verified.conditions}
    assert conditions["lipschitz"].passed and conditions["lipschitz"].method in ("symbolic", "validated")
    analyser = loss_analysis.LossAnalyser(steep, *verifier.declared_loss(steep), verifier.verification_budget(60))
    assert analyser.numeric.finite  # the grid evaluated by CVXPY
    X, y = _data()
    learner = dpcvx.PrivateERM(loss=steep, lam=0.1, data_norm=1.0)
    with pytest.raises(dpcvx.InputError, match="conic path alone"):  # no derivatives: the conic path alone (7.1)
        learner.fit(X, y, 1.0, "output", random_state=0)
    assert np.all(np.isfinite(learner.fit_nonprivate(X, y).coef_))


def test_sympy_failing_on_a_regression_loss_is_a_typed_refusal(monkeypatch):
    monkeypatch.setattr(prediction_loss, "_of_residual", _recursion)
    with pytest.raises(AssumptionError, match="sympy failed on its form"):
        prediction_loss.residual_loss(lambda p, y: cp.huber(p - y, 1))


def test_sympy_failing_on_the_endpoint_slope_gives_no_slope(monkeypatch):
    from dpcvx.verification import bounded_residual, translate

    problem = verifier.verify_problem(lambda r: cp.square(r) / 2, None, dim=2)
    assert bounded_residual._endpoint_slope(problem, 2.0) == 2
    monkeypatch.setattr(translate, "to_sympy", _recursion)
    assert bounded_residual._endpoint_slope(problem, 2.0) is None
