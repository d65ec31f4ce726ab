"""A map of private column statistics reads each row as the statistics read it: scaled onto ||x|| <= R first. The
statistics are released from the rows clipped onto R; the map read the raw rows, so on coded columns beyond R = 1
(Likert codes 1 to 5, years of schooling 1 to 16) every row was mapped onto one clipped corner and the default
classifier predicted one class (balanced accuracy 0.500 at epsilon 1 and 5, 0.70 with column_statistics=False), and
the regressors kept R^2 0.01 to 0.03 of 0.49 to 0.51 (a user's table, found by a probe of the defaults). Now a fit
on raw rows is the fit on the rows scaled onto R, the same noise drawn: the same weights, the same predictions."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.data.rows import RowMap


def _coded(n: int = 6000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Six Likert answers 1..5 and a year of schooling 1..16 (norms about 13), a logistic label."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(1, 6, (n, 6)), rng.integers(1, 17, n)]).astype(float)
    logit = -1.5 + 0.6 * (X[:, 0] - 3) - 0.5 * (X[:, 1] - 3) + 0.15 * (X[:, 6] - 8)
    return X, (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)


def _bills(n: int = 6000, seed: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Usage (gamma, mean 300), temperature (15 +- 8) and floor area (1500 +- 500): a bill in [0, 1000]."""
    rng = np.random.default_rng(seed)
    usage, temperature, area = rng.gamma(3, 100, n), rng.normal(15, 8, n), rng.normal(1500, 500, n).clip(300, 5000)
    y = (40 + 0.15 * usage + 0.03 * area - 2 * (temperature - 15) + rng.normal(0, 20, n)).clip(0, 1000)
    return np.column_stack([usage, temperature, area]), y


def _quiet_fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        return estimator.fit(X, y)


def _scaled(X: np.ndarray) -> np.ndarray:
    return RowMap(norm_bound=1.0).clip(X)[0]


@pytest.mark.parametrize("make, table, mechanism", [
    (lambda: dpcvx.DPLogisticRegression(epsilon=1.0, class_weight="balanced", random_state=0), _coded,
     "objective"),
    (lambda: dpcvx.DPLinearRegression(epsilon=1.0, label_bound=(0, 1000), random_state=0), _bills,
     "gradient-ranged"),
    (lambda: dpcvx.DPLinearRegression(epsilon=1.0, label_bound=(0, 1000), mechanism="adassp", random_state=0),
     _bills, "adassp-ranged"),
    (lambda: dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=(0, 1000), random_state=0), _bills, "objective"),
], ids=["logistic ranges", "gradient-ranged", "adassp-ranged", "huber ranges"])
def test_a_fit_on_rows_beyond_r_is_the_fit_on_the_rows_scaled_onto_r(make, table, mechanism):
    X, y = table()
    train, test = slice(0, 5000), slice(5000, None)
    raw, scaled = _quiet_fit(make(), X[train], y[train]), _quiet_fit(make(), _scaled(X[train]), y[train])
    assert raw.certificate_.mechanism.startswith(mechanism) and raw.certificate_.column_statistics is not None
    np.testing.assert_allclose(raw.coef_, scaled.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(raw.predict(X[test]), scaled.predict(_scaled(X[test])), rtol=1e-9, atol=1e-9)
    if "Regress" in type(raw).__name__:  # a useful model, as on the scaled rows (0.49 to 0.51; 0.01 to 0.03 before)
        assert raw.score(X[test], y[test]) > 0.4
    else:  # two classes predicted, balanced accuracy about 0.70 (one class, 0.500, before)
        predicted = raw.predict(X[test])
        recall = [np.mean(predicted[y[test] == label] == label) for label in (0, 1)]
        assert np.mean(recall) > 0.65
