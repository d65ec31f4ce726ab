"""An output path in a directory the command cannot write is refused before any work, as a missing directory is:
check_writable tested that the directory existed, not that a file could be created in it, so `dpcvx fit` read the
data and fitted (drawing its noise) before atomic_write failed to create its temporary file there."""

import errno
from pathlib import Path

import pytest

from dpcvx.cli import main
from dpcvx.data import files
from dpcvx.exceptions import FileError


@pytest.fixture()
def read_only(tmp_path, monkeypatch):
    """A directory in which no file can be created (the tests may run as root, whom permissions do not stop: the
    file system refuses as a read-only mount would)."""
    directory = tmp_path / "read-only"
    directory.mkdir()
    make = files.tempfile.mkstemp

    def denied(*args, **kwargs):
        if Path(kwargs.get("dir", ".")).resolve() == directory.resolve():
            raise OSError(errno.EROFS, "Read-only file system")
        return make(*args, **kwargs)

    monkeypatch.setattr(files.tempfile, "mkstemp", denied)
    return directory


@pytest.mark.parametrize("command", [
    ["fit", "no-such.csv", "--target", "y", "--positive", "p", "--numeric", "a:0:1", "--data-norm", "1", "--epsilon",
     "1", "--out"],
    ["predict", "no-such.json", "no-such.csv", "--out"],
    ["report", "no-such.json", "--out"],
    ["demo", "--n", "30", "--plot"],
], ids=["fit", "predict", "report", "demo"])
def test_an_output_in_a_read_only_directory_is_refused_before_any_work(read_only, capsys, command):
    assert main([*command, str(read_only / "out")]) == 3
    error = capsys.readouterr().err
    assert f"the directory {read_only.resolve()} is not writable (Read-only file system); choose a writable " \
           "directory" in error, error
    assert list(read_only.iterdir()) == []


def test_check_writable_refuses_the_directory_it_cannot_write(read_only):
    with pytest.raises(FileError, match="is not writable"):
        files.check_writable(read_only / "m.json", "model")
    with pytest.raises(FileError, match="is not writable"):
        files.atomic_write(read_only / "m.json", lambda handle: handle.write("{}"), what="model")


@pytest.mark.parametrize("command, option", [
    (["fit", "d.csv", "--target", "y", "--positive", "p", "--epsilon", "1", "--out", ""], "--out"),
    (["fit", "d.csv", "--target", "y", "--positive", "p", "--epsilon", "1", "--out", "-"], "--out"),
    (["fit", "", "--target", "y", "--positive", "p", "--epsilon", "1", "--out", "m.json"], "DATA"),
    (["predict", "m.json", "d.csv", "--out", "-"], "--out"),
    (["report", "", "--out", "r.md"], "MODEL.json"),
    (["demo", "--plot", "-"], "--plot"),
    (["fit", "d.csv", "--target", "y", "--positive", "p", "--epsilon", "1", "--schema", "", "--out", "m.json"],
     "--schema"),
], ids=["fit-empty-out", "fit-dash-out", "fit-empty-data", "predict-dash-out", "report-empty-model", "demo-dash-plot",
        "fit-empty-schema"])
def test_an_empty_path_or_a_dash_output_is_a_usage_error(tmp_path, monkeypatch, capsys, command, option):
    """An empty --out named the current directory ("cannot write the model to .: it is a directory", exit 3), and
    --out - wrote a file named '-' where other tools write standard output."""
    monkeypatch.chdir(tmp_path)
    assert main(command) == 2
    assert f"usage error: argument {option}: " in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_names_file_with_repeats_is_refused_by_positions_never_its_names(tmp_path, capsys):
    """A data file given as the names file by mistake printed its cells ("the column names repeat ['1', '10', ...]",
    ages and hours) on stderr (an audit of the command line on user files)."""
    rows = "".join(f"{age},{age - 20},{'yes' if age > 40 else 'no'}\n" for age in range(20, 80))
    (tmp_path / "d.csv").write_text(rows)
    code = main(["fit", str(tmp_path / "d.csv"), "--no-header", "--names-file", str(tmp_path / "d.csv"), "--target",
                 "y", "--positive", "yes", "--numeric", "a:0:100", "--data-norm", "1", "--epsilon", "1", "--out",
                 str(tmp_path / "m.json")])
    error = capsys.readouterr().err
    assert code == 3 and "column name(s) repeat, the first at name" in error, error
    assert "'20'" not in error and "yes" not in error.split("repeat")[1]
    assert not (tmp_path / "m.json").exists()


def _saved_model(tmp_path):

    import numpy as np

    import dpcvx
    from dpcvx.data.preprocessing import NumericColumn, PublicSchema

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(300, 2))
    schema = PublicSchema((NumericColumn("a", 0, 1), NumericColumn("b", 0, 1)))
    model = dpcvx.DPLogisticRegression(random_state=0).fit(schema.transform({"a": X[:, 0], "b": X[:, 1]}),
                                                             (X[:, 0] > 0.5).astype(int))
    data = tmp_path / "d.csv"
    data.write_text("a,b\n" + "\n".join(f"{a:.4f},{b:.4f}" for a, b in X) + "\n")
    return dpcvx.save(model, tmp_path / "m.json", schema=schema), data


def test_predictions_to_a_gz_name_are_gzip_compressed(tmp_path, capsys):
    """--out p.csv.gz wrote plain CSV under a .gz name (pandas.read_csv failed with BadGzipFile); fit and predict
    read a .gz file, so predict writes one, the same text compressed, the same bytes each time."""
    import gzip

    model, data = _saved_model(tmp_path)
    assert main(["predict", str(model), str(data), "--out", str(tmp_path / "p.csv")]) == 0
    assert main(["predict", str(model), str(data), "--out", str(tmp_path / "p.csv.gz")]) == 0
    packed = (tmp_path / "p.csv.gz").read_bytes()
    assert gzip.decompress(packed) == (tmp_path / "p.csv").read_bytes()
    assert main(["predict", str(model), str(data), "--out", str(tmp_path / "p.csv.gz"), "--overwrite"]) == 0
    assert (tmp_path / "p.csv.gz").read_bytes() == packed


@pytest.mark.parametrize("name, written", [("r.html", "<"), ("r.md", "#"), ("r.txt", "#"), ("report", "#")])
def test_a_report_s_format_follows_its_name(tmp_path, capsys, name, written):
    model, _ = _saved_model(tmp_path)
    assert main(["report", str(model), "--out", str(tmp_path / name)]) == 0
    assert (tmp_path / name).read_text().lstrip().startswith(written)


def test_a_report_name_that_says_no_format_it_is_written_in_is_refused(tmp_path, capsys):
    """--out r.pdf wrote Markdown into a file named .pdf; it is refused unless --format says what to write: a usage
    error (exit 2, whatever the model), naming the command line's options, never the Python parameter, before the
    model is read."""
    model, _ = _saved_model(tmp_path)
    assert main(["report", str(tmp_path / "absent.json"), "--out", str(tmp_path / "r.pdf")]) == 2
    err = capsys.readouterr().err
    assert "name it .html or .md, or give --format markdown or --format html" in err and "format=" not in err
    assert main(["report", str(model), "--out", str(tmp_path / "r.pdf")]) == 2
    assert not (tmp_path / "r.pdf").exists()
    assert main(["report", str(model), "--out", str(tmp_path / "r.pdf"), "--format", "markdown"]) == 0
