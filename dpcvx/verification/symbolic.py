"""Exact analysis of a scalar function on the whole real line with sympy.

sympy's ``maximum`` and ``function_range`` cannot handle ``Piecewise``, so the
analysis splits the real line itself:

1. ``Max``, ``Min`` and ``Abs`` are rewritten as ``Piecewise``; every boundary
   of a condition (a root of ``lhs - rhs``) is a breakpoint.
2. On each open interval between breakpoints the function is one smooth
   expression (the active branch at an interior point).
3. The supremum of ``|g^(k)|`` on an interval is attained at a root of
   ``g^(k+1)`` inside it or approached at an end (one-sided limit, or the limit
   at plus or minus infinity). The largest candidate over all intervals is the
   exact supremum; candidates are compared by the sign of their exact difference
   (:func:`_exact_sign`), never as doubles, and a comparison that cannot be
   decided exactly makes the route give up.
4. At each breakpoint the one-sided limits of ``g``, ``g'`` and ``g''`` are
   compared: a jump of ``g'`` means not C^1, a jump of ``g''`` not C^2.

sympy's solvers can be wrong (``solveset`` has returned an empty set for an
equation with a real root), so every symbolic claim is cross-checked by
sampling: each piece must agree with the whole function on its interval, and
sampled values of ``g^(k)`` must lie within the claimed extremes.

Any step sympy cannot do exactly, or any failed cross-check, raises
:class:`SymbolicFailure`, and the caller falls back to the validated bounds
(:mod:`dpcvx.verification.validated`). The verifier runs all of it in a worker process with
a deadline (:func:`loss_facts`, :mod:`dpcvx.verification.deadline`).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import sympy as sp
from sympy.core.evalf import PrecisionExhausted
from sympy.core.relational import Relational

__all__ = ["SymbolicFailure", "Piece", "RealFunction", "Failed", "LossFacts", "loss_facts",
           "FACT_NAMES"]


class SymbolicFailure(Exception):
    """sympy could not establish a property exactly."""


@dataclass(frozen=True)
class Piece:
    """The function restricted to the open interval (lower, upper)."""

    lower: sp.Expr
    upper: sp.Expr
    expression: sp.Expr


def _numeric(value: sp.Expr) -> float:
    """The double nearest a value, for the sampling cross-check only (which can only make the route give up): no
    decision about exact values is made in doubles (:func:`_exact_sign`)."""
    number = complex(sp.N(value, 30))
    if abs(number.imag) > 1e-20 * max(1.0, abs(number.real)):
        raise SymbolicFailure(f"non-real value {value}")
    return number.real


def _is_finite_real(value: sp.Expr) -> bool:
    return bool(value.is_real) and bool(value.is_finite)


_SAMPLE_REACH = 500.0  # e^500 is still a finite double
_SAMPLES = 4001
_CROSS_CHECK_TOLERANCE = 1e-8
_SIGN_DIGITS = 50  # a sign not settled by sympy's assumptions: evaluated to this many correct digits (_exact_sign)


def _sample_points(lower: sp.Expr, upper: sp.Expr) -> np.ndarray:
    """Points strictly inside (lower, upper), dense near the ends and near 0; an infinite end reaches
    _SAMPLE_REACH beyond 0 and beyond the finite end (a breakpoint beyond the reach, the Huber threshold
    m = 750, was sampled on the wrong side of it)."""
    lo = -_SAMPLE_REACH if lower.is_infinite else float(lower)
    hi = _SAMPLE_REACH if upper.is_infinite else float(upper)
    if lower.is_infinite:
        lo = min(lo, hi - _SAMPLE_REACH)
    if upper.is_infinite:
        hi = max(hi, lo + _SAMPLE_REACH)
    if lower.is_infinite and upper.is_infinite:
        reach = np.arcsinh(_SAMPLE_REACH)
        return np.sinh(np.linspace(-reach, reach, _SAMPLES))
    if lower.is_infinite:
        return hi - np.sinh(np.linspace(0, np.arcsinh(hi - lo), _SAMPLES))[1:]
    if upper.is_infinite:
        return lo + np.sinh(np.linspace(0, np.arcsinh(hi - lo), _SAMPLES))[1:]
    return np.linspace(lo, hi, _SAMPLES)[1:-1]


def _select(condlist: list[Any], choicelist: list[Any], default: Any = 0) -> np.ndarray:
    """numpy's ``select`` for the code lambdify prints of a Piecewise, whose conditions may be the literal True or a
    nested Piecewise of truth values: each condition is broadcast to a boolean array first (numpy refused a
    literal: "invalid entry 0 in condlist", which made the symbolic route of max(huber(z, 1), 2 huber(z, 1/2))
    fail and every constant of that loss an estimate)."""
    arrays = np.broadcast_arrays(*condlist, *choicelist)
    conditions = [np.asarray(array, dtype=bool) for array in arrays[:len(condlist)]]
    return np.select(conditions, arrays[len(condlist):], default)


def _evaluate(expression: sp.Expr, symbol: sp.Symbol, points: np.ndarray) -> np.ndarray:
    """Numeric values of an elementary expression; non-finite where it over/underflows."""
    function = sp.lambdify(symbol, expression, [{"select": _select}, "numpy"])
    with np.errstate(all="ignore"):
        values = np.asarray(function(points), dtype=complex)
    values = np.broadcast_to(values, points.shape)
    return np.where(np.abs(values.imag) <= 1e-12 * (1 + np.abs(values.real)), values.real, np.nan)


def _within(values: np.ndarray, lowest: float, highest: float) -> bool:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return True
    slack = _CROSS_CHECK_TOLERANCE * (1 + max(abs(lowest), abs(highest), np.abs(finite).max()))
    return finite.min() >= lowest - slack and finite.max() <= highest + slack


def _equal(a: sp.Expr, b: sp.Expr) -> bool:
    difference = sp.simplify(a - b)
    if difference == 0:
        return True
    verdict = difference.equals(0)
    if verdict is None:
        raise SymbolicFailure(f"cannot decide whether {a} equals {b}")
    return bool(verdict)


def _exact_point(root: sp.Expr) -> sp.Expr:
    """A breakpoint in exact form: the root as it is. The analysed expression holds no float (:class:`RealFunction`
    reads each as its exact value), so a root holding one is an approximation sympy made: the symbolic route gives
    up rather than split the line at a point near, not at, the kink. A root holding a float was read as the double
    nearest it, or as its simplest rational when that rounded to the same double (0.1 -> 1/10): a choice between
    two approximations decided by double comparison."""
    if root.atoms(sp.Float):
        raise SymbolicFailure(f"the breakpoint {root} is not exact")
    return root


def _exact_sign(value: sp.Expr) -> int:
    """-1, 0 or 1, the sign of the exact real number ``value``, decided exactly or not at all.

    Every decision the prover makes about its exact values (which candidate is the supremum, whether l' jumps down,
    the order of two breakpoints) is the sign of an exact difference. sympy's own ``is_zero`` / ``is_positive`` /
    ``is_negative`` decide it (for a number, by evaluation with tracked precision), else a ``_SIGN_DIGITS``-digit
    evaluation with ``strict=True``, which raises unless every digit is correct, so a nonzero result has the true sign.
    A sign neither settles raises :class:`SymbolicFailure`: the symbolic route gives up and the validated bounds,
    upper bounds by construction, take over; it never picks one. Comparing the values as doubles
    (``complex(sp.N(v, 30))``) tied candidates closer than an ulp or below the subnormal range, and the first won:
    l'' = -2e-324 on an interval tied with 0 and a non-convex loss was certified convex, and L = 1 was certified
    "exact" where sup |l'| = 1 + 2^-70 (an attacker probe)."""
    for attempt in (value, None):
        attempt = sp.simplify(value) if attempt is None else attempt  # simplified only when needed
        if attempt.is_zero:
            return 0
        if attempt.is_positive:
            return 1
        if attempt.is_negative:
            return -1
    try:
        approx = sp.N(value, _SIGN_DIGITS, strict=True)
    except (PrecisionExhausted, ValueError, TypeError) as error:
        raise SymbolicFailure(f"cannot decide the sign of {value} exactly ({error})") from None
    if approx.is_Float and approx != 0:
        return 1 if approx > 0 else -1
    raise SymbolicFailure(f"cannot decide the sign of {value} exactly (it evaluates to {approx})")


def _exact_order(first: sp.Expr, second: sp.Expr) -> int:
    """-1, 0 or 1 as ``first`` lies below, at or above ``second``: the sign of their exact difference
    (:func:`_exact_sign`; infinities compare as they are). Values alone misordered the kinks 1 - 1e-100 and
    1 + 1e-100 of huber(1 - z, 1e-100), equal to 50 digits, and the pieces between wrong kinks read as a jump: a
    convex C^1 loss was refused as "not convex, l jumps at z = 1" (an attacker probe)."""
    if first == second:
        return 0
    for infinity, sign in ((sp.S.Infinity, 1), (sp.S.NegativeInfinity, -1)):
        if first == infinity:
            return sign
        if second == infinity:
            return -sign
    return _exact_sign(first - second)


def _exact_extreme(values: list[sp.Expr], highest: bool) -> sp.Expr:
    """The largest (``highest``) or smallest of exact values, compared exactly (:func:`_exact_order`); a comparison
    it cannot decide raises :class:`SymbolicFailure`."""
    best = values[0]
    for value in values[1:]:
        order = _exact_order(value, best)
        if order == (1 if highest else -1):
            best = value
    return best


def _exponential_scale(expression: sp.Expr, z: sp.Symbol) -> sp.Rational | None:
    """The coefficient c of z in an exponential's argument, when it is a fraction: None if there is none."""
    for power in expression.atoms(sp.exp):
        slope = sp.diff(power.args[0], z)
        if slope.is_Rational and slope != 0 and not slope.is_Integer:
            return slope
    return None


def _critical_points(expression: sp.Expr, z: sp.Symbol, interval: sp.Interval) -> sp.Set:
    """The roots of ``expression`` in ``interval`` (``solveset``), solved in u = c z when z enters an exponential
    as exp(c z + ...), c a fraction.

    A user's constant is the exact value of its double (:func:`.exact.exact_constant`): 0.1 is
    3602879701896397/36028797018963968, and ``solveset`` reads exp(c z) as a power of exp(z / 2^55), a polynomial
    of degree 3.6e15 it never finishes. In u, exp(u) is one generator; the roots are mapped back, z = u / c.
    """
    scale = _exponential_scale(expression, z)
    if scale is None:
        return sp.solveset(expression, z, interval)
    u = sp.Dummy("u", real=True)
    ends = (interval.start * scale, interval.end * scale)
    scaled = sp.Interval.open(*(ends if scale.is_positive else ends[::-1]))  # scale: a nonzero rational
    roots = sp.solveset(expression.subs(z, u / scale), u, scaled)
    if roots == scaled:
        return interval
    if isinstance(roots, sp.FiniteSet):
        return sp.FiniteSet(*(root / scale for root in roots))
    return roots


class RealFunction:
    """A scalar function of one real variable, analysed on the whole real line."""

    def __init__(self, expression: sp.Expr, symbol: sp.Symbol):
        self.symbol = symbol
        expression = sp.sympify(expression)
        # a float is read as its exact binary value (what the solver computes with: exact.exact_constant), so every
        # breakpoint, limit and candidate is exact and compared exactly (_exact_sign)
        expression = expression.xreplace({number: sp.Rational(number) for number in expression.atoms(sp.Float)})
        self.expression = expression.rewrite(sp.Piecewise)
        self._extremes: dict[int, tuple[sp.Expr, sp.Expr]] = {}

    # -- splitting ---------------------------------------------------------------

    @cached_property
    def breakpoints(self) -> tuple[sp.Expr, ...]:
        """Sorted real roots of every condition boundary of the Piecewise form, each once.

        Two roots are one breakpoint only when they are equal exactly: roots merged when their doubles agreed to 12
        decimals (the Huber kinks +-1e-13, the two crossings of a constant at +-4e-13) hid the piece between them, and
        a loss with a kink there was certified C^1 and convex, with an L below its slope. They are ordered exactly
        (:func:`_exact_order`)."""
        z = self.symbol
        points: list[sp.Expr] = []
        for relation in self.expression.atoms(Relational):
            boundary = relation.lhs - relation.rhs
            if z not in boundary.free_symbols:
                continue
            roots = sp.solveset(boundary, z, sp.S.Reals)
            if roots == sp.S.Reals or roots == sp.S.EmptySet:
                continue
            if not isinstance(roots, sp.FiniteSet):
                raise SymbolicFailure(f"cannot locate the breakpoints of {relation}")
            for root in roots:
                point = _exact_point(root)
                if not any(_exact_order(point, known) == 0 for known in points):  # one rule: _exact_sign
                    points.append(point)
        return tuple(sorted(points, key=functools.cmp_to_key(_exact_order)))

    @cached_property
    def pieces(self) -> tuple[Piece, ...]:
        edges = [sp.S.NegativeInfinity, *self.breakpoints, sp.S.Infinity]
        pieces = tuple(
            Piece(lower, upper, self._active_branch(self._interior_point(lower, upper)))
            for lower, upper in itertools.pairwise(edges)
        )
        for piece in pieces:  # cross-check: a missed breakpoint shows as a disagreement
            points = _sample_points(piece.lower, piece.upper)
            whole = _evaluate(self.expression, self.symbol, points)
            part = _evaluate(piece.expression, self.symbol, points)
            both = np.isfinite(whole) & np.isfinite(part)
            scale = 1 + np.abs(whole[both])
            if np.any(np.abs(whole[both] - part[both]) > _CROSS_CHECK_TOLERANCE * scale):
                raise SymbolicFailure("a piece disagrees with the function: a breakpoint was missed")
        return pieces

    @staticmethod
    def _interior_point(lower: sp.Expr, upper: sp.Expr) -> sp.Expr:
        if lower.is_infinite and upper.is_infinite:
            return sp.Integer(0)
        if lower.is_infinite:
            return upper - 1
        if upper.is_infinite:
            return lower + 1
        return (lower + upper) / 2

    def _active_branch(self, point: sp.Expr) -> sp.Expr:
        z = self.symbol

        def select(node: sp.Basic) -> sp.Basic:
            if isinstance(node, sp.Piecewise):
                for branch, condition in node.args:
                    holds = condition.subs(z, point)
                    if holds not in (sp.true, sp.false):
                        raise SymbolicFailure(f"cannot decide {condition} at {point}")
                    if holds == sp.true:
                        return select(branch)
                raise SymbolicFailure(f"no branch of {node} holds at {point}")
            if not node.args:
                return node
            return node.func(*[select(arg) for arg in node.args])

        return select(self.expression)

    # -- derivatives, limits, extremes ----------------------------------------------

    def _derivative(self, piece: Piece, order: int) -> sp.Expr:
        return sp.diff(piece.expression, self.symbol, order) if order else piece.expression

    def _one_sided(self, expression: sp.Expr, point: sp.Expr, direction: str) -> sp.Expr:
        z = self.symbol
        if point.is_finite:
            value = expression.subs(z, point)
            if _is_finite_real(value):
                return value
        return sp.limit(expression, z, point, direction)

    def _candidates(self, piece: Piece, order: int) -> list[sp.Expr]:
        """Values whose extremes are the sup and inf of g^(order) on the piece."""
        z = self.symbol
        g = self._derivative(piece, order)
        values = [
            self._one_sided(g, piece.lower, "+"),
            self._one_sided(g, piece.upper, "-"),
        ]
        interval = sp.Interval.open(piece.lower, piece.upper)
        roots = _critical_points(sp.diff(g, z), z, interval)
        if isinstance(roots, sp.FiniteSet):
            values.extend(g.subs(z, root) for root in roots)
        elif roots not in (sp.S.EmptySet, interval):  # roots == interval: g is constant there, the ends suffice
            raise SymbolicFailure(f"cannot find the critical points of {g}")
        for value in values:
            if value.has(sp.nan, sp.zoo) or value.is_extended_real is False:
                raise SymbolicFailure(f"undefined limit or value {value} of {g}")
        # cross-check: sampled values must lie within the claimed extremes
        numbers = [_numeric(value) for value in values]
        if not _within(_evaluate(g, z, _sample_points(piece.lower, piece.upper)),
                       min(numbers), max(numbers)):
            raise SymbolicFailure(f"sympy missed critical points of {g}: samples exceed its extremes")
        return values

    def extremes(self, order: int) -> tuple[sp.Expr, sp.Expr]:
        """(inf, sup) of f^(order) over the pieces (breakpoints excluded), exact."""
        if order not in self._extremes:
            self._extremes[order] = self._compute_extremes(order)
        return self._extremes[order]

    def _compute_extremes(self, order: int) -> tuple[sp.Expr, sp.Expr]:
        values = [value for piece in self.pieces for value in self._candidates(piece, order)]
        unbounded_below = any(value == sp.S.NegativeInfinity for value in values)
        unbounded_above = any(value == sp.S.Infinity for value in values)
        lowest = sp.S.NegativeInfinity if unbounded_below else _exact_extreme(values, highest=False)
        highest = sp.S.Infinity if unbounded_above else _exact_extreme(values, highest=True)
        return sp.simplify(lowest), sp.simplify(highest)

    def supremum_abs(self, order: int) -> sp.Expr:
        """sup over R of |f^(order)|, exact (sympy oo when unbounded)."""
        lowest, highest = self.extremes(order)
        if lowest.is_infinite or highest.is_infinite:
            return sp.S.Infinity
        return highest if _exact_sign(highest + lowest) >= 0 else -lowest

    def jumps(self, order: int) -> tuple[sp.Expr, ...]:
        """Breakpoints where f^(order) has different one-sided limits."""
        found = []
        for left, right, point in zip(self.pieces[:-1], self.pieces[1:], self.breakpoints, strict=True):
            from_left = self._one_sided(self._derivative(left, order), point, "-")
            from_right = self._one_sided(self._derivative(right, order), point, "+")
            if not _equal(from_left, from_right):
                found.append(point)
        return tuple(found)

    def upward_jumps_only(self, order: int) -> bool:
        """True when every jump of f^(order) at a breakpoint goes up (left < right)."""
        for left, right, point in zip(self.pieces[:-1], self.pieces[1:], self.breakpoints, strict=True):
            from_left = self._one_sided(self._derivative(left, order), point, "-")
            from_right = self._one_sided(self._derivative(right, order), point, "+")
            if _exact_order(from_right, from_left) < 0:
                return False
        return True


# --- all the facts the verifier needs, in one worker call ---------------------------------------


@dataclass(frozen=True)
class Failed:
    """A fact sympy could not establish, and why."""

    reason: str


FACT_NAMES = ("domain", "jumps", "convexity", "sup1", "sup2", "slope")


@dataclass(frozen=True)
class LossFacts:
    """What sympy established about a loss (plain picklable values).

    Each field is the sympy result, or :class:`Failed` (with the reason) when
    sympy could not settle it or the deadline passed first:

    * ``domain``: sup over R of each domain-constraint expression (tuple);
    * ``jumps``: (jumps of l, of l', of l'') at the breakpoints;
    * ``convexity``: (inf l'', whether l' only jumps up, jumps of l);
    * ``sup1``, ``sup2``: sup |l'| and sup |l''| over R;
    * ``slope``: (inf l', sup l') over R, the extremes ``sup1`` is taken from (whether l' has one sign:
      docs/theory.md, section 12.3). A result cached before this fact existed has none: :class:`Failed`.
    """

    domain: object
    jumps: object
    convexity: object
    sup1: object
    sup2: object
    slope: object

    @classmethod
    def from_items(cls, items: Iterable[tuple[str, object]], missing: str) -> LossFacts:
        found = dict(items)
        return cls(**{name: found.get(name, Failed(missing)) for name in FACT_NAMES})


_SYMPY_ERRORS = (SymbolicFailure, NotImplementedError, TypeError, ValueError, AttributeError,
                 ZeroDivisionError, RecursionError, IndexError, KeyError)


def _attempt(compute: Callable[[], object]) -> object:
    try:
        return compute()
    except _SYMPY_ERRORS as error:
        return Failed(f"{type(error).__name__}: {error}" if not isinstance(error, SymbolicFailure)
                      else str(error))


def loss_facts(expression: sp.Expr, symbol: sp.Symbol,
               constraints: tuple[sp.Expr, ...] | None = ()) -> Iterator[tuple[str, object]]:
    """Yield (name, fact) for each of :data:`FACT_NAMES`; run in the worker process.

    ``constraints`` are the sympy forms of the loss's domain constraints
    (``expr <= 0`` for each), or None when they did not translate.
    """
    if constraints is None:
        yield "domain", Failed("a domain constraint did not translate")
    else:
        yield "domain", _attempt(lambda: tuple(RealFunction(c, symbol).extremes(0)[1] for c in constraints))
    try:
        function = RealFunction(expression, symbol)
    except _SYMPY_ERRORS as error:
        for name in FACT_NAMES[1:]:
            yield name, Failed(f"{type(error).__name__}: {error}")
        return
    yield "jumps", _attempt(lambda: (function.jumps(0), function.jumps(1), function.jumps(2)))
    yield "convexity", _attempt(
        lambda: (function.extremes(2)[0], function.upward_jumps_only(1), function.jumps(0)))
    yield "sup1", _attempt(lambda: function.supremum_abs(1))
    yield "sup2", _attempt(lambda: function.supremum_abs(2))
    yield "slope", _attempt(lambda: function.extremes(1))
