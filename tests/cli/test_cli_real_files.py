"""The command line on files as they are published: gzip-compressed, without a header row, with ", "
separators, "?" for missing values and more than two label values (UCI Adult).

The Adult tests read a gzipped, headerless copy of the first 2000 lines of the UCI adult.data (made in
tmp_path) and are skipped when the UCI files are absent (the ``uci_data`` fixture, tests/conftest.py).
The error tests use a small synthetic file and always run. Each error is one line on stderr and a
nonzero exit status.
"""

import csv
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.data.uci_domains import adult_schema

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
ADULT_NAMES = ("age,workclass,fnlwgt,education,education-num,marital-status,occupation,relationship,race,sex,"
               "capital-gain,capital-loss,hours-per-week,native-country,income")
PRIVACY = ("--epsilon", "1", "--lam", "1e-3", "--fit-intercept", "--random-state", "0")


def adult_lines(directory, name, count):
    """The first ``count`` lines of the UCI file ``name`` (adult.data or adult.test) in ``directory``, as bytes."""
    for path, opener in ((directory / name, open), (directory / f"{name}.gz", gzip.open)):
        if path.is_file():
            with opener(path, "rb") as handle:
                return b"".join(line for _, line in zip(range(count), handle, strict=False))  # the first count lines
    raise FileNotFoundError(f"{directory} holds no {name}")


def dpcvx_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "dpcvx.cli", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env=ENV)


def run_main(args, cwd, capsys, monkeypatch):
    """main(args) in cwd: (exit status, stdout, stderr)."""
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    code = main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def adult(tmp_path_factory, uci_data):
    """A gzipped, headerless copy of the first 2000 lines of adult.data and the Adult schema file."""
    directory = tmp_path_factory.mktemp("adult")
    lines = adult_lines(uci_data, "adult.data", 2000)
    assert lines.count(b"\n") == 2000 and b", ?," in lines  # as published: ", " separators and "?" values
    (directory / "adult2000.data.gz").write_bytes(gzip.compress(lines))
    adult_schema().save(directory / "adult-schema.json")
    (directory / "adult.columns").write_text(ADULT_NAMES.replace(",", "\n") + "\n")
    return directory


def test_fit_and_predict_on_gzipped_headerless_adult(adult):
    fit = dpcvx_cli("fit", "adult2000.data.gz", "--no-header", "--names", ADULT_NAMES, "--target", "income",
                    "--positive", ">50K", "--schema", "adult-schema.json", *PRIVACY, "--out", "adult-model.json",
                    cwd=adult)
    assert fit.returncode == 0, fit.stderr
    # the estimator's public warning of 2,000 rows for 114 encoded columns, as DPLogisticRegression gives it in Python
    assert "SmallTableWarning" in fit.stderr and "n epsilon / d with n = 2000" in fit.stderr
    assert "model written to adult-model.json (2000 rows, 114 features)" in fit.stdout
    model = dpcvx.load(adult / "adult-model.json")
    assert model.classes_.tolist() == ["not >50K", ">50K"]
    assert "workclass=?" in model.schema.feature_names  # "?" is a category of its own, as the schema says
    assert json.loads((adult / "adult-model.json").read_text())["certificate"]["constants"]["n"]["float"] == 2000

    predict = dpcvx_cli("predict", "adult-model.json", "adult2000.data.gz", "--no-header", "--names-file",
                        "adult.columns", "--out", "predictions.csv", cwd=adult)
    assert predict.returncode == 0, predict.stderr
    assert "2000 predictions written to predictions.csv" in predict.stdout
    with open(adult / "predictions.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2000
    assert all((row["prediction"] == ">50K") == (float(row["decision"]) > 0) for row in rows)
    assert {row["prediction"] for row in rows} <= {"not >50K", ">50K"}


def test_adult_test_file_with_repeated_labels(adult, uci_data, capsys, monkeypatch):
    """adult.test: a title line to skip and labels with a trailing dot, given as extra --positive/--negative."""
    (adult / "adult.test.gz").write_bytes(gzip.compress(adult_lines(uci_data, "adult.test", 1001)))
    base = ("fit", "adult.test.gz", "--no-header", "--names-file", "adult.columns", "--target", "income",
            "--schema", "adult-schema.json", *PRIVACY, "--out", "test-model.json")
    code, _, err = run_main(base + ("--positive", ">50K", "--negative", "<=50K"), adult, capsys, monkeypatch)
    assert code == 3 and "line 1: 1 fields, but --names gives 15 names" in err and "--skip-lines" in err
    code, _, err = run_main(base + ("--skip-lines", "1", "--positive", ">50K", "--negative", "<=50K"), adult,
                            capsys, monkeypatch)
    assert code == 3 and len(err.splitlines()) == 1
    assert "row(s) of column 'income' (2 distinct value(s)) are neither --positive nor --negative" in err
    assert "50K." not in err  # the count, not the values
    code, out, err = run_main(base + ("--skip-lines", "1", "--positive", ">50K", "--positive", ">50K.",
                                      "--negative", "<=50K", "--negative", "<=50K."), adult, capsys, monkeypatch)
    assert code == 0, err
    assert "(1000 rows, 114 features)" in out
    assert dpcvx.load(adult / "test-model.json").classes_.tolist() == ["<=50K", ">50K"]


# --- a small synthetic file: the same reading rules, and every error ----------------------------------------


@pytest.fixture
def small(tmp_path):
    """train.csv with a header, and the same records as a gzipped headerless file with ", " separators."""
    rng = np.random.default_rng(0)
    rows = [[int(rng.integers(17, 91)), str(rng.choice(["Female", "Male", "?"])), str(rng.choice(["yes", "no"]))]
            for _ in range(150)]
    with open(tmp_path / "train.csv", "w", newline="") as handle:
        csv.writer(handle).writerows([["age", "sex", "label"], *rows])
    text = "".join(f"{age}, {sex},  {label} \n" for age, sex, label in rows) + "\n"
    (tmp_path / "train.data.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "train.data").write_bytes(gzip.compress(text.encode()))  # gzip content without a .gz name
    data = gzip.compress(text.encode())
    (tmp_path / "truncated.gz").write_bytes(data[: len(data) // 2])
    (tmp_path / "bad_crc.gz").write_bytes(data[:-8] + bytes(8))
    (tmp_path / "plain.gz").write_text(text)
    (tmp_path / "names.txt").write_text("age, sex\nlabel\n")
    return tmp_path


COLUMNS = ("--numeric", "age:17:90", "--categorical", "sex:Female,Male,?", "--data-norm", "1")
HEADERLESS = ("--no-header", "--names", "age,sex,label")


def fit_args(data, *extra, labels=("--positive", "yes", "--negative", "no")):
    return ("fit", data, "--target", "label", *labels, *COLUMNS, *PRIVACY, *extra, "--out", "out.json")


def test_headerless_gzip_reads_as_the_csv_with_a_header(small, capsys, monkeypatch):
    """Same records, same public inputs, same seed: the same model, whatever the file's layout."""
    code, _, err = run_main(fit_args("train.csv"), small, capsys, monkeypatch)
    assert code == 0, err
    reference = dpcvx.load(small / "out.json")
    for data, layout in (("train.data.gz", HEADERLESS), ("train.data", ("--no-header", "--names-file", "names.txt"))):
        (small / "out.json").unlink()
        code, _, err = run_main(fit_args(data, *layout), small, capsys, monkeypatch)
        assert code == 0, err
        model = dpcvx.load(small / "out.json")
        assert np.array_equal(model.coef_, reference.coef_) and model.intercept_ == reference.intercept_
    code, out, err = run_main(("predict", "out.json", "train.data.gz", *HEADERLESS), small, capsys, monkeypatch)
    assert code == 0, err
    assert out.splitlines()[0] == "prediction,decision,probability:yes" and len(out.splitlines()) == 151


def test_positive_alone_counts_every_other_value_as_negative(small, capsys, monkeypatch):
    code, _, err = run_main(fit_args("train.data.gz", *HEADERLESS, labels=("--positive", "yes")), small, capsys,
                            monkeypatch)
    assert code == 0, err
    assert dpcvx.load(small / "out.json").classes_.tolist() == ["not yes", "yes"]


def test_a_positive_value_that_never_occurs_is_fine(small, capsys, monkeypatch):
    """Label values are public: one absent from the data is no error, and nothing about the data is said."""
    code, out, err = run_main(fit_args("train.data.gz", *HEADERLESS, labels=("--positive", "maybe")), small,
                              capsys, monkeypatch)
    assert code == 0 and err == "", err
    assert "model written to out.json (150 rows" in out
    assert dpcvx.load(small / "out.json").classes_.tolist() == ["not maybe", "maybe"]


@pytest.mark.parametrize("args, code, message", [
    (fit_args("truncated.gz", *HEADERLESS), 3,
     "truncated.gz is not a valid gzip file: the compressed data end early"),
    (fit_args("bad_crc.gz", *HEADERLESS), 3, "bad_crc.gz is not a valid gzip file: its compressed data are damaged"),
    (fit_args("plain.gz", *HEADERLESS), 3, "plain.gz is not a valid gzip file: it does not start like a gzip file"),
    (fit_args("train.data.gz", "--no-header", "--names", "age,sex"), 3,
     "train.data.gz has no label column 'label' (--target) among the 2 columns named by --names"),
    (fit_args("train.data.gz", "--no-header", "--names", "age,sex,label,extra"), 3,
     "train.data.gz, line 1: 3 fields, but --names gives 4 names; check --names"),
    (fit_args("train.data.gz", "--no-header"), 2, "--no-header needs the column names: give --names"),
    (fit_args("train.data.gz", "--names", "age,sex,label"), 2, "add --no-header"),
    (fit_args("train.data.gz", *HEADERLESS, "--names-file", "names.txt"), 2, "with --names or with --names-file"),
    (fit_args("train.data.gz", "--no-header", "--names", "age,age,label"), 2, "the column names repeat ['age']"),
    (fit_args("train.data.gz", "--no-header", "--names", ","), 2, "argument --names: expected the column names"),
    (fit_args("train.data.gz", "--no-header", "--names-file", "missing.txt"), 3,
     "names file missing.txt does not exist"),
    (fit_args("train.data.gz", *HEADERLESS, "--skip-lines", "-1"), 2, "argument --skip-lines"),
    (fit_args("train.csv", "--skip-lines", "1000"), 3, "train.csv: --skip-lines 1000 passes the end"),
    (fit_args("train.data.gz", *HEADERLESS, "--skip-lines", "9" * 30), 3, "passes the end of the file, which has"),
    (fit_args("train.csv", labels=("--positive", "yes", "--negative", "maybe")), 3,
     "row(s) of column 'label' (1 distinct value(s)) are neither --positive nor --negative; the first is row"),
    (fit_args("train.csv", labels=("--positive", "yes", "--negative", "no", "--positive", "no")), 2,
     "--positive and --negative must differ, both give ['no']"),
    (fit_args("missing.gz", *HEADERLESS), 3, "data file missing.gz does not exist"),
    (("predict", "missing.json", "train.data.gz", "--no-header"), 2, "--no-header needs the column names"),
])
def test_errors_are_one_line(small, capsys, monkeypatch, args, code, message):
    status, out, err = run_main(args, small, capsys, monkeypatch)
    assert status == code, err
    assert message in err, err
    assert len(err.splitlines()) == 1 and err.startswith("dpcvx: ") and "Traceback" not in err
    assert not (small / "out.json").exists()


def test_label_errors_do_not_show_the_values(small, capsys, monkeypatch):
    (small / "labels.csv").write_text("age,sex,label\n30,Male,yes\n40,Female,secret-value\n50,Male,\n")
    code, _, err = run_main(fit_args("labels.csv", labels=("--positive", "yes")), small, capsys, monkeypatch)
    assert code == 3 and len(err.splitlines()) == 1
    assert ("column 'label' holds missing values (an empty cell or '?', or text that spells one, 'NA' or 'NaN', as "
            "a reader of numbers reads it), first at row 2") in err
    (small / "labels.csv").write_text("age,sex,label\n30,Male,yes\n40,Female,secret-value\n50,Male,no\n")
    code, _, err = run_main(fit_args("labels.csv"), small, capsys, monkeypatch)
    assert code == 3 and "1 row(s) of column 'label'" in err and "secret" not in err


def test_a_gzip_error_in_the_middle_of_a_file(small, capsys, monkeypatch):
    """Damage found only after many records were read is still one typed line, and nothing is written."""
    records = "".join(f"{17 + i % 70}, Male, yes\n" for i in range(20000)).encode()
    data = bytearray(gzip.compress(records))
    data[len(data) // 2] ^= 0xFF
    (small / "damaged.gz").write_bytes(bytes(data))
    code, _, err = run_main(fit_args("damaged.gz", *HEADERLESS), small, capsys, monkeypatch)
    assert code == 3 and len(err.splitlines()) == 1 and "damaged.gz is not a valid gzip file" in err
    assert not (small / "out.json").exists()
