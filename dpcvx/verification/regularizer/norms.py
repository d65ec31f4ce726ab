"""The non-smooth terms a proximal solver handles: a ||w||_1 and group norms b_g ||w_g||_2.

Their weights are rounded down: a smaller weight only weakens the regularizer the solver's
optimality check uses, never the privacy proof (which needs N convex only).
"""

from __future__ import annotations

from fractions import Fraction

import cvxpy as cp
import numpy as np

from ...rounding import EPS
from .. import atoms
from ..atoms import Node
from ..exact import float_down
from .affine import Unsupported, affine_map

__all__ = ["group_term", "l1_term"]


def l1_term(term: Node, w: cp.Variable, factor: Fraction) -> float | None:
    """The weight a > 0 of a term a ||w||_1 (``norm1(w)``, ``norm(w, 1)``, ``sum(abs(w))``), else None.

    The weight is rounded down: a smaller L1 weight only weakens the regularizer
    the solver's optimality check uses, never the privacy proof (which needs N convex only).
    """
    if isinstance(term, atoms.SUM) and len(term.args) == 1 and isinstance(term.args[0], atoms.ABS):
        inner = term.args[0].args[0]
    elif isinstance(term, atoms.NORM1):
        inner = term.args[0]
    else:
        return None
    if inner is not w and not (isinstance(inner, cp.Variable) and inner.id == w.id):
        return None
    weight = float(factor)
    return weight if weight > 0 else None


def group_term(term: Node, w: cp.Variable, factor: Fraction, dim: int) -> tuple[tuple[int, ...], float] | None:
    """(g, b) of a term b ||w_g||_2 (``norm(w[g], 2)``, ``norm2(w[g])``, ``norm(w, 2)``), g distinct
    coordinates selected with one common coefficient; else None. b is rounded down, as the L1 weight."""
    two_norm = isinstance(term, atoms.PNORMS) and float(getattr(term, "p", 0)) == 2
    single = isinstance(term, atoms.NORM1) and term.args[0].size == 1  # CVXPY writes ||w_i||_2 as |w_i|
    if not (two_norm or single) or len(term.args) != 1:
        return None
    try:
        selection = affine_map(term.args[0], w)
    except (Unsupported, ValueError, IndexError, TypeError):
        return None
    if np.any(selection.b != 0):
        return None
    if selection.coordinate:
        columns = selection.columns(dim)
        coefficients = np.abs(selection.coefficients())
        if np.any(selection.coefficient_errors() > 0):
            return None
    else:  # w[[i, j, ...]]: a dense map whose rows are exact unit vectors (times one coefficient)
        A = selection.matrix
        if np.any(np.count_nonzero(A, axis=1) != 1):
            return None
        columns = np.argmax(A != 0, axis=1)
        coefficients = np.abs(A[np.arange(A.shape[0]), columns])
    if np.any(columns < 0) or np.unique(columns).size != columns.size or not np.all(coefficients == coefficients[0]):
        return None
    weight = float_down(float(factor) * float(coefficients[0]) * (1 - EPS))
    return (tuple(int(c) for c in columns), weight) if weight > 0 else None
