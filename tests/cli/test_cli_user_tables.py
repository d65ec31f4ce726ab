"""A user's own CSV file as it comes: a label spelt several ways, a repeated column name, numbers written with
thousands separators or units. Each is refused with advice that fits the case, never a cell's value."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from csv_files import write

from dpcvx.cli import main
from dpcvx.exceptions import UndeclaredCategoryWarning
from dpcvx.tables import NEAR_SPELLING
from dpcvx.validation import MISSING_ADVICE

COLUMNS = ["--numeric", "x:0:1", "--epsilon", "1", "--data-norm", "1"]


def fit(tmp_path, capsys, data, *options):
    code = main(["fit", data, "--target", "label", *options, *COLUMNS, "--out", str(tmp_path / "m.json"),
                 "--overwrite"])  # each fit replaces the last one's model
    return code, capsys.readouterr().err


@pytest.fixture
def spelt(tmp_path):
    """Labels as typed by hand: 'Yes', ' yes ', 'YES' and 'No', 'no'."""
    labels = ["Yes", "No", " yes ", "no", "YES", "No", "Yes", "No"] * 10
    return write(tmp_path / "spelt.csv", ["x", "label"], [[i / 80, label] for i, label in enumerate(labels)])


def test_one_vs_rest_warns_of_a_positive_label_in_another_case(tmp_path, capsys, spelt):
    """Without --negative every other value is negative: 'yes' and 'YES' become negatives, and the user is told (NOT
    PRIVATE). It was a refusal, decided by one record: one label 'a' against --positive A refused the fit, 'Q' was
    released (an attacker probe, sixtieth session)."""
    with pytest.warns(UndeclaredCategoryWarning) as record:
        code, err = fit(tmp_path, capsys, spelt, "--positive", "Yes")
    assert code == 0, err
    told = " ".join(str(warning.message) for warning in record)
    assert ("in column 'label', 20 row(s) hold a label that differs from a --positive value only in letter case"
            in told)
    assert "NOT PRIVATE" in told and "--positive is repeatable" in told and "--others-negative" in told
    # the near spellings are named, with the fix written with them (a warning to the data owner: session 71, P8 F1)
    assert "'yes', 'YES'" in told and "--positive Yes --positive yes --positive YES" in told
    assert "row 2" not in told and (tmp_path / "m.json").exists()


def test_every_spelling_given_or_others_negative_fits(tmp_path, capsys, spelt):
    assert fit(tmp_path, capsys, spelt, "--positive", "Yes", "--positive", "yes", "--positive", "YES")[0] == 0
    assert fit(tmp_path, capsys, spelt, "--positive", "Yes", "--others-negative")[0] == 0


def test_declared_pair_counts_the_case_variants(tmp_path, capsys, spelt):
    code, err = fit(tmp_path, capsys, spelt, "--positive", "Yes", "--negative", "No")
    assert code == 3
    assert "30 row(s) of column 'label' (3 distinct value(s)) are neither --positive nor --negative" in err
    assert (f"(30 of them differ from a --positive or --negative value only in {NEAR_SPELLING}: "
            "normalise the column in the file first, or give each spelling of a class" in err)


def test_a_label_is_read_by_its_number(tmp_path, capsys):
    """Labels 0.0/1.0 (pandas writes an int column with a missing value as floats) with --positive 1 are the classes 1
    and 0: a label cell that writes a declared label's number another way is that label. It was negative, told in a
    warning; a Parquet label column's text depends on its type, which every record sets, so one record's 2.5 made
    every 1 read "1.0" and every record negative (an attacker probe, sixty-third session)."""
    import dpcvx

    floats = write(tmp_path / "floats.csv", ["x", "label"], [[i / 80, "1.0" if i % 3 else "0.0"] for i in range(60)])
    ints = write(tmp_path / "ints.csv", ["x", "label"], [[i / 80, "1" if i % 3 else "0"] for i in range(60)])
    fitted = {}
    for data in (floats, ints):
        for labels in (["--positive", "1"], ["--positive", "1", "--negative", "0"], ["--positive", "1.0"],
                       ["--positive", "01", "--negative", "+0"]):
            assert fit(tmp_path, capsys, data, *labels, "--random-state", "4") == (0, "")
            fitted.setdefault(len(labels), set()).add(tuple(dpcvx.load(tmp_path / "m.json").coef_))
    assert all(len(releases) == 1 for releases in fitted.values())  # the same release from either file


def test_labels_of_two_classes_that_write_one_number_are_refused(tmp_path, capsys):
    data = write(tmp_path / "d.csv", ["x", "label"], [[i / 80, str(i % 2)] for i in range(60)])
    for labels in (["--positive", "1", "--negative", "1.0"], ["--classes", "0,1,01"],
                   ["--positive", "1", "--positive", "2", "--negative", "02"], ["--positive", "true", "--negative",
                                                                                "True"]):
        code, err = fit(tmp_path, capsys, data, *labels)
        assert code == 2 and "write the same value" in err, err
    assert fit(tmp_path, capsys, data, "--positive", "1", "--positive", "1.0", "--negative", "0")[0] == 0


def test_one_label_record_of_a_parquet_file_never_changes_another_s(tmp_path, capsys):
    """A Parquet label column of 0/1 is integers; one record's 2.5 makes pandas write floats, one Decimal("2.5") makes
    pyarrow write decimals of one digit: the other records' labels are those of the integer column (whose last record
    is 2, negative as 2.5 is), so the releases are equal."""
    import decimal

    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    import dpcvx

    labels = [i % 2 for i in range(60)]
    tables = {"int": [*labels[:-1], 2], "float": [*labels[:-1], 2.5],  # the last record negative in each
              "decimal": [decimal.Decimal(label) for label in labels[:-1]] + [decimal.Decimal("2.5")]}
    released = {}
    for name, column in tables.items():
        path = tmp_path / f"{name}.parquet"
        pd.DataFrame({"x": [i / 80 for i in range(60)], "label": column}).to_parquet(path)
        assert fit(tmp_path, capsys, str(path), "--positive", "1", "--random-state", "2")[0] == 0
        released[name] = dpcvx.load(tmp_path / "m.json").coef_.tolist()
    assert released["float"] == released["decimal"] == released["int"]


def test_repeated_header_name_says_how_to_rename(tmp_path, capsys):
    data = write(tmp_path / "twice.csv", ["x", "x", "label"], [[0.1, 0.2, "a"], [0.3, 0.4, "b"]])
    code, err = fit(tmp_path, capsys, data, "--positive", "a")
    assert code == 3
    assert "repeats a column name at field(s) [2]: every column needs a name of its own" in err
    assert "--skip-lines 1 --no-header --names A,B,..." in err


@pytest.mark.parametrize("cell", ["1,250", "70 kg", "$5", "12%"])
def test_number_with_separator_or_unit_is_not_advised_categorical(tmp_path, capsys, cell):
    data = write(tmp_path / "units.csv", ["x", "label"], [["0.5", "a"], [cell, "b"]])
    code, err = fit(tmp_path, capsys, data, "--positive", "a")
    assert code == 3
    assert "numeric column 'x' holds a value that is not a number in row 1" in err
    assert "remove thousands separators, units and currency or percent signs first" in err
    assert "if the column holds codes or words, declare it categorical" in err


@pytest.mark.parametrize("separator", [";", "\t"])
def test_a_file_with_another_separator_is_named_as_such(tmp_path, capsys, separator):
    data = tmp_path / "semi.csv"
    data.write_text(separator.join(["x", "label"]) + "\n" + separator.join(["0,5", "a"]) + "\n")
    code, err = fit(tmp_path, capsys, str(data), "--positive", "a")
    assert code == 3
    assert "reads as a single column, so it has none of the columns ['x', 'label']" in err
    assert "dpcvx reads comma-separated values" in err
    # the conversion reads the file's own separator (a second analyst probe: a tab file was told sep=';')
    assert ("sep=';', decimal=','" in err) == (separator == ";") and ("sep='\\t')" in err) == (separator == "\t")


def test_a_regression_target_with_separators_is_counted_and_advised(tmp_path, capsys):
    data = write(tmp_path / "cost.csv", ["x", "cost"], [["0.1", "250"], ["0.2", "1,250"], ["0.3", "$5"], ["0.4", "9"]])
    code = main(["fit", data, "--target", "cost", "--task", "regression", "--label-bound", "0,2000", "--delta", "1e-6",
                 *COLUMNS, "--out", str(tmp_path / "m.json")])
    err = capsys.readouterr().err
    assert code == 3
    assert "2 row(s) of column 'cost' hold a value that is not a number, the first in row 1" in err
    assert "remove thousands separators, units and currency or percent signs first" in err
    assert "1,250" not in err.split("(\"1,250\"")[0]  # the cell is never shown (the advice's example aside)


def test_a_regression_target_without_a_value_is_refused_in_the_python_api_s_words(tmp_path, capsys):
    data = write(tmp_path / "cost.csv", ["x", "cost"], [["0.1", "250"], ["0.2", ""]])
    code = main(["fit", data, "--target", "cost", "--task", "regression", "--label-bound", "0,2000", "--delta", "1e-6",
                 *COLUMNS, "--out", str(tmp_path / "m.json")])
    err = capsys.readouterr().err
    assert code == 3 and "column 'cost' holds missing values (an empty cell or '?', or text that spells" in err
    assert "first at row 1" in err
    assert err.rstrip("\n").endswith("(1 such row); " + MISSING_ADVICE)  # validation.missing_refusal's


@pytest.mark.slow  # about 3 s: the default run on a bare clone must stay within 5 minutes
def test_a_note_on_the_rows_is_one_line_and_not_an_error_under_python_w_error(tmp_path):
    """python -W error: a warning raised before the charge (a code outside a column's bounds) printed a traceback and
    exited 1, a status the table gives to bugs; then it was one line and exit 3, nothing written: a refusal decided
    by the rows (docs/theory.md, section 30, "Warnings under a filter"). The note is shown, one line, and the model
    is written."""
    rows = [[999 if i % 10 == 0 else 20 + i % 60, "yes" if i % 3 else "no"] for i in range(400)]
    data = write(tmp_path / "coded.csv", ["age", "label"], rows)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "OPENBLAS_NUM_THREADS": "1"}
    result = subprocess.run([sys.executable, "-W", "error", "-m", "dpcvx", "fit", data, "--target", "label",
                             "--positive", "yes", "--numeric", "age:18:90", "--epsilon", "1", "--data-norm", "1",
                             "--out", str(tmp_path / "m.json")], capture_output=True, text=True, timeout=300, env=env)
    notes = [line for line in result.stderr.splitlines() if "column 'age'" in line]
    assert result.returncode == 0 and len(notes) == 1
    assert notes[0].startswith("dpcvx: warning: OutOfBoundsWarning: column 'age'")
    assert (tmp_path / "m.json").exists()


@pytest.mark.parametrize("skip", [3, 4, 5000])
def test_skip_lines_past_the_end_of_the_file_says_so(tmp_path, capsys, skip):
    """--skip-lines beyond the end (or exactly at it) reported "t.csv is empty; it needs a header row": the file is
    not empty, the skip read all of it."""
    data = write(tmp_path / "t.csv", ["x", "label"], [[0.1, "a"], [0.2, "b"]])  # 3 lines
    code, err = fit(tmp_path, capsys, data, "--positive", "a", "--skip-lines", str(skip))
    assert code == 3
    assert f"t.csv: --skip-lines {skip} passes the end of the file, which has 3 line(s); nothing is left to read" in err
    assert "is empty" not in err


def test_a_parquet_flag_label_is_the_class_of_its_number(tmp_path, capsys):
    """A Parquet label column of booleans with --positive 1: every row was negative ("True" is no "1"), a constant
    classifier (a third attacker probe, sixty-third session); True is 1, as pyarrow reads 1 as true in a flag column."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    import dpcvx

    path = tmp_path / "flags.parquet"
    pd.DataFrame({"x": [i / 80 for i in range(60)], "label": [i % 3 > 0 for i in range(60)]}).to_parquet(path)
    released = []
    for positive in ("1", "true", "True"):
        assert fit(tmp_path, capsys, str(path), "--positive", positive, "--random-state", "3") == (0, "")
        released.append(dpcvx.load(tmp_path / "m.json").coef_.tolist())
    assert released[0] == released[1] == released[2]


def test_a_blank_categorical_cell_is_told_the_command_line_s_way_to_declare_its_category(tmp_path, capsys):
    """A blank cell in a --categorical column that declares no missing-value category: the UndeclaredCategoryWarning
    named the Python parameter CategoricalColumn(..., missing='?'), which no flag sets (--categorical 'q:1,2,' is
    refused, and a '?' listed there is a category of its own, never a blank cell's: an analyst probe, session 63). On
    the command line it names the --schema file's "missing"; Python's text is unchanged."""
    rows = [[i / 80, ["1", "2", ""][i % 3], i % 2] for i in range(80)]
    data = write(tmp_path / "blank.csv", ["x", "q", "label"], rows)
    with pytest.warns(UndeclaredCategoryWarning) as record:
        code, err = fit(tmp_path, capsys, data, "--categorical", "q:1,2,?", "--positive", "1")
    assert code == 0, err
    (told,) = [str(w.message) for w in record if "declares no missing-value category" in str(w.message)]
    assert 'in a --schema SCHEMA.json file: the column\'s "missing": "?"' in told, told
    assert "CategoricalColumn" not in told and "missing='?'" not in told, told


@pytest.mark.parametrize("null", ["NA", "NaN", "-nan(ind)"])
def test_a_label_that_spells_a_missing_value_is_one_whatever_the_other_labels(tmp_path, capsys, null):
    """A Parquet label column pyarrow made from a CSV of 1, 0 and NA holds nulls (refused); one label "x" made it text,
    and the NA rows were released as negatives (an attacker probe, sixty-fourth session). Such a cell is a missing
    label either way; --positive or --negative cannot name it (session 65: refused before any file is read)."""
    pa = pytest.importorskip("pyarrow")
    pa_csv = pytest.importorskip("pyarrow.csv")
    pq = pytest.importorskip("pyarrow.parquet")
    codes = []
    for last in ("1", "x"):
        source = tmp_path / f"{last}.csv"
        source.write_text("x,label\n" + "".join(f"{i / 80},{['1', '0', null][i % 3]}\n" for i in range(60))
                          + f"0.5,{last}\n")
        path = tmp_path / f"{last}.parquet"
        pq.write_table(pa_csv.read_csv(source), path)
        code, err = fit(tmp_path, capsys, str(path), "--positive", "1")
        codes.append(code)
        assert "missing values" in err
    assert codes == [3, 3]
    assert pa is not None
