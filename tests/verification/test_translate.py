"""The CVXPY -> sympy translation agrees with CVXPY's own numeric evaluation, atom by atom."""

from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest
import sympy as sp

from dpcvx.verification.translate import UnsupportedAtom, exact_constant, lambdify, to_sympy

Z = sp.Symbol("z", real=True)
POINTS = np.array([-7.3, -2.0, -0.5, 0.0, 0.25, 0.9, 1.0, 1.6, 3.0, 12.0])
POSITIVE = np.array([0.01, 0.3, 1.0, 2.5, 40.0])

ATOMS = {
    "affine": (lambda z: 3 * z - (z + 1) / 4 + 2, POINTS),
    "constant": (lambda z: z * 0 + cp.Constant(0.1), POINTS),
    "logistic": (lambda z: cp.logistic(-z), POINTS),
    "exp": (lambda z: cp.exp(-z / 3), POINTS),
    "log": (lambda z: -cp.log(z), POSITIVE),
    "square": (lambda z: cp.square(z - 1), POINTS),
    "power": (lambda z: cp.power(z, 1.5), POSITIVE),
    "power_even": (lambda z: cp.power(z, 4), POINTS),
    "huber": (lambda z: cp.huber(z, 0.7), POINTS),
    "huber_hinge": (lambda z: cp.huber(cp.pos(1.5 - z), 1.0) / 2.0, POINTS),
    "pos": (lambda z: cp.pos(1 - z), POINTS),
    "neg": (lambda z: cp.neg(z - 0.5), POINTS),
    "abs": (lambda z: cp.abs(z - 1), POINTS),
    "maximum": (lambda z: cp.maximum(z, 1 - z, 0.2), POINTS),
    "minimum": (lambda z: -cp.minimum(z, 2 * z, 0), POINTS),
    "log_sum_exp_hstack": (lambda z: cp.log_sum_exp(cp.hstack([0, -z])), POINTS),
    "log_sum_exp_vstack": (lambda z: cp.log_sum_exp(cp.vstack([1, -z, z])), POINTS),
    "norm_pseudo_huber": (lambda z: cp.norm(cp.hstack([1, z])) - 1, POINTS),
    "norm2_pseudo_huber": (lambda z: cp.norm2(cp.hstack([1, z])), POINTS),
    "norm1_stack": (lambda z: cp.norm1(cp.hstack([1, z])), POINTS),
    "norm_inf_stack": (lambda z: cp.norm_inf(cp.hstack([1, z])), POINTS),
    "sqrt": (lambda z: -cp.sqrt(z), POSITIVE),
    "inv_pos": (lambda z: cp.inv_pos(z), POSITIVE),
    "sum_of_stack": (lambda z: cp.sum(cp.hstack([z, 2 * z, 1])), POINTS),
    "max_of_stack": (lambda z: cp.max(cp.hstack([z, -z])), POINTS),
    "quad_over_lin": (lambda z: cp.quad_over_lin(cp.hstack([z, 1]), 2), POINTS),
    "index": (lambda z: cp.hstack([z, 3 * z])[1], POINTS),
    "entr": (lambda z: -cp.entr(z), POSITIVE),
}


def cvxpy_values(expression, variable, points):
    out = []
    for point in points:
        variable.value = point
        out.append(float(expression.value))
    return np.array(out)


@pytest.mark.parametrize("name", sorted(ATOMS))
def test_translation_matches_cvxpy(name):
    build, points = ATOMS[name]
    z = cp.Variable()
    expression = build(z)
    translated = lambdify(Z, to_sympy(expression, z, Z).rewrite(sp.Piecewise))
    np.testing.assert_allclose(translated(points), cvxpy_values(expression, z, points),
                               rtol=1e-12, atol=1e-12)


def test_logistic_derivatives_are_stable_far_out():
    z = cp.Variable()
    form = to_sympy(cp.logistic(-z), z, Z)
    first = lambdify(Z, sp.diff(form, Z))
    second = lambdify(Z, sp.diff(form, Z, 2))
    far = np.array([-1e4, -800.0, 800.0, 1e4])
    assert np.all(np.isfinite(first(far))) and np.all(np.isfinite(second(far)))
    np.testing.assert_allclose(first(far), [-1, -1, 0, 0], atol=1e-300)


def test_constants_are_their_doubles_exactly():
    """What is certified is what is solved: the solver computes with the double 0.1, not with 1/10."""
    assert exact_constant(0.1) == sp.Rational(3602879701896397, 36028797018963968) != sp.Rational(1, 10)
    assert exact_constant(1 / 3) != sp.Rational(1, 3)
    assert exact_constant(2.0) == 2 and exact_constant(0.25) == sp.Rational(1, 4)
    for value in (0.1 + 0.2, 1 / 3, 1e-300, 1e300):
        assert exact_constant(value) == sp.Rational(*Fraction(value).as_integer_ratio())


def test_unknown_atom_is_reported_not_crashed():
    from cvxpy.atoms.elementwise.logistic import logistic

    class opaque(logistic):
        pass

    z = cp.Variable()
    with pytest.raises(UnsupportedAtom, match="opaque"):
        to_sympy(opaque(z), z, Z)


def test_other_variable_is_rejected():
    z, other = cp.Variable(), cp.Variable()
    with pytest.raises(UnsupportedAtom, match="another variable"):
        to_sympy(z + other, z, Z)


def test_one_table_of_atom_facts(monkeypatch):
    """translate, per_record and the regularizer calculus all read verification.atoms, by class."""
    from dpcvx.verification import atoms, translate
    from dpcvx.verification.per_record import NotSeparable, check_separable
    from dpcvx.verification.regularizer import analyse_regularizer

    assert set(translate._HANDLERS) - {cp.Constant, cp.Parameter} <= set(atoms.ATOMS)
    x = cp.Variable(3)
    assert [atoms.norm_order(cp.norm(x, p)) for p in (1, 2, 3, "inf")] == [1, 2, 3, np.inf]
    assert atoms.facts(cp.huber(x)).smoothness == "C1" and atoms.facts(cp.norm(x, 1)).is_norm

    z = cp.Variable()
    loss = cp.sum(cp.hstack([z, 1]))
    check_separable(loss, z)
    assert analyse_regularizer(cp.sum(cp.huber(x)), x).c1_only_atoms == ("cp.huber",)  # as the user writes it
    # without their entries, the same atoms are unknown to every reader of the table
    for cls in atoms.SUM + atoms.HUBER:
        monkeypatch.delitem(atoms.ATOMS, cls)
    with pytest.raises(NotSeparable, match="Sum, which has no per-record rule"):
        check_separable(loss, z)
    analysis = analyse_regularizer(cp.sum(cp.huber(x)), x)
    assert analysis.c1_only_atoms == () and "cp.huber" in analysis.unknown_atoms
