"""The per-record map from a raw row x to the vector the privacy theorems see.

1. An optional public feature map (for example random Fourier features), whose
   output norm is bounded by its ``norm_bound``.
2. Rows with ||x|| > R are scaled onto the sphere of radius R (``clip=True``,
   the default) or refused (``clip=False``). R is a public input, never read
   off the data.
3. With an intercept, a constant feature s is appended, so ||(x, s)|| <= sqrt(R^2 + s^2):
   the intercept is an ordinary coordinate, inside the norm bound, the
   regularizer and the noise (no unregularised, perturbed coordinate).

Every step is a function of one record alone, so the map preserves
neighbouring datasets.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import scipy.sparse as sparse

from ..exceptions import InputError
from ..tables import NonFiniteError, non_finite_error
from ..validation import (
    _checked_matrix,
    _converted,
    _first_non_finite,
    _read_only,
    check_matrix,
    check_rows,
    integer,
    refuse_non_finite,
    width_refusal,
)
from .repeats import has_repeats

__all__ = ["RowMap"]

# Scale clipped rows to R (1 - _SHRINK) so rounding never leaves them above R.
_SHRINK = 4 * np.finfo(float).eps
# Rows within this relative margin of R (round-off of a normalisation) are scaled
# onto the bound like any other, but not counted, warned about or refused.
_ROUNDOFF = 1e-9
# A clipping factor below this (close to the subnormal range) loses precision: such rows are
# scaled in steps instead (see RowMap.clip).
_NORMAL_FACTOR = 1e-290


# Sums of squares outside [_SQ_LOW, _SQ_HIGH] may have overflowed or underflowed: their rows
# are recomputed after dividing by the row's largest absolute entry.
_SQ_LOW = 1e-280
# From this R on, a row whose sum of squares is below _SQ_LOW is within R (:func:`_rows_to_measure`).
_WITHIN_ANY_R = 1e-139
_SQ_HIGH = 1e280
# Entries squared at a time by _csr_row_squares: a 2 MB buffer, which stays in cache.
_SQUARED_ENTRIES = 1 << 18
# Entries copied (squared and mapped while in cache) at a time by _copied_with_squares: about 2 MB, and at
# least _COPY_ROWS rows.
_COPY_ENTRIES = 1 << 18
_COPY_ROWS = 1024

# What validation.check_matrix returns: a float64 numpy array or a scipy.sparse CSR matrix. Any,
# because the code tells the two apart with sparse.issparse, which mypy cannot narrow on.
Matrix: TypeAlias = Any


class NormBoundError(InputError):
    """Rows have norm above the public bound R while ``clip=False`` forbids scaling them onto it: an InputError
    naming how many (``count``) and the first (``row``). A reader of row blocks renumbers the row within the whole
    input and says which rows it read (``where``)."""

    def __init__(self, count: int, row: int, norm_bound: float, where: str = "") -> None:
        super().__init__(f"{where}{count} rows have norm above data_norm={norm_bound:g}; the first is row {row}; "
                         "nothing was fitted. Rescale the data with public bounds, raise data_norm, or pass clip=True "
                         "to scale those rows onto the bound")
        self.count, self.row, self.norm_bound = count, row, norm_bound


def _checked_rows(X: Any, name: str = "X", spare_columns: int = 0,
                  map_block: Callable[[np.ndarray, np.ndarray], int] | None = None,
                  ) -> tuple[Matrix, bool, np.ndarray, int | None]:
    """(check_matrix(X), whether it is new, its rows' sums of squares, how many rows ``map_block`` clipped, or
    None where it was not called): one read of X for the finite check and the norms.

    A sum of squares is finite exactly when all its entries are finite and no square overflowed (NaN and
    inf propagate; squares are >= 0, so no inf - inf), so the sums decide the finite check; only when one
    is not finite are the entries checked one by one (same InputError, same entry named). This replaced a
    sum of all entries followed by the norms: RowMap.apply on a 300,000 x 500 array takes 0.055 s instead
    of 0.09-0.10 s (either memory order, one BLAS thread).

    A float64 array bound for a wider array (``spare_columns``) is copied by blocks of rows, each squared
    and, when given, passed to ``map_block(block, its sums of squares)`` (the copied rows with the spare
    columns: RowMap's clipping and intercept column) while it is in cache (:func:`_copied_with_squares`).

    A float64 CSR is read where it is (read-only views of the caller's arrays), sorted or not, when no
    (row, column) repeats (:func:`_without_repeats`): only a clipped row makes a copy (:meth:`RowMap.clip`).
    A CSR with a repeated entry becomes dpcvx's own copy, the repeats summed.
    """
    matrix, fresh = _converted(X, name, spare_columns)
    clipped = None
    if isinstance(matrix, sparse.csr_matrix):  # what _converted makes of a sparse X
        matrix, summed = _without_repeats(matrix)
        fresh = fresh or summed
    if spare_columns and not fresh and not sparse.issparse(matrix):  # the rows go to a wider array: copy and
        matrix, squares, clipped = _copied_with_squares(matrix, spare_columns, map_block)  # square (and map)
        fresh = True  # each block while it is in cache
    else:
        squares = _row_squares(matrix)
    if not np.all(np.isfinite(squares)):
        refuse_non_finite(X, matrix, name)
    return matrix, fresh, squares, clipped


def _copied_with_squares(X: np.ndarray, spare_columns: int,
                         map_block: Callable[[np.ndarray, np.ndarray], int] | None = None,
                         feature_rows: Callable[[np.ndarray, np.ndarray], None] | None = None,
                         ) -> tuple[np.ndarray, np.ndarray, int | None]:
    """(X copied into the first columns of a row-major array ``spare_columns`` wider, X's rows' sums of
    squares, the rows ``map_block`` clipped or None): one read of X and one write of the copy, a block of rows
    at a time, the squares taken from the block just copied while it is in cache, and the copied block (the
    spare columns included) then mapped in place by ``map_block(block, squares)`` while it is still there.
    A block holding an entry that is not finite is not mapped: the finite check refuses X.

    RowMap.apply with an intercept column (every estimator's default) read X twice before: the sums of
    squares, then the copy into the wider array; and then wrote the copy again, scaling the rows beyond R
    and the intercept column (1,000,000 x 20 on the bound: 146 ms against 92 ms inside it). Row-major, so
    that Newton reads the mapped rows by cache-sized row blocks (:mod:`dpcvx.solvers.choice`), as it reads
    a row-major X: the column-major copy made before (issue 44) was solved by whole-matrix products, 10.7 ms
    against 7.2 ms for a warm ``fit_intercept=True`` fit at 10,000 x 20 (least of 60, alternated processes,
    one BLAS thread).

    The sums are those of ``_row_squares(X)``, bit for bit: einsum sums each row of a block as it sums the row
    of the whole array; the mapped rows those of the map applied to the whole copy, each row's factor being a
    function of that row alone.

    ``feature_rows(block, out)``, a feature map that writes each row's map on its own (``transform_into``, as
    :class:`~dpcvx.data.standardiser.ColumnStandardiser`), makes the copy, the squares and the rest those of its
    output: each block of a row-major X is mapped straight into its rows of the copy and squared there while in
    cache, the same floats as a block of its whole output (einsum sums a row of the copy, whose rows are contiguous,
    as it sums that row alone), with no whole output made. A scratch block mapped first and then copied cost a
    second 2 MB buffer for each call: a memmap fit's passes call this once per block, and the fresh scratch made
    a pass over a 200,000 x 100 file take 0.32 s against 0.20 s (47,745 page faults against 1,100), and 2 MB more
    of the fit's peak memory."""
    buffer = np.empty((X.shape[0], X.shape[1] + spare_columns))
    out, squares = buffer[:, :X.shape[1]], np.empty(X.shape[0])
    step, clipped = max(_COPY_ROWS, _COPY_ENTRIES // buffer.shape[1]), 0
    for start in range(0, X.shape[0], step):
        block, sums = X[start:start + step], squares[start:start + step]
        if feature_rows is None:
            out[start:start + step] = block
        else:  # mapped straight into the copy
            block = out[start:start + step]
            feature_rows(X[start:start + step], block)
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            np.einsum("ij,ij->i", block, block, out=sums)
        if map_block is not None and (np.all(np.isfinite(sums)) or np.all(np.isfinite(block))):  # (a square that
            clipped += map_block(buffer[start:start + step], sums)  # overflowed: its row's norm is rescaled)
    return out, squares, None if map_block is None else clipped


def _without_repeats(matrix: sparse.csr_matrix) -> tuple[sparse.csr_matrix, bool]:
    """(the CSR with each (row, column) stored once, whether that is a new CSR): the CSR itself when no
    entry repeats (:func:`~dpcvx.data.repeats.has_repeats`), its indices sorted or not; else a copy with
    the repeated entries summed (and sorted).

    The products, the norms and the rest of the fit read unsorted indices as they are (a CSR product sums
    a row in any order). Copying and sorting the whole of the speed sweep's 200,000 x 100,000 CSR took
    20 ms (``benchmarks/results/csr_check.md``), and its 48 MB of fresh pages slowed the fit around it:
    docs/performance.md, round 6."""
    if not has_repeats(matrix):
        return matrix, False
    summed = matrix.copy()
    summed.sum_duplicates()
    return summed, True


def _row_squares(matrix: Matrix) -> np.ndarray:
    """Each row's sum of squared entries (inf where it overflowed, NaN or inf for a NaN or infinite entry).

    A CSR must have no duplicate entries (a repeated (row, column) entry adds up before it is squared).
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if sparse.issparse(matrix):
            return _csr_row_squares(matrix)
        return np.einsum("ij,ij->i", matrix, matrix)


def _csr_row_squares(matrix: Matrix) -> np.ndarray:
    """The rows' sums of squares of a CSR: its entries squared into a cache-sized buffer, a group of rows at a
    time, and summed by np.add.reduceat over each row's run (a zero after the run of the group's last row,
    so that trailing empty rows index inside it; an empty row gets the next entry, zeroed at the end).

    On a 200,000 x 100,000 CSR with 4,000,000 entries: 4.3 ms, where squaring all entries into one new
    array took 7.4 ms inside RowMap.apply (the page faults of a fresh 32 MB array) and the CSR product
    of those squares with a vector of ones 6.8 ms. numpy sums each run pairwise, not in storage order as
    that product did: the sums agree within rounding.
    """
    n, indptr, data = matrix.shape[0], matrix.indptr, matrix.data
    sums = np.empty(n)
    buffer = np.empty(_SQUARED_ENTRIES + 1)
    step = max(1, _SQUARED_ENTRIES * n // max(matrix.nnz, 1))  # rows per group: a buffer's worth on average
    for a in range(0, n, step):
        b = min(a + step, n)
        lo, hi = int(indptr[a]), int(indptr[b])
        squares = buffer[:hi - lo + 1] if hi - lo <= _SQUARED_ENTRIES else np.empty(hi - lo + 1)
        np.square(data[lo:hi], out=squares[:-1])
        squares[-1] = 0.0
        sums[a:b] = np.add.reduceat(squares, indptr[a:b] - lo)
    sums[indptr[1:] == indptr[:-1]] = 0.0
    return sums


def _row_scales(X: Matrix, squares: np.ndarray | None = None,
                rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(m, s) with ||x_i|| = m_i * s_i computed without overflow or underflow, for the rows ``rows`` of X (all
    when None).

    m_i is 1 for ordinary rows (s_i is then the plain norm) and the largest
    absolute entry of the row when its plain sum of squares overflowed (entries
    above about 1e154) or underflowed (entries below about 1e-154); s_i then is
    the norm of x_i / m_i, in [1, sqrt(d)]. A zero row has m = 1, s = 0.
    ``squares`` are all rows' plain sums of squares when the input check computed
    them (_checked_rows: X then is a CSR without a repeated entry, or an array).
    """
    if squares is None:
        squares = _plain_squares(X)
    if rows is not None:
        squares = squares[rows]
    scale = np.ones_like(squares)
    size = np.sqrt(squares)
    extreme = np.flatnonzero(~(squares <= _SQ_HIGH) | ((squares < _SQ_LOW) & (squares >= 0)))
    if extreme.size:
        scale[extreme], size[extreme] = _rescaled_norms(X[extreme if rows is None else rows[extreme]])
    return scale, size


def _plain_squares(X: Matrix) -> np.ndarray:
    """The rows' plain sums of squares of X (:func:`_row_squares`), a CSR's repeated entries summed first (a
    repeated entry adds up before it is squared)."""
    if sparse.issparse(X):
        X, _ = _without_repeats(sparse.csr_matrix(X))
    return _row_squares(X)


def _sqrt_threshold(limit: float) -> float:
    """The largest float t with fl(sqrt(t)) <= ``limit``, so that for every finite s >= 0, fl(sqrt(s)) > limit
    exactly when s > t (inf when every finite s has fl(sqrt(s)) <= limit).

    sqrt is correctly rounded (IEEE 754, numpy's and math's alike), hence non-decreasing in s: the floats s with
    fl(sqrt(s)) <= limit are those up to some t, found from fl(limit^2) by a few steps of one ulp."""
    limit = float(limit)
    threshold = limit * limit
    if math.isinf(threshold):  # limit > 1.34e154 >= fl(sqrt(s)) for every finite s
        return math.inf
    while math.sqrt(threshold) > limit:
        threshold = math.nextafter(threshold, 0.0)
    while math.sqrt(up := math.nextafter(threshold, math.inf)) <= limit:
        threshold = up
    return threshold


def _rows_to_measure(squares: np.ndarray, limit: float) -> np.ndarray:
    """The rows whose norms :meth:`RowMap.clip` compares with R = ``limit``: those whose plain sum of squares
    ``squares`` puts them beyond R (fl(sqrt(s)) > R, :func:`_sqrt_threshold`) and those whose sum may have
    overflowed or underflowed (or is NaN), measured by :func:`_row_scales`. Every other row is within R, and
    within R (1 + _ROUNDOFF).

    A sum below ``_SQ_LOW`` (a zero row among them) is measured only for R below ``_WITHIN_ANY_R``: each square is
    computed to a relative u or, gone subnormal, to 2^-1075, and d nonnegative terms sum to a relative (d - 1) u
    (Higham, Accuracy and Stability of Numerical Algorithms, 2002, chapter 4), so such a row has
    ||x||^2 < 2 _SQ_LOW + d 2^-1074 < 3 _SQ_LOW for d u < 1/2 and d < 2^50: ||x|| < sqrt(3 _SQ_LOW) < R. Zero rows
    were all measured before, a gather of each: a third of the rows zero at 100,000 x 200 took 31 ms of a 0.39 s fit
    (a one-off profile).

    When none is either, as for rows inside or on the bound, two reductions over the
    sums decide it (no sqrt, no n-vector made): RowMap.clip of 1,000,000 x 20 rows on the bound (balance 2%), their
    sums given, 15.1 -> 0.24 ms, where it took every row's sqrt, its scale of ones and R / scale; RowMap.apply
    32.5 -> 13.2 ms (least of 15 calls in each of 3 processes alternating with main at b8f86bf, one thread)."""
    if not squares.size:
        return np.empty(0, dtype=np.intp)
    threshold = _sqrt_threshold(limit)
    high = squares.max()  # NaN when one is NaN
    low_within = limit >= _WITHIN_ANY_R  # a sum below _SQ_LOW is a row within R
    if (low_within or squares.min() >= _SQ_LOW) and high <= _SQ_HIGH:  # no extreme sum to measure
        return np.empty(0, dtype=np.intp) if high <= threshold else np.flatnonzero(squares > threshold)
    beyond = ~(squares <= min(threshold, _SQ_HIGH))
    return np.flatnonzero(beyond if low_within else beyond | ((squares < _SQ_LOW) & (squares >= 0)))


def _per_row(n: int, rows: np.ndarray, values: Any) -> np.ndarray:
    """An n-vector of 1.0 holding ``values`` at ``rows``: a factor for every row (x * 1.0 == x)."""
    out = np.ones(n)
    out[rows] = values
    return out


def _scale_entries(data: np.ndarray, indptr: np.ndarray, factors: np.ndarray) -> None:
    """Multiply each CSR row's entries (``data`` in place, rows ``indptr``) by its row's factor: by blocks of about
    _COPY_ENTRIES entries, so that the factors repeated per entry take a cache-sized buffer, not one float per entry
    of the whole matrix (the same products)."""
    n = indptr.size - 1
    step = max(1, _COPY_ENTRIES * n // max(int(indptr[-1]), 1))
    for start in range(0, n, step):
        stop = min(n, start + step)
        first, last = int(indptr[start]), int(indptr[stop])
        if last > first:
            data[first:last] *= np.repeat(factors[start:stop], np.diff(indptr[start:stop + 1]))


def _with_intercept_slots(X: Matrix) -> tuple[sparse.csr_matrix, np.ndarray]:
    """(a new CSR, one column wider than CSR X, each row holding X's entries in X's order then an entry of value 0 in
    the last column, the positions of those last entries in its data): built once, in the layout, index type and
    values of ``sparse.hstack([X, column], format="csr")``, without hstack's two concatenated intermediate copies of
    X's entries (s62: a sparse fit held about three copies of X; RowMap.apply of a 40,000 x 5,000 CSR with 1.2
    million entries, its rows clipped, peaked at 3.14 times X's bytes, now 1.41:
    tests/data/test_sparse_intercept_copy.py)."""
    n, d = X.shape
    entries = int(X.indptr[-1])
    total = entries + n
    index_type = np.int32 if max(total, d) <= np.iinfo(np.int32).max else np.int64  # as scipy's CSR keeps them
    indptr = np.add(X.indptr, np.arange(n + 1), dtype=index_type)
    slots = indptr[1:] - 1
    kept = np.ones(total, dtype=bool)
    kept[slots] = False
    data = np.zeros(total)
    data[kept] = X.data[:entries]
    indices = np.empty(total, dtype=index_type)
    indices[kept] = X.indices[:entries]
    indices[slots] = d
    return sparse.csr_matrix((data, indices, indptr), shape=(n, d + 1)), slots


def _rescaled_norms(rows: Matrix) -> tuple[np.ndarray, np.ndarray]:
    """(largest absolute entry m, norm of x / m) of each row (m = 1 for a zero row): rows whose plain sum of
    squares overflowed or underflowed (a CSR without duplicate entries)."""
    with np.errstate(under="ignore"):
        if sparse.issparse(rows):
            peak = np.asarray(abs(rows).max(axis=1).todense(), dtype=np.float64).ravel()
        else:
            peak = np.max(np.abs(rows), axis=1)
        peak = np.where(peak > 0, peak, 1.0)
        if sparse.issparse(rows):
            rows = sparse.csr_matrix(rows)
            row_of_entry = np.repeat(np.arange(rows.shape[0]), np.diff(rows.indptr))
            unit = rows.data / peak[row_of_entry]
            sums = np.bincount(row_of_entry, weights=unit * unit, minlength=rows.shape[0])
        else:
            unit = rows / peak[:, None]
            sums = np.einsum("ij,ij->i", unit, unit)
    return peak, np.sqrt(sums)


def _row_norms(X: Matrix) -> np.ndarray:
    """Row norms (inf where a norm exceeds the largest float; no row is zeroed by overflow)."""
    scale, size = _row_scales(X)
    with np.errstate(over="ignore"):
        return scale * size


def mapped_width(feature_map: Any, input_dim: int) -> int:
    """The output width of ``feature_map`` on rows of ``input_dim`` features, read off its ``transform`` of one zero
    row (a public input). A map that draws its parameters on first use
    (:class:`~dpcvx.data.kernels.RandomFourierFeatures`) draws them here, from the public width and its own
    ``random_state``: where a fit draws the map it was given (:meth:`RowMap.dimension`) and where a plan draws the
    caller's map before it copies it (:meth:`dpcvx.models.erm.PrivateERM.draw_feature_map`)."""
    return int(check_matrix(feature_map.transform(np.zeros((1, input_dim))), "feature_map.transform(X)").shape[1])


@dataclass(frozen=True)
class RowMap:
    """Feature map, clipping to the public bound R, optional intercept feature."""

    norm_bound: float
    feature_map: Any = None
    fit_intercept: bool = False
    intercept_scaling: float = 1.0

    @property
    def effective_norm_bound(self) -> float:
        """R of the vectors the theorems see: sqrt(R^2 + s^2) with an intercept."""
        if self.fit_intercept:
            return math.hypot(self.norm_bound, self.intercept_scaling)
        return self.norm_bound

    @property
    def maps_rows_alone(self) -> bool:
        """Whether each row's features are computed from that row alone into a given block (no feature map, or one
        with ``transform_into``, as :class:`~dpcvx.data.standardiser.ColumnStandardiser`): then :meth:`scores`,
        :meth:`features` and :meth:`apply` map a row-major array a block of rows at a time, and the groups of
        :meth:`block_rows` reproduce a whole read's scores."""
        return self.feature_map is None or callable(getattr(self.feature_map, "transform_into", None))

    def column_scale(self, dim: int) -> np.ndarray | None:
        """Public scales of the ``dim`` mapped columns' mean squared entries, for CG's preconditioner
        (:meth:`dpcvx.solvers.objective.PerturbedObjective.scale_preconditioner`): with an intercept column,
        s^2 for it (exact: every row holds s) and R^2 / (dim - 1) for each feature column (their mean when the
        rows lie on the bound, ||x|| <= R). None without an intercept column, where every column has the
        same public scale (a multiple of the identity preconditions nothing)."""
        if not self.fit_intercept or dim < 2:
            return None
        scale = np.full(dim, self.norm_bound ** 2 / (dim - 1))
        scale[-1] = self.intercept_scaling ** 2
        return scale

    def dimension(self, input_dim: int) -> int:
        """The mapped width: the feature map's output width (read off one zero row, a public input), plus
        the intercept column."""
        width = input_dim if self.feature_map is None else mapped_width(self.feature_map, input_dim)
        return width + (1 if self.fit_intercept else 0)

    def features(self, X: Any) -> Matrix:
        """The rows a model scores: checked input, through the feature map if there is one, clipped onto R
        (:meth:`clip`; no intercept column). Dense rows are checked and squared in one read (:func:`_checked_rows`:
        the same refusal, and the sums of squares :meth:`clip` would compute), a feature map's by blocks when it
        maps into them (:meth:`_mapped_by_blocks`); a CSR is clipped as it is."""
        name = "X"
        if self.feature_map is not None:
            checked = check_matrix(X)
            if self.maps_rows_alone and _row_major(checked):
                return self._mapped_by_blocks(checked, 0, self._clip_block)[0]
            X, name = self._transform(checked), "feature_map.transform(X)"
        if sparse.issparse(X):  # its repeated entries are not summed into a copy
            return self.clip(check_matrix(X, name))[0]
        rows, _, squares, _ = _checked_rows(X, name)
        return self.clip(rows, squares=squares)[0]

    def block_rows(self, width: int) -> int | None:
        """How many rows :meth:`scores` scores at a time of a dense input ``width`` columns wide, its blocks starting
        at row 0: scoring X's rows in groups of this many from row 0 gives the scores of X whole bit for bit (BLAS may
        sum the products of a block of another size in another order), so a reader of a file in chunks scores the rows
        its whole read scores (``dpcvx predict --chunk-rows``). None when the rows are mapped whole (a feature map
        without ``transform_into``), which no grouping reproduces."""
        width = integer("width", width)
        if not self.maps_rows_alone:
            return None
        return _score_rows(width)

    def scores(self, X: Any, coef: np.ndarray) -> np.ndarray:
        """The rows' scores ``features(X) @ coef.T`` (coef a d-vector: an n-vector; a (k, d) matrix: (n, k)), a
        dense X read once: each block of rows is converted to float64, mapped (a feature map that writes each row's
        map on its own, as :class:`~dpcvx.data.standardiser.ColumnStandardiser`, into a reused block),
        squared, checked, clipped and scored while it is in cache, with no whole copy.

        The rows scored are those of :meth:`features`, bit for bit (each row's map, sum of squares and clipping factor
        are functions of that row alone), and so is the refusal of a NaN or infinite entry (of X, else of the map's
        output), by its row and column in the whole of X (:func:`_first_refusal`); BLAS may sum a block's products in
        another order than the whole array's, so a score may differ from ``features(X) @ coef.T`` in its last bit. A
        CSR, or a feature map of whole arrays, go through :meth:`features` whole; any other input (a list, a table,
        an array of objects) is checked whole (:func:`~dpcvx.validation.check_matrix`, a table's columns by their
        names), then scored by blocks.

        A 2-D numeric array (a memmap, a view of one, as scikit-learn's input check gives it, or one in memory) is
        converted and checked a block at a time, in either memory order and any numeric dtype: converted whole, a
        float32 or Fortran-order file was copied whole into memory (1.05 to 2.5 times its rows in float64, by an
        estimator's predict, whose input check turns a memmap into a plain view of it, or a regressor's training-rows
        check on its own X), where a row-major float64 one is read where it lies either way. The scores of the same
        rows are the same bit for bit whether they lie in a file or in memory, in the same dtype and order.

        With a feature map, each block of X is also checked finite as it is read (one sum): a map may hide an
        infinite entry (the standardiser clips its columns to a public range), which :meth:`features` refuses.

        A predict on 1,000,000 x 20 rows with the standardiser took 92 ms for :meth:`features` (a whole mapped copy
        written, then read again by the product) against 8.6 ms for the product alone."""
        by_blocks = self.reads_by_blocks(X)
        if sparse.issparse(X) or not (by_blocks or self.feature_map is None):
            return self._scored(self.features(X), coef)
        matrix = X if by_blocks else check_matrix(X)  # another input (a list, a table) whole
        out = np.empty((matrix.shape[0], *coef.shape[:-1]))
        for _ in self.score_blocks(matrix, coef, out):
            pass
        return out

    def reads_by_blocks(self, X: Any) -> bool:
        """Whether :meth:`scores` converts, checks and scores ``X`` a block of rows at a time where it lies: a 2-D
        numeric array (a memmap, or one in memory) with a map of rows alone (:attr:`maps_rows_alone`)."""
        return isinstance(X, np.ndarray) and X.ndim == 2 and X.size > 0 and X.dtype.kind in "biuf" \
            and self.maps_rows_alone

    def score_blocks(self, matrix: Any, coef: np.ndarray,
                     out: np.ndarray | None = None) -> Iterator[tuple[int, np.ndarray]]:
        """(start, the scores of rows ``start`` .. ``start + len``) of :meth:`scores`, a block of :meth:`block_rows`
        at a time from row 0 (the same numbers bit for bit), for a checked matrix or an input :meth:`reads_by_blocks`:
        a caller that reduces the scores (an accuracy) holds one block's, not n. A refusal names its row in the
        whole of ``matrix``. With ``out`` (n rows), each block's scores are written into its rows of it."""
        by_blocks = self.reads_by_blocks(matrix)
        self._check_width(matrix.shape[1], coef)
        n, d = matrix.shape
        step = _score_rows(d)
        scratch = None if self.feature_map is None else np.empty((min(step, n), d))
        for start in range(0, n, step):
            raw = matrix[start:start + step]
            raw = _converted(raw, "X", 0)[0] if by_blocks else raw  # a float64 row-major block is used as it is
            block, raw_finite = raw, False
            if scratch is not None:  # the map may say it found raw finite (its sums of squares): not read again
                raw_finite = self.feature_map.transform_into(raw, scratch[:raw.shape[0]]) is True
                block = scratch[:raw.shape[0]]
            squares = _row_squares(block)
            if not (np.all(np.isfinite(squares)) or _all_finite(block)) or (
                    scratch is not None and not (raw_finite or _all_finite(raw))):  # an entry of X the map made
                raise _first_refusal(matrix, start, block)  # finite (clipped)
            clipped, _ = self.clip(block, in_place=scratch is not None, squares=squares)
            yield start, np.matmul(clipped, coef.T, out=None if out is None else out[start:start + step])

    def _scored(self, mapped: Matrix, coef: np.ndarray) -> np.ndarray:
        """``mapped @ coef.T`` of rows :meth:`features` gave, their width checked first."""
        self._check_width(mapped.shape[1], coef)
        return np.asarray(mapped @ coef.T)

    def _check_width(self, width: int, coef: np.ndarray) -> None:
        """Refuse rows whose mapped width is not the model's, saying "after the feature map" only of a map's rows (a
        plain linear model's refusal said it of rows no map had touched)."""
        if width != coef.shape[-1]:
            after = "" if self.feature_map is None else " after the feature map"
            raise width_refusal("X", width, coef.shape[-1], after=after)

    def _mapped_by_blocks(self, X: np.ndarray, spare_columns: int,
                          map_block: Callable[[np.ndarray, np.ndarray], int]) -> tuple[np.ndarray, int]:
        """(the feature map's rows of row-major X in a new row-major array ``spare_columns`` wider, each block mapped
        by ``map_block`` while in cache; how many rows it clipped): :func:`_copied_with_squares` with the map's
        ``transform_into`` (X read-only), and the refusal of a map's output that is not finite."""
        name = "feature_map.transform(X)"
        features, squares, clipped = _copied_with_squares(_read_only(X), spare_columns, map_block,
                                                          self.feature_map.transform_into)
        if not np.all(np.isfinite(squares)):
            refuse_non_finite(features, features, name)
        assert clipped is not None  # map_block was given
        return features, clipped

    def _clip_block(self, block: np.ndarray, squares: np.ndarray) -> int:
        """Clip rows of dpcvx's own buffer in place onto R (:meth:`clip`, their sums of squares given); how many were
        clipped."""
        return self.clip(block, in_place=True, squares=squares)[1]

    def _transform(self, X: Matrix) -> Any:
        """feature_map.transform(X) of checked rows, which the map reads through read-only views: they may be
        the caller's own arrays, so a map that writes to its input gets an InputError naming the fix, and
        the caller's data are left as they were."""
        try:
            return self.feature_map.transform(_read_only(X))
        except ValueError as error:
            if "read-only" not in str(error):
                raise
            raise InputError(
                "feature_map.transform(X) wrote to its input; dpcvx passes the rows read-only, since they may "
                "be the caller's own arrays. Make the map return new arrays (for example scikit-learn's "
                "Normalizer(copy=True))") from None

    def clip(self, X: Matrix, refuse: bool = False, in_place: bool = False,
             squares: np.ndarray | None = None, into: Matrix | None = None) -> tuple[Matrix, int]:
        """(rows with norm above R scaled onto the bound, how many were).

        Norms are computed without overflow: a row with entries near the
        largest float is scaled onto the bound like any other (not zeroed).
        ``in_place`` scales the rows of X itself: only for an array or CSR dpcvx made.
        Otherwise X is never written to; only the clipped rows are copied.
        ``squares``: X's rows' sums of squares, when the input check computed them. Only the rows whose sums
        put them beyond R, or may have overflowed or underflowed, have their norms taken (:func:`_rows_to_measure`):
        the same rows clipped, the same count and the same clipped rows as from every row's norm.
        ``into`` (a CSR X only): dpcvx's own CSR holding each row of X's entries, in X's order, followed by further
        entries of value 0 (:func:`_with_intercept_slots`), whose rows are scaled in place of a copy of X and
        returned (the further entries stay 0: 0 * f == 0 / a / b * R == 0).
        """
        R = self.norm_bound
        rows, scale, size, limit = self._measured(X, squares)
        beyond = size > limit
        refused = rows[size > limit * (1 + _ROUNDOFF)]
        count = int(refused.size)
        if count and refuse:
            raise NormBoundError(count, int(refused[0]), R)
        if not np.any(beyond):
            return (X if into is None else into), count
        rows, scale, size = rows[beyond], scale[beyond], size[beyond]
        # x -> x * (R / size) in one multiplication when that factor is a normal number; otherwise
        # (entries near the float limits, or a tiny R) x -> ((x / scale) / size) * R, whose
        # intermediate values all lie in [-1, 1] or [-R, R]: nothing overflows or goes subnormal
        target = R * (1 - _SHRINK)
        with np.errstate(under="ignore"):
            factors = R / size * (1 - _SHRINK)  # as before: bit-identical rows
        stepwise = (scale != 1.0) | (factors < _NORMAL_FACTOR)
        scaled, steps = rows[~stepwise], rows[stepwise]
        if sparse.issparse(X):  # one multiplication by the factors repeated per entry (x * 1.0 == x)
            X = into if into is not None else X if in_place else sparse.csr_matrix(X, copy=True)
            counts = np.diff(X.indptr)
            _scale_entries(X.data, X.indptr, _per_row(X.shape[0], scaled, factors[~stepwise]))
            if steps.size:
                stepped = np.zeros(X.shape[0], dtype=bool)
                stepped[steps] = True
                entries = np.repeat(stepped, counts)
                per_entry = np.repeat(np.arange(steps.size), counts[steps])
                X.data[entries] = X.data[entries] / scale[stepwise][per_entry] / size[stepwise][per_entry] * target
            return X, count
        source = X
        if scaled.size > X.shape[0] // 8:  # many rows: one pass without temporaries (x * 1.0 == x), into a new
            X = np.multiply(source, _per_row(X.shape[0], scaled, factors[~stepwise])[:, None],  # array unless
                            out=source if in_place else None)  # in place
            # (not a copy scaled in place: at 100,000 x 200, 60 ms instead of 73, one read of X fewer)
        else:
            X = X if in_place else X.copy(order="K")
            if scaled.size:
                X[scaled] *= factors[~stepwise, None]
        if steps.size:  # from the rows as they came (a factor of 1.0 left them as they were)
            X[steps] = source[steps] / scale[stepwise, None] / size[stepwise, None] * target
        return X, count

    def _measured(self, X: Matrix, squares: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                        np.ndarray]:
        """(the rows :meth:`clip` measures, in order, their scales, norms / scale, R / scale): row i is beyond R
        exactly when size > limit, with no overflow in scale * size. ``squares`` as :meth:`clip` takes them."""
        if squares is None:
            squares = _plain_squares(X)
        rows = _rows_to_measure(squares, self.norm_bound)  # every other row is within R: its sqrt is never taken
        scale, size = _row_scales(X, squares, rows)
        with np.errstate(under="ignore"):
            limit = self.norm_bound / scale
        return rows, scale, size, limit

    def _refusal(self, count: int, rows: Any, name: str) -> NormBoundError:
        """The error of ``clip=False`` when ``count`` rows lie beyond R (beyond its round-off margin), counted while
        dpcvx's copy was clipped: the first of them found by measuring the rows again (``rows``, the feature map's
        output when there is one, named ``name``), unclipped. A second read of the rows, on the failure only."""
        measured = check_matrix(rows, name)
        index, _, size, limit = self._measured(measured, None)
        return NormBoundError(count, int(index[size > limit * (1 + _ROUNDOFF)][0]), self.norm_bound)

    def _map_block(self, block: np.ndarray, squares: np.ndarray) -> int:
        """Map rows of dpcvx's own buffer in place, the intercept column last (a block of the copy while it is in
        cache, :func:`_copied_with_squares`, or a whole buffer): the rows beyond R scaled onto it (:meth:`clip`,
        its rows' sums of squares given), the column set to s. How many rows were clipped."""
        _, count = self.clip(block[:, :-1], in_place=True, squares=squares)
        block[:, -1] = self.intercept_scaling
        return count

    def with_intercept(self, X: Matrix) -> Matrix:
        """X with the intercept column s appended (a new array or CSR; X itself without an intercept)."""
        if not self.fit_intercept:
            return X
        if sparse.issparse(X):
            out, slots = _with_intercept_slots(X)
            out.data[slots] = self.intercept_scaling
            return out
        out = np.empty((X.shape[0], X.shape[1] + 1))
        out[:, :-1] = X
        out[:, -1] = self.intercept_scaling
        return out

    def split_weights(self, w: np.ndarray) -> tuple[np.ndarray, float]:
        """(coef, intercept) of weights over the mapped rows (the intercept feature last, scaled back)."""
        if self.fit_intercept:
            return w[:-1], float(w[-1]) * self.intercept_scaling
        return w, 0.0

    def apply(self, X: Any, refuse: bool = False) -> tuple[Matrix, int]:
        """(the mapped rows the theorems see, how many rows were clipped). X is never modified.

        The data are copied at most once: a converted input is clipped in place
        (with room for the intercept column allocated by the conversion); an
        input used as it is (contiguous float64) is copied only if a row is
        clipped or the intercept column is appended. With the intercept column the
        rows are row-major, whatever X's layout (Newton reads them by row blocks).
        """
        spare = 1 if self.fit_intercept else 0
        checked, source, name = None, X, "X"
        if self.feature_map is not None:
            checked, _ = _checked_matrix(X)
            if self.maps_rows_alone and _row_major(checked):  # no whole output of the map, without an intercept
                # too (its whole output, then checked, squared and clipped: apply of 100,000 x 20 rows 8.3 to 14.5 ms
                # of CPU against 5.6 to 5.9 by blocks, medians of 40 in alternated processes, the machine shared)
                features, count = self._mapped_by_blocks(checked, spare, self._map_block if spare else
                                                          self._clip_block)
                if count and refuse:
                    raise self._refusal(count, self._transform(checked), "feature_map.transform(X)")
                return features.base, count
            source, name = self._transform(checked), "feature_map.transform(X)"
            # a map's output that needs converting is converted as before (column-major), its squares and copy apart
            spare = spare if _used_as_it_is(source) else 0
        features, owned, squares, clipped = _checked_rows(source, name, spare_columns=spare,
                                                          map_block=self._map_block if spare else None)
        if clipped is not None:  # copied beside the intercept column and mapped, block by block (a feature map's
            if clipped and refuse:  # output too: its copy, squares and mapping in one pass, not three)
                raise self._refusal(clipped, source, name)
            return features.base, clipped
        if checked is not None:  # the map's output is written to only if it shares no memory with the input
            owned = owned or not (_shares(features, checked) or _shares(features, X))
        if not self.fit_intercept:
            return self.clip(features, refuse, in_place=owned, squares=squares)
        if sparse.issparse(features):  # one copy, into the CSR that also holds the intercept entries, clipped there
            out, slots = _with_intercept_slots(features)
            _, count = self.clip(features, refuse, squares=squares, into=out)
            out.data[slots] = self.intercept_scaling
            return out, count
        buffer = features.base if owned and spare and _has_spare_column(features) else None
        if buffer is None:  # one copy, into the array that also holds the intercept column
            buffer = np.empty((features.shape[0], features.shape[1] + 1))
            buffer[:, :-1] = features
        count = self._map_block(buffer, squares)  # dpcvx's own buffer: mapped whole, as the copy's blocks are
        if count and refuse:
            raise self._refusal(count, source, name)
        return buffer, count


def _score_rows(width: int) -> int:
    """The rows of a block :meth:`RowMap.scores` converts, maps and scores at once: about 2 MB of float64."""
    return max(1, _COPY_ENTRIES // max(width, 1))


def _row_major(X: Any) -> bool:
    """Whether checked rows X are a row-major array, which :meth:`RowMap._mapped_by_blocks` maps a block of rows at a
    time (a map that writes each row's map on its own, :attr:`RowMap.maps_rows_alone`)."""
    return isinstance(X, np.ndarray) and X.flags.c_contiguous


def _all_finite(block: np.ndarray) -> bool:
    """Whether every entry of ``block`` is finite: a finite sum says so in one pass with no temporary (a NaN or
    infinity propagates); only an infinite sum (maybe an overflow of finite entries) is checked entry by entry."""
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(np.sum(block))) or bool(np.all(np.isfinite(block)))


def _first_refusal(X: np.ndarray, start: int, mapped: np.ndarray) -> NonFiniteError:
    """The refusal :meth:`RowMap.features` gives a 2-D array X, finite before row ``start``, whose block of rows from
    ``start`` holds a NaN or infinite entry or maps to one (``mapped``), read a block at a time: X's first NaN or
    infinite entry from ``start`` on (:func:`~dpcvx.validation.check_rows`), as :meth:`~RowMap.features` checks X
    before mapping it; else the first of ``mapped`` (the feature map's output), by its row in the whole of X too."""
    try:
        check_rows(X, first=start)
    except NonFiniteError as error:
        return error
    row, column = _first_non_finite(mapped, mapped)
    return non_finite_error("feature_map.transform(X)", start + row, column)


def _used_as_it_is(matrix: Any) -> bool:
    """Whether the input check takes ``matrix`` as it is: a contiguous float64 array (either memory order)."""
    return isinstance(matrix, np.ndarray) and matrix.ndim == 2 and matrix.dtype == np.float64 and (
        matrix.flags.c_contiguous or matrix.flags.f_contiguous)


def _has_spare_column(features: np.ndarray) -> bool:
    """Whether ``features`` is the first columns of a row-major buffer one column wider."""
    base = features.base
    return (
        isinstance(base, np.ndarray) and base.ndim == 2 and base.flags.c_contiguous and base.dtype == np.float64
        and base.shape == (features.shape[0], features.shape[1] + 1)
        and features.__array_interface__["data"][0] == base.__array_interface__["data"][0]
    )


def _shares(a: Any, b: Any) -> bool:
    """Whether two dense arrays may share memory (False for anything else)."""
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
        return False
    return bool(np.may_share_memory(a, b))
