"""Every release's score takes scikit-learn's ``sample_weight`` (the estimators' score took it, their releases' and a
loaded model's raised TypeError): the weighted accuracy sum w [right] / sum w, or the weighted R^2, equal to
scikit-learn's accuracy_score and r2_score with the same weights, whole or a block of memmap rows at a time. Weights
that are not one finite number per row, or sum to zero, are refused with a typed error."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.models.linear_regression import PrivateLinearRegression

metrics = pytest.importorskip("sklearn.metrics")

RNG = np.random.default_rng(8)
X = RNG.uniform(-0.3, 0.3, size=(400, 3))
Y01 = (X[:, 0] + 0.1 * RNG.standard_normal(400) > 0).astype(int)
YPM = 2 * Y01 - 1
Y3 = np.digitize(X[:, 0] + 0.1 * RNG.standard_normal(400), [-0.1, 0.1])
TARGET = X[:, 0] + 0.1 * RNG.standard_normal(400)
WEIGHTS = RNG.uniform(0.0, 3.0, size=400)


def _releases():
    return {
        "binary": (dpcvx.PrivateERM(data_norm=1.0).fit(X, YPM, epsilon=1.0, random_state=0), YPM, "accuracy"),
        "estimator": (dpcvx.DPLogisticRegression(random_state=0).fit(X, Y01).model_, Y01, "accuracy"),
        "multiclass": (dpcvx.DPLogisticRegression(classes=(0, 1, 2), random_state=0).fit(X, Y3).model_, Y3,
                       "accuracy"),
        "regression": (PrivateLinearRegression(1.0, 1.0).fit(X, TARGET, 1.0, 1e-6, random_state=0), TARGET, "r2"),
        "kernel": (dpcvx.TDDL(lam=1e-2, gamma=1.0).fit(X, YPM, epsilon=1.0, Z=X[:10].copy(), random_state=0),
                   YPM, "accuracy"),
    }


RELEASES = _releases()


@pytest.mark.parametrize("kind", RELEASES)
@pytest.mark.parametrize("source", ["memory", "memmap", "loaded"])
def test_a_weighted_score_is_scikit_learns(kind, source, tmp_path):
    model, y, metric = RELEASES[kind]
    rows = X
    if source == "memmap":
        np.save(tmp_path / "x.npy", X)
        rows = np.load(tmp_path / "x.npy", mmap_mode="r")
    if source == "loaded":
        dpcvx.save(model, tmp_path / "m.json")
        model = dpcvx.load(tmp_path / "m.json")
    predictions = model.predict(X)
    reference = metrics.accuracy_score if metric == "accuracy" else metrics.r2_score
    assert model.score(rows, y, sample_weight=WEIGHTS) == pytest.approx(
        reference(y, predictions, sample_weight=WEIGHTS), rel=1e-12)
    assert model.score(rows, y) == pytest.approx(reference(y, predictions), rel=1e-12)
    assert model.score(rows, y, sample_weight=np.ones(400)) == pytest.approx(model.score(rows, y), rel=1e-12)


@pytest.mark.parametrize("kind", RELEASES)
@pytest.mark.parametrize("weights, message", [
    (np.ones(399), r"^sample_weight must hold one number per row, shape \(400,\), got shape \(399,\)$"),
    (np.r_[np.nan, np.ones(399)], r"^sample_weight has NaN or infinite entries; give each row a finite weight"),
    (np.zeros(400), r"^the sample weights sum to zero: a weighted score divides by their sum$"),
    (np.array(["1"] * 400), r"^sample_weight must hold real numbers"),
])
def test_weights_a_score_cannot_use_are_refused(kind, weights, message):
    model, y, _ = RELEASES[kind]
    with pytest.raises(InputError, match=message):
        model.score(X, y, sample_weight=weights)
