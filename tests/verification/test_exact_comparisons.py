"""The symbolic prover decides every comparison of its exact values exactly (P6 F1)."""

from fractions import Fraction

import cvxpy as cp
import pytest
import sympy as sp

import dpcvx
from dpcvx.verification import symbolic
from dpcvx.verification.symbolic import RealFunction, SymbolicFailure

pytestmark = pytest.mark.usefixtures("uncached_verifier")

z = sp.Symbol("z", real=True)
TINY = sp.Rational(Fraction(5e-324))  # the smallest subnormal double, exactly


def test_values_that_tie_as_doubles_are_ordered_exactly():
    near = [sp.Integer(-1), -1 - sp.Rational(1, 2**70), sp.Integer(0), -2 * TINY / 10]
    assert symbolic._exact_extreme(near, highest=False) == -1 - sp.Rational(1, 2**70)
    assert symbolic._exact_extreme(near, highest=True) == 0
    assert symbolic._exact_extreme([sp.Integer(0), -2 * TINY / 10], highest=False) == -2 * TINY / 10
    assert symbolic._exact_sign(-2 * TINY / 10) == -1
    assert symbolic._exact_sign(sp.sqrt(2) + sp.sqrt(3) - sp.sqrt(5 + 2 * sp.sqrt(6))) == 0


def test_a_sign_it_cannot_decide_makes_the_route_give_up():
    with pytest.raises(SymbolicFailure, match="cannot decide the sign"):
        symbolic._exact_sign(sp.Symbol("a"))


def test_a_negative_curvature_below_the_doubles_is_found():
    """l'' = -2e-324 * 0.2 on (9, 11): its infimum ties with the 0 of the outer pieces as a double."""
    huber = sp.Piecewise((z**2, sp.Abs(z) <= 1), (2 * sp.Abs(z) - 1, True))
    loss = huber.subs(z, 1 - z) - TINY * sp.Rational(Fraction(0.2)) * huber.subs(z, z - 10)
    lowest = RealFunction(loss, z).extremes(2)[0]
    assert lowest == -2 * TINY * sp.Rational(Fraction(0.2))


def test_a_nonconvex_loss_below_the_doubles_is_not_certified_convex():
    certificate = dpcvx.verify(lambda v: cp.huber(1 - v, 1) - 5e-324 * (0.2 * cp.huber(v - 10, 1)))
    convexity = certificate.by_name["convexity"]
    assert convexity.passed is False and convexity.method == "symbolic"
    assert "-1.98e-324 < 0" in convexity.detail  # its exact value, not "-0"
    assert not certificate.allows("output") and not certificate.allows("objective")


def test_an_exact_supremum_is_not_understated_below_an_ulp():
    certificate = dpcvx.verify(lambda v: cp.logistic(v) + cp.logistic(-v) + 2.0**-70 * cp.logistic(-v))
    lipschitz = certificate.by_name["lipschitz"]
    assert lipschitz.method == "symbolic" and lipschitz.value == 1 + Fraction(1, 2**70)


def test_a_curvature_below_the_doubles_is_not_zero():
    curvature = dpcvx.verify(lambda v: 5e-324 * cp.logistic(-v)).by_name["curvature"]
    assert curvature.method == "symbolic" and curvature.value == Fraction(5e-324) / 4
