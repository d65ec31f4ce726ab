"""The mechanism's verdict (a condition of the verified problem the mechanism needs) is made before a value of the
data is read, at every entry that fits a PrivateERM: the width d is public (X's shape), and the one verification of
the fit runs at it before the rows and labels are read. A refused call spends nothing.

The data here has a public shape and values that raise :class:`DataRead` when read: an entry that reads them before
the verdict fails with that error instead of the AssumptionError.
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
