"""Every script in examples/ runs to completion; the demo command prints and plots."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
# the package from this checkout, whether or not it is installed
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


@pytest.mark.slow
@pytest.mark.parametrize("script", EXAMPLES, ids=[path.stem for path in EXAMPLES])
def test_example_runs(script, tmp_path):
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=600, env=ENV)
    assert result.returncode == 0, result.stderr[-3000:]
    assert not any(tmp_path.iterdir()), "examples write files only where asked (--out or a temporary directory)"


@pytest.mark.slow
def test_demo_prints_table_and_writes_plot(tmp_path):
    plot = tmp_path / "demo.png"
    result = subprocess.run(
        [sys.executable, "-m", "dpcvx.cli", "demo", "--n", "3000", "--draws", "2", "--plot", str(plot)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=ENV,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "objective perturbation: allowed" in result.stdout
    assert result.stdout.count("dpcvx certificate for l(z)") == 2   # logistic and Huber hinge, as the README says
    assert "huber_hinge  objective" in result.stdout and "non-private" in result.stdout
    assert plot.stat().st_size > 10_000 and plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
