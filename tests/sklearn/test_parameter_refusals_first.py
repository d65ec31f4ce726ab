"""A refusal that depends on the parameters alone (the mechanism's, the budget's, the neighbour relation's) is made at
the estimator's entry, before its data is read, and
``check_params()`` makes the same one (the command line calls it before it opens a file). Each case is fitted on
rows holding a NaN: a fit that read the data first would refuse the NaN instead."""

import numpy as np
import pytest
from sklearn.base import RegressorMixin

import dpcvx
from dpcvx.exceptions import InputError

X_NAN = np.array([[0.1, np.nan], [0.2, 0.1], [0.0, 0.3], [0.1, 0.1]])
Y_REGRESSION = np.array([0.1, 0.2, 0.3, 0.4])
Y_CLASSES = np.array([0, 1, 0, 1])

CASES = [
    # a Gaussian mechanism at delta = 0: AdaSSP and noisy gradient descent
    (dpcvx.DPLinearRegression, dict(epsilon=1.0, delta=0.0, mechanism="adassp", label_bound=1.0), "pure epsilon"),
    (dpcvx.DPLinearRegression, dict(epsilon=1.0, delta=0.0, mechanism="gradient", label_bound=1.0), "pure epsilon"),
    # float_safe without a floating-point-safe form
    (dpcvx.DPLinearRegression, dict(epsilon=1.0, delta=1e-6, float_safe=True, label_bound=1.0), "float_safe"),
    # least squares on the ball without its public radius, or under add/remove
    (dpcvx.DPLinearRegression, dict(epsilon=1.0, mechanism="objective", label_bound=1.0), "weight_bound"),
    (dpcvx.DPLinearRegression, dict(epsilon=1.0, mechanism="objective", weight_bound=2.0, label_bound=1.0,
                                    neighbours="add-remove"), "replace-one"),
    (dpcvx.DPLinearRegression, dict(epsilon=1.0, mechanism="objective", weight_bound=2.0, label_bound=1.0,
                                    column_statistics=True), "column_statistics"),
    # the learner's neighbour relation and budget: n_public under add-remove, none under replace-one, delta < 1/n
    (dpcvx.DPHuberRegressor, dict(epsilon=1.0, delta=1e-6, neighbours="add-remove", label_bound=1.0), "n_public"),
    (dpcvx.DPHuberRegressor, dict(epsilon=1.0, n_public=100, label_bound=1.0), "n_public is for"),
    (dpcvx.DPHuberRegressor, dict(epsilon=1.0, delta=0.5, neighbours="add-remove", n_public=100, label_bound=1.0),
     "not below 1/n"),
    (dpcvx.DPLogisticRegression, dict(epsilon=1.0, delta=1e-6, mechanism="output", neighbours="add-remove"),
     "n_public"),
    (dpcvx.DPLogisticRegression, dict(epsilon=1.0, n_public=100), "n_public is for"),
    (dpcvx.DPERMClassifier, dict(epsilon=1.0, delta=0.5, mechanism="output", neighbours="add-remove", n_public=100),
     "not below 1/n"),
    (dpcvx.DPLogisticRegression, dict(epsilon=1.0, n_public=100, classes=(0, 1, 2)), "n_public is for"),
    # an unknown mechanism, refused naming every choice the estimator takes (DPHuberRegressor left out its default
    # 'auto'), in the one wording of a refused choice
    (dpcvx.DPHuberRegressor, dict(epsilon=1.0, mechanism="bogus"),
     r"^mechanism must be one of 'auto', 'output', 'objective'; got 'bogus'$"),
    (dpcvx.DPLinearRegression, dict(epsilon=1.0, mechanism="bogus"),
     r"^mechanism must be one of 'auto', 'adassp', 'objective', 'gradient'; got 'bogus'$"),
    (dpcvx.DPLogisticRegression, dict(epsilon=1.0, mechanism="bogus"),
     r"^mechanism must be one of 'output', 'objective'; got 'bogus'$"),
]


@pytest.mark.parametrize("estimator, params, message", CASES)
def test_a_parameter_refusal_comes_before_the_data(estimator, params, message):
    with pytest.raises(InputError, match=message) as at_check:
        estimator(**params).check_params()
    labels = Y_REGRESSION if issubclass(estimator, RegressorMixin) else Y_CLASSES
    with pytest.raises(InputError, match=message) as at_fit:
        estimator(**params).fit(X_NAN, labels)
    assert str(at_fit.value) == str(at_check.value)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
def test_the_fits_themselves_still_run():
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(200, 2))
    y = X @ np.array([0.5, -0.3])
    dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, label_bound=1.0, random_state=0).fit(X, y)
    dpcvx.DPLinearRegression(epsilon=1.0, mechanism="objective", weight_bound=2.0, label_bound=1.0,
                             random_state=0).fit(X, y)
