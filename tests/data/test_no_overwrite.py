"""Every writer of a file the user names keeps an existing file unless told to replace it: ``overwrite=True`` in
Python, ``--overwrite`` on the command line. Before, dpcvx.save, PublicSchema.save, PrivacyReport.write, plot_demo,
AuditReport.plot and the command line's fit --out, predict --out, report --out and demo --plot replaced any writable
file without a word (found by a prober: ``dpcvx.save(model, "victim.csv")``), and a model file lost is a release
whose privacy budget was spent. The refusal is an OverwriteError (a FileError, exit status 3, and a
FileExistsError) naming the file and the fix, raised before any work: a refused fit reads no data and spends
nothing. A file that appears after the check, while the content is made, is not replaced either."""

from __future__ import annotations

import errno
import os

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import commands, main
from dpcvx.cli.exit_codes import EXIT_INPUT, exit_code
from dpcvx.data import files
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import FileError, OverwriteError

MINE = b"name,salary\nada,1\n"  # the user's file, which no writer may change


def listing(directory):
    return sorted(os.listdir(directory))


@pytest.fixture(scope="module")
def model():
    X, y = synthetic_classification(n=300, d=4, random_state=0)
    return dpcvx.PrivateERM(data_norm=1.0).fit(X, y, epsilon=1.0, random_state=0)


def _refused(tmp_path, write, name="victim.csv"):
    """``write(path)`` on the user's file: refused with an OverwriteError naming it and the fix, the file kept."""
    path = tmp_path / name
    path.write_bytes(MINE)
    before = listing(tmp_path)
    with pytest.raises(OverwriteError) as caught:
        write(path)
    assert str(path) in str(caught.value) and "the file exists" in str(caught.value)
    assert "pass overwrite=True to replace it" in str(caught.value)
    assert isinstance(caught.value, FileError) and isinstance(caught.value, FileExistsError)
    assert path.read_bytes() == MINE and listing(tmp_path) == before  # byte for byte, no temporary left
    return path


def test_save_keeps_an_existing_file_unless_overwrite(tmp_path, model):
    path = _refused(tmp_path, lambda path: dpcvx.save(model, path))
    assert dpcvx.save(model, path, overwrite=True) == path  # today's behaviour, when asked for
    assert dpcvx.load(path).coef_.tolist() == model.coef_.tolist()
    assert listing(tmp_path) == ["victim.csv"]


def test_save_to_a_new_file_needs_no_option(tmp_path, model):
    path = dpcvx.save(model, tmp_path / "new.json")
    assert dpcvx.load(path).coef_.tolist() == model.coef_.tolist() and listing(tmp_path) == ["new.json"]


def test_a_schema_keeps_an_existing_file_unless_overwrite(tmp_path):
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("a", 0, 1),), norm=1.0)
    path = _refused(tmp_path, schema.save)
    schema.save(path, overwrite=True)
    assert dpcvx.PublicSchema.load(path) == schema


@pytest.mark.parametrize("name", ["victim.html", "victim.md"])
def test_a_report_keeps_an_existing_file_unless_overwrite(tmp_path, model, name):
    report = model.report()
    path = _refused(tmp_path, report.write, name)
    report.write(path, overwrite=True)
    assert path.read_text().lstrip().startswith("<!DOCTYPE html>" if name.endswith("html") else "#")


def test_the_demo_plot_keeps_an_existing_file_unless_overwrite(tmp_path):
    pytest.importorskip("matplotlib")
    from dpcvx.demo import DemoResult, demo_wrote, plot_demo

    result = DemoResult((0.1, 1.0), {("logistic", "objective"): [(0.6, 0.01), (0.8, 0.01)]}, {"logistic": 0.85},
                        "", "", 100, 2)
    path = _refused(tmp_path, lambda path: plot_demo(result, path), "victim.png")
    plot_demo(result, path, overwrite=True)
    assert demo_wrote(path)


def test_an_audit_plot_keeps_an_existing_file_unless_overwrite(tmp_path):
    pytest.importorskip("matplotlib")
    from dpcvx.models.audit import AuditReport

    report = AuditReport(claimed_epsilon=1.0, claimed_delta=0.0, confidence=0.95, epsilon_lower_bound=0.0,
                         threshold=(0.0, 1.0), region_indicates="D", false_positives=1, false_negatives=1,
                         evaluation_trials=10, selection_trials=10, statistics_d=np.linspace(0, 1, 20),
                         statistics_d_prime=np.linspace(0.5, 1.5, 20))
    path = _refused(tmp_path, report.plot, "victim.png")
    report.plot(path, overwrite=True)
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_the_existing_refusals_stand_with_overwrite(tmp_path, model):
    read_only = tmp_path / "kept.json"
    read_only.write_bytes(MINE)
    os.chmod(read_only, 0o444)
    with pytest.raises(FileError, match="read-only"):
        dpcvx.save(model, read_only, overwrite=True)
    with pytest.raises(FileError, match="is a directory"):
        dpcvx.save(model, tmp_path, overwrite=True)
    with pytest.raises(FileError, match="not a regular file"):
        files.check_writable("/dev/null", "model", overwrite=True)
    assert read_only.read_bytes() == MINE


def test_a_file_that_appears_while_the_content_is_made_is_kept(tmp_path):
    """The check at the entry and the write are apart in time (a fit runs between them). A file another process
    makes there meanwhile is not replaced: the written file takes the name only if it is free, and the content
    stays in the temporary file the error names (it may be a release whose budget was spent)."""
    path = tmp_path / "model.json"
    checked = files.check_writable(path, "model")

    def write(handle):
        handle.write("the release")
        path.write_bytes(MINE)  # another process, meanwhile

    with pytest.raises(OverwriteError, match="appeared while the model was made, and it is kept") as caught:
        files.atomic_write(checked, write, what="model")
    assert path.read_bytes() == MINE
    kept = [name for name in listing(tmp_path) if name != "model.json"]
    assert len(kept) == 1 and kept[0] in str(caught.value)
    assert (tmp_path / kept[0]).read_text() == "the release"


@pytest.mark.parametrize("appears", [False, True])
def test_without_hard_links_the_name_is_tested_before_the_replace(tmp_path, monkeypatch, appears):
    def no_links(source, target):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(files.os, "link", no_links)
    path = tmp_path / "out.txt"

    def write(handle):
        handle.write("new")
        if appears:
            path.write_bytes(MINE)

    if appears:
        with pytest.raises(OverwriteError, match="appeared"):
            files.atomic_write(path, write)
        assert path.read_bytes() == MINE
    else:
        files.atomic_write(path, write)
        assert path.read_text() == "new" and listing(tmp_path) == ["out.txt"]


def test_the_refusal_has_the_exit_status_of_its_family():
    assert exit_code(OverwriteError("x")) == EXIT_INPUT == exit_code(FileError("x"))


# --- the command line ---------------------------------------------------------------------------


@pytest.fixture
def workdir(tmp_path, monkeypatch, model):
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("a", 0, 1), dpcvx.NumericColumn("b", 0, 1)), norm=1.0)
    rng = np.random.default_rng(0)
    table = {"a": rng.random(200), "b": rng.random(200)}
    fitted = dpcvx.PrivateERM(data_norm=1.0).fit(schema.transform(table), np.where(table["a"] > 0.5, 1, -1),
                                                 epsilon=1.0, random_state=0)
    dpcvx.save(fitted, tmp_path / "model.json", schema=schema)
    (tmp_path / "train.csv").write_text("a,b,y\n" + "".join(f"{i / 100},{1 - i / 100},{'p' if i % 2 else 'n'}\n"
                                                            for i in range(100)))
    (tmp_path / "new.csv").write_text("a,b\n" + "".join(f"{a},{b}\n" for a, b in zip(table["a"], table["b"],
                                                                                    strict=True)))
    (tmp_path / "keep.csv").write_bytes(MINE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


FIT = ["fit", "train.csv", "--target", "y", "--positive", "p", "--negative", "n", "--numeric", "a:0:1", "--numeric",
       "b:0:1", "--data-norm", "1", "--epsilon", "1", "--lam", "0.01", "--out", "keep.csv"]


def _cli_refused(workdir, capsys, argv):
    before = listing(workdir)
    assert main(argv) == EXIT_INPUT
    captured = capsys.readouterr()
    assert len(captured.err.splitlines()) == 1, captured.err
    assert "keep.csv: the file exists, and it is kept" in captured.err
    assert "pass --overwrite to replace it" in captured.err and "overwrite=True" not in captured.err
    assert (workdir / "keep.csv").read_bytes() == MINE and listing(workdir) == before
    return captured


def test_a_refused_fit_reads_no_data_and_spends_nothing(workdir, capsys, monkeypatch):
    """The --out check comes before the data is read and the fit charged: a refused fit releases nothing."""
    charged, read = [], []
    real_release, real_read = commands._release, commands.read_table_columns
    monkeypatch.setattr(commands, "_release", lambda *a, **k: charged.append(1) or real_release(*a, **k))
    monkeypatch.setattr(commands, "read_table_columns", lambda *a, **k: read.append(1) or real_read(*a, **k))
    captured = _cli_refused(workdir, capsys, FIT)
    assert charged == [] and read == [] and captured.out == ""
    assert main([*FIT, "--overwrite"]) == 0  # the same command, told to replace the file: fitted and written
    assert charged == [1] and read == [1]
    assert dpcvx.load(workdir / "keep.csv").epsilon == 1.0


def test_a_refused_chunked_fit_spends_nothing(workdir, capsys, monkeypatch):
    charged = []
    monkeypatch.setattr(commands, "_release", lambda *a, **k: charged.append(1))
    _cli_refused(workdir, capsys, [*FIT, "--chunk-rows", "1000"])
    assert charged == []


def test_predict_keeps_an_existing_out_unless_overwrite(workdir, capsys):
    _cli_refused(workdir, capsys, ["predict", "model.json", "new.csv", "--out", "keep.csv"])
    assert main(["predict", "model.json", "new.csv", "--out", "keep.csv", "--overwrite"]) == 0
    assert (workdir / "keep.csv").read_text().count("\n") == 201


@pytest.mark.parametrize("options", [["--format", "html"], ["--format", "markdown"]])
def test_report_keeps_an_existing_out_unless_overwrite(workdir, capsys, options):
    _cli_refused(workdir, capsys, ["report", "model.json", "--out", "keep.csv", *options])
    assert main(["report", "model.json", "--out", "keep.csv", *options, "--overwrite"]) == 0
    assert (workdir / "keep.csv").read_text() != MINE.decode()


def test_overwrite_never_lets_an_output_replace_an_input(workdir, capsys):
    data = (workdir / "train.csv").read_bytes()
    assert main([*FIT[:-1], "train.csv", "--overwrite"]) == EXIT_INPUT
    assert "it is the data file train.csv this command reads" in capsys.readouterr().err
    assert (workdir / "train.csv").read_bytes() == data
    model = (workdir / "model.json").read_bytes()
    assert main(["predict", "model.json", "new.csv", "--out", "model.json", "--overwrite"]) == EXIT_INPUT
    assert main(["report", "model.json", "--out", "model.json", "--format", "html", "--overwrite"]) == EXIT_INPUT
    assert (workdir / "model.json").read_bytes() == model


def test_a_new_out_needs_no_option(workdir, capsys):
    assert main([*FIT[:-1], "fresh.json"]) == 0
    assert main(["predict", "fresh.json", "new.csv", "--out", "fresh.csv"]) == 0
    assert main(["report", "fresh.json", "--out", "fresh.html"]) == 0
    assert {"fresh.json", "fresh.csv", "fresh.html"} <= set(listing(workdir))
