"""The numpy code of a loss written with log(1 + exp(u)) evaluates without overflow (translate.stable_form).

Audit: the solver evaluates l, l', l'' by the code sympy's printer writes (dpcvx.verification.numpy_code). For
cp.log(1 + cp.exp(-z)) that was numpy.log(1 + numpy.exp(-z)), inf at z = -710 (CVXPY's own value overflows there
too), and l' = -exp(-z) / (1 + exp(-z)), NaN (inf / inf): a line search could fail, or a gradient be NaN, after the
budget was charged. The code now writes log(1 + e^u) as softplus(u) and the ratios of its derivatives as sigmoids,
equal in real arithmetic; the proofs read the loss as translated, unchanged.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
import sympy as sp

from dpcvx.verification import translate, verifier
from dpcvx.verification.numpy_code import compile_code

Z = sp.Symbol("z", real=True)
EPS = np.finfo(float).eps

LOSSES = {
    "log(1 + exp(-z))": (lambda z: cp.log(1 + cp.exp(-z)), 1e300),
    "log(1 + exp(2z - 3)) / 2 + z^2 / 10": (lambda z: cp.log(1 + cp.exp(2 * z - 3)) / 2 + cp.square(z) / 10, 1e100),
    "max(-z, log(1 + exp(-z)))": (lambda z: cp.maximum(-z, cp.log(1 + cp.exp(-z))), 1e300),
    "log(1 + exp(-z)) + log(1 + exp(z / 3 - 1))": (lambda z: cp.log(1 + cp.exp(-z)) + cp.log(1 + cp.exp(z / 3 - 1)),
                                                    1e300),
}


def _codes(loss, stable: bool) -> list:
    variable = cp.Variable()
    form = translate.to_sympy(loss(variable), variable, Z).rewrite(sp.Piecewise)
    printed = []
    for order in range(3):
        expression = sp.diff(form, Z, order)
        if stable:
            printed.append(translate.numpy_code(Z, expression))
        else:  # the printer's text of the expression as translated (the code before the rewrite)
            from sympy.printing.numpy import NumPyPrinter

            printer = NumPyPrinter({"fully_qualified_modules": True, "user_functions": translate._PRINTED_NAMES})
            printed.append(str(printer.doprint(translate._without_ite(expression))))
    return [compile_code(text) for text in printed]


@pytest.mark.parametrize("name", LOSSES)
def test_stable_code_is_finite_and_agrees_with_the_old_code_where_that_is_finite(name):
    loss, reach = LOSSES[name]
    grid = np.concatenate([np.linspace(-800, 800, 16_001), np.geomspace(1e-3, reach, 400),
                           -np.geomspace(1e-3, reach, 400), [-710.0, -709.79, 709.79, 710.0, 0.0]])
    with np.errstate(all="ignore"):
        old = [code(grid) for code in _codes(loss, stable=False)]
    new = [code(grid) for code in _codes(loss, stable=True)]
    for order, (before, after) in enumerate(zip(old, new, strict=True)):
        assert np.all(np.isfinite(after)), (name, order, grid[~np.isfinite(after)][:5])
        finite = np.isfinite(before)
        # a few ulps of the value, or of 1 where the value comes from a difference of terms of size 1
        tolerance = 8 * EPS * np.maximum(np.abs(before[finite]), np.abs(after[finite])) + 4 * EPS
        assert np.all(np.abs(after[finite] - before[finite]) <= tolerance), (name, order)
    assert not np.all(np.isfinite(old[0])) or not np.all(np.isfinite(old[1]))  # the old code overflowed somewhere


def test_the_rewrites_are_the_functions_they_replace():
    u = 2 * Z - 3
    assert translate.stable_form(sp.log(1 + sp.exp(u))) == translate.Softplus(u)
    assert translate.stable_form(sp.exp(u) / (1 + sp.exp(u))) == translate.Sigmoid(u)
    assert translate.stable_form(1 / (1 + sp.exp(u)) ** 3) == translate.Sigmoid(-u) ** 3
    assert translate.stable_form(sp.exp(-2 * Z) / (1 + sp.exp(-Z)) ** 2) == translate.Sigmoid(-Z) ** 2
    assert translate.stable_form(sp.exp(-Z) / (1 + sp.exp(-Z)) ** 2) == translate.Sigmoid(-Z) * translate.Sigmoid(Z)
    unbounded = sp.exp(-3 * Z) / (1 + sp.exp(-Z)) ** 2  # e^(3u) / (1 + e^u)^2 grows like e^u: left a product
    assert translate.stable_form(unbounded).has(sp.exp)
    for expression in (sp.log(1 + sp.exp(u)), sp.exp(u) / (1 + sp.exp(u)), sp.exp(-Z) / (1 + sp.exp(-Z)) ** 2):
        stable = translate.elementary(translate.stable_form(expression))
        for point in (-3, sp.Rational(1, 7), 2, 11):
            assert abs(sp.N((stable - expression).subs(Z, point), 50)) < 1e-45


@pytest.mark.slow  # a worker start-up when no worker runs yet (about 3 s)
def test_the_verified_derivatives_are_finite_where_they_overflowed_and_the_proofs_are_unchanged():
    verifier.forget_losses()
    written = verifier.verify_loss(lambda z: cp.log(1 + cp.exp(-z)))
    catalogue = verifier.verify_loss(lambda z: cp.logistic(-z))  # the same function: the same sympy form
    z = np.array([-1e6, -800.0, -710.0, -709.0, 0.0, 709.0, 710.0, 800.0])
    for function in ("value", "first", "second"):
        assert np.all(np.isfinite(getattr(written.derivatives, function)(z))), function
    np.testing.assert_array_equal(written.derivatives.first(z), catalogue.derivatives.first(z))
    assert written.derivatives.value(np.array([-710.0]))[0] == 710.0
    proved = {item.name: (item.passed, item.value, item.method) for item in written.conditions[1:]}
    assert proved == {item.name: (item.passed, item.value, item.method) for item in catalogue.conditions[1:]}
    assert proved["curvature"] == (True, 0.25, "symbolic") and proved["lipschitz"] == (True, 1, "symbolic")
