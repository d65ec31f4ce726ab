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
