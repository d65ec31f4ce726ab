"""``dpcvx fit --allow-estimates`` fits the learner PrivateERM, which the command line gives no class options: its
TrainingRowsWarning advised choosing --class-weight and --class-prior (and Python's class_weight='balanced',
fit_intercept=True, decision_cut), then the same command with --class-weight balanced was refused ("--class-weight are
options of the estimators"). The advice now says that fit takes no class options and names the Python ones as
Python's; the refusal names one option in the singular and says why."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

COMMAND = ["--target", "y", "--positive", "a", "--others-negative", "--numeric", "age:0:100", "--numeric",
           "hours:0:100", "--allow-estimates", "--data-norm", "1", "--random-state", "3"]


def _table(path) -> None:
    rng = np.random.default_rng(0)
    labels = np.where(rng.random(2000) < 0.1, "a", "b")  # independent of the columns: a release no better than 0.5
    rows = [f"{age},{hours},{label}" for age, hours, label in zip(rng.integers(0, 100, 2000),
                                                                  rng.integers(0, 100, 2000), labels, strict=True)]
    path.write_text("age,hours,y\n" + "\n".join(rows) + "\n")


def _fit(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "dpcvx", "fit", *args], capture_output=True, text=True, timeout=300,
                          env=env)


@pytest.mark.slow  # about 4 s: the default run on a bare clone must stay within 5 minutes
def test_the_allow_estimates_fit_advises_no_class_option_it_refuses(tmp_path):
    data = tmp_path / "train.csv"
    _table(data)
    result = _fit(str(data), *COMMAND, "--epsilon", "0.05", "--out", str(tmp_path / "m.json"))
    assert result.returncode == 0, result.stderr
    err = result.stderr
    assert "TrainingRowsWarning" in err
    assert "(--lam, --epsilon, columns)" in err  # the settings it can choose: not --class-weight, --class-prior
    assert "The fit with --allow-estimates takes no class weights or class prior" in err
    assert "fit_intercept=True" not in err and "decision_cut" not in err
    result = _fit(str(data), *COMMAND, "--epsilon", "0.05", "--class-weight", "balanced", "--out",
                  str(tmp_path / "m2.json"))
    assert result.returncode == 2
    refusal = result.stderr
    assert "--class-weight is an option of the estimators" in refusal and "leave it or --allow-estimates out" in refusal
    assert not (tmp_path / "m2.json").exists()
