"""The regressors and the one-vs-rest classifier take a Dask DataFrame as they take a Dask array (docs/scale.md: the
same X in every form): its row count, lazy in its own shape, is read from its partitions' lengths
(:func:`dpcvx.data.blocks.input_shape`). Both raised a raw TypeError before anything was charged."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx

dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")
pd = pytest.importorskip("pandas")


def _rows(n: int = 3000, d: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = 0.3 * rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, X @ rng.normal(size=d)


def _forms(X: np.ndarray) -> tuple[object, object]:
    """The rows as a Dask DataFrame and as a Dask array of the same three partitions."""
    frame = dd.from_pandas(pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])]), npartitions=3)
    return frame, da.from_array(X, chunks=(tuple(frame.map_partitions(len).compute()), X.shape[1]))


def _fit(estimator, X, y):
    return estimator.fit(X, y)


def test_a_linear_regression_fits_a_dask_dataframe_as_its_array():
    X, z = _rows()
    frame, array = _forms(X)
    y = np.clip(z, -1, 1)
    make = lambda: dpcvx.DPLinearRegression(label_bound=1.0, random_state=0, column_statistics=False)  # noqa: E731
    assert np.array_equal(_fit(make(), frame, y).coef_, _fit(make(), array, y).coef_)


@pytest.mark.slow
def test_a_multiclass_fit_takes_a_dask_dataframe_and_charges_once():
    X, z = _rows()
    frame, array = _forms(X)
    y = (z > 0).astype(int) + (z > 0.5)
    spent = []
    for rows in (frame, array):
        accountant = dpcvx.PrivacyAccountant(10.0)
        model = _fit(dpcvx.DPLogisticRegression(random_state=0, classes=(0, 1, 2), accountant=accountant), rows, y)
        spent.append((model.coef_, accountant.spent))
    assert np.array_equal(spent[0][0], spent[1][0]) and spent[0][1] == spent[1][1]
    assert spent[0][1].epsilon > 0
