"""Private per-column ranges from noisy histograms: pure epsilon, discrete Laplace counts on a public dyadic grid.

The scale-free column statistic of the classifiers' opt-in ``column_statistics="ranges"`` (docs/theory.md,
section 34). For k columns with public half-widths b_j (R for a feature of a row clipped onto ||x|| <= R):

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
crosses q and 1 - q of its total (the whole grid when nothing is kept).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..exceptions import InputError
from .exact_sampling import IntegerSource, discrete_laplace_array

__all__ = ["HISTOGRAM_DEPTH", "HISTOGRAM_LEVEL", "THRESHOLD_FACTOR", "histogram_ranges",
           "histogram_scale", "histogram_sensitivity", "noisy_histograms"]

#: Fixed on rare2 and a synthetic table (benchmarks/real_tables.py --column-statistics) before the held-out
#: alarms was fitted.
HISTOGRAM_DEPTH = 8     # D: 2^8 cells per column
THRESHOLD_FACTOR = 2.0  # T = 2 (scale) ln(2^D)
HISTOGRAM_LEVEL = 0.1   # q: the 10% and 90% points of the kept mass


def histogram_sensitivity(columns: int) -> int:
    """The L1 sensitivity 2 k of the k columns' histograms under replace-one."""
    if isinstance(columns, bool) or not isinstance(columns, int) or columns < 1:
        raise InputError(f"the histograms need at least one column, got {columns!r}")
    return 2 * columns


def histogram_scale(columns: int, epsilon: float) -> Fraction:
    """The discrete Laplace scale 2 k / eps_s, exact."""
    return Fraction(histogram_sensitivity(columns)) / Fraction(epsilon)


def _cells(values: np.ndarray, half_widths: np.ndarray) -> np.ndarray:
    """The cell of each value (n x k): min(floor((v + b) 2^D / (2 b)), 2^D - 1), v clipped onto [-b, b]."""
    bounds = np.asarray(half_widths, dtype=float)
    scaled = np.ldexp((np.clip(values, -bounds, bounds) + bounds) / (2 * bounds), HISTOGRAM_DEPTH)
    return np.minimum(np.floor(scaled).astype(np.int64), (1 << HISTOGRAM_DEPTH) - 1)


def noisy_histograms(values: np.ndarray, half_widths: np.ndarray, epsilon: float,
                     source: IntegerSource) -> np.ndarray:
    """The k x 2^D released counts: each column's histogram plus discrete Laplace of scale 2 k / eps_s."""
    rows = np.asarray(values, dtype=float)
    k, cells = rows.shape[1], 1 << HISTOGRAM_DEPTH
    indices = _cells(rows, half_widths)
    counts = np.stack([np.bincount(indices[:, j], minlength=cells) for j in range(k)]).astype(np.int64)
    return counts + discrete_laplace_array(histogram_scale(k, epsilon), k * cells, source).reshape(k, cells)


def histogram_ranges(noisy: np.ndarray, epsilon: float) -> np.ndarray:
    """The 2 x k grid indices (low row, high row) of the kept mass's q and 1 - q points (module docstring);
    0 and 2^D for a column with no kept cell. Post-processing of the noisy counts with public numbers only."""
    k, cells = noisy.shape
    threshold = THRESHOLD_FACTOR * float(histogram_scale(k, epsilon)) * math.log(cells)
    kept = np.where(noisy > threshold, noisy, 0)
    ranges = np.empty((2, k), dtype=np.int64)
    for j in range(k):
        cumulative = np.cumsum(kept[j])
        total = int(cumulative[-1])
        if total == 0:
            ranges[:, j] = (0, cells)
            continue
        ranges[0, j] = int(np.searchsorted(cumulative, HISTOGRAM_LEVEL * total))  # left edge of the crossing cell
        ranges[1, j] = int(np.searchsorted(cumulative, (1 - HISTOGRAM_LEVEL) * total)) + 1  # its right edge
    return ranges
