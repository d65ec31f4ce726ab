"""The numeric quadratic N(w) = 0.5 w^T (alpha I + diag(diagonal) + dense) w + linear^T w.

The form the calculus (:func:`~dpcvx.verification.regularizer.analyse_regularizer`) returns for a
quadratic N and the Newton solver works with: the Hessian-vector product, the Hessian diagonal and
the gradient without forming a d x d matrix unless the user's N has a dense part.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from ...rounding import EPS, sum_down
from ..exact import as_float_expr, exact_constant, float_down, plain
from .spectral import eig_lower

__all__ = ["Quadratic"]


@dataclass(frozen=True)
class Quadratic:
    """0.5 w^T (alpha I + diag(diagonal) + dense) w + linear^T w (constants dropped).

    ``matrix`` (the Hessian minus ``alpha I``: ``diag(diagonal) + dense``, or
    None) is kept for callers that add it to a dense Hessian; it is built on
    first use only. ``hessian_vector`` and ``hessian_diagonal`` never build it.
    A third positional argument is still ``linear``; the old
    ``Quadratic(alpha, matrix, linear)`` reads ``matrix`` as ``dense``.
    """

    alpha: Fraction
    dense: np.ndarray | None = None
    linear: np.ndarray | None = None
    diagonal: np.ndarray | None = None

    @cached_property
    def matrix(self) -> np.ndarray | None:
        if self.diagonal is None:
            return self.dense
        out = np.diag(self.diagonal)
        if self.dense is not None:
            out += self.dense
        return out

    def __add__(self, other: Quadratic) -> Quadratic:
        return Quadratic(
            self.alpha + other.alpha,
            _add(self.dense, other.dense),
            _add(self.linear, other.linear),
            _add(self.diagonal, other.diagonal),
        )

    def scaled(self, factor: Fraction) -> Quadratic:
        f = float(factor)
        return Quadratic(
            self.alpha * factor,
            None if self.dense is None else f * self.dense,
            None if self.linear is None else f * self.linear,
            None if self.diagonal is None else f * self.diagonal,
        )

    def smallest_eigenvalue(self) -> tuple[Fraction, bool]:
        """(a lower bound of lambda_min of the Hessian, exact?) from the stored floats.

        :func:`analyse_regularizer` certifies m from the expression's structure
        instead; this is for a Quadratic built by hand.
        """
        if self.dense is None and self.diagonal is None:
            alpha = plain(self.alpha)
            return (Fraction(alpha) if isinstance(alpha, (int, Fraction)) else exact_constant(alpha)), True
        bound = 0.0
        if self.diagonal is not None:
            bound += float(self.diagonal.min()) - EPS * float(np.abs(self.diagonal).max())
        if self.dense is not None:
            bound += eig_lower(0.5 * (self.dense + self.dense.T))
        value = sum_down([float_down(self.alpha), bound])
        return as_float_expr(max(value, 0.0)), False

    def hessian_diagonal(self, dim: int) -> np.ndarray:
        """The diagonal of the Hessian (alpha + diagonal + diag(dense))."""
        out = np.full(dim, float(self.alpha))
        if self.diagonal is not None:
            out += self.diagonal
        if self.dense is not None:
            out += np.diag(self.dense)
        return out

    def hessian_vector(self, v: np.ndarray) -> np.ndarray:
        out = float(self.alpha) * v
        if self.diagonal is not None:
            out = out + self.diagonal * v
        if self.dense is not None:
            out = out + self.dense @ v
        return out

    def hessian(self, dim: int) -> np.ndarray:
        """The dense d x d Hessian alpha I + diag(diagonal) + dense."""
        out = np.zeros((dim, dim)) if self.matrix is None else np.array(self.matrix, dtype=float)
        out[np.diag_indices(dim)] += float(self.alpha)
        return out

    def gradient(self, w: np.ndarray) -> np.ndarray:
        out = self.hessian_vector(w)
        if self.linear is not None:
            out = out + self.linear
        return out

    def value(self, w: np.ndarray) -> float:
        out = 0.5 * float(w @ self.hessian_vector(w))
        if self.linear is not None:
            out += float(self.linear @ w)
        return out


def _add(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    if a is None:
        return b
    if b is None:
        return a
    return a + b
