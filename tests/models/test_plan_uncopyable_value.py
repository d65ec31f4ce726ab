"""A plan holds a copy of each parameter value (models.contract.held_values); a value that cannot be copied (a loss
holding an open file or a lock) was met by copy's bare TypeError in plan() (an attacker probe, session 67, P7 F2):
it is refused by its parameter's name with InputError (a plan charges nothing), and fit still takes it."""

from __future__ import annotations

import threading

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError


class LockedLoss:
    """A logistic loss holding a lock, which copy.deepcopy cannot copy."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def __call__(self, z):
        return cp.logistic(-z)


def _rows() -> tuple[np.ndarray, np.ndarray]:
    X = np.random.default_rng(0).normal(size=(400, 3)) / 4
    return X, np.where(X[:, 0] > 0, 1, -1)


def test_a_learner_s_plan_refuses_an_uncopyable_loss_by_name_and_fit_takes_it() -> None:
    X, y = _rows()
    with pytest.raises(InputError, match=r"loss=LockedLoss\(\.\.\.\) cannot be copied.*nothing was charged"):
        dpcvx.PrivateERM(LockedLoss(), data_norm=1.0).plan(X, y, epsilon=1.0)
    accountant = dpcvx.PrivacyAccountant(10.0)
    dpcvx.PrivateERM(LockedLoss(), data_norm=1.0).fit(X, y, epsilon=1.0, accountant=accountant, random_state=0)
    assert len(accountant.ledger) == 1


def test_an_estimator_s_plan_refuses_it_too() -> None:
    X, y = _rows()
    with pytest.raises(InputError, match="cannot be copied"):
        dpcvx.DPERMClassifier(LockedLoss(), epsilon=1.0).plan(X, (y > 0).astype(int))
