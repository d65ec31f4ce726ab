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

import itertools
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy as sp

from .enclosure import (
    BOX_BUDGET,
    RTOL,
    TIME_LIMIT_REASON,
    Enclosure,
    InfBound,
    SupBound,
    expired,
    infimum,
    initial_boxes,
    split_box,
    stopped,
    sup_abs,
)
from .interval import NON_SMOOTH, NotEnclosable, Undecided, finite, inf_of, non_smooth, sup_of

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
    "TIME_LIMIT_REASON",
]


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
        if result.nonnegative:
            piece = sign * winner
            return (expression.xreplace({node: piece}),
                    f"{node} = {piece} on all of R (the difference of its pieces is proved >= 0)")
    return None


def _split_max(expression: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr] | None:
    """``l = a * max(f1, f2) + rest`` with ``rest`` free of non-smooth atoms: (a, f1, f2, node)."""
    terms = sp.Add.make_args(expression)
    rough = [term for term in terms if non_smooth(term)]
    if len(rough) != 1:
        return None
    term = rough[0]
    factors = sp.Mul.make_args(term)
    rough_factors = [f for f in factors if non_smooth(f)]
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
    if non_smooth(f1) or non_smooth(f2):
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
        except Undecided:
            return 0
        return 1 if inf_of(enclosed) > 0 else -1 if sup_of(enclosed) < 0 else 0

    signs = [sign(p) for p in grid]
    for (a, sa), (b, sb) in itertools.pairwise(zip(grid, signs, strict=True)):
        if sa == 0 or sb == 0 or sa == sb:
            continue
        a, b = float(a), float(b)
        for _ in range(200):  # bisect until the slope is proved nonzero on [a, b]
            try:
                d = slope.enclose(a, b)
                if inf_of(d) > 0 or sup_of(d) < 0:
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
                        f"{min(abs(inf_of(d)), abs(sup_of(d))):.3g} or more; objective/output "
                        "perturbation need C^1 (C^2 for objective)",
                        (a, b),
                    )
            except Undecided:
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
    if non_smooth(expression):
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
    pending = list(initial_boxes())
    count = 0
    while pending:
        if count >= budget or expired(deadline):
            return Smoothness(None, f"{stopped(deadline, budget)} before l was proved finite everywhere")
        lo, hi = pending.pop()
        count += 1
        try:
            enclosed = enclosure.enclose(lo, hi)
            unbounded_box = math.isinf(lo) or math.isinf(hi)  # l may tend to infinity there
            if unbounded_box or finite(enclosed):
                continue
        except Undecided:
            pass
        halves = split_box(lo, hi)
        if not halves:
            return Smoothness(None, f"cannot prove l finite and smooth near z = {lo:g}")
        pending.extend(halves)
    return Smoothness(True, "l is built from analytic atoms whose log and fractional-power "
                            "arguments are proved > 0 on every box of R, so it is C^infinity")


# --- the worker entry point -------------------------------------------------------------------


FACTS = ("smoothness", "inf2", "sup1", "sup2", "sign1")


def validated_facts(expression: sp.Expr, symbol: sp.Symbol, wanted: tuple[str, ...] = FACTS,
                    budget: int = BOX_BUDGET, seconds: float | None = None) -> Iterator[tuple[str, object]]:
    """Yield (name, result) for each wanted fact; results are plain picklable dataclasses.

    ``smoothness`` -> :class:`Smoothness`; ``sup1``/``sup2`` -> :class:`SupBound` of
    |l'| and |l''|; ``inf2`` -> :class:`InfBound` of l''; ``sign1`` -> (the :class:`InfBound` of -l',
    the :class:`InfBound` of l' or None): l' <= 0 on R is proved when the first's ``lower`` is >= 0 and it
    has no witness, else l' >= 0 when the second's is (it is computed only when the first is not proved).
    A fact that cannot be enclosed yields a string, the reason.
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
        if name == "sign1":
            yield name, _slope_sign(expression, symbol, budget, deadline)
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

def _slope_sign(expression: sp.Expr, symbol: sp.Symbol, budget: int,
                deadline: float | None) -> tuple[InfBound, InfBound | None] | str:
    """(inf of -l' over R, inf of l' over R or None): branch and bound on validated enclosures
    (:func:`~.enclosure.infimum`), the second only when the first does not prove l' <= 0; the reason when l' has no
    enclosure."""
    try:
        first = sp.diff(expression, symbol)
        falling = infimum(Enclosure(-first, symbol), budget, deadline)
        if falling.nonnegative:
            return falling, None
        return falling, infimum(Enclosure(first, symbol), budget, deadline)
    except NotEnclosable as error:
        return str(error)


mpmath.iv.prec = 53
