"""The typed data path (issue 43): CSV and Parquet through pyarrow's typed columns when pyarrow is installed,
the standard-library reader as the fallback with the same errors, and one schema encoding both to the same rows."""

from __future__ import annotations

import gzip
import re
import sys

import numpy as np
import pytest

from dpcvx import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.data.csv_table import Layout, read_table_columns, table_chunks
from dpcvx.exceptions import InputError

pa = pytest.importorskip("pyarrow")

SCHEMA = PublicSchema((NumericColumn("age", 0, 100, missing=0.0), CategoricalColumn("code", ("01", "2", "?"),
                                                                                     missing="?"),
                       NumericColumn("hours", 0, 80), CategoricalColumn("job", ("a b", "c"))))
COLUMNS = SCHEMA.column_names + ("y",)
CSV = ("age,code,hours,job,y\n"
       "30, 01,40, a b,1\n"
       ",2,12.5,c,0\n"
       "  ,?,80,c,1\n"
       "45,01, 7 ,x,0\n")


def _read(path, **options):
    return read_table_columns(path, COLUMNS, label="y", **options)


def _without_pyarrow(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.csv", None)


@pytest.fixture
def csv_path(tmp_path):
    path = tmp_path / "data.csv"
    path.write_text(CSV)
    return path


def test_numeric_columns_come_typed_and_text_columns_as_read(csv_path):
    typed = _read(csv_path, numeric=SCHEMA.numeric_names)
    assert typed["age"].dtype == np.float64 and typed["hours"].dtype == np.float64
    assert np.isnan(typed["age"][1])
    assert typed["code"].tolist() == ["01", "2", "?", "01"]  # text is never inferred as numbers
    assert typed["job"].tolist() == ["a b", "c", "c", "x"]  # surrounding whitespace removed, as the text reader
    assert typed["y"].tolist() == ["1", "0", "1", "0"]


def test_both_readers_encode_to_the_same_rows(csv_path, monkeypatch):
    typed = SCHEMA.transform(_read(csv_path, numeric=SCHEMA.numeric_names))
    text = SCHEMA.transform(_read(csv_path))  # no numeric columns: every cell as text
    np.testing.assert_array_equal(typed, text)
    _without_pyarrow(monkeypatch)
    fallback = _read(csv_path, numeric=SCHEMA.numeric_names)
    assert fallback["age"].dtype.kind == "U"
    np.testing.assert_array_equal(SCHEMA.transform(fallback), typed)


def test_a_gzip_file_is_read_typed(csv_path, tmp_path):
    packed = tmp_path / "data.csv.gz"
    packed.write_bytes(gzip.compress(CSV.encode()))
    np.testing.assert_array_equal(SCHEMA.transform(_read(packed, numeric=SCHEMA.numeric_names)),
                                  SCHEMA.transform(_read(csv_path)))


def test_a_numeric_column_with_text_falls_back_to_the_same_encoding(tmp_path):
    path = tmp_path / "odd.csv"
    path.write_text("age,code,hours,job,y\n1_000,1,true,c,0\n")  # Python reads 1_000; 'true' is no number
    with pytest.raises(InputError) as typed:
        SCHEMA.transform(_read(path, numeric=SCHEMA.numeric_names))
    with pytest.raises(InputError) as text:
        SCHEMA.transform(_read(path))
    assert str(typed.value) == str(text.value)


@pytest.mark.parametrize("content", [
    "",
    "age,code,hours,job,y\n",
    "age,code,hours,job,y\n30,01,40,c,1\n31,01,c,1\n",
    "age,age,hours,job,y\n1,2,3,c,1\n",
    "age,code,hours,y\n1,2,3,1\n",
])
def test_a_malformed_file_gets_the_same_error_from_both_readers(tmp_path, monkeypatch, content):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(InputError) as typed:
        _read(path, numeric=SCHEMA.numeric_names)
    _without_pyarrow(monkeypatch)
    with pytest.raises(InputError) as text:
        _read(path, numeric=SCHEMA.numeric_names)
    assert str(typed.value) == str(text.value)


def test_a_file_without_a_header_and_with_skipped_lines_is_read_typed(tmp_path):
    path = tmp_path / "noheader.csv"
    path.write_text("a title line\n" + CSV.split("\n", 1)[1])
    layout = Layout(names=COLUMNS, skip_lines=1)
    typed = read_table_columns(path, COLUMNS, layout, label="y", numeric=SCHEMA.numeric_names)
    assert typed["hours"].dtype == np.float64
    np.testing.assert_array_equal(SCHEMA.transform(typed),
                                  SCHEMA.transform(read_table_columns(path, COLUMNS, layout, label="y")))


def test_parquet_numbers_come_typed_and_encode_as_their_text_did(tmp_path):
    parquet = pytest.importorskip("pyarrow.parquet")
    table = pa.table({"age": pa.array([30, None, 45], pa.int64()), "code": pa.array([1, 1, 1]),
                      "hours": [40.0, 12.5, 7.0], "job": ["c", None, "a b"], "y": ["1", "0", "1"]})
    schema = PublicSchema((NumericColumn("age", 0, 100, missing=0.0), CategoricalColumn("code", ("1", "2")),
                           NumericColumn("hours", 0, 80), CategoricalColumn("job", ("a b", "c"))))
    path = tmp_path / "data.parquet"
    parquet.write_table(table, path)
    typed = read_table_columns(path, COLUMNS, label="y", numeric=schema.numeric_names)
    assert typed["age"].dtype == np.float64 and np.isnan(typed["age"][1])
    assert typed["code"].tolist() == ["1", "1", "1"]  # an integer column declared categorical: its text
    assert typed["job"].tolist() == ["c", "", "a b"]
    text = read_table_columns(path, COLUMNS, label="y")
    assert text["age"].tolist() == ["30", "", "45"]
    np.testing.assert_array_equal(schema.transform(typed), schema.transform(text))
    chunks = list(table_chunks(path, COLUMNS, label="y", chunk_rows=2, numeric=schema.numeric_names))
    np.testing.assert_array_equal(np.vstack([schema.transform(chunk) for chunk in chunks]), schema.transform(typed))


def test_skipping_more_lines_than_the_file_has_ends_at_its_end(csv_path):
    with pytest.raises(InputError, match=r"--skip-lines 10{30} passes the end of the file, which has \d+ line\(s\)"):
        read_table_columns(csv_path, COLUMNS, Layout(names=COLUMNS, skip_lines=10**30), label="y",
                           numeric=SCHEMA.numeric_names)


def _lines(count, bad=None):
    """A header and ``count`` records of the schema's columns; record ``bad`` (if given) replaced by its text."""
    rows = [f"{i % 90},{'01' if i % 2 else '?'},{i % 80}.5,{'c' if i % 3 else ' a b'},{i % 2}" for i in range(count)]
    if bad is not None:
        rows[bad[0]] = bad[1]
    return "age,code,hours,job,y\n" + "\n".join(rows) + "\n"


def _chunks(path, monkeypatch=None, **options):
    if monkeypatch is not None:
        _without_pyarrow(monkeypatch)
    return list(table_chunks(path, COLUMNS, label="y", numeric=SCHEMA.numeric_names, **options))


def test_a_stream_comes_typed_in_chunks_of_the_requested_records(tmp_path, monkeypatch):
    path = tmp_path / "long.csv"
    path.write_text(_lines(5_000))
    streamed = _chunks(path, chunk_rows=1_000)
    assert [len(chunk["y"]) for chunk in streamed] == [1_000] * 5
    assert all(chunk["age"].dtype == np.float64 for chunk in streamed)
    whole = SCHEMA.transform(_read(path, numeric=SCHEMA.numeric_names))
    np.testing.assert_array_equal(np.vstack([SCHEMA.transform(chunk) for chunk in streamed]), whole)
    text = _chunks(path, monkeypatch, chunk_rows=1_000)
    assert text[0]["age"].dtype.kind == "U"
    np.testing.assert_array_equal(np.vstack([SCHEMA.transform(chunk) for chunk in text]), whole)


@pytest.mark.slow
@pytest.mark.parametrize("bad", [(90_000, "1,2,3"), (90_000, "   "), (90_000, '1,01,2,"c\nd",1'),
                                 (90_000, "?,01,1,c,0"), (99_999, "1,01,2,c,1,9")])
def test_a_stream_reads_on_by_the_standard_reader_from_the_first_refused_record(tmp_path, monkeypatch, bad):
    """A record after the first chunks that pyarrow refuses (a short row, a blank line, a quoted line break, a
    long last row) or reads as text (a non-number in a numeric column): the standard reader reads on from it
    and gives the text reader's chunks and rows, or its error. (1.7 MB: pyarrow reads blocks of 1 MB.)"""
    path = tmp_path / "late.csv"
    path.write_text(_lines(100_000, bad))
    outcomes = []
    for patch in (None, monkeypatch):
        try:
            chunks = _chunks(path, patch, chunk_rows=20_000)
            outcomes.append(([len(chunk["y"]) for chunk in chunks], chunks))
        except InputError as error:
            outcomes.append((str(error), None))
    (typed_sizes, typed), (text_sizes, text) = outcomes
    assert typed_sizes == text_sizes
    if text is not None:
        assert typed[0]["age"].dtype == np.float64  # pyarrow read the first chunks
        for ours, theirs in zip(typed, text, strict=True):
            try:
                np.testing.assert_array_equal(SCHEMA.transform(ours), SCHEMA.transform(theirs))
            except InputError as error:
                with pytest.raises(InputError, match="^" + re.escape(str(error)) + "$"):
                    SCHEMA.transform(theirs)


@pytest.mark.parametrize("chunk_rows", [None, 2])
def test_a_field_quoted_after_the_spaces_of_the_separator_is_read_as_the_standard_reader_reads_it(
        tmp_path, monkeypatch, chunk_rows):
    """UCI's files write ", " between fields; pyarrow, which has no skipinitialspace, kept the quotes of a field quoted
    after those spaces (' "c"' read as '"c"', an unknown category), where the standard reader strips them: 10% of such
    cells gave another model without a word (an audit of the command line on user files)."""
    path = tmp_path / "spaced.csv"
    path.write_text('age, code, hours, job, y\n30, 01, 40, "a b", 1\n12, 1, 12.5, c, 0\n45, "01", 7, "c", 0\n')

    def read():
        if chunk_rows is None:
            return _read(path, numeric=SCHEMA.numeric_names)
        chunks = list(table_chunks(path, COLUMNS, label="y", chunk_rows=chunk_rows, numeric=SCHEMA.numeric_names))
        return {name: np.concatenate([chunk[name] for chunk in chunks]) for name in COLUMNS}

    arrow = read()
    assert arrow["job"].tolist() == ["a b", "c", "c"] and arrow["code"].tolist() == ["01", "1", "01"]
    _without_pyarrow(monkeypatch)
    np.testing.assert_array_equal(SCHEMA.transform(read()), SCHEMA.transform(arrow))
