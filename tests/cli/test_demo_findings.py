"""`dpcvx demo` fits at epsilon 0.01 on purpose (its curve starts where the noise dominates): it printed four copies
of a 900-character NOT PRIVATE TrainingRowsWarning advising --class-weight and --class-prior (flags the demo does
not take) and dpcvx.tune. It now says so once, in the demo's words, under its table; other warnings pass through."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


# slow: several seconds; the default run on a bare clone must stay within 5 minutes (pyproject.toml)
@pytest.mark.slow
def test_the_demo_states_its_small_epsilon_finding_once_and_warns_nothing(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    result = subprocess.run([sys.executable, "-m", "dpcvx", "demo", "--n", "2000", "--draws", "1", "--plot",
                             str(tmp_path / "demo.png")], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "warning" not in result.stderr and "--class-weight" not in result.stderr + result.stdout
    assert result.stdout.count("At the smallest epsilons the noise dominates") == 1
    assert "logistic, objective: epsilon 0.01" in result.stdout  # the cells it found, named


def test_run_demo_gathers_the_findings_and_lets_other_warnings_through(recwarn):
    from dpcvx.demo import run_demo

    result = run_demo(n=400, draws=1, epsilons=(0.01, 3.0), random_state=0)
    assert len(result.findings) == 1 and "epsilon 0.01" in result.findings[0]
    assert not [item for item in recwarn if "TrainingRows" in item.category.__name__]
