"""One rule for a table's cells and names whichever reader reads the file (CSV whole or by chunks, Parquet, predict):
a probe of session 67 found a Parquet file that repeats a read column's name failing with a bare KeyError (exit 1)
where a CSV header was refused, and a regression target written NA refused as "not a number" with the advice of
--missing, where an empty cell or a Parquet null got the missing-label refusal."""

import sys

import pytest
from csv_files import write

from dpcvx.cli import main
from dpcvx.validation import MISSING_ADVICE

FEATURES = ["--numeric", "x:0:1", "--epsilon", "1", "--data-norm", "1"]


READERS = {"pyarrow": [], "chunks": ["--chunk-rows", "1000"], "csv": []}


def run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().err


def without_pyarrow(monkeypatch):
    """The standard csv module reads the file (pyarrow hidden)."""
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.csv", None)


def fit(tmp_path, capsys, data, *options):
    return run(capsys, "fit", str(data), *options, *FEATURES, "--out", str(tmp_path / "m.json"), "--overwrite")


def _parquet(path, names, columns):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table(columns, names=names), path)
    return path


@pytest.fixture
def columns():
    x = [i / 80 for i in range(80)]
    return x, ["yes" if i % 3 else "no" for i in range(80)]


@pytest.mark.parametrize("chunks", [(), ("--chunk-rows", "1000")])
def test_a_parquet_file_repeating_a_read_column_s_name_is_refused_as_a_csv_header_is(tmp_path, capsys, columns,
                                                                                    chunks):
    x, y = columns
    data = _parquet(tmp_path / "dup.parquet", ["x", "label", "x"], [x, y, x])
    code, err = fit(tmp_path, capsys, data, "--target", "label", "--positive", "yes", *chunks)
    assert code == 3, err
    assert "repeat a column name at field(s) [3]" in err and "Traceback" not in err
    csv = write(tmp_path / "dup.csv", ["x", "label", "x"], [[a, b, a] for a, b in zip(x, y, strict=True)])
    code, err = fit(tmp_path, capsys, csv, "--target", "label", "--positive", "yes", *chunks)
    assert code == 3 and "repeats a column name at field(s) [3]" in err, err
    assert not (tmp_path / "m.json").exists()


def test_a_parquet_file_repeating_the_label_s_name_is_refused(tmp_path, capsys, columns):
    x, y = columns
    data = _parquet(tmp_path / "dupy.parquet", ["x", "label", "label"], [x, y, y])
    code, err = fit(tmp_path, capsys, data, "--target", "label", "--positive", "yes")
    assert code == 3 and "repeat a column name at field(s) [3]" in err, err


def test_predict_refuses_a_parquet_file_repeating_a_read_column_s_name(tmp_path, capsys, columns):
    x, y = columns
    good = _parquet(tmp_path / "good.parquet", ["x", "label"], [x, y])
    assert fit(tmp_path, capsys, good, "--target", "label", "--positive", "yes")[0] == 0
    data = _parquet(tmp_path / "dup.parquet", ["x", "x"], [x, x])
    code, err = run(capsys, "predict", str(tmp_path / "m.json"), str(data), "--out", str(tmp_path / "p.csv"))
    assert code == 3 and "repeat a column name at field(s) [2]" in err, err


def test_a_repeated_name_of_a_column_not_read_is_accepted_in_both_formats(tmp_path, capsys, columns):
    x, y = columns
    data = _parquet(tmp_path / "notes.parquet", ["x", "label", "note", "note"], [x, y, y, y])
    assert fit(tmp_path, capsys, data, "--target", "label", "--positive", "yes")[0] == 0
    csv = write(tmp_path / "notes.csv", ["x", "label", "note", "note"], [[a, b, b, b] for a, b in zip(x, y,
                                                                                                     strict=True)])
    assert fit(tmp_path, capsys, csv, "--target", "label", "--positive", "yes")[0] == 0


REGRESSION = ["--target", "label", "--task", "regression", "--label-bound", "0,1", "--delta", "1e-6"]


@pytest.mark.parametrize("cell", ["NA", "NaN", "nan", "null", ""])
@pytest.mark.parametrize("reader", READERS)
def test_a_regression_target_spelling_a_missing_value_is_a_record_without_a_label(tmp_path, capsys, monkeypatch, cell,
                                                                                  reader):
    """Every spelling of a missing target, in every reader: the missing-label refusal, never "not a number" with the
    advice of --missing/--impute (which name feature columns only)."""
    rows = [[i / 80, i / 80] for i in range(80)]
    rows[5][1] = cell
    data = write(tmp_path / "t.csv", ["x", "label"], rows)
    if reader == "csv":
        without_pyarrow(monkeypatch)
    code, err = fit(tmp_path, capsys, data, *REGRESSION, *READERS[reader])
    assert code == 3, err
    assert "column 'label' holds missing values" in err and "first at row 5" in err and MISSING_ADVICE in err, err
    assert "--missing" not in err and "not a number" not in err


@pytest.mark.parametrize("reader", READERS)
def test_a_multiclass_label_spelling_a_missing_value_is_a_record_without_a_label(tmp_path, capsys, monkeypatch,
                                                                                 reader):
    if reader == "csv":
        without_pyarrow(monkeypatch)
    rows = [[i / 80, "abc"[i % 3]] for i in range(80)]
    rows[7][1] = "NA"
    data = write(tmp_path / "m.csv", ["x", "label"], rows)
    code, err = fit(tmp_path, capsys, data, "--target", "label", "--classes", "a,b,c", *READERS[reader])
    assert code == 3 and "column 'label' holds missing values" in err and "first at row 7" in err, err


def _latin1_file(path, row, column, rows=2000):
    """A table whose ``row`` holds one Latin-1 'é' (not UTF-8) in ``column`` (4: the unread 'notes')."""
    lines = [f"{i % 80 / 80},{'yes' if i % 3 else 'no'},n" for i in range(rows)]
    cells = lines[row].split(",")
    cells[column] = "caf\udce9"
    lines[row] = ",".join(cells)
    path.write_bytes(("x,label,notes\n" + "\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
    return path


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("row, column", [(3, 2), (1500, 2), (1500, 1)])
def test_a_byte_that_is_not_utf8_is_refused_wherever_it_is(tmp_path, capsys, monkeypatch, reader, row, column):
    """In a column read or not, near the top or 1,500 rows down: refused, naming the line of the file and the byte of
    that line (from 1); it was released when the byte lay in an unread column past the header's first ~8 KB."""
    data = _latin1_file(tmp_path / "t.csv", row, column)
    if reader == "csv":
        without_pyarrow(monkeypatch)
    code, err = fit(tmp_path, capsys, data, "--target", "label", "--positive", "yes", *READERS[reader])
    place = len(data.read_bytes().split(b"\n")[row + 1].split(b"\xe9")[0]) + 1
    assert code == 3 and f"is not UTF-8 text (line {row + 2}, byte {place} of that line" in err, err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("block", [1, 2, 3, 5, 7, 64])
def test_the_utf8_check_places_the_byte_across_blocks(tmp_path, monkeypatch, block):
    """The check reads by blocks: a valid character cut by a block's end is no error, and a bad byte's line and place
    are the file's (a gzip file's once decompressed)."""
    import gzip

    from dpcvx.data import csv_table
    from dpcvx.exceptions import FileError

    monkeypatch.setattr(csv_table, "_UTF8_BLOCK", block)
    good = "a,b\ncafé,ü€\n𝄞,x\n".encode()
    (tmp_path / "good.csv").write_bytes(good)
    csv_table._refuse_non_utf8(tmp_path / "good.csv")
    bad = good + b"ok,\xc3(\n"  # a lead byte without its continuation
    for name, content in (("bad.csv", bad), ("bad.csv.gz", gzip.compress(bad))):
        (tmp_path / name).write_bytes(content)
        with pytest.raises(FileError, match=r"line 4, byte 4 of that line"):
            csv_table._refuse_non_utf8(tmp_path / name)


def test_a_parquet_column_name_with_surrounding_spaces_is_matched_as_a_csv_header_s(tmp_path, capsys, columns):
    """' x' names the column x in a CSV header (its cells are stripped) and now in a Parquet file too: the same
    release; ' x' beside 'x' repeats the name in both."""
    import dpcvx

    x, y = columns
    released = []
    for data in (_parquet(tmp_path / "s.parquet", [" x ", "label"], [x, y]),
                 write(tmp_path / "s.csv", [" x ", "label"], [[a, b] for a, b in zip(x, y, strict=True)])):
        code, err = fit(tmp_path, capsys, data, "--target", "label", "--positive", "yes", "--random-state", "0")
        assert code == 0, err
        released.append(dpcvx.load(tmp_path / "m.json").coef_.tolist())
    assert released[0] == released[1]
    both = _parquet(tmp_path / "both.parquet", ["x", "label", " x"], [x, y, x])
    code, err = fit(tmp_path, capsys, both, "--target", "label", "--positive", "yes")
    assert code == 3 and "repeat a column name at field(s) [3]" in err, err
    csv = write(tmp_path / "both.csv", ["x", "label", " x"], [[a, b, a] for a, b in zip(x, y, strict=True)])
    code, err = fit(tmp_path, capsys, csv, "--target", "label", "--positive", "yes")
    assert code == 3 and "repeats a column name at field(s) [3]" in err, err


def test_excel_s_separator_line_is_told_to_be_skipped(tmp_path, capsys, columns):
    x, y = columns
    data = tmp_path / "sep.csv"
    data.write_text("sep=,\nx,label\n" + "".join(f"{a},{b}\n" for a, b in zip(x, y, strict=True)))
    code, err = fit(tmp_path, capsys, data, "--target", "label", "--positive", "yes")
    assert code == 3 and "separator line" in err and "--skip-lines 1" in err, err
    code, err = fit(tmp_path, capsys, data, "--target", "label", "--positive", "yes", "--skip-lines", "1")
    assert code == 0, err
