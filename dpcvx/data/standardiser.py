"""A per-column affine feature map with public (or privatised) parameters: x -> (x - centre) * multiplier.

The map of a fit with private column statistics (:mod:`dpcvx.models.column_statistics`): its centre and
multiplier are post-processing of one private release, and a released model keeps the map in its public
row map (``to_dict`` / ``from_dict``, a built-in feature map of the model file), so ``predict`` maps new rows
exactly as the fit did. Each row is mapped on its own; ``norm_bound`` is the public bound R the learner clips
the map's outputs onto (docs/theory.md, section 33). A map may also clip each output coordinate onto
[-clip, clip] first (:func:`range_map`, the map of AdaSSP's private ranges; docs/theory.md, section 16).

A map of private column statistics reads each row as its statistics read it: scaled onto ||x|| <= R first
(``input_bound``, the learner's public R; :meth:`RowMap.clip <dpcvx.data.rows.RowMap.clip>`, the same floats). The
statistics are of the rows clipped onto R (that bounds each record's contribution), so a map of raw rows beyond R
centred and scaled them at a location and spread they do not have: on coded columns (Likert codes 1 to 5, a
year of schooling 1 to 16) with R = 1, every row was mapped onto one clipped corner and the classifier predicted
one class, where rows scaled onto R first fit as well as without the statistics.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sparse
from numpy.typing import ArrayLike
from scipy.special import ndtri

from ..exceptions import InputError
from ..privacy.adassp import COLUMN_SPREAD, AdaSSPCalibration
from ..privacy.column_histogram import HISTOGRAM_DEPTH, HISTOGRAM_LEVEL
from ..privacy.column_ranges import LABEL_WIDTH, SEARCH_DEPTH, grid_cell, grid_points
from .rows import RowMap, _row_squares, _rows_to_measure

__all__ = ["CENTRE_PRIOR", "ColumnStandardiser", "FILL_FLOOR_CELLS", "FLOOR_CELLS", "LABEL_WIDTH", "RANGES_CLIP",
           "RANGES_FILL", "RANGE_CLIP", "RANGE_SPREAD", "REGRESSION_FLOOR_CELLS", "REGRESSION_WINDOW", "SPREAD",
           "adassp_map", "fill_level", "fill_map", "histogram_label_range", "is_statistics_map", "label_range",
           "least_half_width", "least_label_bound", "range_map", "ranges_map", "sums_map"]

#: The map of private ranges (:func:`range_map`, :func:`label_range`): a column's implied standard deviation
#: (half its range over the normal quantile z_(1-q)) becomes RANGE_SPREAD R / sqrt(d), each coordinate is clipped
#: onto RANGE_CLIP R / sqrt(d), a range is at least FLOOR_CELLS grid cells wide on each side, and the label's bound
#: is LABEL_WIDTH implied standard deviations (set in :mod:`dpcvx.privacy.column_ranges`, where noisy gradient
#: descent's residual clip B' / LABEL_WIDTH reads it too). Fixed on energy, trips, diabetes and wages500
#: (benchmarks/column_ranges.py) before the held-out clinic and sensors were fitted.
RANGE_SPREAD = 1.25
RANGE_CLIP = 2.5
FLOOR_CELLS = 4
#: The map of the released column sums (:func:`sums_map`): standardised columns of spread SPREAD R / sqrt(d), rows of
#: norm about R / 2; CENTRE_PRIOR is the variance (in R^2) of a centre uniform on [-R, R], all that ||x|| <= R says.
SPREAD = 0.5
CENTRE_PRIOR = 1 / 3
#: The classifiers' map of the ranges (:func:`fill_map`): the located columns' ranges fill F R (scaled by the located
#: share), each output clipped onto C F R / sqrt(d). Fixed on rare3, coded80, breast_cancer and two synthetic tables
#: before the held-out orders was fitted (docs/theory.md, section 34).
RANGES_FILL = 1.0
RANGES_CLIP = 2.0
FILL_FLOOR_CELLS = 0.5  # fill_map's least half-width, in cells of the 2^HISTOGRAM_DEPTH grid
#: the features' half-widths at least this many histogram cells with a label's range (:func:`ranges_map`; a one-hot
#: column whose minority is under q has a one-cell range; at half a cell its rare value dominated the rows): fixed on
#: the regression development tables, with rents and wages500, before any held-out table was fitted
REGRESSION_FLOOR_CELLS = 4.0
#: How many half-widths of its range about its centre :func:`ranges_map` keeps a column unclipped: the output
#: (v - c) RANGE_SPREAD R z / (sqrt(d) h) reaches the clip RANGE_CLIP R / sqrt(d) at |v - c| = RANGE_CLIP h /
#: (RANGE_SPREAD z), z = z_(1 - q) at the histograms' level q. A function of the map's constants only: the window of
#: :func:`dpcvx.privacy.column_histogram.coarser_range` for a regressor's features (fifty-second session)
REGRESSION_WINDOW = RANGE_CLIP / (RANGE_SPREAD * float(ndtri(1 - HISTOGRAM_LEVEL)))
#: Values mapped at a time by :meth:`ColumnStandardiser.transform`: 2^14, blocks of 128 kB (in a core's L2 cache).
#: The centres and multipliers are repeated over that many values on each call: a memmap's fit maps every 2 MB block
#: on every pass, a call each, and at 2^16 the two 512 kB repeats made for each call took 1.5 to 2 times the map's
#: own time (a pass over 1,000,000 x 20 by 2 MB blocks, 20 to 500 columns, alternated in one process, the machine
#: shared) and 1 MB of the fit's peak; a whole array maps in the same time either way.
_BLOCK_VALUES = 1 << 14
#: Values scaled onto the input bound at a time by :meth:`ColumnStandardiser.transform_into` (a whole number of
#: _BLOCK_VALUES blocks): 2^18, 2 MB, the block RowMap's readers pass (``rows._COPY_ENTRIES``) in one RowMap.clip.
#: That clip is some ten numpy calls and a threshold found in Python; made on each 128 kB block it took most of a
#: predict's time (100,000 x 20: 2,760 clips in 20 predicts, 0.13 s of 0.28 s in cProfile).
_CLIP_VALUES = 1 << 18


class ColumnStandardiser:
    """x -> (x - centre) * multiplier, column by column, each output clipped onto [-clip, clip] when ``clip`` is
    given; outputs clipped onto ``norm_bound`` by the learner. With ``input_bound`` each row x is first scaled onto
    ||x|| <= input_bound (the rows a map of private statistics was released from: module docstring); an infinite
    ``input_bound`` reads the rows as they are, stated (a statistics map as format version 10 wrote it, recorded
    ``null``), where None states nothing (a map of the user's own)."""

    #: output column j is computed from input column j alone (:func:`dpcvx.data.notes.warn_clipped_rows` names them)
    keeps_columns = True

    def __init__(self, centre: ArrayLike, multiplier: ArrayLike, norm_bound: float,
                 clip: float | None = None, input_bound: float | None = None) -> None:
        centre_, multiplier_ = (np.array(values, dtype=np.float64).ravel() for values in (centre, multiplier))
        if centre_.size == 0 or centre_.shape != multiplier_.shape:
            raise InputError(f"a standardiser needs one centre and one multiplier per column, got {centre_.size} "
                             f"and {multiplier_.size}")
        if not (np.all(np.isfinite(centre_)) and np.all(np.isfinite(multiplier_)) and np.all(multiplier_ > 0)):
            raise InputError("a standardiser's centres must be finite and its multipliers finite and positive")
        if isinstance(norm_bound, bool) or not isinstance(norm_bound, (int, float)) \
                or not math.isfinite(norm_bound) or norm_bound <= 0:
            raise InputError(f"norm_bound must be a finite positive number, got {norm_bound!r}")
        for name, value in (("clip", clip), ("input_bound", input_bound)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or math.isnan(value) or value <= 0 or (name == "clip" and math.isinf(value))):
                raise InputError(f"{name} must be None or a positive number{', finite' * (name == 'clip')}, got "
                                 f"{value!r}")
        centre_.setflags(write=False)
        multiplier_.setflags(write=False)
        self.centre, self.multiplier, self.norm_bound = centre_, multiplier_, float(norm_bound)
        self.clip = None if clip is None else float(clip)
        self.input_bound = None if input_bound is None else float(input_bound)

    def transform(self, X: ArrayLike | sparse.spmatrix | sparse.sparray) -> np.ndarray:
        """The mapped rows, a new array (X is never written to): (x - centre) * multiplier, clipped onto
        [-clip, clip] when the map has a clip, of each row x scaled onto ||x|| <= input_bound first when it has one.

        By blocks of rows (``_BLOCK_VALUES`` values) while each is in cache, the centres and multipliers repeated row
        by row (numpy applies them faster than a broadcast d-vector), the clip in place on each block: value by value
        the same floats as ``np.clip((X - centre) * multiplier, -clip, clip)`` (NaN stays NaN).
        np.clip on the whole product took 0.34 s of the map's 0.42 s at 1,000,000 x 20 (a temporary of the whole);
        on each block in place it is the fastest clip numpy has: 1,000,000 x 20 mapped in 22 ms against 35 ms with
        maximum then minimum (numpy 2.4, one thread; the two take about the same time on numpy 2.0). A scipy.sparse X
        is read as its dense rows (centred, they are dense). The rows come out row-major whatever X's memory order:
        the norms of the input bound's scaling, summed along a row, rounded otherwise in a column-major block, so a
        DataFrame (column-major) and the same values in a numpy array released coefficients 4.5e-13 apart."""
        # a sparse X (predict after a fit on dense rows) is dense once centred: numpy's asarray of it is a 0-d object
        rows = (np.asarray(X.toarray(), dtype=np.float64) if isinstance(X, (sparse.spmatrix, sparse.sparray))
                else np.asarray(X, dtype=np.float64))
        mapped = np.empty(rows.shape)  # row-major whatever X's order: its rows' norms (input_bound) are summed alike
        self.transform_into(rows, mapped)
        return mapped

    def transform_into(self, rows: np.ndarray, out: np.ndarray) -> bool:
        """:meth:`transform` of checked float64 rows written into ``out`` (their shape, any strides): each row on its
        own, so a block of rows maps to the same floats as in the whole (:meth:`RowMap.apply
        <dpcvx.data.rows.RowMap.apply>` maps a block at a time into its wider buffer, with no whole copy). True when
        the rows' sums of squares (taken for the input bound) were all finite, so that every entry of ``rows`` is
        finite: a caller that refuses a NaN or infinite input need not read them again; False says nothing.

        The input bound's scaling takes a chunk of ``_CLIP_VALUES`` values at a time, the affine map and the clip the
        cache-sized blocks of ``_BLOCK_VALUES`` of each chunk. The rows' sums of squares are taken where they lie when
        both ``rows`` and ``out`` hold each row's entries contiguously (einsum sums a row alike whatever the stride
        between rows, :func:`dpcvx.data.rows._row_squares`); only a chunk with a row to scale is then copied into
        ``out`` and scaled there; other rows are mapped from ``rows`` straight into ``out``. Otherwise the chunk is
        copied into ``out`` first and its sums taken there, as before. Rows of ``out`` that are not adjacent are
        mapped a block at a time in a contiguous scratch block and copied in. The same floats either way."""
        if rows.ndim != 2 or rows.shape[1] != self.centre.size or out.shape != rows.shape:
            raise InputError(f"the standardiser maps rows of {self.centre.size} columns, got shape {rows.shape}")
        step = max(1, _BLOCK_VALUES // rows.shape[1])
        centre, multiplier = (np.tile(values, (min(step, rows.shape[0]), 1))
                              for values in (self.centre, self.multiplier))
        bound = self.input_bound
        scaling = RowMap(norm_bound=bound) if bound is not None and math.isfinite(bound) else None
        in_place = rows.strides[1] == out.strides[1] == rows.itemsize  # each row's entries contiguous in both
        chunk = max(step, _CLIP_VALUES // rows.shape[1] // step * step)
        finite = scaling is not None
        # rows of out with a gap between them (the fit's copy beside the intercept column): numpy runs a loop per row
        # over them, so each block is mapped in a contiguous scratch block and copied in (at 20 columns 20 us a block
        # against 45; at 5, 30 against 85)
        gapped = out.strides[0] != out.shape[1] * out.itemsize and out.shape[0] > 1
        scratch = np.empty((min(step, rows.shape[0]), rows.shape[1])) if gapped else None
        for first in range(0, rows.shape[0], chunk):
            source = rows[first:first + chunk]
            target = out[first:first + chunk]
            if scaling is not None:  # the rows scaled onto the input bound, as the statistics read them
                if not in_place:
                    np.copyto(target, source)
                    source = target
                squares = _row_squares(source)
                finite = finite and bool(np.all(np.isfinite(squares)))
                with np.errstate(invalid="ignore", divide="ignore"):  # a row with a NaN or an infinite entry stays
                    if source is not target and _rows_to_measure(squares, scaling.norm_bound).size:  # not finite,
                        np.copyto(target, source)  # and is refused by the map's caller
                        source = target
                    if source is target:
                        source = scaling.clip(target, in_place=True, squares=squares)[0]
            for start in range(0, source.shape[0], step):
                size = min(step, source.shape[0] - start)
                block = target[start:start + step] if scratch is None else scratch[:size]
                np.subtract(source[start:start + step], centre[:size], out=block)
                np.multiply(block, multiplier[:size], out=block)
                if self.clip is not None:
                    np.clip(block, -self.clip, self.clip, out=block)
                if scratch is not None:
                    np.copyto(target[start:start + step], block)
        return finite

    def to_dict(self) -> dict[str, Any]:
        """Its record; ``clip`` and ``input_bound`` only when given (a map without them is recorded as before), an
        infinite ``input_bound`` (the rows read as they are) as ``null``: JSON has no infinity."""
        bound = {} if self.input_bound is None else {
            "input_bound": self.input_bound if math.isfinite(self.input_bound) else None}
        return {"type": "ColumnStandardiser", "centre": self.centre.tolist(), "multiplier": self.multiplier.tolist(),
                "norm_bound": self.norm_bound, **({} if self.clip is None else {"clip": self.clip}), **bound}

    @classmethod
    def from_moments(cls, mean: np.ndarray, second: np.ndarray, floor: float, norm_bound: float, spread: float,
                     shrink: float = 1.0) -> ColumnStandardiser:
        """The map of privatised column means and second moments, in units of R (post-processing only).

        variance v_j = max(second_j - mean_j^2, floor); multiplier max(spread / sqrt(d v_j), 1), so a column of
        sd sqrt(v_j) R leaves with sd spread R / sqrt(d) or more and never narrower than given; centre
        shrink * mean_j * R (docs/theory.md, sections 16 and 33); the moments are of rows clipped onto R, which the
        map reads so too (``input_bound``)."""
        variance = np.maximum(second - mean * mean, floor)
        multiplier = np.maximum(spread / np.sqrt(mean.size * variance), 1.0)
        return cls(shrink * mean * norm_bound, multiplier, norm_bound, input_bound=norm_bound)

    @classmethod
    def from_dict(cls, data: dict) -> ColumnStandardiser:
        """Rebuild a saved map (numbers only; nothing is executed)."""
        if not isinstance(data, dict) or data.get("type") != "ColumnStandardiser" \
                or set(data) - {"clip", "input_bound"} != {"type", "centre", "multiplier", "norm_bound"}:
            raise InputError("not a saved ColumnStandardiser (its keys are type, centre, multiplier, norm_bound and "
                             "an optional clip and input_bound)")
        for key in ("centre", "multiplier"):  # JSON numbers: no text or flag read as one (np.array would take them)
            values = data[key]
            if not isinstance(values, list) or not all(
                    isinstance(value, (int, float)) and not isinstance(value, bool) for value in values):
                raise InputError(f"a saved ColumnStandardiser's {key} must be a list of numbers")
        bound = math.inf if "input_bound" in data and data["input_bound"] is None else data.get("input_bound")
        return cls(data["centre"], data["multiplier"], data["norm_bound"], data.get("clip"), bound)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ColumnStandardiser) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((tuple(self.centre), tuple(self.multiplier), self.norm_bound, self.clip, self.input_bound))

    def __repr__(self) -> str:
        return f"ColumnStandardiser({self.centre.size} columns, norm_bound={self.norm_bound:g})"


def is_statistics_map(saved: Any, expected: ColumnStandardiser | None) -> bool:
    """Whether a saved feature map is ``expected``, the map of private column statistics a loader recomputed from a
    file's released values: as this dpcvx writes it (``input_bound`` R), or as format version 10 wrote it, stated by
    an infinite ``input_bound`` (recorded ``null``: the rows read as they are; the step from version 10 of
    :mod:`dpcvx.release.records.upgrade` records it). A map with no ``input_bound`` states neither, and is not."""
    if not isinstance(saved, ColumnStandardiser) or expected is None:
        return False
    return saved == expected or saved == ColumnStandardiser(expected.centre, expected.multiplier, expected.norm_bound,
                                                            expected.clip, input_bound=math.inf)


def adassp_map(released: np.ndarray, calibration: AdaSSPCalibration, norm: float, n: int) -> ColumnStandardiser:
    """The map of AdaSSP's released column sums and sums of squares (mechanism ``adassp-standardised``;
    post-processing with the public n, d and R): means and second moments in units of R, the variance floor twice
    the sd of a second moment's noise, spread ``COLUMN_SPREAD``, no shrink of the centre. The sums' sensitivities
    are stated at the calibration's R_eff >= R, which bounds the rows clipped onto R."""
    d = released.size // 2
    mean = np.clip(released[:d] / (n * norm), -1.0, 1.0)
    second = released[d:] / (n * norm * norm)
    floor = 2 * calibration.column_sigmas[1] / (n * norm * norm)
    return ColumnStandardiser.from_moments(mean, second, floor, norm, COLUMN_SPREAD)


def _centre_and_spread(ranges: np.ndarray, level: float, floor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(centre, implied standard deviation) of each released range: the midpoint, and half the width (at least
    ``floor``) over z_(1-q), the normal quantile that half a range of levels q, 1 - q spans."""
    low, high = np.asarray(ranges, dtype=float)
    half = np.maximum((high - low) / 2, floor)
    return (low + high) / 2, half / float(ndtri(1 - level))


def range_map(ranges: np.ndarray, level: float, norm: float, floor: float | None = None) -> ColumnStandardiser:
    """The map of the features' released ranges (2 x d; mechanism ``adassp-ranged``, and the classifiers'
    ``column_statistics="ranges"``; post-processing with the public d, R and the level q): centre the range's
    midpoint, multiplier RANGE_SPREAD R / (sqrt(d) s_j) with s_j the implied standard deviation (half-widths at
    least the public ``floor``, by default FLOOR_CELLS cells of the search's grid), each output clipped onto
    RANGE_CLIP R / sqrt(d) (the learner then clips the row onto R), of each row scaled onto ||x|| <= R first, the rows
    the ranges were searched on."""
    d = np.shape(ranges)[1]
    least = np.full(d, least_half_width(norm, FLOOR_CELLS, SEARCH_DEPTH) if floor is None else floor)
    centre, spread = _centre_and_spread(ranges, level, least)
    share = norm / math.sqrt(d)
    return ColumnStandardiser(centre, RANGE_SPREAD * share / spread, norm, clip=RANGE_CLIP * share, input_bound=norm)


def least_half_width(norm: float, cells: float, depth: int = HISTOGRAM_DEPTH) -> float:
    """``cells`` cells of the public grid of 2^``depth`` cells over [-R, R]: the least half-width a map of private
    ranges gives a column (:func:`range_map`'s FLOOR_CELLS of the search's grid, :func:`ranges_map`'s
    ``floor_cells`` and :func:`fill_map`'s FILL_FLOOR_CELLS of the histograms'), which the NOT PRIVATE check of the
    columns they leave unresolved reads too (:func:`dpcvx.data.notes.unresolved_columns`). Exact: a power of two
    scales R."""
    return cells * math.ldexp(2 * norm, -depth)


def label_range(ranges: np.ndarray, level: float, label_bound: float) -> tuple[float, float]:
    """(c, B'): the label's released range (2 x 1) as a centre c and a bound B' = LABEL_WIDTH implied standard
    deviations, at most B + |c| (which covers every label in [-B, B]); the fit sees y - c clipped onto [-B', B']
    (post-processing with the public B and q)."""
    centre, spread = _centre_and_spread(ranges, level, FLOOR_CELLS * grid_cell(np.array([label_bound])))
    c = float(centre[0])
    return c, min(LABEL_WIDTH * float(spread[0]), label_bound + abs(c))


def histogram_label_range(cells: np.ndarray, label_bound: float, level: float,
                          depth: int = HISTOGRAM_DEPTH) -> tuple[float, float]:
    """(c, B') of a label's levels q, 1 - q released by its histogram on the grid of 2^depth cells (grid indices,
    2 x 1; :func:`dpcvx.privacy.column_histogram.histogram_levels`, the depth
    :func:`~dpcvx.privacy.column_histogram.label_depth`): :func:`label_range` on their grid points over the public
    [-B, B]."""
    bound = np.array([label_bound], dtype=float)
    return label_range(grid_points(cells, bound, depth), level, label_bound)


def least_label_bound(label_bound: float, level: float) -> float:
    """The least B' that :func:`label_range` gives for the public B at level q, whatever the released range: that of a
    range of one point at 0 (its half-width the floor, its centre 0; public: B and q only)."""
    return label_range(np.zeros((2, 1)), level, label_bound)[1]


def ranges_map(cells: np.ndarray, norm: float, floor_cells: float = 0.5,
               depth: int = HISTOGRAM_DEPTH) -> ColumnStandardiser:
    """The map of released ranges (grid indices on the grid of 2^depth cells, 2 x d):
    :func:`~dpcvx.data.standardiser.range_map` on their grid points, half-widths at least ``floor_cells`` cells of the
    2^HISTOGRAM_DEPTH grid (``REGRESSION_FLOOR_CELLS`` with a label's range; the
    classifiers' map is :func:`fill_map`), and no column narrower than it came (multipliers at least 1: a column
    whose cells were all dropped, range the whole grid, keeps its scale; post-processing with the public d and R)."""
    d = np.shape(cells)[1]
    points = grid_points(cells, np.full(d, norm), depth)
    ranged = range_map(points, HISTOGRAM_LEVEL, norm, least_half_width(norm, floor_cells))
    return ColumnStandardiser(ranged.centre, np.maximum(ranged.multiplier, 1.0), norm, ranged.clip, ranged.input_bound)


def fill_map(cells: np.ndarray, norm: float) -> ColumnStandardiser:
    """The classifiers' map of released ranges (grid indices, 2 x d; post-processing with the public d, R and D only).

    Half-widths h_j = (high_j - low_j) / 2 (at least half a cell). A column is located when its range is not the
    whole grid. The fill level t solves sum_j max(h_j, t)^2 = (F R)^2 k / d over the k located columns (t = 0 when
    their ranges already fill that much: :func:`fill_level`), F = ``RANGES_FILL``. A located column narrower than t
    is centred at its range's midpoint and multiplied by t / h_j; every other column (already as wide as t, or not
    located) keeps its public centre and scale (centre 0, multiplier 1). Each output is clipped onto
    ``RANGES_CLIP`` F R / sqrt(d) (the learner then clips the row onto R), of each row scaled onto ||x|| <= R first,
    the rows the histograms read."""
    d = np.shape(cells)[1]
    low, high = grid_points(cells, np.full(d, norm), HISTOGRAM_DEPTH)
    half = np.maximum((high - low) / 2, least_half_width(norm, FILL_FLOOR_CELLS))
    located = (np.asarray(cells[0]) > 0) | (np.asarray(cells[1]) < 1 << HISTOGRAM_DEPTH)
    level = fill_level(half[located], RANGES_FILL * norm * math.sqrt(np.count_nonzero(located) / d))
    raised = located & (half < level)
    return ColumnStandardiser(np.where(raised, (low + high) / 2, 0.0), np.where(raised, level / half, 1.0), norm,
                              RANGES_CLIP * RANGES_FILL * norm / math.sqrt(d), input_bound=norm)


def fill_level(half: np.ndarray, total: float) -> float:
    """The t >= 0 with sum_j max(h_j, t)^2 = total^2 (0 when sum_j h_j^2 >= total^2 or there is no h_j): with the
    widths sorted, t_m = sqrt((total^2 - sum_(j > m) h_j^2) / m) raises the m narrowest, and t is t_m for the largest
    m whose m-th narrowest width is at most t_m."""
    widths = np.sort(np.asarray(half, dtype=float))
    if widths.size == 0 or float(np.sum(widths ** 2)) >= total * total:
        return 0.0
    rest = np.append(np.cumsum((widths ** 2)[::-1])[::-1][1:], 0.0)  # sum of the widths beyond the m narrowest
    levels = np.sqrt(np.maximum(total * total - rest, 0.0) / np.arange(1, widths.size + 1))
    return float(levels[widths <= levels][-1])


def sums_map(released: np.ndarray, n: int, norm: float, scale: Fraction, bits: int) -> ColumnStandardiser:
    """The map from released column sums and sums of squares (2 d integers on the lattice 2^-bits of the unit rows,
    with discrete Laplace noise of ``scale``; docs/theory.md, section 33): post-processing with the public n, d, R."""
    d = released.size // 2
    lattice = math.ldexp(1.0, -bits)
    mean = np.clip(released[:d] * lattice / n, -1.0, 1.0)
    second = released[d:] * lattice / n
    noise = math.sqrt(2) * float(scale) * lattice / n  # the sd of a discrete Laplace is < sqrt(2) scale
    shrink = CENTRE_PRIOR / (CENTRE_PRIOR + noise * noise)  # the posterior mean under a centre uniform on [-R, R]
    return ColumnStandardiser.from_moments(mean, second, 2 * noise, norm, SPREAD, shrink)
