"""An estimator's score and its release's agree on what they refuse: labels outside the public classes are refused
(scikit-learn's score counted them as mistakes), a label or target column of another length or shape gets dpcvx's
typed error (scikit-learn's was a bare ValueError), and a NaN target is refused by its row. A one-vs-rest release's
score took a column vector of labels (n, 1) and compared it with its n predictions by broadcasting: an (n, n) table
of comparisons whose mean was returned as the accuracy (0.34 for 0.26)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError

RNG = np.random.default_rng(12)
X = RNG.uniform(-0.3, 0.3, size=(300, 3))
Y01 = (X[:, 0] + 0.1 * RNG.standard_normal(300) > 0).astype(int)
Y3 = np.digitize(X[:, 0] + 0.1 * RNG.standard_normal(300), [-0.1, 0.1])
TARGET = X[:, 0] + 0.1 * RNG.standard_normal(300)


def _fitted():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        return {"binary": (dpcvx.DPLogisticRegression(random_state=0).fit(X, Y01), Y01),
                "one-vs-rest": (dpcvx.DPLogisticRegression(classes=(0, 1, 2), random_state=0).fit(X, Y3), Y3),
                "regression": (dpcvx.DPHuberRegressor(random_state=0).fit(X, TARGET), TARGET)}


FITTED = _fitted()


@pytest.mark.parametrize("kind", FITTED)
@pytest.mark.parametrize("scorer", ["estimator", "release"])
def test_a_column_vector_of_labels_scores_as_its_vector(kind, scorer):
    estimator, y = FITTED[kind]
    model = estimator if scorer == "estimator" else estimator.model_
    assert model.score(X, y[:, None]) == model.score(X, y)
    if kind != "regression":
        assert model.score(X, y) == pytest.approx(np.mean(model.predict(X) == y), rel=1e-15)


@pytest.mark.parametrize("kind", ["binary", "one-vs-rest"])
@pytest.mark.parametrize("scorer", ["estimator", "release"])
def test_labels_outside_the_classes_are_refused_by_both(kind, scorer):
    estimator, y = FITTED[kind]
    model = estimator if scorer == "estimator" else estimator.model_
    wrong = np.where(np.arange(300) == 4, 7, y)
    classes = "0, 1" if kind == "binary" else "0, 1, 2"
    with pytest.raises(InputError, match=rf"^y has 1 label\(s\), the first at row 4 .*outside the model's classes "
                                         rf"\({classes}\): score labels of its classes only$"):
        model.score(X, wrong)
    with pytest.raises(InputError, match=r"^X has 300 rows but y has 299 labels$"):
        model.score(X, y[:-1])
    with pytest.raises(InputError, match=r"^y should be a 1d array, got an array of shape \(300, 2\) instead\.$"):
        model.score(X, np.c_[y, y])


@pytest.mark.parametrize("scorer", ["estimator", "release"])
def test_a_regressions_targets_are_checked_by_both(scorer):
    estimator, y = FITTED["regression"]
    model = estimator if scorer == "estimator" else estimator.model_
    with pytest.raises(InputError, match=r"^y holds NaN, missing or infinite values, first at row 0"):
        model.score(X, np.r_[np.nan, y[1:]])
    with pytest.raises(InputError, match=r"^y has 299 values for 300 predictions$"):
        model.score(X, y[:-1])
