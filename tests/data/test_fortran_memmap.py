"""A Fortran-order memmap is read by rows without a whole copy: the Hessian subsample's rows are gathered by fancy
indexing (numpy's take makes a non-C-contiguous array contiguous first, the whole file in memory), and a fit on it
allocates a small part of the file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.data.blocks import take_rows


def _memmap(tmp_path: Path, X: np.ndarray, fortran: bool) -> np.ndarray:
    name = tmp_path / ("F.npy" if fortran else "C.npy")
    stored = np.lib.format.open_memmap(name, mode="w+", dtype=X.dtype, shape=X.shape, fortran_order=fortran)
    stored[:] = X
    stored.flush()
    del stored
    return np.load(name, mmap_mode="r")


def _rows(n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    X /= 1.01 * np.linalg.norm(X, axis=1)[:, None]
    return X, (X @ rng.normal(size=d) > 0).astype(float)


def test_rows_of_a_fortran_memmap_are_taken_without_a_whole_copy(tmp_path, traced_peak):
    X, _ = _rows(50_000, 20)
    mapped = _memmap(tmp_path, X, fortran=True)
    rows = np.arange(0, X.shape[0], 10)
    taken, peak = traced_peak(take_rows, mapped, rows)
    assert peak < X.nbytes / 5, f"{peak / 2**20:.1f} MiB of a {X.nbytes / 2**20:.1f} MiB file"
    assert taken.flags.c_contiguous and np.array_equal(taken, np.take(X, rows, axis=0))


@pytest.mark.slow
def test_a_fit_on_a_fortran_memmap_allocates_a_small_part_of_the_file(tmp_path, traced_peak):
    """20,000 x 100 rows (a subsampled Hessian): the fit's allocations stay under half the 16 MB file (0.38 of it; with
    the whole copy 1.3), and its weights are those of the same rows in a C-order memmap (fitted first, untraced: the
    first fit's imports and generated code are allocations too)."""
    X, y = _rows(20_000, 100)
    fortran, row_major = _memmap(tmp_path, X, fortran=True), _memmap(tmp_path, X, fortran=False)

    def fit(rows):
        return dpcvx.DPLogisticRegression(random_state=0, column_statistics=False).fit(rows, y)

    expected = fit(row_major)
    model, peak = traced_peak(fit, fortran)
    assert peak < X.nbytes / 2, f"{peak / 2**20:.1f} MiB of a {X.nbytes / 2**20:.1f} MiB file"
    assert np.array_equal(model.coef_, expected.coef_) and np.array_equal(model.intercept_, expected.intercept_)


@pytest.mark.slow
def test_a_regressor_scores_a_float32_or_fortran_memmap_by_blocks(tmp_path, traced_peak):
    """A release's predict, which a regressor's training-rows check runs on the fit's own X, converts a memmap a block
    at a time: a Fortran-order or float32 file was converted whole, 2.2 to 2.5 times the file in memory. The scores
    are those of the same rows in memory (the float32 file's to the bit: the same blocks of the same values)."""
    X, y = _rows(200_000, 20)
    fitted = dpcvx.DPLinearRegression(random_state=0, label_bound=1.0).fit(X[:5000], y[:5000])
    assert fitted.certificate_.column_statistics is not None  # the standardiser maps the rows
    model = fitted.model_
    fortran = _memmap(tmp_path, X, fortran=True)
    single = X.astype(np.float32)
    np.save(tmp_path / "single.npy", single)
    for rows, memory, exact in ((fortran, X, False), (np.load(tmp_path / "single.npy", mmap_mode="r"), single, True)):
        scores, peak = traced_peak(model.predict, rows)
        assert peak < X.nbytes / 4, f"{rows.dtype}: {peak / 2**20:.1f} MiB of {X.nbytes / 2**20:.1f} MiB in float64"
        expected = model.predict(memory)
        assert np.array_equal(scores, expected) if exact else np.allclose(scores, expected, rtol=1e-12, atol=1e-15)
