"""A loss that could not be declared is told the one change that makes the call work, in one place for every entry
(session 62, probeC F5): a catalogue factory passed uncalled (``loss=dpcvx.losses.logistic``) was told to "pass a
callable such as lambda z: ...", which it had; a loss(z, y) the same, and the command line's loss file got that
Python advice too."""

import subprocess
import sys
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import LossDeclarationError

ROOT = Path(__file__).resolve().parents[2]


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (200, 3))
    return X, (X[:, 0] > 0).astype(int)


FACTORIES = [(dpcvx.losses.logistic, "dpcvx.losses.logistic(), or pass its name, 'logistic'"),
             (dpcvx.losses.huber_hinge, "dpcvx.losses.huber_hinge(h=0.5), or pass its name, 'huber_hinge:h=0.5'")]


@pytest.mark.parametrize(("factory", "advice"), FACTORIES, ids=["logistic", "huber_hinge"])
def test_an_uncalled_catalogue_factory_is_told_to_call_it_at_every_entry(factory, advice):
    X, y = _data()
    fix = f"dpcvx.losses.{factory.__name__} makes the loss and is not one: call it, {advice}"
    assert dpcvx.verify(factory).condition("declaration").fix == fix
    entries = [lambda: dpcvx.PrivateERM(loss=factory, data_norm=1.0).fit(X, 2 * y - 1, 1.0),
               lambda: dpcvx.DPERMClassifier(loss=factory).fit(X, y),
               lambda: dpcvx.tune(dpcvx.DPERMClassifier(), X, y, {"loss": [factory]}, 1.0)]
    for entry in entries:
        with pytest.raises(LossDeclarationError) as refused:
            entry()
        assert f"; fix: {fix}. Nothing was charged" in str(refused.value)
        assert "lambda z" not in str(refused.value)


def test_a_loss_of_z_and_y_is_told_the_margin_holds_the_label():
    certificate = dpcvx.verify(lambda z, y: cp.logistic(-z * y))
    assert certificate.condition("declaration").fix == (
        "a margin loss takes z = y w^T x alone (the label is in z): define loss(z) with one argument, for example "
        "loss = lambda z: cp.logistic(-z)")


# slow: several seconds; the default run on a bare clone must stay within 5 minutes (pyproject.toml)
@pytest.mark.slow
def test_the_command_line_names_the_loss_file(tmp_path):
    two = tmp_path / "twoarg.py"
    two.write_text("import cvxpy as cp\n\ndef loss(z, y):\n    return cp.logistic(-z * y)\n")
    broken = tmp_path / "broken.py"
    broken.write_text("import cvxpy as cp\n\ndef loss(z):\n    return 1.0\n")
    for path, fix in ((two, "define loss(z) in the file with one argument"),
                      (broken, "define loss(z) in the file as a scalar CVXPY expression of z")):
        shown = subprocess.run([sys.executable, "-m", "dpcvx", "verify", "--loss", str(path)], capture_output=True,
                               text=True, cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        assert shown.returncode == 3, shown.stderr
        assert fix in shown.stderr and "pass a callable" not in shown.stderr
