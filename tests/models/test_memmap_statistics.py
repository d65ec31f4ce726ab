"""A numpy.memmap's default fit draws the private column statistics by row blocks, as the same rows in memory do.

The counts of the histograms and of the range search are integers, exact in any order of the rows, and their noise is
drawn in the same order: the same release. The draws read the memmap a block at a time (no copy of the file), and a
Dask X, whose chunks the draws do not read, is the one dense form that draws none.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.models import column_statistics, linear_regression
from dpcvx.models.column_statistics import StatisticsPlan, release_column_statistics
from dpcvx.privacy.column_ranges import ValueBlocks, release_ranges
from dpcvx.privacy.exact_sampling import integer_source


def _memmap(tmp_path: Path, X: np.ndarray, name: str = "X.npy") -> np.ndarray:
    stored = np.lib.format.open_memmap(tmp_path / name, mode="w+", dtype=X.dtype, shape=X.shape)
    stored[:] = X
    stored.flush()
    return np.load(tmp_path / name, mmap_mode="r")


def _table(n: int = 20_000, d: int = 10) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows in a small part of the unit ball, a binary and a real label: the default "auto" draws at this n."""
    rng = np.random.default_rng(0)
    X = 0.1 + 0.05 * rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    score = X @ rng.normal(size=d)
    return X, (score > np.median(score)).astype(int), 3 * score + 0.1 * rng.normal(size=n)


def _quiet_fit(estimator, X, y):
    return estimator.fit(X, y)


@pytest.mark.slow
@pytest.mark.parametrize("cls, label", [(dpcvx.DPHuberSVM, "binary"), (dpcvx.DPLogisticRegression, "binary"),
                                        (dpcvx.DPLinearRegression, "real"), (dpcvx.DPHuberRegressor, "real")])
def test_a_memmap_fit_is_the_in_memory_fit(cls, label, tmp_path):
    """The same seed and default parameters: the memmap's fit draws the statistics the rows in memory draw, to the
    bit, and releases the same model. Bit for bit here, where every pass reads the rows in one block; the logistic
    solve on a memmap below 100 columns recomputes its margins by each pass (solvers.blockwise.RowMargins), so its
    weights agree to the solver's tolerance."""
    X, binary, real = _table()
    y = binary if label == "binary" else real
    settings = {"label_bound": 5.0} if label == "real" else {}
    memory = _quiet_fit(cls(random_state=0, **settings), X, y)
    mapped = _quiet_fit(cls(random_state=0, **settings), _memmap(tmp_path, X), y)
    assert memory.certificate_.column_statistics is not None
    assert mapped.certificate_.column_statistics == memory.certificate_.column_statistics
    assert str(mapped.certificate_) == str(memory.certificate_)
    if cls is dpcvx.DPLogisticRegression:
        np.testing.assert_allclose(mapped.coef_, memory.coef_, rtol=0, atol=1e-7)
        np.testing.assert_allclose(mapped.intercept_, memory.intercept_, rtol=0, atol=1e-7)
    else:
        assert np.array_equal(mapped.coef_, memory.coef_)
        assert np.array_equal(mapped.intercept_, memory.intercept_)


@pytest.mark.parametrize("statistics", [True, "ranges"])
def test_a_float32_memmap_draws_the_statistics_of_its_rows_in_memory(statistics, tmp_path):
    """Each block is converted as it is read (no float64 copy of the file), the same floats as converting it whole:
    the column sums and the histograms' ranges of a float32 memmap are those of the same rows in memory."""
    X, y, _ = _table(8_000, 6)
    X = X.astype(np.float32)
    estimator = dpcvx.DPLogisticRegression(random_state=0, column_statistics=statistics)
    memory = _quiet_fit(estimator, X, y)
    mapped = _quiet_fit(dpcvx.DPLogisticRegression(random_state=0, column_statistics=statistics),
                        _memmap(tmp_path, X), y)
    assert memory.certificate_.column_statistics is not None
    assert mapped.certificate_.column_statistics == memory.certificate_.column_statistics


def test_the_range_search_by_row_blocks_is_the_search_of_the_whole_values(search_values):
    """The counts by blocks (two passes: a coarse histogram, then each search's last interval) are the counts of
    every value: concentrated, spread, tied, on grid points, at and beyond the bounds and NaN, in blocks of any size,
    the same ranges to the bit."""
    rng = np.random.default_rng(11)
    for case in range(24):
        values, bounds = search_values(rng, case, 50, 30_000)
        n, k = values.shape
        if case % 4 == 1:  # beyond the bounds (counted at no grid point, as by v <= t) and NaN (nowhere)
            values[:3] = np.nextafter(bounds, np.inf)
            values[3] = np.nan
        sigma = float(10.0 ** rng.uniform(-2, 2))
        step = int(rng.integers(1, n + 1))
        blocks = ValueBlocks(n, k, lambda values=values, step=step, n=n: (values[a:a + step]
                                                                          for a in range(0, n, step)))
        whole = release_ranges(values, bounds, 0.2, sigma, np.random.default_rng(case))
        assert np.array_equal(release_ranges(blocks, bounds, 0.2, sigma, np.random.default_rng(case)), whole)


def _traced(work, *args):
    """(work(*args), the peak of numpy's allocations while it ran)."""
    tracemalloc.start()
    try:
        result = work(*args)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow  # about 4 s: a memmap large enough to tell a copy
def test_the_draws_read_a_memmap_by_blocks_without_a_copy(tmp_path, monkeypatch):
    """Issue 44's bound for the draws themselves (numpy's allocations, traced): the column sums and the histograms'
    ranges of a 24 MB memmap (the classifiers' draws), and DPLinearRegression's range search inside its fit, allocate
    under a tenth of the file, and draw what the same rows in memory draw."""
    X, _, real = _table(150_000, 20)
    mapped = _memmap(tmp_path, X)
    for ranges, draw in ((False, release_column_statistics), (True, column_statistics.release_ranges)):
        plan = StatisticsPlan(0.1, 0.9, 0.0, X.shape[0], X.shape[1], 1.0, ranges)
        memory = draw(X, plan, integer_source(np.random.default_rng(1)))
        streamed, peak = _traced(draw, mapped, plan, integer_source(np.random.default_rng(1)))
        assert np.array_equal(streamed, memory)
        assert peak < X.nbytes / 10, f"{draw.__name__}: {peak / 2**20:.1f} MiB"
    memory_fit = _quiet_fit(dpcvx.DPLinearRegression(random_state=0, label_bound=5.0), X, real)
    searched = []

    def traced(*args, **kwargs):  # the search's allocations alone: its reads of the rows and their counts
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        ranges = release_ranges(*args, **kwargs)
        searched.append(tracemalloc.get_traced_memory()[1] - before)
        return ranges

    monkeypatch.setattr(linear_regression, "release_ranges", traced)
    fit, _ = _traced(_quiet_fit, dpcvx.DPLinearRegression(random_state=0, label_bound=5.0), mapped, real)
    assert fit.certificate_.column_statistics == memory_fit.certificate_.column_statistics is not None
    assert len(searched) == 1 and searched[0] < X.nbytes / 10, f"{searched[0] / 2**20:.1f} MiB"
