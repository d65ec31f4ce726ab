"""The kernel learners' long part, the certified solve after the charge (an O(n^3) factorisation per step over the whole
RKHS), counts its steps on a progress bar when asked (``verbose=True``, a terminal, tqdm), as the other long fits do
(:mod:`dpcvx.progress`), and stays silent otherwise. The bar's count follows the data: it is the curator's view only,
never part of a release, and asking for it changes nothing released."""

from __future__ import annotations

import io
import sys
import warnings

import numpy as np
import pytest

import dpcvx.models.kernel_learner as kernel_learner
from dpcvx import PINP, TDDL, TDIL
from dpcvx.exceptions import ExponentialCostWarning, NoiseDominatesWarning


class Terminal(io.StringIO):
    """stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def rows(n, seed, width=2):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, width)) / np.sqrt(2 * width)
    y = np.where((X**2).sum(axis=1) < 0.1, 1.0, -1.0)
    return X, np.where(rng.random(n) < 0.05, -y, y)


class Counting:
    """A bar that records what it was opened for and how many steps it counted."""

    opened: list[Counting] = []

    def __init__(self, total, description, *, unit="step", verbose=False):
        self.total, self.description, self.unit, self.verbose, self.count = total, description, unit, verbose, 0
        Counting.opened.append(self)

    def update(self, count=1):
        self.count += count

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@pytest.fixture
def counting(monkeypatch):
    Counting.opened = []
    monkeypatch.setattr(kernel_learner, "progress", Counting)
    return Counting.opened


def learners():
    return {
        "TDDL hinge": (lambda verbose: TDDL("rbf", gamma=1.0, lam=1e-2, loss="hinge", span="training",
                                            verbose=verbose), True),
        "TDDL logistic": (lambda verbose: TDDL("rbf", gamma=1.0, lam=1e-2, loss="logistic", span="training",
                                               verbose=verbose), True),
        "PINP": (lambda verbose: PINP("rbf", gamma=1.0, lam=1e-2, max_queries=20, verbose=verbose), False),
        "TDIL": (lambda verbose: TDIL("rbf", gamma=1.0, lam=1e-1, input_bound=0.5, net_spacing=0.25,
                                      verbose=verbose), False),
    }


def fit(make, public_sample, verbose, seed=0):
    X, y = rows(200, 1)
    learner = make(verbose)
    with warnings.catch_warnings():
        # noise dominance and the net's cost: not what these tests check
        warnings.simplefilter("ignore", ExponentialCostWarning)
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        if public_sample:
            learner.fit(X, y, 1.0, Z=rows(30, 2)[0], random_state=seed)
        else:
            learner.fit(X, y, 1.0, random_state=seed)
    return learner


@pytest.mark.parametrize("name", list(learners()))
def test_the_solve_counts_its_steps_on_a_bar(counting, name):
    make, public_sample = learners()[name]
    learner = fit(make, public_sample, verbose=True)
    solves = [bar for bar in counting if "kernel solve" in bar.description]
    assert len(solves) == 1
    bar = solves[0]
    assert bar.verbose is True and bar.total is None and bar.unit == "step"  # open-ended: the count follows the data
    assert "n = 200" in bar.description  # public: the learners' n is public (replace-one)
    report = learner.diagnostics_["solve_report"]
    assert bar.count == report.iterations > 0  # one update per solver step


def test_quiet_learners_open_a_silent_bar(counting):
    make, public_sample = learners()["TDDL logistic"]
    fit(make, public_sample, verbose=False)
    assert [bar.verbose for bar in counting if "kernel solve" in bar.description] == [False]


def test_a_terminal_shows_the_solve_when_asked(monkeypatch):
    pytest.importorskip("tqdm")
    make, public_sample = learners()["TDDL hinge"]
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    fit(make, public_sample, verbose=False)
    assert "kernel solve" not in terminal.getvalue()
    fit(make, public_sample, verbose=True)
    assert "TDDL kernel solve (n = 200)" in terminal.getvalue()


@pytest.mark.parametrize("name", ["TDDL hinge", "TDDL logistic"])
def test_the_bar_changes_nothing_released(monkeypatch, name):
    pytest.importorskip("tqdm")
    make, public_sample = learners()[name]
    quiet = fit(make, public_sample, verbose=False, seed=7).model_
    monkeypatch.setattr(sys, "stderr", Terminal())
    shown = fit(make, public_sample, verbose=True, seed=7).model_
    assert np.array_equal(quiet.predictor.coef, shown.predictor.coef)
    assert quiet.certificate.calibration == shown.certificate.calibration
