"""``dpcvx fit --chunk-rows`` (issue 43): a CSV file streamed by pyarrow's ``open_csv`` (typed chunks) when
pyarrow is installed, by the standard-library reader without it; one release and the same errors."""

import sys

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.cli.exit_codes import EXIT_INPUT

pa = pytest.importorskip("pyarrow")
import pyarrow.csv as arrow_csv  # noqa: E402  (after the skip)

ROWS = 2_500
OPTIONS = ["--target", "k", "--positive", "hi", "--negative", "lo", "--numeric", "a:0:10", "--numeric", "b:0:10",
           "--categorical", "c:x,y", "--data-norm", "1.5", "--lam", "1e-2", "--epsilon", "1", "--random-state", "0",
           "--no-column-statistics", "--chunk-rows", "1000"]  # the whole file: the in-memory release


def _table(path, bad=None):
    """A header and ROWS records; record ``bad[0]`` replaced by the text ``bad[1]``."""
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0, 10, ROWS), rng.uniform(0, 10, ROWS)
    rows = [f"{a[i]:.3f}, {int(b[i])},{'x' if i % 3 else 'y'},{'hi' if a[i] > 5 else 'lo'}" for i in range(ROWS)]
    if bad is not None:
        rows[bad[0]] = bad[1]
    path.write_text("a,b,c,k\n" + "\n".join(rows) + "\n")
    return path


@pytest.fixture
def streams(monkeypatch):
    """The number of pyarrow streams opened (the typed path taken)."""
    opened = []

    def spy(*args, **kwargs):
        opened.append(1)
        return open_csv(*args, **kwargs)

    open_csv = arrow_csv.open_csv
    monkeypatch.setattr(arrow_csv, "open_csv", spy)
    return opened


def _without_pyarrow(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.csv", None)


def test_both_readers_give_the_release_of_the_whole_file(tmp_path, monkeypatch, streams):
    data = _table(tmp_path / "d.csv")
    whole, typed, text = (tmp_path / f"{name}.json" for name in ("whole", "typed", "text"))
    options = OPTIONS[:-2]
    assert main(["fit", str(data), *options, "--out", str(whole)]) == 0
    assert main(["fit", str(data), *OPTIONS, "--out", str(typed)]) == 0
    assert streams == [1]
    _without_pyarrow(monkeypatch)
    assert main(["fit", str(data), *OPTIONS, "--out", str(text)]) == 0
    coefficients = [np.asarray(dpcvx.load(path).coef_) for path in (whole, typed, text)]
    np.testing.assert_array_equal(coefficients[1], coefficients[2])  # the same rows, the same noise
    assert np.max(np.abs(coefficients[0] - coefficients[1])) < 1e-6  # the whole file: a memmap's block sums


@pytest.mark.parametrize("bad, message", [
    ((1_700, "1.0, 2,x"), "line 1702: 3 fields, but the header has 4"),
    ((1_700, "1.0, 2,x,hi,9"), "line 1702: 5 fields, but the header has 4"),
    ((1_700, "?, 2,x,hi"), "in data rows 1000..1999 (read by --chunk-rows)"),
    ((2_499, "1.0, abc,x,hi"), "in data rows 2000..2499 (read by --chunk-rows)"),
    ((1_700, "1.0, 2,x,"), "holds missing values (an empty cell or '?'"),
    ((5, "1.0, 2,x,mid"), "in data rows 0..999 (read by --chunk-rows)"),
])
def test_both_readers_refuse_alike_and_write_nothing(tmp_path, monkeypatch, capsys, streams, bad, message):
    data = _table(tmp_path / "d.csv", bad)
    out = tmp_path / "m.json"
    errors = []
    for hide in (False, True):
        if hide:
            _without_pyarrow(monkeypatch)
        assert main(["fit", str(data), *OPTIONS, "--out", str(out)]) == EXIT_INPUT
        errors.append(capsys.readouterr().err)
        assert not out.exists()
    assert streams == [1]
    assert errors[0] == errors[1] and message in errors[0]


@pytest.mark.parametrize("bad, chunk", [
    ((1_700, "?, 2,x,hi"), "1000..1999"),  # a missing numeric cell (the CLI's --missing check)
    ((2_499, "1.0, abc,x,hi"), "2000..2499"),  # not a number (the schema's encoding)
    ((1_700, "1.0, 2,x,"), "1000..1999"),  # no label
    ((1_205, "1.0, 2,x,mid"), "1000..1999"),  # neither --positive nor --negative
])
def test_a_chunked_read_names_the_row_of_the_whole_file(tmp_path, capsys, bad, chunk):
    """The refusal of one row names it as the read of the whole file does (it named the row within the chunk),
    after the chunk's rows."""
    data = _table(tmp_path / "d.csv", bad)
    out = tmp_path / "m.json"
    errors = []
    for options in (OPTIONS[:-2], OPTIONS):
        assert main(["fit", str(data), *options, "--out", str(out)]) == EXIT_INPUT
        errors.append(capsys.readouterr().err)
    prefix = f"in data rows {chunk} (read by --chunk-rows): "
    assert f"row {bad[0]} " in errors[0]
    assert errors[1] == errors[0].replace("input error: ", f"input error: {prefix}", 1)
