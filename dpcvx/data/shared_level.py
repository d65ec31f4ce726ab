"""Whether a schema's row map erases its numeric columns' common level: a NOT PRIVATE check of the rows.

A :class:`~dpcvx.data.preprocessing.PublicSchema` codes a numeric column as u(v) - s, u(v) in [0, 1] its place in
the public range and s = 1/2 (``encoding="centred"``) or 0 (``"unit"``), then maps each row x to
x / max(1, ||x|| / R). Where many numeric columns sit in one part of their ranges, every coded row lies near one
point c far from 0: the map puts each row of norm above R onto the sphere near c / ||c|| * R, and erases what lies
along c, the columns' common level (benchmarks/encodings.py's tables likert12, counts20, uptime15: a Likert item
1..5 declared [-9, 99] has u near 0.1, coded -0.4 by the centred code; twelve of them put every row at norm about
1.4, and the centred default scored a balanced accuracy of 0.49 at epsilon 5, "unit" 0.80), or spends the norm
on c and leaves the rest little (sparse500: a 0/1 column costs 1/4 of the squared norm in every row under the
centred code, only its ones under "unit": 0.655 against 0.672). Which code keeps the level depends on where the
values lie, which the schema does not say (benchmarks/results/encodings.md: no code wins on every table); so the
check reads the rows, and is NOT PRIVATE (shown to the data owner only). It does not see the label: on columns
that do not move together the level may not be the signal (the held-out table ``wide``, six independent columns
10 to 50 times narrower than their ranges, warns; there "unit" scored 0.655 against 0.712 at epsilon 1 and 0.736
against 0.711 at epsilon 5), and the text says so.

Two measures, of the rows as coded (at most ``SAMPLE_ROWS`` of them and ``SAMPLE_CELLS`` features in all, evenly
spaced) under the schema's encoding
and under the other one:

* the level kept, kappa = IQR(s_i (l_i - s)) / (median(s_i) IQR(l_i)), l_i the mean of row i's u over the
  numeric columns and s_i = min(1, R / ||x_i||) the row map's factor: the share of the common level's spread left
  after the map, against one division by its typical factor (1: the map scales the rows alike, or none; 0: the
  level is erased, every row sent to one point);
* the rows' spread, rho = median_i ||y_i - median(y)||, y_i the rows after the map and median(y) the coordinate-wise
  median (robust to a few rows that a missing code sends to a bound).

The check warns (:class:`~dpcvx.exceptions.LevelErasedWarning`) when kappa < ``LEVEL_KEPT`` under the schema's
encoding, or the other encoding keeps at least ``SPREAD_RATIO`` times its spread rho. Both limits are round numbers;
on the tables the default was chosen on no warning fires under it (benchmarks/results/encodings.md). The advice
names the other encoding where it passes the same check, and, under the centred code, the declared ranges: ranges
that fit the values put each centred column near 0. Under "unit" they do not (a column near the top of its range
codes near 1 whatever the range), so the advice there is the centred code alone; beside the ranges it names the log
scale for positive quantities spread over orders of magnitude. The schema is fitted before the estimator, so the
advice of "unit" names the estimators it was measured to help and the one it did not (``_UNIT_MEASURED``: an analyst
probe of session 70, benchmarks/level_erased_advice.py). Where the table is bound by noise
at every epsilon up to ``NOISE_FIRST_EPSILON`` (the SmallTableWarning's public rule of n and d), both warnings of
this module say so before their advice (:func:`_noise_first`). ``dpcvx predict`` encodes rows for
a released model, whose schema is fixed: it runs its transforms inside :func:`level_checks_off`.

**A column's own variation** (forty-sixth session). Where the level is kept, the map can still erase one column: a
row of norm above R is divided by its norm, a factor set by all its columns (a one-hot block alone has norm 1, so
with any numeric column beside it every row is scaled at R = 1), and a numeric column that varies little within its
correct declared range (logins 0..40 declared 0..10,000: codes within 0.004 of -1/2) is moved more by that factor
than by its own values (a prober's table: balanced accuracy 0.51 to 0.54 at epsilon 1 and 3, 0.78 with a norm that
scales no row or with "unit"; a regression R^2 0.06 against 0.74). The measure: r_j^2, the squared correlation of
column j's codes and its codes after the map, on the same sample of rows; the check warns when r_j^2 <
``COLUMN_KEPT`` for a column whose middle half of rows lies within ``NARROW`` of its range and not at one value. Its
fixes: a norm at least the schema's largest possible row norm (:attr:`~dpcvx.data.preprocessing.PublicSchema.
largest_row_norm`, public), which scales no row at noise in proportion, and the other encoding where it keeps the
columns' r^2; and, for a column that fills a sliver of its range even so (spend 0..150 declared 0..100,000: three
classes at epsilon 1 no better than the majority under either fix, the private column ranges locating it only to a
few cells of their grid), a declared range that fits its values more closely, from its documentation, or the log
scale (0.82 there; fifty-first session). ``COLUMN_KEPT`` was written before any table was checked; ``NARROW`` after
the first count of fires, on breast_cancer (columns filling 5 to 8% of their ranges in their middle half; the advised
norm, 2.74, lowered its balanced accuracy from 0.71 to 0.60), KDD and digits (columns nearly always at one value).
With both, it fires on none of benchmarks/encodings.py's tables (tuning, held-out and shared-level, under either
encoding) and on every table of the prober's (two classifiers, a regression, the command line's churn table). It reads
the coded rows, not the label, so it cannot tell a column the label depends on from one it does not (a battery voltage
with no signal was named on every fit of a weather table, and the fix changed nothing: ``_NO_LABEL``); telling them
apart would be a new private read, so the text says what the check cannot see instead.

**A column at one value** (seventy-first session). Neither measure above sees a numeric column that holds one value
in every row: it has no spread of its own (the second form looks only at columns that vary), and a block of them
adds the same vector to every row, which moves each row's norm alike and so keeps the level (kappa near 1). Yet such
a column tells a model nothing while its code, -1/2 under the centred code for a value at the bottom of its range,
takes a share of every row's squared norm, and the map scales the other columns down with it (an analyst probe, P2
finding 9: 8x8 pixel images whose 22 border columns are 0 in every row; centred, each row's norm was about 3.6 and the
border 43% of its square; kappa 0.94, the other encoding's spread 1.3 times this one's, so nothing fired). The
check warns when the columns that hold one value in the rows read, at a code other than 0, take at least
``ONE_VALUE_SHARE`` of the median row's squared norm and the median row is scaled by the map. Its fixes: dropping
them where a public fact holds them at one value (never because they did in these rows: that choice would read
the data), and the other encoding where it codes them nearer 0. Measured (benchmarks/level_erased_advice.py, table
``pixels``, three seeds): held-out accuracy 0.177 / 0.334 at epsilon 1 / 3 under the centred default, 0.207 / 0.435
with the border dropped (better in 6 of 6 fits), 0.192 / 0.410 under "unit" (5 of 6). ``ONE_VALUE_SHARE`` was
written before any table was checked; it fires on none of benchmarks/encodings.py's tables (tuning, held-out and
shared-level, under either encoding; sklearn's digits hold 3 such columns, under a tenth of the norm) nor on the
benchmark's rating and sensor tables, and on every default fit of the pixel table.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from ..advice import SMALL_TABLE_LIMIT, command_line_runs
from ..exceptions import LevelErasedWarning, warn_shown

__all__ = ["COLUMN_KEPT", "NARROW", "LEVEL_KEPT", "ONE_VALUE_SHARE", "SPREAD_RATIO", "SAMPLE_ROWS", "SAMPLE_CELLS",
           "SAMPLE_ROWS_MIN", "NOISE_FIRST_EPSILON", "warn_if_level_erased", "level_checks_off"]

LEVEL_KEPT = 0.1  # the row map keeps less than a tenth of the common level's spread: warn
SPREAD_RATIO = 2.0  # the other encoding keeps at least twice the rows' spread: warn
#: a numeric column's own codes explain less than half of its codes' variance after the row map: warn (a round
#: number written before any table was checked: the map's factor then moves the column more than its values do)
COLUMN_KEPT = 0.5
#: ... of a column whose middle half of rows lies in under this share of its declared range, and not at one value.
#: Added after the first count of fires: without it the check fired on breast_cancer (columns whose middle half
#: fills 5 to 8% of their ranges; a norm at the largest row norm, 2.74, lowered its balanced accuracy from 0.71 to
#: 0.60), KDD and digits (columns nearly always at one value, which say little whatever the map)
NARROW = 0.02
SAMPLE_ROWS = 5_000  # the rows the measures read at most, evenly spaced (a public rule of n and d) ...
SAMPLE_CELLS = 2_000_000  # ... and at most this many features in all, ...
SAMPLE_ROWS_MIN = 200  # ... but never fewer than this many rows (1,000 rows of 4,000 columns took 226 MB, not 129)
#: numeric columns that hold one value in every row read, at a code other than 0, and take at least this share of a
#: typical row's squared norm where the row map scales the typical row: warn (module docstring, "A column at one
#: value"). A round number, written before any table was checked: a quarter of the norm spent on columns that say
#: nothing scales what the rest say by sqrt(3/4) or less
ONE_VALUE_SHARE = 0.25
NAMED = 5  # the columns a warning names, the farthest from the code's zero first
_OFF: contextvars.ContextVar[bool] = contextvars.ContextVar("dpcvx_level_checks_off", default=False)
#: The epsilon at or below which a table bound by noise is named before the encoding (:func:`_noise_first`): the
#: estimators' default, where most fits are made
NOISE_FIRST_EPSILON = 1.0


@contextmanager
def level_checks_off() -> Iterator[None]:
    """A block whose schema transforms encode rows for a released model (``dpcvx predict``): the model's schema is
    fixed, so advice to change its encoding or ranges does not apply there (it was shown when the model was fitted)."""
    token = _OFF.set(True)
    try:
        yield
    finally:
        _OFF.reset(token)


def _noise_first(n: int, d: int) -> str:
    """The clause that puts noise before the encoding where a private fit of the n rows of d encoded features is
    bound by noise at every epsilon up to ``NOISE_FIRST_EPSILON``: n epsilon / d below the SmallTableWarning's
    limit (:data:`~dpcvx.advice.SMALL_TABLE_LIMIT`, the one rule, of public n and d) for
    epsilon < E = limit d / n; else "". Analyst probe P3 (session 66, finding 6): on a bag-of-words table (n epsilon
    / d = 2.3) this warning advised encoding='unit' as the fix while the SmallTableWarning of the same fit said the
    table was too small for its d; following it changed nothing (balanced accuracy 0.500 and 0.509). The release's
    epsilon is not known here (the schema is fitted before the estimator), so the clause names E."""
    least = SMALL_TABLE_LIMIT * d / n
    if least <= NOISE_FIRST_EPSILON:
        return ""
    return (f"first, the table: with n = {n} rows of d = {d} encoded features, a private fit is bound by its noise "
            f"at every epsilon below {least:.3g} (n epsilon / d below {SMALL_TABLE_LIMIT:g}, the SmallTableWarning's "
            "rule), and a change of encoding or norm can do little until it is not: fewer encoded columns or more "
            "rows come first. Then: ")


#: What follows the advice of encoding="unit" in the first form of the warning (:func:`warn_if_level_erased`): the
#: schema is fitted before the estimator, so the text names the estimators it was measured on. An analyst probe
#: (session 70, P7 finding 2): ratings 1..10 on 30 log-normal columns declared at their documented maxima (1000
#: times their medians); DPHuberRegressor's held-out R^2 was -0.010 / -0.002 at epsilon 1 / 3 under the centred
#: code and -0.010 / 0.006 under "unit", which silenced the TrainingRowsWarning that had said the release was no
#: better than a constant, while the documented 99 % points as ranges gave 0.46 / 0.55 and the log scale 0.49 / 0.50
#: (DPLinearRegression: 0.51 / 0.54 centred, 0.56 / 0.57 "unit", 0.56 / 0.58 ranges, 0.59 / 0.61 log;
#: benchmarks/level_erased_advice.py, results/level_erased_advice.md).
_UNIT_MEASURED = (" (measured to help the classifiers (benchmarks/encodings.py) and DPLinearRegression; not "
                  "DPHuberRegressor: on ratings whose 30 skewed columns were declared at 1000 times their medians its "
                  "held-out R^2 stayed about 0 under either code, while ranges from the columns' documentation or "
                  "the log scale raised it to about 0.5, benchmarks/level_erased_advice.py; before a "
                  "DPHuberRegressor take the ranges or the log scale first. After any fix, score the model on "
                  "held-out rows: a warning that goes quiet does not say that the release is useful)")


#: The second form's caveat (:func:`_warn_if_columns_scaled`): the check reads the coded rows, not the label, so it
#: cannot tell a column the label depends on from one it does not. An analyst probe (session 70, P7 finding 5): a
#: battery voltage 3.6 +- 0.05 V declared (0, 5) was named on all 24 fits of a weather table (held-out R^2 0.94 to
#: 0.996), and the fix changed nothing (benchmarks/level_erased_advice.py, results/level_erased_advice.md). Telling
#: them apart would need the label (a new private read); the text says what the check cannot see instead.
_NO_LABEL = ("The check does not read the label: a column that carries no signal (a nearly constant reading such as "
             "a battery voltage) is named too, and for it the fix changes nothing; where the fix does not raise the "
             "model's score on held-out rows, the columns named did not matter to it.")


#: What the third form (:func:`_warn_if_one_value`) says was measured: an analyst probe (session 71, P2 finding 9),
#: 8x8 pixel images of 10 classes whose 22 border columns are 0 in every row, each declared 0..16
#: (benchmarks/level_erased_advice.py, table ``pixels``, results/level_erased_advice.md).
_ONE_VALUE_MEASURED = ("Measured on 8x8 pixel images of 10 digits whose 22 border columns are 0 in every row, "
                       "declared 0..16 (DPLogisticRegression, benchmarks/level_erased_advice.py): dropping them "
                       "raised the held-out accuracy from 0.18 to 0.21 at epsilon 1 and from 0.33 to 0.44 at "
                       "epsilon 3 (6 of 6 fits), and encoding='unit' to 0.19 and 0.41 (5 of 6).")


def _log_scale() -> str:
    """The log scale as the reader sets it (the command line's --numeric flag, or NumericColumn's ``scale``)."""
    return "--numeric NAME:LO:HI:log" if command_line_runs() else "NumericColumn(..., scale=\"log\")"


def _map_factor(rows: np.ndarray, norm: float) -> np.ndarray:
    """The row map's factor s_i = 1 / max(1, ||x_i|| / R) of each row, in the map's own form (no overflow)."""
    return 1.0 / np.maximum(1.0, np.linalg.norm(rows, axis=1) / norm)


def _measures(codes: np.ndarray, rest: np.ndarray, shift: float, norm: float) -> tuple[float, float]:
    """(kappa, rho) of the rows [codes - shift, rest] (module docstring); ``codes`` the numeric columns' u."""
    rows = np.hstack([codes - shift, rest])
    factor = _map_factor(rows, norm)
    level = codes.mean(axis=1)
    low, high = np.percentile(level, [25, 75])
    mapped_low, mapped_high = np.percentile(factor * (level - shift), [25, 75])
    kappa = float((mapped_high - mapped_low) / (np.median(factor) * (high - low))) if high > low else 1.0
    mapped = rows * factor[:, None]
    rho = float(np.median(np.linalg.norm(mapped - np.median(mapped, axis=0), axis=1)))
    return kappa, rho


def _keeps(kappa: float, rho: float, rho_other: float) -> bool:
    """Whether an encoding keeps the level: kappa >= ``LEVEL_KEPT`` and the other encoding's spread below
    ``SPREAD_RATIO`` times its own (or none at all)."""
    return kappa >= LEVEL_KEPT and not rho_other >= SPREAD_RATIO * rho > 0


def _kept_by_column(codes: np.ndarray, rows: np.ndarray, norm: float) -> np.ndarray:
    """r_j^2 of each numeric column (module docstring, "A column's own variation"): the squared correlation of its
    codes and the codes after the row map of ``rows``; NaN where the column or its mapped codes do not vary."""
    mapped = codes * _map_factor(rows, norm)[:, None]
    centred, mapped_centred = codes - codes.mean(axis=0), mapped - mapped.mean(axis=0)
    products = np.einsum("ij,ij->j", centred, mapped_centred)
    spreads = np.einsum("ij,ij->j", centred, centred) * np.einsum("ij,ij->j", mapped_centred, mapped_centred)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(spreads > 0, products * products / np.where(spreads > 0, spreads, 1.0), np.nan)


def warn_if_level_erased(features: np.ndarray, positions: Sequence[int], names: Sequence[str], encoding: str,
                         norm: float, largest: float) -> None:
    """Warn (:class:`~dpcvx.exceptions.LevelErasedWarning`, NOT PRIVATE) where the row map erases the numeric
    columns' common level under ``encoding`` (module docstring). ``features``: the coded rows before the row map,
    ``positions``: the features of the numeric columns ``names`` (one or more; u(v) - 1/2 under "centred", u(v) under
    "unit"), ``norm`` the schema's R, ``largest`` its public largest row norm. The text names the columns farthest
    from the code's zero, their fix and no count or value. With one numeric column, or where the level is kept, the
    columns' own variation is checked instead (:func:`_warn_if_columns_scaled`)."""
    if _OFF.get():
        return
    rows = min(SAMPLE_ROWS, max(SAMPLE_ROWS_MIN, SAMPLE_CELLS // features.shape[1]))
    sample = features[::max(1, -(-features.shape[0] // rows))]
    offset = 0.5 if encoding == "centred" else 0.0
    codes = sample[:, positions] + offset
    rest = np.delete(sample, positions, axis=1)
    other = "unit" if encoding == "centred" else "centred"
    _warn_if_one_value(codes - offset, rest, names, encoding, norm, features.shape)
    if len(positions) < 2:  # one column has no common level: its own variation only
        _warn_if_columns_scaled(codes - offset, rest, names, encoding, norm, largest, features.shape)
        return
    kappa, rho = _measures(codes, rest, offset, norm)
    kappa_other, rho_other = _measures(codes, rest, 0.5 - offset, norm)
    if _keeps(kappa, rho, rho_other):
        _warn_if_columns_scaled(codes - offset, rest, names, encoding, norm, largest, features.shape)
        return
    far = np.abs(codes.mean(axis=0) - offset)
    shown = [names[j] for j in np.argsort(-far, kind="stable")[:NAMED]]
    more = f" and {len(names) - NAMED} more" if len(names) > NAMED else ""
    if command_line_runs():
        switch, codes_fix = f'"encoding": "{other}" in the --schema file', "--missing CODE"
    else:
        switch, codes_fix = f'PublicSchema(..., encoding="{other}")', "missing_codes="
    advice = (f"encoding={other!r} keeps more of it here: {switch}" + (_UNIT_MEASURED if other == "unit" else "")
              if _keeps(kappa_other, rho_other, rho) else "")
    # ranges that fit the values put a centred column's code near 0; a "unit" code is its place in its range, near 1
    # for a column at the top of its range whatever the range (such tables warned with their exact minima and maxima)
    log = _log_scale()
    ranges = ("declare ranges that fit the values, from each column's documentation (its data dictionary, never "
              f"its values in the data), with its missing codes declared as {codes_fix}, not as the range; or, for a "
              f"positive quantity spread over orders of magnitude, the log scale ({log})"
              if encoding == "centred" else "")
    fix = _noise_first(*features.shape) + ("; or ".join(part for part in (advice, ranges) if part) or (
        "neither of the schema's codes keeps it here (a column near the top of its range codes near 1 under "
        "'unit', whatever the range): check the model on held-out rows"))
    warn_shown(
        f"the schema's rows (encoding={encoding!r}) sit near one point: the numeric columns {shown}{more} lie in "
        "one part of their declared ranges, and the row map x / max(1, ||x|| / norm) erases their common level: "
        "where the label follows it (columns that move together), a model learns little from them. NOT PRIVATE: "
        "this check read the rows; it is shown to you only and is not part of any release. "
        f"Fix: {fix}", LevelErasedWarning)


def _warn_if_columns_scaled(coded: np.ndarray, rest: np.ndarray, names: Sequence[str], encoding: str, norm: float,
                            largest: float, shape: tuple[int, ...]) -> None:
    """Warn (:class:`~dpcvx.exceptions.LevelErasedWarning`, NOT PRIVATE) where the row map's factor, set by the other
    columns, erases numeric columns' own variation (module docstring, "A column's own variation"): ``coded`` the
    numeric columns as the schema codes them, ``rest`` the other features, ``largest`` the schema's public largest
    row norm, ``shape`` the public (n, d) of the whole table (:func:`_noise_first`). Names the narrow columns
    (``NARROW``) whose r^2 is below ``COLUMN_KEPT``, the lowest first, and no count or value."""
    rows = np.hstack([coded, rest])
    kept = _kept_by_column(coded, rows, norm)
    low, high = np.percentile(coded, [25, 75], axis=0)
    narrow = (high > low) & (high - low < NARROW)  # its middle half in under NARROW of its range, and not one value
    lost = np.flatnonzero(narrow & (kept < COLUMN_KEPT))  # NaN compares False: a column that does not vary
    if lost.size == 0:
        return
    order = lost[np.argsort(kept[lost], kind="stable")]
    shown = [names[j] for j in order[:NAMED]]
    more = f" and {lost.size - NAMED} more" if lost.size > NAMED else ""
    other = "unit" if encoding == "centred" else "centred"
    shift = 0.5 if encoding == "centred" else -0.5  # the other code of the same values
    kept_other = _kept_by_column(coded + shift, np.hstack([coded + shift, rest]), norm)
    if command_line_runs():  # --data-norm is the schema's norm and the learner's bound
        bound, switch = f"--data-norm {largest:.4g}", f'"encoding": "{other}" in the --schema file'
    else:
        bound, switch = (f"PublicSchema(..., norm={largest:.4g}) and the learner's data_norm={largest:.4g}",
                         f'PublicSchema(..., encoding="{other}")')
    fixes = [f"a norm of at least the schema's largest possible row norm, {largest:.4g}, so that no row is scaled "
             f"({bound}; the noise grows with the norm)"]
    if np.all(kept_other[order] >= COLUMN_KEPT):
        fixes.append(f"encoding={other!r}, which keeps them here: {switch}")
    # a column that fills a sliver of its range stays a sliver where no row is scaled (spend 0..150 declared
    # 0..100,000: three classes at epsilon 1 no better than the majority at either norm, 0.82 on the log scale)
    log = _log_scale()
    fixes.append("for a column that fills a sliver of its range even so, a declared range that fits its values more "
                 "closely (from its documentation, never from its values in the data), or the log scale for a "
                 f"positive quantity spread over orders of magnitude ({log})")
    warn_shown(
        f"the schema's row map x / max(1, ||x|| / norm) divides each row of norm above {norm:g} by its norm, a factor "
        f"set by all its columns: the numeric columns {shown}{more} vary less within their declared ranges than "
        "that factor moves them, so what the rows keep of them is mostly the other columns' (under half of each "
        "one's spread after the map follows its own values): where the label depends on them, a model learns little "
        f"from them. {_NO_LABEL} NOT PRIVATE: this check read the rows; it is shown to you only and is not part of "
        "any release. Fix: "
        + _noise_first(*shape) + "; or ".join(fixes), LevelErasedWarning)


def _one_value_share(coded: np.ndarray, rest: np.ndarray, norm: float) -> tuple[np.ndarray, float]:
    """The numeric columns that hold one value in every row read at a code other than 0 (a mask over ``coded``), and
    the median over the rows of their share of the row's squared norm, or 0 where the typical row is not scaled by
    the map (its squared norm at most ``norm`` squared: the columns then cost nothing)."""
    one = np.all(coded == coded[:1], axis=0) & (coded[0] != 0)
    if not one.any():
        return one, 0.0
    squared = np.einsum("ij,ij->i", coded, coded) + np.einsum("ij,ij->i", rest, rest)
    if np.median(squared) <= norm * norm:
        return one, 0.0
    spent = float(coded[0, one] @ coded[0, one])
    return one, float(np.median(spent / np.maximum(squared, spent)))


def _warn_if_one_value(coded: np.ndarray, rest: np.ndarray, names: Sequence[str], encoding: str, norm: float,
                       shape: tuple[int, ...]) -> None:
    """Warn (:class:`~dpcvx.exceptions.LevelErasedWarning`, NOT PRIVATE) where numeric columns that hold one value
    in every row read spend ``ONE_VALUE_SHARE`` or more of a typical row's squared norm (module docstring, "A column
    at one value"): ``coded`` the numeric columns as the schema codes them, ``rest`` the other features, ``shape``
    the public (n, d) of the whole table (:func:`_noise_first`). Names the columns, the farthest from the code's
    zero first, and no count or value."""
    one, share = _one_value_share(coded, rest, norm)
    if share < ONE_VALUE_SHARE:
        return
    columns = np.flatnonzero(one)
    order = columns[np.argsort(-np.abs(coded[0, columns]), kind="stable")]
    shown = [names[j] for j in order[:NAMED]]
    more = f" and {columns.size - NAMED} more" if columns.size > NAMED else ""
    other = "unit" if encoding == "centred" else "centred"
    shift = 0.5 if encoding == "centred" else -0.5  # the other code of the same values
    _, share_other = _one_value_share(coded + shift, rest, norm)
    fixes = ["drop them where a public fact holds them at one value (the border pixels a scanner never inks, a field "
             "a form never fills), never because they held one value in these rows: that choice would read the data"]
    if share_other < ONE_VALUE_SHARE:
        switch = (f'"encoding": "{other}" in the --schema file' if command_line_runs()
                  else f'PublicSchema(..., encoding="{other}")')
        fixes.append(f"encoding={other!r}, which codes them nearer 0 here: {switch}")
    read = coded.shape[0]
    # on a sample (a public rule of n and d) a column rare elsewhere can hold one value in every row read
    # (attacker probe P9 F5, session 71): said so, and "nothing" only of the rows read
    where = ("every row read" if read >= shape[0] else
             f"every one of the {read:,} rows read (an evenly spaced sample of the table; a column can vary in rows "
             "outside it)")
    warn_shown(
        f"the numeric columns {shown}{more} hold one value in {where}, a code away from 0 under "
        f"encoding={encoding!r}: in those rows they tell a model nothing, yet take at least "
        f"{ONE_VALUE_SHARE:.0%} of a typical row's squared norm, so the row map x / max(1, ||x|| / norm) scales "
        f"what the other columns say down with them. {_ONE_VALUE_MEASURED} NOT PRIVATE: this check read the rows; "
        "it is shown to you only and is not part of any release. Fix: " + _noise_first(*shape) + "; or ".join(fixes),
        LevelErasedWarning)
