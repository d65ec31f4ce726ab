"""Tables by their column names, and entries by their position: the names in every input check's message.

pandas and polars DataFrames and pyarrow Tables are read column by column, but for a pandas DataFrame of plain
numpy numbers, which :func:`plain_matrix` reads at once.

None of the three libraries is imported: a table is recognised by its type's module (``pandas``,
``polars``, ``pyarrow``) and read through the methods each documents (pandas ``iloc`` and
``Series.to_numpy``, polars ``to_series``, pyarrow ``column`` and ``ChunkedArray.to_numpy``).
Every column comes out as a 1-D numpy array, read one of two ways. As numbers (:func:`column_values`, for
the input checks and :func:`table_matrix`): a numeric column with missing values (pandas ``NA``, a polars or
pyarrow null) as float64 with NaN, any other column as the library gives it (text and categories as an object
array). As values (``exact=True``, :func:`named_column`, for :class:`~dpcvx.PublicSchema`, which compares a
category by its text): every entry keeps its own type, so an integer or boolean column (pandas ``Int64`` or
``boolean``, a polars or pyarrow integer, ``int64[pyarrow]``) stays integers or booleans, with None for a missing
entry (an object array) when it has one; a pandas categorical or pyarrow dictionary column comes out as its
categories' own values, None where missing; a timezone-aware pandas datetime as numpy datetime64 (UTC); a
pyarrow date (``date32``, ``date64``) as numpy ``datetime64[D]`` (a pandas ``ArrowDtype`` one as ``datetime.date``
objects), which a schema's categorical column reads as its ISO text. Read as
numbers the integer 3 with a null beside it would be 3.0, whose text is not "3". A pyarrow dictionary column is
decoded first (its ``to_numpy`` gives a null the first category's value). The input checks
(:func:`dpcvx.validation.check_table`) and :class:`~dpcvx.PublicSchema` read tables only through this module, so
every entry point names a column the same way: by its name. An entry that is not a number, or is NaN, missing or
infinite, is named by its row and column (a table's column by its name), never by its value: it is data. A polars
LazyFrame (its rows not computed) and a column of nested values (a list, array or struct in each entry) are refused,
naming the fix.
"""

from __future__ import annotations

import datetime
import math
import numbers
import re
import string
import warnings
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from decimal import Decimal
from typing import Any, NamedTuple, NoReturn

import numpy as np

from .advice import command_line_runs
from .exceptions import InputError, InputTypeError, a_value_of, user_stacklevel

__all__ = ["MISSING_TOKENS", "TABLE_LIBRARIES", "NonFiniteError", "categorical", "check_names", "column_dtype",
           "column_names", "column_values", "feature_names", "few_names", "finite_numbers", "first_non_number",
           "is_number", "named_column", "named_columns", "column_dtypes", "nested", "NUMBER_TEXT", "non_finite_error",
           "non_numeric_entry", "parses_as_float", "plain_matrix", "refuse_kind", "refuse_nested", "refuse_non_numbers",
           "refuse_repeated_names", "refuse_sparse_fill", "repeated_fields", "repeated_names", "row_count",
           "timestamp_fix", "by_value", "spelling_variants", "spelling_key", "NEAR_SPELLING", "table_matrix",
           "such_rows", "text_number", "text_numbers", "reader_number", "spelled_missing", "day_texts", "midnight_day",
           "spelled_timestamp", "iso_day", "unspaced", "DAY_TEXT", "DAY_SPELLING", "declared_days", "declared_texts",
           "may_spell_time", "TIME_MARKS", "timed_timestamp", "time_key", "TIME_TEXT", "TIMESTAMP_TEXT", "reading_key",
           "shared_key", "kept_spelling", "own_types", "bytes_as_text", "NULL_TEXTS", "FLAG_TEXTS", "INFINITY_TEXTS",
           "HEX_TEXT",
           "KEY_DIGITS", "Key", "DATETIME_FIX"]

#: Text that stands for a missing value (UCI files write "?"; CSV files leave the field empty): a data file's cell, and
#: a label outside the declared classes at every entry (:func:`dpcvx.validation.outside_labels`)
MISSING_TOKENS = ("?", "")

#: The libraries whose tables are read by column name (their top-level module names).
TABLE_LIBRARIES = ("pandas", "polars", "pyarrow")


def _library(table: Any) -> str | None:
    """The table library of ``table``'s type ("pandas", "polars", "pyarrow"), or None. A polars LazyFrame, a query
    whose rows are not computed yet, is refused here, so that every reader of a table names it and the fix (numpy
    saw a 0-d object, the schema a DataFrame-like that cannot be indexed by a column's name)."""
    if isinstance(table, np.ndarray):
        return None
    top = type(table).__module__.partition(".")[0]
    if top not in TABLE_LIBRARIES:
        return None
    if top == "polars" and type(table).__name__ == "LazyFrame":
        raise InputError("got a polars LazyFrame, a query whose rows are not computed yet: collect it first "
                         "(frame.collect()) and pass the DataFrame")
    # asked of the type: pyarrow's column_names and polars' columns build the list of every name at each read, and
    # this test runs at each column's read (a sixty-sixth session probe: quadratic in the number of columns)
    kind = type(table)
    if top == "pyarrow":  # a Table or RecordBatch, not an Array
        return top if hasattr(kind, "column_names") else None
    return top if hasattr(kind, "columns") and hasattr(kind, "shape") and len(table.shape) == 2 else None


def repeated_names(names: Iterable[Any]) -> list[Any]:
    """The names that occur more than once in ``names``, each once, in the order of their first occurrence: the one
    check that names are distinct (a table's columns, a schema's, a model file's ``feature_names``, the CLI's
    ``--names``)."""
    return [name for name, count in Counter(names).items() if count > 1]


def repeated_fields(names: Sequence[Any], read: Collection[Any]) -> list[int]:
    """The positions (from 1) of the fields of a file's columns ``names`` (a CSV header or ``--names``, a Parquet
    schema) whose name is one of those ``read`` and an earlier field's too: the one rule of repeated names in a data
    file, whichever reader reads it. A column read by a name two fields share would be either of them, so it is
    refused; a column that is not read may repeat its name, as a spreadsheet's blank or "Notes" headers do (a Parquet
    file that repeated a read column's name failed with pyarrow's bare KeyError, exit 1: a probe, session 67)."""
    seen: set[Any] = set()
    repeats = []
    for index, name in enumerate(names):
        if name in read:
            if name in seen:
                repeats.append(index + 1)
            seen.add(name)
    return repeats


def refuse_repeated_names(names: list[Any]) -> None:
    """Refuse a table's column names that repeat, naming the repeated ones (column names are public, never a value):
    a column is read by its name, so of two columns called "a" one would be read twice and the other never, and a
    model's ``feature_names_in_`` could not tell them apart (swapped, they would be predicted without a word)."""
    repeated = repeated_names(names)
    if repeated:
        raise InputError(f"the table's column names repeat {repeated[:20]}{' ...' if len(repeated) > 20 else ''}: "
                         "dpcvx reads a table's columns by name, so each column needs its own name; rename them "
                         "first (pandas frame.columns = [...], pyarrow table.rename_columns([...]))")


def column_names(table: Any) -> list[Any] | None:
    """The column names of a pandas or polars DataFrame or a pyarrow Table, in order; None for any other input. A
    table whose names repeat is refused (:func:`refuse_repeated_names`): every reader of a table's columns by name
    (the input checks, the estimators' ``feature_names_in_``, :class:`~dpcvx.PublicSchema`) gets them here."""
    library = _library(table)
    if library is None:
        return None
    names = list(table.column_names if library == "pyarrow" else table.columns)
    refuse_repeated_names(names)
    return names


def feature_names(table: Any) -> np.ndarray | None:
    """The column names a dpcvx estimator fitted on ``table`` keeps as ``feature_names_in_`` and its predictions
    check (:func:`dpcvx.release.model.check_feature_names`): those of a pandas or polars DataFrame or a pyarrow Table,
    in order, as an object array when every one is text (scikit-learn's rule for a DataFrame); None for any other
    input, or names none of which is text. Names that mix text with other types are refused (an
    :class:`InputError` naming their types), as scikit-learn refuses them. scikit-learn reads a pandas DataFrame's
    names itself, but none of a polars DataFrame's (polars 2 has no ``__dataframe__``), so the estimators take them
    from here, one rule for every table."""
    names = column_names(table) or []
    text = [isinstance(name, str) for name in names]
    if not any(text):
        return None
    if not all(text):
        kinds = sorted({type(name).__name__ for name in names})  # the names' types (public, as the names are)
        raise InputError(f"the table's column names mix text with other types ({', '.join(kinds)}): scikit-learn's "
                         "rule, which the estimators and saved models follow, keeps a table's names when every one "
                         "is text, ignores them when none is, and refuses a mix; make them all text first (pandas "
                         "frame.columns = frame.columns.astype(str))")
    return np.asarray(names, dtype=object)


def check_names(owner: str, fitted: Any, X: Any, name: str = "X") -> None:
    """Refuse a table X whose column names (:func:`feature_names`) differ, in names or in order, from ``fitted``
    (``feature_names_in_`` of ``owner``, None: fitted without names, nothing checked): a model or a map reads a row's
    entries by position, so swapped columns would be read without a word. X without names is warned of (scikit-learn's
    warning). The one check of the estimators' and loaded models' predictions (:func:`dpcvx.release.model
    .check_feature_names`), of :class:`~dpcvx.data.kernels.RandomFourierFeatures`, and of a fit's second table
    ``name`` read as X's rows (TDDL's public sample Z, checked against the names of X being fitted)."""
    if fitted is None:
        return
    names = feature_names(X)
    if names is None:
        warnings.warn(f"{name} does not have valid feature names, but {owner} was fitted with feature names",
                      UserWarning, stacklevel=user_stacklevel())
        return
    if names.tolist() == list(fitted):
        return
    known, given = set(fitted), set(names)  # once each (a set per name was quadratic in the columns)
    unseen = [name for name in names if name not in known]
    missing = [name for name in fitted if name not in given]
    found = "; ".join(f"{what} {few_names(these)}" for what, these in (("unseen at fit time:", unseen),
                                                                      ("seen at fit time, yet now missing:", missing))
                      if these) or "the same names in another order"
    if name == "X":
        head = "The feature names should match those that were passed during fit"
        fix = "X[list(model.feature_names_in_)]"
    else:
        head, fix = f"The feature names of {name} should match those of X", f"{name}[list(X.columns)]"
    raise InputError(f"{head}: {found}. A model reads a row's entries by position; pass the fitted columns "
                     f"{few_names(list(fitted))} in that order, for example {fix} (a pyarrow Table: "
                     f"{name}.select(...))")


def few_names(names: list[Any], shown: int = 5) -> str:
    """Up to ``shown`` column names (public: the declared columns), then "..." for the rest."""
    return str([str(name) for name in names[:shown]] + (["..."] if len(names) > shown else []))


def row_count(table: Any) -> int:
    """The number of rows of a table recognised by :func:`column_names`."""
    return int(table.num_rows if _library(table) == "pyarrow" else table.shape[0])


def _numeric_with_missing(dtype: Any) -> bool:
    """A pandas extension dtype of numbers (Int64, Float64, boolean), whose NA numpy cannot hold as a number."""
    return getattr(dtype, "kind", "O") in "biuf" and not isinstance(dtype, np.dtype)


def _with_missing(filled: np.ndarray, absent: np.ndarray) -> np.ndarray:
    """``filled`` (a column read with its missing entries filled by any value) with None at ``absent``: an object
    array of the entries' own Python values when any is missing, ``filled`` itself otherwise."""
    if not absent.any():
        return filled
    values = filled.astype(object)
    values[absent] = None
    return values


def _exact_pandas(series: Any) -> np.ndarray:
    """A pandas column read as values (module docstring, ``exact=True``)."""
    dtype = series.dtype
    kind = getattr(dtype, "kind", "O")
    if categorical(dtype):  # its categories' values by code: pandas would turn integer categories with NaN to floats
        codes = np.asarray(series.cat.codes.to_numpy())
        categories = _exact_pandas(series.cat.categories.to_series())
        return _with_missing(categories[np.maximum(codes, 0)] if categories.size else codes, codes < 0)
    if isinstance(dtype, np.dtype) or kind not in "iubM":
        return np.asarray(series.to_numpy())
    if str(dtype).startswith(("date32", "date64")):  # a pyarrow date (date32[day][pyarrow]): datetime.date objects,
        return np.asarray(series.to_numpy(dtype=object))  # pandas NA where missing (datetime64[ns] raised ValueError)
    if kind == "M":  # timezone-aware: its UTC time, refused as a category or a number like any datetime
        return np.asarray(series.to_numpy(dtype="datetime64[ns]"))
    numpy_dtype = dtype.numpy_dtype
    return _with_missing(np.asarray(series.to_numpy(dtype=numpy_dtype, na_value=numpy_dtype.type(0))),
                         np.asarray(series.isna().to_numpy()))


def _integer(dtype: Any) -> bool:
    """Whether a polars or pyarrow data type is an integer type (by its documented name: Int64, uint8, ...); their
    to_numpy gives such a column with a null as float64, and a boolean one with a null as Python booleans."""
    return str(dtype).lower().lstrip("u").startswith("int")


def column_values(table: Any, index: int, *, exact: bool = False) -> np.ndarray:
    """Column ``index`` of a table as a 1-D numpy array, read as numbers (missing numbers are NaN) or, with
    ``exact``, as values (integers stay integers; module docstring)."""
    library = _library(table)
    if library == "pyarrow":
        column = table.column(index)
        if categorical(column.type):  # decoded: a dictionary column's to_numpy drops its nulls
            column = column.cast(column.type.value_type)
        if str(column.type).startswith("date64"):  # a date, as date32 is (numpy datetime64[D]), not its milliseconds
            column = column.cast("date32")
        if exact and _integer(column.type) and column.null_count:
            return _with_missing(np.asarray(column.fill_null(0).to_numpy()),
                                 np.asarray(column.is_null().to_numpy(zero_copy_only=False)))
        return np.asarray(column.to_numpy(zero_copy_only=False))
    if library == "polars":
        series = table.to_series(index)
        if exact and _integer(series.dtype) and series.null_count():
            return _with_missing(np.asarray(series.fill_null(0).to_numpy()), np.asarray(series.is_null().to_numpy()))
        return np.asarray(series.to_numpy())
    series = _viewless(table.iloc[:, index])
    if exact:
        return _exact_pandas(series)
    if _numeric_with_missing(series.dtype):
        return np.asarray(series.to_numpy(dtype=np.float64, na_value=np.nan))
    return np.asarray(series.to_numpy())


def named_column(table: Any, name: Any) -> np.ndarray:
    """The column called ``name`` (a table's names are distinct: :func:`column_names`) read as values
    (:func:`column_values` with ``exact``): the schema's reader, which compares a category by its text. To read
    several columns, :func:`named_columns` reads the table's names once."""
    return named_columns(table, [name])[name]


def named_columns(table: Any, names: Iterable[Any]) -> dict[Any, np.ndarray]:
    """The columns called ``names`` read as :func:`named_column` reads one, the table's names (with their repeat
    check, :func:`column_names`) and its columns' types (:func:`column_dtypes`) read ONCE for all of them: each read
    costs time in the number of the table's columns, so read per column a transform of a 3,000-column table took
    11-30 s even for one row (quadratic; a sixty-sixth session probe). A name the table lacks is a KeyError (the
    caller names the missing columns first)."""
    available = column_names(table)
    if available is None:
        raise TypeError(f"not a table: {type(table).__name__}")
    index = {name: j for j, name in enumerate(available)}  # the names are distinct (column_names refused repeats)
    dtypes = column_dtypes(table)
    columns = {}
    for name in names:
        j = index[name]
        refuse_nested(f"column {name!r}", dtypes[j])
        if _zoned(dtypes[j]):  # its readers give the UTC time, a day other than the zone's own (day_texts)
            raise InputError(f"column {name!r} holds timestamps with a timezone ({dtypes[j]}): a timestamp's day "
                             "depends on the zone it is read in; " + timestamp_fix("%Y-%m-%d"))
        columns[name] = column_values(table, j, exact=True)
    return columns


def _zoned(dtype: Any) -> bool:
    """Whether a column's dtype is a timestamp with a timezone (a pandas ``datetime64[ns, UTC]`` or ``ArrowDtype``
    of one, a polars ``Datetime`` with a ``time_zone``, a pyarrow ``timestamp`` with a ``tz``)."""
    arrow = getattr(dtype, "pyarrow_dtype", dtype)
    return any(getattr(kind, field, None) is not None for kind in (dtype, arrow) for field in ("tz", "time_zone"))


def _viewless(series: Any) -> Any:
    """A pandas column of a pyarrow ``string_view`` or ``binary_view`` (``ArrowDtype``) as one of pyarrow's
    ``large_string`` or ``large_binary``, which pandas turns into numpy (its ``to_numpy`` of a view type raised a
    bare NotImplementedError, a sixty-fifth session probe); any other column as it is."""
    arrow = getattr(getattr(series, "dtype", None), "pyarrow_dtype", None)
    if arrow is None or str(arrow) not in ("string_view", "binary_view"):
        return series
    import pandas as pd
    import pyarrow as pa

    wide = pa.large_string() if str(arrow) == "string_view" else pa.large_binary()
    return pd.Series(pa.array(series).cast(wide), dtype=pd.ArrowDtype(wide), index=series.index, name=series.name)


def plain_matrix(table: Any) -> np.ndarray | None:
    """A pandas DataFrame whose columns all hold numpy booleans, integers or floats as one float64 matrix, the values
    :func:`table_matrix` reads column by column (``DataFrame.to_numpy(dtype=float64)``: the frame's own memory when
    it is one float64 block, which the caller must not write); None for any other table. Its entries are not checked
    (the caller's finite check names a NaN by its row and column name). pandas's indexing costs about 150 us a
    column: read column by column, 0.16 s at 20,000 x 1,000 (a one-off timing), more than the fit's solve."""
    if _library(table) != "pandas" or not all(isinstance(dtype, np.dtype) and dtype.kind in "biuf"
                                              for dtype in table.dtypes):
        return None
    return np.asarray(table.to_numpy(dtype=np.float64))


def column_dtype(table: Any, index: int) -> Any:
    """The table library's own type of column ``index`` (a pandas dtype, a polars or pyarrow data type). Each call
    reads every column's type: a reader of many columns reads :func:`column_dtypes` once."""
    return column_dtypes(table)[index]


def column_dtypes(table: Any) -> list[Any]:
    """The table library's own type of each column, in order (:func:`column_dtype`), read once: pandas builds its
    whole ``dtypes`` Series, pyarrow and polars their list of every type, at each read."""
    library = _library(table)
    if library == "pyarrow":
        return list(table.schema.types)
    return list(table.dtypes)


def finite_numbers(table: Any) -> bool:
    """Whether every column of a table is finite numbers (booleans, integers, floats; no missing value), read
    one column at a time without a copy of the table."""
    for j, dtype in enumerate(column_dtypes(table) if column_names(table) is not None else []):
        if categorical(dtype) or nested(dtype):
            return False
        values = column_values(table, j)
        if values.dtype.kind not in "biuf":
            return False
        if values.dtype.kind == "f" and not np.isfinite(values).all():
            return False
    return True


def categorical(dtype: Any) -> bool:
    """Whether a column's dtype is a pandas or polars categorical (or pyarrow dictionary) type."""
    return str(dtype).lower().startswith(("category", "categorical", "enum", "dictionary"))


def nested(dtype: Any) -> bool:
    """Whether a column's dtype holds a list, array, struct or map in each entry (a polars ``List``, ``Array`` or
    ``Struct``, a pyarrow ``list``, ``struct`` or ``map``, a pandas ``ArrowDtype`` of one; by the type's name, as
    :func:`categorical`): numpy reads such entries as objects of any length, or a struct as more than one column."""
    return str(dtype).lower().startswith(("list", "large_list", "fixed_size_list", "array", "struct", "map"))


def refuse_nested(where: str, dtype: Any) -> None:
    """Refuse a column of nested values (:func:`nested`): not a column type dpcvx encodes."""
    if nested(dtype):
        raise InputError(f"{where} holds nested values ({dtype}): lists, arrays and structs are not a column type "
                         "dpcvx encodes; give each element a column of its own first (for example polars "
                         "frame.unnest(...) or .list.to_struct(), pyarrow Table.flatten())")


#: The one text of the refusal of datetimes where numbers are needed, by an estimator (:func:`refuse_kind`) and by a
#: schema's numeric column (:mod:`dpcvx.data.columns`): they said "seconds" and "days" since a fixed public date
#: for the same mistake (analyst probe P3, session 66)
DATETIME_FIX = "datetimes are not numbers; convert them first, e.g. to days (or seconds) since a fixed public date"

_KIND_FIX = {
    "c": "Complex data not supported: complex values are not real features; pass the real and imaginary parts as two "
         "columns",
    "M": DATETIME_FIX,
    "m": "durations are not numbers; convert them first, e.g. with .astype('timedelta64[s]').astype(float)",
    "V": "structured or raw-byte records are not a matrix; select the numeric fields",
}


def refuse_kind(name: str, dtype: Any) -> None:
    kind = getattr(dtype, "kind", "O")
    if kind in _KIND_FIX:
        raise InputError(f"{name} has dtype {dtype}: {_KIND_FIX[kind]}")


#: The one grammar of a number written as text, wherever dpcvx reads one (a CSV cell, a text cell of a table's numeric
#: column, a regression target read from a file, a number on the command line): ASCII digits with an optional sign,
#: decimal point and exponent ("7", "-0.5", ".5", "5.", "+1.5e-3"), surrounding whitespace ignored (what
#: ``str.strip`` removes, as a CSV cell's). Python's ``float()`` takes more, which no CSV writer means as a plain
#: number: digit grouping ("1_000"), other scripts' digits ("\u0661\u0662", full-width digits), and "nan", "inf",
#: "infinity" in any case; so does pyarrow's CSV reader (a hexadecimal "0x10" as an integer, "true" as a flag in a
#: column of 0/1). Text outside it is not a number: a missing value is an empty cell (or a missing-value marker the
#: caller declares), never "nan". A data cell (not an option) is also read as the number pyarrow makes of it in a
#: column of numbers, a flag or a hexadecimal integer (:func:`reader_number`), since pyarrow's type for the column
#: depends on every record.
NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

#: The characters of :data:`NUMBER_TEXT`, by code point (ASCII), and the empty tail of a numpy str cell (code 0):
#: text of only these that ``float()`` reads is exactly a number of the grammar (a test checks the two agree).
_NUMBER_CODES = np.zeros(128, dtype=bool)
_NUMBER_CODES[[0, *map(ord, "0123456789+-.eE")]] = True


def text_number(text: str) -> float:
    """The number written in ``text`` (:data:`NUMBER_TEXT`, surrounding whitespace ignored), ValueError otherwise:
    the reading of one cell or option."""
    stripped = text.strip()
    if not NUMBER_TEXT.fullmatch(stripped):
        raise ValueError("not a plain decimal number")
    return float(stripped)


#: The texts pandas (read_csv's default na_values) and pyarrow (its CSV null_values) read as a missing value, the
#: empty cell aside (a blank cell of its own): pyarrow reads them so in a column of numbers only, and keeps the text
#: once one record is text, so such a text is a missing value wherever it is no declared category
NULL_TEXTS = ("#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
              "NA", "NULL", "NaN", "None", "n/a", "nan", "null")
#: NaN as pyarrow's and polars' number parsers read it: any letter case, signed, with a C library's payload
#: ("nan(ind)", "-NAN"), where pandas reads the spellings of :data:`NULL_TEXTS` only
NAN_TEXT = re.compile(r"[+-]?nan(?:\([0-9A-Za-z_]*\))?", re.IGNORECASE)
#: A flag's texts, in any letter case, that a table's reader may read as a boolean (pandas, pyarrow and polars read
#: these), each with the number it stands for (pyarrow reads 1 and 0 as true and false in a column of flags)
FLAG_TEXTS = {"true": 1, "false": 0}
#: Text an infinite number is written as, in any letter case and with a sign (pandas and pyarrow read it as one)
INFINITY_TEXTS = ("inf", "infinity")
#: An integer in hexadecimal ("0x10"), which pyarrow reads as an integer
HEX_TEXT = re.compile(r"[+-]?0[xX][0-9a-fA-F]+")

#: A day as polars' ``try_parse_dates`` types one (polars 2.1, found by reading each spelling, session 66: attacker
#: probe P6 F1): ISO 8601 ("2020-01-01", pyarrow's CSV reader's only one) and, one separator of "-", "/" or ".", a
#: year first of three or four digits with a month and a day of one or two ("2020/01/01", "2020.1.1", "+2020-1-1"),
#: else a day first and the year last, of one to four digits ("01/02/2020" is 1 February 2020, "1.2.20" the year 20).
#: Read as its ISO text (:func:`iso_day`), as the typed day is (:func:`day_texts`).
DAY_SPELLING = r"\+?\d{3,4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{1,4}"
#: A timestamp as text, with or without a time of day's minutes, seconds and fraction and a zone
#: ("2020-01-01 00:00:00", "2020-01-01T12:30", "2020-01-01 12", "2020-01-01 00:00:00.5", "2020-01-01T00:00:00Z",
#: "2020-01-01 12:30:00+01:00", "2020/01/01 1:2"): groups day (:data:`DAY_SPELLING`), hour, minute, second,
#: fraction, zone. The grammar of pyarrow's CSV reader (an ISO day, two-digit hour, minute and second, Z or a signed
#: offset of hours, "+01", "+0100", "+01:00") and of polars' ``try_parse_dates`` (a one-digit hour, minute or second,
#: a fraction of any length, a leap second "23:59:60" that is the next midnight, a day of :data:`DAY_SPELLING`):
#: each types a column of such texts timestamp while every record is one and keeps the text once one is not (found
#: by reading each spelling, session 66). So each text is read as the typed value is (:func:`day_texts`): at
#: midnight without a zone as its day, else refused (:func:`timed_timestamp`), whichever type its reader gave the
#: column. A text no reader types may match too ("2020/01-01 12:30"): it has one reading, which this is.
TIMESTAMP_TEXT = re.compile(rf"({DAY_SPELLING})[T ]([01]?\d|2[0-3])(?::([0-5]?\d)(?::([0-5]?\d|60)(?:\.(\d+))?)?)?"
                            r"(Z|[+-]\d{2}(?::?\d{2})?)?")
#: A time of day as text ("12:30", "08:00:00", "8:00", "12:30:00.5", "1:2"): groups hour, minute, second, fraction.
#: pyarrow's CSV reader types a column of "HH:MM" or "HH:MM:SS" time32 while every record is one, polars'
#: ``try_parse_dates`` a column of these, a one-digit hour, minute or second, a fraction of any length or a second
#: 60 (the next minute) Time, and each keeps the text once one record is not; a typed time is read as its text
#: ("12:30:00", :func:`day_texts`), so a time of day is compared by the time it spells (:func:`time_key`), never by
#: its text (session 66).
TIME_TEXT = re.compile(r"([01]?\d|2[0-3]):([0-5]?\d)(?::([0-5]?\d|60)(?:\.(\d+))?)?")


def unspaced(text: str) -> str:
    """A time, a day or a timestamp written as text, as it is read: without its surrounding whitespace (what
    ``str.strip`` removes). pyarrow's CSV reader types a column of " 12:30", "12:30\t" or " 2020-01-01 " (spaces and
    tabs either side) time32 or date32 while every record is one, and polars' ``try_parse_dates`` a column of times,
    days and "T" timestamps after any leading whitespace, each read as the typed value's text, and each keeps the text
    once one record is not (found by reading each spelling, session 66: attacker probe P6 F1, where a typed " 12:30"
    matched the declared "12:30" and its text, once one record was other text, did not). Whitespace neither reader
    takes leaves a text no reader types, whose one reading this is too. The rule of :func:`text_number`, for
    numbers, kept for times and days."""
    return text.strip()


#: :data:`DAY_SPELLING` as a whole text, its parts by group: year first, or day first
DAY_TEXT = re.compile(r"\+?(\d{3,4})([-/.])(\d{1,2})\2(\d{1,2})|(\d{1,2})([-/.])(\d{1,2})\6(\d{1,4})")


def iso_day(text: str) -> str | None:
    """The ISO text ("2020-01-01") of the calendar day a text spells (:data:`DAY_TEXT`, surrounding whitespace
    ignored: :func:`unspaced`), as polars' ``try_parse_dates`` (and pyarrow's CSV reader, for an ISO day) reads it,
    or None ("2020-02-30" and "2020/13/01" are no day, and no reader types them)."""
    match = DAY_TEXT.fullmatch(unspaced(text))
    if match is None:
        return None
    year, month, day = match.group(1, 3, 4) if match.group(1) is not None else match.group(8, 7, 5)
    try:
        return datetime.date(int(year), int(month), int(day)).isoformat()
    except ValueError:
        return None


def _midnight(match: re.Match[str]) -> str | None:
    """The ISO day a :data:`TIMESTAMP_TEXT` match stands for at midnight without a zone (a leap second 23:59:60 is
    the next day's midnight, as polars reads it), else None."""
    day = iso_day(match.group(1))
    if day is None or match.group(6) is not None or int(match.group(5) or 0):
        return None
    seconds = int(match.group(2)) * 3600 + int(match.group(3) or 0) * 60 + int(match.group(4) or 0)
    if seconds == 0:
        return day
    if seconds == 86400:
        return (datetime.date.fromisoformat(day) + datetime.timedelta(days=1)).isoformat()
    return None


def midnight_day(text: str) -> str | None:
    """The day ("2020-01-01") of a text that spells a timestamp at midnight without a timezone
    (:data:`TIMESTAMP_TEXT`, every part of its time zero, or the leap second "23:59:60" of the day before; surrounding
    whitespace ignored, :func:`unspaced`), or None."""
    match = TIMESTAMP_TEXT.fullmatch(unspaced(text))
    return None if match is None else _midnight(match)


def timed_timestamp(text: str) -> bool:
    """Whether a text spells a timestamp with a time of day or a timezone (:data:`TIMESTAMP_TEXT` on a calendar day,
    not at midnight without a zone): a reader types a column of such texts as timestamps, which have no one text and
    are refused (:func:`day_texts`), so the text is refused too, in every form (session 66)."""
    return _timed(text) is not None


def _timed(text: str) -> re.Match[str] | None:
    """The :data:`TIMESTAMP_TEXT` match of a text :func:`timed_timestamp` holds (its zone in group 6), else None."""
    match = TIMESTAMP_TEXT.fullmatch(unspaced(text))
    return match if match is not None and iso_day(match.group(1)) is not None and _midnight(match) is None else None


def time_key(text: str) -> int | None:
    """The microseconds since midnight a text spelling a time of day stands for (:data:`TIME_TEXT`: "12:30",
    "12:30:00" and a typed 12:30's text are one time, "12:30:60" is 12:31), or None; a fraction beyond the
    microsecond is dropped, as a typed time read as a ``datetime.time`` drops it (polars reads
    "12:30:00.123456789" as 12:30:00.123456). Surrounding whitespace is ignored (:func:`unspaced`)."""
    match = TIME_TEXT.fullmatch(unspaced(text))
    if match is None:
        return None
    hour, minute, second, fraction = match.groups()
    seconds = int(hour) * 3600 + int(minute) * 60 + int(second or 0)
    return seconds * 10**6 + int((fraction or "")[:6].ljust(6, "0"))


class _SpelledKind(NamedTuple):
    """What :func:`spelled_timestamp` says of two declared values that spell one time of day or one day: the kind's
    name, its key (:func:`time_key`, :func:`iso_day`), how a reader reads a column of the kind, whether the refusal
    names the key, and what it adds of polars."""

    name: str
    key: Callable[[str], Any]
    reading: str
    named: bool
    note: str


#: the two kinds :func:`spelled_timestamp` compares declared values by, in its order: a time of day, then a day
_SPELLED_KINDS = (
    _SpelledKind("time of day", time_key, "a reader types a column of times, read as '12:30:00'", False, ""),
    _SpelledKind("day", iso_day, "a reader types a column of days, read as its ISO text", True,
                 "; polars' try_parse_dates reads '01/02/2020' as 1 February"),
)


def spelled_timestamp(declared: Iterable[Any]) -> str | None:
    """Why the first ``declared`` value (a schema's category, a class) that is text spelling a timestamp is refused,
    or None: at midnight (:func:`midnight_day`) its day is to be declared, as :func:`declared_days` reads a cell
    spelled so as its day; with a time of day or a zone (:func:`timed_timestamp`) no cell can be it, since a reader
    types such cells timestamps, which are refused, and a cell spelled so is refused alike. Two values that spell
    one time of day (:func:`time_key`: "08:00" and "08:00:00") or one day (:func:`iso_day`: "2020-01-01",
    "2020/01/01" and " 2020-01-01"; polars reads "01/02/2020" as "2020-02-01") are refused too: a cell of that time
    or day would be both."""
    texts = [value for value in declared if isinstance(value, str)]
    for value in texts:
        if (day := midnight_day(value)) is not None:
            return (f"{value!r} spells a timestamp at midnight, which a table's reader (pyarrow's CSV reader) types "
                    f"as a timestamp while every record is one, read as its day: declare the day {day!r} (a cell "
                    "spelled so is read as it)")
        if timed_timestamp(value):
            return (f"{value!r} spells a timestamp with a time of day or a timezone, which a table's reader "
                    "(pyarrow's CSV reader, polars) types as a timestamp while every record is one, and such a "
                    "timestamp is refused, as a cell spelled so is: write it another way in the data and the "
                    "declaration (for example '2020-01-01 12h30', or its day)")
    seen: dict[tuple[str, Any], str] = {}  # (what it spells, its key): the first declared value spelling it
    for value in texts:
        for kind in _SPELLED_KINDS:
            key = kind.key(value)
            if key is None:
                continue
            if (kind.name, key) in seen:
                named = f" ({key!r})" if kind.named else ""
                return (f"{value!r} spells the {kind.name} {seen[(kind.name, key)]!r} spells too{named}, and a cell is "
                        f"read by the {kind.name} it spells ({kind.reading}, until one record is text{kind.note}): "
                        "declare one of them")
            seen[(kind.name, key)] = value
    return None


def declared_days(texts: Sequence[Any], declared: Collection[Any], what: str = "the column",
                  rows: Sequence[int] | None = None) -> list[str | None]:
    """For each of ``texts`` (a column's cells or labels that are no declared value): the ``declared`` value it is
    read as, None for any other entry; each distinct text read once (one regular expression each). The one reading
    of such a cell, for a schema's category and for a class, whatever type its reader gave the column (pyarrow's CSV
    reader and polars type a column of such texts while every record is one and keep the text once one is not:
    sessions 65 and 66):

    - a day (:func:`iso_day`: "2020-01-01", " 2020-01-01", "2020/01/01", polars' "01/02/2020" as 1 February, a
      typed day's ISO text) or a timestamp at midnight without a timezone (:func:`midnight_day`: "2020-01-01
      00:00:00"): the declared value that spells the same day, as a typed one is read (:func:`day_texts`);
    - a time of day (:func:`time_key`: "12:30", "12:30:00.0"): the declared value that spells the same time, as a
      typed time is read as its text ("12:30:00");
    - a timestamp with a time of day or a timezone (:func:`timed_timestamp`): a :class:`RowError` naming ``what``
      and the entry's row (``rows[i]``, else its index), as a typed one is refused."""
    times = {key: value for value in declared if isinstance(value, str) and (key := time_key(value)) is not None}
    days = {day: value for value in declared if isinstance(value, str) and (day := iso_day(value)) is not None}
    read: dict[str, str | None] = {}
    zoned: dict[str, bool] = {}  # the texts with a time of day or a zone (True), refused by the first one's row
    for text in {entry for entry in texts if isinstance(entry, str)}:
        if not times and not any(mark in text.split(":", 1)[0] for mark in DAY_MARKS):  # a time at most (no day before
            continue  # its first ":"), and no time is declared
        if (day := midnight_day(text) or iso_day(text)) is not None:
            read[text] = days.get(day)
        elif (key := time_key(text)) is not None:
            read[text] = times.get(key)
        elif (match := _timed(text)) is not None:
            zoned[text] = match.group(6) is not None
    if zoned:
        index = next(i for i, entry in enumerate(texts) if isinstance(entry, str) and entry in zoned)
        row = index if rows is None else int(rows[index])
        if zoned[texts[index]]:
            _refuse_zone(what, row)
        _refuse_time(what, row)
    return [read.get(entry) if isinstance(entry, str) else None for entry in texts]


#: The separators of a day's parts (:data:`DAY_SPELLING`)
DAY_MARKS = "-/."
#: The characters one of which every text :func:`declared_days` reads holds (a time's ":", a day's separators)
TIME_MARKS = ":" + DAY_MARKS
#: Their code points, to look for them in a numpy str array's code units at once
_TIME_CODES = np.array([ord(mark) for mark in TIME_MARKS], dtype=np.uint32)
#: Rows of a numpy str array looked at for :data:`TIME_MARKS` at a time (a bounded copy of their code units)
_MARK_ROWS = 1 << 18


def may_spell_time(values: np.ndarray) -> np.ndarray:
    """Mask of the entries of 1-D ``values`` that may spell a day, a time of day or a timestamp: every entry but a
    text holding none of :data:`TIME_MARKS` (no :data:`TIME_TEXT`, :data:`DAY_SPELLING` or :data:`TIMESTAMP_TEXT`
    matches one). A vectorised prefilter before :func:`declared_days`' regular expressions, which cost up to three
    per distinct text (an attacker probe, session 66, P6 F2: 6.6 s for 2e6 distinct labels that were IDs): a numpy
    str array's code units are compared at once, objects entry by entry."""
    if values.dtype.kind == "U" and values.itemsize and values.size:
        mask = np.empty(values.size, dtype=bool)
        for start in range(0, values.size, _MARK_ROWS):
            block = np.ascontiguousarray(values[start:start + _MARK_ROWS])
            units = block.view(np.uint32).reshape(block.size, -1)
            mask[start:start + _MARK_ROWS] = (units[..., None] == _TIME_CODES).any(axis=(1, 2))
        return mask
    if values.dtype.kind == "O":
        return np.fromiter((not isinstance(entry, str) or any(mark in entry for mark in TIME_MARKS)
                            for entry in values.tolist()), dtype=bool, count=values.size)
    return np.ones(values.shape, dtype=bool) if values.dtype.kind != "U" else np.zeros(values.shape, dtype=bool)


def declared_texts(labels: np.ndarray, declared: Sequence[Any], what: str = "y") -> np.ndarray:
    """``labels`` (1-D) with each text label that is no ``declared`` class read by its own text
    (:func:`declared_days`): one spelling a timestamp at midnight ("2020-01-01 00:00:00") as its day when that day
    is a class, one spelling a time of day ("08:00:00", a typed 08:00's text) as the class that spells that time
    ("08:00"), and one spelling a timestamp with a time of day or a zone refused by its row (named by ``what``):
    pyarrow's CSV reader and polars type a column of such texts while every label is one (a typed one is read so:
    :func:`day_texts`) and keep the text once one label is not (sessions 65 and 66). ``labels`` itself when none is
    read otherwise. The one such reading of labels against declared classes, before :func:`by_value`: the Python
    entries' (:func:`dpcvx.validation.declared_labels`) and the command line's label column's."""
    if labels.dtype.kind not in "UO" or not labels.size:
        return labels
    texts = {value for value in declared if isinstance(value, str)}  # the labels that are no declared text:
    if labels.dtype.kind == "U":  # one vectorised lookup (a comparison per class cost 4.6 s on 2e6 labels of 200)
        other = np.isin(labels, sorted(texts), invert=True) if texts else np.ones(labels.shape, dtype=bool)
    else:  # each entry by its type first: pandas' NA has no truth value, and numpy's comparison raised on it
        other = np.fromiter((not (isinstance(entry, str) and entry in texts) for entry in labels.tolist()),
                            dtype=bool, count=labels.size)
    other &= may_spell_time(labels)
    rows = np.flatnonzero(other)
    if not rows.size:
        return labels
    read = declared_days(labels[rows].tolist(), set(declared), what, rows.tolist())
    if not any(read):
        return labels
    labels = labels.astype(object)
    for row, day in zip(rows.tolist(), read, strict=True):
        if day is not None:
            labels[row] = day
    return labels


#: A reading key (:func:`reading_key`): a number, an int when whole, else a float (an infinity among them)
Key = int | float
#: The digits a reading key's whole part may have (an integer, a Decimal or a hexadecimal of more is no key, never
#: expanded; a numeral's text of more is the float a reader makes of it)
KEY_DIGITS = 400


def spells_missing(text: str) -> bool:
    """Whether ``text`` (surrounding whitespace ignored) is one a table's reader may read as a missing value:
    :data:`NULL_TEXTS` or :data:`NAN_TEXT`. pyarrow and polars read it so in a column of numbers and keep the text
    once one record is text, so such a cell is a missing value wherever it is nothing declared (attacker probes,
    sixty-third and sixty-fourth sessions: "NAN" and "-nan(ind)" moved 200 of 600 rows with one record)."""
    stripped = text.strip()
    return stripped in NULL_TEXTS or NAN_TEXT.fullmatch(stripped) is not None


def spelled_missing(declared: Iterable[Any]) -> Any | None:
    """The first ``declared`` value (a class, a command-line label) that is text and :func:`spells_missing`, or None:
    pyarrow reads such a label as a null in a column of codes and keeps its text once one record is text, so whether
    a label cell is that class would depend on the other records (an attacker probe, session 65: classes ("NA", "1")
    were refused as missing labels from a column pyarrow typed int64, released once one label was "x"). The one check
    of declared labels, made before any data is read, as a schema's categories are checked
    (:func:`dpcvx.data.preprocessing._refuse_two_readings`). Empty text (or only spaces) is such a label too: pyarrow
    reads an empty cell as a null among codes and as "" once one record is text (a regression probe, session 65)."""
    return next((value for value in declared
                 if isinstance(value, str) and (spells_missing(value) or not value.strip())), None)


def missing_spellings(values: np.ndarray) -> np.ndarray:
    """Mask of the text entries of ``values`` (str; objects, whose other entries are not text) that
    :func:`spells_missing`; each distinct text read once."""
    return _texts_where(values, spells_missing)


def _texts_where(values: np.ndarray, keep: Callable[[str], bool]) -> np.ndarray:
    """Mask of the text entries of ``values`` (str, or the str among objects; bytes and numbers are none) for which
    ``keep`` holds, each distinct text tested once: the pass of :func:`missing_spellings` and
    :func:`spelling_variants`."""
    if values.dtype.kind not in "UO" or not values.size:
        return np.zeros(values.shape, dtype=bool)
    texts = [value for value in set(values.ravel().tolist()) if isinstance(value, str) and keep(value)]
    return np.isin(values, np.array(texts, dtype=object) if values.dtype.kind == "O" else texts) if texts else (
        np.zeros(values.shape, dtype=bool))


def own_types(y: Any, what: str = "y") -> np.ndarray:
    """``y`` (labels, or a table's column, named ``what`` in a refusal) as an array, a list or tuple of mixed types
    kept as objects, each entry of its own type, and every bytes entry as its UTF-8 text (:func:`bytes_as_text`):
    numpy gives a list one type for all, and one text made every number text ([1, 0, "a"] is ["1", "0", "a"], a NaN
    "nan"), so one record decided whether every other label matched the declared classes (0, 1), or how every other
    cell of a dict of lists' column was read (attacker probes, sixty-third session). A list of bytes was a numpy
    bytes array, decoded by the categorical reader, and the same list with one text record objects, whose bytes it
    did not read as text (and numpy decoded non-ASCII bytes beside text as ASCII, a bare UnicodeDecodeError): the
    bytes are decoded here, before numpy gives the list a type, so a list of bytes is read as the list of their
    texts whatever its other records are (a sixty-fifth session probe)."""
    if not isinstance(y, (list, tuple)):
        return bytes_as_text(np.asarray(_viewless(y) if _library(y) == "pandas" else y), what)
    try:
        labels = np.asarray(y)
    except UnicodeDecodeError:  # non-ASCII bytes beside text, which numpy decodes as ASCII
        labels = np.array(y, dtype=object)
    except ValueError:  # a bytearray (numpy reads its bytes as a sequence) or a list among the entries: objects, so
        labels = np.array(y, dtype=object)  # that a bytearray is its text and a list is refused by its row
    if labels.dtype.kind not in "USO":
        return labels
    entries = _flat(y)
    if any(isinstance(entry, (bytes, bytearray)) for entry in entries):
        y = bytes_as_text(np.array(y, dtype=object), what).tolist()
        labels, entries = np.asarray(y), _flat(y)
    if labels.dtype.kind == "U" and not all(isinstance(entry, str) for entry in entries):
        return np.array(y, dtype=object)
    return labels


def bytes_as_text(values: np.ndarray, what: str) -> np.ndarray:
    """``values`` with every bytes entry (a numpy bytes array's, or bytes among objects) as its UTF-8 text, ``values``
    itself when it holds none; a :class:`RowError` naming ``what`` (a column, "y") and the first row of a cell that
    is not UTF-8 text, before anything is read of the others.

    The one reading of bytes, where a column (:func:`dpcvx.data.columns.column_arrays`: a dict of lists, a numpy
    array, a pandas, polars or pyarrow column; a Parquet file's binary column on the command line) or a label vector
    (:func:`own_types`, :func:`dpcvx.validation.label_vector`) is read: a bytes cell is its text, whatever type the
    other records gave the column. A numpy bytes array was decoded and bytes among objects were not (one text record,
    a pandas or pyarrow column of bytes), so one record moved every other bytes row of a categorical column between its
    category and the all-zero block, in a charged release; non-ASCII bytes were a bare UnicodeDecodeError or a
    refusal naming a nested value in row 0; the command line wrote a Parquet binary cell as "b'yes'" (attacker probe,
    sixty-fifth session)."""
    kind = values.dtype.kind
    if kind == "S":
        try:
            return np.char.decode(values, "utf-8")
        except UnicodeDecodeError:
            _refuse_undecoded(values, what)
    if kind != "O" or not values.size or not any(issubclass(kind_, (bytes, bytearray))
                                                 for kind_ in set(map(type, values.flat))):
        return values
    decoded = values.copy()
    flat = decoded.reshape(-1)
    for i, value in enumerate(values.flat):
        if isinstance(value, (bytes, bytearray)):
            try:
                flat[i] = bytes(value).decode("utf-8")
            except UnicodeDecodeError:
                _refuse_undecoded(values, what)
    return decoded


def _refuse_undecoded(values: np.ndarray, what: str) -> None:
    """Refuse the first cell of ``values`` that holds bytes that are not UTF-8 text, by its row."""
    for i, value in enumerate(values.flat):
        if isinstance(value, (bytes, bytearray)):
            try:
                value.decode("utf-8")
            except UnicodeDecodeError:
                row = int(np.unravel_index(i, values.shape)[0]) if values.ndim else 0
                raise RowError(f"{what} holds bytes that are not UTF-8 text in row ", row, " (the value is not "
                               "shown: it is data): a bytes cell is read as its UTF-8 text; decode the column from "
                               "its own encoding first (pandas: frame[name].str.decode('latin-1'); numpy: "
                               "np.char.decode(values, 'latin-1'))") from None
    raise AssertionError("a cell that is not UTF-8 text was found")  # pragma: no cover


def _flat(y: list[Any] | tuple[Any, ...]) -> list[Any]:
    """The entries of a list of labels, or of a column of them ([[1], [0]])."""
    return [entry for label in y for entry in (label if isinstance(label, (list, tuple)) else (label,))]


def day_texts(values: np.ndarray, objects: bool = True, what: str = "the column") -> np.ndarray:
    """A column's dates and midnight timestamps as their day's ISO text ("2020-01-01", the one text a table's reader
    parses into such a date), whatever type its reader inferred for the whole column; any other column as it is.

    - a numpy ``datetime64`` column of any unit (a pyarrow ``date32``, ``date64`` or ``timestamp``, a polars
      ``Date`` or ``Datetime``, a pandas ``datetime64``): an object array of its days' texts, None where a value is
      missing (NaT);
    - with ``objects``, the entries of an object column that are a ``datetime.date``, a ``datetime.datetime`` (a
      ``pandas.Timestamp``) or a ``numpy.datetime64``: their day's text; a ``datetime.time`` (pyarrow's ``time32``
      and polars' ``Time`` columns, read as objects): its ISO text ("12:30:00"), compared with a declared value by
      the time it spells (:func:`declared_days`), as a text cell spelling a time is.

    A timestamp is read as its day only at midnight (no hour, minute, second or fraction, to the nanosecond) and
    without a timezone (a zoned column is refused where it is read, :func:`named_column`); any other timestamp has
    no one text (numpy writes 2020-01-01T12:30:00, pandas 2020-01-01 12:30:00) and is a :class:`RowError` naming
    ``what`` and its row, in every form, inside an object column too. The reader's type for a column depends on
    every record: pyarrow's CSV reader types a column of ISO dates date32 while every record is one and keeps the
    text once one is not; pandas makes five ``pd.Timestamp`` cells datetime64 and four beside a ``datetime.date``
    objects; polars makes a column Datetime once one cell is a ``datetime.datetime``. A datetime64 column was refused
    and its object twin released (the Timestamp rows as "2020-01-01 00:00:00", no category), so one record decided
    refusal or release (attacker probes, session 65). Read by each cell's own value, a midnight timestamp is the
    category or class "2020-01-01" whichever type the reader gave the column, as the command line reads a Parquet
    date column (:mod:`dpcvx.data.parquet`). The one reading of dates, for a schema's categorical column and for
    labels (:func:`dpcvx.validation.label_vector`). Without ``objects`` an object column is left as it is (the look
    at every entry's type costs 70 ms at 2,000,000 labels, a one-off timing)."""
    if values.dtype.kind == "M":
        return _days(values, what)
    if not objects or values.dtype != object or not values.size:
        return values
    entries = values.ravel().tolist()
    if not any(issubclass(kind, (datetime.date, datetime.time, np.datetime64)) for kind in set(map(type, entries))):
        return values
    texts = [_day_text(entry, i, values.shape, what) for i, entry in enumerate(entries)]
    return np.array(texts, dtype=object).reshape(values.shape)


def _days(values: np.ndarray, what: str) -> np.ndarray:
    """A numpy datetime64 array (any unit) as its days' ISO texts, None at NaT; a :class:`RowError` naming ``what``
    and the first row of a value that is not at midnight (:func:`day_texts`)."""
    days = values.astype("datetime64[D]")
    absent = np.isnat(values)
    timed = ~absent & (days != values)
    if timed.any():
        _refuse_time(what, int(np.unravel_index(int(np.argmax(timed)), values.shape)[0]) if values.ndim else 0)
    texts = np.datetime_as_string(days, unit="D").astype(object)
    texts[absent] = None
    return texts


def _day_text(entry: Any, index: int, shape: tuple[int, ...], what: str) -> Any:
    """One entry of an object column read by :func:`day_texts` (``index`` in its flat order)."""
    if isinstance(entry, datetime.time):  # a typed time of day (pyarrow time32, polars Time): "12:30:00"
        if entry.tzinfo is not None:
            raise RowError(f"{what} holds a time of day with a timezone in row ",
                           int(np.unravel_index(index, shape)[0]) if len(shape) else 0, " (the value is not shown: "
                           "it is data): convert the column to text with a public format first")
        return entry.isoformat()
    if not isinstance(entry, (datetime.date, np.datetime64)) or type(entry).__name__ == "NaTType":
        return entry
    row = int(np.unravel_index(index, shape)[0]) if len(shape) else 0
    if isinstance(entry, np.datetime64):
        if np.isnat(entry):
            return None
        try:
            return _days(np.array([entry]), what)[0]
        except RowError:
            _refuse_time(what, row)
    if isinstance(entry, datetime.datetime):
        if entry.tzinfo is not None:
            _refuse_zone(what, row)
        nanoseconds: int = getattr(entry, "nanosecond", 0)  # a pandas Timestamp's, below its microseconds
        if entry.time() != datetime.time() or nanoseconds:
            _refuse_time(what, row)
        return entry.date().isoformat()
    return entry.isoformat()


def timestamp_fix(keep: str) -> str:
    """The fix a refusal of a timestamp in a table's column gives, led by a public numeric feature derived from it
    (analyst probe P2, session 68, finding 7: the refusal of a timestamp declared categorical advised its text,
    .dt.strftime('%Y-%m-%d %Hh%M'), about one category per record and useless as a feature, where the numeric
    column's refusal advised the days since a public date): the hour of day or the days since a public date,
    declared a numeric column with public bounds; then, to keep it a category, its text in the public format
    ``keep`` (strftime's). Each derived value is a function of its own record (a public rule). In the command
    line's words while a ``dpcvx`` command runs (the file's column, --numeric)."""
    if command_line_runs():
        return ("a timestamp is nearly one category per record, which a model learns nothing from: derive a public "
                "number from it in the file first, such as the hour of day (0..23) or the days since a public date "
                "(a fixed date known without the data), and declare that column --numeric NAME:LO:HI with public "
                "bounds; or, to keep it a category, write it in the file as text in a public format (for example "
                "2020-01-01 12h30, or its day) and declare those categories")
    return ("a timestamp is nearly one category per record, which a model learns nothing from: derive a public "
            "number from it first, such as the hour of day (X[name].dt.hour, NumericColumn(name, 0, 23)) or the "
            "days since a public date ((X[name] - pd.Timestamp('2020-01-01')).dt.days: a fixed date known without "
            "the data), and declare it a NumericColumn with public bounds; or, to keep it a category, convert the "
            f"column to text with a public format first, e.g. .dt.strftime('{keep}')")


def _refuse_zone(what: str, row: int) -> NoReturn:
    """Refuse a timestamp with a timezone (:func:`day_texts`): its day depends on the zone it is read in."""
    raise RowError(f"{what} holds a timestamp with a timezone in row ", row, " (the value is not shown: it is data): "
                   "its day depends on the zone it is read in (a reader types text spelling one, "
                   "2020-01-01T00:00:00Z, as a zoned timestamp); " + timestamp_fix("%Y-%m-%d"))


def _refuse_time(what: str, row: int) -> NoReturn:
    """Refuse a timestamp with a time of day (:func:`day_texts`), typed or as text a reader types as one
    (:func:`declared_days`): it has no one text."""
    raise RowError(f"{what} holds a timestamp with a time of day in row ", row, " (the value is not shown: it is "
                   "data): a timestamp has no one text (numpy writes 2020-01-01T12:30:00, pandas 2020-01-01 "
                   "12:30:00), and a reader types text spelling one (2020-01-01 12:30) as a timestamp while every "
                   "record is one; " + timestamp_fix("%Y-%m-%d %Hh%M") + " (a timestamp at midnight, without a "
                   "timezone, is read as its day's ISO text, 2020-01-01)")


def reading_key(value: Any) -> Key | None:
    """The number a table's cell stands for whatever type its reader gave the whole column, or None.

    A reader's type for a column depends on every record: pandas reads a column of codes as integers, as floats when
    one cell is empty or 2.5, as text when one is text (even a declared category), and true/false as booleans unless
    one is text; pyarrow reads 0/1 as booleans once one cell is true, "0x10" as 16, and gives a decimal column the
    scale of its every record; numpy makes a list text when one entry is. So a cell's text ("1.0", "03", "true") or
    type (3, 3.0, Decimal("3.0"), True) may change with another record, and a category or class is looked up by this
    key instead, each cell by its own value (attacker probes, sixty-second and sixty-third sessions):

    - a number (an integer; a float; a Decimal; a boolean, True 1 and False 0) or its text, surrounding whitespace
      ignored: a numeral (:data:`NUMBER_TEXT`; one with a point or an exponent as the float a reader makes of it), a
      flag (:data:`FLAG_TEXTS`, any letter case), an infinity (:data:`INFINITY_TEXTS`, any case, signed) or a
      hexadecimal integer (:data:`HEX_TEXT`): its value, an int when it is whole ("7.0000000000000001" is 7; beyond
      2**53 in size the float64 a reader makes of it, :func:`exact_whole`), else a float (an infinity too); None
      when an integer's, a Decimal's or a hexadecimal's whole part has :data:`KEY_DIGITS` digits or more
      (never expanded);
    - anything else (other text, a missing value, NaN, a numpy date or duration; bytes, which every reader of a
      column or of labels decodes to their text first, :func:`bytes_as_text`): None. A ``numpy.timedelta64`` is a
      numpy integer to Python but a count of its units (2 ns, 2 days): it stood for the code 2, or ``int()`` raised a
      bare TypeError (an attacker probe, session 65); it is no number (:func:`is_number`), as a column of durations
      is refused."""
    if isinstance(value, (np.timedelta64, np.datetime64)):
        return None
    if isinstance(value, str):
        text = value.strip()
        folded = text.lower()
        if folded in FLAG_TEXTS:
            return FLAG_TEXTS[folded]
        if folded.lstrip("+-") in INFINITY_TEXTS and len(folded) - len(folded.lstrip("+-")) <= 1:
            return -math.inf if folded.startswith("-") else math.inf
        if HEX_TEXT.fullmatch(text):
            whole = int(text, 16) if len(text) <= KEY_DIGITS + 3 else None  # never a long text expanded
            return exact_whole(whole) if whole is not None and abs(whole) < 10 ** KEY_DIGITS else None
        if not NUMBER_TEXT.fullmatch(text):
            return None
        if any(mark in text for mark in ".eE") or len(text.lstrip("+-").lstrip("0")) > KEY_DIGITS:
            value = float(text)  # a reader makes a float of it: 1e23 is 99999999999999991611392 and 1e400 infinite,
        else:                    # for pandas, pyarrow and polars alike; never a long integer expanded
            return exact_whole(int(text))
    if isinstance(value, Decimal):
        if value.is_nan():
            return None
        if value.is_infinite():
            return float(value)
        if value.adjusted() >= KEY_DIGITS:
            return None
        if value == value.to_integral_value():
            return exact_whole(int(value))
        value = float(value)
    if isinstance(value, (bool, np.bool_, numbers.Integral, np.integer)):
        return exact_whole(int(value)) if abs(int(value)) < 10 ** KEY_DIGITS else None
    if isinstance(value, (float, np.floating)):
        number = float(value)  # every finite float is below 10 ** KEY_DIGITS
        if math.isnan(number):
            return None
        return int(number) if number.is_integer() else number
    return None


#: Integers of at most this size are floats exactly: above it, a float64 column holds the nearest even neighbour
FLOAT_WHOLE = 2 ** 53


def exact_whole(whole: int) -> Key:
    """A whole number's reading key: itself up to :data:`FLOAT_WHOLE` in size; beyond it, the float64 a reader makes
    of it (round to nearest, ties to even; an infinity beyond float64's range), as an int when finite. A column of
    codes is integers until one cell is empty or 2.5, then floats, which hold 2**53 + 1 as 2**53: the exact integer
    was a key no float cell could reach, so one record made every such code unknown (an attacker probe, sixty-third
    session). Two integers with one nearest float are one key, refused when both are declared (:func:`shared_key`)."""
    if abs(whole) <= FLOAT_WHOLE:
        return whole
    try:
        nearest = float(whole)
    except OverflowError:
        return math.inf if whole > 0 else -math.inf
    return int(nearest) if math.isfinite(nearest) else nearest


def shared_key(groups: Iterable[Iterable[Any]]) -> tuple[Any, Any] | None:
    """The first two declared values of different ``groups`` (a category each, the command line's classes, or a
    Python entry's declared classes) that share a reading key (:func:`reading_key`: "7" and "07", "1" and "true"),
    or None: a cell of that value would be both, which one depending on the type its reader gave the column. The
    one check of a declaration's values, made before any data is read."""
    seen: dict[Key, tuple[int, Any]] = {}
    for group, texts in enumerate(groups):
        for text in texts:
            key = reading_key(text)
            if key is None:
                continue
            first = seen.setdefault(key, (group, text))
            if first[0] != group:
                return first[1], text
    return None


def kept_spelling(first: Any, second: Any, what: str) -> str:
    """What follows a refusal of two declared values that share a reading key (:func:`shared_key`), in every such
    refusal (a schema's categories, a fit's classes): the data need not be rewritten, since the one declared is
    the value of the other's ``what`` ("cells", "labels") too, both being read by their reading key. An analyst probe
    (session 67, P3 finding 5) declared "TRUE" and "1" for a yes/no column, was refused, and was not told that
    declaring "TRUE" alone reads its "1" cells as "TRUE". Said only where the two are spellings of one number
    (7 and 07, TRUE and 1): two different numbers that a float holds as one (9007199254740993 and 9007199254740992,
    beyond 2**53) are two real values, and declaring one would silently read the other's ``what`` as it (analyst
    probe P7, session 68, finding 4), so the refusal says to recode them instead."""
    exact = _exact_number(first), _exact_number(second)
    if None not in exact and exact[0] != exact[1]:
        return (f"; here, though, {first!r} and {second!r} are different numbers that a float holds as one: "
                f"declaring one of them would read the other's {what} as it, so recode them as codes that differ as "
                "floats (within 2**53 in size) instead")
    return (f"; the data need not change: with {first!r} declared, {what} spelled {second!r} are read as {first!r} "
            f"(with {second!r} declared, {what} spelled {first!r} are read as {second!r})")


def _exact_number(value: Any) -> Decimal | None:
    """The number ``value`` spells exactly, before any float rounds it (:func:`kept_spelling`): a numeral's decimal
    value, a flag's 0 or 1, a hexadecimal integer's, a number's own (a float's exact binary value); None for another
    value (or an infinity, a NaN). Called on two declared values a reading key already matched (their size bounded
    by :data:`KEY_DIGITS`)."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in FLAG_TEXTS:
            return Decimal(FLAG_TEXTS[text.lower()])
        if HEX_TEXT.fullmatch(text):
            return Decimal(int(text, 16))
        return Decimal(text) if NUMBER_TEXT.fullmatch(text) else None
    if isinstance(value, (bool, np.bool_, numbers.Integral, np.integer)):
        return Decimal(int(value))
    if isinstance(value, Decimal):
        return value if value.is_finite() else None
    if isinstance(value, (float, np.floating)):
        return Decimal(float(value)) if math.isfinite(float(value)) else None
    return None


def reader_number(text: str) -> float | None:
    """The number a table's reader makes of a cell that is no numeral of :data:`NUMBER_TEXT` but which it reads as a
    number in a column of numbers (surrounding whitespace ignored): a flag (:data:`FLAG_TEXTS`, any letter case: pyarrow
    types a column of 0/1 and "true" as booleans, 1 and 0) or a hexadecimal integer (:data:`HEX_TEXT`: pyarrow reads
    "0x10" as 16; beyond 2**53 the float64 of it, infinite beyond its range; None when its whole part has
    :data:`KEY_DIGITS` digits or more, never expanded), as its reading key (:func:`reading_key`) holds it; None for
    any other text. A numeric column that pyarrow typed from every record read these as numbers, while the same cell
    was refused once one other record (a declared missing marker "?") made the column text (an attacker probe,
    session 65): read so in text too, a cell is one number whatever the column's type."""
    stripped = text.strip()
    if stripped.lower() not in FLAG_TEXTS and not HEX_TEXT.fullmatch(stripped):
        return None
    key = reading_key(stripped)
    return None if key is None else float(key)


def text_numbers(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(float64 numbers, mask of the entries that are not numbers: NaN there) of a 1-D array of text or objects:
    text (str; bytes as their UTF-8 text, :func:`bytes_as_text`, which its readers have applied already) read by
    :data:`NUMBER_TEXT`, or as a flag or hexadecimal integer, which a table's reader reads as a number in a column of
    numbers (:func:`reader_number`: "true" is 1, "0x10" 16), any other entry by ``float()`` when it is a real number
    (:func:`parses_as_float`). The one conversion of a data cell's text to a number (a schema's numeric column, the
    command line's regression target); a number of an option is :data:`NUMBER_TEXT` alone (:func:`text_number`). A
    number beyond the float range is infinite, for the caller's finite check. Vectorised for a str array: its
    characters are checked as code points, whole columns at a time, and numpy's float conversion reads the cells that
    pass (one by one only when one of them fails it); the distinct cells that fail are then read as flags or
    hexadecimal integers once each."""
    values = bytes_as_text(values, "the column")
    numbers, wrong = _grammar_numbers(values)
    if wrong.any():
        rows = np.flatnonzero(wrong)
        texts = values[rows].tolist()
        read = {text: reader_number(text) for text in set(texts) if isinstance(text, str)}
        for row, text in zip(rows.tolist(), texts, strict=True):
            number = read.get(text) if isinstance(text, str) else None
            if number is not None:
                numbers[row], wrong[row] = number, False
    return numbers, wrong


def _grammar_numbers(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`text_numbers` by :data:`NUMBER_TEXT` alone (text) and ``float()`` (other entries) of ``values`` whose
    bytes are text (:func:`bytes_as_text`)."""
    if values.dtype.kind == "U":
        return _str_numbers(np.char.strip(values))
    numbers = np.full(values.shape, np.nan)
    wrong = np.zeros(values.shape, dtype=bool)
    texts = [i for i, value in enumerate(values.tolist()) if isinstance(value, str)]
    if texts:
        numbers[texts], wrong[texts] = _str_numbers(np.char.strip(np.array([values[i] for i in texts], dtype=str)))
    other = np.ones(values.shape, dtype=bool)
    other[texts] = False
    for i in np.flatnonzero(other).tolist():
        value = values[i]
        if parses_as_float(value):
            numbers[i] = float(value)
        else:
            wrong[i] = True
    return numbers, wrong


def _str_numbers(text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`text_numbers` of a numpy str array whose cells are stripped."""
    numbers = np.full(text.shape, np.nan)
    if not text.size:
        return numbers, np.zeros(text.shape, dtype=bool)
    codes = np.ascontiguousarray(text).view(np.uint32).reshape(text.size, -1)
    wrong = np.asarray(~(_NUMBER_CODES[np.minimum(codes, 127)] & (codes < 128)).all(axis=1))
    candidates = np.flatnonzero(~wrong)
    try:
        numbers[candidates] = text[candidates].astype(np.float64)
    except ValueError:  # "", "+", "1e", "1.2.3": characters of a number, but not one
        for i in candidates.tolist():
            try:
                numbers[i] = float(text[i])
            except ValueError:
                wrong[i] = True
    return numbers, wrong


def parses_as_float(value: Any) -> bool:
    """Whether one entry reads as a real number: text (str or bytes) when it is one by :data:`NUMBER_TEXT` or a
    flag or hexadecimal integer a reader reads as one (:func:`reader_number`), any other entry when ``float()``
    converts it (complex never does, nor a numpy date or duration, which numpy would read as a count of its units; an
    integer beyond the float range does not). A schema's numeric column reads text so (a CSV file's cells are text);
    X, regression targets and sample weights do not (:func:`is_number`)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        return NUMBER_TEXT.fullmatch(value.strip()) is not None or reader_number(value) is not None
    if isinstance(value, (complex, np.complexfloating, np.datetime64, np.timedelta64)):
        return False
    try:
        float(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def _number_type(kind: type) -> bool:
    """Whether entries of type ``kind`` are numbers (:func:`is_number`)."""
    return issubclass(kind, (numbers.Real, Decimal, np.bool_)) and not issubclass(kind, np.timedelta64)


def is_number(value: Any) -> bool:
    """Whether one entry of X, of regression targets or of sample weights held as an object is a number: a real
    number (Python's and numpy's integers, floats and booleans, read as 0/1; a Fraction) or a Decimal (the entries of
    a pyarrow or polars decimal column). Text is not, however numeric it looks ("1.5", "1_000", " 2 ", "1e3", which
    numpy's and scikit-learn's float conversions read as numbers), nor a missing value (None, pandas NA), a complex
    number, a date, or a numpy duration (to Python a numpy integer, to numpy a count of its units). A number is
    judged by its type alone: NaN and infinity are numbers, refused by the finite checks."""
    return _number_type(type(value))


def first_non_number(values: np.ndarray) -> int | None:
    """The position in ``values.flat`` (row-major order) of the first entry of an array of objects that is not a
    number (:func:`is_number`), None when every one is, or when ``values`` has another dtype (a numeric dtype holds
    numbers; text, dates and complex dtypes are refused by their dtype). Each distinct type of the entries is judged
    once: at 1,000,000 float entries 0.09 s, against 0.55 s for an isinstance test of each (a one-off timing), about
    what numpy's float conversion of them takes."""
    if values.dtype != object or all(_number_type(kind) for kind in set(map(type, values.flat))):
        return None
    return next(i for i, value in enumerate(values.flat) if not is_number(value))


_TEXT_FIX = ("dpcvx reads no text as a number, not even text that looks like one (\"1.5\", \"1e3\"); if it holds "
             "numbers, convert it deliberately first (pandas: pd.to_numeric(column); numpy: X.astype(float)), or if it "
             "holds categories, declare it categorical in a dpcvx.PublicSchema (CategoricalColumn(name, categories))")


def non_numeric_entry(X: Any, name: str = "X", labels: list[Any] | None = None) -> InputError | None:
    """The one refusal of the first entry of X, in column order, that is not a number (:func:`is_number`) or is
    beyond the float range, at every entry point, naming its position (row, and column: a table's by its name, or
    ``labels[j]``), never its value, with the fix; None when every entry of a 1-D or 2-D X is one. Text is an
    InputError (a ValueError, as numpy's conversion refuses it; the fix: convert it deliberately, or declare it
    categorical), a missing value (None, pandas' NA) the :class:`NonFiniteError` of a NaN (:func:`non_finite_error`),
    a complex number or one beyond the float range an InputError, and any other object (a dict, a list, a date) an
    :class:`~dpcvx.exceptions.InputTypeError`, a TypeError as scikit-learn's ``float()`` refusal is."""
    try:
        array = np.asarray(X, dtype=object)
    except (TypeError, ValueError):  # ragged: no position to name
        return None
    if array.ndim not in (1, 2):
        return None
    fix = (f"{name} must be numeric, every feature a real number: encode text and categories first "
           "(for example with dpcvx.PublicSchema) and impute missing values with a public rule")
    labels = column_names(X) if labels is None else labels
    columns = array.T if array.ndim == 2 else array[None]
    for j, column in enumerate(columns):
        for i, value in enumerate(column):
            if not (is_number(value) and parses_as_float(value)):
                value = value.item() if isinstance(value, np.generic) else value
                where = _column_label(labels, j) if array.ndim == 2 or labels is not None else ""
                if isinstance(value, (str, bytes)):
                    return InputError(f"{name}{where} holds text ({type(value).__name__}) in row {i} (the value is "
                                      f"not shown: it is data): {_TEXT_FIX}")
                if _missing(value):  # None, pandas' NA: a missing value, refused as a NaN is (one message)
                    return non_finite_error(name, i, j if array.ndim == 2 else 0, labels)
                what = (f"{name}{where} holds {a_value_of(value)} that is not a number in row {i} (the value is not "
                        "shown: ")
                if is_number(value) or isinstance(value, (complex, np.complexfloating)):  # beyond the float range, or
                    return InputError(f"{what}it is data); {fix}")  # complex: a value error, as numpy's
                return InputTypeError(f"{what}it is data; float() argument must be a string or a real number, not "
                                      f"{type(value).__name__!r}); {fix}")
    return None


def refuse_non_numbers(values: np.ndarray, name: str, labels: list[Any] | None = None) -> None:
    """Refuse an array of text (a str or bytes dtype) or of objects that are not all numbers (:func:`is_number`:
    text, a missing value, a numpy date or duration), naming the first such entry by its position
    (:func:`non_numeric_entry`) before numpy's or scikit-learn's float conversion reads it: as a number ("1.5",
    " 2 ", "1e3" as 1.5, 2.0, 1000.0), or a date as a count of its units (2020-01-01 as 18262 days). The one check
    of the entries of X (every entry point: :func:`dpcvx.validation.check_matrix`, a table's columns in
    :func:`table_matrix`, the estimators before scikit-learn's conversion) and of regression targets; an array of a
    numeric dtype costs a dtype test."""
    if values.ndim not in (1, 2):  # no position to name: refused by its shape
        return
    text = values.dtype.kind in "US"  # every entry text: the first row names the first (a memmap is not read whole)
    if text and values.size or first_non_number(values) is not None:
        culprit = non_numeric_entry(values[:1] if text else values, name, labels)
        assert culprit is not None  # is_number refuses the entry found
        raise culprit


def such_rows(count: int) -> str:
    """"(1 such row)" or "(k such rows)": how many rows of a table a refusal's finding holds, said in words."""
    return f"({count} such row{'' if count == 1 else 's'})"


class RowError(InputError):
    """A row of a table fails a check (a missing label, a cell that is no number): an InputError naming the first
    such ``row``. Its message is ``before`` + row + ``after``, so a reader of the file in chunks renumbers the row
    within the whole file (:meth:`shifted`) and a chunked read names the row an in-memory read names."""

    def __init__(self, before: str, row: int, after: str) -> None:
        super().__init__(f"{before}{row}{after}")
        self.before, self.row, self.after = before, row, after

    def shifted(self, offset: int, prefix: str = "", suffix: str = "") -> RowError:
        """This error with the row ``offset`` further on and its message between ``prefix`` and ``suffix``."""
        return RowError(prefix + self.before, self.row + offset, self.after + suffix)

    def noted(self, prefix: str, note: str) -> RowError:
        """This error after ``prefix``, with ``note`` (how the rows count: the command line's
        :meth:`~dpcvx.data.csv_table.Layout.rows_note`) right after the row it names, where a reader looks for it."""
        return RowError(prefix + self.before, self.row, f" {note}{self.after}")


def refuse_sparse_fill(X: Any) -> None:
    """Refuse a pandas DataFrame of sparse columns only (``X.sparse`` exists) one of whose fill values is not 0,
    naming those columns and the fix (:func:`dpcvx.validation.check_table`: the estimators' and tune's checks of a
    table, before any charge). scikit-learn reads such a table as a scipy sparse matrix of its stored entries
    (pandas' ``to_coo``), which needs every fill value 0, and refused it in pandas' words, "fill value must be 0 when
    converting to COO matrix", naming no column and no fix; tune fitted its rows by value and then met that refusal
    in the selected estimator's predict, after the charge (attacker probe P2, F2). A fill value NaN makes every entry
    not stored a missing value, so the missing-value advice a dense NaN gets is given too. Reads the dtypes only
    (public: no value); a table with a dense column is converted to a dense array by value, and passes."""
    if _library(X) != "pandas" or getattr(X, "ndim", 0) != 2:
        return
    try:
        X.sparse  # noqa: B018 - pandas' accessor exists when every column is sparse
    except AttributeError:
        return
    fills = {name: dtype.fill_value for name, dtype in X.dtypes.items()}
    filled = [name for name, fill in fills.items() if _missing_fill(fill) or fill != 0]
    if not filled:
        return
    shown = ", ".join(f"{name!r} (fill value {fills[name]!r})" for name in filled[:5])
    more = f" and {len(filled) - 5} more" if len(filled) > 5 else ""
    missing = any(_missing_fill(fills[name]) for name in filled)
    advice = ("; a fill value NaN makes every entry not stored a missing value: impute them by a public rule (a "
              "missing value is NaN; dpcvx.PublicSchema declares one for each column). "
              f"{KEEP_EVERY_RECORD}" if missing else "")
    raise InputError(f"X is a pandas table of sparse columns whose fill value is not 0: {shown}{more}. The "
                     "estimators read a table of sparse columns only as a sparse matrix, whose entries not stored "
                     "are 0, so every fill value must be 0: pass X.sparse.to_dense() (the same values, dense), or "
                     "X.astype(pd.SparseDtype(float, 0.0)) where the entries not stored really are 0"
                     f"{advice}. Nothing was charged")


def _missing_fill(value: Any) -> bool:
    """Whether a sparse column's fill value is a missing value (NaN, None, pandas' NA or NaT)."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    try:
        return bool(value != value)
    except (TypeError, ValueError):
        return False


#: What a refusal of a missing feature value says of dropping its record (docs/datasets.md, "Missing values"): the
#: refusals advised "drop or impute" / "remove or impute", which the docs forbid (analyst probe P2 finding 5 of the
#: sixty-ninth session; regression audit P3 finding 3 of the seventy-first, on the array path)
KEEP_EVERY_RECORD = ("Keep every record: dropping those that hold one would make the row count n, and with it the "
                     "noise scale, depend on the data (docs/datasets.md, Missing values)")


class NonFiniteError(InputError):
    """An entry of the matrix ``name`` is NaN, infinite or beyond the float64 range: an InputError naming the first
    such entry, at (``row``, ``column``). A reader of row blocks renumbers the row within the whole input."""

    def __init__(self, message: str, name: str = "X", row: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.name, self.row, self.column = name, row, column


def non_finite_error(name: str, row: int, column: int, labels: list[Any] | None = None) -> NonFiniteError:
    """The one message for a NaN, missing or infinite entry of ``name`` at (row, column), the column named by
    ``labels`` (a table's column names) when given."""
    return NonFiniteError(
        f"{name} contains NaN or infinite values (or numbers beyond the float64 range), first at "
        f"row {row},{_column_label(labels, column)}; impute them by a public rule (a missing value is NaN; "
        f"dpcvx.PublicSchema declares one for each column). {KEEP_EVERY_RECORD}", name, row, column)


def _column_label(labels: list[Any] | None, j: int) -> str:
    """' column <name>' for a table's column (its name), ' column <j>' otherwise."""
    return f" column {labels[j]!r}" if labels is not None and j < len(labels) else f" column {j}"


def _missing(value: Any) -> bool:
    """None, pandas NA / NaT: a missing entry rather than a value of the wrong type."""
    return value is None or type(value).__name__ in ("NAType", "NaTType")


def table_matrix(X: Any, name: str) -> np.ndarray:
    """A table (:mod:`dpcvx.tables`) as a new column-major float64 matrix, every column checked on its own and
    named by its name: a categorical or text column, an entry that is not a number, a NaN, missing or infinite
    value (the first in row order)."""
    labels = column_names(X) or []
    buffer = np.empty((row_count(X), len(labels)), dtype=np.float64, order="F")
    first: tuple[int, int] | None = None
    for j, (label, dtype) in enumerate(zip(labels, column_dtypes(X), strict=True)):  # the types read once
        where = f"{name} column {label!r}"
        refuse_nested(where, dtype)
        if categorical(dtype):
            raise InputError(f"{where} is categorical: {name} must be numeric; encode it first with "
                             "public categories, for example dpcvx.PublicSchema with CategoricalColumn("
                             f"{str(label)!r}, categories)")
        values = column_values(X, j)
        refuse_kind(where, values.dtype)
        refuse_non_numbers(values, name, [label])
        try:
            buffer[:, j] = values
        except (TypeError, ValueError, OverflowError):
            raise non_numeric_entry(values, name, [label]) or InputError(f"{where} is not numeric") from None
        bad = np.flatnonzero(~np.isfinite(buffer[:, j]))
        if bad.size and (first is None or bad[0] < first[0]):
            first = int(bad[0]), j
    if first is not None:
        raise non_finite_error(name, *first, labels)
    return buffer


def by_value(labels: np.ndarray, declared: Sequence[Any]) -> np.ndarray:
    """``labels`` with each one that is no ``declared`` value (by equality, as numpy's ``==`` compares them) but has
    the reading key of one (:func:`reading_key`: "1.0", "01", " 1", "true", True, 1.0 and Decimal("1") all stand for
    1) replaced by that declared value, every other label unchanged; ``labels`` itself when none is replaced. The one
    reading of labels against declared classes: the Python entries' (:func:`dpcvx.validation.label_vector` given the
    classes) and the command line's label column's.

    A label column's type is the type its reader gave the WHOLE column, which every record sets: pandas reads a
    column of codes as integers, as floats once one cell is empty, as text once one cell is text; numpy makes a list
    text when one entry is. Matched by exact value, the labels 0/1 against classes=("0", "1") were refused while the
    same column with one text record (then all text "0"/"1") was released, and "1.0" written by a float column was
    no class 1: one record decided refusal or release for every other (sixty-fourth session). Read by value, a label
    is the class it stands for whatever the column's type.

    The caller refuses declared values of different classes that share a key (:func:`shared_key`: "1" and "1.0",
    "1" and "true"), before any data is read; a key several declared values hold is read as the first of them (the
    command line's --positive 1 --positive 1.0: two spellings of one class). A label with no key, or with a key no
    declared value holds, stays as it is (for the caller's refusal of labels outside the classes). One pass over the
    distinct labels (:func:`numpy.unique`, or a dict where the labels are objects numpy cannot order); the result
    holds each entry by its own type (:func:`own_types`), the declared value's where one was replaced."""
    keys: dict[Key, Any] = {}
    for label in declared:
        key = reading_key(label)
        if key is not None:
            keys.setdefault(key, label)
    if not keys or not labels.size:
        return labels
    distinct, where = _distinct(labels)
    exact = set(declared)
    spelled = [label if _declared(label, exact) else keys.get(reading_key(label), label)  # type: ignore[arg-type]
               for label in distinct]
    if all(new is old for new, old in zip(spelled, distinct, strict=True)):
        return labels
    return own_types(spelled)[where.reshape(labels.shape)]


def _distinct(labels: np.ndarray) -> tuple[list[Any], np.ndarray]:
    """(the distinct labels, each label's index among them): :func:`numpy.unique`, or one pass with a dict for
    objects numpy cannot order (text beside numbers, None). Labels equal to each other (1, 1.0 and True) are one:
    they have one reading key, and are one declared class or none alike."""
    try:
        distinct, where = np.unique(labels.ravel(), return_inverse=True)
        return distinct.tolist(), where
    except TypeError:
        pass
    index: dict[Any, int] = {}
    found: list[Any] = []
    positions = np.empty(labels.size, dtype=np.intp)
    for i, label in enumerate(labels.ravel().tolist()):
        try:
            position = index.setdefault(label, len(found))
        except TypeError:  # unhashable: its own entry (it has no key; refused as outside the classes)
            position = len(found)
        if position == len(found):
            found.append(label)
        positions[i] = position
    return found, positions


def _declared(label: Any, exact: set[Any]) -> bool:
    """Whether ``label`` equals a declared value (``exact``), as numpy's ``==`` finds it (1.0 and True are 1)."""
    try:
        return label in exact
    except TypeError:  # unhashable
        return False


#: What a near spelling of a declared label differs in (:func:`spelling_key`), as every message about one says it
NEAR_SPELLING = "letter case, surrounding spaces or punctuation (a trailing '.', surrounding quotes)"
#: The quote marks a file or a reader may leave around a label (:func:`spelling_key`)
_QUOTES = "'\"`"


def spelling_key(text: str) -> str:
    """A label's text as :func:`spelling_variants` compares it (:data:`NEAR_SPELLING`): without surrounding spaces,
    surrounding quote marks or trailing full stops, in lower case. The stop is what UCI Adult's test file adds to
    every label ('>50K.' where adult.data writes '>50K'): a --positive '>50K' matched no label there, the file was
    read as all negative and released with one class (an analyst probe, session 71, P8 F1). Other punctuation is
    kept: '>50K' and '<=50K' differ in theirs."""
    return text.lstrip(_QUOTES + string.whitespace).rstrip(_QUOTES + string.whitespace + ".").lower()


def spelling_variants(values: np.ndarray, declared: Sequence[Any]) -> np.ndarray:
    """Mask of the ``values`` that are not a ``declared`` label but equal a declared text label once letter case,
    surrounding spaces and punctuation are ignored (:func:`spelling_key`: "yes " or "YES" for "Yes", ">50K." for
    ">50K"): the one check of a label's near spelling, for a refusal's advice (its count and first row, never a
    value) and the command line's one-versus-rest warning. One pass over the distinct values."""
    keys = {spelling_key(label) for label in declared if isinstance(label, str)} - {""}
    exact = set(declared)
    return _texts_where(values, lambda value: value not in exact and spelling_key(value) in keys)
