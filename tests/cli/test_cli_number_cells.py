"""dpcvx fit reads a number in a CSV cell by one grammar (dpcvx.tables.NUMBER_TEXT), whichever reader reads the file
(pyarrow whole or by chunks, the standard csv module): "1_000", other scripts' digits, "nan" and "inf" are not
numbers, in a feature column or the regression target (where "nan", as "NA", is a record without a label:
test_cli_reader_rules); pyarrow imputed a "nan" cell as a missing value (--impute)
and read "0x10" as 16, the standard reader read "1_000" as 1000. A hexadecimal integer or a flag is the number pyarrow
makes of it in a column of numbers, by every reader (session 65). A header that repeats a name refuses the fit only
when a column the fit reads has it."""

from __future__ import annotations

import json
import sys

import pytest
from csv_files import write

from dpcvx.cli import main

pytest.importorskip("pyarrow")

FEATURES = ["--numeric", "x:0:2000", "--epsilon", "1", "--data-norm", "1"]
READERS = {"pyarrow": [], "chunks": ["--chunk-rows", "1000"], "csv": []}


def fit(tmp_path, capsys, monkeypatch, reader, data, *options):
    if reader == "csv":
        monkeypatch.setitem(sys.modules, "pyarrow", None)
        monkeypatch.setitem(sys.modules, "pyarrow.csv", None)
    # each fit replaces the last one's model (a test fits again to compare)
    code = main(["fit", data, *options, *READERS[reader], "--out", str(tmp_path / "m.json"), "--overwrite"])
    return code, capsys.readouterr().err


def table(tmp_path, cell, row=1100):
    """1,200 rows (two chunks of --chunk-rows 1000), ``cell`` in row 1100."""
    rows = [[str(i), "yes" if i % 2 else "no"] for i in range(1200)]
    rows[row][0] = cell
    return write(tmp_path / "d.csv", ["x", "label"], rows)


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("cell", ["1_000", "\u0661\u0662", "-inf"])
def test_a_feature_cell_out_of_the_grammar_is_refused_by_every_reader(tmp_path, capsys, monkeypatch, reader, cell):
    code, err = fit(tmp_path, capsys, monkeypatch, reader, table(tmp_path, cell), "--target", "label",
                    "--positive", "yes", "--impute", "x=0", *FEATURES)
    assert code == 3, err
    assert "numeric column 'x' holds a value that is not a number in row 1100" in err
    assert "ASCII digits with an optional sign, decimal point and exponent" in err
    assert cell not in err.replace('"nan" and "inf"', "") and not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(("cell", "number"), [("0x10", "16"), (" TRUE ", "1")])
def test_a_hexadecimal_or_flag_cell_is_the_number_pyarrow_reads(tmp_path, capsys, monkeypatch, reader, cell, number):
    """pyarrow reads "0x10" as 16 and "true" as 1 in a column it types from every record, and keeps the text once
    one record is text: read as that number in text too (session 65), by every reader, the same model as its
    numeral's."""
    def model(written):
        code, err = fit(tmp_path, capsys, monkeypatch, reader, table(tmp_path, written), "--target", "label",
                        "--positive", "yes", "--impute", "x=0", "--random-state", "3", *FEATURES)
        assert code == 0, err
        return json.loads((tmp_path / "m.json").read_text())["privatised"]

    assert model(cell) == model(number)


@pytest.mark.parametrize("reader", READERS)
def test_a_nan_marker_declared_missing_is_imputed(tmp_path, capsys, monkeypatch, reader):
    code, err = fit(tmp_path, capsys, monkeypatch, reader, table(tmp_path, "nan"), "--target", "label",
                    "--positive", "yes", "--missing", "nan", "--impute", "x=0", *FEATURES)
    assert code == 0, err


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("code", ["99999", "-1", "2500.0"])
def test_a_number_declared_missing_is_imputed_in_a_column_read_as_numbers(tmp_path, capsys, monkeypatch, reader, code):
    """--missing 999 marked the text "999" in a column read as text, and nothing in a column the typed reader read
    as numbers: the code passed as a value, clipped onto the bound (an unknown age read as the oldest), silently. A
    declared code is now the model of an empty cell declared missing, by every reader."""
    def model(cell, marker):
        data = table(tmp_path, cell)
        code_, err = fit(tmp_path, capsys, monkeypatch, reader, data, "--target", "label", "--positive", "yes",
                         "--missing", marker, "--impute", "x=1000", "--random-state", "3", *FEATURES)
        assert code_ == 0, err
        return json.loads((tmp_path / "m.json").read_text())["privatised"]

    assert model(code, code) == model("", "")
    assert model(code, "NA") != model("", "")  # the code itself, not declared, is a value


@pytest.mark.parametrize("reader", READERS)
def test_the_grammar_fits_with_spaces_signs_and_exponents(tmp_path, capsys, monkeypatch, reader):
    code, err = fit(tmp_path, capsys, monkeypatch, reader, table(tmp_path, " +1.5e2 "), "--target", "label",
                    "--positive", "yes", *FEATURES)
    assert code == 0, err


@pytest.mark.parametrize("cell", ["1_000", "\uff19", "Infinity"])  # "nan" is a missing target (test_cli_reader_rules)
def test_a_regression_target_out_of_the_grammar_is_refused(tmp_path, capsys, monkeypatch, cell):
    rows = [[str(i / 10), str(i)] for i in range(10)]
    rows[3][1] = cell
    data = write(tmp_path / "cost.csv", ["x", "cost"], rows)
    code, err = fit(tmp_path, capsys, monkeypatch, "pyarrow", data, "--target", "cost", "--task", "regression",
                    "--label-bound", "0,2000", "--delta", "1e-6", *FEATURES)
    assert code == 3, err
    assert "1 row(s) of column 'cost' hold a value that is not a number, the first in row 3" in err


@pytest.mark.parametrize("reader", READERS)
def test_a_name_repeated_by_a_column_the_fit_does_not_read_is_no_matter(tmp_path, capsys, monkeypatch, reader):
    rows = [[str(i), "yes" if i % 2 else "no", "n1", "n2", "", ""] for i in range(12)]
    data = write(tmp_path / "notes.csv", ["x", "label", "notes", "notes", "", ""], rows)
    code, err = fit(tmp_path, capsys, monkeypatch, reader, data, "--target", "label", "--positive", "yes", *FEATURES)
    assert code == 0, err


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("repeated", ["x", "label"])
def test_a_name_repeated_by_a_column_the_fit_reads_is_refused(tmp_path, capsys, monkeypatch, reader, repeated):
    rows = [[str(i), "yes" if i % 2 else "no", "n", "1"] for i in range(12)]
    data = write(tmp_path / "twice.csv", ["x", "label", "notes", repeated], rows)
    code, err = fit(tmp_path, capsys, monkeypatch, reader, data, "--target", "label", "--positive", "yes", *FEATURES)
    assert code == 3
    assert "the header repeats a column name at field(s) [4]: every column needs a name of its own" in err


def test_a_parquet_float_target_with_nan_has_no_label(tmp_path, capsys, monkeypatch):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    cost = [float(i) for i in range(10)]
    cost[4] = float("nan")  # written as the text "nan", now not a number: a NaN is a missing value, as a null
    pq.write_table(pa.table({"x": [i / 10 for i in range(10)], "cost": cost}), tmp_path / "r.parquet")
    code, err = fit(tmp_path, capsys, monkeypatch, "pyarrow", str(tmp_path / "r.parquet"), "--target", "cost",
                    "--task", "regression", "--label-bound", "0,2000", "--delta", "1e-6", *FEATURES)
    assert code == 3 and "column 'cost' holds missing values (an empty cell, '?', a null or NaN, or text" in err
    assert "first at row 4" in err


def joined(tmp_path, header, rows, at):
    """Two CSV files joined with their header rows: ``header`` again before row ``at``."""
    return write(tmp_path / "joined.csv", header, rows[:at] + [header] + rows[at:])


@pytest.mark.parametrize("reader", READERS)
def test_a_header_row_repeated_in_the_columns_read_is_refused(tmp_path, capsys, monkeypatch, reader):
    # categorical features and a one-vs-rest label: the row was read as a record, an unknown category and a negative
    rows = [["Male" if i % 3 else "Female", "yes" if i % 2 else "no", "n"] for i in range(1200)]
    data = joined(tmp_path, ["sex", "label", "notes"], rows, 1100)
    code, err = fit(tmp_path, capsys, monkeypatch, reader, data, "--target", "label", "--positive", "yes",
                    "--categorical", "sex:Female,Male", "--epsilon", "1", "--data-norm", "1")
    assert code == 3, err
    assert "1 row(s) repeat the header (every column read holds its own name), the first is row 1100" in err
    assert "Remove the repeated header lines, keeping the first" in err and not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("reader", READERS)
def test_a_numeric_column_repeating_its_header_is_told_so(tmp_path, capsys, monkeypatch, reader):
    rows = [[str(i), "yes" if i % 2 else "no"] for i in range(1200)]
    code, err = fit(tmp_path, capsys, monkeypatch, reader, joined(tmp_path, ["x", "label"], rows, 1100),
                    "--target", "label", "--positive", "yes", *FEATURES)
    assert code == 3 and "repeat the header" in err and "row 1100" in err


def test_a_row_holding_some_names_only_is_a_record(tmp_path, capsys, monkeypatch):
    # the columns read decide: a row whose other columns hold data is a record ('sex' is a category here)
    rows = [["Male" if i % 3 else "Female", "yes" if i % 2 else "no", "n"] for i in range(40)]
    rows[7][0] = "sex"
    data = write(tmp_path / "d.csv", ["sex", "label", "notes"], rows)
    code, err = fit(tmp_path, capsys, monkeypatch, "pyarrow", data, "--target", "label", "--positive", "yes",
                    "--categorical", "sex:Female,Male,sex", "--epsilon", "1", "--data-norm", "1")
    assert code == 0, err


def test_a_numeric_column_on_the_log_scale_is_the_schema_file_s(tmp_path, capsys, monkeypatch):
    """--numeric NAME:LO:HI scaled linearly only: a heavy-tailed amount (NumericColumn(scale="log") in Python, a
    helper's table R^2 0.29 against 0.45) needed a schema file. NAME:LO:HI:log is that column."""
    from dpcvx import NumericColumn, PublicSchema

    data = table(tmp_path, "7")
    options = ["--target", "label", "--positive", "yes", "--epsilon", "1", "--random-state", "3"]
    PublicSchema((NumericColumn("x", 0, 2000, scale="log"),), norm=1.0).save(tmp_path / "schema.json")
    code, err = fit(tmp_path, capsys, monkeypatch, "pyarrow", data, *options, "--schema", str(tmp_path / "schema.json"))
    assert code == 0, err
    from_file = json.loads((tmp_path / "m.json").read_text())
    code, err = fit(tmp_path, capsys, monkeypatch, "pyarrow", data, *options, "--numeric", "x:0:2000:log",
                    "--data-norm", "1")
    assert code == 0, err
    given = json.loads((tmp_path / "m.json").read_text())
    assert given["privatised"] == from_file["privatised"]
    assert given["preprocessing"]["schema"]["columns"][0]["scale"] == "log"


@pytest.mark.parametrize("reader", READERS)
def test_predict_reads_a_code_declared_at_fit_as_fit_did(tmp_path, capsys, monkeypatch, reader):
    """The model file kept the imputed value but not the --missing texts: predict without --missing 99999 again read
    the code as a value clipped onto the bound (an unknown read as the largest), with a warning only. fit keeps a
    --missing text that is a number as a missing code of each numeric column with an imputed value; predict reads it
    as fit did, by every reader."""
    rows = [[str(i if i % 3 else 99999), "yes" if i % 2 else "no"] for i in range(1200)]
    data = write(tmp_path / "d.csv", ["x", "label"], rows)
    code, err = fit(tmp_path, capsys, monkeypatch, reader, data, "--target", "label", "--positive", "yes",
                    "--missing", "99999", "--missing", "NA", "--impute", "x=1000", "--random-state", "3", *FEATURES)
    assert code == 0, err
    column = json.loads((tmp_path / "m.json").read_text())["preprocessing"]["schema"]["columns"][0]
    assert column["missing_codes"] == [99999.0]  # a text that is no number ("NA") is no code

    def predicted(*options):
        out = tmp_path / "p.csv"
        assert main(["predict", str(tmp_path / "m.json"), data, *options, *READERS[reader], "--out", str(out),
                     "--overwrite"]) == 0
        capsys.readouterr()
        return out.read_text()

    blank = write(tmp_path / "b.csv", ["x", "label"], [["" if x == "99999" else x, y] for x, y in rows])
    with_flag = predicted("--missing", "99999")
    assert predicted() == with_flag
    data = blank
    assert predicted("--missing", "") == with_flag  # a code is predicted as a blank cell declared missing


@pytest.mark.parametrize("reader", READERS)
def test_predict_reads_a_text_declared_at_fit_as_fit_did(tmp_path, capsys, monkeypatch, reader):
    """The model file kept the imputed value but not a --missing text that is no number ("NA"): predict without
    --missing NA again refused the cell as not a number. fit keeps such a text as a missing text of each numeric column
    with an imputed value ("" and "?" are missing values already); predict reads it as fit did, by every reader, and
    a column without an imputed value keeps none."""
    rows = [[" NA " if i % 3 == 0 else str(i), str(i % 7), "yes" if i % 2 else "no"] for i in range(1200)]
    data = write(tmp_path / "d.csv", ["x", "z", "label"], rows)
    code, err = fit(tmp_path, capsys, monkeypatch, reader, data, "--target", "label", "--positive", "yes",
                    "--missing", "NA", "--missing", "", "--missing", "?", "--missing", "99999", "--impute", "x=1000",
                    "--numeric", "z:0:10", "--random-state", "3", *FEATURES)
    assert code == 0, err
    columns = json.loads((tmp_path / "m.json").read_text())["preprocessing"]["schema"]["columns"]
    x, z = sorted(columns, key=lambda column: column["name"])
    assert x["missing_texts"] == ["NA"] and x["missing_codes"] == [99999.0]
    assert "missing_texts" not in z and "missing" not in z

    def predicted(*options):
        out = tmp_path / "p.csv"
        code = main(["predict", str(tmp_path / "m.json"), data, *options, *READERS[reader], "--out", str(out),
                     "--overwrite"])
        assert code == 0, capsys.readouterr().err
        capsys.readouterr()
        return out.read_text()

    with_flag = predicted("--missing", "NA")
    assert predicted() == with_flag
    data = write(tmp_path / "b.csv", ["x", "z", "label"], [["" if x.strip() == "NA" else x, z, y] for x, z, y in rows])
    assert predicted() == with_flag  # a text is predicted as a blank cell is
