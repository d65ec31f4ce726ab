"""The share of a caller's new rows that a regressor's privately located column ranges clip, said at prediction.

A regression release of private column ranges (:class:`~dpcvx.DPLinearRegression`'s default where n allows every
column's search: mechanisms ``gradient-ranged`` and ``adassp-ranged``; :class:`~dpcvx.DPHuberRegressor`'s
``column_statistics="ranges"``, its default where n allows it) keeps in its public row map the map those ranges give
(:mod:`dpcvx.data.standardiser`): each column centred and scaled by its range, and each output clipped onto a window
about the range's centre. The ranges are located on the training rows' central mass, so a new row beyond a window is
mapped onto its edge, and the prediction stops there: a linear model of a trend cannot extrapolate past the training
period (analyst probe P8, session 69: demand trending upwards, trained on the first 80 % of days; epsilon 3, whose
ranges were located, scored below epsilon 1, whose were not). The fit cannot see that (its rows are the training
rows), so a release's ``decision_function`` says it, from the caller's new rows and the release's public map alone:
no training row is read, so the warning (:class:`~dpcvx.exceptions.RangeClipWarning`) is public.

Said when a column (but one whose range is one point) is clipped onto one edge in more than ``CLIPPED_SHARE`` of the
new rows: on a roughly symmetric column the windows clip a few percent of rows drawn as the training rows were, on
both sides; a right-skewed column's tail or a count mostly at one level is clipped more, the training rows as much
(the fit's NOT PRIVATE :func:`~dpcvx.models.training_rows.warn_on_located_clip` says so there). Not said of the
classifiers' fill map, whose windows clip lumpy columns of the training rows too (P8's clinical table, a random split:
30 % of the held-out rows on one column), and whose class saturates rather than extrapolates. Never said inside a fit, a
tuning or any other dpcvx entry that reads private rows (:func:`~dpcvx.exceptions.call_memo`): there the rows
scored are training rows, and their share would be a statistic of the private data. Said once per call: a reader of
a file in chunks (``dpcvx predict --chunk-rows``) adds its chunks' counts (:func:`one_range_note`) and says the
total once.
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sparse

from ..advice import setting
from ..data.rows import RowMap, _row_squares, _rows_to_measure
from ..data.standardiser import ColumnStandardiser
from ..exceptions import RangeClipWarning, call_memo, user_stacklevel
from ..privacy.column_histogram import HISTOGRAM_DEPTH

__all__ = ["CLIPPED_SHARE", "SAMPLED_ROWS", "LocatedRanges", "RangeTally", "clip_options", "located_ranges",
           "one_range_note",
           "said_as", "scored_rows"]

#: The share of new rows clipped onto one edge of one located column's window above which
#: :class:`~dpcvx.exceptions.RangeClipWarning` is said. Each window reaches beyond its range (the training rows' levels
#: q and 1 - q) to about 2 implied standard deviations from its centre, so it clips a few percent of rows drawn as the
#: training rows were (a normal column 4.6 %, both sides), more where the ranges' noise made a window narrow, on both
#: sides; rows of a later period of a trend lie beyond one edge. Measured while the rule was made (session 69): the
#: held-out rows of the 40-column tables of tests/models/test_gradient_regression.py (a random split, epsilon 1, 5
#: seeds) clipped up to 27 % on a column but at most 15 % on one side; the later days of P8's demand table
#: (DPLinearRegression and DPHuberRegressor at epsilon 3, 3 seeds) 27 % to 75 % on one side of their most clipped
#: column, none on the other. A public constant, not a bound on the training rows' share. Columns whose range is one
#: point (a one-hot column whose rarer value holds under about q of the rows) are not counted: their rarer value is
#: clipped on the training rows too.
CLIPPED_SHARE = 0.25
#: At most about this many rows of one call (of one block of a Dask X or a chunk of a file) are compared, evenly
#: spaced: the share they give is within 0.4 % of the whole's at 25 % (two binomial standard deviations). Compared on
#: every row of 1,000,000 x 20, the check took 1.4 times the scoring's own time; on 2^17 of them, 40 ms (one-off
#: timings on a shared machine), and half that here
SAMPLED_ROWS = 1 << 16
#: Rows compared at a time (a block of at most 2^14 values, 128 kB, in cache, whatever the width)
_BLOCK_VALUES = 1 << 14


@dataclass(frozen=True)
class LocatedRanges:
    """A release's map of private ranges (``standardiser``, with its clip) and which of its columns are counted
    (``located``: a column whose range is the whole grid keeps its public scale, and its clip is not the ranges'; one
    whose range is one point clips its rarer value on the training rows too: neither is counted)."""

    standardiser: ColumnStandardiser
    located: np.ndarray
    #: the map is DPHuberRegressor's histogram ranges (its certificate's "cells"), not DPLinearRegression's search:
    #: the options measured differ by estimator (:func:`clip_options`)
    huber: bool = False

    def clipped(self, X: Any) -> tuple[int, int, np.ndarray]:
        """(how many rows ``X`` has; how many of them were compared: every row, or an evenly spaced sample of about
        ``SAMPLED_ROWS`` of more; a 2 x d array, for each column how many rows compared the map clips there onto its
        window's lower edge (row 0) and onto its upper edge (row 1), 0 for a column not counted): the map's own
        arithmetic, (x' - c) m compared with the clip, x' the row scaled onto the input bound
        R as the map scales it (:meth:`RowMap.clip`), a block of rows at a time. ``X`` is rows the scoring has checked
        (a numeric 2-D array, a CSR or a table of numbers)."""
        whole = X if sparse.issparse(X) else np.asarray(X)
        total = int(whole.shape[0])
        matrix = whole[::-(-total // SAMPLED_ROWS)] if total > SAMPLED_ROWS else whole  # the share, not the count
        n, d = matrix.shape
        limit = float(self.standardiser.clip)  # type: ignore[arg-type]  # a ranges map has one
        bound = self.standardiser.input_bound
        scaling = RowMap(norm_bound=bound) if bound is not None and np.isfinite(bound) else None
        every = bool(np.all(self.located))  # no copy of the located columns where every column is
        centre, multiplier = self.standardiser.centre[self.located], self.standardiser.multiplier[self.located]
        columns, where = np.zeros((2, d), dtype=np.int64), np.flatnonzero(self.located)
        step = max(1, _BLOCK_VALUES // max(d, 1))
        buffer = np.empty((min(step, n), int(np.count_nonzero(self.located))))
        for start in range(0, n, step):
            part: Any = matrix[start:start + step]
            block = np.asarray(part.toarray() if sparse.issparse(part) else part, dtype=np.float64)
            if scaling is not None:
                squares = _row_squares(block)
                if _rows_to_measure(squares, scaling.norm_bound).size:  # a row beyond R: scaled in a copy
                    block = scaling.clip(block.copy(), in_place=True, squares=squares)[0]
            values = buffer[:block.shape[0]]
            np.subtract(block if every else block[:, self.located], centre, out=values)
            np.multiply(values, multiplier, out=values)
            with np.errstate(invalid="ignore"):  # a NaN entry: refused by the scoring, compared as not clipped here
                for side, extreme, beyond in ((0, np.fmin, np.less), (1, np.fmax, np.greater)):
                    bound = limit if side else -limit  # counted only in a column clipped on that side: a block's
                    hit = np.flatnonzero(beyond(extreme.reduce(values, axis=0), bound))  # extreme is a third of a
                    if hit.size:  # count's time, and most columns clip no row
                        columns[side, where[hit]] += np.count_nonzero(beyond(values[:, hit], bound), axis=0)
        return total, n, columns


def located_ranges(certificate: Any, rows: RowMap) -> LocatedRanges | None:
    """The map of private ranges a release's rows go through, with the columns located, from its public certificate
    and row map; None for any other release (public maps, private column sums, the label's range alone)."""
    standardiser = rows.feature_map
    statistics = getattr(certificate, "column_statistics", None)
    if not isinstance(standardiser, ColumnStandardiser) or standardiser.clip is None or not isinstance(statistics,
                                                                                                     dict):
        return None
    d = standardiser.centre.size
    if "cells" in statistics and "label_cells" in statistics:  # DPHuberRegressor's histogram ranges (ranges_map)
        cells, depth = np.asarray(statistics["cells"]), statistics.get("depth", HISTOGRAM_DEPTH)
        if cells.shape != (2, d):
            return None
        located = ((cells[0] > 0) | (cells[1] < 1 << int(depth))) & (cells[1] - cells[0] > 1)
    elif "ranges" in statistics and getattr(getattr(certificate, "calibration", None), "range_columns", 0) > 1:
        ranges = np.asarray(statistics["ranges"], dtype=float)  # every column's and the label's (AdaSSP's or noisy
        if ranges.shape != (2, d + 1):  # gradient descent's), on the search's grid
            return None
        located = ranges[1, :-1] > ranges[0, :-1]  # a one-point range (a rare one-hot value) not counted
    else:
        return None
    return LocatedRanges(standardiser, np.asarray(located, dtype=bool), huber="cells" in statistics) \
        if np.any(located) else None


@dataclass
class RangeTally:
    """The counts of one call's rows (:meth:`add` for each block scored): rows, and rows clipped on each column."""

    ranges: LocatedRanges
    #: its counts are added to a call's tally (:func:`one_range_note`), which says them: :meth:`said` says nothing
    deferred: bool = False
    rows: int = 0
    #: how many of the rows were compared (:meth:`LocatedRanges.clipped`), and for each column how many of all the
    #: rows it clips, estimated block by block: a block's counts of its compared rows scaled by its rows / compared
    #: (blocks sampled at different strides, a file's large chunk and its small last one, each weigh as their rows)
    compared: int = 0
    columns: np.ndarray = field(default_factory=lambda: np.zeros((2, 0)))

    def add(self, X: Any) -> None:
        """Count the rows of a block of checked rows."""
        rows, compared, columns = self.ranges.clipped(X)
        estimated = columns * (rows / compared) if compared else np.zeros(columns.shape)
        self.rows, self.compared = self.rows + rows, self.compared + compared
        self.columns = estimated if self.columns.size == 0 else self.columns + estimated

    def joined(self, other: RangeTally) -> None:
        """Add ``other``'s counts (another chunk of the same call's rows)."""
        self.rows, self.compared = self.rows + other.rows, self.compared + other.compared
        self.columns = other.columns if self.columns.size == 0 else (
            self.columns if other.columns.size == 0 else self.columns + other.columns)

    def said(self, owner: str, names: Any = None) -> None:
        """:meth:`say` unless the counts are a call's tally's (``deferred``), which says them once; as the estimator
        that scores with the release, where one does (:func:`said_as`)."""
        if not self.deferred:
            self.say(*(_SAID_AS.get() or (owner, names)))

    def beyond(self) -> list[tuple[int, float, int]]:
        """The columns clipped onto one edge in more than ``CLIPPED_SHARE`` of the rows counted: (column, share of
        the rows, edge 0 lower / 1 upper), most clipped first; [] where none is (or nothing was compared). The one
        rule of :meth:`say` and of the fit's note on its training rows
        (:func:`~dpcvx.models.training_rows.located_clip`)."""
        if not self.compared or not self.columns.size:
            return []
        side = self.columns.max(axis=0)  # each column's larger side
        return [(int(j), float(side[j] / self.rows), int(np.argmax(self.columns[:, j])))
                for j in np.argsort(-side, kind="stable") if side[j] > CLIPPED_SHARE * self.rows]

    def say(self, owner: str, names: Any = None) -> None:
        """Warn :class:`~dpcvx.exceptions.RangeClipWarning` when a located column clips more than ``CLIPPED_SHARE``
        of the rows counted onto one edge (:meth:`beyond`), naming those columns (``names``: the columns' names, if
        the release has them) with their shares."""
        over = self.beyond()
        if not over:
            return
        label = (lambda j: repr(str(names[j]))) if names is not None and len(names) == self.columns.shape[1] else (
            lambda j: f"column {j}")
        edge = ("lower", "upper")
        shown = ", ".join(f"{label(j)} {share:.0%} beyond its {edge[side]} edge" for j, share, side in over[:5])
        shown += f" and {len(over) - 5} more" if len(over) > 5 else ""
        sampled = "" if self.compared == self.rows else f" (shares estimated from {self.compared:,} of them)"
        warnings.warn(
            f"{owner}: more than {CLIPPED_SHARE:.0%} of these {self.rows:,} rows{sampled} lie beyond one edge of a "
            f"column range its private column statistics located on the training rows: by column (as the release "
            f"reads the rows, after any encoding), {shown}. On a roughly symmetric column the windows clip a few "
            "percent of rows drawn as the training rows were, on both sides; "
            "the ranges' map clips those values onto the ranges' edges, so the predictions cannot extrapolate beyond "
            "the training rows' ranges: rows of a later period on a trend, or of data that drifted, are predicted as "
            "if they lay at the edge. Rows drawn as the training rows were can show it too, where a column's located "
            "window is narrower than its values (a right-skewed column's long tail, or a count of a few levels, most "
            "of them at one): the fit clipped the training rows as much (after DPHuberRegressor, its NOT PRIVATE "
            "TrainingRowsWarning says so), and no drift is needed. The ranges are the release's public map; this count "
            "reads your rows only."
            + clip_options(self.ranges.huber),
            RangeClipWarning, stacklevel=user_stacklevel())


def clip_options(huber: bool) -> str:
    """What :class:`~dpcvx.exceptions.RangeClipWarning` offers, by the estimator whose ranges the release holds
    (``huber``: DPHuberRegressor's histogram ranges; else DPLinearRegression's search), in the order measured where it
    fired on benchmarks/regression_advice.py's tables (results/regression_advice.md: 10 table kinds, 6 seeds, epsilon
    0.5, 1 and 3; it fired on trending demand tables split by time and once on a count column 80 % zero). After
    DPLinearRegression() (11 firing fits) encoding as a change since an earlier period did better in 11 of 11 (R^2
    +0.06 to +0.87), while column_statistics=False with bounds covering the later values did worse in 11 of 11 (by
    1.16 to 3.34, below the training mean's R^2 in each): an analyst probe (session 71, P2 finding 1) read that
    option first and lost R^2 0.42-0.78 to -1.0..-2.8; on every table of the benchmark it did worse in 171 of 180
    fits. After DPHuberRegressor() (3 firing fits) column_statistics=False did better in 2 and worse in none, and the
    change encoding in 1 of 1 (the one demand fit). Public: the estimator is read off the release's certificate."""
    change = ("encode the columns by a public rule under which new rows resemble the training rows (a change since "
              "an earlier period rather than a level, lags as differences, a season rather than a date)")
    public = (f"declare a public map whose bounds cover the values to come (the schema's numeric bounds) and fit with "
              f"{setting('column_statistics', 'False')}")
    if huber:
        return (f" Options, as measured where this fired after DPHuberRegressor (benchmarks/regression_advice.py): "
                f"{public}, which keeps that map and searches no column range (better in 2 of 3 such fits, worse in "
                f"none); or {change} (better in the 1 such fit on a trending demand table).")
    return (f" Options, as measured where this fired after DPLinearRegression (benchmarks/regression_advice.py, "
            f"trending demand tables split by time): {change}, which did better in 11 of 11 such fits (R^2 +0.06 to "
            f"+0.87). Not {setting('column_statistics', 'False')} with bounds covering the later values: it switches "
            "DPLinearRegression to plain AdaSSP on the declared map, which did worse in 11 of 11 (R^2 lower by 1.16 "
            "to 3.34, below a constant prediction's) and in 171 of the benchmark's 180 fits of any kind.")


# the name and columns a release's warning gives inside an estimator's scoring (said_as); None: the release's own
_SAID_AS: contextvars.ContextVar[tuple[str, Any] | None] = contextvars.ContextVar("dpcvx_range_speaker", default=None)


@contextlib.contextmanager
def said_as(owner: str, names: Any = None) -> Iterator[None]:
    """A block in which a release's warning names ``owner`` and its columns ``names``: an estimator's ``predict``
    scores with its release, passed the rows without their names (:func:`~dpcvx.sklearn.inputs.unnamed`), and the
    warning names the estimator and the columns it was fitted on, as its fit's warnings do (P1, session 70: it named
    ``PrivateRegressionModel`` and "column 0")."""
    token = _SAID_AS.set((owner, names))
    try:
        yield
    finally:
        _SAID_AS.reset(token)


# the tally of a call that scores its rows in chunks (one_range_note), None outside one
_CALL_TALLY: contextvars.ContextVar[list[RangeTally] | None] = contextvars.ContextVar("dpcvx_range_tally",
                                                                                       default=None)


@contextlib.contextmanager
def one_range_note(owner: str, names: Any = None) -> Iterator[None]:
    """A block whose calls of :func:`scored_rows` add their counts to one tally, said once when it ends (the command
    line's predict, which scores a file a chunk at a time): one warning for the whole file, not one per chunk. Its
    caller states that the rows scored are new rows, not training rows: said even inside a dpcvx entry (the command
    line runs its commands as one)."""
    tallies: list[RangeTally] = []
    token = _CALL_TALLY.set(tallies)
    try:
        yield
    finally:
        _CALL_TALLY.reset(token)
    if tallies:
        total = tallies[0]
        for other in tallies[1:]:
            total.joined(other)
        total.say(owner, names)


def scored_rows(release: Any, X: Any) -> RangeTally | None:
    """The tally to count ``X``'s rows into, scored by ``release``, whose rows map through private ranges; None when
    they do not, or inside a dpcvx entry that reads private rows (a fit's checks score training rows: never told)."""
    shared = _CALL_TALLY.get()
    if call_memo() is not None and shared is None:  # inside a fit: training rows (a caller's tally: its new rows)
        return None
    ranges = located_ranges(getattr(release, "certificate", None), release.rows)
    if ranges is None:
        return None
    tally = RangeTally(ranges, deferred=shared is not None)
    if shared is not None:
        shared.append(tally)
    return tally
