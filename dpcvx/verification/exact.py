"""Exact numbers and doubles: the exact reading of a double, and safe doubles of exact numbers.

The verifier's exact numbers are :class:`fractions.Fraction` (rationals, sympy-free, so a
verification served from the proof cache never imports sympy) and, for the rare irrational
constant a symbolic proof returns, sympy numbers (sympy is imported only when such a number is
met). An unbounded constant is ``math.inf``. :func:`plain` brings a prover's sympy number to this
form.

The rounding policy is :mod:`dpcvx.rounding`'s: a constant a privacy proof
needs no smaller (L, c) becomes a double no smaller than it
(:func:`float_up`), one it needs no larger (m) a double no larger
(:func:`float_down`): the nearest double, moved one ulp to the safe side when
it lies on the wrong one.
"""

from __future__ import annotations

import math
import numbers
import re
import sys
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..rounding import EPS, bound_up, next_down, next_up

__all__ = ["Exact", "Irrational", "NotFinite", "as_float_expr", "beyond_doubles", "exact_constant", "exact_of_saved",
           "exact_text", "exact_value", "float_down", "float_up", "is_sympy", "magnitude_text", "plain",
           "product_down"]


class NotFinite(ValueError):
    """A double with no exact value (NaN or infinite)."""


def is_sympy(value: Any) -> bool:
    """Whether ``value`` is a sympy object (told by its type's module: no sympy import)."""
    return type(value).__module__.split(".")[0] == "sympy"


def exact_constant(value: float) -> Fraction:
    """The exact value of the double ``value``: the number the solver computes with.

    What is certified is what is solved: the solver evaluates the doubles, so a user's ``0.1`` is the double
    0.1000000000000000055511151231257827..., not 1/10. The simplest rational that rounds to the same double
    can lie on either side of it, and a constant proved from it (``0.1 * cp.logistic(-0.1 * z)``: L = 1/100,
    where the doubles give L = 0.0100000000000000011...) can understate the true one. Integers and dyadic
    constants (``0.5``, ``0.25``) are their own exact values; a certificate prints a long exact value as a
    double (:attr:`.condition.Condition.value_text`).

    Raises :class:`NotFinite` for NaN and infinities.
    """
    value = float(value)
    if not math.isfinite(value):
        raise NotFinite(f"non-finite constant {value!r}")
    return Fraction(value)


@dataclass(frozen=True)
class Irrational:
    """An exact irrational constant as a release holds it: its exact text (``"sqrt(2)"``) and its double.

    A fitted release and a loaded one hold this, not a sympy number: no sympy object is re-created from a file.
    """

    text: str
    value: float

    def __float__(self) -> float:
        return self.value

    def __str__(self) -> str:
        return self.text


Exact = Fraction | Irrational | float

_RATIONAL = re.compile(r"-?\d+(/\d+)?")


def exact_value(value: Any) -> Exact:
    """A verified constant as a release holds it: a rational as a Fraction, an irrational sympy number as an
    :class:`Irrational`, a double (an estimate, or ``inf``) and an :class:`Irrational` as they are."""
    value = plain(value)  # a sympy rational as a Fraction, sympy infinity as inf
    if isinstance(value, (float, Fraction, Irrational)):
        return value
    return Irrational(str(value), float(value)) if is_sympy(value) else Fraction(value)


def exact_of_saved(text: str | None, number: float | None) -> Exact:
    """The constant a file states as (exact text or None, float): the inverse of :func:`exact_value` and
    :func:`exact_text` ("oo", written with no float since JSON has no infinity, is ``inf``)."""
    if text == "oo":
        return math.inf
    if number is None:
        raise ValueError(f"the exact constant {text!r} has no float")
    if text is None:
        return float(number)
    if _RATIONAL.fullmatch(text):
        return Fraction(text)
    return Irrational(text, float(number))


def plain(value: Any) -> Any:
    """A prover's value in the verifier's exact form: a sympy rational as a Fraction, sympy infinity as inf.

    Anything else (a string, a float, an irrational sympy number) is returned as it is.
    """
    if not is_sympy(value):
        return value
    if value.is_Rational:
        return Fraction(int(value.p), int(value.q))
    if value.is_infinite and value.is_extended_positive:
        return math.inf
    return value


def exact_text(value: Any) -> str | None:
    """The exact text of an exact number ("1/4", "sqrt(2)"; "oo" for an unbounded constant), None for a double."""
    if isinstance(value, Irrational):
        return value.text
    if isinstance(value, float):
        return "oo" if value == math.inf else None
    if isinstance(value, (int, Fraction, numbers.Integral)) or is_sympy(value):
        return str(value)
    return None


def beyond_doubles(value: Any) -> bool:
    """Whether a constant is finite but larger in magnitude than the largest double (about 1.8e308).

    :func:`float_up` and :func:`float_down` have no double to give for it (``float`` of such a Fraction raises
    OverflowError): the verifier refuses the loss or regularizer that has it, as too large for floating point.
    """
    value = plain(value)
    if isinstance(value, float) or is_sympy(value) or isinstance(value, Irrational):
        return False  # a double (or inf) is no larger than the largest double; an irrational is a modest number
    return abs(Fraction(value)) > Fraction(sys.float_info.max)


def magnitude_text(value: Any) -> str:
    """A constant to three digits ("4e+308"), for a message: also one beyond the doubles' range."""
    value = plain(value)
    if isinstance(value, (int, Fraction)):
        value = Fraction(value)
        return format(Decimal(value.numerator) / Decimal(value.denominator), ".3g")
    return f"{float(value):.3g}"


def float_down(value: Any) -> float:
    """A double no larger than an exact number (a Fraction, an int, a sympy number or a loaded
    :class:`Irrational`); a float is returned as it is.

    For constants that must not be overstated: the strong convexity m.
    """
    value = plain(value)
    if isinstance(value, float):
        return value
    if isinstance(value, Irrational):  # a loaded constant, without sympy: its double lies within an ulp of it
        return next_down(value.value)
    if isinstance(value, (int, Fraction)):
        approx = float(Fraction(value))  # a ratio of ints: the nearest double
        return next_down(approx) if Fraction(approx) > value else approx
    import sympy as sp  # an irrational sympy number: sympy is already loaded

    approx = float(value.evalf(30))
    return next_down(approx) if sp.Rational(approx) > value else approx


def float_up(value: Any) -> float:
    """A double no smaller than an exact number: for bounds L and c."""
    if isinstance(value, Irrational):  # a loaded constant (float_down's reason), which has no negation
        return next_up(value.value)
    return -float_down(-value)


def product_down(exact: Any, x: float) -> float:
    """A double <= exact * x (``exact`` an exact number, ``x`` a double)."""
    if x == 0 or exact == 0:
        return 0.0
    product = min(float_down(exact) * x, float_up(exact) * x)
    return product - bound_up(2 * EPS * abs(product))


def as_float_expr(value: float) -> Fraction:
    """The double ``value`` as an exact number, exactly."""
    return Fraction(value)
