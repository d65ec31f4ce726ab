"""One grammar of a number written in a text cell (dpcvx.tables.NUMBER_TEXT): ASCII digits with an optional sign,
decimal point and exponent, surrounding whitespace ignored. Python's float() (and numpy's conversion of text, which
calls it) reads more: "1_000" as 1000 where "1,000" was refused, other scripts' digits ("١٢٣" as 123, full-width
digits), "nan" and "inf" in any case; pyarrow's CSV reader read "nan" as a missing value and "0x10" as 16. Every path
from a text cell to a number (a schema's numeric column as str, bytes or objects, a pandas or pyarrow text column, a
CSV or Parquet file's numeric column by either reader) now reads the same grammar and refuses the rest by its row;
a hexadecimal integer or a flag is read as the number pyarrow makes of it in a column of numbers (session 65:
pyarrow's type for the column depends on every record, dpcvx.tables.reader_number)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dpcvx import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.data.csv_table import read_table_columns
from dpcvx.data.parquet import typed_column
from dpcvx.exceptions import InputError
from dpcvx.tables import NUMBER_TEXT, parses_as_float, reader_number, text_numbers

#: Cells Python's float() reads as numbers that no CSV writer means as one.
NOT_PLAIN = ["1_000", "\u0661\u0662\u0663", "\uff11\uff12", "inf", "-Infinity", "INF", "\u0967\u0968"]
#: NaN's texts, which a reader of numbers reads as a missing value: one beside a declared imputed value
NAN_CELLS = ["nan", "NaN", "-nan"]
#: Cells of the grammar, with the number each is.
PLAIN = {"7": 7.0, "-0.5": -0.5, "+1.5": 1.5, ".5": 0.5, "5.": 5.0, "1e3": 1000.0, "1.5E-3": 0.0015,
         "007": 7.0, " 2 ": 2.0, "\t3\t": 3.0}

#: Cells near the grammar: its characters, "_", other scripts' digits, the letters of "nan" and "infinity", spaces.
CELLS = st.text(alphabet="0123456789+-.eE_x \t\u00a0\u0661\uff11infatyINFAY", max_size=8)


def _is_number(text):
    return NUMBER_TEXT.fullmatch(text.strip()) is not None


SCHEMA = PublicSchema((NumericColumn("x", 0.0, 10.0, missing=0.0), CategoricalColumn("c", ("a", "b"))), norm=2.0)


@given(CELLS)
@example("nan")
@example(" -Infinity ")
@example("1_0")
@example("\u0661")
@example("\uff11")
@example("0x10")
@example(" -0X1f ")
def test_the_array_reading_is_the_grammar(text):
    numbers, wrong = text_numbers(np.array([text], dtype=str))
    plain = NUMBER_TEXT.fullmatch(text.strip()) is not None
    spelled = reader_number(text)  # a hexadecimal integer (or a flag), as pyarrow reads it in a column of numbers
    expected = plain or spelled is not None
    assert wrong[0] == (not expected) and parses_as_float(text) == expected
    if expected:
        assert numbers[0] == (float(text.strip()) if plain else spelled)
    objects, wrong_objects = text_numbers(np.array([text, 1.5], dtype=object))
    assert wrong_objects.tolist() == [not expected, False] and objects[1] == 1.5


@given(CELLS)
@example("nan")
@example(" -Infinity ")
@example("1e400")
@example("0x10")
@example("1_0")
def test_pyarrow_reads_a_finite_number_exactly_by_the_grammar(text):
    pa = pytest.importorskip("pyarrow")
    numbers = typed_column(pa.chunked_array([[text, "1"]]), numeric=True, trim=True)
    if text.strip() == "" or _is_number(text) and np.isfinite(float(text)):
        assert numbers.dtype == np.float64 and numbers[1] == 1.0
        assert np.isnan(numbers[0]) if text.strip() == "" else numbers[0] == float(text)
    else:  # text: the schema's reading (text_numbers) names it
        assert numbers.tolist() == [text.strip(), "1"]


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet="0123456789+-.eE_x \u0661infatyINFAY", min_size=1, max_size=8))
@example("nan")
@example(" -Infinity ")
@example("1e400")
@example("0x10")
@example("1_0")
def test_pyarrow_reads_a_csv_numeric_column_exactly_by_the_grammar(tmp_path, text):
    pytest.importorskip("pyarrow")
    path = tmp_path / "d.csv"
    path.write_text(f"x,c\n1,a\n{text},b\n", encoding="utf-8")
    column = read_table_columns(path, ["x", "c"], numeric={"x"})["x"]
    if text.strip() == "" or _is_number(text) and np.isfinite(float(text)):
        assert column.dtype == np.float64 and (np.isnan(column[1]) if text.strip() == "" else column[1] == float(text))
    else:
        assert column.tolist() == ["1", text.strip()]


@pytest.mark.parametrize("cell", NOT_PLAIN)
@pytest.mark.parametrize("form", ["str", "bytes", "object"])
def test_a_schema_refuses_a_cell_float_reads_but_the_grammar_does_not(cell, form):
    cells = ["1", "2", cell] if form != "object" else [1.0, "2", cell]
    values = np.array([c.encode() if form == "bytes" and isinstance(c, str) else c for c in cells],
                      dtype={"str": str, "bytes": bytes, "object": object}[form])
    with pytest.raises(InputError) as error:
        SCHEMA.transform({"x": values, "c": np.array(["a", "b", "a"])})
    message = str(error.value)
    assert "numeric column 'x' holds a value that is not a number in row 2" in message
    assert "ASCII digits with an optional sign, decimal point and exponent" in message
    assert cell not in message.replace('an infinity ("inf")', "")  # the cell is never shown (the advice's words aside)


@pytest.mark.parametrize("cell", NAN_CELLS)
def test_a_nan_text_is_imputed_beside_a_declared_value_and_refused_without(cell):
    """pyarrow reads "nan" as NaN in a column of numbers (imputed) and keeps the text once one record is text, which
    was refused as no number: one record decided refusal or release (an attacker probe, sixty-fourth session)."""
    encoded = SCHEMA.transform({"x": np.array(["1", cell]), "c": np.array(["a", "b"])})
    np.testing.assert_array_equal(encoded, SCHEMA.transform({"x": np.array([1.0, np.nan]), "c": np.array(["a", "b"])}))
    bare = PublicSchema((NumericColumn("x", 0.0, 10.0),))
    for column in (np.array(["1", cell]), np.array([1.0, np.nan])):
        # a text spelling NaN leads with the imputed value that reads it (P3, session 67, finding 6)
        with pytest.raises(InputError, match="missing or non-finite value in row 1|"
                                             r"declare NumericColumn\('x', lo, hi, missing=VALUE\).*Row 1 "):
            bare.transform({"x": column})


def test_a_schema_reads_the_grammar_and_its_missing_values():
    cells = list(PLAIN) + ["", "?"]
    encoded = SCHEMA.transform({"x": np.array(cells, dtype=object), "c": np.array(["a"] * len(cells))})
    numbers = np.array(list(PLAIN.values()) + [0.0, 0.0])  # "" and "?": missing, the declared 0
    np.testing.assert_allclose(encoded[:, 0], np.clip(numbers, 0, 10) / 10 - 0.5)


def test_a_pandas_text_column_is_read_by_the_grammar():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"x": ["1", "1_000"], "c": ["a", "b"]})
    with pytest.raises(InputError, match="not a number in row 1"):
        SCHEMA.transform(frame)
    frame = pd.DataFrame({"x": ["1", np.nan], "c": ["a", "b"]})  # a NaN float: missing, as before
    assert SCHEMA.transform(frame)[1, 0] == -0.5


def test_a_pyarrow_text_column_is_read_by_the_grammar():
    pa = pytest.importorskip("pyarrow")
    with pytest.raises(InputError, match="not a number in row 1"):
        SCHEMA.transform(pa.table({"x": ["1", "\u0661"], "c": ["a", "b"]}))


@pytest.mark.parametrize("cell", ["inf", "1_000"])  # "0x10" is 16, as pyarrow reads it: test_one_reading_per_column
def test_both_csv_readers_read_a_numeric_column_by_the_grammar(tmp_path, monkeypatch, cell):
    pytest.importorskip("pyarrow")
    path = tmp_path / "d.csv"
    path.write_text(f"x,c\n1,a\n{cell},b\n")
    typed = read_table_columns(path, ["x", "c"], numeric={"x"})  # pyarrow: "nan" was NaN
    assert typed["x"].tolist() == ["1", cell]  # text: the schema names the cell that is not a number
    with pytest.raises(InputError, match="not a number in row 1"):
        SCHEMA.transform(typed)
    monkeypatch.setattr("dpcvx.data.csv_table._arrow_csv", lambda *args: None)  # the standard reader
    with pytest.raises(InputError, match="not a number in row 1"):
        SCHEMA.transform(read_table_columns(path, ["x", "c"], numeric={"x"}))


def test_a_csv_numeric_column_of_the_grammar_comes_as_numbers(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "d.csv"
    path.write_text("x,c\n 7 ,a\n1.5e-3,b\n,a\n")
    assert np.array_equal(read_table_columns(path, ["x", "c"], numeric={"x"})["x"], [7.0, 0.0015, np.nan],
                          equal_nan=True)


def test_a_parquet_text_column_is_read_by_the_grammar(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"x": ["1", "inf"], "c": ["a", "b"]}), path)
    table = read_table_columns(path, ["x", "c"], numeric={"x"})  # "inf" was read as infinity by pyarrow's cast
    assert table["x"].tolist() == ["1", "inf"]
    with pytest.raises(InputError, match="not a number in row 1"):
        SCHEMA.transform(table)
