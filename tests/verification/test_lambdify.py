"""The solver's numpy l, l', l'' (translate.lambdify) agree with sympy's own printing of the same form.

The Huber losses' Piecewise conditions hold ITE(a, b, c) (from rewriting max/min/abs), which
translate.lambdify writes as (a & b) | (~a & c) to skip sympy's slow logic simplification.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
import sympy as sp
from sympy.logic.boolalg import ITE

from dpcvx import losses
from dpcvx.verification import translate
from dpcvx.verification.verifier import SYMBOL

# a grid through every breakpoint of the losses below, and the doubles next to them
POINTS = np.concatenate([np.linspace(-4.0, 4.0, 8001), np.nextafter([-1.0, 1.0, 0.5, 1.5, 0.7, 1.3], np.inf),
                         np.nextafter([-1.0, 1.0, 0.5, 1.5, 0.7, 1.3], -np.inf)])


def forms(loss):
    variable = cp.Variable(name="z")
    expression = translate.to_sympy(loss(variable), variable, SYMBOL)
    form = expression.rewrite(sp.Piecewise)
    return [sp.diff(form, SYMBOL, order) for order in range(3)]


@pytest.mark.parametrize("loss", [losses.huber_regression(), losses.huber_hinge(0.5), losses.huber_hinge(0.3)],
                         ids=repr)
def test_huber_derivatives_match_sympys_printing(loss):
    for form in forms(loss):
        reference = sp.lambdify(SYMBOL, form, modules=[translate._STABLE_NUMPY, "numpy"])
        np.testing.assert_array_equal(translate.lambdify(SYMBOL, form)(POINTS),
                                      np.broadcast_to(np.asarray(reference(POINTS), dtype=float), POINTS.shape))


def test_the_ite_rewrite_is_the_same_condition_and_a_wrong_one_is_caught():
    form = forms(losses.huber_regression())[1]
    assert form.has(ITE) and not translate._without_ite(form).has(ITE)
    wrong = form.replace(ITE, lambda a, b, c: sp.Or(sp.And(a, b), c))  # drops ~a: a broken rewrite
    right = translate.lambdify(SYMBOL, form)(POINTS)
    assert not np.array_equal(sp.lambdify(SYMBOL, wrong, modules="numpy")(POINTS), right)
