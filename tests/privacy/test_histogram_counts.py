"""The histograms' counts by row blocks (dpcvx.privacy.column_histogram.noisy_histograms): bitwise the counts of the
formula column by column, and the seeded noise drawn as before (docs/performance.md, round 15)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcvx.data.rows import RowMap
from dpcvx.privacy import column_histogram
from dpcvx.privacy.column_histogram import histogram_scale, noisy_histograms
from dpcvx.privacy.exact_sampling import discrete_laplace_array, integer_source

# half-widths that are not powers of two (a division by 2 b rounds), one per column
BOUNDS = np.array([0.3, 1.7, math.pi, 1e-3, 1.0, 0.7])


def reference(values: np.ndarray, bounds: np.ndarray, depth: int, reciprocal: bool = False) -> np.ndarray:
    """The counts of the formula, column by column: min(floor((clip(v) + b) 2^D / (2 b)), 2^D - 1) (with
    ``reciprocal``, the wrong variant that multiplies by 1 / (2 b))."""
    counts = []
    for j, b in enumerate(bounds):
        shifted = np.clip(values[:, j], -b, b) + b
        scaled = shifted * (1 / (2 * b)) if reciprocal else shifted / (2 * b)
        cells = np.minimum(np.floor(np.ldexp(scaled, depth)).astype(np.int64), (1 << depth) - 1)
        counts.append(np.bincount(cells, minlength=1 << depth))
    return np.stack(counts)


def adversarial(rows: int, bounds: np.ndarray, depth: int) -> np.ndarray:
    """Values on the grid's edges and one float either side, the bounds, beyond them, -0.0, tiny and random values:
    ``rows`` rows, more than one block of the counts (2^16 values) and a partial last one."""
    rng = np.random.default_rng(7)
    columns = []
    for b in bounds:
        edges = -b + 2 * b * np.arange((1 << depth) + 1) / (1 << depth)
        special = np.concatenate([edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf),
                                  [b, -b, 2 * b, -3 * b, 0.0, -0.0, 5e-324, -5e-324, 1e300, -1e300]])
        column = rng.uniform(-1.2 * b, 1.2 * b, rows)
        column[:special.size] = special
        columns.append(rng.permutation(column))
    return np.column_stack(columns)


@pytest.fixture
def no_noise(monkeypatch):
    monkeypatch.setattr(column_histogram, "discrete_laplace_array",
                        lambda scale, size, source: np.zeros(size, np.int64))


@pytest.mark.parametrize("depth", [8, 6, 1])
@pytest.mark.parametrize("order", ["C", "F"])
def test_the_counts_are_those_of_the_formula_column_by_column_bitwise(no_noise, depth: int, order: str) -> None:
    values = np.asarray(adversarial(12_001, BOUNDS, depth), order=order)  # 72,006 values: two blocks
    counts = noisy_histograms(values, BOUNDS, 1.0, integer_source(np.random.default_rng(0)), depth)
    expected = reference(values, BOUNDS, depth)
    np.testing.assert_array_equal(counts, expected)
    assert counts.dtype == np.int64 and counts.sum() == values.size
    if depth == 8:  # the data tell the division from a multiplication by the reciprocal: that variant would fail
        assert not np.array_equal(reference(values, BOUNDS, depth, reciprocal=True), expected)


def test_one_column_and_one_shared_half_width(no_noise) -> None:
    # the label's histogram (one column) and the features' (one half-width for every column, as a scalar)
    values = adversarial(70_000, np.array([2.5]), 8)
    np.testing.assert_array_equal(noisy_histograms(values, np.array([2.5]), 1.0, integer_source(None)),
                                  reference(values, np.array([2.5]), 8))
    wide = adversarial(3_000, np.full(30, 0.9), 8)
    np.testing.assert_array_equal(noisy_histograms(wide, 0.9, 1.0, integer_source(None)),
                                  reference(wide, np.full(30, 0.9), 8))


def test_the_seeded_noise_is_drawn_as_before_after_the_counts() -> None:
    values = adversarial(5_000, BOUNDS, 8)
    released = noisy_histograms(values, BOUNDS, 0.5, integer_source(np.random.default_rng(11)))
    noise = discrete_laplace_array(histogram_scale(BOUNDS.size, 0.5), BOUNDS.size << 8,
                                   integer_source(np.random.default_rng(11)))
    np.testing.assert_array_equal(released, reference(values, BOUNDS, 8) + noise.reshape(BOUNDS.size, 256))


@pytest.mark.parametrize("order", ["C", "F"])
def test_rows_clipped_block_by_block_are_counted_as_their_whole_clipped_copy(order: str) -> None:
    # release_ranges' rows: clipped onto R as each block is read (RowMap.clip, each row's factor its own), the
    # counts and the seeded noise of the whole clipped copy; X is left as it was
    rng = np.random.default_rng(9)
    X = np.asarray(rng.normal(0, 0.5, (20_000, 6)) * rng.uniform(0.1, 3.0, (20_000, 1)), order=order)
    kept = X.copy()
    clip = RowMap(1.0).clip
    whole, count = clip(np.array(X), in_place=True)
    assert count > 5_000  # many rows beyond R

    def seeded():
        return integer_source(np.random.default_rng(5))

    blocks = noisy_histograms(X, np.ones(6), 1.0, seeded(), row_map=lambda rows: clip(rows)[0])
    np.testing.assert_array_equal(blocks, noisy_histograms(whole, np.ones(6), 1.0, seeded()))
    np.testing.assert_array_equal(X, kept)
    assert not np.array_equal(noisy_histograms(X, np.ones(6), 1.0, seeded()), blocks)  # the clip moves cells
