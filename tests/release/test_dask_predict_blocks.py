"""A linear release scores a Dask X by row blocks (RowMap.block_rows rows computed at a time), never computing it
whole, with the scores of the computed array bit for bit: binary, multiclass and regression releases alike."""

import numpy as np
import pytest

import dpcvx.data.rows as rows_module
from dpcvx import PrivateERM
from dpcvx.models.multiclass import PrivateMulticlassERM
from dpcvx.tables import NonFiniteError

da = pytest.importorskip("dask.array")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 20)) / 8
    return X, X[:, 0] + 0.1 * rng.normal(size=400)


@pytest.fixture
def converted(monkeypatch):
    """The row counts of every block RowMap.scores converts."""
    counts: list[int] = []
    original = rows_module._converted

    def spy(X, *args, **kwargs):
        counts.append(np.shape(X)[0])
        return original(X, *args, **kwargs)

    monkeypatch.setattr(rows_module, "_converted", spy)
    return counts


def _releases(X, y):
    classifier = PrivateERM(loss="logistic", lam=0.01, data_norm=1.0).fit(X, np.where(y > 0, 1, -1), epsilon=1.0,
                                                                          random_state=0)
    multiclass = PrivateMulticlassERM(PrivateERM(loss="logistic", lam=0.01, data_norm=1.0), (0, 1, 2)).fit(
        X, np.digitize(y, [-0.05, 0.05]), epsilon=1.0, random_state=0)
    regression = PrivateERM(loss="huber_regression", lam=0.01, data_norm=1.0, task="regression", label_bound=1.0).fit(
        X, y, epsilon=1.0, random_state=0)
    return classifier, multiclass, regression


def test_dask_rows_are_scored_by_blocks(data, converted):
    X, y = data
    releases = _releases(X, y)
    rows = np.random.default_rng(1).normal(size=(30000, 20)).astype(np.float32) / 8
    step = releases[0].predictor.rows.block_rows(20)
    assert step < rows.shape[0]
    for release in releases:
        converted.clear()
        scores = release.decision_function(da.from_array(rows, chunks=(12000, 20)))
        assert converted and max(converted) <= step  # never the whole of X
        np.testing.assert_array_equal(scores, release.decision_function(rows))  # bit for bit
    rows[26543, 7] = np.nan
    with pytest.raises(NonFiniteError) as error:
        releases[0].decision_function(da.from_array(rows, chunks=(12000, 20)))
    assert (error.value.row, error.value.column) == (26543, 7)
