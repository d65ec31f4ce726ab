"""The command line, driven as a user drives it.

Each command and each kind of user error runs in a subprocess (``python -m
dpcvx.cli``), exit status and stderr checked. Variants of an error already
covered that way call :func:`dpcvx.cli.main` in this process (same parser,
same handlers, no second import of cvxpy), marked ``main`` in the parameters.
"""

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
COLUMNS = ["--numeric", "age:17:90", "--categorical", "sex:Female,Male", "--numeric", "hours:1:99"]


def dpcvx_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "dpcvx.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300, env=ENV)


@pytest.fixture
def run(capsys, monkeypatch):
    """run(via, *args, cwd): the CLI in a subprocess (via="subprocess") or through main() (via="main")."""

    def run_cli(via, *args, cwd):
        if via == "subprocess":
            return dpcvx_cli(*args, cwd=cwd)
        monkeypatch.chdir(cwd)
        try:
            code = main([str(arg) for arg in args])
        except SystemExit as exit_:  # argparse's usage errors
            code = exit_.code
        captured = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, captured.out, captured.err)

    return run_cli


def write_csv(path, header, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A small census-like table, Python files declaring losses, and a schema file."""
    directory = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(800):
        age, sex, hours = int(rng.integers(17, 91)), str(rng.choice(["Female", "Male"])), int(rng.integers(1, 100))
        score = 0.06 * (age - 45) + (0.7 if sex == "Male" else -0.7) + 0.04 * (hours - 40) + rng.normal()
        rows.append([age, sex, hours, ">50K" if score > 0 else "<=50K"])
    write_csv(directory / "train.csv", ["age", "sex", "hours", "income"], rows)
    (directory / "hinge.py").write_text("import cvxpy as cp\nloss = lambda z: cp.pos(1 - z)\n")
    (directory / "ridge_logistic.py").write_text(
        "import cvxpy as cp\n"
        "loss = lambda z: cp.logistic(-z)\n"
        "regularizer = lambda w: cp.sum_squares(w)\n")
    (directory / "lasso.py").write_text("import cvxpy as cp\nregularizer = lambda w: cp.norm1(w)\n")
    (directory / "opaque.py").write_text(
        "import cvxpy as cp\n"
        "class opaque(cp.logistic):\n"
        "    '''An atom the translator does not know: the verifier goes numeric.'''\n"
        "loss = lambda z: opaque(-z)\n")
    (directory / "broken.py").write_text("loss = 1 / 0\n")
    (directory / "no_loss.py").write_text("import cvxpy as cp\n")
    (directory / "exits.py").write_text("import sys\nsys.exit(3)\n")
    dpcvx.PublicSchema((dpcvx.NumericColumn("age", 17, 90), dpcvx.CategoricalColumn("sex", ("Female", "Male"))),
                       norm=1.0).save(directory / "schema.json")
    return directory


@pytest.fixture(scope="module")
def fitted(workdir):
    """A model fitted through the command line, and its stdout."""
    result = dpcvx_cli("fit", "train.csv", "--target", "income", "--positive", ">50K", "--negative", "<=50K",
                       *COLUMNS, "--epsilon", "1", "--lam", "1e-3", "--data-norm", "1", "--fit-intercept",
                       "--random-state", "0", "--out", "model.json", cwd=workdir)
    assert result.returncode == 0, result.stderr
    return workdir / "model.json", result.stdout


def fit_args(*extra):
    return ("fit", "train.csv", "--target", "income", "--positive", ">50K", "--negative", "<=50K",
            "--epsilon", "1", "--lam", "1e-3", *extra, "--out", "out.json")


# --- help -------------------------------------------------------------------------------------


def test_help_reads_well(workdir, run):
    top = dpcvx_cli("--help", cwd=workdir)
    assert top.returncode == 0
    for command in ("demo", "verify", "fit", "predict"):
        assert command in top.stdout
    assert "Exit status" in top.stdout
    fit = run("main", "fit", "--help", cwd=workdir)
    assert fit.returncode == 0
    assert "never inferred from the data" in fit.stdout and "run as Python code" in fit.stdout
    assert "--numeric NAME:LO:HI" in fit.stdout and "--others-negative" in fit.stdout


def _table_statuses() -> set[int]:
    """Every exit status of the one table (``dpcvx.cli.error_table``, docs/robustness.md's rows: its second column)."""
    from dpcvx.cli import error_table

    rows = [line for line in error_table().splitlines()[2:] if line.startswith("| ")]
    return {int(re.split(r"(?<!\\)\|", row)[2]) for row in rows}


def test_help_lists_every_exit_status_of_the_table():
    """``dpcvx --help`` names every status main() returns, each once and in order, from the table docs/robustness.md
    is written from (it lacked 1, 130 and 141); docs/cli.md's table lists each too."""
    from dpcvx.cli import EXIT_BROKEN_PIPE, EXIT_BUG, EXIT_CODES, EXIT_INTERRUPTED, EXIT_OK, build_parser

    statuses = _table_statuses()
    assert statuses >= {row.code for row in EXIT_CODES} | {EXIT_OK, EXIT_BUG, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE}
    epilog = " ".join(build_parser().epilog.split())
    listed = epilog[epilog.index("Exit status: "):].split("; each error")[0]
    named = [int(part.split()[0]) for part in listed.removeprefix("Exit status: ").split("; ")]
    assert named == sorted(statuses)
    page = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    section = page[page.index("## Exit status and errors"):]
    assert {int(code) for code in re.findall(r"^\| (\d+) \|", section, re.MULTILINE)} == statuses


def test_status_6_is_said_to_be_reserved_where_no_command_returns_it():
    """docs/cli.md and ``dpcvx --help`` promised "6 privacy budget exceeded", which no command can return: none
    takes or charges an accountant, each fit spends its own --epsilon (session 62, probeC F6). Both now say that 6
    is reserved; the CLI still has no accountant option."""
    from dpcvx.cli import build_parser

    parser = build_parser()
    epilog = " ".join(parser.epilog.split())
    assert "6 reserved for a privacy budget exceeded (no command charges an accountant" in epilog
    options = {option for action in parser._actions for option in action.option_strings}
    for command in parser._subparsers._group_actions[0].choices.values():
        options |= {option for action in command._actions for option in action.option_strings}
    assert not [option for option in options if "budget" in option or "accountant" in option]
    page = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    assert re.search(r"^\| 6 \| reserved for a privacy budget exceeded: no command charges", page, re.MULTILINE)


def test_strict_help_says_what_it_adds_to_the_default(workdir, run):
    """Estimates are refused by default; --strict refuses them only where --allow-estimates would accept them
    (not "conditions established numerically", which the default already refuses). The page says the same."""
    for command in ("verify", "fit"):
        help_text = " ".join(run("main", command, "--help", cwd=workdir).stdout.split())
        strict = help_text[help_text.index("--strict "):help_text.index("--allow-estimates accept")]
        assert "even with --allow-estimates" in strict and "numerically" not in strict, strict
    page = (Path(__file__).parents[2] / "docs" / "cli.md").read_text()
    strict = page[page.index("- `--strict`:"):page.index("- `--allow-estimates`:")]
    assert "even with `--allow-estimates`" in strict and "numerically" not in strict, strict


def test_verify_exits_with_the_status_its_help_states(workdir, run):
    help_text = " ".join(run("main", "verify", "--help", cwd=workdir).stdout.split())
    refused = run("main", "verify", "--loss", "hinge.py", "--mechanism", "objective", cwd=workdir)
    assert refused.returncode == 4
    assert f"{refused.returncode} when it is not" in help_text


@pytest.mark.slow
def test_python_dash_m_dpcvx_is_the_same_command(workdir):
    result = subprocess.run([sys.executable, "-m", "dpcvx", "verify", "--loss", "huber:h=0.5",
                             "--mechanism", "objective"], cwd=workdir, capture_output=True, text=True,
                            timeout=300, env=ENV)
    assert result.returncode == 0, result.stderr
    assert result.stdout == dpcvx_cli("verify", "--loss", "huber:h=0.5", "--mechanism", "objective",
                                      cwd=workdir).stdout


# --- verify -----------------------------------------------------------------------------------


@pytest.mark.slow  # 3 to 8 s (default run kept within 5 minutes); CI's slow tier runs it
def test_verify_allowed(workdir, run):
    result = run("subprocess", "verify", "--loss", "logistic", cwd=workdir)
    assert result.returncode == 0, result.stderr
    assert "objective perturbation: allowed" in result.stdout
    assert any(line.split()[:4] == ["curvature", "1/4", "symbolic", "pass"] for line in result.stdout.splitlines())
    huber = run("main", "verify", "--loss", "huber:h=0.25", "--mechanism", "output", cwd=workdir)
    assert huber.returncode == 0 and "piecewise C^2" in huber.stdout


@pytest.mark.slow  # about 3 s (a subprocess): the slow tier runs it
def test_verify_refused_shows_the_reasons(workdir):
    result = dpcvx_cli("verify", "--loss", "hinge.py", "--mechanism", "output", cwd=workdir)
    assert result.returncode == 4 and len(result.stderr.splitlines()) == 1
    assert "output perturbation: NOT allowed" in result.stdout
    assert "output perturbation is not allowed" in result.stderr
    assert "differentiability" in result.stderr and "fix: smooth the kink" in result.stderr


@pytest.mark.slow  # 3 to 7 s: the default run is kept within 5 minutes; CI's slow tier runs it
def test_verify_python_file_with_regularizer(workdir, run):
    own = dpcvx_cli("verify", "--loss", "ridge_logistic.py", cwd=workdir)
    assert own.returncode == 0, own.stderr
    assert "N(w) = sum_squares(w)" in own.stdout
    assert any(line.split()[:2] == ["strong_convexity", "2"] for line in own.stdout.splitlines())
    lasso = run("main", "verify", "--loss", "ridge_logistic.py", "--regularizer", "lasso.py", cwd=workdir)
    assert lasso.returncode == 0 and "regularizer_prox" in lasso.stdout  # objective: KST12 covers L1
    lasso = run("main", "verify", "--loss", "ridge_logistic.py", "--regularizer", "lasso.py", "--mechanism",
                "output", cwd=workdir)
    assert lasso.returncode == 4 and "strong_convexity" in lasso.stderr


@pytest.mark.slow  # 3 to 7 s: the default run is kept within 5 minutes; CI's slow tier runs it
def test_estimated_constants_need_allow_estimates_and_strict_refuses_them(workdir, run):
    refused = run("main", "verify", "--loss", "opaque.py", cwd=workdir)
    assert refused.returncode == 4 and len(refused.stderr.splitlines()) == 1
    assert "ESTIMATE, not a proof" in refused.stderr and "with --allow-estimates" in refused.stderr
    allowed = run("main", "verify", "--loss", "opaque.py", "--allow-estimates", cwd=workdir)
    assert allowed.returncode == 0, allowed.stderr
    assert "pass (estimate)" in allowed.stdout and "CONDITIONAL guarantee" in allowed.stdout
    strict = dpcvx_cli("verify", "--loss", "opaque.py", "--allow-estimates", "--strict", cwd=workdir)
    assert strict.returncode == 4 and len(strict.stderr.splitlines()) == 1
    # fit passes the flag on too: the refusal changes from "estimate" to CVXPY's posing (the atom has no canonical
    # form), which shows the certificate allowed it; refused before the charge (an input error, not the solver's)
    fitted = run("main", *fit_args(*COLUMNS, "--data-norm", "1", "--loss", "opaque.py", "--allow-estimates"),
                 cwd=workdir)
    assert fitted.returncode == 3 and "ESTIMATE" not in fitted.stderr and "canonicalization" in fitted.stderr, \
        fitted.stderr


@pytest.mark.parametrize("via, args, code, message", [
    ("subprocess", ["--loss", "squared"], 2,
     "usage error: --loss: unknown loss 'squared'; the known losses are: huber, huber_hinge, huber_regression, "
     "logistic"),
    ("main", ["--loss", "huber:h=-1"], 2, "h must be finite and positive, got -1.0"),
    pytest.param("subprocess", ["--loss", "missing.py"], 3, "Python file missing.py does not exist",
                 marks=pytest.mark.slow),
    ("main", ["--loss", "x" * 300 + ".py"], 3, "Python file " + "x" * 300 + ".py does not exist"),  # errno 36
    ("main", ["--loss", "broken.py"], 3, "running broken.py failed: ZeroDivisionError"),
    ("main", ["--loss", "no_loss.py"], 3, "no_loss.py: `loss` is not defined"),
    ("main", ["--loss", "exits.py"], 3, "running exits.py failed: SystemExit: 3"),
    ("main", ["--loss", "logistic", "--regularizer", "l2"], 2, "--regularizer takes a Python file"),
    ("main", ["--loss", "logistic", "--dim", "0"], 2, "argument --dim: --dim must be an integer from 1 to 100000"),
    ("main", ["--loss", "logistic", "--mechanism", "laplace"], 2, "invalid choice: 'laplace'"),
    ("main", [], 2, "the following arguments are required: --loss"),
    ("main", ["--loss", "huber:h=1e300"], 2, "h=1e+300 is outside the range [1e-08, 1e+08]"),
])
def test_verify_errors(workdir, run, via, args, code, message):
    result = run(via, "verify", *args, cwd=workdir)
    assert result.returncode == code, result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


# --- fit and predict --------------------------------------------------------------------------


def test_fit_writes_a_model_with_schema_and_certificate(fitted):
    path, stdout = fitted
    assert "model written to model.json (800 rows, 4 features)" in stdout
    assert "objective perturbation, epsilon = 1" in stdout
    data = json.loads(path.read_text())
    assert data["classes"] == ["<=50K", ">50K"] and data["epsilon"] == 1.0
    schema = data["preprocessing"]["schema"]
    assert [column["name"] for column in schema["columns"]] == ["age", "sex", "hours"]
    assert schema["norm"] == 1.0 and data["preprocessing"]["row_map"]["fit_intercept"] is True
    assert (schema["version"], schema["encoding"]) == (2, "centred")  # the schema's default code
    assert data["certificate"]["constants"]["n"]["float"] == 800
    model = dpcvx.load(path)
    assert model.schema.feature_names == ("age:scaled", "sex=Female", "sex=Male", "hours:scaled")


@pytest.mark.slow  # 3 to 8 s (default run kept within 5 minutes); CI's slow tier runs it
def test_predict_matches_the_model(fitted):
    path, _ = fitted
    workdir = path.parent
    result = dpcvx_cli("predict", "model.json", "train.csv", "--out", "predictions.csv", cwd=workdir)
    assert result.returncode == 0, result.stderr
    assert "800 predictions written to predictions.csv" in result.stdout
    with open(workdir / "predictions.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    model = dpcvx.load(path)
    with open(workdir / "train.csv", newline="") as handle:
        records = list(csv.DictReader(handle))
    table = {name: np.array([record[name] for record in records]) for name in ("age", "sex", "hours")}
    X = model.schema.transform(table)
    assert [row["prediction"] for row in rows] == model.predict(X).tolist()
    assert np.array_equal([float(row["decision"]) for row in rows], model.decision_function(X))
    accuracy = np.mean([row["prediction"] == record["income"] for row, record in zip(rows, records, strict=True)])
    assert accuracy > 0.7  # measured: about 0.8 at epsilon = 1, n = 800
    to_stdout = dpcvx_cli("predict", "model.json", "train.csv", cwd=workdir)
    assert to_stdout.returncode == 0
    assert to_stdout.stdout.splitlines() == (workdir / "predictions.csv").read_text().splitlines()


@pytest.mark.slow  # 3 to 7 s: the default run is kept within 5 minutes; CI's slow tier runs it
def test_fit_with_schema_file_and_others_negative(workdir, run):
    rows = [[age, "Male" if age % 2 else "Female", ["yes", "no", "maybe"][age % 3]] for age in range(17, 91)] * 5
    write_csv(workdir / "three_labels.csv", ["age", "sex", "answer"], rows)
    base = ("fit", "three_labels.csv", "--target", "answer", "--positive", "yes", "--negative", "no",
            "--schema", "schema.json", "--epsilon", "2", "--lam", "1e-2", "--mechanism", "output",
            "--out", "schema_model.json")
    strict = run("main", *base, cwd=workdir)
    assert strict.returncode == 3
    assert "125 row(s) of column 'answer' (1 distinct value(s)) are neither --positive nor --negative; the first " \
        "is row 0" in strict.stderr and "maybe" not in strict.stderr  # the count, not the private values
    assert "omit --negative" in strict.stderr
    result = dpcvx_cli(*base, "--others-negative", "--data-norm", "0.5", cwd=workdir)
    assert result.returncode == 0, result.stderr
    model = dpcvx.load(workdir / "schema_model.json")
    assert model.certificate.mechanism == "output" and model.certificate.data_norm == 0.5
    assert model.schema.norm == 0.5 and model.classes_.tolist() == ["no", "yes"]
    assert model.schema.encoding == "centred"
    old = json.loads((workdir / "schema.json").read_text())  # a schema file written before issue 42: version 1
    old["version"] = 1
    del old["encoding"]
    (workdir / "old_schema.json").write_text(json.dumps(old))
    older = run("main", *[{"schema.json": "old_schema.json", "schema_model.json": "old_model.json"}.get(a, a)
                          for a in base], "--others-negative", cwd=workdir)
    assert older.returncode == 0, older.stderr
    kept = dpcvx.load(workdir / "old_model.json")
    assert kept.schema.encoding == "unit"  # its old meaning: the [0, 1] code
    assert json.loads((workdir / "old_model.json").read_text())["preprocessing"]["schema"]["version"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("via, args, code, message", [
    ("subprocess", fit_args(*COLUMNS, "--data-norm", "1", "--epsilon", "0"), 2,
     "argument --epsilon: --epsilon must be finite and positive, got 0.0 (see"),
    ("main", fit_args(*COLUMNS, "--data-norm", "1", "--epsilon", "nan"), 2,
     "argument --epsilon: --epsilon must be finite and positive, got nan (see"),  # the API's words for a NaN
    ("main", fit_args(*COLUMNS, "--data-norm", "-1"), 2,
     "argument --data-norm: --data-norm must be finite and positive, got -1.0"),
    ("subprocess", fit_args(*COLUMNS, "--data-norm", "1", "--loss", "squared"), 2, "unknown loss 'squared'"),
    ("subprocess", fit_args(*COLUMNS, "--data-norm", "1", "--loss", "hinge.py"), 4,
     "objective perturbation is not allowed"),
    ("main", fit_args(*COLUMNS, "--data-norm", "1", "--loss", "hinge.py", "--mechanism", "output"), 4,
     "fix: smooth the kink"),
    ("main", fit_args(*COLUMNS), 2, "--data-norm R is required"),
    ("main", fit_args("--data-norm", "1"), 2, "no feature columns"),
    ("main", fit_args(*COLUMNS, "--schema", "schema.json"), 2, "either in --schema FILE or with --numeric"),
    ("main", fit_args("--schema", "missing.json"), 3, "schema file missing.json does not exist"),
    ("main", fit_args("--schema", "train.csv"), 3, "schema file train.csv is not valid JSON"),
    ("main", fit_args("--numeric", "income:0:1", "--data-norm", "1"), 2,
     "the target column 'income' is also a feature column"),
    ("main", fit_args("--numeric", "age:90:17", "--data-norm", "1"), 2, "is reversed or empty: a public range"),
    ("main", fit_args("--numeric", "age-17-90", "--data-norm", "1"), 2, "expected NAME:LO:HI"),
    ("main", fit_args("--categorical", "sex", "--data-norm", "1"), 2, "expected NAME:CAT1,CAT2"),
    ("subprocess", fit_args("--numeric", "sex:0:1", "--data-norm", "1"), 3,
     "train.csv: numeric column 'sex' holds a value that is not a number in row 0 (data rows count from 0 at the "
     "first record: row 0 is the first line after the header, line 2 of a CSV file"),
    ("subprocess", fit_args("--numeric", "salary:0:1", "--data-norm", "1"), 3,
     "train.csv has no column(s) ['salary'] among its 4 columns"),
    ("main", fit_args(*COLUMNS, "--data-norm", "1", "--random-state", "-3"), 2,
     "argument --random-state: --random-state must be an integer from 0 to 2^128 - 1"),
    ("subprocess", ("fit", "missing.csv", "--target", "income", "--positive", "a", "--negative", "b",
                    *COLUMNS, "--epsilon", "1", "--lam", "1", "--data-norm", "1", "--out", "out.json"), 3,
     "data file missing.csv does not exist"),
    ("subprocess", ("fit", "train.csv", "--target", "income", "--positive", ">50K", "--negative", "no",
                    *COLUMNS, "--epsilon", "1", "--lam", "1", "--data-norm", "1", "--out", "out.json"), 3,
     "column 'income' (1 distinct value(s)) are neither --positive nor --negative; the first is row 1"),
    ("main", ("fit", "train.csv", "--target", "income", "--positive", "x", "--negative", "x", *COLUMNS,
              "--epsilon", "1", "--lam", "1", "--data-norm", "1", "--out", "out.json"), 2,
     "--positive and --negative must differ"),
    ("main", fit_args(*COLUMNS, "--data-norm", "1")[:-2] + ("--out", "no/such/dir/out.json"), 3,
     "the directory"),
    ("main", ("fit", "train.csv", "--positive", "a", "--negative", "b", "--epsilon", "1", "--lam", "1",
              "--out", "x.json"), 2, "the following arguments are required: --target"),
])
def test_fit_errors(workdir, run, via, args, code, message):
    result = run(via, *args, cwd=workdir)
    assert result.returncode == code, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr
    assert not (workdir / "out.json").exists()


@pytest.mark.parametrize("content, message", [
    ("", "empty.csv is empty; it needs a header row"),
    ("age,sex,hours,income\n", "has a header but no data rows"),
    ("age,sex,hours,income\n30,Male,40,>50K\n31,Male,>50K\n", "line 3: 3 fields, but the header has 4"),
    ("age,sex,hours,income\n,Male,40,>50K\n", "numeric column 'age' holds a missing or non-finite value in row 0"),
    ("age,sex,hours,income\nnan,Male,40,>50K\n", "numeric column 'age': give it --impute age=VALUE"),
    ("age,age,hours,income\n1,2,3,>50K\n", "the header repeats a column name at field(s) [2]"),
])
def test_malformed_csv(tmp_path, run, content, message):
    (tmp_path / "empty.csv").write_text(content)
    result = run("main", "fit", "empty.csv", "--target", "income", "--positive", ">50K", "--negative", "<=50K",
                       *COLUMNS, "--epsilon", "1", "--lam", "1", "--data-norm", "1", "--out", "out.json",
                       cwd=tmp_path)
    assert result.returncode == 3
    assert message in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.mark.slow
def test_predict_errors(fitted, tmp_path, run):
    path, _ = fitted
    data = json.loads(path.read_text())
    data["epsilon"] = 100.0
    (tmp_path / "edited.json").write_text(json.dumps(data))
    X = np.random.default_rng(0).normal(size=(50, 3))
    X /= 2 * np.linalg.norm(X, axis=1, keepdims=True)
    no_schema = dpcvx.PrivateERM(data_norm=1.0).fit(X, np.where(X[:, 0] > 0, 1, -1), epsilon=1.0,
                                                     random_state=0)
    dpcvx.save(no_schema, tmp_path / "no_schema.json")
    write_csv(tmp_path / "ages.csv", ["age", "hours"], [[30, 40]])
    write_csv(tmp_path / "ok.csv", ["age", "sex", "hours"], [[30, "Male", 40]])
    cases = [
        ("subprocess", ("predict", "missing.json", "ok.csv"), "model file missing.json does not exist"),
        ("subprocess", ("predict", "edited.json", "ok.csv"), "epsilon is 100.0 but the certificate records 1.0"),
        ("subprocess", ("predict", "no_schema.json", "ok.csv"), "holds no public schema"),
        ("subprocess", ("predict", path, "ages.csv"), "ages.csv has no column(s) ['sex']"),
        ("main", ("predict", path, "missing.csv"), "data file missing.csv does not exist"),
        ("main", ("predict", path, "ok.csv", "--out", "no/dir/p.csv"), "the directory"),
        ("main", ("predict", path), "the following arguments are required: DATA"),
    ]
    for via, args, message in cases:
        result = run(via, *args, cwd=tmp_path)
        assert result.returncode == (2 if "required" in message else 3), (args, result.stderr)
        assert len(result.stderr.splitlines()) == 1, result.stderr
        assert message in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr


# --- every invalid input: one line on stderr, the exit status of its class ---------------------


@pytest.fixture(scope="module")
def bad_inputs(workdir):
    (workdir / "a_directory").mkdir(exist_ok=True)
    (workdir / "latin1.csv").write_bytes("age,sex,hours,income\n30,M\xe4nnlich,40,>50K\n".encode("latin-1"))
    (workdir / "huge_cell.csv").write_text("age,sex,hours,income\n1e400,Male,40,>50K\n")
    (workdir / "empty.csv").write_text("")
    (workdir / "bom.csv").write_bytes(b"\xef\xbb\xbf")
    (workdir / "nested.json").write_text("[" * 50_000 + "]" * 50_000)
    return workdir


@pytest.mark.parametrize("args, code, message", [
    (fit_args("--schema", "a_directory"), 3, "schema file a_directory is a directory, not a file"),
    (fit_args("--schema", "nested.json"), 3, "schema file nested.json nests JSON"),
    (fit_args("--schema", "latin1.csv"), 3, "schema file latin1.csv is not UTF-8 text"),
    (fit_args(*COLUMNS, "--data-norm", "1")[:1] + ("latin1.csv",) + fit_args(*COLUMNS, "--data-norm", "1")[2:], 3,
     "latin1.csv is not UTF-8 text"),
    (fit_args(*COLUMNS, "--data-norm", "1")[:1] + ("huge_cell.csv",) + fit_args(*COLUMNS, "--data-norm", "1")[2:], 3,
     "numeric column 'age' holds a missing or non-finite value in row 0"),
    (fit_args(*COLUMNS, "--data-norm", "1")[:1] + ("a_directory",) + fit_args(*COLUMNS, "--data-norm", "1")[2:], 3,
     "a_directory is a directory, not a file"),
    (fit_args(*COLUMNS, "--data-norm", "1")[:1] + ("bom.csv",) + fit_args(*COLUMNS, "--data-norm", "1")[2:], 3,
     "bom.csv is empty"),
    (fit_args(*COLUMNS, "--data-norm", "1e200"), 2,
     "argument --data-norm: --data-norm 1e+200 is outside the range [1e-75, 1e+75]"),
    (fit_args(*COLUMNS, "--data-norm", "1e400"), 2,
     "argument --data-norm: must be a positive number, got '1e400': 1e400 is beyond the range of a double-precision "
     "float"),
    (fit_args(*COLUMNS, "--data-norm", "1", "--lam", "1e-300"), 2, "--lam 1e-300 is outside the range"),
    (fit_args(*COLUMNS, "--data-norm", "1", "--epsilon", "2e6"), 2,
     "--epsilon 2e+06 is outside the range [1e-12, 1e+06]"),
    (fit_args(*COLUMNS, "--data-norm", "1", "--epsilon", "9" * 5000), 2, "argument --epsilon"),
    (fit_args(*COLUMNS, "--data-norm", "1", "--loss", "huber:h=1e300"), 2, "h=1e+300 is outside the range"),
    (fit_args("--numeric", "age:-1e308:1e308", "--data-norm", "1"), 2, "hi - lo = 1e+308 - (-1e+308) overflows"),
    (fit_args(*COLUMNS, "--data-norm", "1")[:-2] + ("--out", "a_directory"), 3,
     "cannot write the model to a_directory: it is a directory"),
    (("demo", "--n", "-5"), 2, "argument --n: --n must be an integer from 30 to 1000000, got -5"),
    (("demo", "--seed", "-1"), 2, "argument --seed: --seed must be an integer from 0 to 2^128 - 1 (a reproducible "
     "seed, for experiments only); got '-1'"),
    (("demo", "--draws", "0"), 2, "argument --draws: --draws must be an integer from 1 to 100"),
    (("demo", "--plot", "no/such/dir/plot.png"), 3, "cannot write the plot to no/such/dir/plot.png"),
    (("verify", "--loss", "logistic", "--dim", "1" * 5000), 2, "argument --dim: --dim must be an integer"),
    (("predict", "nested.json", "train.csv"), 3, "model file nested.json nests JSON"),
    (("predict", "a_directory", "train.csv"), 3, "model file a_directory is a directory"),
    (("predict", "latin1.csv", "train.csv"), 3, "model file latin1.csv is not UTF-8 text"),
    (("nonsense",), 2, "invalid choice: 'nonsense'"),
    (("fit", "--bogus"), 2, "usage error"),
    # an empty entry was dropped: --classes a,,b,c,d fitted four classes
    (("fit", "train.csv", "--target", "income", "--classes", "a,,b,c,d", *COLUMNS, "--data-norm", "1", "--out",
      "out.json"), 2, "argument --classes: entry 2 of 'a,,b,c,d' is empty: give the class labels separated by single "
                      "commas, none empty"),
    (("fit", "train.csv", "--target", "income", "--classes", "a,b,c,", *COLUMNS, "--data-norm", "1", "--out",
      "out.json"), 2, "argument --classes: entry 4 of 'a,b,c,' is empty"),
    (fit_args("--no-header", "--names", "age,,sex,hours,income", *COLUMNS, "--data-norm", "1"), 2,
     "argument --names: entry 2 of 'age,,sex,hours,income' is empty: give the column names"),
    ((), 2, "the following arguments are required: COMMAND"),
])
def test_every_invalid_input_is_one_line_and_its_exit_status(bad_inputs, run, args, code, message):
    result = run("main", *args, cwd=bad_inputs)
    assert result.returncode == code, result.stderr
    assert message in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("dpcvx: ")
    assert not (bad_inputs / "out.json").exists()


def test_overflow_in_the_calibration_is_a_numeric_range_error(workdir, run, monkeypatch):
    """Should an extreme public number still overflow inside the numerics, the user gets one typed line."""
    from dpcvx.privacy import calibrate

    def overflow(*args, **kwargs):
        raise OverflowError("math range error")

    monkeypatch.setattr(calibrate, "objective_perturbation", overflow)
    result = run("main", *fit_args(*COLUMNS, "--data-norm", "1"), cwd=workdir)
    assert result.returncode == 3 and len(result.stderr.splitlines()) == 1
    # the library's own NumericRangeError (every entry point's), naming the public values
    assert "epsilon = 1, delta = 0, lam = 0.001, R = 1) are too extreme" in result.stderr
    assert "OverflowError: math range error" in result.stderr and "nothing was charged" in result.stderr


def test_a_traceback_only_for_a_bug(workdir, monkeypatch):
    """A non-dpcvx exception is not caught: it is a bug, and Python's traceback (exit 1) shows it."""
    from dpcvx import cli
    from dpcvx.cli import commands
    monkeypatch.setattr(commands, "verify_command", lambda args: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        cli.main(["verify", "--loss", "logistic"])


def test_error_lines_and_codes_come_from_one_table():
    from dpcvx import cli, exceptions
    codes = {row.error: row.code for row in cli.EXIT_CODES}
    assert codes[exceptions.UsageError] == 2 and codes[exceptions.InputError] == 3
    assert codes[exceptions.AssumptionError] == 4 and codes[exceptions.SolverError] == 5
    assert codes[exceptions.BudgetExceededError] == 6
    # every DPCVXError subclass of dpcvx.exceptions has a code (through its most specific listed class)
    for name in exceptions.__all__:
        error = getattr(exceptions, name)
        if isinstance(error, type) and issubclass(error, exceptions.DPCVXError):
            instance = error("first line\n  second line\r\nthird")
            assert cli.exit_code(instance) == codes.get(error, cli.exit_code(instance))
            line = cli.error_line(instance)
            assert "\n" not in line and "\r" not in line and line.endswith("first line second line third")
    assert cli.exit_code(exceptions.FileError("x")) == 3 and cli.exit_code(exceptions.NumericRangeError("x")) == 3
    assert cli.error_line(exceptions.SolverError("s")) == "dpcvx: solver error: s"


# --- demo -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_demo_writes_its_plot_to_the_current_directory_and_prints_the_absolute_path(tmp_path, run, monkeypatch):
    pytest.importorskip("matplotlib")
    from dpcvx import demo
    real = demo.run_demo
    monkeypatch.setattr(demo, "run_demo", lambda *, n, draws, random_state: real(n=30, draws=1, epsilons=(1.0,),
                                                                                  random_state=random_state))
    result = run("main", "demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    plot = (tmp_path / "dpcvx-demo.png").resolve()
    assert plot.read_bytes().startswith(b"\x89PNG")
    assert f"plot written to {plot}\n" in result.stdout and plot.is_absolute()
    (tmp_path / "plots").mkdir()
    result = run("main", "demo", "--plot", "plots/accuracy.png", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"plot written to {(tmp_path / 'plots' / 'accuracy.png').resolve()}\n" in result.stdout
