"""Containers that numpy's and scikit-learn's conversions misread are refused at every entry (an audit of input
containers): they read the values under a mask as data, an iterator as one value, and a float conversion drops an
imaginary part. The scikit-learn estimators fitted and predicted on the hidden values of a masked X, every regression
learner read a masked y, and the mathematical layer's regressions fitted on y.real, each without a word; a generator
X and a sparse y got scikit-learn's text ("Expected 2D array, got scalar array", a sparse y's fix redacted and blamed
on the features)."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError


def _data(n: int = 200):
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(n, 3))
    return X, (X[:, 0] > 0).astype(int), 0.5 * X[:, 0]


def _masked(values, index):
    masked = np.ma.masked_array(np.array(values, copy=True), mask=False)
    masked[index] = np.ma.masked
    return masked


ESTIMATORS = [(dpcvx.DPLogisticRegression, "labels"), (dpcvx.DPHuberSVM, "labels"),
              (dpcvx.DPERMClassifier, "labels"), (dpcvx.DPLinearRegression, "targets"),
              (dpcvx.DPHuberRegressor, "targets")]


@pytest.mark.parametrize("estimator, kind", ESTIMATORS, ids=[cls.__name__ for cls, _ in ESTIMATORS])
def test_an_estimator_refuses_a_masked_x_and_y_before_the_charge(estimator, kind):
    X, labels, targets = _data()
    y = labels if kind == "labels" else targets
    accountant = dpcvx.PrivacyAccountant(10.0, 1e-3)
    with pytest.raises(InputError, match="X is a masked array with masked"):
        estimator(random_state=0).fit(_masked(X, (5, 1)), y, accountant=accountant)
    with pytest.raises(InputError, match="y is a masked array with masked"):
        estimator(random_state=0).fit(X, _masked(y, 7), accountant=accountant)
    assert not accountant.ledger
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        fitted = estimator(random_state=0).fit(X, y)
    with pytest.raises(InputError, match="X is a masked array with masked"):
        fitted.predict(_masked(X, (5, 1)))
    no_mask = np.ma.masked_array(X, mask=False)  # a masked array with nothing masked is its values
    np.testing.assert_array_equal(fitted.predict(no_mask), fitted.predict(X))


def test_the_mathematical_layer_refuses_a_masked_y():
    X, labels, targets = _data()
    with pytest.raises(InputError, match="y is a masked array with masked"):
        dpcvx.PrivateLinearRegression(1.0, 1.0).fit(X, _masked(targets, 2), 1.0, 1e-6)
    with pytest.raises(InputError, match="y is a masked array with masked"):
        dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(X, _masked(2 * labels - 1, 2), epsilon=1.0)
    with pytest.raises(InputError, match="y is a masked array with masked"):
        dpcvx.PrivateERM(dpcvx.losses.huber_regression(), task="regression", lam=0.1, data_norm=1.0,
                         label_bound=1.0).fit(X, _masked(targets, 2), epsilon=1.0)


@pytest.mark.parametrize("fit", [
    lambda X, y: dpcvx.PrivateLinearRegression(1.0, 1.0).fit(X, y, 1.0, 1e-6),
    lambda X, y: dpcvx.PrivateERM(dpcvx.losses.huber_regression(), task="regression", lam=0.1, data_norm=1.0,
                                  label_bound=1.0).fit(X, y, epsilon=1.0),
    lambda X, y: dpcvx.DPLinearRegression(random_state=0).fit(X, y),
], ids=["PrivateLinearRegression", "PrivateERM", "DPLinearRegression"])
def test_complex_regression_targets_are_refused(fit):
    X, _, targets = _data()
    with pytest.raises(InputError, match="Complex data not supported: y has dtype complex128, and regression targets"):
        fit(X, targets + 5j)


@pytest.mark.parametrize("fit", [
    lambda X, y: dpcvx.DPLogisticRegression(random_state=0).fit(X, y),
    lambda X, y: dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(X, 2 * y - 1, epsilon=1.0),
    lambda X, y: dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0, classes=(0, 1)), X, y, {"lam": [0.1]}, epsilon=1.0),
], ids=["DPLogisticRegression", "PrivateERM", "tune"])
def test_an_iterator_x_is_refused_by_name(fit):
    X, labels, _ = _data()
    with pytest.raises(InputError, match=r"X is an iterator \(generator\), which can be read once only"):
        fit((row for row in X), labels)


def test_labels_in_a_sparse_matrix_are_refused_and_a_numpy_matrix_column_is_read_as_labels():
    import scipy.sparse

    X, labels, _ = _data()
    with pytest.raises(InputError, match=r"y is a sparse matrix; labels are one value a row"):
        dpcvx.DPLogisticRegression(random_state=0).fit(X, scipy.sparse.csr_matrix(labels[:, None]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        as_matrix = dpcvx.DPLogisticRegression(random_state=0).fit(X, np.asmatrix(labels).T)
        as_array = dpcvx.DPLogisticRegression(random_state=0).fit(X, labels)
    np.testing.assert_array_equal(as_matrix.coef_, as_array.coef_)
