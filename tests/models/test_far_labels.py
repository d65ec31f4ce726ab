"""A regression no better than a constant on its training rows only through a few labels far outside the rest is
told that the labels, not the release, are what the comparison saw (NOT PRIVATE).

An analyst probe (session 60, probeB finding 6): labels 50 +- 15 on 6 Gaussian columns, 0.5 % of the training labels
data-entry errors at 5000 and 9999, label_bound (0, 10000). DPLinearRegression() kept R^2 0.85 on clean rows (least
squares on all rows -5.6), and the warning said only that it did no better than a constant. The rule
(dpcvx.models.training_rows.far_labels, FAR_REACH / FAR_TAIL / FAR_FLOOR) was chosen by
benchmarks/outlying_labels.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import TrainingRowsWarning
from dpcvx.models import training_rows
from dpcvx.models.training_rows import (
    CODE_LABELS,
    FAR_LABELS,
    NO_BETTER_REGRESSION,
    far_labels,
    training_rows_finding,
)


def _errors(seed: int, related: bool = True, share: float = 0.005) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                            np.ndarray]:
    """probeB r3: 12,500 rows, the first 10,000 train with a ``share`` of their labels at 5000 or 9999."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(12_500, 6))
    y = (50 + Z @ np.array([10, -8, 6, 4, 0, 0.0]) if related else 50.0) + rng.normal(0, 5 if related else 15, 12_500)
    bad = np.flatnonzero(rng.random(10_000) < share)
    y[bad] = rng.choice([5000.0, 9999.0], bad.size)
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"z{j}", -5, 5) for j in range(6)), norm=1.0)
    X = schema.transform({f"z{j}": Z[:, j] for j in range(6)})
    return X[:10_000], y[:10_000], X[10_000:], y[10_000:]


def _texts(estimator, X, y) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return [str(w.message) for w in caught if issubclass(w.category, TrainingRowsWarning)]


@pytest.mark.parametrize("make", [
    lambda: dpcvx.DPLinearRegression(epsilon=1, label_bound=(0, 10_000), random_state=0),
    lambda: dpcvx.DPHuberRegressor(epsilon=8, label_bound=(0, 10_000), random_state=0),
])
def test_a_good_fit_beside_a_few_label_errors_is_told_the_labels_are_the_cause(make):
    X, y, Xt, yt = _errors(0)
    estimator = make()
    texts = _texts(estimator, X, y)
    assert len(texts) == 1 and FAR_LABELS in texts[0] and NO_BETTER_REGRESSION not in texts[0]
    assert "NOT PRIVATE" in texts[0] and "label_bound decides what the fit sees" in texts[0]
    predicted = estimator.predict(Xt)
    assert 1 - np.sum((yt - predicted) ** 2) / np.sum((yt - yt.mean()) ** 2) > 0.8  # a useful model on new rows
    # with a public range that leaves the errors out the same fit is silent (the probe's label_bound=(0, 200))
    assert _texts(dpcvx.DPLinearRegression(epsilon=1, label_bound=(0, 200), random_state=0), X, y) == []


def test_the_alarm_stays_where_the_release_is_useless_on_the_other_rows_too():
    """A label with no relation to the columns, with the same errors: the release's R^2 on the other rows is a hair
    above 0 (its columns' chance fit), below FAR_FLOOR, and its test R^2 is at most 0: NO_BETTER_REGRESSION, as
    before."""
    X, y, _, _ = _errors(1, related=False)
    texts = _texts(dpcvx.DPLinearRegression(epsilon=8, label_bound=(0, 10_000), random_state=0), X, y)
    assert len(texts) == 1 and NO_BETTER_REGRESSION in texts[0] and FAR_LABELS not in texts[0]


def test_the_rule_on_given_predictions():
    rng = np.random.default_rng(0)
    labels = rng.normal(50, 15, 5000)
    labels[:20] = [5000.0, 9999.0] * 10  # 0.4 %: two values, so no code (CODE_LABELS' single repeated end)
    good = np.where(labels > 1000, 50.0, labels + rng.normal(0, 5, 5000))  # R^2 about 0.9 on the other rows
    assert training_rows_finding(good, labels, True, label_range=(0.0, 10_000.0)) == FAR_LABELS
    near_mean = np.full(5000, 50.0) + 0.05 * (labels[20:].mean() - 50)  # R^2 about 0 there: the alarm stands
    assert training_rows_finding(near_mean, labels, True, label_range=(0.0, 10_000.0)) == NO_BETTER_REGRESSION
    one_code = np.where(np.arange(5000) < 20, 1e5, labels)  # one repeated value far beyond: still a code
    assert training_rows_finding(good, one_code, True) == CODE_LABELS
    for step in (700, 5000):  # a block at a time (a memmap's fit) and whole: the same findings
        assert training_rows.regression_finding(lambda rows: good[rows], labels, step, (0.0, 10_000.0)) == FAR_LABELS
        assert training_rows.regression_finding(lambda rows: good[rows], one_code, step) == CODE_LABELS
    fence = far_labels(labels)
    assert fence is not None and fence[1] < 5000 and not np.any((labels[20:] < fence[0]) | (labels[20:] > fence[1]))
    assert far_labels(labels[20:]) is None  # no label beyond: no fence
    assert far_labels(np.full(100, 3.0)) is None  # no spread
    assert far_labels(labels, reach=0) is None  # off


def test_its_text_holds_no_number_read_off_the_rows():
    first = _texts(dpcvx.DPLinearRegression(epsilon=1, label_bound=(0, 10_000), random_state=0), *_errors(0)[:2])
    second = _texts(dpcvx.DPLinearRegression(epsilon=2, label_bound=(0, 10_000), random_state=3),
                    *_errors(4, share=0.003)[:2])
    assert len(first) == 1 and first == second
    assert first[0].startswith("DPLinearRegression: " + FAR_LABELS + training_rows.far_labels_advice())
