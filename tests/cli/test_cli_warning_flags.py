"""The warnings and refusals the command line shows name its flags, not the Python parameters (dpcvx.advice).

A fresh user of ``dpcvx fit`` was told to declare ``label_bound=(lo, hi)``, to weigh the classes with
``class_weight='balanced'``, to pass ``allow_large_delta=True`` or ``strict=True``, and to choose settings with
``dpcvx.tune``, which the command line does not have. Each message now names a setting through one table (the
Python parameter -> the flag of ``dpcvx fit``), checked here against the parser; Python users keep the Python names.
"""

from __future__ import annotations

import json
import re
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpcvx.advice import FLAGS, PYTHON_ONLY, on_command_line, python_only, setting
from dpcvx.cli import build_parser, main
from dpcvx.exceptions import InputError
from dpcvx.sklearn.regressors import DPLinearRegression
from dpcvx.validation import check_delta_for_n

FEATURES = ["--numeric", "a:0:10", "--numeric", "b:0:10", "--categorical", "c:x,y", "--data-norm", "1",
            "--random-state", "1"]
#: Python's spelling of a parameter set to a value (``label_bound=``, ``lam=``): never in a command-line message
PYTHON_SPELLING = re.compile(r"(?<![-\w])(" + "|".join(name.rpartition(".")[2] for name in FLAGS) + r")=")


def _fit_flags() -> set[str]:
    parser = build_parser()
    commands = next(action for action in parser._actions if action.choices and "fit" in action.choices)
    return {flag for action in commands.choices["fit"]._actions for flag in action.option_strings}


def test_every_flag_of_the_table_is_an_option_of_fit() -> None:
    flags = _fit_flags()
    for name, spelling in FLAGS.items():
        named = set(re.findall(r"--[a-z][a-z-]*", spelling))
        assert named and named <= flags, (name, spelling)


def test_python_keeps_the_python_names() -> None:
    assert setting("label_bound", "(lo, hi)", "LO,HI") == "label_bound=(lo, hi)"
    assert setting("allow_large_delta", "True") == "allow_large_delta=True"
    assert setting("schema.strict", "True", "true") == "strict=True"
    assert python_only("dpcvx.tune") == "dpcvx.tune"
    with on_command_line():
        assert setting("label_bound", "(lo, hi)", "LO,HI") == "--label-bound LO,HI"
        assert setting("allow_large_delta", "True") == "--allow-large-delta"
        assert setting("float_safe", "False") == "--float-safe left out"
        assert setting("class_weight", "None") == "--class-weight left out"
        assert setting("column_statistics", "False") == "--no-column-statistics"
        assert setting("fit_intercept", "False") == "--fit-intercept left out"
        assert python_only("dpcvx.tune") == PYTHON_ONLY["dpcvx.tune"]


def test_no_entry_of_the_table_is_spelt_with_a_placeholder(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Every entry of FLAGS, bare, set, left out or as a switch, is spelt without the template's '{}' (the Huber
    threshold's bare name was '--loss huber_regression:m={}'), and the command line's refusal of a bad m says so."""
    with on_command_line():
        for name in FLAGS:
            for value in (None, "None", "1", "True", "False"):
                assert "{}" not in setting(name, value), (name, value, setting(name, value))
        assert setting("m") == "huber_regression's m" and setting("m", "2") == "--loss huber_regression:m=2"
        assert setting("schema.strict") == '"strict" in the --schema file'
    path = tmp_path / "d.csv"
    path.write_text("a,t\n" + "".join(f"{i % 10},{i % 7}\n" for i in range(40)))
    for m in ("-1", "0", "nan"):
        status = main(["fit", str(path), "--target", "t", "--task", "regression", "--numeric", "a:0:10",
                       "--data-norm", "1", "--out", str(tmp_path / "m.json"), "--epsilon", "1", "--delta", "1e-6",
                       "--label-bound", "12", "--loss", f"huber_regression:m={m}"])
        error = capsys.readouterr().err
        assert status == 2 and "{}" not in error and "--loss: huber_regression's m must be finite and positive" in error


def test_a_python_fit_names_the_python_parameters() -> None:
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(400, 2))
    y = rng.uniform(300, 23000, size=400)  # a cost beyond the declared bound
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DPLinearRegression(epsilon=1, delta=1e-6, data_norm=1, label_bound=(0, 1000), random_state=0).fit(X, y)
    text = " ".join(str(warning.message) for warning in caught)
    assert "label_bound=(lo, hi)" in text and "dpcvx.tune is the private way" in text and "--label-bound" not in text
    with pytest.raises(InputError, match=r"pass allow_large_delta=True to accept it"):
        check_delta_for_n(0.1, 30)


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Small CSV files: imbalanced labels, a cost target 300..23000, a tiny table, an undeclared category."""
    rng = np.random.default_rng(0)
    directory = tmp_path_factory.mktemp("flags")

    def write(name: str, n: int, categories: tuple[str, str], labels: Any) -> Path:
        a, b, c = rng.uniform(0, 10, n), rng.uniform(0, 10, n), rng.choice(categories, n)
        path = directory / name
        path.write_text("a,b,c,y\n" + "".join(f"{a[i]:.3f},{b[i]:.3f},{c[i]},{labels[i]}\n" for i in range(n)))
        return path

    return {"imbalanced": write("imbalanced.csv", 2000, ("x", "y"), np.where(rng.random(2000) < 0.03, "yes", "no")),
            "cost": write("cost.csv", 500, ("x", "y"), np.round(rng.uniform(300, 23000, 500))),
            "tiny": write("tiny.csv", 30, ("x", "y"), rng.choice(["yes", "no"], 30)),
            "undeclared": write("undeclared.csv", 300, ("p", "q"), rng.choice(["yes", "no"], 300)),
            "dominant": write("dominant.csv", 3000, ("x", "y"),
                              rng.choice(["u", "v", "w"], 3000, p=[0.9, 0.07, 0.03]))}


def _run(tables: dict[str, Path], table: str, options: list[str], tmp_path: Path,
         capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """The exit status and every warning and error text of one ``dpcvx fit``, checked to name no Python spelling."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status = main(["fit", str(tables[table]), "--target", "y", *FEATURES, *options,
                       "--out", str(tmp_path / "m.json")])
    text = " ".join([str(warning.message) for warning in caught] + [capsys.readouterr().err])
    shown = text
    for instead in PYTHON_ONLY.values():  # a Python-only feature is named as Python's, said to be so
        shown = shown.replace(instead, "")
    assert not PYTHON_SPELLING.search(shown), PYTHON_SPELLING.search(shown)
    assert "label_bound" not in shown and "class_weight" not in shown and "allow_large_delta" not in shown
    return status, text


@pytest.mark.parametrize("table, options, status, expected", [
    # a constant release on imbalanced labels: the training rows' advice names the flag and says tune is Python's
    ("imbalanced", ["--positive", "yes", "--epsilon", "1"], 0,
     ["--class-weight balanced", "dpcvx.tune (in Python only) is the private way to choose settings",
      "(--lam, --epsilon, columns, --class-weight, --class-prior)", "--class-prior private with --threshold prior"]),
    # a cost of 300..23000 declared in 0..1000: the label clipping count, the label not located, R^2 <= 0
    ("cost", ["--task", "regression", "--label-bound", "0,1000", "--epsilon", "1", "--delta", "1e-6"], 0,
     ["lay outside the declared range [lo, hi] = [0, 1000]", "known without looking at the data (a unit, a scale's "
      "documented limits), as --label-bound LO,HI; the noise grows", "(--label-bound LO,HI, never read off the data)",
      "the public --label-bound;", "at --epsilon 1, --delta 1e-06"]),
    ("cost", ["--task", "regression", "--label-bound", "0,1000", "--epsilon", "1", "--loss", "huber_regression"], 0,
     ["--label-bound LO,HI"]),
    # a tiny table: the noise warning's lam advice
    ("tiny", ["--positive", "yes", "--epsilon", "0.1"], 0, ["(--lam auto already chose --lam 0.56 here"]),
    ("tiny", ["--positive", "yes", "--epsilon", "1", "--lam", "1e9"], 0,
     ["(see --lam auto: --lam auto (the default) would choose --lam"]),
    # a categorical column whose values are not its declared categories: a schema file's "strict"
    ("undeclared", ["--positive", "yes", "--epsilon", "1"], 0, ['pass "strict": true in the --schema file']),
    # refusals
    ("tiny", ["--positive", "yes", "--epsilon", "1", "--delta", "0.1"], 3,
     ["--delta 0.1 is not below 1/n", "or pass --allow-large-delta to accept it knowingly"]),
    ("tiny", ["--positive", "yes", "--epsilon", "1", "--class-weight", "balanced", "--float-safe"], 2,
     ["--float-safe draws lattice noise", "fit weights with --float-safe left out"]),
    ("tiny", ["--positive", "yes", "--epsilon", "1", "--threshold", "prior"], 2,
     ["--threshold prior cuts", "it needs --class-prior (public rates or 'private') with --class-weight left out"]),
    ("tiny", ["--positive", "yes", "--epsilon", "1", "--lam", "0"], 2, ["--lam must be finite and positive"]),
    ("tiny", ["--positive", "yes", "--epsilon", "1", "--class-prior", "0.5,0.6"], 2, ["--class-prior's rates"]),
    ("tiny", ["--positive", "yes", "--epsilon", "1", "--threshold", "1.5"], 2, ["--threshold must lie in (0, 1)"]),
])
def test_a_command_line_fit_names_the_flags(tables: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            table: str, options: list[str], status: int, expected: list[str]) -> None:
    code, text = _run(tables, table, options, tmp_path, capsys)
    assert code == status, text
    for part in expected:
        assert part in text, (part, text)


def test_the_one_vs_rest_flags_a_warning_advises_are_taken(tables: dict[str, Path], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The multiclass training-rows warning advises --class-prior private with --threshold prior; fit takes them (it
    refused every classifier option with more than two --classes, these included, with a usage error) and predict
    uses the released cuts."""
    classes = ["--classes", "u,v,w", "--epsilon", "2", "--random-state", "0"]
    code, text = _run(tables, "dominant", classes, tmp_path, capsys)
    assert code == 0 and "--class-prior private with --threshold prior" in text, text
    model = tmp_path / "prior.json"
    code = main(["fit", str(tables["dominant"]), "--target", "y", *FEATURES, *classes, "--class-prior", "private",
                 "--threshold", "prior", "--out", str(model)])
    out = capsys.readouterr().out
    assert code == 0 and "--threshold prior: the model predicts the class c of the largest decision value" in out
    assert len(json.loads(model.read_text())["decision_cut"]) == 3
    code = main(["predict", str(model), str(tables["dominant"]), "--out", str(tmp_path / "p.csv")])
    assert code == 0 and (tmp_path / "p.csv").read_text().count("\n") == 3001


def test_a_class_balanced_command_line_fit_warns_each_finding_once(tables: dict[str, Path], tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Under the filter "always" a --class-weight balanced fit (a private class count: its checks run at both ends
    of the released rates, then the fit) shows each warning once."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["fit", str(tables["tiny"]), "--target", "y", "--positive", "yes", *FEATURES, "--epsilon", "1",
                     "--class-weight", "balanced", "--out", str(tmp_path / "m.json")]) == 0
    capsys.readouterr()
    counts = Counter(str(warning.message) for warning in caught)
    assert counts and set(counts.values()) == {1}, counts


@pytest.mark.slow  # about 10 s: the verifier's numeric estimate of a loss it cannot prove
def test_a_verify_refusal_names_the_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The verifier's conditions are fixed texts (a certificate's); the refusal the command line shows names
    --allow-estimates where they say allow_estimates=True."""
    loss = tmp_path / "loss.py"
    loss.write_text("import cvxpy as cp\nloss = lambda z: cp.logistic(-z) + 0.1 * cp.power(cp.pos(-z), 3)\n")
    assert main(["verify", "--loss", str(loss), "--dim", "2"]) == 4
    error = capsys.readouterr().err
    assert "accepted only with --allow-estimates" in error and "allow_estimates=True" not in error
