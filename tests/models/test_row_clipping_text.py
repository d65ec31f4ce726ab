"""Rows beyond the norm bound: every learner's ClippingWarning gives the same count and the same fix (columns scaled
by public bounds with a PublicSchema); the regressors' said only the count, or less of the fix."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import ClippingWarning

# two raw ages: every row beyond R, neither column dominating a row (no column named: neither is an identifier)
COUNT = "of 2000 rows had norm above R = 1 and were scaled onto the bound (clip=True). NOT PRIVATE"
NAMED = "NOT PRIVATE: this count is shown to you only and is not part of the release."
FIX = ("To keep rows inside R, scale each column by bounds you know without looking at the data: dpcvx.PublicSchema "
       "with NumericColumn(name, low, high)")


@pytest.mark.parametrize("estimator", [
    lambda: dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0),
    lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, label_bound=10, mechanism="adassp", random_state=0),
    lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, label_bound=10, mechanism="gradient", random_state=0),
    lambda: dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=10, random_state=0),
], ids=["logistic", "adassp", "gradient", "huber"])
def test_row_clipping_names_the_fix(estimator):
    rng = np.random.default_rng(0)
    X = rng.uniform(20, 90, size=(2000, 2))   # raw ages: every row far beyond R = 1
    y = (X[:, 0] > 50).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator().fit(X, y)
    rows = [str(w.message) for w in caught if issubclass(w.category, ClippingWarning) and "rows" in str(w.message)]
    assert rows and all(COUNT in message and NAMED in message and FIX in message for message in rows), rows
