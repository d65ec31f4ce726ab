"""A wide table's names and column types are read once per table, not once per column (a sixty-sixth session probe:
``PublicSchema.transform`` of a 3,000-column pandas DataFrame took 11-30 s for ONE row, each column's read listing
every name and checking them for repeats). Timing-free: the reads are counted."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcvx import tables
from dpcvx.data.preprocessing import NumericColumn, PublicSchema

WIDTH = 200  # columns: a per-column read of every name shows as >= WIDTH reads


def _frame() -> pd.DataFrame:
    values = np.random.default_rng(0).integers(0, 2, (3, WIDTH))
    return pd.DataFrame(values, columns=[f"c{j}" for j in range(WIDTH)])


def _schema() -> PublicSchema:
    return PublicSchema(tuple(NumericColumn(f"c{j}", 0, 1) for j in range(WIDTH)))


def _table(library: str):
    frame = _frame()
    if library == "pandas":
        return frame
    if library == "pyarrow":
        pa = pytest.importorskip("pyarrow")
        return pa.Table.from_pandas(frame, preserve_index=False)
    if library == "polars":
        return pytest.importorskip("polars").from_pandas(frame)
    if library == "dict":
        return {name: frame[name].to_numpy() for name in frame.columns}
    return frame.to_records(index=False)  # a numpy structured array


def _counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    calls = [0]
    original = getattr(tables, name)

    def counted(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(tables, name, counted)
    return calls


@pytest.mark.parametrize("library", ["pandas", "pyarrow", "polars", "dict", "structured"])
def test_a_transform_reads_the_tables_names_and_types_a_few_times_whatever_its_width(library, monkeypatch):
    table = _table(library)
    expected = _schema().transform(_frame().to_numpy())  # a plain array: its columns read by position
    names, types = _counting(monkeypatch, "column_names"), _counting(monkeypatch, "column_dtypes")
    encoded = _schema().transform(table)
    assert names[0] <= 3 and types[0] <= 1, (names, types)  # was WIDTH + 1 reads of the names, WIDTH of the types
    np.testing.assert_array_equal(encoded, expected)


def test_a_pandas_transform_builds_the_frames_dtypes_a_few_times(monkeypatch):
    """Counted at pandas itself: each ``frame.dtypes`` builds a Series of every column's type (``frame.columns``
    is the frame's own index, which pandas reads at each column)."""
    frame, calls = _frame(), [0]
    original = pd.DataFrame.dtypes

    def read(self):
        calls[0] += 1
        return original.__get__(self)

    monkeypatch.setattr(pd.DataFrame, "dtypes", property(read))
    _schema().transform(frame)
    assert calls[0] <= 5, calls


@pytest.mark.parametrize("attribute", ["columns", "dtypes"])
def test_a_polars_transform_lists_the_frames_columns_and_dtypes_a_few_times(attribute, monkeypatch):
    """polars builds the list of every name (``columns``) or type (``dtypes``) at each read."""
    pl = pytest.importorskip("polars")
    frame, calls = pl.from_pandas(_frame()), [0]
    original = getattr(pl.DataFrame, attribute)

    def read(self):
        calls[0] += 1
        return original.__get__(self)

    monkeypatch.setattr(pl.DataFrame, attribute, property(read))
    _schema().transform(frame)
    assert calls[0] <= 5, calls


def test_a_tables_library_is_told_by_its_type_without_listing_its_names():
    """pyarrow's ``column_names`` builds the list of every name at each read, and the library of a table is asked
    at each column's read: so it is asked of the type."""
    listed = [0]

    class Table:  # pyarrow's Table as _library sees it: its module and a column_names attribute
        __module__ = "pyarrow.lib"

        @property
        def column_names(self):
            listed[0] += 1
            return []

    assert tables._library(Table()) == "pyarrow"
    assert listed[0] == 0


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_the_numeric_check_of_a_wide_table_reads_its_types_once(library, monkeypatch):
    """The estimators' reading of a table as a matrix (:func:`dpcvx.tables.table_matrix`, and the finite check
    before it) took each column's type from the list of all of them."""
    table = _table(library)
    types = _counting(monkeypatch, "column_dtypes")
    matrix = tables.table_matrix(table, "X")
    assert tables.finite_numbers(table)
    assert types[0] <= 2, types
    np.testing.assert_array_equal(matrix, np.asarray(_frame(), dtype=float))
