"""The command line as a face of the Python API (the audit of the CLI): --out never replaces a file the command reads;
``dpcvx fit`` fits the estimator a Python user would (its defaults, checks and warnings); a rare class is handled by
the estimators' class_weight, class_prior and threshold; --lam is parsed as the API's lam."""

import csv
import os
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.data.preprocessing import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.exceptions import NoiseDominatesWarning

FEATURES = ["--numeric", "a:0:10", "--numeric", "b:0:10", "--categorical", "c:x,y,z", "--data-norm", "1"]
SCHEMA = PublicSchema((NumericColumn("a", 0, 10), NumericColumn("b", 0, 10), CategoricalColumn("c", ("x", "y", "z"))))


def write_table(path, n, seed=0, rare=0.5):
    """Columns a, b (numbers), c (categories), a target t = a - b + noise and a label k, 'yes' at about ``rare``
    of the rows (more often at large a)."""
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(0, 10, n), rng.uniform(0, 10, n)
    c = rng.choice(["x", "y", "z"], n)
    target = np.clip(a - b + rng.normal(0, 1, n), -10, 10)
    cut = np.quantile(a + rng.normal(0, 1, n), 1 - rare)
    label = np.where(a + rng.normal(0, 1, n) > cut, "yes", "no")
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["a", "b", "c", "t", "k"])
        writer.writerows(zip(a.round(3), b.round(3), c, target.round(3), label, strict=True))
    return path


def cli(capsys, *args):
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def api_message(expected: str) -> str:
    """``expected``, or for "api: NAME=VALUE" the message of the InputError DPLogisticRegression(NAME=VALUE).fit
    raises: the command line must refuse a value with the API's own words."""
    if not expected.startswith("api: "):
        return expected
    name, value = expected.removeprefix("api: ").split("=")
    X, y = np.eye(4) / 2, np.array([0, 1, 0, 1])
    with pytest.raises(dpcvx.exceptions.InputError) as refused:
        dpcvx.DPLogisticRegression(**{name: float(value)}).fit(X, y)
    return str(refused.value)


BINARY = ["--target", "k", "--positive", "yes", "--negative", "no", *FEATURES, "--epsilon", "1", "--random-state", "0"]
REGRESSION = ["--target", "t", "--task", "regression", "--label-bound=-10,10", *FEATURES, "--epsilon", "1",
              "--delta", "1e-6", "--random-state", "0"]


# --- 1. --out is never a file the command reads ------------------------------------------------------------------


@pytest.fixture()
def files(tmp_path, monkeypatch, capsys):
    """A data file, a model fitted on it and its bytes, in the current directory."""
    monkeypatch.chdir(tmp_path)
    write_table(tmp_path / "train.csv", 400)
    assert cli(capsys, "fit", "train.csv", *BINARY, "--out", "model.json")[0] == 0
    os.symlink("train.csv", "link.csv")
    os.link("model.json", "hard.json")
    return {name: (tmp_path / name).read_bytes() for name in ("train.csv", "model.json")}


@pytest.mark.parametrize("args, replaced", [
    (["fit", "train.csv", *BINARY, "--out", "train.csv"], "data file"),
    (["fit", "train.csv", *BINARY, "--out", "./train.csv"], "data file"),
    (["fit", "train.csv", *BINARY, "--out", "link.csv"], "data file"),
    (["predict", "model.json", "train.csv", "--out", "train.csv"], "data file"),
    (["predict", "model.json", "train.csv", "--out", "hard.json"], "model file"),
    (["predict", "model.json", "link.csv", "--out", "train.csv"], "data file"),
    (["report", "model.json", "--out", "model.json"], "model file"),
    (["report", "model.json", "--out", "hard.json"], "model file"),
])
def test_an_out_that_is_an_input_is_refused_and_the_input_kept(files, tmp_path, capsys, args, replaced):
    code, _, err = cli(capsys, *args)
    assert code == 3, err
    assert f"it is the {replaced}" in err and "choose another path" in err
    assert {name: (tmp_path / name).read_bytes() for name in files} == files


def test_a_schema_or_names_file_is_an_input_too(files, tmp_path, capsys):
    (tmp_path / "schema.json").write_text('{"columns": []}')
    code, _, err = cli(capsys, "fit", "train.csv", "--target", "k", "--positive", "yes", "--schema", "schema.json",
                       "--epsilon", "1", "--out", "schema.json")
    assert code == 3 and "it is the schema file" in err
    assert (tmp_path / "schema.json").read_text() == '{"columns": []}'


# --- 2. dpcvx fit is the estimator of the Python API ------------------------------------------------------------


def encoded(path):
    table = {name: np.array(values) for name, values in zip(*_columns(path), strict=True)}
    return SCHEMA.transform(table), table


def _columns(path):
    with open(path) as handle:
        rows = list(csv.reader(handle))
    return rows[0], [list(column) for column in zip(*rows[1:], strict=True)]


@pytest.mark.parametrize("options, estimator", [
    (REGRESSION, lambda: dpcvx.DPLinearRegression(epsilon=1, delta=1e-6, label_bound=(-10, 10), random_state=0)),
    (REGRESSION + ["--loss", "huber_regression"],
     lambda: dpcvx.DPHuberRegressor(epsilon=1, delta=1e-6, label_bound=(-10, 10), random_state=0)),
    (BINARY, lambda: dpcvx.DPLogisticRegression(epsilon=1, classes=("no", "yes"), random_state=0)),
])
def test_fit_releases_what_the_python_estimator_releases(tmp_path, capsys, options, estimator):
    data = write_table(tmp_path / "d.csv", 3000)
    code, _, err = cli(capsys, "fit", data, *options, "--out", tmp_path / "m.json")
    assert code == 0, err
    X, table = encoded(data)
    y = table["t"].astype(float) if "regression" in options else table["k"]
    python = estimator().fit(X, y)
    saved = dpcvx.load(tmp_path / "m.json")
    assert saved.certificate.mechanism == python.certificate_.mechanism
    np.testing.assert_allclose(np.ravel(saved.coef_), np.ravel(python.coef_), rtol=0, atol=1e-9)


def test_fit_warns_as_the_estimator_does_on_stderr_never_in_the_file(tmp_path, capsys):
    """n=300 is too few rows to locate the label: DPLinearRegression's warning, from the command line too."""
    data = write_table(tmp_path / "d.csv", 300)
    with pytest.warns(NoiseDominatesWarning, match="label was not located"):
        code, _, err = cli(capsys, "fit", data, *REGRESSION, "--out", tmp_path / "m.json")
    assert code == 0, err
    assert "located" not in (tmp_path / "m.json").read_text()


# --- 3. a rare class: class_weight, class_prior, threshold -----------------------------------------------------


@pytest.fixture()
def rare(tmp_path):
    return write_table(tmp_path / "rare.csv", 6000, seed=2, rare=0.03)


def positives(capsys, *args):
    code, out, err = cli(capsys, "predict", *args)
    assert code == 0, err
    return sum(line.startswith("yes,") for line in out.splitlines())


def test_a_rare_class_is_predicted_with_the_estimators_options(rare, tmp_path, capsys):
    plain, balanced = tmp_path / "plain.json", tmp_path / "balanced.json"
    assert cli(capsys, "fit", rare, *BINARY, "--out", plain)[0] == 0
    code, _, err = cli(capsys, "fit", rare, *BINARY, "--class-weight", "balanced", "--class-prior", "private",
                       "--out", balanced)
    assert code == 0, err
    assert dpcvx.load(balanced).certificate.weights is not None  # the private count, in the certificate
    assert positives(capsys, balanced, rare) > 5 * max(positives(capsys, plain, rare), 1)


def predicted(capsys, *args):
    code, out, err = cli(capsys, "predict", *args)
    assert code == 0, err
    return [line.split(",")[0] for line in out.splitlines()[1:]]


@pytest.mark.parametrize("options, python", [
    (["--class-prior", "0.97,0.03", "--threshold", "prior"], {"class_prior": (0.97, 0.03), "threshold": "prior"}),
    (["--class-prior", "private", "--threshold", "prior"], {"class_prior": "private", "threshold": "prior"}),
    (["--threshold", "0.1"], {"threshold": 0.1})], ids=["public prior", "private prior", "0.1"])
def test_fit_saves_the_threshold_and_predict_predicts_the_estimators_labels(rare, tmp_path, capsys, options, python):
    """The model file keeps the estimator's decision cut: dpcvx predict, without --threshold, says what the
    estimator predicts; --threshold overrides it."""
    model = tmp_path / "m.json"
    code, out, err = cli(capsys, "fit", rare, *BINARY, *options, "--out", model)
    assert code == 0, err
    assert "give the same threshold" not in out and "dpcvx predict uses this cut" in out
    X, table = encoded(rare)
    estimator = dpcvx.DPLogisticRegression(epsilon=1, classes=("no", "yes"), random_state=0, **python)
    labels = estimator.fit(X, table["k"]).predict(X).tolist()
    assert f"{estimator.decision_cut_:.6g}" in out
    assert predicted(capsys, model, rare) == labels
    assert sum(label == "yes" for label in labels) > positives(capsys, model, rare, "--threshold", "0.5")


def test_predict_threshold_overrides_the_files_cut(rare, tmp_path, capsys):
    model = tmp_path / "m.json"
    code, _, err = cli(capsys, "fit", rare, *BINARY, "--class-prior", "0.97,0.03", "--threshold", "prior",
                       "--out", model)
    assert code == 0, err
    assert predicted(capsys, model, rare) == predicted(capsys, model, rare, "--threshold", "0.03")
    plain = tmp_path / "plain.json"
    assert cli(capsys, "fit", rare, *BINARY, "--class-prior", "0.97,0.03", "--out", plain)[0] == 0
    assert predicted(capsys, model, rare, "--threshold", "0.5") == predicted(capsys, plain, rare)
    code, _, err = cli(capsys, "predict", model, rare, "--threshold", "prior")  # no released count to take rates of
    assert code == 3 and "--threshold prior" in err


def test_a_fit_at_the_default_threshold_writes_no_cut(rare, tmp_path, capsys):
    model = tmp_path / "m.json"
    code, out, err = cli(capsys, "fit", rare, *BINARY, "--threshold", "0.5", "--out", model)
    assert code == 0, err
    assert "decision_cut" not in model.read_text() and "dpcvx predict uses this cut" not in out


@pytest.mark.parametrize("options, code, message", [
    (["--class-weight", "Balanced"], 2, "argument --class-weight: the command line takes 'balanced' only"),
    (["--threshold", "1.5"], 2, "api: threshold=1.5"),
    (["--threshold", "often"], 2, "argument --threshold"),
    (["--class-prior", "0.5,0.6"], 2, "--class-prior's rates must lie in (0, 1) and sum to 1"),
    (["--class-prior", "rare"], 2, "argument --class-prior"),
    (["--threshold", "prior"], 2, "--threshold prior cuts"),
])
def test_the_class_options_are_checked_as_the_estimators_check_them(rare, tmp_path, capsys, options, code, message):
    message = api_message(message)
    result, _, err = cli(capsys, "fit", rare, *BINARY, *options, "--out", tmp_path / "m.json")
    assert result == code and message in err, err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("options", [["--loss", "huber:h=0.5"], ["--no-fit-intercept"]], ids=["huber", "no intercept"])
def test_a_class_prior_without_effect_is_refused(rare, tmp_path, capsys, options):
    # without --class-weight the prior is read only as the logistic intercept offset: a Huber classifier or a model
    # without intercept would have fitted (and written a model file without the prior) as if it were not given
    code, _, err = cli(capsys, "fit", rare, *BINARY, *options, "--class-prior", "0.3,0.7", "--out", tmp_path / "m.json")
    assert code == 2 and "--class-prior 0.3,0.7 without class weights" in err and "no effect" in err, err
    assert not (tmp_path / "m.json").exists()


def test_a_regression_takes_no_class_options(rare, tmp_path, capsys):
    code, _, err = cli(capsys, "fit", rare, *REGRESSION, "--class-weight", "balanced", "--out", tmp_path / "m.json")
    assert code == 2 and "usage error: --class-weight set options of a classifier" in err


@pytest.mark.parametrize("value", ["Balanced", "1,49", "no:1,yes:49", "{0: 1, 1: 49}"])
def test_a_class_weight_the_command_line_cannot_take_is_a_usage_error_naming_what_it_takes(rare, tmp_path, capsys,
                                                                                          value):
    """Audit: --class-weight 1,49 was refused with the API's "class_weight must be None, a dict {class: weight} or
    'balanced'" (exit 3), offering a dict and a None no command line can give."""
    code, _, err = cli(capsys, "fit", rare, *BINARY, "--class-weight", value, "--out", tmp_path / "m.json")
    assert code == 2 and "usage error: argument --class-weight: the command line takes 'balanced' only" in err, err
    assert "dict" not in err and "None" not in err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("extra", [["--task", "regression", "--label-bound", "5", "--delta", "1e-6"],
                                   ["--classes", "no,yes,maybe"], ["--allow-estimates"]],
                         ids=["regression", "more than two classes", "allow-estimates"])
def test_a_fit_that_takes_no_class_options_refuses_them_with_one_status(rare, tmp_path, capsys, extra):
    """Audit: the same refusal, class options given to a fit that reads none, exited 2 for a regression (docs/cli.md:
    a usage error) but 3 for more than two --classes and for --allow-estimates."""
    labels = [] if "--task" in extra else ["--target", "k"] + ([] if "--classes" in extra else
                                                               ["--positive", "yes", "--negative", "no"])
    target = ["--target", "t"] if "--task" in extra else []
    code, _, err = cli(capsys, "fit", rare, *target, *labels, *FEATURES, "--epsilon", "1", *extra,
                       "--class-prior", "0.9,0.1", "--out", tmp_path / "m.json")
    assert code == 2 and "usage error: " in err and "--class-prior" in err and "class_prior" not in err, err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("bound", ["3", "--label-bound=-5,5"], ids=["B", "LO,HI"])
def test_a_classifier_takes_no_label_bound(rare, tmp_path, capsys, bound):
    # the mirror of the class options on a regression: before, the bound was read by nothing and the fit ran
    given = [bound] if bound.startswith("--") else ["--label-bound", bound]
    code, _, err = cli(capsys, "fit", rare, *BINARY, *given, "--out", tmp_path / "m.json")
    assert code == 2 and "usage error: --label-bound bounds the target of a regression" in err, err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("option, value", [
    ("--epsilon", "0_1"), ("--epsilon", "1_0"), ("--epsilon", "\uff11"), ("--epsilon", " 1 "), ("--epsilon", "nan"),
    ("--epsilon", "0x1p-1"), ("--delta", "1e\u0660"), ("--lam", "1_0"), ("--threshold", "0.\u0663"),
    ("--class-prior", "0.3,0_7"), ("--data-norm", "\u0661"), ("--random-state", "1_0"),
    ("--random-state", "\u0663"), ("--random-state", " 3"), ("--numeric", "a:0:1_0"), ("--label-bound", "1_0"),
], ids=lambda value: value.encode("ascii", "backslashreplace").decode())
def test_numbers_are_plain_ascii_decimals(rare, tmp_path, capsys, option, value):
    # Python's float() and int() read "0_1" as 1, full-width and Arabic-Indic digits and spaces: the command line
    # takes plain decimal or scientific notation only, in every numeric option
    argv = REGRESSION if option == "--label-bound" else BINARY
    code, _, err = cli(capsys, "fit", rare, *argv, f"{option}={value}", "--out", tmp_path / "m.json")
    assert code == 2 and f"argument {option}" in err, err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("value", ["1", "+1", "0.5", ".5", "5.", "1e-1", "1E+0", "-0.5e1"])
def test_plain_numbers_are_read(value):
    from dpcvx.cli.parser import _number
    assert _number(value) == float(value)


@pytest.mark.parametrize("options, message", [
    (["--class-weight", "balanced"], "usage error: --class-weight weighs the two sides of a binary classifier; more "
     "than two --classes are fitted one-vs-rest"),
    (["--class-prior", "0.5,0.5"], "one-vs-rest of more than two classes takes --class-prior private only"),
    (["--threshold", "0.3"], "a numeric --threshold applies to binary classification only"),
    (["--threshold", "prior"], "--threshold prior cuts at the log-odds")])
def test_more_than_two_classes_take_only_the_private_prior_and_the_refusal_names_cli_options(rare, tmp_path, capsys,
                                                                                            options, message):
    """Audit: --classes with --class-weight was refused with the API's words (sample_weight_bound=, a fix that is
    refused too), --class-prior private offered class_weight='balanced', and public rates were dropped silently.
    One-vs-rest takes --class-prior private with --threshold prior (each class's own private count); every other
    class option is refused in the command line's words, and the class weights' refusal names the fixes."""
    multiclass = ["--target", "k", "--classes", "no,yes,maybe", *FEATURES, "--epsilon", "1"]
    code, _, err = cli(capsys, "fit", rare, *multiclass, *options, "--out", tmp_path / "m.json")
    assert code == 2 and message in err, err
    assert "_weight" not in err.replace("--class-weight", "") and "class_" not in err
    if options[0] == "--class-weight":
        assert "--positive CLASS --others-negative" in err and "--class-prior private with --threshold prior" in err
    assert not (tmp_path / "m.json").exists()
    code, _, err = cli(capsys, "fit", rare, "--target", "k", "--positive", "yes", "--others-negative", *FEATURES,
                       "--epsilon", "1", "--class-weight", "balanced", "--out", tmp_path / "m.json")
    assert code == 0, err   # the fix it names


# --- 4. --lam is the API's lam ---------------------------------------------------------------------------------


@pytest.mark.parametrize("lam, code, message", [
    ("0", 2, "api: lam=0.0"),
    ("-1", 2, "api: lam=-1.0"),
    ("nan", 2, "argument --lam: must be 'auto' or a number"),
    ("AUTO", 2, "argument --lam: must be 'auto' or a number"),
    ("often", 2, "argument --lam: must be 'auto' or a number"),
])
def test_lam_is_accepted_and_refused_as_the_api_does(tmp_path, capsys, lam, code, message):
    message = api_message(message)
    data = write_table(tmp_path / "d.csv", 300)
    result, _, err = cli(capsys, "fit", data, *BINARY, "--lam", lam, "--out", tmp_path / "m.json")
    assert result == code and message in err, err
    with warnings.catch_warnings():
        # DPLinearRegression's warnings at n=300
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        assert cli(capsys, "fit", data, *REGRESSION, "--lam", "0", "--out", tmp_path / "r.json")[0] == 0
