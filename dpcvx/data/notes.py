"""The NOT PRIVATE notes of a fit on its data (the :class:`~dpcvx.exceptions.ClippingWarning` counts of rows beyond
R, labels beyond B and sample weights outside [0, w_max]), shown only once every check of the call has passed.

A fit validates every input first and computes what it tells the data owner about the data after: the counts are
found while the rows, labels and weights are read (the same pass that checks them), so they are kept
(:func:`warn_clipped`) within :func:`checks_then_notes`, which a fit's checks run inside, and shown when the checks
complete. A call refused by a later check (a NaN or misshapen ``sample_weight``, a label outside the classes, delta
above 1/n, too few rows for a range search) shows none of them, as it spends nothing. Nothing here is released.

The note on rows beyond R (:func:`warn_clipped_rows`) names the columns that hold most of the clipped rows' squared
norms (:func:`heavy_columns`), by the names of the table the estimator was given (:func:`columns_named`) or by
position: on a raw table an identifier column (values up to 1e6) or a missing-value code (99, -9) puts most rows
beyond R, and a count alone did not say which column to fix. When more than half the rows were clipped,
:func:`most_rows_clipped` tells the NOT PRIVATE check of the release on its training rows
(:mod:`dpcvx.models.training_rows`) to name that cause first: a release on rows all scaled onto the bound predicted
one class on a balanced table (accuracy 0.51 with an identifier column left in, 0.81 without it).
"""

from __future__ import annotations

import contextvars
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any

import numpy as np
import scipy.sparse as sparse

from ..advice import a_few, command_line_runs, encoded_column, encoded_columns, named_widths, schema_named
from ..exceptions import (
    ClippingWarning,
    InputError,
    KernelScaleWarning,
    PublicSampleWarning,
    UnresolvedColumnWarning,
    warn_shown,
)
from ..tables import column_names
from . import transformer_api
from .rows import RowMap

__all__ = ["checks_then_notes", "notes_dropped", "row_clipping_note", "warn_clipped", "warn_clipped_rows",
           "clipping_normalises", "heavy_columns", "fourier_like", "columns_named", "input_column_names",
           "most_rows_clipped", "unresolved_columns",
           "warn_unresolved_columns", "unresolved_advice", "UNRESOLVED_SHARE", "FAR_APART", "FAR_APART_SHARE",
           "far_apart_share", "warn_far_apart", "warn_public_sample"]

_HELD: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("dpcvx_data_notes_held", default=None)
_NAMES: contextvars.ContextVar[Any] = contextvars.ContextVar("dpcvx_data_notes_column_names", default=None)
_MOSTLY_CLIPPED: contextvars.ContextVar[bool] = contextvars.ContextVar("dpcvx_data_notes_mostly_clipped",
                                                                       default=False)
#: a column dominates a row when it holds more than this share of the row's squared norm (an identifier or a 99 code
#: beside columns of order 1 holds 0.999 and more; three columns uniform on [-1, 1], clipped at R = 1 for no fault of
#: any column, each held more than half in about 23% of the clipped rows, and were named as identifiers)
_HEAVY_SHARE = 0.9
_HEAVY_ROWS = 0.1  # a column is named when it dominates at least this share of the clipped rows
_HEAVY_NAMED = 5  # at most this many columns named
_BLOCK_VALUES = 1 << 16  # clipped rows squared a block of about this many values at a time
_FOURIER_MIN_WIDTH = 8  # fewer columns are not read as random Fourier features (:func:`fourier_like`)
#: A located column is named by :func:`unresolved_columns` when its training rows' middle 80 % (their 10 % and 90 %
#: points, the levels the ranges target) spans under this share of the width its private range gave it. Measured
#: (scratch probes of the fifty-second session, not a benchmark) before it was fixed: spend near 200 declared
#: 0..1,000,000 read 0.017 (balanced accuracy 0.50; 0.81 declared 0..1,000); spend 0..150 declared 0..100,000 read
#: 0.10 (three classes at the majority rate), 0..20,000 read 0.51 (accuracy 0.75 against 0.80 declared 0..1,000);
#: raw columns in units 1 to 1,000 beside units of 1e5 under one R read under 0.001 (accuracy below the majority
#: rate). On the probes' other 13 classification and 30 regression tables and Adult's schema it named a column
#: only on a table of zip codes 94,000..94,999 declared 0..99,999 beside an area of 50..150 declared 0..10,000 (0.13,
#: DPHuberRegressor's least width of 8 cells), and on raw columns in units far apart under one R.
UNRESOLVED_SHARE = 0.25
_UNRESOLVED_FLOORS = 8  # only ranges at most this many floor widths wide are read: a wider one followed its rows' mass
_UNRESOLVED_ROWS = 1 << 14  # the check reads at most about this many rows, evenly spaced
_UNRESOLVED_VALUES = 1 << 18  # and keeps at most about this many values of the columns it reads (2 MB)
_UNRESOLVED_UNSCALED = 0.1  # and only when at least this share of them was scaled onto no bound


def row_clipping_note(clipped: int, n: int, norm_bound: float, heavy: tuple[tuple[str, int], ...] = (),
                      fourier: bool = False, sparse_rows: bool = False) -> str:
    """The ClippingWarning text for rows beyond the norm bound R, of every learner: the count (owner only), the
    columns that hold most of the clipped rows' squared norms (``heavy``: :func:`heavy_columns`) and the fix,
    columns scaled by public bounds; or, for rows that look like random Fourier features (``fourier``:
    :func:`fourier_like`), that slight clipping of them is by design; or, for rows of a sparse matrix with no heavy
    column (``sparse_rows``: bag-of-words, counts per document), that clipping onto R is l2 row normalisation
    (:func:`clipping_normalises`, :func:`_row_normalisation_note`)."""
    if fourier:
        return (f"{clipped} of {n} rows had norm above R = {norm_bound:g} and were scaled onto the bound (clip=True). "
                "NOT PRIVATE: this count is shown to you only and is not part of the release. Every entry is within "
                "sqrt(2/D) for the D columns, as the features of dpcvx.RandomFourierFeatures are: their norm is at "
                "most sqrt(2) and near 1, so at R = 1 (the estimators' default after the map) about half of them are "
                "scaled slightly onto the bound by design, covered by the proof, and the noise is sqrt(2) times "
                "smaller than at R = sqrt(2) (docs/kernels.md). If these rows are such features, nothing needs "
                "fixing")
    if clipping_normalises(sparse_rows, heavy):
        return _row_normalisation_note(clipped, n, norm_bound)
    named = ""
    if heavy:
        columns = "; ".join(f"{name} in {rows} of them" for name, rows in heavy)
        named = (f" The column holding nearly all of a clipped row's squared norm: {columns}. If its values are far "
                 "larger than the other columns', it is most often an identifier column (no feature: drop it) or "
                 "holds a missing-value code such as 99 or -9 (replace it before the fit); else declare its public "
                 "range (below).")
    return (f"{clipped} of {n} rows had norm above R = {norm_bound:g} and were scaled onto the bound (clip=True)."
            f"{named} NOT PRIVATE: {'these counts and names are' if heavy else 'this count is'} shown to you only "
            f"and {'are' if heavy else 'is'} not part of the release. To keep rows inside R, "
            "scale each column by bounds you know without looking at the data: dpcvx.PublicSchema with "
            "NumericColumn(name, low, high) and CategoricalColumn(name, categories) maps every row to norm <= 1; "
            "docs/getting-started.md ('Rows inside a public norm bound') explains why R must not be read off the data")


def clipping_normalises(sparse_rows: bool, heavy: tuple[tuple[str, int], ...]) -> bool:
    """Whether clipping rows onto R is read as row normalisation, not as a defect of the columns: the rows are a
    sparse matrix (``sparse_rows``: bag-of-words, counts per document), and no column holds nearly all of the clipped
    rows' squared norms (``heavy``: an identifier or a code such as 99 is a defect). Each clipped row is scaled to
    norm R: exactly l2 row normalisation times R, a map of each row alone. An analyst probe (session 69, P8 finding
    5): raw 0/1 bag-of-words rows of norm about 4.4 at R = 1 gave the same predictions, bit for bit, as rows
    l2-normalised first; the warnings called it a defect and advised a PublicSchema of 2,000 NumericColumns, which
    scored no better (balanced accuracy 0.500 to 0.507) at 6 to 8 s a fit. Dense rows keep the column advice, even
    where every row was clipped: two raw ages of 20 to 90 (tests/models/test_row_clipping_text.py) are all clipped
    with no column named, and there the rows' lengths are the signal, which row normalisation drops."""
    return sparse_rows and not heavy


def _row_normalisation_note(clipped: int, n: int, norm_bound: float) -> str:
    """The ClippingWarning text where the clipping is row normalisation (:func:`clipping_normalises`)."""
    every = clipped == n
    what = (f"All {n} rows (a sparse matrix) had norm above R = {norm_bound:g} and were scaled onto it (clip=True): "
            "that is l2 row normalisation, each row divided by its own norm and multiplied by R" if every else
            f"{clipped} of {n} rows (a sparse matrix) had norm above R = {norm_bound:g} and were scaled onto it "
            "(clip=True), each divided by its own norm and multiplied by R (l2 row normalisation of those rows; the "
            "others kept their norm)")
    return (f"{what}. NOT PRIVATE: this count is shown to you only and is not part of the release. Scaling a row by "
            "its own norm is a map of that row alone, public and covered by the proof: not a defect. It keeps each "
            "row's direction and drops its length, the usual map of bag-of-words or counts per document"
            + ("" if every else ", where normalising every row (each row divided by its own norm before the fit, or "
               "an R below every row's norm) treats the rows alike") + ". Where the rows' lengths carry the signal "
            "(numbers in their own units), scale each column by bounds you know without the data instead "
            "(dpcvx.PublicSchema with NumericColumn(name, low, high); docs/scale.md, 'Bag-of-words rows')")


def heavy_columns(mapped: Any, norm_bound: float, width: int, clipped: int) -> tuple[tuple[str, int], ...]:
    """The columns among the first ``width`` of the rows ``mapped`` (an array or CSR matrix, the ``clipped`` rows beyond
    R scaled onto it, which keeps each row's shares of its squared norm) that hold more than nine tenths
    (``_HEAVY_SHARE``) of the squared norm of at least a tenth of the rows on the bound, most such rows first, at most
    five: (name, rows) pairs, the name from :func:`columns_named` or "column j" (X[:, j]). A row on the bound is one
    whose norm is R within rounding: a row clipped, or one that was at R already, which the mapped rows cannot tell
    apart; so none is named unless nearly every row on the bound was clipped (an l2-normalised table with R = 1 and 5
    rows beyond it had all 2,000 rows on the bound, and its first column was named "in 1404 of them"). Read a block of
    those rows at a time."""
    squares = _leading_squares(mapped, width) if sparse.issparse(mapped) \
        else np.einsum("ij,ij->i", mapped[:, :width], mapped[:, :width])
    on_bound = np.flatnonzero(squares >= (norm_bound * (1 - 1e-9)) ** 2)
    if on_bound.size == 0 or on_bound.size > clipped + max(1, clipped // 20):
        return ()
    holds = _sparse_holds(sparse.csr_matrix(mapped), on_bound, squares, width) if sparse.issparse(mapped) \
        else _dense_holds(mapped, on_bound, squares, width)
    order = [j for j in np.argsort(-holds, kind="stable") if holds[j] >= _HEAVY_ROWS * on_bound.size]
    label = _column_label(width)
    return tuple((label(j), min(int(holds[j]), clipped)) for j in order[:_HEAVY_NAMED])


def _dense_holds(mapped: np.ndarray, on_bound: np.ndarray, squares: np.ndarray, width: int) -> np.ndarray:
    """:func:`heavy_columns`' count per column of an array's rows ``on_bound`` whose largest share of ``squares`` (the
    rows' sums of squares over the first ``width`` columns) lies in that column and exceeds _HEAVY_SHARE, a block of
    about _BLOCK_VALUES values at a time."""
    holds = np.zeros(width, dtype=np.int64)
    step = max(1, _BLOCK_VALUES // max(width, 1))
    for start in range(0, on_bound.size, step):
        rows = on_bound[start:start + step]
        share = np.asarray(mapped[rows][:, :width]) ** 2 / squares[rows][:, None]
        top = np.argmax(share, axis=1)
        holds += np.bincount(top[share[np.arange(rows.size), top] > _HEAVY_SHARE], minlength=width)
    return holds


def _sparse_holds(mapped: sparse.csr_matrix, on_bound: np.ndarray, squares: np.ndarray, width: int) -> np.ndarray:
    """:func:`heavy_columns`' count per column of a CSR's rows ``on_bound`` whose largest share of ``squares`` (the
    rows' sums of squares over the first ``width`` columns) lies in that column and exceeds _HEAVY_SHARE, read from the
    stored entries a block of about _BLOCK_VALUES of them at a time. An entry whose share exceeds 0.9 is its row's
    largest and the only one (the shares of a row add up to 1), so it is the column the dense blocks' argmax names:
    the same counts. Dense blocks of a wide CSR held a few rows each: a 50,000 x 20,000 CSR with every row clipped
    spent 7.0 of its fit's 7.1 s there in 16,668 blocks of 3 rows (s62)."""
    holds = np.zeros(width, dtype=np.int64)
    lengths = np.diff(mapped.indptr)[on_bound]
    step = max(1, _BLOCK_VALUES * on_bound.size // max(int(lengths.sum()), 1))
    for start in range(0, on_bound.size, step):
        rows = on_bound[start:start + step]
        block = mapped[rows]
        owner = np.repeat(np.arange(rows.size), np.diff(block.indptr))
        inside = block.indices < width
        share = block.data[inside] ** 2 / squares[rows][owner[inside]]
        holds += np.bincount(block.indices[inside][share > _HEAVY_SHARE], minlength=width)
    return holds


def _leading_squares(mapped: Any, width: int) -> np.ndarray:
    """The sums of squares of the first ``width`` columns of each row of the sparse ``mapped``, a block of rows of
    about _BLOCK_VALUES stored entries at a time (a row's sum reads that row alone: the whole slice's sums, within
    rounding, since numpy may sum a run in another order at another place in memory). The whole slice and its
    squares were two copies of the mapped rows beside them: a fit of a CSR with rows clipped peaked at 5.0 times X's
    bytes, of which this note took 2 (s62, tests/data/test_sparse_intercept_copy.py)."""
    mapped = sparse.csr_matrix(mapped)
    n = mapped.shape[0]
    squares = np.empty(n)
    step = max(1, _BLOCK_VALUES * n // max(mapped.nnz, 1))
    for start in range(0, n, step):
        block = mapped[start:start + step][:, :width]
        squares[start:start + step] = np.asarray(block.multiply(block).sum(axis=1)).ravel()
    return squares


def _column_label(width: int) -> Callable[[int], str]:
    """How a note names column j of ``width`` input columns: by the names of the table the estimator was given
    (:func:`columns_named`), else by the public schema's column that makes it (``dpcvx fit``:
    :func:`~dpcvx.advice.encoded_column`), else "column j" (X[:, j])."""
    table = _NAMES.get()
    names = None if table is None else input_column_names(table)
    if names is not None and len(names) == width:
        return lambda j: repr(str(names[j]))

    def label(j: int) -> str:
        name = encoded_column(j, width)
        return f"column {j}" if name is None else repr(name)
    return label


def unresolved_columns(X: Any, ranges: np.ndarray, floor: float, norm: float) -> np.ndarray:
    """The columns of X (an array or memmap, n x d) that private ranges located without resolving them: NOT PRIVATE.

    ``ranges``: the released 2 x d ranges (low, high) of the rows clipped onto ``norm`` R, in their values; ``floor``:
    the least width the map gives a range (twice its least half-width). A column is located when its range is not the
    whole [-R, R]; the map then scales it by w_j = max(high_j - low_j, floor). It is named when the 10 % and 90 %
    points of the rows that no bound scaled (norm below R and below the largest: a schema's or the learner's clip
    moves a column of one value with each row's factor) span more than 0 (not one value on most rows: a flag or a
    code, which a range of one point states well) and under ``UNRESOLVED_SHARE`` w_j: its values then fill that share
    of the width it is scaled by. Only ranges at most ``_UNRESOLVED_FLOORS`` floors wide are read (a wider one
    followed its rows' mass), of at most ``_UNRESOLVED_ROWS`` evenly spaced rows (fewer where the columns read would
    keep more than ``_UNRESOLVED_VALUES`` values), a block at a time, and only when
    ``_UNRESOLVED_UNSCALED`` of them were scaled onto no bound."""
    low, high = np.asarray(ranges, dtype=float)
    width = np.maximum(high - low, floor)
    located = (low > -norm) | (high < norm)
    read = np.flatnonzero(located & (width <= _UNRESOLVED_FLOORS * floor))
    if read.size == 0 or not isinstance(X, np.ndarray) or X.shape[0] == 0:
        return read[:0]
    # evenly spaced rows, read a block at a time: their norms and the columns read, no copy of the rows (a memmap's
    # fit grew by the whole sample, half of a 160 MB file)
    most = max(1, min(_UNRESOLVED_ROWS, _UNRESOLVED_VALUES // read.size))
    rows = np.arange(0, X.shape[0], max(1, -(-X.shape[0] // most)))
    step = max(1, _BLOCK_VALUES // max(X.shape[1], 1))
    parts = [(np.linalg.norm(block := np.asarray(X[rows[start:start + step]], dtype=np.float64), axis=1),
              block[:, read]) for start in range(0, rows.size, step)]
    norms, values = np.concatenate([part[0] for part in parts]), np.concatenate([part[1] for part in parts])
    # rows scaled onto a bound (R, or a schema's norm: the largest) move a column that holds one value with their
    # factor, which reads as spread: Adult's capital gains, 0 on 90 % of the rows, read 0.10 to 0.15 of their width
    unscaled = norms < min(float(norms.max()), norm) * (1 - 1e-9)
    if np.count_nonzero(unscaled) < _UNRESOLVED_UNSCALED * rows.size:
        return read[:0]
    lows, highs = np.quantile(values[unscaled], [0.1, 0.9], axis=0)
    spread = highs - lows
    return read[(spread > 0) & (spread < UNRESOLVED_SHARE * width[read])]


def unresolved_advice(owner: str) -> str:
    """What follows :func:`warn_unresolved_columns`'s finding, by the estimator whose map located the columns
    (``owner``: "classifier" for the classifiers' map, "DPHuberRegressor" for the regression map of private ranges and
    the label's, "DPLinearRegression" for its search's), as measured by benchmarks/unresolved_advice.py, where a setting
    is named only if it did better than the warned fit in every development cell where the warning fired and passed
    the held-out check (better in at least 80 % of the held-out cells, worse by more than 0.05 in none). After
    DPLogisticRegression and DPHuberSVM a declared range closer to the column's values did (better in 4 of 4
    development and 20 of 20 held-out cells; the log scale in 4 of 4 and 13 of 20, column_statistics=False in 0 of
    4). After DPHuberRegressor none did: on a label linear in a lognormal or gamma column the log scale did worse in
    16 of 16 cells and a closer range in 14 of 16 (the analyst probe of session 58, finding 5), on a label linear in
    the column's logarithm both did better; after
    DPLinearRegression none did better in any of its 8 cells. The text names what was measured and says that none is
    known; it holds no number read off the data."""
    on_line = command_line_runs()
    log = "--numeric NAME:LO:HI:log" if on_line else 'NumericColumn(..., scale="log")'
    closer = ("a declared range closer to the values the column can take (--numeric NAME:LO:HI or a --schema file, "
              "from the column's documentation, never from its values in the data)" if on_line else
              "a declared range closer to the values the column can take (dpcvx.PublicSchema's NumericColumn, from "
              "the column's documentation, never from its values in the data)")
    if owner == "classifier":
        return (f" Fix: {closer}: after DPLogisticRegression and DPHuberSVM it did better in every measured case "
                f"where this fired; the log scale ({log}) did better in most but not all, and the declared ranges' "
                "map (column_statistics=False) alone in none (benchmarks/unresolved_advice.py).")
    public = "--no-column-statistics" if on_line else "column_statistics=False"
    other = (("leaving --loss out" if owner == "DPHuberRegressor" else "--loss huber_regression") if on_line else
             ("DPLinearRegression()" if owner == "DPHuberRegressor" else "DPHuberRegressor()"))
    measured = (f"of those measured at the same epsilon and bounds (the log scale for the column, {log}; a declared "
                f"range closer to its values; the declared ranges' map, {public}, with either range; {other})")
    if owner == "DPLinearRegression":
        return (f" No setting is known to do better where this fired: {measured}, none did better in any measured case"
                " (columns far inside a loose declared range; benchmarks/unresolved_advice.py).")
    return (f" No setting is known to do better in every case where this fired: {measured}, each did worse than the "
            "fit in some of them (benchmarks/unresolved_advice.py): the log scale and a closer range did worse in "
            "most cases where the label was linear in a lognormal or gamma column, and better where it followed the "
            "column's logarithm; only public knowledge of the label tells these apart.")


def warn_unresolved_columns(X: Any, ranges: np.ndarray, floor: float, norm: float, owner: str) -> None:
    """Warn :class:`~dpcvx.exceptions.UnresolvedColumnWarning` (NOT PRIVATE, after the release: never lost to an
    "error" filter) naming the columns of :func:`unresolved_columns`, at most five, and what follows by the estimator
    (``owner``, :func:`unresolved_advice`): after a classifier, a declared range closer to the values a column can
    take; after a regressor, that no setting is known to do better in every case, with the settings measured. No
    count or value. The caller runs it outside :func:`dpcvx.tune` only.

    Analyst probe P2 (session 68, finding 5): on 4,200 rows of a stay of 0..27 days declared 0..365 (a label mostly
    made of it), DPHuberRegressor at epsilon 1 and 3 reached R^2 0.78 and 0.85 against least squares' 0.86 (0.27
    without the column) while this fired: how much a column scaled so loses depends on the rows against the noise,
    so the text states the scaling's cost (its values fill under ``UNRESOLVED_SHARE`` of their width: the noise
    weighs at least 1 / UNRESOLVED_SHARE times as much on them), not that a model learns nothing; no public rule of
    n and epsilon was measured to tell the cases apart. The columns are named by the estimator's table
    (:func:`_column_label`: a schema's output names when the schema is the step before it)."""
    lost = unresolved_columns(X, ranges, floor, norm)
    if lost.size == 0:
        return
    label = _column_label(np.shape(ranges)[1])
    shown = a_few([label(int(j)) for j in lost])
    warn_shown(
        f"the private column ranges located {shown} within a few cells of their public grid, while the training "
        "rows vary over under a quarter of that width: the ranges' map scales such a column by its range's width, "
        "not by its own spread, so the fit's noise weighs on it at least four times as much as on a column scaled "
        "by its spread: a model sees less of it, little where the rows are few for the noise (with many rows a fit "
        "may still use it well)." + unresolved_advice(owner) + " NOT PRIVATE: this "
        "check read the training rows; it is shown to you only and is not part of the release.",
        UnresolvedColumnWarning)


#: A kernel's exponent (gamma ||x - x'||^2 for rbf, gamma ||x - x'||_1 for laplacian) above which k(x, x') < e^-30,
#: about 1e-13: two rows that far apart share nothing random features can learn from
FAR_APART = 30.0
#: :func:`warn_far_apart` warns when at least this share of the sampled pairs of rows are that far apart
FAR_APART_SHARE = 0.9
_FAR_PAIRS = 2048  # pairs of rows read: row i against row i + n // 2, for strided i (no random draw)


def far_apart_share(rows: np.ndarray, gamma: float, kernel: str) -> float:
    """NOT PRIVATE: the share of pairs of the training ``rows`` (in memory) whose kernel exponent at ``gamma`` is
    above :data:`FAR_APART`, over at most ``_FAR_PAIRS`` pairs, row i against row i + n // 2 for i strided over the
    first half (a fixed rule: no draw). 0 for fewer than two rows."""
    n = rows.shape[0]
    if n < 2:
        return 0.0
    half = n // 2
    first = np.arange(0, half, max(1, half // _FAR_PAIRS))[:_FAR_PAIRS]
    difference = np.asarray(rows[first], dtype=float) - np.asarray(rows[first + half], dtype=float)
    spread = (np.abs(difference).sum(axis=1) if kernel == "laplacian"
              else np.einsum("ij,ij->i", difference, difference))
    return float(np.mean(gamma * spread > FAR_APART))


def warn_far_apart(rows: np.ndarray, gamma: float, kernel: str) -> None:
    """Warn :class:`~dpcvx.exceptions.KernelScaleWarning` (NOT PRIVATE) when at least :data:`FAR_APART_SHARE` of the
    pairs of :func:`far_apart_share` are beyond :data:`FAR_APART` at ``gamma``: the fix is the rows' public scale, or a
    smaller gamma chosen from public spreads. No count or value of the data. Run by the map's own fit only (the
    user's, or a scikit-learn Pipeline's): no dpcvx fit fits a map (a learner's ``feature_map`` is drawn at its
    transform), and :func:`dpcvx.tune` refuses a Pipeline that holds one."""
    if far_apart_share(rows, gamma, kernel) < FAR_APART_SHARE:
        return
    exponent = "gamma ||x - x'||_1" if kernel == "laplacian" else "gamma ||x - x'||^2"
    warn_shown(
        f"RandomFourierFeatures: at gamma = {gamma:g}, most pairs of training rows are so far apart that the kernel "
        f"exp(-{exponent}) between them is below e^-{FAR_APART:g}: the random features of such rows are unrelated, "
        "and a model of them predicts little better than chance. Scale the columns first by their public bounds "
        "(dpcvx.PublicSchema, or each column's documented range: raw columns in their own units, or codes such as 99 "
        "for missing, are far apart), or choose gamma from the columns' public spread s, near 1 / (d s^2). NOT "
        "PRIVATE: this check read the training rows; it is shown to you only and is not part of any release.",
        KernelScaleWarning)


def warn_public_sample(Z: np.ndarray, rows: np.ndarray) -> None:
    """Warn :class:`~dpcvx.exceptions.PublicSampleWarning` (NOT PRIVATE) when rows of the public sample ``Z`` equal
    training rows ``rows`` (both 2-D float arrays of the same width), entry for entry: the release publishes Z, so
    each such row is a training record released as it is (a documentation example once passed ``Z=X[:50]``). Not a
    refusal: whether a public point is among the records is itself private, so only their owner is told. Run once
    a fit's checks have passed."""
    width = rows.shape[1]
    kind = np.dtype((np.void, width * 8))  # each row as one opaque value: rows are equal when all their bytes are

    def values(matrix: np.ndarray) -> np.ndarray:  # + 0.0: -0.0 and 0.0 alike
        return np.ascontiguousarray(np.asarray(matrix, dtype=np.float64).reshape(-1, width) + 0.0).view(kind).ravel()

    sample = values(Z)
    found = int(np.count_nonzero(np.isin(sample, values(rows))))
    if not found:
        return
    warn_shown(
        f"TDDL: {found} of the {sample.size} points of the public sample Z are also rows of the training X. The "
        "release holds Z as it is (its predictor's centres, in the model file), so these training rows are published "
        "verbatim, and no guarantee covers them. Z must be public points (unlabelled points from a public source, or "
        "drawn from the public bounds), never the private records. NOT PRIVATE: this check read the training rows; "
        "it is shown to you only and is not part of any release.",
        PublicSampleWarning)


def warn_clipped_rows(clipped: int, n: int, rows: RowMap, mapped: Any) -> None:
    """Warn the ClippingWarning of ``clipped`` of ``n`` rows beyond the bound of ``rows`` (:func:`row_clipping_note`),
    naming the heavy columns (:func:`heavy_columns`) when ``mapped``, the mapped rows, is an array or a sparse
    matrix whose columns are the input's (no feature map, or one that maps each column alone: ``keeps_columns``);
    none for rows read by blocks or another feature map. More than half the rows clipped is kept for
    :func:`most_rows_clipped` (:func:`warn_clipped`)."""
    in_memory = isinstance(mapped, np.ndarray) or sparse.issparse(mapped)
    kept = rows.feature_map is None or getattr(rows.feature_map, "keeps_columns", False)
    width = mapped.shape[1] - int(rows.fit_intercept) if in_memory else 0  # None: a memmap's rows read by blocks
    fourier = rows.feature_map is None and isinstance(mapped, np.ndarray) and fourier_like(mapped, width)
    heavy = heavy_columns(mapped, rows.norm_bound, width, clipped) if in_memory and kept and not fourier else ()
    sparse_rows = sparse.issparse(mapped)
    warn_clipped(row_clipping_note(clipped, n, rows.norm_bound, heavy, fourier, sparse_rows), clipped, n,
                 normalises=not fourier and clipping_normalises(sparse_rows, heavy))


def fourier_like(mapped: np.ndarray, width: int) -> bool:
    """Whether the first ``width`` columns of the rows ``mapped`` (clipped onto R, which only shrinks them) could be
    random Fourier features sqrt(2/D) cos(.) of D = ``width`` >= 8 components (:class:`dpcvx.RandomFourierFeatures`,
    given to an estimator in a Pipeline): every entry within sqrt(2/D), rounding aside, and entries beyond half of it
    of either sign (a cosine's). Raw columns beyond R are not: their entries reach 1 / sqrt(d) and more, or are of one
    sign. Such rows have norm at most sqrt(2), so they were clipped by at most that factor whatever they are. Read
    only when a row was clipped, for the note's words."""
    if width < _FOURIER_MIN_WIDTH or mapped.shape[0] == 0:
        return False
    columns = mapped[:, :width]
    bound = math.sqrt(2.0 / width)
    low, high = float(np.min(columns)), float(np.max(columns))
    return -bound * (1 + 1e-9) <= low < -0.5 * bound and 0.5 * bound < high <= bound * (1 + 1e-9)


@contextmanager
def columns_named(table: Any) -> Iterator[None]:
    """Within this block :func:`heavy_columns` names the input's columns by the column names of ``table`` (the X an
    estimator's fit was given: a pandas or polars DataFrame, a pyarrow Table; :func:`dpcvx.tables.column_names`,
    read only once the fit's checks have passed and a row was clipped; or the array a public schema returned, by its
    output names: :func:`input_column_names`), else by position. Names of a public schema's
    encoded features ("diag=1", "age:scaled") also name the schema's columns in messages about the encoded width
    (:func:`dpcvx.advice.named_widths`), as ``dpcvx fit`` names them."""
    token = _NAMES.set(table)
    widths = () if table is None or schema_named() else _schema_widths(table)
    try:
        if widths:
            with encoded_columns(widths):
                yield
        else:
            yield
    finally:
        _NAMES.reset(token)


def _schema_widths(table: Any) -> tuple[tuple[str, int], ...]:
    """:func:`dpcvx.advice.named_widths` of ``table``'s column names; () where they cannot be read (repeated names,
    which the fit's own checks refuse in their words)."""
    try:
        return named_widths(input_column_names(table))
    except InputError:
        return ()


def input_column_names(table: Any) -> Any:
    """The column names of the X an estimator was given: a named table's (:func:`dpcvx.tables.column_names`), or
    those of a transformer's output array, when X is the one a public schema just returned (a pipeline's step before
    the estimator: :func:`~dpcvx.data.transformer_api.output_names`), unless the caller named the schema's columns
    itself (``dpcvx fit``, :func:`~dpcvx.advice.schema_named`: its notes name the declared column, as its flags do);
    else None. The one reading of the names for a fit's notes and a regressor's predict (its note on rows beyond the
    located ranges: analyst probe P2, session 71, finding 6, "column 10" through ``make_pipeline(schema, est)``)."""
    names = column_names(table)
    if names is None and not schema_named():
        return transformer_api.output_names(table)
    return names


def most_rows_clipped() -> bool:
    """Whether the latest fit's checks (since its outermost :func:`checks_then_notes` block began) clipped more than
    half its rows onto R, told by :func:`warn_clipped_rows` outside :func:`notes_dropped`: a NOT PRIVATE fact for the
    data owner's warnings only."""
    return _MOSTLY_CLIPPED.get()


def warn_clipped(text: str, clipped: int = 0, n: int = 0, normalises: bool = False) -> None:
    """Warn ``text`` (a NOT PRIVATE clipping count) as a ClippingWarning at the user's line; within
    :func:`checks_then_notes`, once its checks have passed. ``clipped`` of ``n`` training rows clipped onto their
    norm bound (R, or a kernel's R_phi in feature space): more than half is kept for :func:`most_rows_clipped`,
    unless the clipping is row normalisation (``normalises``: :func:`clipping_normalises`), no defect to fix first."""
    if 2 * clipped > n and not normalises:
        _MOSTLY_CLIPPED.set(True)
    held = _HELD.get()
    if held is None:
        warn_shown(text, ClippingWarning)
    else:
        held.append(text)


def checks_then_notes(charged_after: _HeldNotes | None = None) -> _HeldNotes:
    """A ``with`` block that keeps the notes of :func:`warn_clipped` made within it, and shows them, each once and in
    order, when it completes; none when it raises (a refusal). A block within another hands its notes to the
    enclosing block when it completes: a composite fit (a private class count, column statistics, bounds), whose
    one block encloses its plan, its checks at other rates and its fit after the charge, which all read the same
    rows, shows each note once, under any warning filter ("always" included), and none when any of its checks
    refuses.

    ``charged_after``: the block of the checks a charge followed (a composite fit's plan, whose notes it showed before
    the charge); this block, the fit after the charge, shows only the notes that block did not. Every note is shown
    under any filter, an "error" filter included (:func:`~dpcvx.exceptions.warn_shown`: raised before the charge, it
    would refuse the call by a record's value; after it, it would lose the paid-for release)."""
    return _HeldNotes(charged_after)


@contextmanager
def notes_dropped() -> Iterator[None]:
    """A block whose clipping notes are not about the user's rows (a fit on rows mapped by a released map, clipped by
    its public rule): they are dropped, shown by no enclosing block."""
    token, mostly = _HELD.set([]), _MOSTLY_CLIPPED.set(_MOSTLY_CLIPPED.get())
    try:
        yield
    finally:
        _HELD.reset(token)
        _MOSTLY_CLIPPED.reset(mostly)


class _HeldNotes:
    """:func:`checks_then_notes`: a class, not a generator of contextlib, so that the warnings, shown from
    :meth:`__exit__`, point past dpcvx's frames only, at the user's line (:func:`~dpcvx.exceptions.warn_shown`)."""

    def __init__(self, charged_after: _HeldNotes | None = None) -> None:
        self._before = charged_after
        self._held: list[str] = []

    def __enter__(self) -> _HeldNotes:
        self._outer = _HELD.get()
        if self._outer is None and self._before is None:  # a fit begins: no earlier fit's rows were clipped here
            _MOSTLY_CLIPPED.set(False)
        self._token = _HELD.set(self._held)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        _HELD.reset(self._token)
        if kind is None and self._outer is not None:
            self._outer.extend(self._held)
        elif kind is None:  # shown under any filter (warn_shown), but not again those the charged block showed
            shown = () if self._before is None else self._before._held
            for text in dict.fromkeys(self._held):
                if text not in shown:
                    warn_shown(text, ClippingWarning)
