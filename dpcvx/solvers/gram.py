"""The n x n Gram matrix of a kernel ERM, dense or as a low-rank factor K = F F^T.

The exact kernel solvers (:mod:`dpcvx.solvers.kernel`) touch K only through
products K v, its diagonal and solves with a shifted, row-weighted block,

    (diag(shift) + W K_AA W) x = b,   W = diag(weights), A a subset of the rows,

which is the Newton system of the representer-form Newton method (shift lam,
W = sqrt(l''/n)) and of the dual interior point (shift the barrier Hessian,
W = diag(y)). :class:`DenseGram` stores K (8 n^2 bytes, a Cholesky
factorisation of cost O(|A|^3)); :class:`FactoredGram` stores an n x r factor
F (8 n r bytes) and solves by the Woodbury identity

    (S + G G^T)^-1 = S^-1 - S^-1 G (I_r + G^T S^-1 G)^-1 G^T S^-1,   G = W F_A,

at O(|A| r^2), where I_r + G^T S^-1 G >= I is well conditioned however
spread the shifts are. FactoredGram is the Gram matrix of explicit features,
such as the Nystrom features of public landmarks (:mod:`dpcvx.data.nystrom`).

``product_terms`` is the length of the inner products behind one entry of
K v (n for a stored K, n + r for F (F^T v)); the solvers' rounding pads
scale with it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.linalg import cho_factor, cho_solve

__all__ = ["DenseGram", "FactoredGram", "GramOperator", "as_gram"]

Solve = Callable[[np.ndarray], np.ndarray]


class DenseGram:
    """K stored as a dense symmetric n x n matrix."""

    def __init__(self, matrix: np.ndarray) -> None:
        self.matrix = np.asarray(matrix, dtype=float)
        self.n = self.matrix.shape[0]
        self.product_terms = self.n
        self._buffer: np.ndarray | None = None

    def __matmul__(self, vector: np.ndarray) -> np.ndarray:
        return self.matrix @ vector

    def diagonal(self) -> np.ndarray:
        return np.diag(self.matrix).copy()

    def shifted_solver(self, weights: np.ndarray, shift: np.ndarray | float,
                       rows: np.ndarray | None = None) -> Solve:
        """x -> (diag(shift) + W K_AA W)^-1 x by Cholesky; LinAlgError when not positive definite."""
        if rows is None:
            if self._buffer is None:  # the interior point refactors the full n x n system every step
                self._buffer = np.empty_like(self.matrix)
            system = self._buffer
            np.multiply(self.matrix, weights[:, None], out=system)
            system *= weights[None, :]
        else:
            system = weights[:, None] * self.matrix[np.ix_(rows, rows)] * weights[None, :]
        system[np.diag_indices_from(system)] += shift
        factor = cho_factor(system, overwrite_a=True, check_finite=False)
        return lambda rhs: cho_solve(factor, rhs, check_finite=False)


class FactoredGram:
    """K = F F^T from an n x r factor F (for example Nystrom features), never formed."""

    def __init__(self, factor: np.ndarray) -> None:
        self.factor = np.asarray(factor, dtype=float)
        self.n, rank = self.factor.shape
        self.product_terms = self.n + rank

    def __matmul__(self, vector: np.ndarray) -> np.ndarray:
        return self.factor @ (self.factor.T @ vector)

    def diagonal(self) -> np.ndarray:
        return np.einsum("ij,ij->i", self.factor, self.factor)

    def shifted_solver(self, weights: np.ndarray, shift: np.ndarray | float,
                       rows: np.ndarray | None = None) -> Solve:
        """x -> (diag(shift) + W K_AA W)^-1 x by the Woodbury identity."""
        factor = self.factor if rows is None else self.factor[rows]
        scaled = weights[:, None] * factor
        inverse_shift = 1.0 / np.broadcast_to(np.asarray(shift, dtype=float), weights.shape)
        inner = scaled.T @ (inverse_shift[:, None] * scaled)
        inner[np.diag_indices_from(inner)] += 1.0
        core = cho_factor(inner, overwrite_a=True, check_finite=False)

        def solve(rhs: np.ndarray) -> np.ndarray:
            first = inverse_shift * rhs
            return first - inverse_shift * (scaled @ cho_solve(core, scaled.T @ first, check_finite=False))

        return solve


GramOperator = DenseGram | FactoredGram


def as_gram(gram: np.ndarray | GramOperator) -> GramOperator:
    """A dense array becomes a :class:`DenseGram`; operators pass through."""
    return gram if isinstance(gram, DenseGram | FactoredGram) else DenseGram(gram)
