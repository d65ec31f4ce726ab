"""Enclosures of a derivative over the whole real line, and the branch and bound over its boxes.

The line is covered by boxes (width 1/2 on [-8, 8], doubling boxes out to 2^60, two unbounded
ones); an unbounded box is also enclosed through ``t = 1/z``. :func:`sup_abs` bounds sup |g| from
above and :func:`infimum` bounds inf g from below by bisecting the box with the worst enclosure
until it is within ``RTOL`` of a value proved at a point or the box budget is spent. The method:
:mod:`dpcvx.verification.validated`.
"""

import contextlib
import heapq
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy as sp
from mpmath import iv

from ..rounding import next_down, next_up
from .interval import (
    TAIL,
    Evaluator,
    Interval,
    NotEnclosable,
    Undecided,
    abs_lower,
    abs_upper,
    compile_expression,
    inf_of,
    interval,
    sup_of,
)
from .translate import elementary

__all__ = ["ATOL", "BOX_BUDGET", "RTOL", "TIME_LIMIT_REASON", "Enclosure", "InfBound", "SupBound", "expired",
           "infimum", "initial_boxes", "split_box", "stopped", "sup_abs"]

RTOL = 1e-3
ATOL = 1e-12
BOX_BUDGET = 4000
INNER = 8.0
INNER_WIDTH = 0.5
REACH_EXPONENT = 60
_MAX_TAIL = 2.0**120

_INF = float("inf")


def _agrees(a: sp.Expr, b: sp.Expr, symbol: sp.Symbol, points: Sequence[sp.Expr]) -> bool:
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


def _simplified(expression: sp.Expr, symbol: sp.Symbol, points: Sequence[sp.Expr]) -> sp.Expr | None:
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
    ``z`` in [lo, hi] (ends may be infinite). Raises :class:`Undecided` when no
    form is decided on the box and :class:`NotEnclosable` when no form compiles.
    """

    def __init__(self, expression: sp.Expr, symbol: sp.Symbol, simplify: bool = True):
        self.expression = expression
        self.forms = [compile_expression(expression, symbol)]
        checks = [sp.Rational(k, 7) for k in range(-21, 22, 5)]
        if simplify:
            simple = _simplified(expression, symbol, checks)
            if simple is not None:
                with contextlib.suppress(NotEnclosable):  # the simplified form is only a second opinion
                    self.forms.append(compile_expression(simple, symbol))
        self.tail_forms: dict[int, list[Evaluator]] = {}
        self._symbol = symbol
        self._simplify = simplify

    def _tail(self, sign: int) -> list[Evaluator]:
        """Forms of g(sign / t), t > 0, for the unbounded boxes."""
        if sign not in self.tail_forms:
            forms = []
            substituted = self.expression.subs(self._symbol, sign / TAIL)
            checks = [sp.Rational(1, k) for k in (3, 10, 50, 200)]
            if self._simplify:
                simple = _simplified(substituted, TAIL, checks)
                if simple is not None:
                    substituted = simple
            with contextlib.suppress(NotEnclosable):  # no tail form: the unbounded boxes stay undecided
                forms.append(compile_expression(substituted, TAIL))
            self.tail_forms[sign] = forms
        return self.tail_forms[sign]

    @staticmethod
    def _intersect(values: list[Interval]) -> Interval:
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
    def _all(forms: list[Evaluator], box: Interval) -> tuple[list[Interval], bool]:
        values, undecided = [], False
        for form in forms:
            try:
                value = form(box)
            except Undecided:
                undecided = True
                continue
            except (ZeroDivisionError, ValueError, OverflowError):
                continue
            if math.isnan(inf_of(value)) or math.isnan(sup_of(value)):
                continue
            values.append(value)
        return values, undecided

    def enclose(self, lo: float, hi: float) -> Interval:
        values, undecided = self._all(self.forms, interval(lo, hi))
        if lo >= INNER:  # also in t = 1/z, t in [1/hi, 1/lo] (rounded outward)
            low = 0.0 if math.isinf(hi) else next_down(1.0 / hi)
            more, also = self._all(self._tail(1), interval(low, next_up(1.0 / lo)))
        elif hi <= -INNER:
            low = 0.0 if math.isinf(lo) else next_down(1.0 / -lo)
            more, also = self._all(self._tail(-1), interval(low, next_up(1.0 / -hi)))
        else:
            more, also = [], False
        values += more
        if not values:
            if undecided or also:
                raise Undecided()
            return iv.mpf([-_INF, _INF])
        return self._intersect(values)

    def at(self, point: float) -> Interval:
        return self.enclose(point, point)


def initial_boxes() -> list[tuple[float, float]]:
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


def split_box(lo: float, hi: float) -> list[tuple[float, float]]:
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


def expired(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() > deadline


def stopped(deadline: float | None, budget: int) -> str:
    return TIME_LIMIT_REASON if expired(deadline) else f"box budget ({budget}) spent"


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

    @property
    def nonnegative(self) -> bool:
        """Whether g >= 0 on R is proved: the lower bound is >= 0 and no point was found where g < 0."""
        return self.witness is None and self.lower >= 0


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
            upper = abs_upper(enclosure.enclose(lo, hi))
        except Undecided:
            upper = _INF
        with contextlib.suppress(Undecided):  # no witness value: best stays as it is
            best = max(best, abs_lower(enclosure.at(_witness_point(lo, hi))))
        heapq.heappush(heap, (-upper, lo, hi))

    for lo, hi in initial_boxes():
        push(lo, hi)
    converged = False
    while heap:
        upper = -heap[0][0]
        if upper <= best * (1 + rtol) + ATOL:
            converged = True
            break
        if count >= budget or expired(deadline):
            reason = f"{stopped(deadline, budget)} before the bound met the {rtol:g} tolerance"
            break
        _, lo, hi = heapq.heappop(heap)
        halves = split_box(lo, hi)
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
            lower = inf_of(enclosure.enclose(lo, hi))
        except Undecided:
            lower = -_INF
        if lower < 0:
            point = _witness_point(lo, hi)
            try:
                if sup_of(enclosure.at(point)) < 0:
                    return point
            except Undecided:
                pass
        heapq.heappush(heap, (lower, lo, hi))
        return None

    for lo, hi in initial_boxes():
        witness = push(lo, hi)
        if witness is not None:
            return InfBound(-_INF, witness, count)
    while heap and heap[0][0] < 0:
        if count >= budget or expired(deadline):
            return InfBound(heap[0][0], None, count, f"{stopped(deadline, budget)} before l'' >= 0 was proved")
        lower, lo, hi = heapq.heappop(heap)
        halves = split_box(lo, hi)
        if not halves:
            return InfBound(lower, None, count, f"cannot decide the sign of l'' near z = {lo:g}")
        for a, b in halves:
            witness = push(a, b)
            if witness is not None:
                return InfBound(-_INF, witness, count)
    return InfBound(min([item[0] for item in heap] + [0.0]), None, count)
