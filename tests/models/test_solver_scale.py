"""Public constants beyond the solvers' floating point are refused before the charge.

A loss of L = 1e200 (1e200 * logistic) passed every check, was charged, and failed in the solve: the linear path's
gradient norms (n L R) overflowed to infinity and Newton ran to its budget ("on the proved path this is a bug"), or
numpy's norm of the noise (entries near 1e300) was infinite and the proved budget raised a bare OverflowError; the
kernel path squared its smoothness lam + c R_phi^2 in a bare OverflowError. The scale check (SolverChoice.check_scale,
the kernel solver's _check_scale) refuses such constants with a typed error and a fix, nothing charged; a loss within
the range still fits."""

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.solvers.budget import scaled_norm

RNG = np.random.default_rng(0)
X = RNG.normal(size=(100, 3))
X /= np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True))
Y = np.where(X[:, 0] > 0, 1, -1)


def scaled_logistic(k):
    return lambda z: k * cp.logistic(-z)


FITS = {
    "PrivateERM": lambda k, accountant: dpcvx.PrivateERM(loss=scaled_logistic(k), lam=0.1, data_norm=1.0).fit(
        X, Y, epsilon=1, random_state=0, accountant=accountant),
    "PrivateERM output": lambda k, accountant: dpcvx.PrivateERM(loss=scaled_logistic(k), lam=0.1, data_norm=1.0).fit(
        X, Y, epsilon=1, mechanism="output", random_state=0, accountant=accountant),
    "DPERMClassifier": lambda k, accountant: dpcvx.DPERMClassifier(loss=scaled_logistic(k), random_state=0).fit(
        X, (Y > 0).astype(int), accountant=accountant),
    "TDDL": lambda k, accountant: dpcvx.TDDL("rbf", lam=0.1, gamma=1.0, loss=scaled_logistic(k)).fit(
        X, Y, 1.0, Z=X[:10], random_state=0, accountant=accountant),
    "PINP": lambda k, accountant: dpcvx.PINP("rbf", lam=0.1, gamma=1.0, max_queries=3, loss=scaled_logistic(k)).fit(
        X, Y, 1.0, random_state=0, accountant=accountant),
    "TDIL": lambda k, accountant: dpcvx.TDIL("rbf", lam=0.1, gamma=1.0, input_bound=1.0, loss=scaled_logistic(k)).fit(
        X, Y, 1.0, random_state=0, accountant=accountant),
}


@pytest.mark.parametrize("name", FITS)
@pytest.mark.parametrize("k", [1e200, 1e300])
def test_a_loss_beyond_the_solvers_scale_is_refused_before_the_charge(name, k):
    accountant = dpcvx.PrivacyAccountant(10.0)
    with pytest.raises(dpcvx.InputError, match=r"scale is beyond its floating point.*Divide the loss by a public"):
        FITS[name](k, accountant)
    assert accountant.ledger == []


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.TrainingRowsWarning")  # 100 rows at epsilon 1
@pytest.mark.parametrize("name", ["PrivateERM", "TDDL"])
def test_a_loss_within_the_scale_still_fits(name):
    accountant = dpcvx.PrivacyAccountant(10.0)
    FITS[name](1e3, accountant)
    assert len(accountant.ledger) == 1


def test_the_noises_norm_in_the_budget_does_not_overflow():
    """numpy's norm squares entries as they are: [1e300, 1e300] had norm inf."""
    with np.errstate(over="ignore"):
        assert np.isinf(np.linalg.norm(np.array([1e300, 1e300])))
    assert scaled_norm(np.array([1e300, -1e300])) == pytest.approx(np.sqrt(2) * 1e300, rel=1e-15)
    vector = RNG.normal(size=50)
    assert scaled_norm(vector) == pytest.approx(np.linalg.norm(vector), rel=1e-15)
    assert scaled_norm(np.zeros(4)) == 0.0 and scaled_norm(np.zeros(0)) == 0.0
