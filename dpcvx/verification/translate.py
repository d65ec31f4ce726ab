"""Translate a scalar CVXPY expression tree into a sympy expression.

The loss ``l(z)`` is declared as a CVXPY callable; calling it on a scalar
``cp.Variable`` gives an expression tree whose atoms are translated here, one
handler per atom class (see :func:`register`). Vector-valued intermediate
nodes (``hstack([1, z])`` inside a norm, say) are carried as numpy object
arrays of sympy expressions.

Two sympy functions keep the result numerically stable when it is turned into
numpy code: :class:`Softplus` ``log(1 + e^x)`` and its derivative
:class:`Sigmoid`. ``cp.logistic`` and ``cp.log_sum_exp`` translate into them,
so the derivatives of the logistic loss never form ``exp(1000)``.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from fractions import Fraction

import cvxpy as cp
import numpy as np
import sympy as sp
from scipy.special import expit

__all__ = [
    "float_down",
    "float_up",
    "Softplus",
    "Sigmoid",
    "UnsupportedAtom",
    "exact_constant",
    "to_sympy",
    "register",
    "elementary",
    "lambdify",
]


class Softplus(sp.Function):
    """softplus(x) = log(1 + e^x), the CVXPY ``logistic`` atom."""

    def fdiff(self, argindex=1):
        return Sigmoid(self.args[0])

    def _eval_rewrite_as_exp(self, x, **kwargs):
        return sp.log(1 + sp.exp(x))


class Sigmoid(sp.Function):
    """sigmoid(x) = 1 / (1 + e^-x), the derivative of :class:`Softplus`."""

    def fdiff(self, argindex=1):
        s = Sigmoid(self.args[0])
        return s * (1 - s)

    def _eval_rewrite_as_exp(self, x, **kwargs):
        return 1 / (1 + sp.exp(-x))


class UnsupportedAtom(Exception):
    """No sympy translation is registered for a CVXPY atom."""


def exact_constant(value: float) -> sp.Rational:
    """The simplest rational that rounds to the same double as ``value``.

    ``0.1`` becomes ``1/10`` and ``1/3`` becomes ``1/3``; a double with no
    short rational representative is taken exactly.
    """
    value = float(value)
    if not np.isfinite(value):
        raise UnsupportedAtom(f"non-finite constant {value!r}")
    simple = Fraction(value).limit_denominator(10**9)
    if float(simple) == value:
        return sp.Rational(simple.numerator, simple.denominator)
    return sp.Rational(value)


def float_down(value) -> float:
    """A double no larger than the exact value of a sympy number (a float is returned as it is).

    For constants that must not be overstated: the strong convexity m.
    """
    if isinstance(value, float):
        return value
    approx = float(sp.Float(value, 30))
    if sp.Rational(approx) > value:
        approx = math.nextafter(approx, -math.inf)
    return approx


def float_up(value) -> float:
    """A double no smaller than the exact value of a sympy number: for bounds L and c."""
    return -float_down(-value)


Handler = Callable[[cp.Expression, list], np.ndarray]
_HANDLERS: dict[type, Handler] = {}


def register(*atom_types: type) -> Callable[[Handler], Handler]:
    """Register a translation for CVXPY atom classes.

    A handler receives the CVXPY node and its translated arguments (numpy object
    arrays shaped like the CVXPY arguments) and returns an object array shaped
    like the node.
    """

    def decorate(handler: Handler) -> Handler:
        for atom_type in atom_types:
            _HANDLERS[atom_type] = handler
        return handler

    return decorate


def _array(value) -> np.ndarray:
    return np.asarray(value, dtype=object)


def _elementwise(function: Callable) -> Handler:
    def handler(node, args):
        return _array(np.vectorize(function, otypes=[object])(args[0]))

    return handler


def _constant_value(expression: cp.Expression) -> float:
    return float(np.asarray(expression.value, dtype=float))


def _atom_class(module_path: str, name: str) -> type | None:
    """An atom class by its module path under ``cvxpy``, or None when this CVXPY lacks it."""
    try:
        module = importlib.import_module(f"cvxpy.{module_path}")
    except ImportError:
        return None
    return getattr(module, name, None)


def _atom_classes(*paths: tuple[str, str]) -> tuple[type, ...]:
    found = (_atom_class(module, name) for module, name in paths)
    return tuple(cls for cls in found if cls is not None)


# --- leaves -----------------------------------------------------------------


@register(cp.Constant, cp.Parameter)
def _constant(node, args):
    if node.value is None:
        raise UnsupportedAtom(f"parameter {node.name()} has no value")
    values = np.asarray(node.value, dtype=float)
    return _array(np.vectorize(exact_constant, otypes=[object])(values)).reshape(node.shape)


# --- affine -----------------------------------------------------------------

_affine = cp.atoms.affine


@register(_affine.add_expr.AddExpression)
def _add(node, args):
    total = args[0]
    for arg in args[1:]:
        total = total + arg
    return _array(total)


@register(_affine.unary_operators.NegExpression)
def _negate(node, args):
    return _array(-args[0])


@register(_affine.binary_operators.multiply)
def _multiply(node, args):
    return _array(args[0] * args[1])


@register(_affine.binary_operators.MulExpression)
def _matmul(node, args):
    left, right = args
    if left.ndim == 0 or right.ndim == 0:
        return _array(left * right)
    return _array(np.dot(left, right))


@register(_affine.binary_operators.DivExpression)
def _divide(node, args):
    return _array(args[0] / args[1])


@register(_affine.sum.Sum)
def _sum(node, args):
    if node.axis is not None:
        return _array(np.sum(args[0], axis=node.axis))
    return _array(sum(args[0].ravel().tolist(), sp.Integer(0)))


@register(_affine.reshape.reshape)
def _reshape(node, args):
    return _array(np.reshape(args[0], node.shape, order=getattr(node, "order", "F")))


@register(_affine.hstack.Hstack)
def _hstack(node, args):
    return _array(np.hstack(args)).reshape(node.shape)


@register(_affine.vstack.Vstack)
def _vstack(node, args):
    return _array(np.vstack(args)).reshape(node.shape)


@register(_affine.index.index)
def _index(node, args):
    return _array(args[0][node.key]).reshape(node.shape)


@register(_affine.promote.Promote)
def _promote(node, args):
    return _array(np.full(node.shape, args[0].item(), dtype=object))


@register(_affine.transpose.transpose)
def _transpose(node, args):
    return _array(np.transpose(args[0]))


# --- nonlinear atoms ----------------------------------------------------------

_elem = cp.atoms.elementwise


register(_elem.logistic.logistic)(_elementwise(Softplus))
register(_elem.exp.exp)(_elementwise(sp.exp))
register(_elem.log.log)(_elementwise(sp.log))
register(_elem.abs.abs)(_elementwise(sp.Abs))
register(_elem.entr.entr)(_elementwise(lambda x: -x * sp.log(x)))


@register(*_atom_classes(
    ("atoms.elementwise.power", "power"),
    ("atoms.elementwise.power", "PowerApprox"),
    ("atoms.elementwise.power", "Power"),
))
def _power(node, args):
    p = exact_constant(_constant_value(node.p))
    return _array(np.vectorize(lambda x: x**p, otypes=[object])(args[0]))


@register(_elem.huber.huber)
def _huber(node, args):
    """huber(x, M) = x^2 for |x| <= M, 2M|x| - M^2 beyond."""
    M = exact_constant(_constant_value(node.M))

    def huber(x):
        return sp.Piecewise((x**2, sp.Abs(x) <= M), (2 * M * sp.Abs(x) - M**2, True))

    return _array(np.vectorize(huber, otypes=[object])(args[0]))


def _broadcast(args: list) -> list:
    return list(np.broadcast_arrays(*[np.asarray(a, dtype=object) for a in args]))


@register(_elem.maximum.maximum)
def _maximum(node, args):
    stacked = _broadcast(args)
    return _array(np.vectorize(lambda *xs: sp.Max(*xs), otypes=[object])(*stacked))


@register(_elem.minimum.minimum)
def _minimum(node, args):
    stacked = _broadcast(args)
    return _array(np.vectorize(lambda *xs: sp.Min(*xs), otypes=[object])(*stacked))


def _whole_array_only(node) -> None:
    if getattr(node, "axis", None) is not None:
        raise UnsupportedAtom(f"{type(node).__name__} with axis={node.axis}")


@register(*_atom_classes(("atoms.max", "max")))
def _max(node, args):
    _whole_array_only(node)
    return _array(sp.Max(*args[0].ravel().tolist()))


@register(*_atom_classes(("atoms.min", "min")))
def _min(node, args):
    _whole_array_only(node)
    return _array(sp.Min(*args[0].ravel().tolist()))


@register(*_atom_classes(("atoms.log_sum_exp", "log_sum_exp")))
def _log_sum_exp(node, args):
    """log(e^a + e^b) = a + softplus(b - a), folded over the entries."""
    _whole_array_only(node)
    entries = args[0].ravel().tolist()
    total = entries[0]
    for entry in entries[1:]:
        total = total + Softplus(entry - total)
    return _array(total)


@register(*_atom_classes(
    ("atoms.pnorm", "Pnorm"),
    ("atoms.pnorm", "PnormApprox"),
    ("atoms.pnorm", "pnorm"),
    ("atoms.norm1", "norm1"),
    ("atoms.norm_inf", "norm_inf"),
))
def _norm(node, args):
    _whole_array_only(node)
    entries = args[0].ravel().tolist()
    name = type(node).__name__
    if name == "norm1":
        p = sp.Integer(1)
    elif name == "norm_inf":
        return _array(sp.Max(*[sp.Abs(x) for x in entries]))
    else:
        p = exact_constant(float(node.p))
    if p == 2:
        return _array(sp.sqrt(sum((x**2 for x in entries), sp.Integer(0))))
    if p == 1:
        return _array(sum((sp.Abs(x) for x in entries), sp.Integer(0)))
    if p < 1:
        raise UnsupportedAtom(f"p-norm with p = {p}")
    return _array(sum((sp.Abs(x) ** p for x in entries), sp.Integer(0)) ** (1 / p))


@register(*_atom_classes(("atoms.quad_over_lin", "quad_over_lin")))
def _quad_over_lin(node, args):
    numerator = sum((x**2 for x in args[0].ravel().tolist()), sp.Integer(0))
    return _array(numerator / args[1].item())


# --- entry point --------------------------------------------------------------


def to_sympy(expression: cp.Expression, variable: cp.Variable, symbol: sp.Symbol) -> sp.Expr:
    """Translate a scalar CVXPY expression in ``variable`` into sympy in ``symbol``.

    Raises :class:`UnsupportedAtom` when an atom has no registered handler.
    """

    def visit(node) -> np.ndarray:
        if isinstance(node, cp.Variable):
            if node.id != variable.id:
                raise UnsupportedAtom(f"expression uses another variable {node.name()}")
            return _array(np.full(node.shape, symbol, dtype=object))
        handler = _HANDLERS.get(type(node))
        if handler is None:
            raise UnsupportedAtom(f"no sympy translation for the atom {type(node).__name__}")
        arguments = [visit(arg) for arg in node.args]
        try:
            result = handler(node, arguments)
        except UnsupportedAtom:
            raise
        except Exception as error:  # an atom variant the handler does not know
            raise UnsupportedAtom(f"cannot translate {type(node).__name__}: {error}") from error
        if result.size != int(np.prod(node.shape, dtype=int)):
            raise UnsupportedAtom(f"shape mismatch translating {type(node).__name__}")
        return result.reshape(node.shape)

    result = visit(expression)
    if result.size != 1:
        raise UnsupportedAtom(f"expression has shape {expression.shape}, expected a scalar")
    return sp.sympify(result.item())


def elementary(expression: sp.Expr) -> sp.Expr:
    """Rewrite Softplus and Sigmoid into exp/log, for symbolic analysis."""
    return expression.replace(Softplus, lambda x: sp.log(1 + sp.exp(x))).replace(
        Sigmoid, lambda x: 1 / (1 + sp.exp(-x))
    )


_STABLE_NUMPY = {
    "Softplus": lambda x: np.logaddexp(0.0, x),
    "Sigmoid": expit,
}


def lambdify(symbol: sp.Symbol, expression: sp.Expr) -> Callable[[np.ndarray], np.ndarray]:
    """A vectorised numpy function of ``expression`` with stable softplus/sigmoid."""
    function = sp.lambdify(symbol, expression, modules=[_STABLE_NUMPY, "numpy"])

    def evaluate(values):
        values = np.asarray(values, dtype=float)
        return np.broadcast_to(np.asarray(function(values), dtype=float), values.shape).copy()

    return evaluate
