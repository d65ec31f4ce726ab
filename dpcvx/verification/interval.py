"""Interval arithmetic for validated bounds: a sympy expression compiled into an interval evaluator.

The evaluator works on :mod:`mpmath.iv` intervals, which round every operation outward (the
rounding policy of :mod:`dpcvx.rounding` applied to both ends), so its value on a box contains the
expression's value at every point of the box. Only atoms with a known enclosure are accepted;
anything else raises :class:`NotEnclosable`. A domain requirement (an argument > 0 or != 0) not
proved on a box raises :class:`Undecided`, and the caller bisects the box. How the enclosures are
used: :mod:`dpcvx.verification.validated`.
"""

from collections.abc import Callable
from typing import Any

import mpmath
import sympy as sp
from mpmath import iv, libmp

from .translate import Sigmoid, Softplus

__all__ = ["TAIL", "Evaluator", "Interval", "NON_SMOOTH", "NotEnclosable", "Undecided", "abs_lower", "abs_upper",
           "compile_expression", "finite", "inf_of", "interval", "non_smooth", "sup_of"]

_INF = float("inf")
Interval = Any  # an mpmath.iv interval (its ends rounded outward); mpmath has no type stubs
TAIL = sp.Symbol("t", positive=True)  # t = 1/z on the unbounded boxes


class NotEnclosable(Exception):
    """The expression has an atom with no interval enclosure here."""


class Undecided(Exception):
    """A domain requirement (argument > 0, != 0) is not proved on this box."""


# --- interval helpers ------------------------------------------------------------------


def inf_of(x: Interval) -> float:
    """Lower end of an interval, rounded down to a double."""
    a = x._mpi_[0]
    if a == libmp.fnan:
        return -_INF
    return libmp.to_float(a, rnd=libmp.round_floor)


def sup_of(x: Interval) -> float:
    """Upper end of an interval, rounded up to a double."""
    b = x._mpi_[1]
    if b == libmp.fnan:
        return _INF
    return libmp.to_float(b, rnd=libmp.round_ceiling)


def finite(x: Interval) -> bool:
    """Both ends finite (in mpmath's range, which is far wider than a double's)."""
    return all(end not in (libmp.finf, libmp.fninf, libmp.fnan) for end in x._mpi_)


def interval(lo: float, hi: float) -> Interval:
    return iv.mpf([lo, hi])


def abs_upper(x: Interval) -> float:
    return max(abs(inf_of(x)), abs(sup_of(x)))


def abs_lower(x: Interval) -> float:
    lo, hi = inf_of(x), sup_of(x)
    if lo > 0:
        return lo
    if hi < 0:
        return -hi
    return 0.0


def _positive(x: Interval) -> None:
    if not inf_of(x) > 0:
        raise Undecided()


def _nonzero(x: Interval) -> None:
    if not (inf_of(x) > 0 or sup_of(x) < 0):
        raise Undecided()


# --- compiling a sympy expression into an interval evaluator ------------------------------

Evaluator = Callable[[Any], Any]  # mpmath intervals (and points) in, intervals out


def _constant(value: sp.Expr) -> Interval:
    if value.is_Integer:
        return iv.mpf(int(value))
    if value.is_Rational:
        return iv.mpf(int(value.p)) / iv.mpf(int(value.q))
    if value.is_Float:
        rational = sp.Rational(value)  # exact binary value of the Float
        return iv.mpf(int(rational.p)) / iv.mpf(int(rational.q))
    if value == sp.pi:
        return iv.pi
    if value == sp.E:
        return iv.e
    raise NotEnclosable(f"no enclosure for the constant {value}")


def _power(base: Evaluator, exponent: sp.Expr, of_tail_variable: bool = False) -> Evaluator:
    if exponent.is_Integer:
        n = int(exponent)
        if n >= 0:
            return lambda x: base(x) ** n
        m = -n
        if of_tail_variable:
            # t^-m with t = 1/|z| in [0, e]: t = 0 stands for z = infinity, not a point of R,
            # so over t in (0, e] the value lies in [e^-m, +inf)
            def reciprocal(x: Interval) -> Interval:
                lo, hi = inf_of(x), sup_of(x)
                if lo == 0 and hi > 0:
                    return iv.mpf([inf_of(1 / iv.mpf(hi)), _INF]) ** m
                _nonzero(x)
                return (1 / x) ** m

            return reciprocal

        def negative(x: Interval) -> Interval:
            b = base(x)
            _nonzero(b)
            return (1 / b) ** m

        return negative
    if exponent.is_Rational and exponent.q == 2 and exponent.p == 1:

        def root(x: Interval) -> Interval:
            b = base(x)
            _positive(b)
            return iv.sqrt(b)

        return root
    power = _constant(exponent) if exponent.is_number else None
    if power is None:
        raise NotEnclosable(f"power with a variable exponent {exponent}")

    def general(x: Interval) -> Interval:
        b = base(x)
        _positive(b)
        return iv.exp(power * iv.log(b))

    return general


_EXP_CLAMP = 2.0**256  # beyond, exp is taken as 0 or +inf (an enclosure still), keeping exponents small


def _exp(a: Interval) -> Interval:
    """exp over an interval; ends beyond +-2^256 are widened to 0 or +inf (still an enclosure)."""
    lo, hi = inf_of(a), sup_of(a)
    if lo > _EXP_CLAMP:
        return iv.mpf([mpmath.mp.make_mpf(iv.exp(iv.mpf(_EXP_CLAMP))._mpi_[0]), _INF])
    if hi < -_EXP_CLAMP:
        return iv.mpf([0, mpmath.mp.make_mpf(iv.exp(iv.mpf(-_EXP_CLAMP))._mpi_[1])])
    if lo >= -_EXP_CLAMP and hi <= _EXP_CLAMP:
        return iv.exp(a)
    inner = iv.exp(iv.mpf([max(lo, -_EXP_CLAMP), min(hi, _EXP_CLAMP)]))
    low = 0 if lo < -_EXP_CLAMP else mpmath.mp.make_mpf(inner._mpi_[0])
    high = _INF if hi > _EXP_CLAMP else mpmath.mp.make_mpf(inner._mpi_[1])
    return iv.mpf([low, high])


def _softplus_point(p: Any) -> Any:  # an mpmath number (a point or an end)
    if inf_of(p) > 0:  # log(1 + e^p) = p + log(1 + e^-p): finite for any finite p
        return p + iv.log(1 + _exp(-p))
    return iv.log(1 + _exp(p))


def _softplus(a: Interval) -> Interval:
    """softplus is increasing: enclose it from its values at the two ends."""
    low = _softplus_point(iv.mpf(a.a))
    high = _softplus_point(iv.mpf(a.b))
    return iv.mpf([mpmath.mp.make_mpf(low._mpi_[0]), mpmath.mp.make_mpf(high._mpi_[1])])


def _sigmoid(a: Interval) -> Interval:
    return 1 / (1 + _exp(-a))


def _log(a: Interval) -> Interval:
    _positive(a)
    return iv.log(a)


def _max(*values: Interval) -> Interval:
    return iv.mpf([max(inf_of(v) for v in values), max(sup_of(v) for v in values)])


def _min(*values: Interval) -> Interval:
    return iv.mpf([min(inf_of(v) for v in values), min(sup_of(v) for v in values)])


def _abs(a: Interval) -> Interval:
    lo, hi = inf_of(a), sup_of(a)
    if lo >= 0:
        return a
    if hi <= 0:
        return -a
    return iv.mpf([0, max(-lo, hi)])


def _endpoint(x: Interval, upper: bool) -> Any:
    return iv.mpf(x.b if upper else x.a)


def _monotone(point_function: Callable[[Any], Any]) -> Evaluator:
    """An increasing function's enclosure from enclosures at the two ends."""

    def enclose(x: Interval) -> Interval:
        low = point_function(_endpoint(x, False))
        high = point_function(_endpoint(x, True))
        return iv.mpf([inf_of(low), sup_of(high)])

    return enclose


def _cosh(x: Interval) -> Interval:
    value = (_exp(x) + _exp(-x)) / 2
    return iv.mpf([max(1.0, inf_of(value)), sup_of(value)])


_UNARY = {
    sp.cosh: _cosh,
    sp.sinh: _monotone(lambda p: (_exp(p) - _exp(-p)) / 2),
    sp.tanh: _monotone(lambda p: 1 - 2 / (_exp(2 * p) + 1)),
    sp.exp: _exp,
    sp.log: _log,
    sp.sin: iv.sin,
    sp.cos: iv.cos,
    Softplus: _softplus,
    Sigmoid: _sigmoid,
    sp.Abs: _abs,
}


def compile_expression(expression: sp.Expr, symbol: sp.Symbol | None) -> Evaluator:
    if symbol is not None and expression == symbol:
        return lambda x: x
    if expression.is_Atom:
        value = _constant(expression)
        return lambda x: value
    if expression.is_Add or expression.is_Mul:
        parts = [compile_expression(arg, symbol) for arg in expression.args]
        if expression.is_Add:
            def add(x: Interval) -> Interval:
                total = parts[0](x)
                for part in parts[1:]:
                    total = total + part(x)
                return total
            return add

        def multiply(x: Interval) -> Interval:
            total = parts[0](x)
            for part in parts[1:]:
                total = total * part(x)
            return total
        return multiply
    if expression.is_Pow:
        base, exponent = expression.args
        if exponent.free_symbols:
            if base == sp.E:
                inner = compile_expression(exponent, symbol)
                return lambda x: _exp(inner(x))
            raise NotEnclosable(f"power with a variable exponent {expression}")
        return _power(compile_expression(base, symbol), exponent, of_tail_variable=symbol is TAIL and base == TAIL)
    if expression.func in _UNARY and len(expression.args) == 1:
        inner = compile_expression(expression.args[0], symbol)
        function = _UNARY[expression.func]
        return lambda x: function(inner(x))
    if expression.func in (sp.Max, sp.Min):
        parts = [compile_expression(arg, symbol) for arg in expression.args]
        combine = _max if expression.func is sp.Max else _min
        return lambda x: combine(*[part(x) for part in parts])
    raise NotEnclosable(f"no interval enclosure for {expression.func.__name__}")


NON_SMOOTH = (sp.Max, sp.Min, sp.Abs, sp.Piecewise, sp.Heaviside, sp.sign, sp.floor, sp.ceiling,
              sp.DiracDelta)


def non_smooth(expression: sp.Expr) -> bool:
    return any(expression.has(atom) for atom in NON_SMOOTH)
