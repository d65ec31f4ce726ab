"""Progress bars: on a terminal when asked (the CLI asks), silent otherwise; only public steps shown."""

from __future__ import annotations

import io
import sys

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.progress import NoProgress, progress


class Terminal(io.StringIO):
    """stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def fake_terminal(monkeypatch) -> Terminal:
    """Install a terminal as stderr. Called in the test body: pytest's capture re-installs its own
    stderr when it resumes after fixture set-up, which would undo a patch made in a fixture."""
    pytest.importorskip("tqdm")
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    return stream


def test_silent_unless_verbose_on_a_terminal(monkeypatch):
    assert isinstance(progress(3, "x", verbose=False), NoProgress)
    monkeypatch.setattr("sys.stderr", io.StringIO())  # not a terminal: library calls in scripts and logs
    assert isinstance(progress(3, "x", verbose=True), NoProgress)


@pytest.mark.slow  # 3 to 7 s: the default run is kept within 5 minutes; CI's slow tier runs it
def test_verification_shows_its_conditions_when_asked(monkeypatch):
    terminal = fake_terminal(monkeypatch)
    # a loss not seen before in this process, so the verifier works (its results are cached)
    dpcvx.verify(lambda z: cp.logistic(-z) + 0.013 * cp.square(z) / (1 + 0.0), progress=False)
    assert terminal.getvalue() == ""
    dpcvx.verify(lambda z: cp.logistic(-z) + 0.017 * cp.square(z), progress=True)
    assert "verify" in terminal.getvalue()


def test_cli_fit_shows_its_public_steps(monkeypatch, tmp_path):
    terminal = fake_terminal(monkeypatch)
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(60, 2))
    lines = ["a,b,label"] + [f"{a:.4f},{b:.4f},{int(a + b > 0)}" for a, b in X]
    (tmp_path / "d.csv").write_text("\n".join(lines) + "\n")
    status = main(["fit", str(tmp_path / "d.csv"), "--target", "label", "--positive", "1", "--numeric", "a:-1:1",
                   "--numeric", "b:-1:1", "--data-norm", "1", "--epsilon", "1", "--lam", "0.1",
                   "--out", str(tmp_path / "m.json")])
    assert status == 0
    shown = terminal.getvalue()
    assert "dpcvx fit" in shown and "/4" in shown  # the bar counts the four public steps


def test_blockwise_fits_count_their_passes_when_asked(monkeypatch, tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 3))
    memmap = np.memmap(tmp_path / "X.dat", dtype=np.float64, mode="w+", shape=X.shape)
    memmap[:] = X
    y = np.where(X[:, 0] > 0, 1, -1)
    terminal = fake_terminal(monkeypatch)
    dpcvx.PrivateERM(lam=1e-2, data_norm=5.0).fit(memmap, y, 1.0, random_state=0)
    assert terminal.getvalue() == ""  # quiet unless asked
    dpcvx.PrivateERM(lam=1e-2, data_norm=5.0, verbose=True).fit(memmap, y, 1.0, random_state=0)
    shown = terminal.getvalue()
    assert "passes over X" in shown and "pass" in shown
