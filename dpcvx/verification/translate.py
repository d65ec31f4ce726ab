"""Translate a scalar CVXPY expression tree into a sympy expression.

The loss ``l(z)`` is declared as a CVXPY callable; calling it on a scalar
``cp.Variable`` gives an expression tree whose atoms are translated here, one
handler per atom class (see :func:`register`). Vector-valued intermediate
nodes (``hstack([1, z])`` inside a norm, say) are carried as numpy object
arrays of sympy expressions. The atom classes come from the one table of
atom facts, :mod:`.atoms`.

Two sympy functions keep the result numerically stable when it is turned into
numpy code: :class:`Softplus` ``log(1 + e^x)`` and its derivative
:class:`Sigmoid`. ``cp.logistic`` and ``cp.log_sum_exp`` translate into them,
so the derivatives of the logistic loss never form ``exp(1000)``.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import cvxpy as cp
import numpy as np
import sympy as sp
from sympy.logic.boolalg import ITE

from . import atoms
from .atoms import Node
from .exact import NotFinite
from .exact import exact_constant as _exact_fraction
from .numpy_code import VARIABLE, UnsafeCode, compile_code, sigmoid, softplus

__all__ = [
    "Softplus",
    "Sigmoid",
    "UnsupportedAtom",
    "to_sympy",
    "register",
    "elementary",
    "lambdify",
    "numpy_code",
    "stable_form",
]


class Softplus(sp.Function):
    """softplus(x) = log(1 + e^x), the CVXPY ``logistic`` atom."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return Sigmoid(self.args[0])

    def _eval_rewrite_as_exp(self, x: sp.Expr, **kwargs: Any) -> sp.Expr:
        return sp.log(1 + sp.exp(x))


class Sigmoid(sp.Function):
    """sigmoid(x) = 1 / (1 + e^-x), the derivative of :class:`Softplus`."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        s = Sigmoid(self.args[0])
        return s * (1 - s)

    def _eval_rewrite_as_exp(self, x: sp.Expr, **kwargs: Any) -> sp.Expr:
        return 1 / (1 + sp.exp(-x))


def exact_constant(value: float) -> sp.Rational:
    """:func:`.exact.exact_constant` as a sympy number: the double's exact value."""
    return _rational(_exact_fraction(value))


def _rational(fraction: Fraction) -> sp.Rational:
    return sp.Rational(fraction.numerator, fraction.denominator)


class UnsupportedAtom(Exception):
    """No sympy translation is registered for a CVXPY atom."""


Handler = Callable[[Node, list[np.ndarray]], np.ndarray]
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


def _array(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=object)


def _elementwise(function: Callable[[sp.Expr], sp.Expr]) -> Handler:
    def handler(node: Node, args: list[np.ndarray]) -> np.ndarray:
        return _array(np.vectorize(function, otypes=[object])(args[0]))

    return handler


def _constant_value(expression: cp.Expression) -> float:
    return float(np.asarray(expression.value, dtype=float))


# --- leaves -----------------------------------------------------------------


@register(cp.Constant)  # a declaration holds no cp.Parameter (loss_declaration.check_constants)
def _constant(node: Node, args: list[np.ndarray]) -> np.ndarray:
    values = np.asarray(node.value, dtype=float)
    try:
        return _array(np.vectorize(exact_constant, otypes=[object])(values)).reshape(node.shape)
    except NotFinite as error:
        raise UnsupportedAtom(str(error)) from None


# --- affine -----------------------------------------------------------------

@register(*atoms.ADD)
def _add(node: Node, args: list[np.ndarray]) -> np.ndarray:
    total = args[0]
    for arg in args[1:]:
        total = total + arg
    return _array(total)


@register(*atoms.NEGATE)
def _negate(node: Node, args: list[np.ndarray]) -> np.ndarray:
    return _array(-args[0])


@register(*atoms.MULTIPLY)
def _multiply(node: Node, args: list[np.ndarray]) -> np.ndarray:
    return _array(args[0] * args[1])


@register(*atoms.MATMUL)
def _matmul(node: Node, args: list[np.ndarray]) -> np.ndarray:
    left, right = args
    if left.ndim == 0 or right.ndim == 0:
        return _array(left * right)
    return _array(np.dot(left, right))


@register(*atoms.DIVIDE)
def _divide(node: Node, args: list[np.ndarray]) -> np.ndarray:
    return _array(args[0] / args[1])


@register(*atoms.SUM)
def _sum(node: Node, args: list[np.ndarray]) -> np.ndarray:
    if node.axis is not None:
        return _array(np.sum(args[0], axis=node.axis))
    return _array(sum(args[0].ravel().tolist(), sp.Integer(0)))


@register(*atoms.RESHAPE)
def _reshape(node: Node, args: list[np.ndarray]) -> np.ndarray:
    return _array(np.reshape(args[0], node.shape, order=getattr(node, "order", "F")))


@register(*atoms.HSTACK)
def _hstack(node: Node, args: list[np.ndarray]) -> np.ndarray:
    return _array(np.hstack(args)).reshape(node.shape)


@register(*atoms.VSTACK)
def _vstack(node: Node, args: list[np.ndarray]) -> np.ndarray:
    return _array(np.vstack(args)).reshape(node.shape)


@register(*atoms.INDEX)
def _index(node: Node, args: list[np.ndarray]) -> np.ndarray:
    return _array(args[0][node.key]).reshape(node.shape)


@register(*atoms.PROMOTE)
def _promote(node: Node, args: list[np.ndarray]) -> np.ndarray:
    return _array(np.full(node.shape, args[0].item(), dtype=object))


@register(*atoms.TRANSPOSE)
def _transpose(node: Node, args: list[np.ndarray]) -> np.ndarray:
    return _array(np.transpose(args[0]))


# --- nonlinear atoms ----------------------------------------------------------

register(*atoms.LOGISTIC)(_elementwise(Softplus))
register(*atoms.EXP)(_elementwise(sp.exp))
register(*atoms.LOG)(_elementwise(sp.log))
register(*atoms.ABS)(_elementwise(sp.Abs))
register(*atoms.ENTR)(_elementwise(lambda x: -x * sp.log(x)))


@register(*atoms.POWER)
def _power(node: Node, args: list[np.ndarray]) -> np.ndarray:
    p = _rational(atoms.power_exponent(node))
    return _array(np.vectorize(lambda x: x**p, otypes=[object])(args[0]))


@register(*atoms.HUBER)
def _huber(node: Node, args: list[np.ndarray]) -> np.ndarray:
    """huber(x, M) = x^2 for |x| <= M, 2M|x| - M^2 beyond."""
    M = exact_constant(_constant_value(node.M))

    def huber(x: sp.Expr) -> sp.Expr:
        return sp.Piecewise((x**2, sp.Abs(x) <= M), (2 * M * sp.Abs(x) - M**2, True))

    return _array(np.vectorize(huber, otypes=[object])(args[0]))


def _broadcast(args: list[np.ndarray]) -> list[np.ndarray]:
    return list(np.broadcast_arrays(*[np.asarray(a, dtype=object) for a in args]))


@register(*atoms.MAXIMUM)
def _maximum(node: Node, args: list[np.ndarray]) -> np.ndarray:
    stacked = _broadcast(args)
    return _array(np.vectorize(lambda *xs: sp.Max(*xs), otypes=[object])(*stacked))


@register(*atoms.MINIMUM)
def _minimum(node: Node, args: list[np.ndarray]) -> np.ndarray:
    stacked = _broadcast(args)
    return _array(np.vectorize(lambda *xs: sp.Min(*xs), otypes=[object])(*stacked))


def _whole_array_only(node: Node) -> None:
    if getattr(node, "axis", None) is not None:
        raise UnsupportedAtom(f"{type(node).__name__} with axis={node.axis}")


@register(*atoms.MAX)
def _max(node: Node, args: list[np.ndarray]) -> np.ndarray:
    _whole_array_only(node)
    return _array(sp.Max(*args[0].ravel().tolist()))


@register(*atoms.MIN)
def _min(node: Node, args: list[np.ndarray]) -> np.ndarray:
    _whole_array_only(node)
    return _array(sp.Min(*args[0].ravel().tolist()))


@register(*atoms.LOG_SUM_EXP)
def _log_sum_exp(node: Node, args: list[np.ndarray]) -> np.ndarray:
    """log(e^a + e^b) = a + softplus(b - a), folded over the entries as a balanced tree: a fold from the left wrote
    each partial sum twice (``total + Softplus(entry - total)``), so the expression of K entries grew as 4^K
    operations and its analysis as much (a log_sum_exp of 10 entries ran 43 s past a 10 s time limit, of 40 never
    ended); halves combined write each half at most twice, about K^1.6 operations."""
    _whole_array_only(node)
    return _array(_log_add_exp(args[0].ravel().tolist()))


def _log_add_exp(entries: list[sp.Expr]) -> sp.Expr:
    """log(sum_k e^(entries_k)) by halves: log(e^A + e^B) = A + softplus(B - A) of the two halves' A and B."""
    if len(entries) == 1:
        return entries[0]
    half = len(entries) // 2
    first, second = _log_add_exp(entries[:half]), _log_add_exp(entries[half:])
    return first + Softplus(second - first)


@register(*atoms.NORMS)
def _norm(node: Node, args: list[np.ndarray]) -> np.ndarray:
    _whole_array_only(node)
    entries = args[0].ravel().tolist()
    order = atoms.norm_order(node)
    if not isinstance(order, Fraction):  # inf
        return _array(sp.Max(*[sp.Abs(x) for x in entries]))
    p = _rational(order)
    if p == 2:
        return _array(sp.sqrt(sum((x**2 for x in entries), sp.Integer(0))))
    if p == 1:
        return _array(sum((sp.Abs(x) for x in entries), sp.Integer(0)))
    if p < 1:
        raise UnsupportedAtom(f"p-norm with p = {p}")
    return _array(sum((sp.Abs(x) ** p for x in entries), sp.Integer(0)) ** (1 / p))


@register(*atoms.QUAD_OVER_LIN)
def _quad_over_lin(node: Node, args: list[np.ndarray]) -> np.ndarray:
    numerator = sum((x**2 for x in args[0].ravel().tolist()), sp.Integer(0))
    return _array(numerator / args[1].item())


# --- entry point --------------------------------------------------------------


def to_sympy(expression: cp.Expression, variable: cp.Variable, symbol: sp.Symbol,
             others: dict[int, sp.Symbol] | None = None) -> sp.Expr:
    """Translate a scalar CVXPY expression in ``variable`` into sympy in ``symbol``.

    ``others`` maps the ids of further scalar variables to their symbols.
    Raises :class:`UnsupportedAtom` when an atom has no registered handler.
    """
    symbols = {variable.id: symbol, **(others or {})}

    def visit(node: Node) -> np.ndarray:
        if isinstance(node, cp.Variable):
            if node.id not in symbols:
                raise UnsupportedAtom(f"expression uses another variable {node.name()}")
            return _array(np.full(node.shape, symbols[node.id], dtype=object))
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


_STABLE_NUMPY = {"Softplus": softplus, "Sigmoid": sigmoid}  # sympy.lambdify's namespace for the same functions
_PRINTED_NAMES = {"Softplus": "softplus", "Sigmoid": "sigmoid"}  # :data:`.numpy_code.STABLE_FUNCTIONS`


def _without_ite(expression: sp.Expr) -> sp.Expr:
    """``expression`` with each ITE(a, b, c) written (a & b) | (~a & c), the same condition.

    sympy's numpy printer runs ``simplify_logic`` on every Piecewise condition holding an ITE
    (``rewrite(Piecewise)`` of max/min/abs makes them): 0.1-0.5 s a condition, the most of a
    first fit of the Huber losses once their proof is cached.
    """
    return expression.replace(ITE, lambda a, b, c: sp.Or(sp.And(a, b), sp.And(sp.Not(a), c)))


def _one_plus_exp(base: sp.Expr) -> sp.Expr | None:
    """u when ``base`` is 1 + e^u, else None."""
    if not (base.is_Add and len(base.args) == 2 and sp.S.One in base.args):
        return None
    other = base.args[0] if base.args[1] == sp.S.One else base.args[1]
    return other.args[0] if isinstance(other, sp.exp) else None


def _stable_node(node: sp.Expr) -> sp.Expr:
    """One node of :func:`stable_form`, its arguments already rewritten."""
    if isinstance(node, sp.log):
        u = _one_plus_exp(node.args[0])
        return node if u is None else Softplus(u)
    if node.is_Pow and node.exp.is_extended_negative:
        u = _one_plus_exp(node.base)
        return node if u is None else Sigmoid(-u) ** -node.exp
    if not node.is_Mul:
        return node
    factors = list(node.args)
    for i, exponential in enumerate(factors):
        if not isinstance(exponential, sp.exp):
            continue
        for j, factor in enumerate(factors):
            base, power = factor.as_base_exp()
            if not (isinstance(base, Sigmoid) and power.is_extended_positive):
                continue
            share = sp.cancel(-exponential.args[0] / base.args[0])  # e^v = e^(share u), sigmoid(-u) = 1 / (1 + e^u)
            if share.is_number and share.is_extended_positive and (power - share).is_extended_nonnegative:
                # e^(share u) / (1 + e^u)^power = sigmoid(u)^share sigmoid(-u)^(power - share)
                factors[j] = Sigmoid(-base.args[0]) ** share * base ** (power - share)
                factors[i] = sp.S.One
                return sp.Mul(*factors)
    return node


def stable_form(expression: sp.Expr) -> sp.Expr:
    """``expression`` with what overflows in floating point written as the stable functions, where the two are equal
    for every real z: log(1 + e^u) as Softplus(u), (1 + e^u)^-k as Sigmoid(-u)^k, and a product e^(j u) (1 + e^u)^-k
    with 0 < j <= k (a derivative of log(1 + e^u): e^u / (1 + e^u)) as Sigmoid(u)^j Sigmoid(-u)^(k - j). Only the
    numeric code is written from it (:func:`numpy_code`); the proofs read the loss as translated. A loss written
    cp.log(1 + cp.exp(-z)) evaluated to inf at z = -710 and its l' to NaN (inf / inf); now as cp.logistic(-z)."""
    return sp.bottom_up(expression, _stable_node)


def numpy_code(symbol: sp.Symbol, expression: sp.Expr) -> str:
    """``expression`` as the text of a numpy expression in ``z`` (sympy's NumPyPrinter, as ``sympy.lambdify``
    prints it), with stable softplus/sigmoid (:func:`stable_form`); :func:`.numpy_code.compile_code` loads it."""
    from sympy.printing.numpy import NumPyPrinter

    printer = NumPyPrinter({"fully_qualified_modules": True, "user_functions": _PRINTED_NAMES})
    try:
        return str(printer.doprint(_without_ite(stable_form(expression)).subs(symbol, sp.Symbol(VARIABLE, real=True))))
    except (ValueError, TypeError, NotImplementedError) as error:  # a derivative sympy left unevaluated, say
        raise UnsafeCode(f"sympy's numpy printer cannot print it ({type(error).__name__})") from None


def lambdify(symbol: sp.Symbol, expression: sp.Expr) -> Callable[[np.ndarray], np.ndarray]:
    """A vectorised numpy function of ``expression``: its :func:`numpy_code`, compiled."""
    return compile_code(numpy_code(symbol, expression))
