"""Private per-column ranges from noisy histograms: pure epsilon, discrete Laplace counts on a public dyadic grid.

The scale-free column statistic of the classifiers' ``column_statistics="ranges"``, and of their default "auto" when
its public rule draws it (docs/theory.md, section 34). For k columns with public half-widths b_j (R for a feature
of a row clipped onto ||x|| <= R):

* the grid of column j has the 2^D cells [t_j(i), t_j(i + 1)), t_j(i) = -b_j + 2 b_j i / 2^D (D =
  ``HISTOGRAM_DEPTH``); a value falls in cell min(floor((v + b_j) 2^D / (2 b_j)), 2^D - 1);
* the release is the k 2^D cell counts plus i.i.d. discrete Laplace noise of scale 2 k / eps_s (exact integer
  sampler, :func:`~dpcvx.privacy.exact_sampling.discrete_laplace_array`).

**Sensitivity.** Under replace-one (n public), replacing one record moves, in each column, one count down by 1 and
one count up by 1 (or none), so the k 2^D counts move by at most 2 k in L1 norm: the geometric mechanism
(Ghosh, Roughgarden and Sundararajan 2009) at scale 2 k / eps_s is eps_s-DP, with no floating-point gap (the
counts and the noise are integers; the cell of a value is a fixed function of one record).

**Post-processing** (public D, k, eps_s and the level q only): a cell whose noisy count is at most the threshold
T = ``THRESHOLD_FACTOR`` (2 k / eps_s) ln(2^D) is dropped (a cell with no rows passes it with probability at most
2^(-D THRESHOLD_FACTOR) / 2); the released range of column j is the pair of grid points at which the kept mass
crosses q and 1 - q of its total (the whole grid when nothing is kept; for the classifiers, when the kept cells hold
under ``KEPT_SHARE`` of the public n).

**Coarser grids** (:func:`coarser_range`, with the public n; the classifiers' map, and since the fifty-second
session a regressor's features, whose few noisy cells above T located a column spread thin in a sliver of it: a
uniform column of 0..100,000 in a quarter of its cells, the rest clipped): a column not located on the grid
of the counts (its kept cells hold under ``KEPT_SHARE`` n rows: spread over many cells, each under T) is sought on
the grids of 2^D' cells, D' = D - 1, ..., 1, whose counts are the sums of m = 2^(D - D') adjacent noisy counts:
post-processing of the same release, at no privacy cost. A coarse cell is kept above the threshold
(:func:`summed_threshold`) at which the Chernoff bound on a sum of m i.i.d. discrete Laplace variables keeps an
empty coarse cell with probability at most 2^(-D - D') / 2: at most 2^(-D) / 2 false cells per column on each grid,
as on the grid of the counts (about 0.014 per column over the seven coarser grids at D = 8); the first D' whose kept
cells hold ``KEPT_SHARE`` n rows gives the range (in the counts' grid indices). It is taken only when it is at most
2^D / (2 sqrt(k)) cells wide (a half-width at most half of R / sqrt(k), the column's share of the row bound: the map
at least doubles the column's scale, where a wider range would buy less and risk a centre off by half its width) and
the noisy counts within the map's window about its centre (``window`` half-widths: the rows the map keeps unclipped,
``RANGES_CLIP`` of the fill map) hold (1 - 2 q) n rows; else the whole grid. A coarse cell kept beside a neighbour
that holds as many rows under the threshold would locate the column in part of its rows, off its centre, and the map
would clip the rest. No grid whose threshold exceeds n is read: a cell kept there holds more noise than rows. A
column of 16,000 rows spread over 20 cells of the 2^8 grid (800 rows each, T = 2,662 at k = 12 and eps_s = 0.1) is
located on the grid of 2^5 cells (two sums of 6,400 rows against T = 5,174). Added in the forty-sixth session
(benchmarks/coarse_ranges.py): the threshold and finest first were written before any table was fitted, with the
share R / sqrt(k); the bound T <= n after the first run, where on rare3 at epsilon 0.3 (n = 7,500, T = 9,087 on the
grid of 4 cells) a noisy cell located a uniform column in half of its range; the half share and the window after a
test's table (3 normal columns of deviation R / 2, n = 6,000), where noisy cells of the grids of 2 and 4 cells
located columns in one half of the grid, and before the last held-out families were written.

**Levels of one column** (:func:`histogram_levels`, a label's range): with few columns the noise is small enough to
read the levels off the cumulative noisy counts without a threshold: the first cells where the running sum reaches
q n and (1 - q) n (n public). The running sum's noise after all 2^D cells has standard deviation below
sigma_r = sqrt(2 2^D) (2 k / eps_s) (:func:`running_noise`; a discrete Laplace's is below sqrt(2) times its scale),
and the level is the public rule of the range search, q = max(0.1, 4 sigma_r / n), not offered above 0.3
(:func:`dpcvx.privacy.column_ranges.range_level`): q n stays four noise deviations from an empty count. Unlike the
kept mass, whose points sit nearer the mode than the column's own levels, they target the levels q and 1 - q.

**The depth of a regression's feature grid** (:func:`histogram_depth`, DPHuberRegressor's ranges, docs/theory.md
section 34.1): the grid of 2^D cells for any public D <= ``HISTOGRAM_DEPTH``, the same sensitivity and proof. D is
the largest depth at which a column whose rows spread evenly over ``LOCATED_FILL`` of its public range puts more than
T(D) rows in each of its cells, LOCATED_FILL 2^D T(D) <= n: a function of the public n, k and eps_s only (at
eps_s = 0.2, k = 10 and n = 3,000, D = 6 and T(6) is about 830 rows; on the 2^8 grid such a column's 6.4 cells would
hold about 470 rows each, under T(8), about 1,100).

**The depth of a label's grid** (:func:`label_depth`, docs/theory.md section 34.1): the label's levels read on the
grid of 2^D cells over the public [-B, B], D the deepest depth in ``LABEL_MIN_DEPTH`` ... ``HISTOGRAM_DEPTH`` at which
the level q = max(0.1, 4 sigma_r / n) at sigma_r = sqrt(2 2^D) (2 / eps_l) is at most 0.3: a coarser grid has fewer
cells, so a running sum of fewer noisy counts, and a level at fewer rows (at eps_l = 0.09, D = 8 needs 6,705 rows,
D = 4 about 1,680). The sensitivity (2) and the proof are those of any public grid; D is a function of the public n
and eps_l only.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from scipy.optimize import minimize_scalar

from ..exceptions import InputError
from ..validation import is_integer
from .column_ranges import range_level
from .exact_sampling import IntegerSource, discrete_laplace_array

__all__ = ["HISTOGRAM_DEPTH", "HISTOGRAM_LEVEL", "KEPT_SHARE", "LABEL_LOCATED_DEPTH", "LABEL_MIN_DEPTH",
           "LOCATED_FILL", "THRESHOLD_FACTOR", "coarser_range", "histogram_depth", "histogram_level",
           "histogram_levels", "histogram_ranges", "histogram_scale", "histogram_sensitivity", "histogram_threshold",
           "label_depth", "noisy_histograms", "running_noise", "summed_threshold"]

#: Fixed on rare2 and a synthetic table (benchmarks/real_tables.py --column-statistics) before the held-out
#: alarms was fitted.
HISTOGRAM_DEPTH = 8     # D: 2^8 cells per column
THRESHOLD_FACTOR = 2.0  # T = 2 (scale) ln(2^D)
HISTOGRAM_LEVEL = 0.1   # q: the 10% and 90% points of the kept mass
#: A column is located only when its kept cells hold at least this share of the n rows (added in the sixth session,
#: after a default fit on 3,000 rows of 4 uniform columns, a test of tests/release, kept one noisy cell of 47 rows
#: and read the column as a point mass).
KEPT_SHARE = 0.5
#: The share of its public range a column may spread over and still be located by a regression's feature grid
#: (:func:`histogram_depth`). Fixed on the development tables energy, trips, sensors and clinic (with wages500, rents,
#: prices, claims and heavy; benchmarks/huber_ranges.py) in the seventh session, before the held-out regression family
#: was fitted.
LOCATED_FILL = 0.025
#: The coarsest grid of a label's levels (:func:`label_depth`): 2^4 = 16 cells over the public [-B, B]. Set in the
#: seventh session from a synthetic table (a label near 400 +- 190 in a public [0, 100000]); no real table was fitted.
LABEL_MIN_DEPTH = 4
#: The coarsest label grid on which the fit is not said to be poor (:class:`~dpcvx.DPHuberRegressor` warns below it):
#: on the same synthetic table the seeded median R^2 was about -20 at 2^4 cells, -0.3 to -0.8 at 2^5 and 0.58 to 0.71
#: at 2^6 (the seventh session's lead; docs/theory.md section 34.1, "the warning").
LABEL_LOCATED_DEPTH = 6


def histogram_sensitivity(columns: int) -> int:
    """The L1 sensitivity 2 k of the k columns' histograms under replace-one."""
    if not is_integer(columns) or columns < 1:
        raise InputError(f"the histograms need at least one column, got {columns!r}")
    return 2 * columns


def histogram_scale(columns: int, epsilon: float) -> Fraction:
    """The discrete Laplace scale 2 k / eps_s, exact."""
    return Fraction(histogram_sensitivity(columns)) / Fraction(epsilon)


def histogram_threshold(columns: int, epsilon: float, depth: int = HISTOGRAM_DEPTH) -> float:
    """The threshold T = THRESHOLD_FACTOR (2 k / eps_s) ln(2^D) a kept cell's noisy count exceeds."""
    return THRESHOLD_FACTOR * float(histogram_scale(columns, epsilon)) * depth * math.log(2)


def histogram_depth(n: int, columns: int, epsilon: float) -> int:
    """The depth D of a regression's feature grid (module docstring): the largest D in 1 ... HISTOGRAM_DEPTH with
    LOCATED_FILL 2^D T(D) <= n, else 1. Public n, k and eps_s only."""
    fits = [depth for depth in range(1, HISTOGRAM_DEPTH + 1)
            if LOCATED_FILL * (1 << depth) * histogram_threshold(columns, epsilon, depth) <= n]
    return max(fits, default=1)


#: Values binned at a time by :func:`noisy_histograms`: 2^15, buffers of 256 kB that stay in a core's L2 cache. Its
#: four buffers (the block, its clipped rows, the repeated half-widths, the cells) are the peak of a memmap fit's
#: ranges pass: at 2^16 they were 2 MB, 0.13 of a 16 MB file (100,000 x 20).
_BLOCK_VALUES = 1 << 15


def _cells(values: np.ndarray, half_widths: np.ndarray, depth: int = HISTOGRAM_DEPTH) -> np.ndarray:
    """The cell of each value of an m x k block (column j on the grid of half-width b_j, the half-widths broadcast
    against the block): min(floor((v + b) 2^D / (2 b)), 2^D - 1), v clipped onto [-b, b].

    In one float buffer, value by value the same floats as the formula's steps: the clip is max then min (NaN
    stays NaN, as in np.clip), then + b, the division by 2 b (not a multiplication by its reciprocal, which rounds
    differently), the product by 2^D, which is ldexp(., D) exactly (a power of two scales a float in [0, 1] with no
    rounding), floor, and the cap 2^D - 1 taken before the cast (on whole numbers in [0, 2^D] it commutes with it)."""
    bounds = np.asarray(half_widths, dtype=float)
    scaled = np.maximum(values, -bounds)
    np.minimum(scaled, bounds, out=scaled)
    np.add(scaled, bounds, out=scaled)
    np.divide(scaled, 2 * bounds, out=scaled)
    np.multiply(scaled, float(1 << depth), out=scaled)
    np.floor(scaled, out=scaled)
    np.minimum(scaled, (1 << depth) - 1, out=scaled)
    return scaled.astype(np.int64)


def noisy_histograms(values: np.ndarray, half_widths: np.ndarray, epsilon: float,
                     source: IntegerSource, depth: int = HISTOGRAM_DEPTH,
                     row_map: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """The k x 2^D released counts: each column's histogram plus discrete Laplace of scale 2 k / eps_s; with
    ``row_map`` (a public map of each row on its own), the histograms of the mapped rows.

    The counts are taken by blocks of rows (``_BLOCK_VALUES`` values), all k columns at once, each while it is in
    cache: the block's cells (:func:`_cells`, the half-widths repeated row by row, which numpy applies faster than a
    broadcast k-vector), column j's offset by j 2^D, one ``bincount`` of the k 2^D cells. The counts are those of
    each column's own histogram, exactly (integer sums; each value's cell is computed from that value alone). At
    1,000,000 x 20 they took 0.6 s column by column (strided reads, a temporary per step), now about 0.12 s.
    ``row_map`` maps each block as it is read, so no whole mapped copy is made (the classifiers' rows clipped onto
    R: :func:`dpcvx.models.column_statistics.release_ranges`). Each block is converted to float64 as it is read, so a
    memmap of another dtype is never copied whole (the same floats as converting it whole)."""
    n, k = values.shape
    cells, step = 1 << depth, max(1, _BLOCK_VALUES // k)
    bounds = np.tile(np.broadcast_to(np.asarray(half_widths, dtype=float), (k,)), (min(step, n), 1))
    offsets = np.arange(k, dtype=np.int64) * cells
    counts = np.zeros(k * cells, dtype=np.int64)
    for start in range(0, n, step):
        block = np.asarray(values[start:start + step], dtype=float)
        block = block if row_map is None else row_map(block)
        indices = _cells(block, bounds[:block.shape[0]], depth)
        indices += offsets
        counts += np.bincount(indices.ravel(), minlength=k * cells)
    noise = discrete_laplace_array(histogram_scale(k, epsilon), k * cells, source)
    return counts.reshape(k, cells) + noise.reshape(k, cells)


@functools.lru_cache(maxsize=256)
def summed_threshold(columns: int, epsilon: float, depth: int, summed: int) -> float:
    """The threshold a coarse cell must exceed when its noisy count is the sum of ``summed`` = m adjacent noisy cells
    of the grid of 2^D cells, m a power of two (module docstring, "Coarser grids"): the least T the Chernoff bound
    certifies, P[S >= T] <= min_s exp(-s T) M(s)^m <= 2^(-D - D') / 2 on the coarse grid of 2^D' = 2^D / m cells, S
    the sum of m i.i.d. discrete Laplace of scale t = 2 k / eps_s, M(s) = (1 - p)^2 / ((1 - p e^s) (1 - p e^-s)) its
    moment generating function, p = e^(-1/t), 0 < s < 1 / t. So T = t min_(0 < u < 1) (m ln M(u / t) -
    ln(2^(-D - D') / 2)) / u: the coarse grid's empty cells are kept with at most 2^(-D) / 2 false cells per column,
    as on the grid of the counts (:func:`histogram_threshold`, m = 1, whose T it is)."""
    if summed == 1:
        return histogram_threshold(columns, epsilon, depth)
    scale = float(histogram_scale(columns, epsilon))
    target = -(2 * depth - summed.bit_length() + 2) * math.log(2)  # ln(2^(-D - D') / 2), D' = D - log2(m)

    def bound(u: float) -> float:  # (m ln M(u / t) - ln target) / u, in units of t
        s, rate = u / scale, 1 / scale
        log_mgf = 2 * math.log(-math.expm1(-rate)) - math.log(-math.expm1(s - rate)) - math.log(-math.expm1(-s - rate))
        return (summed * log_mgf - target) / u

    best = minimize_scalar(bound, bounds=(1e-9, 1 - 1e-9), method="bounded", options={"xatol": 1e-10})
    return scale * float(best.fun)


def histogram_ranges(noisy: np.ndarray, epsilon: float, n: int | None = None, *,
                     window: float | None = None) -> np.ndarray:
    """The 2 x k grid indices (low row, high row) of the kept mass's q and 1 - q points (module docstring);
    0 and 2^D for a column with no kept cell or, given the public n (the classifiers' map), whose kept mass is under
    ``KEPT_SHARE`` n (a few cells that hold a small part of the rows: a column spread thinly, whose busiest cells
    cross T by noise, is not located by them). Given n and the map's ``window`` (how many half-widths of its range
    about its centre a column keeps unclipped), a column not located on the grid of the counts is sought on the
    coarser grids their sums of 2, 4, ... adjacent cells make (:func:`coarser_range`). Post-processing of the noisy
    counts with public numbers only."""
    k, cells = noisy.shape
    depth = cells.bit_length() - 1  # the depth of the counts' grid
    ranges = np.empty((2, k), dtype=np.int64)
    for j in range(k):
        found = _kept_range(noisy[j], histogram_threshold(k, epsilon, depth), n)
        if found is None and n is not None and window is not None:
            found = coarser_range(noisy[j], k, epsilon, n, window)
        ranges[:, j] = (0, cells) if found is None else found
    return ranges


def _kept_range(counts: np.ndarray, threshold: float, n: int | None) -> tuple[int, int] | None:
    """The grid indices of the q and 1 - q points of the mass of the cells above ``threshold`` (the left edge of the
    cell where it first reaches q of its total, the right edge of the one where it reaches 1 - q); None when no cell
    is kept or, given n, when the kept cells hold under ``KEPT_SHARE`` n."""
    cumulative = np.cumsum(np.where(counts > threshold, counts, 0))
    total = int(cumulative[-1])
    if total == 0 or n is not None and total < KEPT_SHARE * n:
        return None
    return (int(np.searchsorted(cumulative, HISTOGRAM_LEVEL * total)),
            int(np.searchsorted(cumulative, (1 - HISTOGRAM_LEVEL) * total)) + 1)


def coarser_range(counts: np.ndarray, columns: int, epsilon: float, n: int, window: float) -> tuple[int, int] | None:
    """A column's range on the coarser grids (module docstring, "Coarser grids"): for D' = D - 1, D - 2, ..., 1, the
    noisy counts summed 2^(D - D') at a time are the counts of the grid of 2^D' cells; the first D' at which
    :func:`_kept_range` at :func:`summed_threshold` locates the column gives its range, in the counts' grid indices,
    when it is at most 2^D / (2 sqrt(k)) cells wide (half-width at most half of R / sqrt(k), the column's share of the
    public ||x|| <= R: the map at least doubles its scale) and the noisy counts within ``window`` half-widths of its
    centre (the rows the map keeps unclipped) hold (1 - 2 q) n; None when it is not, when no D' locates it, or from
    the first grid whose threshold exceeds n (a cell kept there is kept by its noise). Public k, eps_s, n and the
    map's window only."""
    cells = counts.size
    depth = cells.bit_length() - 1
    for coarse in range(depth - 1, 0, -1):
        summed = 1 << (depth - coarse)
        threshold = summed_threshold(columns, epsilon, depth, summed)
        if threshold > n:  # a cell kept above more than n is kept by its noise: so on every coarser grid
            return None
        found = _kept_range(counts.reshape(-1, summed).sum(axis=1), threshold, n)
        if found is not None:  # a coarser grid's range is no narrower
            low, high = found[0] * summed, found[1] * summed
            centre, reach = (low + high) / 2, window * (high - low) / 2
            held = counts[max(0, math.floor(centre - reach)):math.ceil(centre + reach)].sum()
            taken = high - low <= cells / (2 * math.sqrt(columns)) and held >= (1 - 2 * HISTOGRAM_LEVEL) * n
            return (low, high) if taken else None
    return None


def running_noise(columns: int, epsilon: float, depth: int = HISTOGRAM_DEPTH) -> float:
    """sigma_r = sqrt(2 2^D) (2 k / eps_s): a bound on the standard deviation of a running sum of a column's 2^D
    noisy counts (module docstring)."""
    return math.sqrt(2 * (1 << depth)) * float(histogram_scale(columns, epsilon))


def histogram_level(n: int, columns: int, epsilon: float, depth: int = HISTOGRAM_DEPTH) -> float | None:
    """The public level q of :func:`histogram_levels` for n rows on the grid of 2^D cells: the range search's rule
    (:func:`~dpcvx.privacy.column_ranges.range_level`) at sigma_r (:func:`running_noise`), None when n is too
    small for it."""
    return range_level(running_noise(columns, epsilon, depth), n)


def label_depth(n: int, epsilon: float) -> int | None:
    """The depth D of a label's grid (module docstring): the deepest D in LABEL_MIN_DEPTH ... HISTOGRAM_DEPTH at
    which :func:`histogram_level` of one column at eps_l is defined, None when it is at none. Public n and eps_l
    only."""
    return next((depth for depth in range(HISTOGRAM_DEPTH, LABEL_MIN_DEPTH - 1, -1)
                 if histogram_level(n, 1, epsilon, depth) is not None), None)


def histogram_levels(noisy: np.ndarray, n: int, level: float) -> np.ndarray:
    """The 2 x k grid indices (low row, high row) at which each column's running noisy count first reaches q n
    (the crossing cell's left edge) and (1 - q) n (its right edge), n the public number of rows and q the public
    ``level`` (module docstring); 0 and 2^D where it never does. Post-processing of the noisy counts with public
    numbers only."""
    k, cells = noisy.shape
    cumulative = np.cumsum(noisy, axis=1)
    ranges = np.empty((2, k), dtype=np.int64)
    for j in range(k):
        low = np.flatnonzero(cumulative[j] >= level * n)
        high = np.flatnonzero(cumulative[j] >= (1 - level) * n)
        ranges[0, j] = low[0] if low.size else 0
        ranges[1, j] = max(high[0] + 1 if high.size else cells, ranges[0, j] + 1)
    return ranges
