"""Public-schema preprocessing: tables to feature rows of bounded norm, reading no data.

The privacy theorems need ||x_i|| <= R for a PUBLIC R (REFERENCE.md). A
:class:`PublicSchema` gets there with public facts only: numeric bounds and
category lists given by the user. Each record is mapped on its own:

- numeric column with public bounds [lo, hi]:  v -> (clip(v, lo, hi) - lo) / (hi - lo),
  a value in [0, 1]. [0, 1] rather than [-1, 1] so that a column with lo = 0
  is scaled exactly as ``v / hi`` (the paper's "scale each column to max 1",
  with a public max) and sits on the same scale as the 0/1 one-hot blocks.
  With ``scale="log"`` (heavy-tailed counts and sizes):
  v -> log(1 + clip(v, lo, hi) - lo) / log(1 + hi - lo), also in [0, 1] and
  still a function of the record and the public bounds alone;
- categorical column with public categories c_1..c_k: the one-hot block
  e_j for value c_j; a value outside the list gives the all-zero block, or
  an :class:`InputError` when ``strict`` is set;
- missing values (None, NaN, pandas NA/NaT, or the text ``"?"`` or ``""``):
  an error, unless the column declares a public rule. A categorical column
  with ``missing=c`` (c one of its categories, for example ``"?"``) encodes
  them as category c; a numeric column with ``missing=v`` (a public value in
  [lo, hi], for example lo) imputes v, and with ``missing_indicator=True``
  adds a feature ``name:missing`` that is 1 for a missing value. Every record
  is kept, so the row count never depends on which values are missing;
- optional constant feature 1 (``constant_feature``), last, for an intercept
  that lies inside the norm bound and the regularizer;
- finally x -> x / max(1, ||x||_2 / norm), so ||x||_2 <= norm.

No step reads anything but the record itself: the output row of a record
does not depend on any other record (tests check this). The one exception is
:func:`paper_schema`, which reads column maxima and the categories present;
it exists only to reproduce the JMLR 2011 experiments and is NOT private.

Tables: a mapping of column name -> 1-D array-like (a dict of columns), a
numpy structured array, a pandas DataFrame (duck-typed, pandas is not
imported), or a 2-D array whose columns are the schema's columns in order.

Schema file format (JSON, read by the command-line tool; only ``json.load``,
no code is ever executed)::

    {
      "format": "dpcvx-schema",
      "version": 1,
      "norm": 1.0,                  # optional, default 1.0: public row-norm bound R
      "strict": false,              # optional, default false: unknown category -> error
      "constant_feature": false,    # optional, default false: append feature 1 (intercept)
      "columns": [
        {"name": "age", "kind": "numeric", "lo": 17, "hi": 90,
         "source": "where the bound comes from (optional, free text)"},
        {"name": "sex", "kind": "categorical", "categories": ["Female", "Male"],
         "source": "optional"},
        {"name": "job", "kind": "categorical", "categories": ["a", "b", "?"],
         "missing": "?"},              # optional: the category of a missing value
        {"name": "income", "kind": "numeric", "lo": 0, "hi": 1e6,
         "missing": 0, "missing_indicator": true},  # optional: imputed value, indicator
        {"name": "bytes", "kind": "numeric", "lo": 0, "hi": 1e9,
         "scale": "log"}               # optional, default "linear"
      ]
    }

Feature order is the column order; feature names are ``name`` for numeric
columns, ``name=category`` for one-hot features and ``constant`` for the
constant (and ``name:missing`` for a missing indicator). Categorical values
are compared to the categories as ``str(value)``. Unknown keys, duplicate
names, lo >= hi, non-finite numbers (or hi - lo overflowing), a norm outside
[1e-150, 1e150], empty or repeated category lists and a ``missing`` outside
the column's domain are rejected with an :class:`InputError`.

The input table is never modified: every output is a new array.
"""

from __future__ import annotations

import json
import math
import numbers
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import InputError
from ..validation import MODERATE_MAX, MODERATE_MIN, parses_as_float
from .files import atomic_write, read_json

__all__ = ["NumericColumn", "CategoricalColumn", "PublicSchema", "paper_schema", "SCHEMA_FORMAT", "SCHEMA_VERSION"]

SCHEMA_FORMAT = "dpcvx-schema"
SCHEMA_VERSION = 1
SCALES = ("linear", "log")
SCHEMA_KEYS = {"format", "version", "norm", "strict", "constant_feature", "columns"}
CONSTANT_FEATURE_NAME = "constant"
PAPER_SOURCE = "read off the data by paper_schema (NOT private)"
# Text that stands for a missing value (UCI files write "?"; CSV files leave the field empty).
MISSING_TOKENS = ("?", "")
MISSING_INDICATOR_SUFFIX = ":missing"


def _finite_float(what: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise InputError(f"{what} must be a finite number, got {value!r}")
    return float(value)


def _check_name(name: Any) -> None:
    if not isinstance(name, str) or not name:
        raise InputError(f"a column name must be a non-empty string, got {name!r}")


@dataclass(frozen=True)
class NumericColumn:
    """A numeric column with PUBLIC bounds: v -> (clip(v, lo, hi) - lo) / (hi - lo).

    ``scale="log"`` maps v -> log(1 + clip(v, lo, hi) - lo) / log(1 + hi - lo)
    instead (a heavy-tailed count or size: the small values stay apart
    instead of being crushed towards 0 by a large public ``hi``).

    ``missing``: a public value in [lo, hi] imputed for a missing value (None,
    NaN, pandas NA, ``"?"`` or ``""``); None (the default) makes a missing value
    an error. ``missing_indicator``: add the feature ``name:missing`` (1 for a
    missing value, else 0); needs ``missing``.
    """

    name: str
    lo: float
    hi: float
    source: str = ""
    missing: float | None = None
    missing_indicator: bool = False
    scale: str = "linear"

    def __post_init__(self) -> None:
        _check_name(self.name)
        if self.scale not in SCALES:
            raise InputError(f"column {self.name!r}: scale must be one of {list(SCALES)}, got {self.scale!r}")
        lo = _finite_float(f"lower bound of column {self.name!r}", self.lo)
        hi = _finite_float(f"upper bound of column {self.name!r}", self.hi)
        if not lo < hi:
            raise InputError(f"column {self.name!r}: bounds need lo < hi, got lo={lo}, hi={hi}")
        if not math.isfinite(hi - lo):
            raise InputError(
                f"column {self.name!r}: hi - lo = {hi} - ({lo}) overflows; choose bounds whose "
                "difference is below 1.7e308"
            )
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)
        if self.missing is not None:
            missing = _finite_float(f"missing value of column {self.name!r}", self.missing)
            if not lo <= missing <= hi:
                raise InputError(
                    f"column {self.name!r}: the imputed missing value {missing} must lie in the public "
                    f"bounds [{lo}, {hi}] (for example lo, or the midpoint)"
                )
            object.__setattr__(self, "missing", missing)
        if not isinstance(self.missing_indicator, bool):
            raise InputError(f"column {self.name!r}: missing_indicator must be true or false")
        if self.missing_indicator and self.missing is None:
            raise InputError(
                f"column {self.name!r}: missing_indicator needs a public imputed value: pass missing=..."
            )

    @property
    def feature_names(self) -> tuple[str, ...]:
        return (self.name,) + ((self.name + MISSING_INDICATOR_SUFFIX,) if self.missing_indicator else ())

    def encode(self, values: np.ndarray) -> np.ndarray:
        """The (n, 1) block of scaled, clipped values ((n, 2) with the missing indicator)."""
        numbers_, absent = _as_numbers(self.name, values, self.missing)
        shifted = np.clip(numbers_, self.lo, self.hi) - self.lo
        if self.scale == "log":
            scaled = np.log1p(shifted) / math.log1p(self.hi - self.lo)
        else:
            scaled = shifted / (self.hi - self.lo)
        if self.missing_indicator:
            return np.column_stack([scaled, absent.astype(np.float64)])
        return scaled[:, None]


@dataclass(frozen=True)
class CategoricalColumn:
    """A categorical column with a PUBLIC category list, one-hot encoded.

    ``missing``: the category (one of ``categories``, for example ``"?"``) of a
    missing value (None, NaN, pandas NA, ``"?"`` or ``""``); None (the
    default) makes None and NaN an error and treats text as any other value.
    """

    name: str
    categories: tuple[str, ...]
    source: str = ""
    missing: str | None = None

    def __post_init__(self) -> None:
        _check_name(self.name)
        if isinstance(self.categories, str) or not isinstance(self.categories, Sequence):
            raise InputError(f"column {self.name!r}: categories must be a list of strings")
        categories = tuple(self.categories)
        if not categories or not all(isinstance(c, str) for c in categories):
            raise InputError(f"column {self.name!r}: categories must be a non-empty list of strings")
        if len(set(categories)) != len(categories):
            raise InputError(f"column {self.name!r}: categories repeat")
        object.__setattr__(self, "categories", categories)
        if self.missing is not None and self.missing not in categories:
            raise InputError(
                f"column {self.name!r}: the missing-value category {self.missing!r} must be one of the "
                f"categories; add it to the list (for example categories + ('?',))"
            )

    @property
    def feature_names(self) -> tuple[str, ...]:
        return tuple(f"{self.name}={category}" for category in self.categories)

    def encode(self, values: np.ndarray, strict: bool) -> np.ndarray:
        """The (n, k) one-hot block; unknown values give a zero row (or an error if strict)."""
        labels = _as_labels(self.name, values, self.missing)
        # np.unique only builds a lookup table: each row's output still depends on that row alone.
        distinct, inverse = np.unique(labels, return_inverse=True)
        position = {category: j for j, category in enumerate(self.categories)}
        codes = np.array([position.get(str(label), -1) for label in distinct], dtype=np.intp)[inverse.ravel()]
        known = np.flatnonzero(codes >= 0)
        if strict and known.size < codes.size:
            row = int(np.flatnonzero(codes < 0)[0])
            raise InputError(
                f"column {self.name!r}: {codes.size - known.size} row(s) hold a value outside the declared "
                f"categories, the first in row {row} (the value is not shown: it is data); declared: "
                f"{list(self.categories)} (a non-strict schema encodes unknown categories as zeros)"
            )
        block = np.zeros((codes.size, len(self.categories)))
        block[known, codes[known]] = 1.0
        return block


Column = NumericColumn | CategoricalColumn


@dataclass(frozen=True)
class PublicSchema:
    """Columns with public bounds and categories, and the public row-norm bound ``norm``.

    ``transform(table)`` gives float64 rows x with numpy.linalg.norm(x) <= norm.
    """

    columns: tuple[Column, ...]
    norm: float = 1.0
    strict: bool = False
    constant_feature: bool = False

    def __post_init__(self) -> None:
        columns = tuple(self.columns)
        if not all(isinstance(c, (NumericColumn, CategoricalColumn)) for c in columns):
            raise InputError("columns must be NumericColumn or CategoricalColumn objects")
        if not columns:
            raise InputError("a schema needs at least one column")
        names = [c.name for c in columns]
        duplicated = sorted(name for name, count in Counter(names).items() if count > 1)
        if duplicated:
            raise InputError(f"column names repeat: {duplicated}")
        norm = _finite_float("norm", self.norm)
        if norm <= 0:
            raise InputError(f"norm must be positive, got {norm}")
        if not MODERATE_MIN <= norm <= MODERATE_MAX:
            raise InputError(
                f"norm={norm:g} is outside [{MODERATE_MIN:g}, {MODERATE_MAX:g}], where the row "
                "scaling stays exact in floating point; rescale the feature bounds instead"
            )
        for flag in ("strict", "constant_feature"):
            if not isinstance(getattr(self, flag), bool):
                raise InputError(f"{flag} must be true or false, got {getattr(self, flag)!r}")
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "norm", norm)
        features = self.feature_names
        if len(set(features)) != len(features):
            raise InputError("feature names repeat (a column named 'constant' clashes with constant_feature)")

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @property
    def feature_names(self) -> tuple[str, ...]:
        names = tuple(name for c in self.columns for name in c.feature_names)
        return names + ((CONSTANT_FEATURE_NAME,) if self.constant_feature else ())

    @property
    def dimension(self) -> int:
        return len(self.feature_names)

    @property
    def read_off_data(self) -> tuple[str, ...]:
        """The columns :func:`paper_schema` read off the data (their source says so): dpcvx.save refuses them."""
        return tuple(c.name for c in self.columns if c.source == PAPER_SOURCE)

    def transform(self, table: Any) -> np.ndarray:
        """(n, dimension) float64 rows, each built from its own record only."""
        arrays = _column_arrays(table, self.column_names)
        n_rows = _common_length(arrays)
        blocks = [
            column.encode(arrays[column.name], self.strict)
            if isinstance(column, CategoricalColumn)
            else column.encode(arrays[column.name])
            for column in self.columns
        ]
        if self.constant_feature:
            blocks.append(np.ones((n_rows, 1)))
        return _bound_row_norms(np.hstack(blocks), self.norm)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form documented in the module docstring."""
        return {
            "format": SCHEMA_FORMAT,
            "version": SCHEMA_VERSION,
            "norm": self.norm,
            "strict": self.strict,
            "constant_feature": self.constant_feature,
            "columns": [_column_to_dict(c) for c in self.columns],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PublicSchema:
        """Rebuild a schema from :meth:`to_dict` output (validated; runs no code)."""
        if not isinstance(data, Mapping):
            raise InputError(f"a schema must be a JSON object, got {type(data).__name__}")
        _reject_unknown_keys("schema", data, SCHEMA_KEYS)
        if data.get("format") != SCHEMA_FORMAT or data.get("version") != SCHEMA_VERSION:
            raise InputError(
                f'not a dpcvx schema: need "format": "{SCHEMA_FORMAT}" and "version": {SCHEMA_VERSION}, '
                f"got {data.get('format')!r} and {data.get('version')!r}"
            )
        columns = data.get("columns")
        if not isinstance(columns, list):
            raise InputError('a schema needs "columns": a list of column objects')
        return cls(
            columns=tuple(_column_from_dict(c) for c in columns),
            norm=data.get("norm", 1.0),
            strict=data.get("strict", False),
            constant_feature=data.get("constant_feature", False),
        )

    def save(self, path: str | Path) -> Path:
        """Write the schema file (JSON), atomically: a failure leaves any old file intact."""
        text = json.dumps(self.to_dict(), indent=2) + "\n"
        return atomic_write(path, lambda handle: handle.write(text), what="schema file")

    @classmethod
    def load(cls, path: str | Path) -> PublicSchema:
        """Read a schema file written by :meth:`save` or by hand (typed errors for bad files)."""
        return cls.from_dict(read_json(path, "schema file"))


def paper_schema(template: PublicSchema, table: Any) -> PublicSchema:
    """The JMLR 2011 experimental preprocessing, which READS THE DATA (NOT private).

    Returns ``template`` with every numeric column's bounds replaced by
    lo = min(0, column minimum), hi = column maximum (hi = lo + 1 for a
    constant column) and a linear scale, so a non-negative column is scaled to max 1 exactly as
    in the paper, and every categorical column's list replaced by the sorted
    categories present in ``table``. Column maxima and the set of present
    categories are statistics of the data: a model trained on rows produced
    this way has no differential-privacy guarantee for the schema itself.
    Use it only to reproduce the published numbers.
    """
    arrays = _column_arrays(table, template.column_names)
    if _common_length(arrays) == 0:
        raise InputError("paper_schema needs at least one record to read bounds from")
    columns: list[Column] = []
    for column in template.columns:
        if isinstance(column, NumericColumn):
            values, _ = _as_numbers(column.name, arrays[column.name])
            lo, hi = min(0.0, float(values.min())), float(values.max())
            columns.append(NumericColumn(column.name, lo, hi if hi > lo else lo + 1.0, PAPER_SOURCE))
        else:
            present = tuple(str(v) for v in np.unique(_as_labels(column.name, arrays[column.name])))
            columns.append(CategoricalColumn(column.name, present, PAPER_SOURCE))
    return replace(template, columns=tuple(columns))


def _bound_row_norms(features: np.ndarray, norm: float) -> np.ndarray:
    """x / max(1, ||x|| / norm) per row, then guarantee numpy.linalg.norm(x) <= norm despite rounding."""
    features = features / np.maximum(1.0, np.linalg.norm(features, axis=1) / norm)[:, None]
    over = np.linalg.norm(features, axis=1) > norm
    for _ in range(64):  # rounding left a few rows an ulp or two above the bound
        if not over.any():
            return features
        features[over] *= 1.0 - 4.0 * np.finfo(float).eps
        over = np.linalg.norm(features, axis=1) > norm
    features[over] *= 0.5  # unreachable for norm in [1e-150, 1e150]; never leave a row above it
    return features


def _column_to_dict(column: Column) -> dict[str, Any]:
    if isinstance(column, NumericColumn):
        data = {
            "name": column.name,
            "kind": "numeric",
            "lo": column.lo,
            "hi": column.hi,
            "source": column.source,
        }
        if column.missing is not None:  # written only when set: older files stay byte-identical
            data["missing"] = column.missing
        if column.missing_indicator:
            data["missing_indicator"] = True
        if column.scale != "linear":
            data["scale"] = column.scale
        return data
    data = {
        "name": column.name,
        "kind": "categorical",
        "categories": list(column.categories),
        "source": column.source,
    }
    if column.missing is not None:
        data["missing"] = column.missing
    return data


def _column_from_dict(data: Any) -> Column:
    if not isinstance(data, Mapping):
        raise InputError(f"a column must be a JSON object, got {data!r}")
    name: Any = data.get("name")  # a JSON value; the column's __post_init__ checks it is a name
    kind = data.get("kind")
    source = data.get("source", "")
    if not isinstance(source, str):
        raise InputError(f"column {name!r}: source must be a string")
    if kind == "numeric":
        allowed = {"name", "kind", "lo", "hi", "source", "missing", "missing_indicator", "scale"}
        _reject_unknown_keys(f"numeric column {name!r}", data, allowed)
        if "lo" not in data or "hi" not in data:
            raise InputError(f'numeric column {name!r} needs public bounds "lo" and "hi"')
        return NumericColumn(
            name,
            data["lo"],
            data["hi"],
            source,
            data.get("missing"),
            data.get("missing_indicator", False),
            data.get("scale", "linear"),
        )
    if kind == "categorical":
        _reject_unknown_keys(
            f"categorical column {name!r}", data, {"name", "kind", "categories", "source", "missing"}
        )
        categories = data.get("categories")
        if not isinstance(categories, list):
            raise InputError(f'categorical column {name!r} needs "categories": a list of strings')
        missing = data.get("missing")
        if missing is not None and not isinstance(missing, str):
            raise InputError(f'categorical column {name!r}: "missing" must be a category (a string)')
        return CategoricalColumn(name, tuple(categories), source, missing)
    raise InputError(f'column {name!r}: "kind" must be "numeric" or "categorical", got {kind!r}')


def _reject_unknown_keys(what: str, data: Mapping[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise InputError(f"{what}: unknown keys {unknown}; allowed: {sorted(allowed)}")


def _column_arrays(table: Any, names: Sequence[str]) -> dict[str, np.ndarray]:
    """The named columns of ``table`` as 1-D numpy arrays."""
    if isinstance(table, np.ndarray) and table.dtype.names is None:
        matrix = np.atleast_2d(table)
        if matrix.ndim != 2 or matrix.shape[1] != len(names):
            raise InputError(
                f"a plain array must be 2-D with one column per schema column ({len(names)}: "
                f"{list(names)}), got shape {table.shape}"
            )
        return {name: matrix[:, j] for j, name in enumerate(names)}
    if isinstance(table, Mapping):
        available = list(table.keys())
    elif isinstance(table, np.ndarray):
        available = list(table.dtype.names)
    elif hasattr(table, "columns") and hasattr(table, "__getitem__"):  # a pandas DataFrame
        available = list(table.columns)
    else:
        raise InputError(
            "table must be a dict of columns, a numpy structured or 2-D array, or a pandas "
            f"DataFrame, got {type(table).__name__}"
        )
    present = set(available)
    missing = [name for name in names if name not in present]
    if missing:
        shown = [str(a) for a in available[:20]] + (["..."] if len(available) > 20 else [])
        raise InputError(f"table has no column(s) {missing[:20]}; it has {shown}")
    arrays = {name: np.asarray(table[name]) for name in names}
    for name, values in arrays.items():
        if values.ndim > 1:
            raise InputError(f"column {name!r} must be one-dimensional, got shape {values.shape}")
    return {name: np.atleast_1d(values) for name, values in arrays.items()}


def _common_length(arrays: Mapping[str, np.ndarray]) -> int:
    lengths = {name: len(values) for name, values in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise InputError(f"columns have different lengths: {lengths}")
    return next(iter(lengths.values()))


_NUMERIC_KIND_FIX = {
    "c": "complex values are not real numbers; pass the real and imaginary parts as two columns",
    "M": "datetimes are not numbers; convert them first, e.g. to days since a fixed public date",
    "m": "durations are not numbers; convert them first, e.g. to seconds",
    "V": "raw or structured values are not numbers",
}


def _is_missing(value: Any, tokens: tuple[str, ...] = MISSING_TOKENS) -> bool:
    """None, NaN, pandas NA / NaT, or text standing for a missing value (``tokens``: "?" or "")."""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    if isinstance(value, (str, np.str_)):
        return value.strip() in tokens
    if isinstance(value, (bytes, np.bytes_)):
        return value.strip().decode("utf-8", "replace") in tokens
    return type(value).__name__ in ("NAType", "NaTType")


def _as_numbers(name: str, values: np.ndarray, missing: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(float64 values of a numeric column, mask of missing values); never modifies ``values``.

    Missing values (see :func:`_is_missing`) become ``missing`` when it is given
    (a public value) and are an InputError otherwise; text that is not a number,
    infinity, complex, datetime and timedelta values are always an InputError.
    """
    kind = values.dtype.kind
    if kind in _NUMERIC_KIND_FIX:
        raise InputError(f"numeric column {name!r} has dtype {values.dtype}: {_NUMERIC_KIND_FIX[kind]}")
    if kind in "biuf":
        numbers_ = values.astype(np.float64)  # a new array: the input is never written to
        absent = np.isnan(numbers_)
    else:
        # without a declared rule, "?" and "" stay what they were: text that is not a number
        tokens = MISSING_TOKENS if missing is not None else ()
        if kind == "U":
            absent = np.isin(np.char.strip(values), tokens)
        else:
            absent = np.fromiter((_is_missing(v, tokens) for v in values), dtype=bool, count=len(values))
        present = values
        if absent.any():
            present = np.where(absent, "0", values) if kind == "U" else np.array(
                [0 if a else v for a, v in zip(absent, values, strict=True)], dtype=object)
        try:
            numbers_ = np.array(present, dtype=np.float64)  # a new array: the input is never written to
        except (TypeError, ValueError, OverflowError):
            row = next((i for i, v in enumerate(values) if not absent[i] and not parses_as_float(v)), 0)
            raise InputError(
                f"numeric column {name!r} holds a value that is not a number in row {row} (the value is not "
                "shown: it is data); declare the column categorical or clean the value"
            ) from None
    if absent.any():
        if missing is None:
            row = int(np.flatnonzero(absent)[0])
            raise InputError(
                f"numeric column {name!r} holds a missing or non-finite value in row "
                f"{row} ({int(absent.sum())} such rows); declare a public imputed value "
                f"(NumericColumn(..., missing=lo)) or drop or impute it first"
            )
        numbers_[absent] = missing
    bad = np.flatnonzero(~np.isfinite(numbers_))
    if bad.size:
        row = int(bad[0])
        raise InputError(
            f"numeric column {name!r} holds a missing or non-finite value in row "
            f"{row} ({bad.size} such rows); public bounds cannot stand in for it: drop or impute it first"
        )
    return numbers_, absent


def _as_labels(name: str, values: np.ndarray, missing: str | None = None) -> np.ndarray:
    """A str array of a categorical column; missing values become ``missing`` or an InputError."""
    if values.dtype.kind == "S":
        labels = np.char.decode(values, "utf-8")
    elif values.dtype.kind == "U":
        labels = values
    else:
        absent = [i for i, v in enumerate(values) if _is_missing(v, ())]
        if absent and missing is None:
            raise InputError(
                f"categorical column {name!r} holds a missing value in row "
                f"{absent[0]} ({len(absent)} such rows): map it to a category (CategoricalColumn(..., "
                "missing='?') with '?' among the categories) or drop the record"
            )
        labels = (
            np.array([missing if _is_missing(v) and missing is not None else str(v) for v in values], dtype=str)
            if values.size
            else np.array([], dtype=str)
        )
    if missing is not None and labels.size:
        labels = np.where(np.isin(np.char.strip(labels), MISSING_TOKENS), missing, labels)
    return labels
