"""A learner holding a value that cannot be copied (a lock in cvxpy_options) is refused with a typed InputError by
every path that copies it: one-vs-rest's check_options and the OpenDP bridge with column statistics, one-vs-rest's
fit with column statistics and set_params, and tune's candidates (analyst probe P5, session 68: copy's bare
TypeError escaped). Nothing is charged."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError


def _binary(**extra):
    return dpcvx.PrivateERM(loss="logistic", lam=0.01, data_norm=1.0, cvxpy_options={"lock": threading.Lock()},
                            **extra)


def _data(k=3, n=200):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    return X / np.linalg.norm(X, axis=1).max(), rng.integers(0, k, n)


@pytest.mark.parametrize("statistics", [True, "ranges"])
def test_multiclass_check_options_refuses_typed(statistics):
    learner = dpcvx.PrivateMulticlassERM(_binary(column_statistics=statistics), classes=(0, 1, 2))
    with pytest.raises(InputError, match="cannot be copied"):
        learner.check_options(1.0)


def test_opendp_bridge_refuses_typed():
    pytest.importorskip("opendp")
    learner = dpcvx.PrivateMulticlassERM(_binary(column_statistics=True), classes=(0, 1, 2))
    with pytest.raises(InputError, match="cannot be copied"):
        dpcvx.as_opendp_measurement(learner, epsilon=1.0)


def test_multiclass_fit_with_statistics_refuses_before_the_charge():
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(10, 0)
    learner = dpcvx.PrivateMulticlassERM(_binary(column_statistics=True), classes=(0, 1, 2))
    with pytest.raises(InputError, match="nothing was charged"):
        learner.fit(X, y, epsilon=1.0, accountant=accountant)
    assert accountant.spent.epsilon == 0


def test_multiclass_set_params_refuses_typed():
    learner = dpcvx.PrivateMulticlassERM(_binary(), classes=(0, 1, 2))
    with pytest.raises(InputError, match="cannot be copied"):
        learner.set_params(binary__lam=0.1)
    assert learner.binary.lam == 0.01


@pytest.mark.parametrize("multiclass", [False, True])
def test_tune_refuses_typed(multiclass):
    X, y = _data()
    if multiclass:
        learner, grid = dpcvx.PrivateMulticlassERM(_binary(), classes=(0, 1, 2)), {"binary__lam": [0.1, 0.01]}
    else:
        learner, grid, y = _binary(classes=(0, 1)), {"lam": [0.1, 0.01]}, np.where(y > 0, 1, 0)
    with pytest.raises(InputError, match="cannot be copied.*nothing was charged"):
        dpcvx.tune(learner, X, y, grid, epsilon=1.0)
