"""`dpcvx fit --missing-code NAME=VALUE`: a number that stands for a missing value in one numeric column only (analyst
probe P7, finding 5, session 71). ``--missing 999`` reads 999 as missing in every numeric column: on a bank table where
only ``pdays`` codes "never contacted" as 999, a call of 999 seconds in ``duration`` was refused as missing, and the
error advised imputing it (``--impute duration=VALUE``), which replaces real values. The per-column form is the schema
file's ``missing_codes``; the command line now has it too, and the ``--missing`` error names it."""

from __future__ import annotations

import json

import pytest
from csv_files import write

from dpcvx.cli import main

pytest.importorskip("pyarrow")

COLUMNS = ["--numeric", "duration:0:5000", "--numeric", "pdays:0:30", "--target", "y", "--positive", "yes",
           "--epsilon", "1", "--data-norm", "1", "--random-state", "3", "--no-column-statistics"]


def bank(tmp_path, name="bank.csv", pdays_code="999", duration_999="999"):
    """600 records: ``pdays`` is 999 ("never") in two of three, ``duration`` is a real 999 seconds in every tenth."""
    rows = [[duration_999 if i % 10 == 0 else str(37 * i % 3000), pdays_code if i % 3 else str(i % 31),
             "yes" if i % 4 == 0 else "no"] for i in range(600)]
    return write(tmp_path / name, ["duration", "pdays", "y"], rows)


def fit(tmp_path, capsys, data, *options):
    code = main(["fit", data, *COLUMNS, *options, "--out", str(tmp_path / "m.json"), "--overwrite"])
    err = capsys.readouterr().err
    model = json.loads((tmp_path / "m.json").read_text()) if code == 0 else None
    return code, err, model


def test_a_code_for_one_column_leaves_another_columns_real_value_alone(tmp_path, capsys):
    code, err, model = fit(tmp_path, capsys, bank(tmp_path), "--missing-code", "pdays=999", "--impute", "pdays=30")
    assert code == 0, err
    duration, pdays = model["preprocessing"]["schema"]["columns"]
    assert pdays["missing_codes"] == [999.0] and pdays["missing"] == 30.0
    assert "missing_codes" not in duration and "missing" not in duration
    # pdays' 999 is read as its imputed value: the same release as the file with those cells empty
    blank = bank(tmp_path, "blank.csv", pdays_code="")
    assert fit(tmp_path, capsys, blank, "--impute", "pdays=30")[2]["privatised"] == model["privatised"]
    # duration's 999 is a value: another value there is another release (same noise draw)
    other = bank(tmp_path, "other.csv", duration_999="0")
    assert fit(tmp_path, capsys, other, "--missing-code", "pdays=999", "--impute", "pdays=30")[2]["privatised"] \
        != model["privatised"]


def test_predict_reads_the_column_code_as_fit_did(tmp_path, capsys):
    data = bank(tmp_path)
    assert fit(tmp_path, capsys, data, "--missing-code", "pdays=999", "--impute", "pdays=30")[0] == 0

    def predicted(path):
        out = tmp_path / "p.csv"
        assert main(["predict", str(tmp_path / "m.json"), path, "--out", str(out), "--overwrite"]) == 0
        capsys.readouterr()
        return out.read_text()

    assert predicted(data) == predicted(bank(tmp_path, "blank.csv", pdays_code=""))


def test_the_missing_error_names_the_per_column_form(tmp_path, capsys):
    code, err, _ = fit(tmp_path, capsys, bank(tmp_path), "--missing", "999", "--impute", "pdays=30")
    assert code == 3
    assert "numeric column 'duration' has 61 missing value(s) (--missing)" in err  # 60 every tenth, 37 * 27 = 999
    assert "--missing-code COLUMN=VALUE instead of --missing" in err


@pytest.mark.parametrize(("options", "message"), [
    (["--missing-code", "pday=999", "--impute", "pdays=30"], "--missing-code names ['pday'], which are not numeric"),
    (["--missing-code", "pdays=999"], "give it --impute pdays=VALUE"),
    (["--missing-code", "pdays", "--impute", "pdays=30"], "expected NAME=VALUE with a public number"),
    (["--missing-code", "pdays=never", "--impute", "pdays=30"], "expected NAME=VALUE with a public number"),
])
def test_a_bad_column_code_is_a_usage_error_before_the_file_is_read(tmp_path, capsys, options, message):
    code, err, _ = fit(tmp_path, capsys, str(tmp_path / "absent.csv"), *options)
    assert code == 2, err
    assert message in err
