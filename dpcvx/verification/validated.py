"""Validated bounds: properties of a scalar loss proved by interval arithmetic.

Used when sympy cannot settle a condition exactly. Every number this module
returns as a bound is an upper bound (or, for convexity, a lower bound) *by
construction*, not an estimate:

* **Interval arithmetic.** The sympy form of ``l^(k)`` is compiled into an
  evaluator over :mod:`mpmath.iv` intervals, which round every operation
  outward, so ``enclose(box)`` contains ``l^(k)(z)`` for every ``z`` in the box.
  Only atoms with a known enclosure are accepted (``+ * /``, integer and
  rational powers, ``exp``, ``log``, ``sin``, ``cos``, ``Softplus``, ``Sigmoid``,
  ``Abs``, ``Max``, ``Min``); anything else raises :class:`NotEnclosable` and
  the caller gets no proof. A fractional power or ``log`` whose argument is not
  proved > 0 on a box (a negative integer power: not proved != 0) makes the
  box undecided, so it is bisected; a box that stays undecided defeats the proof.
* **The whole real line.** The line is covered by boxes: width 1/2 on
  [-8, 8], then doubling boxes [2^k, 2^(k+1)] out to 2^60, then the two
  unbounded boxes [2^60, +inf) and (-inf, -2^60]. mpmath intervals take
  infinite ends, so an unbounded box is enclosed directly; when that is too
  loose, ``l^(k)(1/t)`` (simplified by sympy, checked against the original at
  sample points) is enclosed for ``t`` in [0, 1/R] instead (the substitution
  ``t = 1/z``). Unbounded boxes are split as [R, 2R] and [2R, inf).
* **Branch and bound.** The box with the largest enclosure of ``|g|`` is
  bisected until that largest upper bound is within ``RTOL`` of the best value
  of ``|g|`` proved at a point, or the box budget is spent. The result is the
  largest upper bound over all boxes left, an upper bound of sup |g| over R
  whether or not the search converged (it is only looser when it did not).
* **Several forms.** Each derivative is enclosed in its raw form and, when it
  differs, in its ``sympy.simplify`` form (checked numerically against the
  raw one); the enclosures are intersected, which is still an enclosure.

Smoothness: a loss built only from analytic atoms whose fractional-power and
log arguments are proved > 0 everywhere is C^infinity. A loss with ``Max``,
``Min``, ``Abs`` or ``Piecewise`` is not proved C^1 here; when it is
``a * max(f1, f2) + smooth`` (``abs`` and ``min`` likewise) and ``f1 - f2``
changes sign on a small interval where ``(f1 - f2)'`` is proved != 0, the
kink is proved and reported.

What is trusted: sympy's differentiation, and mpmath's outward rounding.
Outward rounding is the policy of :mod:`dpcvx.rounding` applied to both ends
of an interval; the few ends computed here in doubles use its ``next_down``
and ``next_up``.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from mpmath import iv, libmp

from ..rounding import next_down, next_up
from .translate import Sigmoid, Softplus, elementary

__all__ = [
    "NotEnclosable",
    "Enclosure",
    "SupBound",
    "InfBound",
    "Smoothness",
    "sup_abs",
    "infimum",
    "smoothness",
    "validated_facts",
    "RTOL",
    "BOX_BUDGET",
    "FACTS",
]

RTOL = 1e-3
ATOL = 1e-12
BOX_BUDGET = 4000
INNER = 8.0
INNER_WIDTH = 0.5
REACH_EXPONENT = 60
_MAX_TAIL = 2.0**120
_INF = float("inf")


class NotEnclosable(Exception):
    """The expression has an atom with no interval enclosure here."""


class _Undecided(Exception):
    """A domain requirement (argument > 0, != 0) is not proved on this box."""


# --- interval helpers ------------------------------------------------------------------


def _lo(x) -> float:
    """Lower end of an interval, rounded down to a double."""
    a = x._mpi_[0]
    if a == libmp.fnan:
        return -_INF
    return libmp.to_float(a, rnd=libmp.round_floor)


def _hi(x) -> float:
    """Upper end of an interval, rounded up to a double."""
    b = x._mpi_[1]
    if b == libmp.fnan:
        return _INF
    return libmp.to_float(b, rnd=libmp.round_ceiling)


def _finite(x) -> bool:
    """Both ends finite (in mpmath's range, which is far wider than a double's)."""
    return all(end not in (libmp.finf, libmp.fninf, libmp.fnan) for end in x._mpi_)


def _interval(lo: float, hi: float):
    return iv.mpf([lo, hi])


def _abs_upper(x) -> float:
    return max(abs(_lo(x)), abs(_hi(x)))


def _abs_lower(x) -> float:
    lo, hi = _lo(x), _hi(x)
    if lo > 0:
        return lo
    if hi < 0:
        return -hi
    return 0.0


def _positive(x) -> None:
    if not _lo(x) > 0:
        raise _Undecided()


def _nonzero(x) -> None:
    if not (_lo(x) > 0 or _hi(x) < 0):
        raise _Undecided()


# --- compiling a sympy expression into an interval evaluator ------------------------------

Evaluator = Callable[[Any], Any]  # mpmath intervals (and points) in, intervals out


def _constant(value: sp.Expr):
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
            def reciprocal(x):
                lo, hi = _lo(x), _hi(x)
                if lo == 0 and hi > 0:
                    return iv.mpf([_lo(1 / iv.mpf(hi)), _INF]) ** m
                _nonzero(x)
                return (1 / x) ** m

            return reciprocal

        def negative(x):
            b = base(x)
            _nonzero(b)
            return (1 / b) ** m

        return negative
    if exponent.is_Rational and exponent.q == 2 and exponent.p == 1:

        def root(x):
            b = base(x)
            _positive(b)
            return iv.sqrt(b)

        return root
    power = _constant(exponent) if exponent.is_number else None
    if power is None:
        raise NotEnclosable(f"power with a variable exponent {exponent}")

    def general(x):
        b = base(x)
        _positive(b)
        return iv.exp(power * iv.log(b))

    return general


_EXP_CLAMP = 2.0**256  # beyond, exp is taken as 0 or +inf (an enclosure still), keeping exponents small


def _exp(a):
    """exp over an interval; ends beyond +-2^256 are widened to 0 or +inf (still an enclosure)."""
    lo, hi = _lo(a), _hi(a)
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


def _softplus_point(p):
    if _lo(p) > 0:  # log(1 + e^p) = p + log(1 + e^-p): finite for any finite p
        return p + iv.log(1 + _exp(-p))
    return iv.log(1 + _exp(p))


def _softplus(a):
    """softplus is increasing: enclose it from its values at the two ends."""
    low = _softplus_point(iv.mpf(a.a))
    high = _softplus_point(iv.mpf(a.b))
    return iv.mpf([mpmath.mp.make_mpf(low._mpi_[0]), mpmath.mp.make_mpf(high._mpi_[1])])


def _sigmoid(a):
    return 1 / (1 + _exp(-a))


def _log(a):
    _positive(a)
    return iv.log(a)


def _max(*values):
    return iv.mpf([max(_lo(v) for v in values), max(_hi(v) for v in values)])


def _min(*values):
    return iv.mpf([min(_lo(v) for v in values), min(_hi(v) for v in values)])


def _abs(a):
    lo, hi = _lo(a), _hi(a)
    if lo >= 0:
        return a
    if hi <= 0:
        return -a
    return iv.mpf([0, max(-lo, hi)])


def _endpoint(x, upper: bool):
    return iv.mpf(x.b if upper else x.a)


def _monotone(point_function):
    """An increasing function's enclosure from enclosures at the two ends."""

    def enclose(x):
        low = point_function(_endpoint(x, False))
        high = point_function(_endpoint(x, True))
        return iv.mpf([_lo(low), _hi(high)])

    return enclose


def _cosh(x):
    value = (_exp(x) + _exp(-x)) / 2
    return iv.mpf([max(1.0, _lo(value)), _hi(value)])


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


def _compile(expression: sp.Expr, symbol: sp.Symbol | None) -> Evaluator:
    if symbol is not None and expression == symbol:
        return lambda x: x
    if expression.is_Atom:
        value = _constant(expression)
        return lambda x: value
    if expression.is_Add or expression.is_Mul:
        parts = [_compile(arg, symbol) for arg in expression.args]
        if expression.is_Add:
            def add(x):
                total = parts[0](x)
                for part in parts[1:]:
                    total = total + part(x)
                return total
            return add

        def multiply(x):
            total = parts[0](x)
            for part in parts[1:]:
                total = total * part(x)
            return total
        return multiply
    if expression.is_Pow:
        base, exponent = expression.args
        if exponent.free_symbols:
            if base == sp.E:
                inner = _compile(exponent, symbol)
                return lambda x: _exp(inner(x))
            raise NotEnclosable(f"power with a variable exponent {expression}")
        return _power(_compile(base, symbol), exponent, of_tail_variable=symbol is _T and base == _T)
    if expression.func in _UNARY and len(expression.args) == 1:
        inner = _compile(expression.args[0], symbol)
        function = _UNARY[expression.func]
        return lambda x: function(inner(x))
    if expression.func in (sp.Max, sp.Min):
        parts = [_compile(arg, symbol) for arg in expression.args]
        combine = _max if expression.func is sp.Max else _min
        return lambda x: combine(*[part(x) for part in parts])
    raise NotEnclosable(f"no interval enclosure for {expression.func.__name__}")


NON_SMOOTH = (sp.Max, sp.Min, sp.Abs, sp.Piecewise, sp.Heaviside, sp.sign, sp.floor, sp.ceiling,
              sp.DiracDelta)


def _non_smooth(expression: sp.Expr) -> bool:
    return any(expression.has(atom) for atom in NON_SMOOTH)


# --- enclosures over boxes of the whole line ------------------------------------------------

_T = sp.Symbol("t", positive=True)


def _agrees(a: sp.Expr, b: sp.Expr, symbol: sp.Symbol, points) -> bool:
    """Numeric check that two forms agree at ``points`` (guards the simplifications).

    Fixed 30-digit mpmath arithmetic: sympy's adaptive evalf would chase the
    cancellation in 1 + e^-200000 to hundreds of thousands of bits.
    """
    try:
        f = sp.lambdify(symbol, elementary(a), "mpmath")  # Softplus, Sigmoid: no evalf of their own
        g = sp.lambdify(symbol, elementary(b), "mpmath")
    except Exception:  # noqa: BLE001 - an unprintable form is simply not used
        return False
    with mpmath.workdps(30):
        for point in points:
            x = mpmath.mpf(sp.Rational(point).p) / sp.Rational(point).q
            try:
                u, v = complex(f(x)), complex(g(x))
            except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                return False
            if not (np.isfinite(u) and np.isfinite(v)):
                continue
            if abs(u - v) > 1e-9 * (1 + abs(u)):
                return False
    return True


_WHOLE_SIMPLIFY_OPS = 25  # sympy's simplify can take minutes on large expressions: larger ones term by term


def _simplify(expression: sp.Expr) -> sp.Expr:
    if sp.count_ops(expression) <= _WHOLE_SIMPLIFY_OPS:
        return sp.simplify(expression)
    terms = sp.Add.make_args(sp.expand(expression, deep=False, power_base=False, power_exp=False,
                                       multinomial=False, log=False))
    return sp.Add(*[sp.simplify(term) for term in terms])


def _simplified(expression: sp.Expr, symbol: sp.Symbol, points) -> sp.Expr | None:
    try:
        simple = _simplify(expression)
    except Exception:  # noqa: BLE001 - a failed simplification only loses a form
        return None
    if simple == expression or not _agrees(expression, simple, symbol, points):
        return None
    return simple


class Enclosure:
    """Enclosures of ``g`` (a sympy expression in ``symbol``) over boxes of the real line.

    ``enclose(lo, hi)`` returns an mpmath interval containing ``g(z)`` for every
    ``z`` in [lo, hi] (ends may be infinite). Raises :class:`_Undecided` when no
    form is decided on the box and :class:`NotEnclosable` when no form compiles.
    """

    def __init__(self, expression: sp.Expr, symbol: sp.Symbol, simplify: bool = True):
        self.expression = expression
        self.forms = [_compile(expression, symbol)]
        checks = [sp.Rational(k, 7) for k in range(-21, 22, 5)]
        if simplify:
            simple = _simplified(expression, symbol, checks)
            if simple is not None:
                with contextlib.suppress(NotEnclosable):  # the simplified form is only a second opinion
                    self.forms.append(_compile(simple, symbol))
        self.tail_forms: dict[int, list[Evaluator]] = {}
        self._symbol = symbol
        self._simplify = simplify

    def _tail(self, sign: int) -> list[Evaluator]:
        """Forms of g(sign / t), t > 0, for the unbounded boxes."""
        if sign not in self.tail_forms:
            forms = []
            substituted = self.expression.subs(self._symbol, sign / _T)
            checks = [sp.Rational(1, k) for k in (3, 10, 50, 200)]
            if self._simplify:
                simple = _simplified(substituted, _T, checks)
                if simple is not None:
                    substituted = simple
            with contextlib.suppress(NotEnclosable):  # no tail form: the unbounded boxes stay undecided
                forms.append(_compile(substituted, _T))
            self.tail_forms[sign] = forms
        return self.tail_forms[sign]

    @staticmethod
    def _intersect(values: list):
        """The intersection of enclosures, in mpmath's exponent range (no rounding needed)."""
        if len(values) == 1:
            return values[0]
        lows = [mpmath.mp.make_mpf(v._mpi_[0]) for v in values]
        highs = [mpmath.mp.make_mpf(v._mpi_[1]) for v in values]
        lo, hi = max(lows), min(highs)
        if lo > hi:  # cannot happen for true enclosures; keep the hull to stay sound
            lo, hi = min(lows), max(highs)
        return iv.mpf([lo, hi])

    @staticmethod
    def _all(forms: list[Evaluator], box) -> tuple[list, bool]:
        values, undecided = [], False
        for form in forms:
            try:
                value = form(box)
            except _Undecided:
                undecided = True
                continue
            except (ZeroDivisionError, ValueError, OverflowError):
                continue
            if math.isnan(_lo(value)) or math.isnan(_hi(value)):
                continue
            values.append(value)
        return values, undecided

    def enclose(self, lo: float, hi: float):
        values, undecided = self._all(self.forms, _interval(lo, hi))
        if lo >= INNER:  # also in t = 1/z, t in [1/hi, 1/lo] (rounded outward)
            low = 0.0 if math.isinf(hi) else next_down(1.0 / hi)
            more, also = self._all(self._tail(1), _interval(low, next_up(1.0 / lo)))
        elif hi <= -INNER:
            low = 0.0 if math.isinf(lo) else next_down(1.0 / -lo)
            more, also = self._all(self._tail(-1), _interval(low, next_up(1.0 / -hi)))
        else:
            more, also = [], False
        values += more
        if not values:
            if undecided or also:
                raise _Undecided()
            return iv.mpf([-_INF, _INF])
        return self._intersect(values)

    def at(self, point: float):
        return self.enclose(point, point)


def _initial_boxes() -> list[tuple[float, float]]:
    inner = [(-INNER + INNER_WIDTH * k, -INNER + INNER_WIDTH * (k + 1))
             for k in range(int(2 * INNER / INNER_WIDTH))]
    outer = []
    edge = INNER
    for _ in range(REACH_EXPONENT - int(math.log2(INNER))):
        outer.append((edge, 2 * edge))
        edge *= 2
    outer.append((edge, _INF))
    negative = [(-b, -a) for a, b in outer]
    return negative[::-1] + inner + outer


def _split(lo: float, hi: float) -> list[tuple[float, float]]:
    if math.isinf(hi):
        return [(lo, 2 * lo), (2 * lo, hi)] if lo < _MAX_TAIL else []
    if math.isinf(lo):
        return [(lo, 2 * hi), (2 * hi, hi)] if -hi < _MAX_TAIL else []
    if lo > 0 and hi > 4 * lo:
        middle = math.sqrt(lo * hi)
    elif hi < 0 and lo < 4 * hi:
        middle = -math.sqrt(lo * hi)
    else:
        middle = 0.5 * (lo + hi)
    if not lo < middle < hi or hi - lo <= 1e-13 * max(1.0, abs(lo), abs(hi)):
        return []
    return [(lo, middle), (middle, hi)]


def _witness_point(lo: float, hi: float) -> float:
    if math.isinf(hi):
        return 2 * lo
    if math.isinf(lo):
        return 2 * hi
    return 0.5 * (lo + hi)


TIME_LIMIT_REASON = "time limit reached"


def _expired(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() > deadline


def _stopped(deadline: float | None, budget: int) -> str:
    return TIME_LIMIT_REASON if _expired(deadline) else f"box budget ({budget}) spent"


@dataclass(frozen=True)
class SupBound:
    """A proved upper bound ``upper`` of sup |g| over R, and a value ``lower`` |g| reaches."""

    upper: float
    lower: float
    boxes: int
    converged: bool
    reason: str = ""

    @property
    def finite(self) -> bool:
        return math.isfinite(self.upper)


@dataclass(frozen=True)
class InfBound:
    """inf g over R: ``lower`` is a proved lower bound; ``witness`` a point where g is proved < 0."""

    lower: float
    witness: float | None
    boxes: int
    reason: str = ""


def sup_abs(enclosure: Enclosure, budget: int = BOX_BUDGET, rtol: float = RTOL,
            deadline: float | None = None) -> SupBound:
    """Upper bound of sup over R of |g| by branch and bound (always a valid bound)."""
    heap: list[tuple[float, float, float]] = []
    stuck: list[float] = []
    best, count, reason = 0.0, 0, ""

    def push(lo: float, hi: float) -> None:
        nonlocal best, count
        count += 1
        try:
            upper = _abs_upper(enclosure.enclose(lo, hi))
        except _Undecided:
            upper = _INF
        with contextlib.suppress(_Undecided):  # no witness value: best stays as it is
            best = max(best, _abs_lower(enclosure.at(_witness_point(lo, hi))))
        heapq.heappush(heap, (-upper, lo, hi))

    for lo, hi in _initial_boxes():
        push(lo, hi)
    converged = False
    while heap:
        upper = -heap[0][0]
        if upper <= best * (1 + rtol) + ATOL:
            converged = True
            break
        if count >= budget or _expired(deadline):
            reason = f"{_stopped(deadline, budget)} before the bound met the {rtol:g} tolerance"
            break
        _, lo, hi = heapq.heappop(heap)
        halves = _split(lo, hi)
        if not halves:
            stuck.append(upper)
            if math.isinf(upper):
                reason = f"no finite enclosure near z in [{lo:g}, {hi:g}]"
                break
            continue
        for a, b in halves:
            push(a, b)
    bound = max([-item[0] for item in heap] + stuck + [best])
    bound = next_up(bound) if math.isfinite(bound) else bound
    return SupBound(bound, best, count, converged and not stuck, reason)


def infimum(enclosure: Enclosure, budget: int = BOX_BUDGET,
            deadline: float | None = None) -> InfBound:
    """Prove inf g >= 0 over R, or find a point where g < 0 (or give up: budget)."""
    heap: list[tuple[float, float, float]] = []
    count = 0

    def push(lo: float, hi: float) -> float | None:
        nonlocal count
        count += 1
        try:
            lower = _lo(enclosure.enclose(lo, hi))
        except _Undecided:
            lower = -_INF
        if lower < 0:
            point = _witness_point(lo, hi)
            try:
                if _hi(enclosure.at(point)) < 0:
                    return point
            except _Undecided:
                pass
        heapq.heappush(heap, (lower, lo, hi))
        return None

    for lo, hi in _initial_boxes():
        witness = push(lo, hi)
        if witness is not None:
            return InfBound(-_INF, witness, count)
    while heap and heap[0][0] < 0:
        if count >= budget or _expired(deadline):
            return InfBound(heap[0][0], None, count, f"{_stopped(deadline, budget)} before l'' >= 0 was proved")
        lower, lo, hi = heapq.heappop(heap)
        halves = _split(lo, hi)
        if not halves:
            return InfBound(lower, None, count, f"cannot decide the sign of l'' near z = {lo:g}")
        for a, b in halves:
            witness = push(a, b)
            if witness is not None:
                return InfBound(-_INF, witness, count)
    return InfBound(min([item[0] for item in heap] + [0.0]), None, count)


# --- smoothness ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Smoothness:
    """``c2`` True: proved C^infinity; False: a kink proved at ``kink``; None: not decided."""

    c2: bool | None
    reason: str
    kink: tuple[float, float] | None = None
    expression: sp.Expr | None = None  # l with every max/min/abs proved one-sided replaced


def _dominant_piece(expression: sp.Expr, symbol: sp.Symbol, budget: int,
                    deadline: float | None) -> tuple[sp.Expr, str] | None:
    """``a * max(f1, f2) + rest`` where f1 - f2 is proved >= 0 (or <= 0) on all of R: l without the max."""
    split = _split_max(expression)
    if split is None:
        return None
    _, f1, f2, node = split
    sign = -1 if isinstance(node, sp.Min) else 1  # _split_max wrote min(g1, g2) as -max(-g1, -g2)
    for winner, loser in ((f1, f2), (f2, f1)):
        try:
            gap = Enclosure(sp.expand(winner - loser), symbol, simplify=False)
        except NotEnclosable:
            return None
        result = infimum(gap, budget, deadline)
        if result.witness is None and result.lower >= 0:
            piece = sign * winner
            return (expression.xreplace({node: piece}),
                    f"{node} = {piece} on all of R (the difference of its pieces is proved >= 0)")
    return None


def _split_max(expression: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr] | None:
    """``l = a * max(f1, f2) + rest`` with ``rest`` free of non-smooth atoms: (a, f1, f2, node)."""
    terms = sp.Add.make_args(expression)
    rough = [term for term in terms if _non_smooth(term)]
    if len(rough) != 1:
        return None
    term = rough[0]
    factors = sp.Mul.make_args(term)
    rough_factors = [f for f in factors if _non_smooth(f)]
    if len(rough_factors) != 1:
        return None
    node = rough_factors[0]
    coefficient = sp.Mul(*[f for f in factors if f is not node])
    if coefficient.free_symbols or not coefficient.is_number or coefficient == 0:
        return None
    if isinstance(node, sp.Abs):
        f1, f2 = node.args[0], -node.args[0]
    elif isinstance(node, (sp.Max, sp.Min)) and len(node.args) == 2:
        f1, f2 = node.args
        if isinstance(node, sp.Min):
            f1, f2, coefficient = -f1, -f2, -coefficient
    else:
        return None
    if _non_smooth(f1) or _non_smooth(f2):
        return None
    return coefficient, f1, f2, node


def _kink(expression: sp.Expr, symbol: sp.Symbol) -> Smoothness | None:
    split = _split_max(expression)
    if split is None:
        return None
    _, f1, f2, node = split
    difference = sp.expand(f1 - f2)
    try:
        value = Enclosure(difference, symbol, simplify=False)
        slope = Enclosure(sp.diff(difference, symbol), symbol, simplify=False)
    except NotEnclosable:
        return None
    grid = np.concatenate([-np.logspace(3, -3, 200), [0.0], np.logspace(-3, 3, 200)])

    def sign(point: float) -> int:
        try:
            enclosed = value.at(point)
        except _Undecided:
            return 0
        return 1 if _lo(enclosed) > 0 else -1 if _hi(enclosed) < 0 else 0

    signs = [sign(p) for p in grid]
    for (a, sa), (b, sb) in itertools.pairwise(zip(grid, signs, strict=True)):
        if sa == 0 or sb == 0 or sa == sb:
            continue
        a, b = float(a), float(b)
        for _ in range(200):  # bisect until the slope is proved nonzero on [a, b]
            try:
                d = slope.enclose(a, b)
                if _lo(d) > 0 or _hi(d) < 0:
                    for _ in range(60):  # narrow the crossing; the slope stays nonzero on subsets
                        middle = 0.5 * (a + b)
                        sm = sign(middle) if a < middle < b else 0
                        if sm == 0:
                            break
                        a, b = (middle, b) if sm == sa else (a, middle)
                    where = 0.5 * (a + b)
                    return Smoothness(
                        False,
                        f"l = {node} has a kink at z = {where:.6g} (in [{a:.17g}, {b:.17g}]): "
                        f"the pieces cross there with slopes differing by "
                        f"{min(abs(_lo(d)), abs(_hi(d))):.3g} or more; objective/output "
                        "perturbation need C^1 (C^2 for objective)",
                        (a, b),
                    )
            except _Undecided:
                pass
            middle = 0.5 * (a + b)
            if not a < middle < b:
                break
            sm = sign(middle)
            if sm == 0:
                break
            if sm == sa:
                a = middle
            else:
                b = middle
    return None


def smoothness(expression: sp.Expr, symbol: sp.Symbol, budget: int = BOX_BUDGET,
               deadline: float | None = None) -> Smoothness:
    """Prove l is C^infinity on R (and finite everywhere), find a kink, or give up.

    A ``max(f1, f2)`` (``min``, ``abs``) whose pieces are proved ordered on all
    of R is replaced by the larger piece first (``Smoothness.expression``).
    """
    if _non_smooth(expression):
        kink = _kink(expression, symbol)
        if kink is not None:
            return kink
        resolved = _dominant_piece(expression, symbol, budget, deadline)
        if resolved is not None:
            inner = smoothness(resolved[0], symbol, budget, deadline)
            return Smoothness(inner.c2, f"{resolved[1]}; {inner.reason}", inner.kink,
                              inner.expression if inner.expression is not None else resolved[0])
        atoms = sorted({type(a).__name__ for a in expression.atoms(*NON_SMOOTH)}
                       | {f.func.__name__ for f in expression.atoms(sp.Function)
                          if isinstance(f, NON_SMOOTH)})
        return Smoothness(None, f"l contains the non-smooth atoms {', '.join(atoms) or 'Max/Min/Abs'}"
                                " and no validated proof that l' is continuous was found")
    try:
        enclosure = Enclosure(expression, symbol, simplify=False)
    except NotEnclosable as error:
        return Smoothness(None, str(error))
    pending = list(_initial_boxes())
    count = 0
    while pending:
        if count >= budget or _expired(deadline):
            return Smoothness(None, f"{_stopped(deadline, budget)} before l was proved finite everywhere")
        lo, hi = pending.pop()
        count += 1
        try:
            enclosed = enclosure.enclose(lo, hi)
            unbounded_box = math.isinf(lo) or math.isinf(hi)  # l may tend to infinity there
            if unbounded_box or _finite(enclosed):
                continue
        except _Undecided:
            pass
        halves = _split(lo, hi)
        if not halves:
            return Smoothness(None, f"cannot prove l finite and smooth near z = {lo:g}")
        pending.extend(halves)
    return Smoothness(True, "l is built from analytic atoms whose log and fractional-power "
                            "arguments are proved > 0 on every box of R, so it is C^infinity")


# --- the worker entry point -------------------------------------------------------------------


FACTS = ("smoothness", "inf2", "sup1", "sup2")


def validated_facts(expression: sp.Expr, symbol: sp.Symbol, wanted: tuple[str, ...] = FACTS,
                    budget: int = BOX_BUDGET, seconds: float | None = None) -> Iterator[tuple[str, object]]:
    """Yield (name, result) for each wanted fact; results are plain picklable dataclasses.

    ``smoothness`` -> :class:`Smoothness`; ``sup1``/``sup2`` -> :class:`SupBound` of
    |l'| and |l''|; ``inf2`` -> :class:`InfBound` of l''. A fact that cannot be
    enclosed yields a string, the reason.
    """
    deadline = None if seconds is None else time.monotonic() + seconds
    smooth = smoothness(expression, symbol, budget, deadline)
    if "smoothness" in wanted:
        yield "smoothness", smooth
    if smooth.c2 is not True:
        for name in wanted:
            if name != "smoothness":
                yield name, f"not proved smooth: {smooth.reason}"
        return
    if smooth.expression is not None:  # max/min/abs proved one-sided: differentiate the smooth form
        expression = smooth.expression
    for name in wanted:
        if name == "smoothness":
            continue
        order = 1 if name == "sup1" else 2
        try:
            enclosure = Enclosure(sp.diff(expression, symbol, order), symbol)
        except NotEnclosable as error:
            yield name, str(error)
            continue
        if name == "inf2":
            yield name, infimum(enclosure, budget, deadline)
        else:
            yield name, sup_abs(enclosure, budget, deadline=deadline)

mpmath.iv.prec = 53
