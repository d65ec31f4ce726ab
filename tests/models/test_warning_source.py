"""Every warning of a fit that names its source names the class the user called: an estimator's fit runs a
PrivateERM inside it, whose warnings (ConstantPredictionWarning, TrainingRowsWarning) name the estimator; PrivateERM
only when the user called PrivateERM."""

import re
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx import PrivateERM
from dpcvx.exceptions import ConstantPredictionWarning, DPCVXWarning, TrainingRowsWarning

SOURCE = re.compile(r"^([A-Za-z]+): ")
CLASSIFIERS = (dpcvx.DPLogisticRegression, dpcvx.DPHuberSVM, dpcvx.DPERMClassifier)
REGRESSORS = (dpcvx.DPLinearRegression, dpcvx.DPHuberRegressor)


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)) / 4
    return X, rng


def _warned(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [(w.category, str(w.message)) for w in caught if issubclass(w.category, DPCVXWarning)]


def _sources(caught):
    return {match.group(1) for _, text in caught if (match := SOURCE.match(text))}


@pytest.mark.parametrize("estimator", CLASSIFIERS)
@pytest.mark.parametrize("classes", [(0, 1), (0, 1, 2)])
def test_a_classifier_fit_names_the_estimator(rows, estimator, classes):
    X, rng = rows
    y = np.where(np.random.default_rng(5).random(300) < 0.97, classes[-1], classes[0])  # binary: a constant release
    caught = _warned(lambda: estimator(classes=classes, epsilon=1.0, fit_intercept=True,
                                       random_state=0).fit(X, y))
    assert (ConstantPredictionWarning in {category for category, _ in caught}) == (len(classes) == 2)
    assert _sources(caught) == {estimator.__name__}


@pytest.mark.parametrize("estimator", REGRESSORS)
def test_a_regressor_fit_names_the_estimator(rows, estimator):
    X, rng = rows
    caught = _warned(lambda: estimator(epsilon=0.01, random_state=0).fit(X, X[:, 0]))
    assert caught and _sources(caught) == {estimator.__name__}


def test_private_erm_names_itself(rows):
    X, _ = rows
    y = np.where(np.random.default_rng(5).random(300) < 0.97, 1, -1)
    caught = _warned(lambda: PrivateERM(loss="logistic", lam=0.01, data_norm=1.0, fit_intercept=True).fit(
        X, y, epsilon=1.0, random_state=0))
    assert {ConstantPredictionWarning, TrainingRowsWarning} <= {category for category, _ in caught}
    assert _sources(caught) == {"PrivateERM"}


def test_a_planned_fit_names_the_estimator(rows):
    X, _ = rows
    y = np.where(np.random.default_rng(5).random(300) < 0.97, 1, 0)
    estimator = dpcvx.DPHuberSVM(epsilon=1.0, fit_intercept=True)
    caught = _warned(lambda: estimator.plan(X, y).fit(X, y, random_state=0))
    assert ConstantPredictionWarning in {category for category, _ in caught}
    assert _sources(caught) == {"DPHuberSVM"}
