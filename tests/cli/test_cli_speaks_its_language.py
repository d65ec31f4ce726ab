"""The command line speaks the command line's language, and a usage error is exit 2 before any file is read.

Before: ``--float-safe`` with ``--delta`` (Gaussian objective perturbation) was accepted and changed nothing (the
certificate said "mitigation only"); ``--lam auto`` with a regularizer that is not strongly convex was refused only
after the data was read, exit 3, as ``lam='auto'``; the class-prior check, the largest epsilon of the Gaussian
objective and one-vs-rest's delta named ``class_prior=``, ``penalty='l2'``, ``epsilon=``, ``mechanism='output'`` and
``delta=0``; an option error came after a missing ``--schema`` or ``--names-file`` (exit 3); and the certificate of a
``--class-prior`` fit printed its ridge's centre as numpy's array, ``sum_squares(w + -[ 0. 0. -0.668])``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dpcvx.advice import FLAGS, PYTHON_ONLY
from dpcvx.cli import main

FEATURES = ["--numeric", "a:0:10", "--numeric", "b:0:10", "--data-norm", "1"]
MISSING = "no-such-data.csv"  # never created: reading it would be an input error (exit 3)
BINARY = [MISSING, "--target", "y", "--positive", "pos", *FEATURES]
MULTICLASS = [MISSING, "--target", "k", "--classes", "x,y,z", *FEATURES]
#: a Python spelling of a parameter set to a value (``lam=``, ``class_prior=``, ``delta=0``), or a Python-only name
PYTHON = re.compile(r"(?<![-\w])(" + "|".join([name.rpartition(".")[2] for name in FLAGS] + ["penalty", "constraints"])
                    + r")\s?=|objective_gaussian|\bdelta = 0\b")


@pytest.fixture()
def l1(tmp_path: Path) -> Path:
    path = tmp_path / "l1.py"
    path.write_text("import cvxpy as cp\nregularizer = lambda w: cp.norm1(w)\n")
    return path


def _refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str]:
    """The exit status and the one error line of ``dpcvx ARGS --out m.json`` run in ``tmp_path``, checked to name no
    Python spelling (a feature said to be Python's own, :data:`PYTHON_ONLY`, aside) and to write nothing."""
    before = set(tmp_path.iterdir())
    status = main([*args, "--out", str(tmp_path / "m.json")])
    error = capsys.readouterr().err
    shown = error
    for instead in PYTHON_ONLY.values():
        shown = shown.replace(instead, "")
    assert not PYTHON.search(shown), (PYTHON.search(shown), error)
    assert len(error.splitlines()) == 1 and set(tmp_path.iterdir()) == before, error
    return status, error


@pytest.mark.parametrize("args, expected", [
    # --float-safe where it would change nothing: Gaussian objective perturbation (--delta and objective)
    ([*BINARY, "--epsilon", "1", "--delta", "1e-6", "--float-safe"],
     ["--float-safe has no floating-point-safe form for objective perturbation with delta > 0",
      "use --mechanism output", "or --delta left out", "else fit with --float-safe left out"]),
    ([*BINARY, "--epsilon", "1", "--delta", "1e-6", "--float-safe", "--allow-estimates", "--lam", "0.1"],
     ["PrivateERM refuses these options: --float-safe has no floating-point-safe form"]),
    ([*MULTICLASS, "--epsilon", "1", "--delta", "1e-6", "--float-safe"], ["--float-safe has no floating-point-safe"]),
    # the class prior's check
    ([*BINARY, "--epsilon", "1", "--class-prior", "0.9,0.1", "--loss", "huber"],
     ["--class-prior 0.9,0.1 without class weights", "the default --loss logistic and no --regularizer (the ridge), "
      "--fit-intercept, a numeric --data-norm", "leave --class-prior out, or pass --class-weight balanced"]),
    ([*BINARY, "--epsilon", "1", "--class-prior", "private", "--no-fit-intercept"],
     ["--class-prior private without class weights"]),
    # the largest budget of Gaussian objective perturbation
    ([*BINARY, "--epsilon", "800", "--delta", "1e-6"],
     ["--epsilon 800 is above 700", "choose --epsilon <= 700, or --mechanism output or --delta left out"]),
    # one-vs-rest output perturbation at a delta large against epsilon
    ([*MULTICLASS, "--epsilon", "0.000002", "--delta", "0.003", "--mechanism", "output"],
     ["at --epsilon 2e-06, --delta 0.003", "use a smaller --delta, --delta left out, or objective perturbation"]),
])
def test_a_refusal_names_the_flags_before_any_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   args: list[str], expected: list[str]) -> None:
    status, error = _refusal(tmp_path, capsys, ["fit", *args])
    assert status == 2 and error.startswith("dpcvx: usage error: "), error
    for part in expected:
        assert part in error, (part, error)


def test_lam_auto_with_a_regularizer_not_strongly_convex_is_a_usage_error_before_the_data(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], l1: Path) -> None:
    for lam in ([], ["--lam", "auto"]):
        status, error = _refusal(tmp_path, capsys, ["fit", *BINARY, "--epsilon", "1", "--regularizer", str(l1), *lam])
        assert status == 2, error
        assert "--lam auto needs a strongly convex regularizer (m > 0)" in error and "pass a number for --lam" in error


def test_a_verifier_fix_names_delta_as_a_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A piecewise C^2 loss under Gaussian objective perturbation: the verifier's fix ("use delta = 0") as a flag."""
    data = tmp_path / "d.csv"
    data.write_text("a,b,y\n" + "".join(f"{i % 10},{(3 * i) % 10},{'pos' if i % 3 else 'neg'}\n" for i in range(60)))
    status, error = _refusal(tmp_path, capsys, ["fit", str(data), *BINARY[1:], "--epsilon", "1", "--delta", "1e-4",
                                                "--loss", "huber"])
    assert status == 4 and "use --delta 0 (Corollary 4 of JMLR 2011" in error and "--mechanism output" in error, error


@pytest.mark.parametrize("files", [["--schema", "no-such.json"], ["--no-header", "--names-file", "no-such.txt"]])
@pytest.mark.parametrize("option, message", [
    (["--lam", "0"], "--lam must be finite and positive"),
    (["--threshold", "prior"], "--threshold prior cuts"),
    (["--delta", "1e-6", "--float-safe"], "--float-safe has no floating-point-safe form"),
])
def test_an_option_error_comes_before_a_schema_or_names_file_is_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], files: list[str], option: list[str], message: str) -> None:
    words = [word for word in BINARY if word not in FEATURES] if files[0] == "--schema" else BINARY
    status, error = _refusal(tmp_path, capsys, ["fit", *words, *files, "--epsilon", "1", *option])
    assert status == 2 and message in error, error


def test_a_schema_files_norm_is_checked_when_read(tmp_path: Path, capsys: pytest.CaptureFixture[str], l1: Path) -> None:
    """With --schema and no --data-norm the options are checked before the file is read, and again at its norm; the
    lam rule's check needs the schema's columns, read before the data."""
    schema = tmp_path / "s.json"
    schema.write_text('{"format": "dpcvx-schema", "version": 2, "encoding": "centred", "norm": 2.0, "strict": false, '
                      '"constant_feature": false, "columns": [{"name": "a", "kind": "numeric", "lo": 0.0, "hi": 10.0, '
                      '"source": ""}]}')
    status, error = _refusal(tmp_path, capsys, ["fit", MISSING, "--target", "y", "--positive", "pos", "--schema",
                                                str(schema), "--epsilon", "1", "--regularizer", str(l1)])
    assert status == 2 and "--lam auto needs a strongly convex regularizer" in error, error
    status, error = _refusal(tmp_path, capsys, ["fit", MISSING, "--target", "y", "--positive", "pos", "--schema",
                                                str(schema), "--epsilon", "1"])
    assert status == 3 and "data file" in error and "does not exist" in error, error


def test_a_class_prior_fit_prints_its_ridge_as_a_regularizer(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "d.csv"
    data.write_text("a,b,y\n" + "".join(f"{i % 10},{(3 * i) % 10},{'pos' if i % 3 else 'neg'}\n" for i in range(300)))
    with pytest.warns(Warning):  # the training rows' findings of a small table
        assert main(["fit", str(data), *BINARY[1:], "--epsilon", "1", "--class-prior", "0.6,0.4", "--random-state", "0",
                     "--out", str(tmp_path / "m.json")]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("dpcvx certificate for"))
    assert "N(w) = 0.5 * sum_squares(w + (0, 0, 0." in line and "[" not in line and "array" not in line, line


@pytest.mark.parametrize("loss, delta, expected", [
    ("huber_hinge", ["--delta", "1e-6"], "use a C^2 loss such as --loss logistic, or use --delta 0"),
    ("kink.py", [], "smooth the kink: --loss huber_hinge:h=0.5 replaces the hinge"),
    ("kink.py", [], "use a C^1 loss such as --loss huber_hinge:h=0.5"),
    # the regression's half of the fix: the threshold the command line sets by the public rule, not m = 1
    ("kink.py", [], ", --loss huber_regression (cp.huber(p - y, m), m in the label's unit, B its bound) the absolute"),
    ("hinge", [], "Or pass a Python file defining loss(z) with CVXPY (--loss PATH.py)"),
])
def test_a_verifier_fix_names_a_catalogue_loss_as_the_flag_gives_it(tmp_path, capsys, loss, delta, expected):
    """A verifier's fix named ``dpcvx.losses.logistic()``, ``dpcvx.losses.huber_hinge(h=0.5)`` and (for an unknown
    loss) "a callable z -> CVXPY expression" on the command line, which takes ``--loss logistic``,
    ``--loss huber_hinge:h=0.5`` or a file."""
    import numpy as np

    rng = np.random.default_rng(0)
    data = tmp_path / "d.csv"
    rows = rng.uniform(0, 10, size=(200, 2))
    data.write_text("a,b,y\n" + "".join(f"{a:.3f},{b:.3f},{'pos' if a > 5 else 'neg'}\n" for a, b in rows))
    (tmp_path / "kink.py").write_text("import cvxpy as cp\nloss = lambda z: cp.pos(1 - z)\n")
    spec = str(tmp_path / loss) if loss.endswith(".py") else loss
    args = ["fit", str(data), "--target", "y", "--positive", "pos", *FEATURES, "--epsilon", "1", "--loss", spec, *delta,
            "--out", str(tmp_path / "m.json")]
    status = main(args)
    error = capsys.readouterr().err
    assert status in (2, 4) and expected in error, error
    assert "dpcvx.losses." not in error and "callable" not in error
