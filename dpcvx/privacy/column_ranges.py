"""Private per-column ranges by a noisy binary search: Gaussian counts on a public dyadic grid.

A scale-free column statistic (docs/theory.md, section 16, "AdaSSP on columns mapped by private ranges"): its
error is in RANKS (rows), not in units of the public bound, so it locates a column that fills a hundredth of its
public range as well as one that fills all of it. For k columns (the features and the label) with public
half-widths b_j (R for a feature of a row clipped onto ||x|| <= R, B for a label clipped onto [-B, B]):

* the grid of column j is the public t_j(i) = -b_j + 2 b_j i / 2^D, i = 0 ... 2^D (D = ``SEARCH_DEPTH``);
* two binary searches run per column, for the levels q and 1 - q (q public: :func:`range_level`). Each of the D
  steps releases, for every column and both searches, the count #{i : v_ij <= t} at the current midpoint t plus
  N(0, sigma_c^2), and moves the search interval to the half where the noisy count crosses q n (resp. (1 - q) n);
* the released range of column j is the pair of grid points the two searches end at (post-processing of the
  noisy counts).

**Sensitivity.** Under replace-one (n public), replacing one record changes each count #{i : v_ij <= t} by at
most 1 (the old row leaves, the new one enters), whatever t, so the 2 k counts of one step move by at most
sqrt(2 k) in L2 norm. A step is the Gaussian mechanism of sensitivity sqrt(2 k) and noise sigma_c, that is
(sqrt(2 k) / sigma_c)-GDP (Dong, Roth and Su 2022), and its thresholds depend on the earlier steps' outputs only,
so the D steps compose adaptively to (sqrt(2 k D) / sigma_c)-GDP (ibid., Corollary 2). With
sigma_c = sigma sqrt(2 k D / f) (:func:`count_sigma`) the whole search is (sqrt(f) / sigma)-GDP: a Gaussian
release of sensitivity sqrt(f) at the unit sigma, which joins AdaSSP's releases in one joint Gaussian
(:mod:`dpcvx.privacy.adassp`, share ``RANGE_SHARE``).

**The level.** A decision is wrong with probability Phi(-|c - q n| / sigma_c); a search whose first steps are
far from the data errs with probability Phi(-q n / sigma_c) at each of them, and one such error sends it to the
edge of the grid. The public rule q = max(``LOWEST_LEVEL``, ``RANK_MARGIN`` sigma_c / n) keeps q n at least
four noise deviations from an empty count; above ``HIGHEST_LEVEL`` the search is not offered (n too small for
the noise: the caller falls back to a release without ranges). It reads n, sigma_c and the constants only.

**Floating point.** The counts are exact integers; the noise is drawn in doubles by the seeded or OS-entropy
generator and each noisy count is rounded to a grid 2^-30 of sigma_c (:func:`~dpcvx.privacy.noise.round_to_grid`,
the mitigation of the other releases) before it is compared: mitigation only (MITIGATION_ONLY), as for AdaSSP's
statistics; the proof holds in exact arithmetic. The comparison with q n is a function of the rounded noisy
count and public numbers only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..exceptions import InputError
from ..rounding import round_up
from ..validation import is_integer
from .noise import release_grid_spacing, round_to_grid

__all__ = ["HIGHEST_LEVEL", "LABEL_WIDTH", "LOWEST_LEVEL", "RANGE_SHARE", "RANK_MARGIN", "SEARCH_DEPTH", "VALUE_BLOCK",
           "ValueBlocks", "count_sigma", "grid_cell", "grid_points", "least_rows", "range_level", "release_ranges"]

#: f of the range search in AdaSSP's joint Gaussian (AdaSSP's three statistics share 3): fixed with the other
#: constants below on energy, trips, diabetes and wages500 (benchmarks/column_ranges.py) before the held-out
#: clinic and sensors were fitted.
RANGE_SHARE = 1.0
SEARCH_DEPTH = 14    # D: a grid of 2^14 cells over [-b, b]
RANK_MARGIN = 4.0    # q n >= 4 sigma_c
LOWEST_LEVEL = 0.1   # q at least 0.1 (the 10% and 90% quantiles)
HIGHEST_LEVEL = 0.3  # above: too few rows for the noise, no ranges
#: The label's released bound B' is LABEL_WIDTH implied standard deviations of its range
#: (:func:`dpcvx.data.standardiser.label_range`, whose constants' note says how it was fixed); noisy gradient descent
#: clips residuals at B' / LABEL_WIDTH (:mod:`dpcvx.privacy.gradient_descent`)
LABEL_WIDTH = 3.0


def count_sigma(unit_sigma: float, columns: int) -> float:
    """sigma_c = sigma sqrt(2 k D / f), rounded up: the search is (sqrt(f) / sigma)-GDP (module docstring)."""
    if not is_integer(columns) or columns < 1:
        raise InputError(f"the range search needs at least one column, got {columns!r}")
    return round_up(unit_sigma * math.sqrt(2 * columns * SEARCH_DEPTH / RANGE_SHARE))


def range_level(sigma: float, n: int) -> float | None:
    """The public level q = max(LOWEST_LEVEL, RANK_MARGIN sigma_c / n), or None when it exceeds HIGHEST_LEVEL."""
    level = max(LOWEST_LEVEL, RANK_MARGIN * sigma / n)
    return level if level <= HIGHEST_LEVEL else None


def least_rows(sigma: float) -> int:
    """The least n at which :func:`range_level` at sigma is defined (RANK_MARGIN sigma / n <= HIGHEST_LEVEL)."""
    least = max(1, math.ceil(RANK_MARGIN * sigma / HIGHEST_LEVEL))
    while range_level(sigma, least) is None:  # the rule itself decides the boundary (rounding)
        least += 1
    return least


def grid_points(indices: np.ndarray, half_widths: np.ndarray, depth: int = SEARCH_DEPTH) -> np.ndarray:
    """The grid points t_j(i) = -b_j + 2 b_j i / 2^depth of grid indices i (one column per public half-width b_j):
    the search's thresholds and ranges here, the histograms' cell edges (:mod:`dpcvx.privacy.column_histogram`)."""
    bounds = np.asarray(half_widths, dtype=float)
    return -bounds + np.ldexp(2 * bounds * np.asarray(indices, dtype=float), -depth)


def grid_cell(half_widths: np.ndarray) -> np.ndarray:
    """The width 2 b / 2^D of a grid cell of each column."""
    return np.ldexp(2 * np.asarray(half_widths, dtype=float), -SEARCH_DEPTH)


#: The values a block of :class:`ValueBlocks` should hold (2^15, 256 kB): :class:`_BinnedCounts` makes a few
#: temporaries of a block's size, so a memmap's search holds a few MB whatever n.
VALUE_BLOCK = 1 << 15


@dataclass(frozen=True)
class ValueBlocks:
    """n x k values read by blocks of rows, never held whole: each call of ``read`` is one pass, yielding float64
    blocks of k columns in row order (a memmap's rows clipped onto R as each block is read, beside their labels:
    :meth:`dpcvx.models.linear_regression.AdaSSPPlan.execute`)."""

    n: int
    k: int
    read: Callable[[], Iterator[np.ndarray]]


def release_ranges(values: np.ndarray | ValueBlocks, half_widths: np.ndarray, level: float, sigma: float,
                   rng: np.random.Generator) -> np.ndarray:
    """The 2 x k released grid points (low row, high row) of the searches for levels q and 1 - q.

    ``values`` (n x k) are the rows clipped onto the public bounds (features onto ||x|| <= R, the label onto
    [-B, B]), an array or :class:`ValueBlocks` read by row blocks in two passes (:class:`_BinnedCounts`: the same
    counts, so the same release to the bit); ``half_widths`` the public b_j. Each step draws 2 k Gaussian values
    (module docstring): they are drawn at once, the D steps' in order (the same stream as D draws of 2 k), so that
    the columns, whose searches are independent given their noise, are searched a block at a time
    (:func:`_search`)."""
    bounds = np.asarray(half_widths, dtype=float)
    if isinstance(values, ValueBlocks):
        noise = sigma * rng.standard_normal((SEARCH_DEPTH, 2, values.k))
        return grid_points(_search(values.n, level, sigma, noise, _BinnedCounts(values, bounds)), bounds)
    rows = np.asarray(values, dtype=float)
    n, k = rows.shape
    noise = sigma * rng.standard_normal((SEARCH_DEPTH, 2, k))
    if n < _SET_ROWS:
        return grid_points(_search(n, level, sigma, noise, _EveryValue(rows.T, bounds)), bounds)
    high = np.empty((2, k), dtype=np.int64)
    for start in range(0, k, _BLOCK_COLUMNS):
        columns = slice(start, min(start + _BLOCK_COLUMNS, k))
        high[:, columns] = _search(n, level, sigma, noise[:, :, columns],
                                   _ValuesBetween(np.ascontiguousarray(rows[:, columns].T), bounds[columns]))
    return grid_points(high, bounds)


#: Columns searched together by :class:`_ValuesBetween`: a block of 16 columns of 100,000 rows is 12.8 MB.
_BLOCK_COLUMNS = 16
#: Rows from which the counts are read by :class:`_ValuesBetween`; below, from every value (:class:`_EveryValue`:
#: a scratch timing put the two even near 10,000 rows, where the sets' bookkeeping costs as much as it saves).
_SET_ROWS = 10_000


class _Counter(Protocol):
    """The counts of a block's searches: at the midpoints (grid indices, 2 x b), then told where each search went."""

    def at(self, middle: np.ndarray) -> np.ndarray: ...

    def moved(self, below: np.ndarray, crossed: np.ndarray, low: np.ndarray, high: np.ndarray) -> None: ...


def _search(n: int, level: float, sigma: float, noise: np.ndarray, counts: _Counter) -> np.ndarray:
    """The 2 x b grid indices the searches of b columns of n values end at: D steps, each the counts at the
    midpoints (``counts.at``), their noise (``noise[step]``, 2 x b, sigma already applied) rounded to the grid, the
    decisions, and the counter told where each search went."""
    b = noise.shape[2]
    targets = np.array([level * n, (1 - level) * n])[:, None]
    spacing = release_grid_spacing(sigma)
    low, high = np.zeros((2, b), dtype=np.int64), np.full((2, b), 1 << SEARCH_DEPTH, dtype=np.int64)
    for step in range(SEARCH_DEPTH):
        middle = (low + high) // 2
        below = counts.at(middle)
        noisy, _ = round_to_grid(below.astype(float) + noise[step], spacing, 0)
        crossed = noisy >= targets
        high, low = np.where(crossed, middle, high), np.where(crossed, low, middle)
        counts.moved(below, crossed, low, high)
    return high


class _EveryValue:
    """The counts #{i : v_ij <= t} read from every value, all columns at once (the columns of a row-major array
    as a transposed view: each comparison reads the rows in order)."""

    def __init__(self, columns: np.ndarray, bounds: np.ndarray) -> None:
        self.rows, self.bounds = columns.T, bounds

    def at(self, middle: np.ndarray) -> np.ndarray:
        return np.stack([(self.rows <= side).sum(axis=0) for side in grid_points(middle, self.bounds)])

    def moved(self, below: np.ndarray, crossed: np.ndarray, low: np.ndarray, high: np.ndarray) -> None:
        """Nothing to keep."""


class _ValuesBetween:
    """The counts #{i : v_ij <= t} read from a set S of each search's column values that holds every value
    between the search's ends t_low < v <= t_high.

    A value at or below t_low is at or below every later midpoint, and one above t_high above every later midpoint
    (the grid points do not decrease with their index: a product, a scaling by a power of two and a sum, each
    monotone in rounding), so the count at t is #{v <= a} + #{v in S : v <= t} for the lower end a at which S was
    made. S is cut down to the values between the ends when they are fewer than a quarter of it (the counts at the
    ends say how many). A NaN is counted nowhere, as by v <= t."""

    def __init__(self, columns: np.ndarray, bounds: np.ndarray) -> None:
        b = columns.shape[0]
        self.bounds = bounds
        lowest = grid_points(np.zeros(b, dtype=np.int64), bounds)
        highest = grid_points(np.full(b, 1 << SEARCH_DEPTH, dtype=np.int64), bounds)
        self.sets: list[list[np.ndarray]] = []
        self.base = np.zeros((2, b), dtype=np.int64)
        self.ends = np.zeros((2, 2, b), dtype=np.int64)  # the counts at t_low and t_high of each search
        for j, column in enumerate(columns):
            below_lowest = int(np.count_nonzero(column <= lowest[j]))
            between = column[(column > lowest[j]) & (column <= highest[j])]
            self.sets.append([between, between])
            self.base[:, j] = below_lowest
            self.ends[:, 0, j], self.ends[:, 1, j] = below_lowest, below_lowest + between.size

    def at(self, middle: np.ndarray) -> np.ndarray:
        thresholds = grid_points(middle, self.bounds)
        below = self.base.copy()
        for j, pair in enumerate(self.sets):
            for side in (0, 1):
                below[side, j] += np.count_nonzero(pair[side] <= thresholds[side, j])
        return below

    def moved(self, below: np.ndarray, crossed: np.ndarray, low: np.ndarray, high: np.ndarray) -> None:
        """The searches' new ends: the count at the midpoint is the new t_high's where they crossed, else t_low's;
        a set more than four times the values between its ends is cut down to them."""
        self.ends[:, 1] = np.where(crossed, below, self.ends[:, 1])
        self.ends[:, 0] = np.where(crossed, self.ends[:, 0], below)
        for j, pair in enumerate(self.sets):
            for side in (0, 1):
                held = pair[side]
                if 4 * (self.ends[side, 1, j] - self.ends[side, 0, j]) < held.size:
                    t_low = grid_points(low[side, j], self.bounds[j])
                    t_high = grid_points(high[side, j], self.bounds[j])
                    pair[side] = held[(held > t_low) & (held <= t_high)]
                    self.base[side, j] = self.ends[side, 0, j]


#: The steps :class:`_BinnedCounts` answers from its first pass: their midpoints are multiples of 2^(D - 7), and
#: after them each search's interval is 2^(D - 7) grid indices wide, which its second pass counts. Counts of
#: k 2^8 cells, then 2 k 2^7: a few kB a column, whatever n.
_COARSE_STEPS = 7


class _BinnedCounts:
    """The counts #{i : v_ij <= t} of values read by row blocks (:class:`ValueBlocks`) in two passes, all columns
    at once, each count an exact integer: the counts of :class:`_EveryValue`, so the same searches.

    A value's index f = min{i : v <= t(i)} (2^D + 1 when there is none: a NaN, or v above b; :func:`_grid_indices`)
    says where it is counted: v <= t(m) exactly when f <= m (the grid points do not decrease with their index, as
    :class:`_ValuesBetween` says). With F = D - ``_COARSE_STEPS``, the first pass counts each column's values by
    ceil(f / 2^F): the count at a multiple m of 2^F is the running sum up to m / 2^F, and the first
    ``_COARSE_STEPS`` midpoints are such multiples. After them each search's interval (low, high] is 2^F indices
    wide; the second pass counts each search's values with low < f <= high by f - low, and a later midpoint's count
    is the count at low plus their running sum up to it. Integer counts in any order of the rows: a memmap's blocks
    give the counts of its rows in memory."""

    def __init__(self, values: ValueBlocks, bounds: np.ndarray) -> None:
        self.values, self.bounds = values, bounds
        self.shift = SEARCH_DEPTH - _COARSE_STEPS
        cells = (1 << _COARSE_STEPS) + 2  # ceil(f / 2^F) in 0 ... 2^C + 1 (f = 2^D + 1 alone in the last)
        coarse = np.zeros(values.k * cells, dtype=np.int64)
        offsets = np.arange(values.k, dtype=np.int64) * cells
        for block in values.read():
            coarse += np.bincount((-(-_grid_indices(block, bounds) >> self.shift) + offsets).ravel(),
                                  minlength=coarse.size)
        self.coarse = np.cumsum(coarse.reshape(values.k, cells), axis=1)  # [j, c]: #{v <= t(c 2^F)}
        self.fine: np.ndarray | None = None  # [side, j, r]: #{v : low < f <= low + 1 + r}, after the coarse steps
        self.low = np.zeros((2, values.k), dtype=np.int64)
        self.base = np.zeros((2, values.k), dtype=np.int64)  # the counts at low

    def at(self, middle: np.ndarray) -> np.ndarray:
        columns = np.arange(self.values.k)
        if self.fine is None:
            return self.coarse[columns, middle >> self.shift]
        return self.base + self.fine[np.arange(2)[:, None], columns, middle - self.low - 1]

    def moved(self, below: np.ndarray, crossed: np.ndarray, low: np.ndarray, high: np.ndarray) -> None:
        """After the coarse steps (each interval 2^F wide): the second pass over the values in the intervals."""
        if self.fine is not None or np.any(high - low != 1 << self.shift):
            return
        width, k = 1 << self.shift, self.values.k
        fine = np.zeros(2 * k * width, dtype=np.int64)
        offsets = (np.arange(2)[:, None] * k + np.arange(k)) * width - low - 1  # [side, j]: where f's cell starts
        for block in self.values.read():
            indices = _grid_indices(block, self.bounds)
            for side in (0, 1):
                inside = (indices > low[side]) & (indices <= high[side])
                fine += np.bincount((indices + offsets[side])[inside], minlength=fine.size)
        self.fine = np.cumsum(fine.reshape(2, k, width), axis=2)
        self.low, self.base = low.copy(), self.coarse[np.arange(k), low >> self.shift]


def _grid_indices(block: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """For each value v of an m x k block (column j on the grid of half-width b_j) the least grid index i with
    v <= t_j(i), 2^D + 1 when there is none (v above b_j, or NaN): the estimate ceil((v + b) 2^D / (2 b)) of v
    clipped onto [-b, b], then moved up while t(i) < v and down while t(i - 1) >= v, by comparisons with the grid
    points themselves (:func:`grid_points`), so exact whatever the estimate's rounding."""
    top = 1 << SEARCH_DEPTH
    estimate = np.clip(block, -bounds, bounds)  # the estimate in one buffer (a NaN stays NaN)
    estimate += bounds
    estimate /= 2 * bounds
    estimate *= top
    np.ceil(estimate, out=estimate)
    estimate[np.isnan(estimate)] = top + 1
    indices = estimate.astype(np.int64)
    while True:
        up = (indices <= top) & (grid_points(indices, bounds) < block)
        if not up.any():
            break
        indices += up
    while True:
        down = (indices > 0) & (grid_points(indices - 1, bounds) >= block)
        if not down.any():
            break
        indices -= down
    return indices
