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
scale with it. ``by_blocks(v)`` computes K v with sums of at most
b = ceil(sqrt(n)) terms added in turn, and returns the shorter length its
rounding bound takes, b + ceil(n / b) (+ r): a certificate whose tolerance
shrinks like 1/n uses it when the n-term bound is too coarse.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.linalg import cho_factor, cho_solve

__all__ = ["DenseGram", "FactoredGram", "GramOperator", "as_gram", "sum_by_blocks"]

Solve = Callable[[np.ndarray], np.ndarray]
BLOCK_ENTRIES = 2**22  # entries of a temporary block (32 MB)


def _blocks(n: int) -> tuple[int, int]:
    """(b, the number of blocks) for sums of n terms in blocks of b = ceil(sqrt(n))."""
    size = max(math.isqrt(n - 1) + 1, 1) if n > 0 else 1
    return size, -(-n // size)


def sum_by_blocks(matrix: np.ndarray, vector: np.ndarray, along_rows: bool) -> tuple[np.ndarray, int]:
    """matrix @ vector (or matrix.T @ vector, ``along_rows``) as the sum, taken in turn, of the products of blocks of
    b = ceil(sqrt(n)) of the n summed terms, and the term count b + ceil(n / b) of its rounding bound: however a block's
    b terms are summed, each entry errs by at most (b + ceil(n / b)) eps times the sum of its terms' sizes (first
    order; Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., chapter 4, blocked summation)."""
    n = vector.size
    size, count = _blocks(n)
    total = np.zeros(matrix.shape[1] if along_rows else matrix.shape[0])
    for start in range(0, n, size):
        part = slice(start, start + size)
        total += (matrix[part].T if along_rows else matrix[:, part]) @ vector[part]
    return total, size + count


def _committed(shape: tuple[int, ...]) -> np.ndarray:
    """An array of ``shape`` written once, so that its memory is committed now (a page of np.empty is mapped only
    when first written): built with the Gram matrix, before a learner charges its accountant, the solver's workspace
    fails to allocate then, not during the solve."""
    workspace = np.empty(shape)
    workspace.fill(0.0)
    return workspace


class DenseGram:
    """K stored as a dense symmetric n x n matrix, and an n x n workspace for the shifted systems (8 n^2 bytes each,
    allocated here: the solve allocates no further n x n array). ``solves=False``: a solve that needs no shifted
    system (a two-piece loss in closed form) holds no workspace, and :meth:`shifted_solver` is not offered."""

    def __init__(self, matrix: np.ndarray, solves: bool = True) -> None:
        self.matrix = np.asarray(matrix, dtype=float)
        self.n = self.matrix.shape[0]
        self.product_terms = self.n
        self._workspace = _committed((self.n * self.n,)) if solves else None

    def __matmul__(self, vector: np.ndarray) -> np.ndarray:
        return self.matrix @ vector

    def diagonal(self) -> np.ndarray:
        return np.diag(self.matrix).copy()

    def by_blocks(self, vector: np.ndarray) -> tuple[np.ndarray, int]:
        """(K v summed by blocks, the length b + ceil(n / b) its rounding bound takes)."""
        return sum_by_blocks(self.matrix, vector, along_rows=False)

    def shifted_solver(self, weights: np.ndarray, shift: np.ndarray | float,
                       rows: np.ndarray | None = None) -> Solve:
        """x -> (diag(shift) + W K_AA W)^-1 x by Cholesky; LinAlgError when not positive definite.

        The system is written and factored in place in the workspace, in Fortran order (LAPACK's, so not copied);
        the solver returned is valid until the next call."""
        assert self._workspace is not None, "a Gram matrix built with solves=False offers no shifted solver"
        size = self.n if rows is None else rows.size
        system = self._workspace[:size * size].reshape((size, size), order="F")
        if rows is None:
            np.multiply(self.matrix, weights[:, None], out=system)
            system *= weights[None, :]
        else:  # W K_AA W by blocks of columns: no |A| x |A| temporary
            columns = max(1, BLOCK_ENTRIES // size)
            for start in range(0, size, columns):
                part = slice(start, start + columns)
                np.multiply(weights[:, None] * self.matrix[np.ix_(rows, rows[part])], weights[None, part],
                            out=system[:, part])
        system[np.diag_indices_from(system)] += shift
        factor = cho_factor(system, overwrite_a=True, check_finite=False)
        return lambda rhs: cho_solve(factor, rhs, check_finite=False)


class FactoredGram:
    """K = F F^T from an n x r factor F (for example Nystrom features), never formed; two n x r workspaces for the
    Woodbury solves (allocated here: the solve allocates no further n x r array)."""

    def __init__(self, factor: np.ndarray) -> None:
        self.factor = np.asarray(factor, dtype=float)
        self.n, rank = self.factor.shape
        self.product_terms = self.n + rank
        self._scaled, self._weighted = _committed(self.factor.shape), _committed(self.factor.shape)

    def __matmul__(self, vector: np.ndarray) -> np.ndarray:
        return self.factor @ (self.factor.T @ vector)

    def diagonal(self) -> np.ndarray:
        return np.einsum("ij,ij->i", self.factor, self.factor)

    def by_blocks(self, vector: np.ndarray) -> tuple[np.ndarray, int]:
        """(F (F^T v) with F^T v summed by blocks, the length b + ceil(n / b) + r its rounding bound takes)."""
        coordinates, terms = sum_by_blocks(self.factor, vector, along_rows=True)
        return self.factor @ coordinates, terms + self.factor.shape[1]

    def shifted_solver(self, weights: np.ndarray, shift: np.ndarray | float,
                       rows: np.ndarray | None = None) -> Solve:
        """x -> (diag(shift) + W K_AA W)^-1 x by the Woodbury identity, G = W F_A written in the workspaces; the
        solver returned is valid until the next call."""
        size = self.n if rows is None else rows.size
        scaled, weighted = self._scaled[:size], self._weighted[:size]
        if rows is None:
            np.multiply(weights[:, None], self.factor, out=scaled)
        else:
            np.take(self.factor, rows, axis=0, out=scaled, mode="clip")  # "clip": no buffer (rows are in range)
            scaled *= weights[:, None]
        inverse_shift = 1.0 / np.broadcast_to(np.asarray(shift, dtype=float), weights.shape)
        np.multiply(inverse_shift[:, None], scaled, out=weighted)
        inner = scaled.T @ weighted
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
