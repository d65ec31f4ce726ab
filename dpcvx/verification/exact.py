"""Exact (sympy) numbers and doubles: the exact reading of a double, and safe doubles of exact numbers.

The rounding policy is :mod:`dpcvx.rounding`'s: a constant a privacy proof
needs no smaller (L, c) becomes a double no smaller than it
(:func:`float_up`), one it needs no larger (m) a double no larger
(:func:`float_down`): the nearest double, moved one ulp to the safe side when
it lies on the wrong one.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from ..rounding import EPS, bound_up, next_down

__all__ = ["NotFinite", "as_float_expr", "exact_constant", "float_down", "float_up", "product_down"]


class NotFinite(ValueError):
    """A double with no exact value (NaN or infinite)."""


def exact_constant(value: float) -> sp.Rational:
    """The simplest rational that rounds to the same double as ``value``.

    ``0.1`` becomes ``1/10`` and ``1/3`` becomes ``1/3``; a double with no
    short rational representative is taken exactly.
    """
    value = float(value)
    if not np.isfinite(value):
        raise NotFinite(f"non-finite constant {value!r}")
    simple = Fraction(value).limit_denominator(10**9)
    if float(simple) == value:
        return sp.Rational(simple.numerator, simple.denominator)
    return sp.Rational(value)


def float_down(value: sp.Expr | float) -> float:
    """A double no larger than the exact value of a sympy number (a float is returned as it is).

    For constants that must not be overstated: the strong convexity m.
    """
    if isinstance(value, float):
        return value
    approx = float(sp.Float(value, 30))
    if sp.Rational(approx) > value:
        approx = next_down(approx)
    return approx


def float_up(value: sp.Expr | float) -> float:
    """A double no smaller than the exact value of a sympy number: for bounds L and c."""
    return -float_down(-value)


def product_down(exact: sp.Expr, x: float) -> float:
    """A double <= exact * x (``exact`` a sympy number, ``x`` a double)."""
    if x == 0 or exact == 0:
        return 0.0
    product = min(float_down(exact) * x, float_up(exact) * x)
    return product - bound_up(2 * EPS * abs(product))


def as_float_expr(value: float) -> sp.Expr:
    """The double ``value`` as a sympy number, exactly: 0 as the integer 0, else a 53-bit Float."""
    if value == 0:
        return sp.Integer(0)
    return sp.Float(value, precision=53)
