"""One writer for every file dpcvx writes (dpcvx.data.files.atomic_write), shown by fault injection: whatever
fails midway (a full disk in write, flush, fsync or replace, a value JSON cannot hold, an error of the
code producing the content, an interrupt), the previous file survives byte for byte and no temporary
file is left behind."""

import errno
import json
import os
import stat

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.data import files
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import FileError, OverwriteError
from dpcvx.release import serialization

OLD = b'{"previous": "content"}\n'


def disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def only_file(directory, name):
    """The directory holds exactly ``name`` (no temporary file left)."""
    assert sorted(os.listdir(directory)) == [name], os.listdir(directory)


class WrappedHandle:
    """A real file handle behind a fault: everything not overridden goes to the handle."""

    def __init__(self, handle):
        self._handle = handle

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self._handle.__exit__(*exc)


class FailingHandle(WrappedHandle):
    """A file handle that writes ``budget`` characters, then fails like a full disk."""

    def __init__(self, handle, budget):
        super().__init__(handle)
        self._budget = budget

    def write(self, text):
        if len(text) > self._budget:
            self._handle.write(text[: self._budget])
            self._handle.flush()
            raise OSError(errno.ENOSPC, "No space left on device")
        self._budget -= len(text)
        return self._handle.write(text)


def fail_after(monkeypatch, budget):
    real = os.fdopen
    monkeypatch.setattr(files.os, "fdopen", lambda *a, **k: FailingHandle(real(*a, **k), budget))


@pytest.fixture(scope="module")
def model():
    X, y = synthetic_classification(n=300, d=4, random_state=0)
    return dpcvx.PrivateERM(data_norm=1.0).fit(X, y, epsilon=1.0, random_state=0)


def test_atomic_write_writes_whole_file_with_a_plain_files_mode(tmp_path):
    path = files.atomic_write(tmp_path / "out.txt", lambda handle: handle.write("a\nb\n"))
    assert path.read_bytes() == b"a\nb\n"
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
    os.chmod(path, 0o640)
    files.atomic_write(path, lambda handle: handle.write(b"\x00\x01"), binary=True, overwrite=True)
    assert path.read_bytes() == b"\x00\x01" and path.stat().st_mode & 0o777 == 0o640
    only_file(tmp_path, "out.txt")


@pytest.mark.parametrize("fault", ["write", "flush", "fsync", "replace", "chmod"])
def test_a_full_disk_leaves_the_old_file(tmp_path, monkeypatch, model, fault):
    path = tmp_path / "model.json"
    path.write_bytes(OLD)
    if fault == "write":
        fail_after(monkeypatch, 100)  # midway through the JSON
    elif fault == "flush":
        real = os.fdopen
        monkeypatch.setattr(files.os, "fdopen", lambda *a, **k: _NoFlush(real(*a, **k)))
    else:
        monkeypatch.setattr(files.os, fault, disk_full)
    with pytest.raises(FileError, match="cannot write the model to .*model.json: No space left on device; "
                                        "the previous file, if any, is unchanged"):
        dpcvx.save(model, path, overwrite=True)
    assert path.read_bytes() == OLD
    only_file(tmp_path, "model.json")
    monkeypatch.undo()
    dpcvx.save(model, path, overwrite=True)  # and a later save works
    assert dpcvx.load(path).coef_.tolist() == model.coef_.tolist()
    only_file(tmp_path, "model.json")


class _NoFlush(WrappedHandle):
    def flush(self):
        raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("bad", [object(), float("nan"), {1j: 2}])
def test_a_value_json_cannot_hold_leaves_the_old_file(tmp_path, monkeypatch, model, bad):
    path = tmp_path / "model.json"
    path.write_bytes(OLD)
    real = serialization.model_to_dict

    def with_bad_value(*args, **kwargs):
        data = real(*args, **kwargs)
        data["certificate"]["zzz_last"] = bad  # serialised last: the file is half written when it fails
        return data

    monkeypatch.setattr(serialization, "model_to_dict", with_bad_value)
    with pytest.raises(dpcvx.InputError, match="the model cannot be saved"):
        dpcvx.save(model, path, overwrite=True)
    assert path.read_bytes() == OLD
    only_file(tmp_path, "model.json")


def test_nan_weights_are_not_saved(tmp_path, model):
    path = tmp_path / "model.json"
    path.write_bytes(OLD)
    with pytest.raises(dpcvx.InputError, match="coef has NaN"):  # refused at construction
        dpcvx.PrivateModel(np.array([np.nan, 0, 0, 0]), 0.0, model.classes_, model.rows, model.certificate)
    broken = dpcvx.PrivateModel(np.zeros(4), 0.0, model.classes_, model.rows, model.certificate)
    broken.coef_ = np.array([np.nan, 0, 0, 0])  # set after the checks: the writer still refuses it
    with pytest.raises(dpcvx.InputError, match="Out of range float values are not JSON compliant"):
        dpcvx.save(broken, path, overwrite=True)
    assert path.read_bytes() == OLD
    only_file(tmp_path, "model.json")


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_an_interrupt_or_bug_in_the_content_propagates_and_cleans_up(tmp_path, error):
    path = tmp_path / "x.csv"
    path.write_bytes(OLD)

    def half(handle):
        handle.write("prediction,decision\n1,0.5\n")
        raise error("stop")

    with pytest.raises(error):
        files.atomic_write(path, half, overwrite=True)
    assert path.read_bytes() == OLD
    only_file(tmp_path, "x.csv")


def test_targets_that_cannot_be_written(tmp_path, model, monkeypatch):
    monkeypatch.setattr(files.tempfile, "mkstemp", lambda **kwargs: disk_full())
    with pytest.raises(FileError, match=r"is not writable \(No space left on device\)"):  # the check's trial file
        dpcvx.save(model, tmp_path / "m.json")
    monkeypatch.undo()
    with pytest.raises(FileError, match="is a directory"):
        dpcvx.save(model, tmp_path)
    with pytest.raises(FileError, match="the directory .* does not exist"):
        dpcvx.save(model, tmp_path / "no" / "m.json")
    assert os.listdir(tmp_path) == []


def test_a_target_that_is_not_a_writable_regular_file_is_left_as_it_is(tmp_path, model):
    # os.replace put a new file in place of whatever was at the path: a read-only file (which open() refuses,
    # root aside), a named pipe, a device (as root, /dev/null became a regular file); found by an audit
    read_only = tmp_path / "kept.json"
    dpcvx.save(model, read_only)
    os.chmod(read_only, 0o444)
    kept = read_only.read_bytes()
    with pytest.raises(FileError, match="the file is read-only, and writing would replace it"):
        dpcvx.save(model, read_only, overwrite=True)
    assert read_only.read_bytes() == kept and stat.S_IMODE(os.stat(read_only).st_mode) == 0o444
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(FileError, match="not a regular file"):
        dpcvx.save(model, tmp_path / "pipe")
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)
    with pytest.raises(FileError, match="not a regular file"):
        files.check_writable("/dev/null", "model")
    assert sorted(os.listdir(tmp_path)) == ["kept.json", "pipe"]  # no temporary left


def test_a_symbolic_link_is_written_through_and_kept(tmp_path, model):
    target = tmp_path / "target.json"
    target.write_text("{}")
    (tmp_path / "latest.json").symlink_to(target)
    with pytest.raises(OverwriteError, match="target.json: the file exists"):  # the link's target is kept
        dpcvx.save(model, tmp_path / "latest.json")
    assert target.read_text() == "{}"
    assert dpcvx.save(model, tmp_path / "latest.json", overwrite=True) == target
    assert (tmp_path / "latest.json").is_symlink() and dpcvx.load(tmp_path / "latest.json").coef_.tolist() == \
        model.coef_.tolist()


@pytest.mark.parametrize(("path", "what"), [(None, "got NoneType"), (3, "got int"), (b"m.json", "got bytes"),
                                            ("m\x00.json", "holds a NUL character")])
def test_a_path_that_names_no_file_is_a_file_error(tmp_path, model, path, what):
    # TypeError and ValueError ("embedded null byte") came from pathlib and os before
    with pytest.raises(FileError, match=what):
        dpcvx.load(path)
    with pytest.raises(FileError, match=what):
        dpcvx.save(model, path)


# --- the command line's files ---------------------------------------------------------------------


@pytest.fixture
def predict_setup(tmp_path, monkeypatch):
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("a", 0, 1), dpcvx.NumericColumn("b", 0, 1)), norm=1.0)
    rng = np.random.default_rng(0)
    table = {"a": rng.random(200), "b": rng.random(200)}
    X = schema.transform(table)
    fitted = dpcvx.PrivateERM(data_norm=1.0).fit(X, np.where(table["a"] > 0.5, 1, -1), epsilon=1.0,
                                                 random_state=0)
    dpcvx.save(fitted, tmp_path / "model.json", schema=schema)
    rows = "".join(f"{a},{b}\n" for a, b in zip(table["a"], table["b"], strict=True))
    (tmp_path / "new.csv").write_text("a,b\n" + rows)
    (tmp_path / "predictions.csv").write_bytes(OLD)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def listing(directory):
    return sorted(os.listdir(directory))


def test_predict_out_is_atomic_under_a_full_disk(predict_setup, monkeypatch, capsys):
    before = listing(predict_setup)
    fail_after(monkeypatch, 50)
    assert main(["predict", "model.json", "new.csv", "--out", "predictions.csv", "--overwrite"]) == 3
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "No space left on device" in err and "unchanged" in err
    assert (predict_setup / "predictions.csv").read_bytes() == OLD
    assert listing(predict_setup) == before
    monkeypatch.undo()
    monkeypatch.chdir(predict_setup)
    assert main(["predict", "model.json", "new.csv", "--out", "predictions.csv", "--overwrite"]) == 0
    assert (predict_setup / "predictions.csv").read_text().count("\n") == 201


def test_predict_error_leaves_the_old_predictions(predict_setup, monkeypatch, capsys):
    before = listing(predict_setup)

    def failing(self, X):
        raise dpcvx.InputError("X has 3 features after the feature map, but the model is expecting 2 features as "
                               "input.")

    monkeypatch.setattr(dpcvx.PrivateModel, "decision_function", failing)
    assert main(["predict", "model.json", "new.csv", "--out", "predictions.csv", "--overwrite"]) == 3
    assert "the model is expecting 2 features" in capsys.readouterr().err
    assert (predict_setup / "predictions.csv").read_bytes() == OLD and listing(predict_setup) == before


def test_predict_writer_bug_leaves_the_old_predictions(predict_setup, monkeypatch):
    from dpcvx.cli import commands
    before = listing(predict_setup)
    real = commands._write_predictions

    def half(handle, model, groups, names):  # writes the first group's first rows, then fails
        real(handle, model, [next(iter(groups))[:10]], names)
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(commands, "_write_predictions", half)
    with pytest.raises(ZeroDivisionError):  # a bug is not an input error: it propagates, file intact
        main(["predict", "model.json", "new.csv", "--out", "predictions.csv", "--overwrite"])
    assert (predict_setup / "predictions.csv").read_bytes() == OLD and listing(predict_setup) == before


def test_fit_out_is_atomic(predict_setup, monkeypatch, capsys):
    (predict_setup / "train.csv").write_text("a,b,y\n" + "".join(f"{i / 100},{1 - i / 100},{'p' if i % 2 else 'n'}\n"
                                                                for i in range(100)))
    args = ["fit", "train.csv", "--target", "y", "--positive", "p", "--negative", "n", "--numeric", "a:0:1",
            "--numeric", "b:0:1", "--data-norm", "1", "--epsilon", "1", "--lam", "0.01", "--out", "model.json",
            "--overwrite"]
    old_model = (predict_setup / "model.json").read_bytes()
    before = listing(predict_setup)
    monkeypatch.setattr(files.os, "fsync", disk_full)
    assert main(args) == 3
    assert "No space left on device" in capsys.readouterr().err
    assert (predict_setup / "model.json").read_bytes() == old_model and listing(predict_setup) == before
    monkeypatch.undo()
    monkeypatch.chdir(predict_setup)
    assert main(args) == 0
    assert json.loads((predict_setup / "model.json").read_text())["privatised"]["coef"]


@pytest.mark.slow
def test_demo_plot_is_atomic(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from dpcvx.demo import DemoResult, plot_demo
    result = DemoResult((0.1, 1.0), {("logistic", "objective"): [(0.6, 0.01), (0.8, 0.01)]}, {"logistic": 0.85},
                        "", "", 100, 2)
    path = tmp_path / "plot.png"
    path.write_bytes(OLD)
    monkeypatch.setattr(files.os, "fsync", disk_full)
    with pytest.raises(FileError, match="cannot write the plot"):
        plot_demo(result, path, overwrite=True)
    assert path.read_bytes() == OLD
    only_file(tmp_path, "plot.png")
    monkeypatch.undo()
    assert plot_demo(result, path, overwrite=True).read_bytes().startswith(b"\x89PNG")
    only_file(tmp_path, "plot.png")


# --- paths the operating system refuses, and files that are not a model's -------------------------------------------

LONG = "a" * 300  # a file name longer than any file system takes (errno 36, ENAMETOOLONG)


def test_a_name_too_long_to_write_is_a_file_error(tmp_path, model):
    with pytest.raises(FileError, match="cannot write the model to .*: File name too long; choose another path"):
        dpcvx.save(model, tmp_path / f"{LONG}.json")
    with pytest.raises(FileError, match="cannot write the report to .*: File name too long"):
        model.report().write(tmp_path / f"{LONG}.html")
    assert os.listdir(tmp_path) == []


def test_the_command_line_refuses_a_name_too_long_with_exit_status_3(predict_setup, capsys):
    for command in (["predict", "model.json", "new.csv", "--out", f"{LONG}.csv"],
                    ["report", "model.json", "--out", f"{LONG}.md"]):
        assert main(command) == 3
        err = capsys.readouterr().err
        assert "File name too long" in err and "Traceback" not in err


def test_a_device_or_a_pipe_is_refused_before_it_is_read(tmp_path):
    with pytest.raises(FileError, match="/dev/zero is not a regular file"):
        dpcvx.load("/dev/zero")
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)  # opening it would wait for a writer forever
    with pytest.raises(FileError, match="pipe.json is not a regular file"):
        dpcvx.load(pipe)


def test_a_file_beyond_the_size_cap_is_refused_before_it_is_read(tmp_path, model, monkeypatch):
    path = dpcvx.save(model, tmp_path / "m.json")
    monkeypatch.setattr(files, "MAX_FILE_BYTES", path.stat().st_size - 1)
    with pytest.raises(FileError, match=r"m.json is larger than 0 MiB, the most dpcvx reads"):
        dpcvx.load(path)
    monkeypatch.setattr(files, "MAX_FILE_BYTES", path.stat().st_size)
    assert dpcvx.load(path).coef_.tolist() == model.coef_.tolist()


def test_reading_a_small_file_allocates_about_its_size_not_the_cap(tmp_path, model, traced_peak):
    """read(MAX_FILE_BYTES + 1) allocated the whole 256 MiB cap for a model file of a few kilobytes (a traced peak of
    268 MB in dpcvx.load); the read now allocates for what the file holds."""
    path = dpcvx.save(model, tmp_path / "m.json")
    _, peak = traced_peak(files.read_text, path, "model file")
    assert peak < 64 * path.stat().st_size + (1 << 20), peak


def test_a_file_that_grows_past_the_cap_after_its_size_was_read_is_refused(tmp_path, model, monkeypatch):
    path = dpcvx.save(model, tmp_path / "m.json")
    size = path.stat().st_size
    monkeypatch.setattr(files, "MAX_FILE_BYTES", size + 10)
    monkeypatch.setattr(files, "_GROWTH_BYTES", 7)
    real_stat = type(path).stat

    def stale_stat(self, *args, **kwargs):  # the size as it was before the file grew
        status = real_stat(self, *args, **kwargs)
        return os.stat_result((*status[:6], size, *status[7:])) if self == path else status

    with open(path, "a", encoding="utf-8") as handle:
        handle.write(" " * 40)  # grows past the cap after "stat"
    monkeypatch.setattr(type(path), "stat", stale_stat)
    with pytest.raises(FileError, match="is larger than"):
        files.read_text(path, "model file")
    with open(path, "r+", encoding="utf-8") as handle:  # back within the cap: read whole, the growth included
        handle.truncate(size + 5)
    assert len(files.read_text(path, "model file")) == size + 5


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="a /proc file system (Linux) is needed")
def test_a_directory_no_file_can_be_created_in_is_refused_even_for_root():
    """os.access answers yes to root for /proc, so a fit ran (and drew its noise) before the write failed (an audit
    of the command line on user files); the check now makes and removes atomic_write's temporary file."""
    with pytest.raises(FileError, match=r"cannot write the model to /proc/model.json: the directory /proc is not "
                                        r"writable"):
        files.check_writable("/proc/model.json", "model")


def test_demo_plot_leaves_the_process_s_matplotlib_backend_alone(tmp_path):
    """plot_demo called matplotlib.use("Agg"): in a notebook every later plt.show() showed nothing. It draws on a
    Figure of its own now, as dpcvx.plots does."""
    matplotlib = pytest.importorskip("matplotlib")
    from dpcvx.demo import DemoResult, plot_demo
    before = matplotlib.get_backend()
    matplotlib.use("svg")
    try:
        result = DemoResult((0.1, 1.0), {("logistic", "objective"): [(0.6, 0.01), (0.8, 0.01)]}, {"logistic": 0.85},
                            "", "", 100, 2)
        assert plot_demo(result, tmp_path / "plot.png").read_bytes().startswith(b"\x89PNG")
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)
