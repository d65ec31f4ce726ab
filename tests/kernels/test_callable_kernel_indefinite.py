"""A user's kernel callable that is finite but not positive semidefinite never makes a kernel learner raise or spin
after its charge (an attacker probe, sixty-fourth session, probeA3 F2):

* one row whose entries against the others are 1e300 gave TDDL (span "training", float_safe or not) an indefinite
  Gram matrix of the training rows: after the charge its least-squares step raised a bare scipy ValueError, or the
  solve spun for minutes, where the neighbour released. The Gram matrix of a callable is now refused before the
  charge when it is not positive semidefinite (an InputError, nothing spent), as its finiteness already was;
* a callable positive semidefinite on the rows and on Z, but huge on one (z, x_i) pair, made TDDL's predictions at Z
  overflow after the charge: they are clamped to their proved range (C + gamma) ||phi(z_t)||, as PINP's answers are.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpcvx import PINP, TDDL, PrivacyAccountant
from dpcvx.exceptions import InputError, NoiseDominatesWarning


def _rbf(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return np.exp(-np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=2))


def _big_cross(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """rbf, except 1e300 between a row with x0 == 0.5 and any other point: finite, symmetric, not PSD."""
    gram = _rbf(A, B)
    marked_a, marked_b = A[:, 0] == 0.5, B[:, 0] == 0.5
    gram[np.ix_(~marked_a, marked_b)] = 1e300
    gram[np.ix_(marked_a, ~marked_b)] = 1e300
    return gram


Z_MARK = 0.37  # a public point of Z with x1 == Z_MARK


def _huge_against_z(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """rbf, except 1e300 between the public point with x1 == Z_MARK and a row with x0 == 0.5 (only on that pair: the
    Gram matrices of the rows and of Z are rbf's, positive semidefinite)."""
    gram = _rbf(A, B)
    gram[np.ix_(A[:, 1] == Z_MARK, B[:, 0] == 0.5)] = 1e300
    gram[np.ix_(A[:, 0] == 0.5, B[:, 1] == Z_MARK)] = 1e300
    return gram


def _neighbours(seed: int, n: int = 40) -> tuple:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.4, 0.4, (n, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    other = X.copy()
    other[int(rng.integers(n))] = (0.5, 0.0)
    Z = np.random.default_rng(100 + seed).uniform(-0.4, 0.4, (8, 2))
    Z[0, 1] = Z_MARK
    return X, other, y, Z


def _outcome(fit, accountant: PrivacyAccountant) -> tuple[str, float]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NoiseDominatesWarning)
            fit()
    except Exception as error:  # the outcome compared between neighbours: its type
        return type(error).__name__, accountant.spent.epsilon
    return "released", accountant.spent.epsilon


def _fit(learner: str, kernel, data, y, Z, accountant, seed: int, float_safe: bool = False):
    if learner == "TDDL":
        return lambda: TDDL(kernel, lam=0.1, feature_bound=1.0, span="training", float_safe=float_safe).fit(
            data, y, 1.0, Z=Z, accountant=accountant, random_state=seed)
    return lambda: PINP(kernel, lam=0.1, max_queries=5, feature_bound=1.0).fit(
        data, y, 1.0, accountant=accountant, random_state=seed)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("learner, float_safe", [("TDDL", True), ("TDDL", False), ("PINP", False)])
def test_an_indefinite_callable_gram_is_refused_before_the_charge(learner, float_safe, seed):
    X, other, y, Z = _neighbours(seed)
    seen = []
    for data in (X, other):
        accountant = PrivacyAccountant(5.0)
        seen.append(_outcome(_fit(learner, _big_cross, data, y, Z, accountant, seed, float_safe), accountant))
    assert seen[0] == ("released", 1.0)
    assert seen[1] == ("InputError", 0.0)  # refused before the charge, nothing spent; never raised after it
    with pytest.raises(InputError, match="not positive semidefinite"):
        TDDL(_big_cross, lam=0.1, feature_bound=1.0, span="training").check_fit_inputs(other, y, 1.0, Z=Z)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("float_safe", [True, False])
def test_tddl_predictions_huge_on_one_pair_are_clamped_after_the_charge(float_safe, seed):
    X, other, y, Z = _neighbours(seed)
    seen = []
    for data in (X, other):
        accountant = PrivacyAccountant(5.0)
        seen.append(_outcome(_fit("TDDL", _huge_against_z, data, y, Z, accountant, seed, float_safe), accountant))
    assert seen[0] == seen[1] == ("released", 1.0)
