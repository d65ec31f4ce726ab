"""The mathematical layer's releases keep a table's column names, as the estimators keep them (an audit of input
containers): PrivateERM, PrivateLinearRegression and PrivateMulticlassERM fitted on a DataFrame or a pyarrow Table gave
releases without ``feature_names_in_``, which predicted a table with its columns reordered or renamed without a word,
live and after dpcvx.save / dpcvx.load (a model reads a row's entries by position)."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError

pd = pytest.importorskip("pandas")

RNG = np.random.default_rng(7)
X = RNG.uniform(-0.5, 0.5, size=(400, 3))
FRAME = pd.DataFrame(X, columns=["a", "b", "c"])
LEARNERS = {
    "PrivateERM": lambda frame: dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(
        frame, np.where(X[:, 0] > 0, 1, -1), epsilon=1.0),
    "PrivateLinearRegression": lambda frame: dpcvx.PrivateLinearRegression(1.0, 1.0).fit(
        frame, 0.5 * X[:, 0], 1.0, 1e-6),
    "PrivateMulticlassERM": lambda frame: dpcvx.PrivateMulticlassERM(
        dpcvx.PrivateERM(lam=0.1, data_norm=1.0), (0, 1, 2)).fit(frame, np.arange(400) % 3, 3.0),
}


@pytest.mark.parametrize("name", LEARNERS)
def test_a_learners_release_refuses_reordered_or_renamed_columns_live_and_loaded(name, tmp_path):
    release = LEARNERS[name](FRAME)
    assert list(release.feature_names_in_) == ["a", "b", "c"]
    loaded = dpcvx.load(dpcvx.save(release, tmp_path / "model.json"))
    for model in (release, loaded):
        with pytest.warns(UserWarning, match="X does not have valid feature names"):  # scikit-learn's rule
            by_position = model.predict(X)
        np.testing.assert_allclose(model.predict(FRAME), by_position, rtol=1e-12, atol=1e-15)
        with pytest.raises(InputError, match="the same names in another order"):
            model.predict(FRAME[["c", "a", "b"]])
        with pytest.raises(InputError, match="The feature names should match those that were passed during fit"):
            model.predict(FRAME.rename(columns={"a": "z"}))
