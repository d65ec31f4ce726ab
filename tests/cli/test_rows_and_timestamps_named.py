"""Analyst probe P2 (session 68, finding 7). A timestamp refused in a categorical column was advised its text,
.dt.strftime('%Y-%m-%d %Hh%M'): about one category per record, useless as a feature, where the numeric column's
refusal advised a number (the days since a public date). The refusals now lead with a public number derived from it
(the hour of day, the days since a public date) declared numeric (tables.timestamp_fix), in the command line's words
there. And the command line's messages that name a data row say which line of the file it is, right after the row
(Layout.rows_note, the one note of every such message): "row 0" was read as the header's line."""

import numpy as np
import pandas as pd
import pytest

from dpcvx import CategoricalColumn, PublicSchema
from dpcvx.cli import main
from dpcvx.data.csv_table import ROWS_NOTE, Layout
from dpcvx.exceptions import InputError

DERIVED = "derive a public number from it"


def _refusal(table) -> str:
    schema = PublicSchema((CategoricalColumn("t", ("a", "b")),))
    with pytest.raises(InputError) as refused:
        schema.transform(table)
    return str(refused.value)


@pytest.mark.parametrize("table", [
    pd.DataFrame({"t": pd.to_datetime(["2024-01-01 08:00", "2024-01-02 09:30"])}),  # a time of day, typed
    pd.DataFrame({"t": pd.to_datetime(["2024-01-01", "2024-01-02"]).tz_localize("UTC")}),  # a zoned column
    pd.DataFrame({"t": np.array([pd.Timestamp("2024-01-01", tz="UTC"), "a"], dtype=object)}),  # a zoned cell
], ids=["time-of-day", "zoned-column", "zoned-cell"])
def test_a_timestamp_refusal_leads_with_a_numeric_feature(table):
    said = _refusal(table)
    assert DERIVED in said and "hour of day (X[name].dt.hour, NumericColumn(name, 0, 23))" in said, said
    assert "days since a public date" in said and "declare it a NumericColumn with public bounds" in said, said
    assert said.index(DERIVED) < said.index(".dt.strftime("), said  # the number first, the text after


def _cli(capsys, *args) -> tuple[int, str]:
    try:
        code = main([str(arg) for arg in args])
    except SystemExit as exit_:
        code = exit_.code
    return code, capsys.readouterr().err


def _dates(path, skip: int = 0) -> None:
    lines = ["# a comment line"] * skip + ["t,x,y"] + [f"2024-01-{d:02d} {d:02d}:15,{d % 3},{d % 2}"
                                                          for d in range(1, 29)]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("skip", [0, 2])
def test_the_command_line_names_a_timestamps_row_by_its_line_and_advises_a_numeric_column(tmp_path, capsys, skip):
    data = tmp_path / "d.csv"
    _dates(data, skip)
    extra = ["--skip-lines", skip] if skip else []
    code, err = _cli(capsys, "fit", data, "--target", "y", "--positive", 1, "--categorical", "t:a,b",
                     "--numeric", "x:0:2", "--data-norm", 1, "--epsilon", 1, "--out", tmp_path / "m.json", *extra)
    assert code == 3 and not (tmp_path / "m.json").exists(), err
    note = Layout(None, skip).rows_note()
    assert f"holds a timestamp with a time of day in row 0 {note} (the value is not shown" in err, err
    assert "row 0 is the first line after the header" in note and f"line {2 + skip} of a CSV file" in note, note
    assert DERIVED in err and "--numeric NAME:LO:HI" in err and ".dt." not in err, err


def test_the_rows_note_gives_the_line_of_row_0_for_every_layout():
    assert Layout().rows_note() == ROWS_NOTE
    assert "row 0 is the first line after the header, line 2 of a CSV file, and row r line r + 2" in ROWS_NOTE
    headless = Layout(("a", "b"), 0).rows_note()
    assert "row 0 is the first record, line 1 of a CSV file, and row r line r + 1" in headless, headless
    skipped = Layout(("a", "b"), 3).rows_note()
    assert "(the first 3 line(s) of the file skipped), line 4 of a CSV file, and row r line r + 4" in skipped, skipped


def test_a_label_refusal_names_its_row_with_the_same_note(tmp_path, capsys):
    data = tmp_path / "gap.csv"
    data.write_text("x,y\n" + "".join(f"{i % 3},{'' if i == 4 else i % 2}\n" for i in range(30)))
    code, err = _cli(capsys, "fit", data, "--target", "y", "--positive", 1, "--numeric", "x:0:2",
                     "--data-norm", 1, "--epsilon", 1, "--out", tmp_path / "m.json")
    assert code == 3, err
    assert f"first at row 4 {ROWS_NOTE}" in err, err
