"""What is certified is what is solved: a user's constant is the exact value of its double.

The solver evaluates doubles, so the loss 0.1 * logistic(-z) has L = the double 0.1 exactly
(0.1000000000000000055...), not 1/10: a constant proved from the simplest rational near the double
could lie below the true one, and a release would calibrate its noise to too small a bound.
A constant beyond the doubles' range is refused as too large for floating point, before any fit.
"""

import warnings
from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import AssumptionError
from dpcvx.verification.exact import Irrational, exact_constant, float_down, float_up

TENTH = Fraction(0.1)  # the double 0.1, exactly


def by_name(cert):
    return {item.name: item for item in cert.conditions}


def test_a_constant_is_its_double_exactly():
    assert exact_constant(0.1) == TENTH != Fraction(1, 10)
    assert exact_constant(0.5) == Fraction(1, 2)
    assert exact_constant(3.0) == 3


@pytest.mark.slow
def test_lipschitz_constant_is_the_doubles_not_below_them():
    """0.1 * logistic(-z): sup |l'| is the double 0.1, above 1/10; the release's float is no smaller."""
    cert = dpcvx.verify(lambda z: 0.1 * cp.logistic(-z))
    assert cert.lipschitz == TENTH
    assert cert.curvature == TENTH / 4
    assert Fraction(float_up(cert.lipschitz)) >= TENTH
    assert by_name(cert)["lipschitz"].value_text == "0.10000000000000001"


@pytest.mark.slow
def test_huber_threshold_is_its_double_and_stays_c1():
    """huber(z, 0.1): the pieces meet at the double 0.1 (not at 1/10, where l' would show a false jump)."""
    cert = dpcvx.verify(lambda z: cp.huber(z, 0.1))
    items = by_name(cert)
    assert cert.lipschitz == 2 * TENTH
    assert items["convexity"].passed and items["differentiability"].passed
    assert items["twice_differentiability"].value == "piecewise C^2"
    assert "0.10000000000000001" in items["twice_differentiability"].detail


def test_strong_convexity_is_the_doubles():
    cert = dpcvx.verify(lambda z: cp.logistic(-z), lambda w: 0.1 * cp.sum_squares(w))
    assert cert.strong_convexity == 2 * TENTH
    assert Fraction(float_down(cert.strong_convexity)) <= 2 * TENTH


@pytest.mark.slow
def test_convexity_detail_names_the_downward_kink():
    """min(logistic(-z), 1) has l'' >= 0 on every piece: the failure is l' jumping down, not 'l'' reaches 0 < 0'."""
    item = by_name(dpcvx.verify(lambda z: cp.minimum(cp.logistic(-z), 1)))["convexity"]
    assert item.passed is False
    assert "jumps down" in item.detail and "< 0" not in item.detail


def HUGE(w):
    """m = 4e308: each term's curvature is a double, their sum is not."""
    return 1e308 * cp.sum_squares(w) + 1e308 * cp.sum_squares(w)


def test_strong_convexity_beyond_the_doubles_is_refused_at_verify():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "invalid value" (inf * 0 in a linear part without offset) was shown
        item = by_name(dpcvx.verify(lambda z: cp.logistic(-z), HUGE))["strong_convexity"]
    assert item.passed is False
    assert "too large for floating point" in item.detail
    assert "scale the regularizer" in item.fix


@pytest.mark.parametrize("mechanism", ["output", "objective"])
def test_fit_with_a_curvature_beyond_the_doubles_is_a_typed_refusal(mechanism):
    X = np.array([[0.5, 0.1], [-0.3, 0.2], [0.1, -0.4], [-0.2, -0.1]])
    y = np.array([1, -1, 1, -1])
    erm = dpcvx.PrivateERM(loss=lambda z: cp.logistic(-z), regularizer=HUGE, lam=1e-2, data_norm=1.0)
    with pytest.raises(AssumptionError, match="too large for floating point"):
        erm.fit(X, y, epsilon=1.0, mechanism=mechanism, random_state=0)


def test_a_loaded_irrational_constant_is_bounded_by_the_doubles_beside_it():
    """A loaded certificate's irrational constant (an exact text and its double, no sympy) is rounded outward as a
    fitted one is: the lam rule of a loaded file reads its curvature through float_up (a TypeError before)."""
    root = Irrational("sqrt(2)", 2 ** 0.5)
    assert float_down(root) < 2 ** 0.5 < float_up(root)
    assert float_up(root) == np.nextafter(2 ** 0.5, np.inf) and float_down(root) == np.nextafter(2 ** 0.5, -np.inf)
