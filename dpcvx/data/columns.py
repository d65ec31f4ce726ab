"""A table's columns as numpy arrays, with their missing values: what :class:`~dpcvx.PublicSchema` encodes.

A table is a mapping of column name to 1-D array-like, a numpy structured array, a pandas or polars
DataFrame or a pyarrow Table (read by name through :mod:`dpcvx.tables`), or a 2-D array whose columns
are the schema's in order. A missing value is None, NaN, pandas NA or NaT, or text standing for one
(``MISSING_TOKENS``: UCI files write "?", CSV files leave the field empty); the checks are vectorised,
whole columns at a time. Errors name the column and the row, never a value (it is data). The input is
never modified: every output is a new array.
"""

from __future__ import annotations

import decimal
import numbers
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .. import tables
from ..advice import command_line_runs
from ..exceptions import InputError
from ..tables import KEEP_EVERY_RECORD, MISSING_TOKENS, RowError, day_texts, missing_spellings, such_rows, text_numbers

__all__ = ["INFINITY_CELL", "MISSING_TOKENS", "NOT_A_NUMBER", "as_labels", "as_numbers", "column_arrays",
           "common_length", "labels_and_absent", "marker_numbers", "spells_infinity"]

# Text that stands for a missing value (UCI files write "?"; CSV files leave the field empty): tables.MISSING_TOKENS


def column_arrays(table: Any, names: Sequence[str]) -> dict[str, np.ndarray]:
    """The named columns of ``table`` as 1-D numpy arrays, a bytes cell as its UTF-8 text (a cell that is not UTF-8
    text refused by its column and row: :func:`dpcvx.tables.bytes_as_text`), so that no later step sees bytes."""
    if isinstance(table, np.ndarray) and table.dtype.names is None:
        matrix = np.atleast_2d(table)
        if matrix.ndim != 2 or matrix.shape[1] != len(names):
            raise InputError(
                f"a plain array must be 2-D with one column per schema column ({len(names)}: "
                f"{list(names)}), got shape {table.shape}"
            )
        return {name: tables.bytes_as_text(matrix[:, j], f"column {name!r}") for j, name in enumerate(names)}
    named = tables.column_names(table)  # a pandas or polars DataFrame, a pyarrow Table
    if named is not None:
        available = named
    elif isinstance(table, Mapping):
        available = list(table.keys())
    elif isinstance(table, np.ndarray):
        available = list(table.dtype.names)
    elif hasattr(table, "columns") and hasattr(table, "__getitem__"):  # another DataFrame-like
        available = list(table.columns)
        tables.refuse_repeated_names(available)
    else:
        raise InputError(
            "table must be a dict of columns, a numpy structured or 2-D array, a pandas or polars "
            f"DataFrame or a pyarrow Table, got {type(table).__name__}"
        )
    present = set(available)
    missing = [name for name in names if name not in present]
    if missing:
        shown = [str(a) for a in available[:20]] + (["..."] if len(available) > 20 else [])
        raise InputError(f"table has no column(s) {missing[:20]}; it has {shown}")
    # a list's column keeps each entry's own type (tables.own_types): numpy made [nan, 1, "?"] all text, so one
    # text turned every other row's NaN into the text 'nan' (an attacker probe, sixty-third session); a bytes cell is
    # its UTF-8 text in every column (tables.bytes_as_text), whatever the other records' types (sixty-fifth session)
    # the table's names and types read once for all its columns, not once a column (quadratic: tables.named_columns)
    read = tables.named_columns(table, names) if named is not None else None
    arrays = {name: tables.bytes_as_text(read[name], f"column {name!r}") if read is not None
              else tables.own_types(table[name], f"column {name!r}") for name in names}
    for name, values in arrays.items():
        if values.ndim > 1:
            raise InputError(f"column {name!r} must be one-dimensional, got shape {values.shape}")
    return {name: np.atleast_1d(values) for name, values in arrays.items()}


def common_length(arrays: Mapping[str, np.ndarray]) -> int:
    lengths = {name: len(values) for name, values in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise InputError(f"columns have different lengths: {lengths}")
    return next(iter(lengths.values()))


_NUMERIC_KIND_FIX = {
    "c": "complex values are not real numbers; pass the real and imaginary parts as two columns",
    "M": tables.DATETIME_FIX,
    "m": "durations are not numbers; convert them first, e.g. to seconds",
    "V": "raw or structured values are not numbers",
}


def _is_missing(value: Any, tokens: tuple[str, ...] = MISSING_TOKENS) -> bool:
    """None, NaN (a float's or a Decimal's, quiet or signalling), pandas NA / NaT, or text standing for a missing
    value (``tokens``: "?" or "")."""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    if isinstance(value, decimal.Decimal):
        return value.is_nan()
    if isinstance(value, (str, np.str_)):
        return value.strip() in tokens
    return type(value).__name__ in ("NAType", "NaTType")


def _as_text(name: str, values: np.ndarray) -> np.ndarray:
    """``str()`` of each entry of an object column, in one pass; an entry that is itself a list or an array (numpy
    cannot hold its text in one cell) is refused by its row: nested values are not a column type dpcvx encodes; so is
    an integer of more digits than Python writes as text (a bare ValueError)."""
    try:
        return values.astype(str)
    except UnicodeDecodeError:  # bytes that are not ASCII (numpy's str() of bytes): decoded as UTF-8 or refused
        return _as_text(name, tables.bytes_as_text(values, f"column {name!r}"))
    except ValueError:
        row = next((i for i, value in enumerate(values) if np.ndim(value) > 0 or _unwritten(value)), 0)
        if _unwritten(values[row]):
            raise RowError(f"column {name!r} holds an integer of more than {sys.get_int_max_str_digits():,} digits "
                           "in row ", row, " (the value is not shown: it is data), more than Python writes as text; "
                           "a category is compared as its text: declare such codes as strings") from None
        raise RowError(f"column {name!r} holds a list or an array in row ", row, " (the value is not shown: it is "
                       "data): nested values are not a column type dpcvx encodes; give each element a column of its "
                       "own first") from None


def _unwritten(value: Any) -> bool:
    """Whether ``value`` is an integer of more digits than Python turns into text (``str`` raises ValueError)."""
    if not isinstance(value, numbers.Integral):
        return False
    try:
        str(value)
    except ValueError:
        return True
    return False


def _missing_mask(name: str, values: np.ndarray, tokens: tuple[str, ...]) -> np.ndarray:
    """Which entries of a column are missing (:func:`_is_missing`), vectorised: NaN of a float column, the
    ``tokens`` of a text column (surrounding whitespace ignored), and None, NaN, NaT or a token of an object
    column in a few whole-column passes. Only a column holding pandas NA (which is neither equal nor unequal
    to anything) is checked value by value."""
    kind = values.dtype.kind
    if kind == "f":
        return np.isnan(values)
    if kind == "U":  # bytes were decoded where the column was read (tables.bytes_as_text)
        return np.isin(np.char.strip(values), tokens) if tokens else np.zeros(values.shape, dtype=bool)
    if kind != "O":
        return np.zeros(values.shape, dtype=bool)
    try:
        absent = np.asarray((values == None) | (values != values), dtype=bool)  # noqa: E711 (None, NaN, NaT)
    except (TypeError, ValueError, ArithmeticError):  # pandas NA: bool(NA == x) raises; an entry that is an array
        # compares by element; a signalling Decimal NaN raises decimal.InvalidOperation (a bare error before any charge)
        return np.fromiter((_is_missing(v, tokens) for v in values), dtype=bool, count=len(values))
    if tokens:
        absent |= np.isin(np.char.strip(_as_text(name, values)), tokens)
    return absent


#: What a cell that is not a number is advised (a numeric column's, a regression target's). It names no kind of
#: missing marker: a text that spells one ("nan", "NA") is a missing value beside a declared imputed value and has its
#: own error without one (:func:`imputed_value_fix`), so it never reaches this text. The text said '"nan" and "inf"
#: are not numbers' while "nan" in the same column was read as missing (an analyst probe, session 69, P8 finding 9);
#: an infinity gets :data:`INFINITY_CELL` before it, only when the offending cell is one (:func:`spells_infinity`).
#: Money and percent cells (an analyst probe, session 71, P2 finding 8): the text listed "$5" and "1,250" but not an
#: accounting negative "(45.00)", and a reader who stripped "$,()" as it suggested turned negatives positive without
#: an error; it now says what "(45.00)" and "12%" become (a percent in the declared range's units).
NOT_A_NUMBER = ("a numeric cell is a plain number, ASCII digits with an optional sign, decimal point and exponent "
                "(-0.5, 1250, 1.5e3): remove thousands separators, units and currency or percent signs first "
                "(\"1,250\", \"1_250\", \"70 kg\" and \"$5\" are not numbers; a date becomes a number such as the "
                "days since a public date; pandas reads \"1,250\" as 1250 with pd.read_csv(path, thousands=',')); "
                "an accounting negative in parentheses is negative, \"(45.00)\" is -45: give it its minus sign before "
                "the parentheses go, or removing them turns it positive; a percent stays in the units of the declared "
                "range, \"12%\" is 12 in a column declared 0 to 100 and 0.12 in one declared 0 to 1; "
                "a text that marks a missing value (\"-\", \"unknown\") is made an empty cell, or declared: on the "
                "command line with --missing, which dpcvx fit and dpcvx predict take alike; in Python with "
                "NumericColumn(..., missing=value, missing_texts=(marker,))")

#: What leads :data:`NOT_A_NUMBER` when the offending cell spells an infinity ("inf", "-Infinity").
INFINITY_CELL = "the cell is an infinity (\"inf\"), a value no public bound holds; "


def spells_infinity(text: Any) -> bool:
    """Whether a cell's text spells an infinity as a reader of numbers would ("inf", "-Infinity", surrounding
    whitespace and letter case ignored): the kind of a refused cell a numeric error names (:data:`INFINITY_CELL`),
    shown to the data owner only."""
    word = str(text).strip().lower().lstrip("+-")
    return word in ("inf", "infinity")


def imputed_value_fix(name: str) -> str:
    """The fix that leads a numeric column's refusal of a cell that spells a missing value
    (:func:`dpcvx.tables.spells_missing`: "NA", "N/A", "NaN", ...) while the column has no imputed value, naming the
    column as the reader sets it (the command line's --impute, Python's NumericColumn's ``missing``): with one, such
    cells are missing values and take it. The command line's error for "N/A" in a column declared without --impute
    led with :data:`NOT_A_NUMBER`'s separators, units and currency, the fix buried mid-sentence as "NA or NaN in any
    case" (an analyst probe, session 67, P3 finding 6)."""
    if command_line_runs():
        return (f"give it --impute {name}=VALUE when fitting (a public value within its declared bounds, known "
                "without looking at the data; a model fitted without it reads no such cell: fit it again), and every "
                "cell that spells a missing value is a missing value imputed with VALUE")
    return (f"declare NumericColumn({name!r}, lo, hi, missing=VALUE) (a public value within [lo, hi], known without "
            "the data), and every cell that spells a missing value is a missing value imputed with VALUE")


def marker_numbers(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(the numbers, which are finite numbers) of texts that mark a missing value ("999", "NA"): read as a cell of
    that text would be (:func:`~dpcvx.tables.text_numbers`), so that "999" and " 999.0" are the code 999, a column
    read as numbers holds them as such, and "NA", "nan" or "inf" are texts. The one split of such markers into
    missing codes and missing texts (a numeric column's declaration, the command line's ``--missing``)."""
    numbers_, wrong = text_numbers(np.array(list(texts), dtype=str))
    return numbers_, ~wrong & np.isfinite(numbers_)


def as_numbers(name: str, values: np.ndarray, missing: float | None = None,
               codes: tuple[float, ...] = (), texts: tuple[str, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """(float64 values of a numeric column, mask of missing values); never modifies ``values``.

    Missing values (see :func:`_is_missing`; with ``missing``, text that spells one to a reader of numbers, "NA" or
    "NaN": :func:`dpcvx.tables.spells_missing`, which pyarrow reads as a null until one record is text), values equal
    to one of the public ``codes`` (999 for "unknown":
    a column's declared missing codes, given only with ``missing``) and text cells equal to one of the public
    ``texts`` ("NA": its declared missing texts, given only with ``missing``; surrounding whitespace ignored)
    become ``missing`` when it is given (a public value) and are an InputError otherwise; text that is not a
    number, infinity, complex, datetime and timedelta values are always an InputError.
    """
    values = tables.bytes_as_text(values, f"numeric column {name!r}")  # no-op for column_arrays' columns
    kind = values.dtype.kind
    if kind in _NUMERIC_KIND_FIX:
        raise InputError(f"numeric column {name!r} has dtype {values.dtype}: {_NUMERIC_KIND_FIX[kind]}")
    if kind in "biuf":
        numbers_ = values.astype(np.float64)  # a new array: the input is never written to
        absent = np.isnan(numbers_)
    else:
        # an empty cell is always missing; "?" and the declared texts only with a public imputed value
        tokens = (*MISSING_TOKENS, *texts) if missing is not None else MISSING_TOKENS[1:]
        absent = _missing_mask(name, values, tokens)
        present = values
        if absent.any():
            filler: Any = "0" if kind == "U" else 0  # any number: the imputed value replaces it below
            present = np.where(absent, filler, values)
        numbers_, wrong = text_numbers(present)  # a new array: the input is never written to
        if missing is not None and wrong.any():  # imputed as a reader of numbers' null is (without a value both are
            spelled = np.flatnonzero(wrong)       # refused); only the cells that are no number are looked at
            spelled = spelled[missing_spellings(values[spelled])]
            absent[spelled], wrong[spelled] = True, False
        if wrong.any():
            first = int(np.argmax(wrong))
            if missing is None and missing_spellings(values[first:first + 1])[0]:
                raise RowError(f"numeric column {name!r}: {imputed_value_fix(name)}. Row ", first,
                               " (the value is not shown: it is data) holds a text that a reader of numbers reads as "
                               "a missing value (NA, N/A, NaN, null and the like), and the column has no imputed "
                               f"value. {KEEP_EVERY_RECORD}")
            infinite = INFINITY_CELL if spells_infinity(values[first]) else ""
            raise RowError(f"numeric column {name!r} holds a value that is not a number in row ", first,
                           f" (the value is not shown: it is data); {infinite}{NOT_A_NUMBER}"
                           + ("" if infinite else "; if the column holds codes or words, declare it categorical"))
    if codes:
        absent = absent | np.isin(numbers_, codes)
    if absent.any():
        if missing is None:
            raise RowError(f"numeric column {name!r} holds a missing or non-finite value in row ",
                           int(np.flatnonzero(absent)[0]), f" {such_rows(int(absent.sum()))}; declare a public "
                           f"imputed value (NumericColumn(..., missing=lo)). {KEEP_EVERY_RECORD}")
        numbers_[absent] = missing
    bad = np.flatnonzero(~np.isfinite(numbers_))
    if bad.size:
        raise RowError(f"numeric column {name!r} holds a missing or non-finite value in row ", int(bad[0]),
                       f" {such_rows(bad.size)}; public bounds cannot stand in for it: replace it by a rule of "
                       "the record alone (such as reading an infinity as missing, then declaring an imputed value). "
                       f"{KEEP_EVERY_RECORD}")
    return numbers_, absent


_LABEL_KIND_FIX = {  # (a datetime64 column is its days' texts or refused by its row: dpcvx.tables.day_texts)
    "m": "durations have no one text; convert them to a number or to text first",
}


def as_labels(name: str, values: np.ndarray, missing: str | None = None) -> np.ndarray:
    """A str array of a categorical column, each value's ``str()`` (integers read from a table stay integers:
    :func:`dpcvx.tables.named_column`); missing values become ``missing`` or an InputError. Durations and
    timestamps with a time of day, whose text depends on the library and unit, are an InputError; a date, or a
    timestamp at midnight without a timezone, is its day's ISO text (:func:`dpcvx.tables.day_texts`)."""
    labels, absent = labels_and_absent(name, values, missing)
    if absent.any():  # no missing category to take them: refused, with the first row
        raise RowError(f"categorical column {name!r} holds a missing value in row ",
                       int(np.flatnonzero(absent)[0]), f" {such_rows(int(absent.sum()))}: map it to a category "
                       "(CategoricalColumn(..., missing='?') with '?' among the categories) or drop the record")
    return labels


def labels_and_absent(name: str, values: np.ndarray, missing: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(:func:`as_labels`' texts, the rows whose missing value (None, NaN, pandas NA or NaT) no ``missing`` category
    takes): a non-strict schema's column encodes those rows as the all-zero block (their texts, "None" or "nan", are
    no category's), where :func:`as_labels` refuses them. A date, or a timestamp at midnight without a timezone
    (a datetime64 column of any unit, or a cell of an object column), is its day's ISO text; a timestamp with a time
    of day is refused by its row (:func:`dpcvx.tables.day_texts`)."""
    values = day_texts(values, what=f"categorical column {name!r}")  # a midnight timestamp: its day's text
    if values.dtype.kind in _LABEL_KIND_FIX:
        raise InputError(f"categorical column {name!r} has dtype {values.dtype}: {_LABEL_KIND_FIX[values.dtype.kind]}")
    values = tables.bytes_as_text(values, f"categorical column {name!r}")  # no-op for column_arrays' columns
    if values.dtype.kind == "U":
        labels = values
    else:
        absent = _missing_mask(name, values, ())
        labels = _as_text(name, values)  # str() of each value, in one pass
        if missing is None:
            return labels, absent
        if absent.any():
            labels = np.where(absent, str(missing), labels)
    if missing is not None and labels.size:
        labels = np.where(np.isin(np.char.strip(labels), MISSING_TOKENS), missing, labels)
    return labels, np.zeros(labels.shape, dtype=bool)
