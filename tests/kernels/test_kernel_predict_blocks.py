"""A kernel predictor reads X by row blocks: a float32 or integer memmap, a Fortran-order or strided array and a Dask
input are converted to float64 ``score_rows`` rows at a time, never whole, with the values of X converted whole."""

import numpy as np
import pytest

import dpcvx.release.kernel_model as kernel_model
from dpcvx.data.kernels import RBFKernel, kernel_expansion
from dpcvx.exceptions import InputError
from dpcvx.release.kernel_model import KernelPredictor
from dpcvx.tables import NonFiniteError


@pytest.fixture
def predictor():
    rng = np.random.default_rng(0)
    # 2,000 centres: expansion_rows = 2**22 // 2000 = 2097 rows at a time
    return KernelPredictor(RBFKernel(gamma=0.5), rng.normal(size=(2000, 3)), rng.normal(size=2000))


@pytest.fixture
def converted(monkeypatch):
    """The row counts of every array the predictor converts (as_rows)."""
    counts: list[int] = []
    original = kernel_model.as_rows

    def spy(X, *args, **kwargs):
        rows = original(X, *args, **kwargs)
        counts.append(rows.shape[0])
        return rows

    monkeypatch.setattr(kernel_model, "as_rows", spy)
    return counts


def _whole(predictor, X):
    """The values of X converted whole, as predictions were computed before."""
    return kernel_expansion(predictor.kernel, np.asarray(X, dtype=np.float64), predictor.centers, predictor.coef)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.float32, np.int16])
def test_narrow_memmap_is_converted_by_blocks(tmp_path, predictor, converted, dtype):
    rng = np.random.default_rng(1)
    X = np.memmap(tmp_path / "X.bin", dtype=dtype, mode="w+", shape=(5000, 3))
    X[:] = rng.normal(size=(5000, 3)) * (1 if dtype == np.float32 else 2)
    X.flush()
    step = predictor.score_rows(3)
    scores = predictor.decision_function(X)
    assert max(converted) <= step < X.shape[0]
    np.testing.assert_array_equal(scores, _whole(predictor, X))  # bit for bit
    np.testing.assert_array_equal(predictor.predict(X), np.where(scores > 0, 1.0, -1.0))
    y = np.where(rng.random(5000) < 0.5, 1.0, -1.0)
    converted.clear()
    assert predictor.score(X, y) == float(np.mean(np.where(scores > 0, 1.0, -1.0) == y))
    assert max(converted) <= step


@pytest.mark.parametrize("layout", ["fortran", "strided"])
def test_copied_layouts_are_converted_by_blocks(predictor, converted, layout):
    rng = np.random.default_rng(2)
    X = np.asfortranarray(rng.normal(size=(4500, 3)).astype(np.float32)) if layout == "fortran" else \
        rng.normal(size=(4500, 6))[:, ::2]
    scores = predictor.decision_function(X)
    assert max(converted) <= predictor.score_rows(3)
    np.testing.assert_array_equal(scores, _whole(predictor, X))


def test_float64_rows_are_used_as_they_are(predictor, converted):
    X = np.random.default_rng(3).normal(size=(4500, 3))
    np.testing.assert_array_equal(predictor.decision_function(X), _whole(predictor, X))
    assert converted == [4500]  # the array itself, no copy


def test_dask_input_is_computed_by_blocks(predictor, converted):
    da = pytest.importorskip("dask.array")
    X = np.random.default_rng(4).normal(size=(4500, 3)).astype(np.float32)
    scores = predictor.decision_function(da.from_array(X, chunks=(1000, 3)))
    assert max(converted) <= predictor.score_rows(3)
    np.testing.assert_array_equal(scores, _whole(predictor, X))


def test_block_refusals_name_the_whole_row(predictor):
    X = np.random.default_rng(5).normal(size=(5000, 3)).astype(np.float32)
    X[4321, 2] = np.nan
    with pytest.raises(NonFiniteError) as error:
        predictor.decision_function(X)
    assert (error.value.row, error.value.column) == (4321, 2)
    with pytest.raises(InputError, match=r"^X has 4 features, but the model is expecting 3 features as input\.$"):
        predictor.decision_function(np.zeros((10, 4), dtype=np.float32))
