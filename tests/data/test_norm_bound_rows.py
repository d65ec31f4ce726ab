"""clip=False names the first row beyond the norm bound by its row in the whole input, on every read: in memory (each
way RowMap.apply maps the rows), by a memmap's or a Dask array's row blocks, and in an estimator's fit. It named none
in memory, and only a count within the block for a memmap (docs/scale.md: "an InputError naming the global row")."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.data.blocks import RowBlocks
from dpcvx.data.rows import NormBoundError, RowMap
from dpcvx.data.standardiser import ColumnStandardiser
from dpcvx.exceptions import InputError


def _rows(n: int = 3000, d: int = 6) -> np.ndarray:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    X /= 1.5 * np.linalg.norm(X, axis=1)[:, None]
    X[[2345, 2800]] *= 3.0  # norm 2 > 1
    return X


@pytest.mark.parametrize("layout", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])  # float32: converted into a copy, then clipped whole
@pytest.mark.parametrize("intercept", [False, True])
@pytest.mark.parametrize("mapped", [False, True])
def test_in_memory_the_first_row_beyond_the_bound_is_named(layout, dtype, intercept, mapped):
    X = np.asarray(_rows(), order=layout, dtype=dtype)
    feature_map = ColumnStandardiser(np.zeros(X.shape[1]), np.ones(X.shape[1]), 1e9) if mapped else None
    with pytest.raises(NormBoundError, match=r"^2 rows have norm above data_norm=1; the first is row 2345;") as error:
        RowMap(1.0, fit_intercept=intercept, feature_map=feature_map).apply(X, refuse=True)
    assert error.value.row == 2345


def test_row_blocks_name_the_global_row():
    X = _rows()
    with pytest.raises(NormBoundError, match=r"^in rows 2000..2999 of X: 2 rows have norm above data_norm=1; "
                                             r"the first is row 2345;"):
        RowBlocks(X, RowMap(1.0), block_rows=1000).validate(refuse=True)


def test_a_dask_array_names_the_global_row():
    da = pytest.importorskip("dask.array")
    with pytest.raises(NormBoundError, match=r"^in rows 2250..2999 of X: .* the first is row 2345;"):
        RowBlocks(da.from_array(_rows(), chunks=(750, 6)), RowMap(1.0)).validate(refuse=True)


def test_a_fit_on_a_memmap_names_the_global_row(tmp_path):
    X = _rows()
    np.save(tmp_path / "X.npy", X)
    accountant = dpcvx.PrivacyAccountant(10.0)
    for rows in (X, np.load(tmp_path / "X.npy", mmap_mode="r")):
        with warnings.catch_warnings(), pytest.raises(InputError, match=r"the first is row 2345;"):
            dpcvx.DPLogisticRegression(clip=False, random_state=0, accountant=accountant).fit(rows, X[:, 0] > 0)
    assert accountant.spent.epsilon == 0
