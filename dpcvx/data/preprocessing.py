"""Public-schema preprocessing: tables to feature rows of bounded norm, reading no data.

The privacy theorems need ||x_i|| <= R for a PUBLIC R (REFERENCE.md). A
:class:`PublicSchema` gets there with public facts only: numeric bounds and
category lists given by the user. Each record is mapped on its own:

- numeric column with public bounds [lo, hi]: u(v) = (clip(v, lo, hi) - lo) / (hi - lo)
  in [0, 1], or with ``scale="log"`` (heavy-tailed counts and sizes)
  u(v) = log(1 + clip(v, lo, hi) - lo) / log(1 + hi - lo), also in [0, 1];
  then, with ``encoding="centred"`` (the default), v -> u(v) - 1/2, centred on
  the public midpoint, in [-1/2, 1/2]; with ``encoding="unit"`` (schema files
  of version 1, dpcvx before issue 42, and :func:`paper_schema`) v -> u(v),
  so a column with lo = 0 is scaled exactly as ``v / hi`` (the paper's "scale
  each column to max 1", with a public max). The centred code was chosen by a
  rule fixed before the comparison in ``benchmarks/encodings.py`` (docs/datasets.md,
  "Why centred"): an uncentred column leaves each row a component along its
  mean, which the intercept must carry against the regularizer and the noise,
  and which the row map below pays for in norm. Neither code keeps the level of
  many columns sitting away from the code's zero (the rows then lie near one
  point, which the row map sends onto the sphere): :mod:`.shared_level` warns
  of it (NOT PRIVATE: it reads the rows). The feature is named ``name:scaled``,
  never as the column, so that a table of the raw column is never taken for
  encoded rows by its names;
- categorical column with public categories c_1..c_k: the one-hot block
  e_j for value c_j (features ``name=c_j``); a value outside the list gives the all-zero block, or
  an :class:`InputError` when ``strict`` is set. A value that is no
  category's text is read by its value (:func:`dpcvx.tables.reading_key`): a
  number or a numeral's text is the category that writes the same number (3.0
  and "3.0" are "3", 2134 is "02134", "2.50" is "2.5"), a boolean or a flag's
  text the category of its number (True, "TRUE" and "1" are 1), each row by
  its own value: whether a reader makes a column's codes integers, floats,
  booleans or texts depends on every record (one missing value makes pandas
  read floats, one text keeps every cell's text), so comparing a value's own
  text let one record change every row's block; two categories one value
  stands for ("7" and "07") are refused when declared. A value that is a category
  but for how the table was read or written (surrounding whitespace, letter
  case) is named with its fix: by the :class:`InputError` of a
  strict schema, and by a NOT PRIVATE
  :class:`~dpcvx.exceptions.UndeclaredCategoryWarning` of a non-strict one, which
  encodes it as the all-zero block as any value outside the list
  (:meth:`CategoricalColumn._misread`; a refusal would be decided by one record's
  value, docs/theory.md section 30);
- missing values (None, NaN, pandas NA/NaT, or the text ``"?"`` or ``""``):
  an error, unless the column declares a public rule (a categorical column
  without one takes the text ``"?"`` as any other value outside its categories,
  the all-zero block, and a blank ``""``, None and NaN too, each named as a
  missing value by the near-miss check below: a strict schema refuses them
  with their row, as it refuses any value outside the list). A categorical column
  with ``missing=c`` (c one of its categories, for example ``"?"``) encodes
  them as category c; a numeric column with ``missing=v`` (a public value in
  [lo, hi], for example lo) imputes v, and with ``missing_indicator=True``
  adds a feature ``name:missing`` that is 1 for a missing value; its public
  ``missing_codes`` (999 for "unknown" in a data dictionary) and
  ``missing_texts`` ("NA") are missing values too. Every record is kept, so
  the row count never depends on which values are missing;
- optional constant feature 1 (``constant_feature``), last, for an intercept
  that lies inside the norm bound and the regularizer;
- finally x -> x / max(1, ||x||_2 / norm), so ||x||_2 <= norm.

No step reads anything but the record itself: the output row of a record
does not depend on any other record (tests check this). The one exception is
:func:`paper_schema`, which reads column maxima and the categories present;
it exists only to reproduce the JMLR 2011 experiments and is NOT private.

Tables: a mapping of column name -> 1-D array-like (a dict of columns), a
numpy structured array, a pandas or polars DataFrame or a pyarrow Table (read
by column name through :mod:`dpcvx.tables`; none of the three is imported), or
a 2-D array whose columns are the schema's columns in order. The missing-value
checks are vectorised (one pass over a column, not a Python call per value).

A scikit-learn transformer that spends nothing: :meth:`PublicSchema.fit` reads
no data (the schema is public, fixed before the data are seen), so a refit
inside a ``Pipeline``, ``GridSearchCV`` or ``cross_val_score`` charges nothing
and changes nothing; :meth:`~PublicSchema.transform`,
:meth:`~PublicSchema.fit_transform`, :meth:`~PublicSchema.get_feature_names_out`
and :meth:`~PublicSchema.set_output` (``"default"``, ``"pandas"``, ``"polars"``)
follow scikit-learn's API without importing it. ``dpcvx.save`` of a pipeline
(schema, estimator) keeps the schema with the model.

Schema file format (JSON, read by the command-line tool; only ``json.load``,
no code is ever executed)::

    {
      "format": "dpcvx-schema",
      "version": 2,                 # 1: no "encoding" key, and the encoding is "unit"
      "encoding": "centred",        # optional in version 2, default "centred"; or "unit"
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
        {"name": "stay", "kind": "numeric", "lo": 0, "hi": 365,
         "missing": 0, "missing_codes": [999, -9],  # optional: codes of a missing value
         "missing_texts": ["NA"]},     # optional: texts of a missing value
        {"name": "bytes", "kind": "numeric", "lo": 0, "hi": 1e9,
         "scale": "log"}               # optional, default "linear"
      ]
    }

Version rule: :meth:`PublicSchema.to_dict` writes a ``"unit"`` schema as
version 1 without the key (byte for byte the file older dpcvx wrote, so old
schema and model files load with their old meaning and predict as before)
and any other as version 2 with ``"encoding"``; a version-1 file that names
an encoding is refused.

Feature order is the column order; feature names are ``name`` for numeric
columns, ``name=category`` for one-hot features and ``constant`` for the
constant (and ``name:missing`` for a missing indicator). Categorical values
are compared to the categories as ``str(value)``, each value read with its own
type (:func:`dpcvx.tables.named_column`): an integer column with a missing value
(pandas ``Int64``, a polars or pyarrow integer with a null) stays integers, so 3
is "3" from every library. A float is its text ("3.0"): a float outside the
categories whose integer text is one is named (refused by a strict schema,
warned of by a non-strict one), never a silent all-zero block; datetimes are refused (their text depends
on the library). Unknown keys, duplicate
names, lo >= hi, non-finite numbers (or hi - lo overflowing), a norm outside
[1e-75, 1e75] (every public bound's range, :func:`~dpcvx.validation.check_bound`), empty or
repeated category lists and a ``missing`` outside the column's domain are rejected with an :class:`InputError`.

The input table is never modified: every output is a new array.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import math
import numbers
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import FrozenInstanceError, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import tables
from ..advice import FEW, a_few, command_line_runs, setting
from ..exceptions import (
    FileError,
    InputError,
    OutOfBoundsWarning,
    UndeclaredCategoryWarning,
    float_errors_ignored,
    warn_shown,
)
from ..validation import (
    check_bound,
    check_choice,
    check_flag,
    check_interval,
    finite,
    refuse_unknown_parameters,
)
from . import transformer_api
from .blocks import cache_block_rows
from .columns import (
    MISSING_TOKENS,
    as_labels,
    as_numbers,
    column_arrays,
    common_length,
    labels_and_absent,
    marker_numbers,
)
from .files import atomic_write, check_writable, read_json, unpaired_surrogate
from .shared_level import level_checks_off, warn_if_level_erased

__all__ = ["NumericColumn", "CategoricalColumn", "PublicSchema", "paper_schema", "notes_shown_once", "SCHEMA_FORMAT",
           "SCHEMA_VERSION"]

SCHEMA_FORMAT = "dpcvx-schema"
SCHEMA_VERSION = 2
SCALES = ("linear", "log")
ENCODINGS = ("centred", "unit")  # PublicSchema.encoding: the default first
UNIT_VERSION = 1  # a file of version 1 has no "encoding" key and means encoding="unit" (dpcvx before issue 42)
SCHEMA_KEYS = {"format", "version", "norm", "strict", "constant_feature", "encoding", "columns"}
CONSTANT_FEATURE_NAME = "constant"
PAPER_SOURCE = "read off the data by paper_schema (NOT private)"
MISSING_INDICATOR_SUFFIX = ":missing"
SCALED_SUFFIX = ":scaled"  # a numeric column's encoded feature: never the column's own name
SCHEMA_FIELDS = ("columns", "norm", "strict", "constant_feature", "encoding")  # PublicSchema's declared fields


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
    missing value, else 0); needs ``missing``. ``missing_codes``: public numbers
    that stand for a missing value in this column (a data dictionary's 999 for
    "unknown", -9 for "refused"), imputed as a missing value is; needs
    ``missing``. ``missing_texts``: public cell texts that stand for a missing
    value in this column ("NA", "unknown"; surrounding whitespace ignored, as a
    cell's is), imputed as a missing value is; needs ``missing``; a text that
    is a number belongs in ``missing_codes`` (a column read as numbers holds
    it as one). The codes and texts come from the column's documentation,
    never from its values in the data; a saved model keeps them, so prediction
    reads a code or a text as its fit did.
    """

    name: str
    lo: float
    hi: float
    source: str = ""
    missing: float | None = None
    missing_indicator: bool = False
    scale: str = "linear"
    missing_codes: tuple[float, ...] = ()
    missing_texts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_name(self.name)
        check_choice(f"column {self.name!r}: scale", self.scale, tuple(SCALES))
        lo = finite(f"the lower bound of column {self.name!r}", self.lo)
        hi = finite(f"the upper bound of column {self.name!r}", self.hi)
        check_interval(f"column {self.name!r}: bounds (lo, hi)", lo, hi)
        if not math.isfinite(hi - lo):
            raise InputError(
                f"column {self.name!r}: hi - lo = {hi} - ({lo}) overflows; choose bounds whose "
                "difference is below 1.7e308"
            )
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)
        if self.missing is not None:
            missing = finite(f"the missing value of column {self.name!r}", self.missing)
            if not lo <= missing <= hi:
                raise InputError(
                    f"column {self.name!r}: the imputed missing value {missing} must lie in the public "
                    f"bounds [{lo}, {hi}] (for example lo, or the midpoint)"
                )
            object.__setattr__(self, "missing", missing)
        object.__setattr__(self, "missing_indicator",
                           check_flag(f"column {self.name!r}: missing_indicator", self.missing_indicator))
        if self.missing_indicator and self.missing is None:
            raise InputError(
                f"column {self.name!r}: missing_indicator needs a public imputed value: pass missing=..."
            )
        object.__setattr__(self, "missing_codes", _missing_codes(self.name, self.missing_codes))
        object.__setattr__(self, "missing_texts", _missing_texts(self.name, self.missing_texts))
        for field, given in (("missing_codes", self.missing_codes), ("missing_texts", self.missing_texts)):
            if given and self.missing is None:
                raise InputError(
                    f"column {self.name!r}: {field} needs a public imputed value for them: pass missing=..."
                )

    @property
    def feature_names(self) -> tuple[str, ...]:
        """The encoded features' names: ``name:scaled`` (the scaled value) and, with the missing indicator,
        ``name:missing``. Never the column's own name, so that a table of the raw column and one of its encoded
        feature cannot bear the same names (a model fitted on a pipeline's named rows predicted a table of the raw
        columns as encoded rows, without a word)."""
        return (self.name + SCALED_SUFFIX,) + ((self.name + MISSING_INDICATOR_SUFFIX,) if self.missing_indicator
                                               else ())

    def encode(self, values: np.ndarray, centred: bool = False) -> np.ndarray:
        """The (n, 1) block of scaled, clipped values in [0, 1], or in [-1/2, 1/2] when ``centred``
        ((n, 2) with the missing indicator, 0 or 1). ``values``: the column, one-dimensional (as a schema's
        :meth:`~PublicSchema.transform` takes it)."""
        return self._encoded(column_arrays({self.name: values}, [self.name])[self.name], centred)[0]

    def _encoded(self, values: np.ndarray, centred: bool) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`encode`'s block and the values that lie outside [lo, hi] (clipped onto them; an imputed missing
        value lies within), for the schema's checks of the column against its declaration (:func:`_warn_lost`,
        :func:`_warn_piled`)."""
        numbers_, absent = as_numbers(self.name, values, self.missing, self.missing_codes, self.missing_texts)
        outside = numbers_[(numbers_ < self.lo) | (numbers_ > self.hi)]
        scaled = self._unit(numbers_) - (0.5 if centred else 0.0)
        if self.missing_indicator:
            return np.column_stack([scaled, absent.astype(np.float64)]), outside
        return scaled[:, None], outside

    def _unit(self, values: np.ndarray) -> np.ndarray:
        """u(v) in [0, 1]: (clip(v) - lo) / (hi - lo), or log(1 + clip(v) - lo) / log(1 + hi - lo)."""
        shifted = np.clip(values, self.lo, self.hi) - self.lo
        if self.scale == "log":
            return np.log1p(shifted) / math.log1p(self.hi - self.lo)
        return shifted / (self.hi - self.lo)


def _missing_texts(name: str, texts: Any) -> tuple[str, ...]:
    """A numeric column's ``missing_texts`` checked: a tuple or list of strings, none repeated, none empty, "?" or
    with surrounding whitespace (a cell's is ignored; "" and "?" are missing already), none a number (a column read
    as numbers holds it as a number: declare it in ``missing_codes``)."""
    if not isinstance(texts, (tuple, list)) or not all(isinstance(text, str) for text in texts):
        example = (texts,) if isinstance(texts, str) else ("NA",)
        raise InputError(f"column {name!r}: missing_texts must be a tuple of strings (such as {example!r}), got "
                         f"{type(texts).__name__}")
    for text in texts:
        if text != text.strip() or text in MISSING_TOKENS:
            raise InputError(f"column {name!r}: missing text {text!r} " + (
                "is a missing value already (an empty cell and '?' are): leave it out" if text.strip()
                in MISSING_TOKENS else f"has surrounding whitespace, which a cell's comparison ignores: give "
                f"{text.strip()!r}"))
    numeric = [text for text, number in zip(texts, marker_numbers(texts)[1].tolist(), strict=True) if number]
    if numeric:
        raise InputError(f"column {name!r}: missing text {numeric[0]!r} is a number, which a column read as numbers "
                         f"holds as one: declare it in missing_codes=({numeric[0]},) instead")
    repeated = sorted(tables.repeated_names(texts))
    if repeated:
        raise InputError(f"column {name!r}: missing_texts repeats {', '.join(map(repr, repeated))}")
    return tuple(texts)


def _missing_codes(name: str, codes: Any) -> tuple[float, ...]:
    """A numeric column's ``missing_codes`` checked: a tuple or list of finite numbers, none repeated, as floats."""
    if not isinstance(codes, (tuple, list)):
        raise InputError(f"column {name!r}: missing_codes must be a tuple of numbers (such as (999,)), "
                         f"got {type(codes).__name__}")
    checked = tuple(finite(f"a missing code of column {name!r}", code) for code in codes)
    repeated = sorted(tables.repeated_names(checked))
    if repeated:
        raise InputError(f"column {name!r}: missing_codes repeats {', '.join(f'{code:g}' for code in repeated)}")
    return checked


@dataclass(frozen=True)
class CategoricalColumn:
    """A categorical column with a PUBLIC category list, one-hot encoded.

    Categories are texts; an integer category (a coded column: ``range(1, 13)``) stands for its decimal text
    ("1" ... "12"), which is what a cell holding that integer is compared to.

    ``missing``: the category (one of ``categories``, for example ``"?"``) of a
    missing value (None, NaN, pandas NA, ``"?"`` or ``""``); None (the
    default) encodes them as any value outside the categories (the all-zero block, or an error if strict), each
    named as a missing value (:meth:`_misread`): the text ``"?"`` is taken as any other value.
    """

    name: str
    categories: tuple[str, ...]
    source: str = ""
    missing: str | None = None

    if TYPE_CHECKING:  # what the constructor takes (a list or range too), kept as a tuple of texts by __post_init__
        def __init__(self, name: str, categories: Sequence[str | int], source: str = "",
                     missing: str | None = None) -> None: ...

    def __post_init__(self) -> None:
        _check_name(self.name)
        if isinstance(self.categories, str) or not isinstance(self.categories, Sequence):
            raise InputError(f"column {self.name!r}: categories must be a list of strings")
        categories = tuple(_category_text(self.name, c) for c in self.categories)
        if not categories:
            raise InputError(f"column {self.name!r}: categories must be a non-empty list of strings")
        if len(set(categories)) != len(categories):
            raise InputError(f"column {self.name!r}: categories repeat")
        object.__setattr__(self, "categories", categories)
        _refuse_two_readings(self.name, categories, self.missing)
        if self.missing is not None and self.missing not in categories:
            raise InputError(
                f"column {self.name!r}: the missing-value category {self.missing!r} must be one of the "
                f"categories; add it to the list (for example categories + ('?',))"
            )

    @property
    def feature_names(self) -> tuple[str, ...]:
        return tuple(f"{self.name}={category}" for category in self.categories)

    def encode(self, values: np.ndarray, strict: bool) -> np.ndarray:
        """The (n, k) one-hot block; unknown values give a zero row (or an error if strict). ``values``: the column,
        one-dimensional (as a schema's :meth:`~PublicSchema.transform` takes it)."""
        n_rows, rows, slots = self._ones(values, strict)
        block = np.zeros((n_rows, len(self.categories)))
        block[rows, slots] = 1.0
        return block

    def _ones(self, values: np.ndarray, strict: bool,
              told: list[tuple[str, tuple[str, str]]] | None = None) -> tuple[int, np.ndarray, np.ndarray]:
        """Where :meth:`encode`'s block of n rows holds its 1s: (n, the rows of a declared value, each one's category
        index), the rows in increasing order, one 1 each (checked, warned and refused as :meth:`encode` says); a
        schema's :meth:`~PublicSchema.transform` writes them into its own output, with no block of its own."""
        values = tables.day_texts(column_arrays({self.name: values}, [self.name])[self.name], objects=False,
                                  what=f"categorical column {self.name!r}")
        # a missing value no category takes is outside the categories: named by _misread, refused if strict
        labels, absent = labels_and_absent(self.name, values, self.missing)
        # each label is looked up in the sorted public categories (a binary search per row, vectorised):
        # a row's output depends on that row and the public list alone
        order = np.argsort(np.array(self.categories, dtype=str), kind="stable")
        ranked = np.array(self.categories, dtype=str)[order]
        slot = np.minimum(np.searchsorted(ranked, labels), len(ranked) - 1)
        codes = np.where(ranked[slot] == labels, order[slot], -1).astype(np.intp)
        if absent.any():  # "None" or "nan" may be declared texts; a missing value is none of them
            codes[absent] = -1
        absent = self._null_texts(values, labels, codes, absent)
        self._midnight_texts(labels, codes, absent)
        keys = _category_keys(self.categories)
        unread = np.flatnonzero((codes < 0) & ~absent) if keys else codes[:0]
        if unread.size:  # a value no category's text is read by its value, whatever type its column was read as
            codes[unread] = _keyed_slots(values[unread], labels[unread], keys)
        known = np.flatnonzero(codes >= 0)
        misread = self._misread(values, labels, np.flatnonzero(codes < 0), absent)
        if strict and misread is not None:
            row, (before, after) = misread
            raise tables.RowError(f"column {self.name!r} {before}, the first in row ", row,
                                  " (the value is not shown: it is data): " + after.format(name=self.name))
        if strict and known.size < codes.size:
            raise tables.RowError(
                f"column {self.name!r}: {codes.size - known.size} row(s) hold a value outside the declared "
                "categories, the first in row ", int(np.flatnonzero(codes < 0)[0]), " (the value is not shown: it is "
                f"data); declared: {list(self.categories)} (a non-strict schema encodes unknown categories as zeros)")
        if misread is not None:  # shown, never raised: a refusal would be decided by one record's value
            # a schema gathers its columns' findings into one warning of each (``told``: _warn_misread)
            if told is None:
                _warn_misread([(self.name, misread[1])])
            else:
                told.append((self.name, misread[1]))
        return codes.size, known, codes[known]

    def _midnight_texts(self, labels: np.ndarray, codes: np.ndarray, absent: np.ndarray) -> None:
        """Set ``codes`` of the cells that are no category's text and spell a timestamp at midnight or a time of day
        (:func:`dpcvx.tables.declared_days`: "2020-01-01 00:00:00" its day, "08:00:00" or a typed 08:00 the category
        "08:00") to that category, and refuse one spelling a timestamp with a time of day or a zone by its row:
        pyarrow's CSV reader and polars type a column of such texts while every record is one (a typed one is read
        so: :func:`dpcvx.tables.day_texts`) and keep the text once one record is not; each cell read by its own
        text, one record no longer moves every other such row between its category and the all-zero block, or
        decides whether the column is refused (sessions 65 and 66)."""
        rows = np.flatnonzero((codes < 0) & ~absent)
        rows = rows[tables.may_spell_time(labels[rows])]  # a vectorised prefilter before a regex per distinct text
        if not rows.size:
            return
        slots = {category: i for i, category in enumerate(self.categories)}
        read = tables.declared_days(labels[rows].tolist(), slots, f"categorical column {self.name!r}", rows.tolist())
        for row, category in zip(rows.tolist(), read, strict=True):
            if category is not None:
                codes[row] = slots[category]

    def _null_texts(self, values: np.ndarray, labels: np.ndarray, codes: np.ndarray, absent: np.ndarray) -> np.ndarray:
        """``absent`` with the text cells that spell a missing value (:func:`dpcvx.tables.spells_missing`: "NA",
        "NaN", "null", "-nan(ind)", ...) and are no declared category: pyarrow and polars read them as a missing value
        in a column of codes, and keep the text once one record is text, so one record moved every such row between
        the missing category and the all-zero block (a fourth attacker probe, sixty-third session: 200 of 600 rows).
        With a declared ``missing`` category such a cell takes it (``codes`` is set there), as a null does."""
        rows = np.flatnonzero((codes < 0) & ~absent)
        if not rows.size or values.dtype.kind not in "USO":
            return absent
        if values.dtype.kind == "O":
            rows = rows[_text_entries(values[rows])]
        rows = rows[tables.missing_spellings(labels[rows].astype(str))]
        if self.missing is not None:
            codes[rows] = self.categories.index(self.missing)
            return absent
        absent = absent.copy()
        absent[rows] = True
        return absent

    def _misread(self, values: np.ndarray, labels: np.ndarray, unknown: np.ndarray,
                 absent: np.ndarray) -> tuple[int, tuple[str, str]] | None:
        """(the first row, (what the column holds, the fix)) when a value outside the categories is one of them but for
        how it was read or written (``values``, their texts ``labels``; only the ``unknown`` rows, those outside the
        categories, are looked at, so a column of declared values costs nothing): text with surrounding whitespace (" a"
        where "a" is declared: the UCI Adult files, read by ``pd.read_csv``, keep the space after each comma), text that
        differs from a category in letter case ("state-gov" where "State-gov" is declared), with surrounding whitespace
        too (a number, a numeral's text or a flag is the category of its value, whatever its text:
        :func:`_keyed_slots`). A value is compared to the categories as its exact text, so such a column would otherwise
        encode as the all-zero block, silently; a blank cell (empty or whitespace-only text: an empty cell the
        command line or ``pd.read_csv(keep_default_na=False)`` reads as text, where pandas' default reads NaN, a
        missing value) in a column that declares no ``missing`` category, and a missing value (None, NaN, pandas NA:
        the ``absent`` rows) in such a column. The check is of the input's form against the public categories;
        :meth:`encode` names which near-miss it is and the fix (normalise the column, or declare the value as a category
        if it is one), never its value: a strict schema refuses it with the first such row, a non-strict one warns NOT
        PRIVATE (the check reads the rows) and encodes it as the all-zero block. A non-strict refusal was decided by one
        record: a table whose one record held "A" where "a" is declared was refused, its neighbour holding "zz" was
        released (an attacker probe, sixtieth session)."""
        if not unknown.size:
            return None
        found = []  # (row, message) of each form's first row
        kind = values.dtype.kind  # the text entries: every one of a str column, the str among objects
        text_rows = unknown if kind in "US" else unknown[_text_entries(values[unknown])] if kind == "O" else unknown[:0]
        near = _first_near_text(labels[text_rows], self.categories)
        if near is not None:
            found.append((int(text_rows[near[0]]), near[1]))
        blank = np.flatnonzero(np.char.strip(labels[text_rows].astype(str)) == "") if text_rows.size else text_rows
        if blank.size:  # an empty cell read as text (the command line, pd.read_csv(keep_default_na=False))
            found.append((int(text_rows[blank[0]]), _declare_missing(_BLANK)))
        if absent.any():  # None, NaN or pandas NA where no missing category is declared
            found.append((int(np.flatnonzero(absent)[0]), _declare_missing(_ABSENT)))
        return min(found, key=lambda pair: pair[0]) if found else None


#: Where a strict schema's refusal of a misread category names its first row, a non-strict schema's warning says this
NON_STRICT_ZEROS = "each encoded as the all-zero block by a non-strict schema"
#: The forms :meth:`CategoricalColumn._misread` finds: what the column holds, and why and the fix.
_SPACED = ("holds text that is a declared category but for surrounding whitespace",
           "a value is compared to the categories as its exact text, so ' a' is not 'a'; strip the text first "
           "(pandas: pd.read_csv(..., skipinitialspace=True) drops the spaces after the commas, or "
           "frame[{name!r}].str.strip())")
_CASED = ("holds text that is a declared category but for letter case",
          "a value is compared to the categories as its exact text, so 'yes' is not 'Yes'; normalise the "
          "column to the declared spelling first (pandas: frame[{name!r}].map({{...}}) from each spelling to its "
          "category, or .str.lower() with the categories declared in lower case), or, if the value is a category of "
          "its own, declare it")
#: The fix of a missing value in a column that declares no missing-value category (:data:`_BLANK`, :data:`_ABSENT`),
#: as the reader declares one (:func:`_declare_missing`)
_DECLARE_MISSING = ("declare its category: CategoricalColumn(..., missing='?') with '?' among the categories (in a "
                    "schema file, \"missing\": \"?\"), or fill such cells first by a rule of public knowledge; keep "
                    "every record (a dropped one makes n depend on the data: docs/datasets.md)")
#: The same on the command line, whose --categorical declares no missing-value category (a '?' listed there is a
#: category of its own, never the category of a blank cell or NaN): a --schema file's column does
_DECLARE_MISSING_CLI = ("declare its category in a --schema SCHEMA.json file: the column's \"missing\": \"?\" with "
                        "\"?\" among its \"categories\" (--categorical cannot declare one), or fill such cells "
                        "first by a rule of public knowledge; keep every record (a dropped one makes n depend on the "
                        "data: docs/datasets.md)")
_BLANK = ("holds blank cells (empty or whitespace-only text) and declares no missing-value category",
          "a blank cell is a missing value, as NaN is; ")
_ABSENT = ("holds missing values (None, NaN or pandas NA) and declares no missing-value category", "")


def _declare_missing(form: tuple[str, str]) -> tuple[str, str]:
    """A missing-value near-miss (:data:`_BLANK`, :data:`_ABSENT`) with its fix as the reader declares a missing-value
    category (:mod:`dpcvx.advice`): CategoricalColumn's ``missing`` in Python, a --schema file's ``"missing"`` while a
    ``dpcvx`` command runs, where no flag declares one (the command line's warning named the Python parameter: an
    analyst probe, session 63)."""
    return form[0], form[1] + (_DECLARE_MISSING_CLI if command_line_runs() else _DECLARE_MISSING)
#: Added to a letter-case near-miss that has surrounding whitespace as well.
_ALSO_SPACED = (" and surrounding whitespace", "; strip the text too (frame[{name!r}].str.strip())")

def _text_entries(entries: np.ndarray) -> np.ndarray:
    """Which entries of an array of objects are text (a number's text is no near-miss of its own: a number is looked
    up by its value, :func:`_number_slots`)."""
    return np.fromiter((isinstance(entry, str) for entry in entries), dtype=bool, count=entries.size)


def _first_near_text(texts: np.ndarray, categories: tuple[str, ...]) -> tuple[int, tuple[str, str]] | None:
    """(position of the first of ``texts``, text values outside ``categories``, that is a category but for its
    surrounding whitespace or its letter case, (what the column holds, the fix) of that near-miss), or None when none
    is. Each distinct text is looked at once, in the order of the rows: a column's
    unknown values are mostly a few values repeated. Timed on a machine loaded by other work (load 7 on 2 cores):
    100,000 rows of 52 distinct unknown values 51 ms, of 100,000 distinct ones 0.43 s; numpy's string functions
    over every row took longer (np.strings.lower alone 0.23 s, the sort of np.unique 0.3 s)."""
    declared = set(categories)
    folded = {category.lower() for category in categories}
    for text in dict.fromkeys(texts.tolist()):
        stripped = text.strip()
        if stripped in declared:
            form = _SPACED
        elif stripped.lower() in folded:
            form = _CASED
        else:
            continue
        if stripped != text and form is not _SPACED:
            form = (form[0] + _ALSO_SPACED[0], form[1] + _ALSO_SPACED[1])
        return int(np.flatnonzero(texts == text)[0]), form
    return None


def _category_keys(categories: tuple[str, ...]) -> dict[tables.Key, int]:
    """Each category's index by its reading key (:func:`dpcvx.tables.reading_key`: "3", "3.0", "03" and "0x3" are 3,
    "2.5" is 2.5, "true" and "True" are 1), for the categories that have one and share it with no other (public: the
    categories alone). :func:`_refuse_two_readings` refused two that share one when declared; a schema a model file
    saved before that refusal keeps them, each then matched by its exact text only (:func:`saved_schema`)."""
    found: dict[tables.Key, list[int]] = {}
    for index, category in enumerate(categories):
        key = tables.reading_key(category)
        if key is not None:
            found.setdefault(key, []).append(index)
    return {key: indices[0] for key, indices in found.items() if len(indices) == 1}


#: Set while a model file's schema is read (:func:`saved_schema`): its categories were declared and fitted before
#: two that share a reading key were refused, and the file must still load
_SAVED = contextvars.ContextVar("saved_schema", default=False)


@contextlib.contextmanager
def saved_schema() -> Iterator[None]:
    """Read a schema that a model file saved: two categories that share a reading key are kept (each matched by its
    exact text only), where a schema declared now refuses them; a model fitted and charged before the refusal is
    never made unreadable by it (a probe of the sixty-third session: such files no longer loaded)."""
    token = _SAVED.set(True)
    try:
        yield
    finally:
        _SAVED.reset(token)


def _refuse_two_readings(name: str, categories: tuple[str, ...], missing: str | None, fitting: bool = False) -> None:
    """Refuse a declaration under which a cell's category would depend on the type its reader gave the whole column,
    that is on the other records (attacker probes, sixty-third session):

    - two categories that a reader may give as one value ("7" and "07", "1" and "1.0", "1" and "true", two codes
      beyond 2**53 with one nearest float: :func:`dpcvx.tables.reading_key`): a cell is read by its value, and a
      file holding "07" is read as 7 when every code is a number, as "07" when one record is text; pyarrow reads 1 as
      true once one cell is true;
    - a category that spells a missing value (:func:`dpcvx.tables.spells_missing`: "NA", "null", ...) other than the
      column's ``missing`` category: pandas' ``read_csv`` reads it as a missing value by default, and pyarrow does
      in a column of codes but keeps the text once one record is text, so one record moved every such row between
      its category and a missing value. As the ``missing`` category a missing value is that category too, whichever
      way it was read;
    - a category that spells a timestamp, or two that spell one time of day (:func:`dpcvx.tables.spelled_timestamp`):
      pyarrow's CSV reader and polars type a column of such cells as timestamps or times while every record is one
      (sessions 65 and 66).

    While a model file's schema is read they are kept (:func:`saved_schema`), but never for a new fit (``fitting``:
    :meth:`PublicSchema.fit`)."""
    if _SAVED.get() and not fitting:
        return
    kept = "; a schema read from a model file keeps them for that model's predictions only" if fitting else ""
    shared = tables.shared_key([category] for category in categories)
    if shared is not None:
        raise InputError(f"column {name!r}: the categories {shared[0]!r} and {shared[1]!r} are one value to a "
                         "reader of the column (a table's 7, 7.0 and 07 are one number, true, True and 1 one "
                         "flag, and beyond 2**53 a float holds only some integers), so a cell could not be told to "
                         "be one or the other: declare one of them (or codes that differ as numbers)"
                         + tables.kept_spelling(shared[0], shared[1], "cells") + kept)
    timed = tables.spelled_timestamp(categories)
    if timed is not None:  # a reader types such cells timestamps or times (tables.day_texts, declared_days)
        raise InputError(f"column {name!r}: the category {timed}" + kept)
    null = next((category for category in categories if tables.spells_missing(category) and category != missing), None)
    if null is not None:
        raise InputError(f"column {name!r}: the category {null!r} spells a missing value, which a table's reader "
                         "may read as one (pandas' read_csv, pyarrow in a column of codes until one record is text), "
                         "so whether a cell is this category would depend on the reader and the other records: declare "
                         f"it as the column's missing-value category, CategoricalColumn(..., missing={null!r}) (in a "
                         f"schema file, \"missing\": {json.dumps(null)}), or write the category another way" + kept)


def _keyed_slots(values: np.ndarray, labels: np.ndarray, keys: dict[tables.Key, int]) -> np.ndarray:
    """Each value's category index by its reading key (:func:`dpcvx.tables.reading_key`), -1 where it has none among
    ``keys``: a number or a boolean (:func:`_number_slots`, vectorised), or a text (``labels``, each distinct text
    once), each entry by its own type and value, never by the type of its column (which depends on every record)."""
    kind = values.dtype.kind
    if kind in "US":
        return _text_slots(labels, keys)
    if kind in "iufb":
        return _number_slots(values.astype(np.int64) if kind == "b" else values, keys)
    found = np.full(values.shape, -1, dtype=np.intp)
    if kind != "O":
        return found
    text = _text_entries(values)
    found[text] = _text_slots(labels[text], keys)
    found[~text] = _number_slots(values[~text], keys)
    return found


def _text_slots(texts: np.ndarray, keys: dict[tables.Key, int]) -> np.ndarray:
    """Each text's category index by its reading key, -1 where none; each distinct text read once."""
    if not texts.size:
        return np.full(texts.shape, -1, dtype=np.intp)
    distinct, where = np.unique(texts.astype(str), return_inverse=True)
    indices = np.array([keys.get(tables.reading_key(text), -1) for text in distinct.tolist()],  # type: ignore[arg-type]
                       dtype=np.intp)
    return indices[where.reshape(texts.shape)]


def _number_slots(entries: np.ndarray, slots: dict[int | float, int]) -> np.ndarray:
    """Each entry's category index by its reading key (:func:`_category_keys`) when it is a number (an integer, a
    boolean, a float or a Decimal) whose value is a key, else -1. Each entry by its own value alone, never by its text,
    which depends on the type the whole column was read as: a column of integer codes that one missing value or one
    2.5 makes floats (pandas), one text makes objects, or one Decimal("2.5") gives a scale of one digit (pyarrow,
    polars), encodes every other record as before (3.0 was '3.0', no category, so one record turned every row of the
    column into the all-zero block: attacker probes, sixty-second session). Vectorised: the entries equal to a key as
    float64 (an integer column in its own dtype) are the candidates; a float beyond 2**53, an infinity or an object
    entry is then looked at by its exact value (:func:`dpcvx.tables.reading_key`)."""
    found = np.full(entries.shape, -1, dtype=np.intp)
    kind = entries.dtype.kind
    if not slots or kind not in "iufO":
        return found
    if kind in "iu":
        limits = np.iinfo(entries.dtype)
        pairs: list[tuple[float, int]] = sorted(
            (key, slot) for key, slot in slots.items() if isinstance(key, int) and limits.min <= key <= limits.max)
        keys = np.array([key for key, _ in pairs], dtype=entries.dtype)
    else:
        pairs = sorted((float(key), slot) for key, slot in slots.items()  # infinities kept: a key of their own
                       if not isinstance(key, int) or abs(key) < _FLOAT_CODES)
        keys = np.array([key for key, _ in pairs], dtype=np.float64)
    key_slots = np.array([slot for _, slot in pairs], dtype=np.intp)
    if kind == "O":
        try:
            numbers = entries.astype(np.float64)  # an object column of numbers and None (pandas Int64) at once
        except (TypeError, ValueError, OverflowError):  # text, pandas NA, an integer beyond float64: one by one
            numbers = np.fromiter((_as_float(value) for value in entries), dtype=np.float64, count=entries.size)
    else:
        numbers = entries
    position = np.minimum(np.searchsorted(keys, numbers), max(keys.size - 1, 0))
    candidates = np.flatnonzero(keys[position] == numbers) if keys.size else position[:0]
    if kind in "iu":  # (every key may lie beyond the dtype's range, 2**63 for an int64 column: none in keys)
        found[candidates] = key_slots[position[candidates]]
        beyond = np.flatnonzero(np.abs(entries.astype(np.float64)) >= tables.FLOAT_WHOLE)
        if beyond.size:  # 2**53 + 1 is the key of 2**53, the float a reader makes of it once one cell is empty
            distinct, where = np.unique(entries[beyond], return_inverse=True)
            found[beyond] = np.array([slots.get(tables.exact_whole(int(code)), -1) for code in distinct.tolist()],
                                     dtype=np.intp)[where]
        return found
    exact = np.abs(numbers[candidates]) < 2.0 ** 53 if kind == "f" else np.zeros(candidates.size, dtype=bool)
    found[candidates[exact]] = key_slots[position[candidates[exact]]]
    for row in candidates[~exact]:  # a float beyond 2**53 (the float64 of 2**53 + 1 is 2**53), or an object entry
        value = entries[row]
        if not tables.is_number(value):  # the text " 7" is 7.0, but no number: text is read by _text_slots; a
            continue                     # numpy duration, a numpy integer to Python, is no number either
        key = tables.reading_key(value)  # exact (a Decimal equal to its float may not be)
        found[row] = -1 if key is None else slots.get(key, -1)
    return found


#: The integer codes :func:`_number_slots` compares as float64 are below this in size (float64's range).
_FLOAT_CODES = 2 ** 1023


def _as_float(value: Any) -> float:
    """An integer, a boolean, a float or a Decimal as float64, inf beyond its range; NaN for any other entry (never a
    candidate of :func:`_number_slots`), a numpy duration among them (:func:`dpcvx.tables.is_number`: a subclass of
    numpy's integers, whose float is a count of its units: 2 ns was the category "2", an attacker probe, session 65)."""
    if not tables.is_number(value):
        return math.nan
    try:
        return float(value)
    except OverflowError:
        return math.inf


Column = NumericColumn | CategoricalColumn


@dataclass(eq=True)
class PublicSchema:
    """Columns with public bounds and categories, and the public row-norm bound ``norm``.

    ``transform(table)`` gives float64 rows x with numpy.linalg.norm(x) <= norm. The declared fields
    cannot be changed after construction (:class:`dataclasses.FrozenInstanceError`, as a frozen
    dataclass); other attributes can, as scikit-learn sets some on a pipeline's steps.

    ``encoding`` (module docstring): ``"centred"`` (the default) codes a numeric column as u(v) - 1/2,
    centred on its public midpoint, in [-1/2, 1/2]; ``"unit"`` (schema files of version 1, and
    :func:`paper_schema`) as u(v) in [0, 1]. Both then divide each row by max(1, ||x|| / norm).
    """

    columns: tuple[Column, ...]
    norm: float = 1.0
    strict: bool = False
    constant_feature: bool = False
    encoding: str = ENCODINGS[0]

    if TYPE_CHECKING:  # what the constructor takes (a list too), kept as a tuple by __post_init__
        def __init__(self, columns: Sequence[Column], norm: float = 1.0, strict: bool = False,
                     constant_feature: bool = False, encoding: str = ENCODINGS[0]) -> None: ...

    def __post_init__(self) -> None:
        if not isinstance(self.columns, (tuple, list)):
            single = " (one column is a tuple of one: (column,))" if isinstance(
                self.columns, (NumericColumn, CategoricalColumn)) else ""
            raise InputError(f"columns must be a tuple or list of NumericColumn and CategoricalColumn objects, got "
                             f"{type(self.columns).__name__}{single}")
        columns = tuple(self.columns)
        if not all(isinstance(c, (NumericColumn, CategoricalColumn)) for c in columns):
            raise InputError("columns must be NumericColumn or CategoricalColumn objects")
        if not columns:
            raise InputError("a schema needs at least one column")
        names = [c.name for c in columns]
        duplicated = sorted(tables.repeated_names(names))
        if duplicated:
            raise InputError(f"column names repeat: {duplicated}")
        # the row-norm bound R every learner takes as data_norm, checked as it is (check_bound) and named as the
        # schema's: [1e-150, 1e150] here let 1e-100 through to a refusal of data_norm (--data-norm on the command line)
        norm = check_bound("the schema's norm", self.norm)
        check_choice("encoding", self.encoding, tuple(ENCODINGS))
        for flag in ("strict", "constant_feature"):  # True, False or a numpy bool, as every flag of dpcvx
            object.__setattr__(self, flag, check_flag(flag, getattr(self, flag)))
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "norm", norm)
        features = self.feature_names
        if len(set(features)) != len(features):
            repeated = sorted(tables.repeated_names(list(features)))
            raise InputError(f"feature names repeat: {repeated[:5]} (a categorical column 'a' with category 'b=c' "
                             "and a column 'a=b' with category 'c' are both 'a=b=c'); rename a column")

    def __setattr__(self, name: str, value: Any) -> None:
        if name in SCHEMA_FIELDS and name in self.__dict__:
            raise FrozenInstanceError(f"cannot assign to field {name!r}: a PublicSchema is immutable; "
                                      "dataclasses.replace(schema, ...) makes a new one")
        object.__setattr__(self, name, value)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, name) for name in SCHEMA_FIELDS))

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @property
    def numeric_names(self) -> tuple[str, ...]:
        """The numeric columns' names: what a typed reader (:mod:`dpcvx.data.csv_table`) reads as numbers."""
        return tuple(c.name for c in self.columns if isinstance(c, NumericColumn))

    @property
    def feature_names(self) -> tuple[str, ...]:
        names = tuple(name for c in self.columns for name in c.feature_names)
        return names + ((CONSTANT_FEATURE_NAME,) if self.constant_feature else ())

    @property
    def dimension(self) -> int:
        return len(self.feature_names)

    @property
    def largest_row_norm(self) -> float:
        """The largest norm a coded row can have before the row map, from the declaration alone: sqrt of the sum of
        each feature's largest square (a numeric column's code 1/4 under "centred", 1 under "unit", its missing
        indicator 1; a categorical column's one-hot block 1; the constant feature 1). A ``norm`` at least this
        scales no row."""
        value = 0.25 if self.encoding == "centred" else 1.0
        squares = sum(value + float(c.missing_indicator) if isinstance(c, NumericColumn) else 1.0
                      for c in self.columns)
        return math.sqrt(squares + float(self.constant_feature))

    def onto_norm(self, codes: np.ndarray) -> np.ndarray:
        """The schema's row map of coded rows (``codes``, n x :attr:`dimension`, float): each row x becomes
        x / max(1, ||x|| / norm), with numpy.linalg.norm of every row at most ``norm`` despite rounding, as
        :meth:`transform` maps a table's codes. In place, and returned."""
        return _bound_row_norms(codes, self.norm)

    @property
    def read_off_data(self) -> tuple[str, ...]:
        """The columns :func:`paper_schema` read off the data (their source says so): dpcvx.save refuses them."""
        return tuple(c.name for c in self.columns if c.source == PAPER_SOURCE)

    @float_errors_ignored
    def fit(self, table: Any = None, y: Any = None) -> PublicSchema:
        """Nothing to learn: the schema is public (declared before the data are seen). Reads nothing,
        spends nothing and returns the schema unchanged, so a pipeline's refits cost no privacy. A schema a model
        file kept with two categories of one value (:func:`saved_schema`) is refused: it serves that model's
        predictions only, and a new fit on it would read a cell as one or the other by the other records."""
        for column in self.columns:
            if isinstance(column, CategoricalColumn):
                _refuse_two_readings(column.name, column.categories, column.missing, fitting=True)
        # fit_transform's fit (no table): its next transform is the fit's (transform). A fit given a table reads
        # nothing of it, so no later transform is known to be the fit's: every table is checked, as by a schema never
        # fitted (schema.fit(train) then transform(test) checked test alone and lost train's notes: an attacker probe)
        object.__setattr__(self, _NOTED, (True, set()) if table is None else None)
        return self

    @float_errors_ignored
    def fit_transform(self, table: Any, y: Any = None) -> Any:
        """:meth:`transform` after :meth:`fit`'s check (which reads nothing)."""
        return self.fit().transform(table)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The declared fields, as scikit-learn's ``clone`` reads a transformer's parameters (a ColumnTransformer
        clones its transformers: without them a schema could not be one of its steps). A schema has no nested
        estimators, so ``deep`` changes nothing; it is immutable (:meth:`set_params`)."""
        return {name: getattr(self, name) for name in SCHEMA_FIELDS}

    def set_params(self, **params: Any) -> PublicSchema:
        """A schema is immutable (its fields are the public declaration, never changed once made): with parameters
        this refuses with an InputError naming the way a grid search varies it, a whole schema per value of the
        pipeline's step (scikit-learn's set_params of a step raised a bare AttributeError); without, it is the
        schema."""
        if params:
            refuse_unknown_parameters(type(self).__name__, params, SCHEMA_FIELDS)
            raise InputError(f"a PublicSchema is immutable: it cannot set {sorted(params)}. To try schemas in a grid "
                             "search, give the pipeline's step whole schemas, e.g. {'publicschema': "
                             "[PublicSchema(...), PublicSchema(...)]}, or build one with dataclasses.replace(schema, "
                             "...)")
        return self

    @property
    def n_features_in_(self) -> int:
        """The number of columns the schema reads (a Pipeline's ``n_features_in_`` reads its first step's)."""
        return len(self.column_names)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The output feature names (module docstring), as scikit-learn's transformers give them.

        ``input_features``, when given, must name the schema's columns (any order is refused)."""
        if input_features is not None:
            names = tuple(input_features) if isinstance(input_features, (list, tuple, np.ndarray)) else None
            if names is None or not all(isinstance(name, str) for name in names) or names != self.column_names:
                shown = list(names)[:20] if names is not None else type(input_features).__name__
                raise InputError(f"input_features {shown} are not the schema's columns "
                                 f"{list(self.column_names)[:20]}")
        return np.asarray(self.feature_names, dtype=object)

    def set_output(self, *, transform: str | None = None) -> PublicSchema:
        """The container :meth:`transform` returns: "default" (a numpy array), "pandas" or "polars" (a
        DataFrame with :meth:`get_feature_names_out` as columns); None keeps the current one. scikit-learn's
        API (:mod:`~dpcvx.data.transformer_api`: a clone keeps it); the setting is not part of the schema (not
        saved, not compared)."""
        transformer_api.set_output(self, transform)
        return self

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's tags of a stateless transformer that reads text and categories."""
        return transformer_api.transformer_tags(needs_fit=False, text=True)

    @float_errors_ignored
    def transform(self, table: Any) -> Any:
        """(n, dimension) float64 rows, each built from its own record only (a DataFrame after
        :meth:`set_output`).

        The NOT PRIVATE notes on the rows of a fitted schema are its fit's: the first transform after :meth:`fit`
        (:meth:`fit_transform`, which a pipeline's fit calls) checks the row map
        (:class:`~dpcvx.exceptions.LevelErasedWarning`), and a later one, a fitted pipeline's predict, does not (its
        model's schema is fixed, as ``dpcvx predict``'s is: :func:`~dpcvx.data.shared_level.level_checks_off`); the
        notes on columns against their declaration are then shown once each, not once a batch scored (analyst probe
        P2, session 68, finding 6). A schema never fitted, or fitted with a table it did not read (``fit(table)``),
        checks every table it transforms."""
        state = getattr(self, _NOTED, None)
        if state is None:
            return transformer_api.contained(self, self._encode(table), self.feature_names, table)
        first, shown = state
        with notes_shown_once(shown), contextlib.nullcontext() if first else level_checks_off():
            rows = self._encode(table)
        if first:  # a refused transform reads no rows for the fit: the next one is still the fit's
            object.__setattr__(self, _NOTED, (False, shown))
        return transformer_api.contained(self, rows, self.feature_names, table)

    def _encode(self, table: Any) -> np.ndarray:
        arrays = column_arrays(table, self.column_names)
        n_rows = common_length(arrays)
        centred = self.encoding == "centred"
        # lost: the columns most of whose rows encode as nothing (:func:`_warn_lost`); piled: the numeric columns
        # many of whose rows hold one value outside the bounds (:func:`_warn_piled`)
        # each column writes its block into its slice of one output (no block per column, no copy of them all)
        features = np.empty((n_rows, self.dimension))
        lost: list[Column] = []
        piled: list[NumericColumn] = []
        misread: list[tuple[str, tuple[str, str]]] = []  # categorical columns' near-misses (_warn_misread)
        start = 0
        for column in self.columns:
            width = len(column.feature_names)
            block = features[:, start:start + width]
            start += width
            if isinstance(column, CategoricalColumn):
                _, rows, slots = column._ones(arrays[column.name], self.strict, misread)
                block[...] = 0.0
                block[rows, slots] = 1.0
                # a known value sets exactly one 1: all-zero one-hot rows are the undeclared values
                undeclared = n_rows - rows.size
                if n_rows >= LOST_MIN_ROWS and undeclared > LOST_SHARE * n_rows:
                    lost.append(column)
            else:
                block[...], outside = column._encoded(arrays[column.name], centred)
                if _one_value_piled(outside, n_rows):
                    piled.append(column)
                elif n_rows >= LOST_MIN_ROWS and outside.size > LOST_SHARE * n_rows:
                    lost.append(column)
        _warn_misread(misread)
        _warn_lost(lost)
        _warn_piled(piled)
        if self.constant_feature:
            features[:, -1] = 1.0
        self._check_level(features, n_rows)
        return self.onto_norm(features)

    def _check_level(self, features: np.ndarray, n_rows: int) -> None:
        """:func:`~dpcvx.data.shared_level.warn_if_level_erased` on a table of ``LOST_MIN_ROWS`` rows or more with
        a numeric column or more (NOT PRIVATE: it reads the rows; a record or a few encoded at prediction time say
        nothing of the declaration)."""
        starts = np.cumsum([0] + [len(c.feature_names) for c in self.columns])[:-1]
        numeric = [(int(start), c.name) for start, c in zip(starts, self.columns, strict=True)
                   if isinstance(c, NumericColumn)]
        if n_rows >= LOST_MIN_ROWS and numeric:
            warn_if_level_erased(features, [start for start, _ in numeric], [name for _, name in numeric],
                                 self.encoding, self.norm, self.largest_row_norm)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form documented in the module docstring: a ``"unit"`` schema is written as a
        version-1 file (no ``"encoding"`` key, as before issue 42), any other as version 2 with the key."""
        head: dict[str, Any] = {"format": SCHEMA_FORMAT}
        if self.encoding == "unit":
            head["version"] = UNIT_VERSION
        else:
            head.update(version=SCHEMA_VERSION, encoding=self.encoding)
        return head | {
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
        version = data.get("version")
        if data.get("format") == SCHEMA_FORMAT and type(version) is int and version > SCHEMA_VERSION:
            raise InputError(f"schema version {version} was written by a newer dpcvx than this one (it reads schema "
                             f"versions up to {SCHEMA_VERSION}): upgrade dpcvx to read it")
        if data.get("format") != SCHEMA_FORMAT or type(version) is not int or version not in (UNIT_VERSION,
                                                                                                SCHEMA_VERSION):
            raise InputError(
                f'not a dpcvx schema: need "format": "{SCHEMA_FORMAT}" and "version": {UNIT_VERSION} or '
                f"{SCHEMA_VERSION}, got {data.get('format')!r} and {version!r}"
            )
        if version == UNIT_VERSION and "encoding" in data:
            raise InputError(f'a version-{UNIT_VERSION} schema has no "encoding" key (its encoding is "unit"); '
                             f'write "version": {SCHEMA_VERSION} to choose one')
        columns = data.get("columns")
        if not isinstance(columns, list):
            raise InputError('a schema needs "columns": a list of column objects')
        return cls(
            columns=tuple(_column_from_dict(c) for c in columns),
            norm=data.get("norm", 1.0),
            strict=data.get("strict", False),
            constant_feature=data.get("constant_feature", False),
            encoding="unit" if version == UNIT_VERSION else data.get("encoding", ENCODINGS[0]),
        )

    def save(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write the schema file (JSON), atomically: a failure leaves any old file intact. An existing file is kept
        and refused with an :class:`~dpcvx.exceptions.OverwriteError` before anything is written, unless
        ``overwrite=True``, which replaces it."""
        path = check_writable(path, "schema file", overwrite=overwrite)
        text = json.dumps(self.to_dict(), indent=2) + "\n"
        return atomic_write(path, lambda handle: handle.write(text), what="schema file", overwrite=overwrite)

    @classmethod
    def load(cls, path: str | Path) -> PublicSchema:
        """Read a schema file written by :meth:`save` or by hand (a :class:`~dpcvx.exceptions.FileError` naming the
        file for a bad one, as :func:`dpcvx.load` names a model file)."""
        data = read_json(path, "schema file")
        try:
            return cls.from_dict(data)
        except InputError as error:
            raise FileError(f"schema file {path}: {error}") from None


def schema_step_route(steps: list[Any]) -> str:
    """What a refusal of a pipeline (``dpcvx.save``, ``dpcvx.tune``) adds when one of its ``steps`` (scikit-learn's
    (name, step) pairs) is a ``FunctionTransformer`` of a :class:`PublicSchema`'s ``transform``: the schema itself is
    the step that both take (it is a transformer, and encodes the same rows); "" when no step is one."""
    for step in steps:
        func = getattr(step[1], "func", None) if isinstance(step, tuple) and len(step) == 2 else None
        if isinstance(getattr(func, "__self__", None), PublicSchema) and getattr(func, "__name__", "") == "transform":
            return (". The FunctionTransformer of schema.transform encodes what the schema itself does: make the "
                    "schema the step, make_pipeline(schema, estimator) (a PublicSchema is a transformer; the model is "
                    "the same, and its file keeps the schema)")
    return ""


def paper_schema(template: PublicSchema, table: Any) -> PublicSchema:
    """The JMLR 2011 experimental preprocessing, which READS THE DATA (NOT private).

    Returns ``template`` with every numeric column's bounds replaced by
    lo = min(0, column minimum), hi = column maximum (hi = lo + 1 for a
    constant column) and a linear scale, so a non-negative column is scaled to max 1 exactly as
    in the paper, and every categorical column's list replaced by the sorted
    categories present in ``table``, and the paper's ``encoding="unit"`` (columns in [0, 1], each
    row divided by max(1, ||x|| / norm)). Column maxima and the set of present
    categories are statistics of the data: a model trained on rows produced
    this way has no differential-privacy guarantee for the schema itself.
    Use it only to reproduce the published numbers.
    """
    arrays = column_arrays(table, template.column_names)
    if common_length(arrays) == 0:
        raise InputError("paper_schema needs at least one record to read bounds from")
    columns: list[Column] = []
    for column in template.columns:
        if isinstance(column, NumericColumn):
            values, _ = as_numbers(column.name, arrays[column.name])
            lo, hi = min(0.0, float(values.min())), float(values.max())
            columns.append(NumericColumn(column.name, lo, hi if hi > lo else lo + 1.0, PAPER_SOURCE))
        else:
            present = tuple(str(v) for v in np.unique(as_labels(column.name, arrays[column.name])))
            columns.append(CategoricalColumn(column.name, present, PAPER_SOURCE))
    return replace(template, columns=tuple(columns), encoding="unit")


def _bound_row_norms(features: np.ndarray, norm: float) -> np.ndarray:
    """x / max(1, ||x|| / norm) per row, then guarantee numpy.linalg.norm(x) <= norm despite rounding; in place
    (``features`` is the schema's own output), and returned.

    By blocks of rows (no n x D temporary): each row's norm is numpy.linalg.norm's of that row, and only the rows
    that were scaled have theirs taken again; a row with fl(||x|| / norm) <= 1 is unchanged (x / 1 is x), so its
    norm is the one already taken. The rows left above the bound are shrunk by 4 ulp until none is, as when every
    row's norm was taken again on each round: the same output bit for bit."""
    step = cache_block_rows(features.shape[1])
    above: list[np.ndarray] = []
    for start in range(0, features.shape[0], step):
        rows = features[start:start + step]
        norms = np.linalg.norm(rows, axis=1)
        factors = np.maximum(1.0, norms / norm)
        scaled = np.flatnonzero(factors != 1.0)  # and NaN, as x / NaN was
        over = norms > norm
        if scaled.size:
            rows[scaled] /= factors[scaled, None]
            over[scaled] = np.linalg.norm(rows[scaled], axis=1) > norm
        above.append(start + np.flatnonzero(over))
    over_rows = np.concatenate(above) if above else np.empty(0, dtype=np.intp)
    for _ in range(64):  # rounding left a few rows an ulp or two above the bound
        if not over_rows.size:
            return features
        features[over_rows] *= 1.0 - 4.0 * np.finfo(float).eps
        over_rows = over_rows[np.linalg.norm(features[over_rows], axis=1) > norm]
    features[over_rows] *= 0.5  # unreachable for norm in [1e-75, 1e75]; never leave a row above it
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
        if column.missing_codes:
            data["missing_codes"] = list(column.missing_codes)
        if column.missing_texts:
            data["missing_texts"] = list(column.missing_texts)
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
        allowed = {"name", "kind", "lo", "hi", "source", "missing", "missing_indicator", "scale", "missing_codes",
                   "missing_texts"}
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
            data.get("missing_codes", []),
            data.get("missing_texts", []),
        )
    if kind == "categorical":
        _reject_unknown_keys(
            f"categorical column {name!r}", data, {"name", "kind", "categories", "source", "missing"}
        )
        categories = data.get("categories")
        if not isinstance(categories, list):
            raise InputError(f'categorical column {name!r} needs "categories": a list of strings (or integer codes)')
        missing = data.get("missing")
        if missing is not None and not isinstance(missing, str):
            raise InputError(f'categorical column {name!r}: "missing" must be a category (a string)')
        return CategoricalColumn(name, tuple(categories), source, missing)
    raise InputError(f'column {name!r}: "kind" must be "numeric" or "categorical", got {kind!r}')


#: The share of a table's rows above which a column whose values mostly encode as nothing is warned of (a categorical
#: column's values outside its declared categories, a numeric column's outside its bounds), in a table of at least
#: ``LOST_MIN_ROWS`` rows (a record or a few encoded at prediction time say nothing of the declaration)
LOST_SHARE = 0.5
LOST_MIN_ROWS = 20
PILED_SHARE = 0.01  # one value outside a numeric column's bounds on this share of the rows reads as a code


#: What a schema's warning about a column against its declaration says of itself (:func:`_warn_lost`,
#: :func:`_warn_piled`), ``{what}`` the declaration checked
_ROWS_READ = "NOT PRIVATE: this check read the rows; it is shown to you only and is not part of any release."
#: The texts of the NOT PRIVATE notes a schema has shown since it was made or fitted, while one of its transforms
#: runs (:meth:`PublicSchema.transform`): :func:`_note` shows each once
_SHOWN: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar("dpcvx_schema_notes_shown", default=None)
#: the attribute a fitted schema keeps them in (not a field: not part of the declaration, not saved or compared), with
#: whether its next transform is the fit's: absent on a schema never fitted, whose every transform checks its rows
_NOTED = "_dpcvx_notes_shown"


@contextlib.contextmanager
def notes_shown_once(shown: set[str]) -> Iterator[None]:
    """A block whose schema transforms show each NOT PRIVATE note once over every block given the same ``shown``
    (the texts shown so far, added to): the chunks of one file (``dpcvx fit`` and ``dpcvx predict --chunk-rows``)
    are one table, whose notes each chunk's transform showed again (attacker probe P5 F6, session 70: 20,000 rows
    by 5,000 showed an UndeclaredCategoryWarning 4 times). A fitted schema's transform shows its own this way, with
    the texts it keeps since its fit (:meth:`PublicSchema.transform`)."""
    token = _SHOWN.set(shown)
    try:
        yield
    finally:
        _SHOWN.reset(token)


def _note(text: str, category: type[Warning]) -> None:
    """warn_shown ``text``, unless the schema whose transform runs (:data:`_SHOWN`) has shown it already: a user
    scoring batches through a fitted pipeline gets each note once, not once a batch (analyst probe P2, session 68,
    finding 6)."""
    shown = _SHOWN.get()
    if shown is not None:
        if text in shown:
            return
        shown.add(text)
    warn_shown(text, category)
_READ_THE_ROWS = (_ROWS_READ + " Check the declared {what} against the column's documentation (its data dictionary, "
                  "never its values in the data)")


def _warn_lost(columns: Sequence[Column]) -> None:
    """Warn of the columns whose declaration is not their data's, on more than ``LOST_SHARE`` of the rows of a table
    of at least ``LOST_MIN_ROWS``: a categorical column's values outside its declared categories
    (:class:`~dpcvx.exceptions.UndeclaredCategoryWarning`: a non-strict schema encodes each as the all-zero block),
    a numeric column's outside its public bounds (:class:`~dpcvx.exceptions.OutOfBoundsWarning`: each is clipped
    onto the bound, so the column is nearly constant; bounds in other units, say). A few unseen values are what a
    non-strict schema is for, and a few clipped ones what bounds are for; most of a column means a model learns
    nothing from it, silently. One warning of each kind names every such column (:func:`_named_columns`: one a
    column buried the rest, 20 survey items gave 20 warnings at fit and 20 at predict, a sixty-sixth session probe),
    its public declaration and the fix, no count or value; it reads the rows, so it is NOT PRIVATE, shown to the
    data owner only."""
    shown = _READ_THE_ROWS
    categorical = [column for column in columns if isinstance(column, CategoricalColumn)]
    numeric = [column for column in columns if isinstance(column, NumericColumn)]
    if categorical:
        subject, each = _named_columns(categorical, bounds=False)
        _note(
            f"{subject}: {each}more than half of the rows hold a value outside its declared categories, "
            "and a non-strict schema encodes each as the all-zero block: a model learns nothing from this "
            f"column. {shown.format(what='categories')}, or pass {setting('schema.strict', 'True', 'true')} to "
            "refuse such rows", UndeclaredCategoryWarning)
    if numeric:
        subject, each = _named_columns(numeric)
        _note(
            f"{subject}: {each}more than half of the rows lie outside its public bounds{_one_bounds(numeric)} and "
            "are clipped onto them: the column is nearly constant, and a model learns little from it. "
            f"{shown.format(what='bounds')}: the same units (thousands or ones, cents or dollars, months or years)",
            OutOfBoundsWarning)


def _warn_misread(found: Sequence[tuple[str, tuple[str, str]]]) -> None:
    """Warn (:class:`~dpcvx.exceptions.UndeclaredCategoryWarning`, NOT PRIVATE) of the categorical columns ``found``
    (name, (what it holds, the fix)) holding a near-miss of a declared category (:meth:`CategoricalColumn._misread`):
    one warning of each near-miss naming every column that holds it, the fix written with the first one's name."""
    kinds: dict[tuple[str, str], list[str]] = {}
    for name, form in found:
        kinds.setdefault(form, []).append(name)
    for (before, after), names in kinds.items():
        subject = f"column {names[0]!r}" if len(names) == 1 else (f"{len(names)} columns, "
                                                                  f"{a_few([repr(name) for name in names])}, each")
        others = "" if len(names) == 1 else " (likewise for each of the other columns)"
        _note(f"{subject} {before}, {NON_STRICT_ZEROS} (the value is not shown: it is data): "
                   + after.format(name=names[0]) + others + ". " + _ROWS_READ, UndeclaredCategoryWarning)


def _one_bounds(columns: Sequence[NumericColumn]) -> str:
    """' [lo, hi]' of one column (a warning of several gives each column's bounds beside its name)."""
    return f" [{columns[0].lo:g}, {columns[0].hi:g}]" if len(columns) == 1 else " (after the column names)"


def _named_columns(columns: Sequence[Column], bounds: bool = True) -> tuple[str, str]:
    """(the subject of one warning of a schema's columns, and what its finding begins with): "column 'age'" and ""
    for one; for several "3 columns, 'q00', 'q01' [1, 5]; 'age' [18, 90]" (each numeric column's public bounds,
    those of equal bounds together; the first :data:`~dpcvx.advice.FEW` named, then "and N more") and "in each, ".
    Names and bounds are public."""
    if len(columns) == 1:
        return f"column {columns[0].name!r}", ""
    groups: dict[tuple[float, float] | None, list[str]] = {}
    for column in columns[:FEW]:  # the first few named (a_few): a message of thousands of columns stays short
        key = (column.lo, column.hi) if bounds and isinstance(column, NumericColumn) else None
        groups.setdefault(key, []).append(repr(column.name))
    listed = "; ".join(", ".join(names) + ("" if key is None else f" [{key[0]:g}, {key[1]:g}]")
                       for key, names in groups.items())
    more = f" and {len(columns) - FEW:,} more" if len(columns) > FEW else ""
    return f"{len(columns)} columns, {listed}{more}", "in each, "


def _one_value_piled(outside: np.ndarray, n_rows: int) -> bool:
    """Whether one value outside a numeric column's bounds (``outside``: those values) is held by at least
    ``PILED_SHARE`` of the ``n_rows`` rows and ``LOST_MIN_ROWS`` of them: the signature of a code (999 for an
    unknown age, -1 for none), where values outside the bounds by chance or in other units spread."""
    least = max(LOST_MIN_ROWS, PILED_SHARE * n_rows)
    if outside.size < least:
        return False
    return int(np.unique(outside, return_counts=True)[1].max()) >= least


def _warn_piled(columns: Sequence[NumericColumn]) -> None:
    """Warn (:class:`~dpcvx.exceptions.OutOfBoundsWarning`, one warning naming them all: :func:`_named_columns`) of
    the numeric columns many of whose rows hold one value
    outside its public bounds (:func:`_one_value_piled`): each is clipped onto the nearer bound and reads as it (a
    code 999 for "unknown" becomes the oldest age), and a private fit may locate the column by that pile alone (a
    helper's table: DPHuberRegressor's R^2 0.28 against 0.42 without the column statistics, at epsilon 5). The text
    names the column, its public bounds and the fix, no count or value; it reads the rows, so it is NOT PRIVATE,
    shown to the data owner only. Where the command line runs, the fix is its flags."""
    if not columns:
        return
    one = len(columns) == 1
    if command_line_runs():
        fix = ("declare the code's cell text with --missing CODE and give the column a public imputed value within "
               f"the bounds (fit: --impute {columns[0].name if one else 'NAME'}=VALUE{'' if one else ' for each'}; "
               "predict imputes the model's)")
    else:
        fix = (f"declare it with a public imputed value (NumericColumn({repr(columns[0].name) if one else 'NAME'}, "
               f"..., missing=VALUE, missing_codes=(CODE,)){'' if one else ' for each'}); missing_indicator=True "
               "would add a 0/1 column that tells the code from VALUE, at a cost: one more encoded column, and a "
               "private fit's noise grows with d / (n epsilon), so on a table of many such columns it can lose more "
               "than it tells")
    subject, each = _named_columns(columns)
    _note(
        f"{subject}: {each}many rows hold one same value outside its public bounds{_one_bounds(columns)}, each "
        "clipped onto the nearer bound, so that it reads as that bound: is it a code for a missing or unknown value "
        f"(such as 99, 999 or -1)? {_READ_THE_ROWS.format(what='bounds')}; if the value is a code, {fix}",
        OutOfBoundsWarning)


def _category_text(name: str, category: object) -> str:
    """A category as the text cells are compared to: a string as it is, an integer (not a bool) as its decimal
    text, as ``str`` gives an integer cell's (an InputError beyond the digits Python writes as text); anything else
    an InputError (a float's text depends on how it was written: 3.0, 3., 3e0)."""
    if isinstance(category, str):
        if unpaired_surrogate(category) is not None:  # no file, report or CSV can write it
            raise InputError(f"column {name!r}: a category holds text that is not valid Unicode (a lone surrogate: a "
                             "byte that is not UTF-8 in a command-line argument reads as one); write the category "
                             "in UTF-8")
        return category
    if isinstance(category, numbers.Integral) and not isinstance(category, bool):
        try:
            return str(int(category))
        except ValueError:  # more digits than Python writes as text (a bare ValueError)
            raise InputError(f"column {name!r}: an integer category has more than {sys.get_int_max_str_digits():,} "
                             "digits, more than Python writes as text (the text cells are compared to); declare "
                             "it as a string or a shorter code") from None
    fix = (f": a boolean cell is compared as its text, so declare it as {str(category)!r}"
           if isinstance(category, (bool, np.bool_)) else "")
    raise InputError(f"column {name!r}: categories must be a non-empty list of strings (or integer codes), got "
                     f"{type(category).__name__} {category!r}{fix}")


def _reject_unknown_keys(what: str, data: Mapping[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise InputError(f"{what}: unknown keys {unknown}; allowed: {sorted(allowed)}")
