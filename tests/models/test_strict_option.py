"""``strict`` acts only with ``allow_estimates``: where it cannot act it is not taken, or it is refused.

Audit: the scikit-learn estimators took ``strict`` but not ``allow_estimates`` (they never accept an estimated
constant), so it did nothing there, silently; ``PrivateERM(strict=True)`` and ``dpcvx.verify(..., strict=True)``
without ``allow_estimates=True`` did nothing either. The estimators no longer take it (get_params, set_params and
clone keep working), and strict=True without allow_estimates=True is refused before anything is charged.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.base import clone

import dpcvx
from dpcvx.sklearn import classifiers, regressors

ESTIMATORS = [value for module in (classifiers, regressors) for name, value in vars(module).items()
              if inspect.isclass(value) and value.__module__ == module.__name__ and not name.startswith("_")
              and hasattr(value, "get_params")]


def test_every_estimator_is_checked():
    assert {cls.__name__ for cls in ESTIMATORS} >= {"DPERMClassifier", "DPLogisticRegression", "DPHuberSVM",
                                                      "DPLinearRegression", "DPHuberRegressor"}


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_no_estimator_takes_strict_or_allow_estimates(estimator):
    model = estimator()
    assert not {"strict", "allow_estimates"} & set(model.get_params())
    with pytest.raises(TypeError, match="strict"):
        estimator(strict=True)
    with pytest.raises(ValueError, match="strict"):  # scikit-learn's refusal of an unknown parameter
        model.set_params(strict=True)
    assert clone(model).get_params() == model.get_params()


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, np.where(X[:, 0] > 0, 1, -1)


def test_strict_without_allow_estimates_is_refused_before_the_charge():
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0)
    with pytest.raises(dpcvx.InputError, match="strict=True alone changes nothing"):
        dpcvx.PrivateERM(data_norm=1.0, strict=True).fit(X, y, 0.5, accountant=accountant)
    assert accountant.spent.epsilon == 0
    with pytest.raises(dpcvx.InputError, match="allow_estimates=True"):
        dpcvx.verify(dpcvx.losses.logistic(), strict=True)
    both = dpcvx.verify(dpcvx.losses.logistic(), strict=True, allow_estimates=True)
    assert both.strict and both.allows("objective")
    dpcvx.PrivateERM(data_norm=1.0, strict=True, allow_estimates=True).fit(X, y, 0.5, random_state=0)
