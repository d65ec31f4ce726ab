"""A refusal of epsilon above objective perturbation's range (700 with delta > 0) advises only a value that is
accepted: where the loss's own conditions refuse objective perturbation at delta > 0 whatever the epsilon (the Huber
loss is piecewise C^2), the refusal is that verdict, naming the condition and its fix (output perturbation or
delta = 0), not "choose epsilon <= 700", which was then refused for the loss (analyst probe P5, session 68, finding
7). A C^2 loss keeps the limit, and its advised value is accepted. Nothing is charged."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import dpcvx
import dpcvx.sklearn as S
from dpcvx.exceptions import AssumptionError, BudgetLimitError, DPCVXError

QUIET = (dpcvx.exceptions.ClippingWarning, dpcvx.exceptions.NoiseDominatesWarning,
         dpcvx.exceptions.TrainingRowsWarning)


def _rows(n=600):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(n, 3))
    X /= np.linalg.norm(X, axis=1).max()
    return X, np.clip(X @ np.array([0.5, -0.5, 0.2]) + 0.05 * rng.normal(size=n), -1, 1)


def _advised(error):
    found = re.findall(r"choose epsilon <= ([0-9.e+]+)", str(error))
    return float(found[0]) if found else None


def _fit_or_error(make, epsilon, X, y):
    """The refusal of the estimator ``make(epsilon)``'s fit, or None when it released."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QUIET)
        try:
            make(epsilon).fit(X, y)
        except DPCVXError as error:
            return error
    return None


HUBER = [
    pytest.param(lambda eps: S.DPHuberRegressor(epsilon=eps, delta=1e-6, mechanism="objective", random_state=0),
                 id="huber-regressor"),
    pytest.param(lambda eps: S.DPHuberRegressor(epsilon=eps, delta=1e-6, mechanism="objective",
                                                column_statistics="ranges", random_state=0), id="huber-ranges"),
]


@pytest.mark.parametrize("make", HUBER)
@pytest.mark.parametrize("epsilon", [5000.0, 900.0])
def test_piecewise_loss_refused_by_its_verdict_not_a_limit(make, epsilon):
    X, y = _rows()
    error = _fit_or_error(make, epsilon, X, y)
    assert isinstance(error, AssumptionError) and not isinstance(error, BudgetLimitError)
    assert "twice_differentiability" in str(error) and "mechanism='output'" in str(error)
    assert _advised(error) is None
    # the same refusal within the range: the verdict is what refuses, at every epsilon
    assert isinstance(_fit_or_error(make, 1.0, X, y), AssumptionError)


def test_learner_regression_huber_refused_by_its_verdict():
    X, y = _rows()
    learner = dpcvx.PrivateERM(task="regression", loss="huber_regression", lam=0.01, data_norm=1.0, label_bound=1.0)
    accountant = dpcvx.PrivacyAccountant(1e6, 1e-3)
    for call in (lambda: learner.check_options(5000.0, delta=1e-6),
                 lambda: learner.fit(X, y, epsilon=5000.0, delta=1e-6, accountant=accountant)):
        with pytest.raises(AssumptionError, match="twice_differentiability") as caught:
            call()
        assert not isinstance(caught.value, BudgetLimitError)
    assert accountant.spent.epsilon == 0


def test_c2_loss_keeps_the_limit_and_its_advice_is_accepted():
    X, y = _rows()
    y = np.where(y > 0, 1, 0)

    def make(eps):
        return S.DPLogisticRegression(epsilon=eps, delta=1e-6, random_state=0)

    error = _fit_or_error(make, 5000.0, X, y)
    assert isinstance(error, BudgetLimitError)
    advised = _advised(error)
    assert advised == 700
    assert _fit_or_error(make, advised, X, y) is None


@pytest.mark.parametrize("statistics", [False, True])
def test_one_vs_rest_piecewise_loss_refused_by_its_verdict(statistics):
    binary = dpcvx.PrivateERM(loss="huber_hinge", lam=0.01, data_norm=1.0, column_statistics=statistics)
    learner = dpcvx.PrivateMulticlassERM(binary, classes=(0, 1, 2))
    with pytest.raises(AssumptionError, match="twice_differentiability") as caught:
        learner.check_options(5000.0, delta=1e-6)
    assert not isinstance(caught.value, BudgetLimitError)
