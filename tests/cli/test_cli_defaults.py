"""The command line as a thin face of the API (issue 43): the API's defaults (lam "auto", AdaSSP's lam 0,
an intercept), --version, help naming every task, missing values declared by flag, probabilities in
predict, and a --help that imports neither numpy nor CVXPY."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.special import expit

import dpcvx
from dpcvx.cli import main
from dpcvx.version import __version__

ROOT = Path(__file__).resolve().parents[2]
FEATURES = ["--numeric", "age:17:90", "--categorical", "sex:Female,Male", "--data-norm", "1"]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    directory = tmp_path_factory.mktemp("cli-defaults")
    rng = np.random.default_rng(0)
    with open(directory / "train.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["age", "sex", "hours", "income", "kind"])
        for row in range(300):
            age, sex = int(rng.integers(17, 91)), str(rng.choice(["Female", "Male"]))
            writer.writerow(["" if row == 7 else age, sex, int(rng.integers(1, 100)),
                             ">50K" if age + 20 * rng.normal() > 50 else "<=50K", "abc"[row % 3]])
    return directory / "train.csv"


def cli(capsys, *args):
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def fit(capsys, table, out, *extra):
    return cli(capsys, "fit", table, "--target", "income", "--positive", ">50K", *FEATURES, "--missing", "",
               "--impute", "age=17", "--epsilon", "1", "--random-state", "0", "--out", out, *extra)


def test_version_and_help_name_every_task(capsys):
    code, out, _ = cli(capsys, "--version")
    assert code == 0 and out.strip() == f"dpcvx {__version__}"
    code, out, _ = cli(capsys, "--help")
    assert code == 0 and "private linear classifier" not in out
    assert "multiclass" in out and "regression" in out and "probabilities" in out
    code, out, _ = cli(capsys, "fit", "--help")
    assert code == 0
    for flag in ("--classes", "--task", "--missing", "--impute", "--no-fit-intercept", "L|auto"):
        assert flag in out


@pytest.mark.slow
def test_help_imports_neither_numpy_nor_cvxpy():
    code = ("import sys\nfrom dpcvx.cli import main\n"
            "assert main(['--help']) == 0 and main(['fit', '--help']) == 0 and main(['--version']) == 0\n"
            "heavy = sorted({'numpy', 'scipy', 'cvxpy', 'sympy', 'dpcvx.demo'} & set(sys.modules))\n"
            "assert not heavy, heavy\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr[-2000:]


def test_fit_has_the_api_defaults_lam_auto_and_an_intercept(capsys, table, tmp_path):
    code, out, err = fit(capsys, table, tmp_path / "m.json")
    assert code == 0, err
    certificate = json.loads((tmp_path / "m.json").read_text())["certificate"]
    assert certificate["fit_intercept"] is True and certificate["lam_rule"]["lam"] > 0
    assert "chosen by the public rule" in out
    code, _, err = fit(capsys, table, tmp_path / "m2.json", "--lam", "auto", "--no-fit-intercept")
    assert code == 0, err
    certificate = json.loads((tmp_path / "m2.json").read_text())["certificate"]
    assert certificate["fit_intercept"] is False and "lam_rule" in certificate
    code, _, err = fit(capsys, table, tmp_path / "m3.json", "--lam", "often")
    assert code == 2 and "must be 'auto' or a number" in err


@pytest.mark.filterwarnings("ignore:DPLinearRegression. the label was not located")  # DPLinearRegression's, n=300
def test_adassp_regression_needs_no_lam_and_takes_lam_0(capsys, table, tmp_path):
    base = ["fit", table, "--task", "regression", "--target", "hours", "--label-bound", "1,99", *FEATURES,
            "--missing", "", "--impute", "age=17", "--epsilon", "1", "--delta", "1e-6", "--random-state", "0"]
    code, _, err = cli(capsys, *base, "--out", tmp_path / "r.json")
    assert code == 0, err
    code, _, err = cli(capsys, *base, "--lam", "0", "--out", tmp_path / "r0.json")
    assert code == 0, err
    saved = [dpcvx.load(tmp_path / name) for name in ("r.json", "r0.json")]
    assert np.array_equal(saved[0].coef_, saved[1].coef_)  # lam 0 is the default: the same release, same seed
    code, _, err = cli(capsys, *base, "--lam", "10", "--out", tmp_path / "r10.json")
    assert code == 0 and not np.array_equal(dpcvx.load(tmp_path / "r10.json").coef_, saved[0].coef_)
    code, _, err = cli(capsys, *base, "--lam", "auto", "--out", tmp_path / "ra.json")  # DPLinearRegression's default
    assert code == 0, err
    assert np.array_equal(dpcvx.load(tmp_path / "ra.json").coef_, saved[0].coef_)


def test_missing_values_are_declared_by_flag_with_advice_that_names_it(capsys, table, tmp_path):
    base = ["fit", table, "--target", "income", "--positive", ">50K", *FEATURES, "--epsilon", "1",
            "--out", tmp_path / "m.json"]
    code, _, err = cli(capsys, *base)
    assert code == 3 and "categorical" not in err
    assert "row 7" in err and "--missing ''" in err and "--impute age=VALUE within [17, 90]" in err
    code, _, err = cli(capsys, *base, "--missing", "")
    assert code == 3 and "1 missing value(s) (--missing)" in err and "--impute age=VALUE" in err
    code, _, err = cli(capsys, *base, "--missing", "", "--impute", "sex=0")
    assert code == 2 and "not numeric feature columns" in err  # the command line's columns: a usage error
    code, _, err = cli(capsys, *base, "--missing", "", "--impute", "age=200")
    assert code == 2 and "age" in err
    assert not (tmp_path / "m.json").exists()


def test_predict_advises_a_refit_for_a_missing_value_it_cannot_impute(capsys, table, tmp_path):
    """predict takes no --impute: a model without an imputed value is fitted again with one, which its file keeps
    (fit's advice, --impute, was given by predict too, and following it was a usage error)."""
    base = ["fit", table, "--target", "income", "--positive", ">50K", *FEATURES, "--epsilon", "1",
            "--random-state", "0"]
    rows = tmp_path / "rows.csv"
    rows.write_text("age,sex\n52,Male\n,Female\n")
    kept = table.read_text().splitlines()
    complete = tmp_path / "complete.csv"
    complete.write_text("\n".join(kept[:8] + kept[9:]) + "\n")  # the record with no age left out
    base[1] = complete
    assert cli(capsys, *base, "--out", tmp_path / "bare.json")[0] == 0
    for missing in ([], ["--missing", ""]):
        code, _, err = cli(capsys, "predict", tmp_path / "bare.json", rows, *missing)
        assert code == 3 and "fit it again with --missing ''" in err and "--impute age=VALUE within [17, 90]" in err
        assert "predict imputes it" in err and "row 1" in err
    assert cli(capsys, *base, "--missing", "", "--impute", "age=17", "--out", tmp_path / "imputed.json")[0] == 0
    code, out, err = cli(capsys, "predict", tmp_path / "imputed.json", rows)  # as the advice says
    assert code == 0, err
    assert len(out.splitlines()) == 3


def test_predict_writes_probabilities_of_logistic_models(capsys, table, tmp_path):
    assert fit(capsys, table, tmp_path / "m.json")[0] == 0
    code, out, err = cli(capsys, "predict", tmp_path / "m.json", table, "--missing", "")
    assert code == 0, err
    rows = list(csv.DictReader(out.splitlines()))
    assert list(rows[0]) == ["prediction", "decision", "probability:>50K"]
    decisions = np.array([float(row["decision"]) for row in rows])
    np.testing.assert_array_equal([float(row["probability:>50K"]) for row in rows], expit(decisions))
    # multiclass: a probability for every public class, summing to one
    code, _, err = cli(capsys, "fit", table, "--target", "kind", "--classes", "a,b,c", *FEATURES, "--missing", "",
                       "--impute", "age=17", "--epsilon", "1", "--random-state", "0", "--out", tmp_path / "k.json")
    assert code == 0, err
    code, out, err = cli(capsys, "predict", tmp_path / "k.json", table, "--missing", "")
    rows = list(csv.DictReader(out.splitlines()))
    assert list(rows[0])[2:] == ["probability:a", "probability:b", "probability:c"]
    sums = [sum(float(row[f"probability:{c}"]) for c in "abc") for row in rows]
    np.testing.assert_allclose(sums, 1.0, rtol=1e-12)
    # another loss: its decision value is no log-odds, no probability
    code, _, err = fit(capsys, table, tmp_path / "h.json", "--loss", "huber:h=0.5")
    assert code == 0, err
    code, out, _ = cli(capsys, "predict", tmp_path / "h.json", table, "--missing", "")
    assert out.splitlines()[0] == "prediction,decision"
