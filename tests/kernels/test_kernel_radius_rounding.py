"""The kernel learners' bound C = min(L R / lam, sqrt(2 (l(0) - inf l) / lam)) is never below the truth: l(0) is
recorded rounded up and inf l rounded down. Each rounded to its nearest double, the difference cancelled under a
constant offset: logistic(-z) + 2^51 has l(0) - inf l = log 2, read as 0.5, and C was certified 10 where it is
11.77 (offsets of 3e4 to 3e5 also gave a C below the truth)."""

import math
from fractions import Fraction

import cvxpy as cp
import mpmath
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.privacy.kernel_calibrate import loss_radius
from dpcvx.verification.kernel_loss import resolve_loss

LAM = 0.01


@pytest.mark.parametrize("offset", [2.0**51, 3e4, 1e5, 3e5, 0.0])
def test_the_radius_of_a_shifted_loss_is_at_least_the_exact_one(offset):
    loss = resolve_loss(lambda z: cp.logistic(-z) + offset, time_limit=20)
    assert Fraction(loss.value_at_zero) >= Fraction(offset) + Fraction(math.log(2)) - Fraction(2.0**-52)
    assert loss.value_at_zero - loss.infimum >= math.log(2)  # each rounded outwards
    with mpmath.workdps(50):
        exact = mpmath.sqrt(2 * mpmath.log(2) / mpmath.mpf(LAM))
        assert loss_radius(LAM, loss, 1.0) >= exact


def test_the_tddl_certificate_states_a_radius_above_the_truth():
    loss = lambda z: cp.logistic(-z) + 2.0**51  # noqa: E731
    X, y = synthetic_classification(n=240, d=2, random_state=0)
    learner = dpcvx.TDDL("rbf", gamma=0.5, lam=LAM, loss=loss)
    learner.fit(X[:200], y[:200], 1.0, Z=X[200:240], random_state=0)
    assert learner.constraint_radius_ >= math.sqrt(2 * math.log(2) / LAM)  # 10.000000000010001 before
