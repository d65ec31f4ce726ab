"""One-vs-rest's note on classes that are evenly spaced numbers (ratings, grades) names one rounded regression on the
class values, with what benchmarks/ordinal_regression.py measured (probeB session 62, finding 1: ratings 1..5 at
epsilon 1, n 5,000, one-vs-rest 0.349 and 0.365 in balanced accuracy on new rows, the rounded DPHuberRegressor 0.449,
and nothing mentioned it)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

import dpcvx
from dpcvx.exceptions import TrainingRowsWarning
from dpcvx.models import training_rows

GRADED = "If the classes are ordered grades"


def _ratings(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """probeB gen3.py "ordinal": 8 columns, a cumulative-logit rating 1..5 with shares skewed to 4 and 5."""
    rng = np.random.default_rng(6220 + seed)
    X = rng.uniform(-0.5, 0.5, (n + 5000, 8))
    s = X @ np.array([3, -2, 2, 1, 0, 0, 0.5, -1.0]) * 1.5 + rng.logistic(size=n + 5000) * 0.7
    y = 1 + np.searchsorted(np.quantile(s, [0.08, 0.2, 0.45, 0.8]), s)
    return X[:n] / np.sqrt(2.0), y[:n]


def _told(classes: tuple, y: np.ndarray, X: np.ndarray) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dpcvx.DPLogisticRegression(epsilon=1, classes=classes, random_state=2).fit(X, y)
    return [str(w.message) for w in caught if w.category is TrainingRowsWarning]


def test_a_rating_fit_one_vs_rest_is_told_of_the_rounded_regression() -> None:
    X, y = _ratings(2, 5000)
    (text,) = _told((1, 2, 3, 4, 5), y, X)
    assert GRADED in text and "DPHuberRegressor(label_bound=(1, 5), column_statistics=False)" in text
    assert "16 of the 16 measured tables with n x epsilon / k below 4,000" in text
    assert "in 4 of the 14 at or above it (worse by more than 0.02 in 6" in text
    # the same rows under class names that are not numbers: the sentence is not shown
    names = np.array(["a", "b", "c", "d", "e"])
    texts = _told(("a", "b", "c", "d", "e"), names[y - 1], X)
    assert texts and not any(GRADED in t for t in texts)


def test_graded_reads_only_the_declared_classes() -> None:
    assert training_rows.graded((1, 2, 3, 4, 5)) and training_rows.graded(np.array([0, 1, 2]))
    assert training_rows.graded((0.0, 0.5, 1.0))
    for classes in (("a", "b", "c"), (1, 2, 4), (0, 1), (True, False, True), None, (1, 1, 2)):
        assert not training_rows.graded(classes), classes


def test_the_graded_counts_are_the_recorded_ones() -> None:
    """GRADED_BELOW / GRADED_ABOVE are the sums of results/ordinal_regression_{dev,held}.md's K = 4000 rows."""
    total = np.zeros(6, dtype=int)
    for which in ("dev", "held"):
        text = (Path(__file__).resolve().parents[2] / "benchmarks" / "results"
                / f"ordinal_regression_{which}.md").read_text()
        row = next(line for line in text.splitlines() if line.startswith("| 4000 |"))
        total += np.array([int(cell) for cell in row.strip("|").split("|")[1:7]])
    below, above = training_rows.GRADED_BELOW, training_rows.GRADED_ABOVE
    assert (total[0], total[1]) == below and total[2] == 0
    assert (total[3], total[4], total[5]) == above
