"""An estimator's plan holds the estimator as planned: a set_params after planning changes neither what the plan
checked nor what its fits release. The plan held the estimator itself, so an invalid fit_intercept set after planning
was refused only after the charge (the failure rule's "cannot happen" path), and another epsilon gave a model whose
parameters its release did not have (an attacker probe, sixty-sixth session)."""

import numpy as np
import pytest

import dpcvx
from dpcvx.sklearn import DPHuberRegressor, DPLogisticRegression


def _rows(seed=8, n=2000):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * 1.01
    return X, X[:, 0]


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")  # 2,000 rows at epsilon 5: not the point
@pytest.mark.parametrize("make, labels", [
    (lambda: DPHuberRegressor(epsilon=5.0, random_state=0), lambda y: np.clip(y, -1, 1)),
    (lambda: DPLogisticRegression(epsilon=5.0, random_state=0), lambda y: (y > 0).astype(int)),
])
def test_a_plan_fits_the_parameters_it_was_made_with(make, labels):
    X, y = _rows()
    y = labels(y)
    estimator = make()
    plan = estimator.plan(X, y)
    estimator.set_params(fit_intercept="yes", epsilon=1.0)  # after planning: the plan keeps its own
    accountant = dpcvx.PrivacyAccountant(100.0, 1e-3)
    fitted = plan.fit(X, y, random_state=0, accountant=accountant)
    assert accountant.spent.epsilon == pytest.approx(5.0)
    assert fitted.epsilon == 5.0 and fitted.fit_intercept is True and fitted.model_.epsilon == pytest.approx(5.0)
    assert estimator.epsilon == 1.0 and estimator.fit_intercept == "yes"  # the user's object is as they set it
