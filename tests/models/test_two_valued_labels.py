"""A regression fitted on a label of two values is told to fit a classifier, not DPHuberRegressor (NOT PRIVATE).

A prober (session 59, probeB finding 5): DPLinearRegression(label_bound=(0, 1)) on a 0/1 label with 11 % ones kept
held-out R^2 0.12 to 0.14 at epsilon 1 and 8 alike (least squares 0.33); the training-rows check blamed its noise and
advised DPHuberRegressor (R^2 -0.01 to 0.03), where DPLogisticRegression's predict_proba scored 0.50 to 0.62
(benchmarks/two_valued_labels.py).
"""

from __future__ import annotations

import numpy as np
from training_notes import told

import dpcvx
from dpcvx.models import training_rows

CLASSIFIER = "DPLogisticRegression(epsilon=...) with the two values as its classes"


def _zero_one(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 5))
    s = Z @ np.array([1.0, -0.8, 0.5, 0, 0])
    y = (s + rng.normal(0, 0.5, n) > np.quantile(s, 0.9)).astype(float)
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"z{j}", -5, 5) for j in range(5)), norm=1.0)
    return schema.transform({f"z{j}": Z[:, j] for j in range(5)}), y


def test_a_zero_one_label_names_the_classifier_not_huber_nor_noise() -> None:
    X, y = _zero_one(20_000, 0)
    for estimator in (dpcvx.DPLinearRegression(epsilon=8, label_bound=(0, 1), random_state=0),
                      dpcvx.DPHuberRegressor(epsilon=8, label_bound=(0, 1), random_state=0)):
        texts = told(estimator.fit, X, y)
        assert len(texts) == 1 and CLASSIFIER in texts[0], texts
        assert "predict_proba(X)[:, 1]" in texts[0] and "NOT PRIVATE" in texts[0]
        assert "DPHuberRegressor(" not in texts[0] and "its noise, not the rows" not in texts[0]


def test_labels_of_many_values_keep_the_regression_advice() -> None:
    X, y = _zero_one(20_000, 0)
    graded = y + np.random.default_rng(1).integers(0, 2, y.size) * 0.5  # four values: no classifier named
    texts = told(dpcvx.DPLinearRegression(epsilon=8, label_bound=(0, 2), random_state=0).fit, X, graded)
    assert not any(CLASSIFIER in text for text in texts)


def test_two_values() -> None:
    assert training_rows.two_values(np.array([0.0, 1.0, 1.0, 0.0]))
    assert training_rows.two_values(np.r_[np.full(5000, 3.0), [7.0]])
    assert not training_rows.two_values(np.array([1.0, 1.0]))
    assert not training_rows.two_values(np.r_[np.zeros(5000), [1.0, 2.0]])
