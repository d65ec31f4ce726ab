"""A regressor whose private label range is the least its search grid gives says so (NoiseDominatesWarning): a label
of spread 40 declared in (0, 1e7) gave R^2 -34 with no public word (the NOT PRIVATE TrainingRowsWarning alone)."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import NoiseDominatesWarning

pytest.importorskip("sklearn")


def table(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, 3))
    return X, 60 + 40 * X @ np.array([1.0, 0.5, -0.5]) + rng.normal(0, 5, n)


def unresolved_warnings(**settings):
    X, y = table()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = dpcvx.DPLinearRegression(epsilon=1.0, random_state=0, **settings).fit(X, y)
    texts = [str(warning.message) for warning in caught if warning.category is NoiseDominatesWarning]
    return model.score(X, y), [text for text in texts if "the label's range was not resolved" in text]


@pytest.mark.parametrize("mechanism", ["auto", "adassp"])
def test_a_label_range_declared_far_wider_than_the_labels_is_named(mechanism):
    score, texts = unresolved_warnings(label_bound=(0, 1e7), delta=1e-6, mechanism=mechanism)
    assert len(texts) == 1 and "B=5e+06 over 2^14 cells" in texts[0] and "label_bound=(lo, hi)" in texts[0]
    assert score < 0  # what the warning says may happen


@pytest.mark.parametrize("label_bound", [(0, 240), (0, 4e4)])
def test_a_label_range_the_search_resolves_is_not_named(label_bound):
    score, texts = unresolved_warnings(label_bound=label_bound, delta=1e-6)
    assert texts == [] and score > 0.8  # a thousand times the labels' spread (40) is still resolved


def test_a_label_piled_on_one_value_is_named_with_the_fit_that_helps():
    """Capital gains (0 on most rows, a few up to 1e5) released the least B' too, and the warning said only that
    the labels were narrower than the grid: the declared range was already theirs, and narrowing it did not help.
    It now names the pile, and the fit at the declared range without the search, which does help."""
    rng = np.random.default_rng(1)
    n = 20000
    X = rng.uniform(-0.5, 0.5, size=(n, 3))
    gains = np.where(X[:, 0] + 0.1 * rng.normal(size=n) > 0.42, 4e4 * (1 + X[:, 1]), 0.0)  # 0 on ~90 % of rows
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        default = dpcvx.DPLinearRegression(epsilon=5.0, label_bound=(0, 1e5), random_state=0).fit(X, gains)
    texts = [str(w.message) for w in caught if w.category is NoiseDominatesWarning
             and "the label's range was not resolved" in str(w.message)]
    assert len(texts) == 1 and "most labels share one value" in texts[0] and "column_statistics=False" in texts[0]
    plain = dpcvx.DPLinearRegression(epsilon=5.0, label_bound=(0, 1e5), column_statistics=False,
                                     random_state=0).fit(X, gains)
    assert plain.score(X, gains) > default.score(X, gains) + 0.05  # the advice helps
