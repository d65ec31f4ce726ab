"""A regressor's SmallTableWarning speaks of its score, not of a classifier's accuracy and rare classes."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import SmallTableWarning


def _small_table_messages(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [str(w.message) for w in caught if issubclass(w.category, SmallTableWarning)]


@pytest.mark.parametrize("estimator", [
    lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, label_bound=(0, 10), random_state=0),
    lambda: dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=(0, 10), random_state=0),
], ids=["DPLinearRegression", "DPHuberRegressor"])
def test_regressor_small_table_text(estimator):
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(120, 6)) / 3
    y = 5 + 4 * X[:, 0]
    (message,) = _small_table_messages(lambda: estimator().fit(X, y))
    assert "expect little of the non-private model's score (R^2)" in message
    assert "rare class" not in message and "accuracy" not in message


def test_classifier_small_table_text_unchanged():
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(120, 6)) / 3
    (message,) = _small_table_messages(
        lambda: dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, (X[:, 0] > 0).astype(int)))
    assert "model's accuracy (less still on a rare class, whose count replaces n)" in message
