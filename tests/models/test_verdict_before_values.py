"""The mechanism's verdict (a condition of the verified problem the mechanism needs) is made before a value of the
data is read, at every entry that fits a PrivateERM: the width d is public (X's shape), and the one verification of
the fit runs at it before the rows and labels are read. A refused call spends nothing.

The data here has a public shape and values that raise :class:`DataRead` when read: an entry that reads them before
the verdict fails with that error instead of the AssumptionError.

dpcvx.tune too (the tests from TUNE_ENTRIES on): every candidate that plans first and draws nothing first is planned
at X's public width before tune reads the data, and that one plan is bound to its part's rows after.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx import losses
from dpcvx.exceptions import AssumptionError


class DataRead(Exception):
    """Raised when an entry reads a value of the data."""


class Shaped:
    """Data whose shape is public and whose values must not be read."""

    def __init__(self, *shape: int) -> None:
        self.shape, self.ndim = shape, len(shape)

    def __len__(self) -> int:
        return self.shape[0]

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise DataRead("__array__")

    def __getitem__(self, item: Any) -> Any:
        raise DataRead("__getitem__")

    def __iter__(self) -> Any:
        raise DataRead("__iter__")


X, Y = Shaped(40, 3), Shaped(40)


def _huber_svm() -> dpcvx.PrivateERM:
    return dpcvx.PrivateERM(losses.huber_hinge(), lam=1e-2, data_norm=1.0)


#: entries whose mechanism the verified problem does not allow: the Huber hinge (piecewise C^2) under Gaussian
#: objective perturbation, squared error without a constraint set (not Lipschitz), a custom loss whose constants are
#: only estimated (no allow_estimates)
ENTRIES: dict[str, Callable[[dpcvx.PrivacyAccountant], Any]] = {
    "PrivateERM.fit": lambda a: _huber_svm().fit(X, Y, 1.0, delta=1e-6, accountant=a),
    "PrivateERM.plan": lambda a: _huber_svm().plan(X, Y, epsilon=1.0, delta=1e-6),
    "PrivateERM.check_fit_inputs": lambda a: _huber_svm().check_fit_inputs(X, Y, epsilon=1.0, delta=1e-6),
    "PrivateERM.fit (intercept, weights)": lambda a: dpcvx.PrivateERM(
        losses.huber_hinge(), lam=1e-2, data_norm=1.0, fit_intercept=True, sample_weight_bound=2.0).fit(
        X, Y, 1.0, delta=1e-6, accountant=a, sample_weight=Y),
    "PrivateERM squared error": lambda a: dpcvx.PrivateERM(
        losses.squared_error(), lam=1e-2, data_norm=1.0, task="regression", label_bound=1.0).fit(
        X, Y, 1.0, accountant=a),
    "PrivateERM estimated loss": lambda a: dpcvx.PrivateERM(
        lambda z: cp.logistic(-z) + 0.1 * cp.exp(-cp.square(z)), lam=1e-2, data_norm=1.0).fit(
        X, Y, 1.0, accountant=a),
    "PrivateMulticlassERM.fit": lambda a: dpcvx.PrivateMulticlassERM(_huber_svm(), (0, 1, 2)).fit(
        X, Y, 1.0, delta=1e-6, accountant=a),
    "PrivateMulticlassERM.plan": lambda a: dpcvx.PrivateMulticlassERM(_huber_svm(), (0, 1, 2)).plan(
        X, Y, 1.0, delta=1e-6),
    "DPHuberSVM.fit": lambda a: dpcvx.DPHuberSVM(delta=1e-6).fit(X, Y, accountant=a),
    "DPHuberSVM.plan": lambda a: dpcvx.DPHuberSVM(delta=1e-6).plan(X, Y),
    "DPHuberSVM.fit (three classes)": lambda a: dpcvx.DPHuberSVM(delta=1e-6, classes=(0, 1, 2)).fit(
        X, Y, accountant=a),
    "DPERMClassifier.fit": lambda a: dpcvx.DPERMClassifier(loss="huber_hinge", delta=1e-6).fit(X, Y, accountant=a),
    "DPHuberRegressor.fit": lambda a: dpcvx.DPHuberRegressor(delta=1e-6, mechanism="objective",
                                                             label_bound=1.0).fit(X, Y, accountant=a),
    "DPHuberRegressor.plan": lambda a: dpcvx.DPHuberRegressor(delta=1e-6, mechanism="objective",
                                                              label_bound=1.0).plan(X, Y),
}


@pytest.mark.slow
@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_the_verdict_comes_before_the_values_are_read(entry: str) -> None:
    accountant = dpcvx.PrivacyAccountant(100.0, 0.5)
    with pytest.raises(AssumptionError, match="is not allowed"):
        ENTRIES[entry](accountant)
    assert accountant.ledger == []


def test_the_plan_is_made_at_the_public_width_and_binds_rows_of_it() -> None:
    """One plan at X's width (the feature map's and the intercept's columns counted) serves the fit; its rows are
    bound after, and the verdict it holds is the one the release's certificate states."""
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(60, 3)) / 3
    labels = np.where(rows[:, 0] > 0, 1, -1)
    learner = dpcvx.PrivateERM(losses.huber_hinge(), lam=1e-1, data_norm=1.0, fit_intercept=True)
    plan = learner.plan(rows, labels, epsilon=1.0)
    assert plan.width == 4 and plan.problem.certificate.dim == 4
    model = plan.fit(rows, labels, random_state=0)
    assert model.certificate.verification is plan.problem.certificate
    assert np.array_equal(model.coef_, learner.fit(rows, labels, 1.0, random_state=0).coef_)


def test_a_list_is_read_for_its_width_and_planned_as_an_array() -> None:
    """A list's shape is its values': it is converted (and refused as every fit refuses it) before the plan."""
    rows = [[0.1, 0.2], [-0.2, 0.1], [0.3, -0.1], [-0.1, -0.3]]
    labels = [1, -1, 1, -1]
    learner = dpcvx.PrivateERM(losses.logistic(), lam=1e-1, data_norm=1.0)
    assert np.array_equal(learner.fit(rows, labels, 1.0, random_state=3).coef_,
                          learner.fit(np.array(rows), np.array(labels), 1.0, random_state=3).coef_)
    with pytest.raises(dpcvx.exceptions.InputError, match="2-D"):
        learner.fit([0.1, 0.2], [1, -1], 1.0)


#: tune splits its rows into parts: more rows than the fits above
TX, TY = Shaped(90, 3), Shaped(90)

def _huber_svm_at(lam: float) -> dpcvx.PrivateERM:
    return dpcvx.PrivateERM(losses.huber_hinge(), lam=lam, data_norm=1.0)


GRID = {"lam": [1e-2, 1e-1]}

#: tune's entries whose candidates' mechanism the verified problem does not allow: the Huber hinge under Gaussian
#: objective perturbation, squared error without a constraint set, a loss whose constants are only estimated
TUNE_ENTRIES: dict[str, Callable[[dpcvx.PrivacyAccountant], Any]] = {
    "PrivateERM, split, Gaussian objective": lambda a: dpcvx.tune(
        dpcvx.PrivateERM(losses.huber_hinge(), data_norm=1.0), TX, TY, GRID, 1.0, procedure="split",
        mechanism="objective", delta=1e-6, accountant=a),
    "PrivateERM, full-data, squared error": lambda a: dpcvx.tune(
        dpcvx.PrivateERM(losses.squared_error(), data_norm=1.0, task="regression", label_bound=1.0), TX, TY, GRID,
        1.0, accountant=a),
    "PrivateERM, split, estimated loss": lambda a: dpcvx.tune(
        dpcvx.PrivateERM(lambda z: cp.logistic(-z) + 0.1 * cp.exp(-cp.square(z)), data_norm=1.0), TX, TY, GRID,
        1.0, procedure="split", accountant=a),
    "PrivateERM, full-data, estimated loss": lambda a: dpcvx.tune(
        dpcvx.PrivateERM(lambda z: cp.logistic(-z) + 0.1 * cp.exp(-cp.square(z)), data_norm=1.0), TX, TY, GRID,
        1.0, accountant=a),
    "one-vs-rest, split, Gaussian objective": lambda a: dpcvx.tune(
        lambda lam: dpcvx.PrivateMulticlassERM(_huber_svm_at(lam), (0, 1, 2)), TX, TY, GRID, 1.0, procedure="split",
        mechanism="objective", delta=1e-6, accountant=a),
    "DPHuberSVM, split, Gaussian objective": lambda a: dpcvx.tune(
        dpcvx.BudgetInConstructor(dpcvx.DPHuberSVM), TX, TY, GRID, 1.0, procedure="split", delta=1e-6,
        accountant=a),
    "DPHuberSVM three classes, split, Gaussian objective": lambda a: dpcvx.tune(
        dpcvx.BudgetInConstructor(dpcvx.DPHuberSVM, classes=(0, 1, 2)), TX, TY, GRID, 1.0, procedure="split",
        delta=1e-6, accountant=a),
    "DPHuberRegressor, split, Gaussian objective": lambda a: dpcvx.tune(
        dpcvx.BudgetInConstructor(dpcvx.DPHuberRegressor, mechanism="objective", label_bound=1.0), TX, TY,
        {"lam": [1e-2, 1e-1]}, 1.0, procedure="split", delta=1e-6, accountant=a),
}


@pytest.mark.parametrize("entry", sorted(TUNE_ENTRIES))
def test_tune_refuses_a_candidate_by_its_verdict_before_reading_the_data(entry: str) -> None:
    accountant = dpcvx.PrivacyAccountant(100.0, 0.5)
    with pytest.raises(AssumptionError, match="is not allowed"):
        TUNE_ENTRIES[entry](accountant)
    assert accountant.ledger == []


def test_the_checks_that_read_the_data_come_after_the_verdicts() -> None:
    """A grid every candidate of which its verified problem allows reads the data after planning: the first read is
    tune's own (its conversion of X), and labels outside the public classes are still refused on the values."""
    with pytest.raises(DataRead):
        dpcvx.tune(dpcvx.PrivateERM(losses.logistic(), data_norm=1.0), TX, TY, GRID, 1.0, procedure="split")
    rows = np.random.default_rng(0).normal(size=(60, 3)) / 3
    with pytest.raises(dpcvx.exceptions.InputError, match="outside"):
        dpcvx.tune(dpcvx.PrivateERM(losses.logistic(), data_norm=1.0), rows, np.arange(60) % 3, GRID, 1.0,
                   procedure="split")


@pytest.mark.parametrize("procedure", ["split", "full-data"])
def test_the_plan_tune_fits_from_is_the_one_made_before_the_read(procedure: str) -> None:
    """One verification per candidate: the released model's certificate is the plan's, made at X's width with the
    epsilon its fits use (the run's share e_Q under full-data)."""
    rng = np.random.default_rng(1)
    rows = rng.normal(size=(400, 3)) / 10
    labels = np.where(rows[:, 0] + 0.1 * rng.normal(size=400) > 0, 1, -1)
    result = dpcvx.tune(dpcvx.PrivateERM(losses.logistic(), data_norm=1.0), rows, labels, GRID, 1.0,
                        procedure=procedure, random_state=0)
    expected = 1.0 if procedure == "split" else 1.0 / 3
    assert result.model.certificate.epsilon == pytest.approx(expected)


@pytest.mark.parametrize("learner", [
    dpcvx.PrivateERM(losses.logistic(), data_norm=1.0),
    dpcvx.BudgetInConstructor(dpcvx.DPLogisticRegression, data_norm=1.0, classes=(-1, 1)),
], ids=["PrivateERM", "DPLogisticRegression"])
def test_each_candidate_is_verified_once(learner: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan made before the read is the one bound to the part's rows and fitted from: one plan (one verification)
    per candidate."""
    made = []
    make_plan = dpcvx.PrivateERM._make_plan
    monkeypatch.setattr(dpcvx.PrivateERM, "_make_plan", lambda self, *args: made.append(1) or make_plan(self, *args))
    rng = np.random.default_rng(2)
    rows = rng.normal(size=(300, 3)) / 10
    labels = np.where(rows[:, 0] > 0, 1, -1)
    dpcvx.tune(learner, rows, labels, GRID, 1.0, procedure="split", random_state=0)
    assert len(made) == len(GRID["lam"])
