"""The Hessian of the quadratic terms of N and a proved lower bound of its smallest eigenvalue.

Squares on coordinate maps give a diagonal Hessian whose minimum is computed exactly (rational arithmetic, at
the few candidate coordinates floating point cannot separate) when every coefficient is exact,
else rounded down with a rigorous error bound. Dense terms are bounded one by one from the user's
matrices (``2 sigma_min(A)^2``, ``lambda_min(P + P^T) s^2``); the sum of per-term lower bounds is a
lower bound of the sum (Weyl). For d <= ``COMBINE_LIMIT`` the whole Hessian is also bounded at
once, and the larger of the two proved bounds is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ...rounding import EPS, bound_up, sum_down
from ..exact import as_float_expr, exact_constant, float_down, product_down
from .affine import AffineMap, Unsupported, present
from .quadratic import Quadratic
from .spectral import eig_lower, eig_upper, sigma_min_lower

__all__ = ["Curvature", "DiagonalMatrix"]

COMBINE_LIMIT = 1000        # whole-Hessian bound (eigvalsh of a d x d matrix) only up to this d
DENSE_SOLVER_LIMIT = 5000   # a Quadratic with a dense d x d part only up to this d
EXACT_CANDIDATES = 64       # distinct diagonal entries evaluated in exact arithmetic


class DiagonalMatrix(np.ndarray):
    """The diagonal of a sparse diagonal P, marked so that quad_form never densifies it."""


@dataclass
class _Diagonal:
    """Hessian diag: coordinate ``cols[r]`` gets coef * weight[r] * vec[r]^2."""

    coef: Fraction
    cols: np.ndarray          # distinct, >= 0
    weight: np.ndarray | None
    vec: np.ndarray | None    # None: 1
    err: np.ndarray | None    # bound on |exact vec - vec|; None: exact

    def values(self) -> np.ndarray:
        out = np.full(self.cols.size, float(self.coef))
        if self.weight is not None:
            out = out * self.weight
        if self.vec is not None:
            out = out * self.vec * self.vec
        return out

    def lower_values(self) -> np.ndarray:
        """Lower bounds (before the final rounding allowance) of the exact contributions."""
        if self.err is None:
            return self.values()
        vec = present(self.vec, "coefficients of an inexact diagonal term")
        sign = float(self.coef) * (np.ones(self.cols.size) if self.weight is None else self.weight)
        low = np.maximum(np.abs(vec) - self.err, 0.0)
        high = np.abs(vec) + self.err
        return np.where(sign >= 0, sign * low * low, sign * high * high)

    def rounding(self) -> np.ndarray:
        """A bound on the rounding of ``lower_values`` (five roundings each)."""
        return bound_up(5 * EPS * np.abs(self.lower_values())) + 1e-300


@dataclass
class _Dense:
    """A dense Hessian term: coef * A^T diag(weight) A (``S`` None) or coef * A^T S A."""

    coef: Fraction
    A: np.ndarray | None      # None: the identity (A = I, k = d)
    A_err: float
    weight: np.ndarray | None = None
    S: np.ndarray | None = None

    def lower_bound(self) -> float:
        """A proved lower bound of lambda_min of the exact term, from the user's matrices.

        With T the unscaled term (A^T S A or A^T diag(weight) A, A the user's
        k x d matrix), lambda_min(coef T) is coef lambda_min(T) for coef >= 0
        and coef lambda_max(T) otherwise; both are bounded without forming T.
        """
        if self.coef >= 0:
            return product_down(self.coef, self._unscaled_lower())
        return product_down(self.coef, self._unscaled_upper())

    @property
    def _A(self) -> np.ndarray:
        """A of a term that has one (every term without S does)."""
        return present(self.A, "matrix of a dense term")

    def _norm_A(self) -> float:
        return bound_up(float(np.linalg.norm(self._A)) + self.A_err)

    def _s_bounds(self, S: np.ndarray) -> tuple[float, float]:
        rounding = bound_up(EPS * float(np.linalg.norm(S)))  # S = P + P^T was rounded
        return eig_lower(S) - rounding, eig_upper(S) + rounding

    def _unscaled_lower(self) -> float:
        if self.S is not None:
            s_low, _ = self._s_bounds(self.S)
            if self.A is None:
                return s_low
            if s_low >= 0:   # lambda_min(A^T S A) >= lambda_min(S) sigma_min(A)^2
                sigma = sigma_min_lower(self.A, self.A_err)
                return s_low * sigma * sigma * (1 - 4 * EPS)
            return s_low * self._norm_A() ** 2 * (1 + 4 * EPS)
        weight = np.ones(self._A.shape[0]) if self.weight is None else self.weight
        if weight.min(initial=0.0) >= 0:   # A^T W A = B^T B with B = sqrt(W) A
            root = np.sqrt(weight)
            B = root[:, None] * self._A
            error = float(root.max(initial=0.0)) * self.A_err + EPS * float(np.linalg.norm(B))
            sigma = sigma_min_lower(B, bound_up(error))
            return sigma * sigma * (1 - 4 * EPS)
        return float(weight.min()) * self._norm_A() ** 2 * (1 + 4 * EPS)

    def _unscaled_upper(self) -> float:
        if self.S is not None:
            _, s_high = self._s_bounds(self.S)
            if self.A is None:
                return s_high
            return max(s_high, 0.0) * self._norm_A() ** 2 * (1 + 4 * EPS)
        weight = np.ones(self._A.shape[0]) if self.weight is None else self.weight
        return max(float(weight.max(initial=0.0)), 0.0) * self._norm_A() ** 2 * (1 + 4 * EPS)

    def matrix(self, dim: int) -> np.ndarray:
        c = float(self.coef)
        if self.S is not None:
            if self.A is None:
                return c * self.S
            return c * (self.A.T @ (self.S @ self.A))
        weighted = self._A if self.weight is None else self.weight[:, None] * self._A
        return c * (self._A.T @ weighted)

    def formation_error(self) -> float:
        """A bound on the spectral distance between ``matrix()`` and the exact term."""
        c = abs(float(self.coef)) * (1 + EPS)
        if self.S is not None:
            norm_S = float(np.linalg.norm(self.S))
            if self.A is None:
                return bound_up(c * 3 * EPS * norm_S)
            k = self.A.shape[0]
            norm_A = float(np.linalg.norm(self.A))
            return bound_up(c * ((2 * k + 6) * EPS * norm_A ** 2 * norm_S
                            + norm_S * (2 * norm_A * self.A_err + self.A_err ** 2)))
        weight = np.ones(self._A.shape[0]) if self.weight is None else self.weight
        top = float(np.abs(weight).max(initial=0.0))
        norm_A = float(np.linalg.norm(self._A))
        return bound_up(c * top * ((self._A.shape[0] + 6) * EPS * norm_A ** 2
                              + 2 * norm_A * self.A_err + self.A_err ** 2))


@dataclass
class Curvature:
    dim: int
    alpha: Fraction = Fraction(0)
    diagonals: list[_Diagonal] = field(default_factory=list)
    denses: list[_Dense] = field(default_factory=list)
    linear: np.ndarray | None = None

    def add_linear(self, g: np.ndarray) -> None:
        if np.any(g):
            self.linear = g if self.linear is None else self.linear + g

    def add_squares(self, m: AffineMap, coef: Fraction, weight: np.ndarray | None) -> None:
        """coef * sum_r weight_r (m(w)_r)^2: Hessian 2 coef M^T diag(weight) M."""
        dim = self.dim
        if weight is not None and not np.all(np.isfinite(weight)):
            raise Unsupported("non-finite weights")
        wb = m.b if weight is None else weight * m.b
        if m.coordinate:
            cols = m.columns(dim)
            live = cols >= 0
            if m.idx is None and m.vec is None and weight is None:
                self.alpha += 2 * coef * m.factor ** 2
            elif live.any():
                vec = None if m.vec is None else m.vec[live]
                err = None if (m.vec is None or m.err is None) else m.err[live]
                piece_coef = 2 * coef * (m.factor ** 2 if m.vec is None else 1)
                self.diagonals.append(_Diagonal(piece_coef, cols[live],
                                                None if weight is None else weight[live], vec, err))
            g = np.zeros(dim)
            shifted = live & (wb != 0)  # a term without offset adds no linear part, whatever its coefficient's size
            g[cols[shifted]] = 2 * float(coef) * m.coefficients()[shifted] * wb[shifted]
            self.add_linear(g)
            return
        self.denses.append(_Dense(2 * coef, m.A, m.dense_err, weight=weight))
        self.add_linear(2 * float(coef) * (m.matrix.T @ wb))

    def add_quad_form(self, m: AffineMap, P: np.ndarray, coef: Fraction) -> None:
        """coef * x^T P x with x = m(w): Hessian coef M^T (P + P^T) M."""
        dim = self.dim
        if isinstance(P, DiagonalMatrix):
            if P.size != m.size:
                raise Unsupported("quad_form of unexpected shape")
            self.add_squares(m, coef, np.asarray(P).copy())
            return
        if P.ndim != 2 or P.shape[0] != P.shape[1] or P.shape[0] != m.size:
            raise Unsupported("quad_form of unexpected shape")
        off_diagonal = P - np.diag(np.diag(P))
        if not np.any(off_diagonal):
            self.add_squares(m, coef, np.diag(P).copy())
            return
        S = P + P.T
        if m.coordinate and m.idx is None and m.vec is None:
            self.denses.append(_Dense(coef * m.factor ** 2, None, 0.0, S=S))
            self.add_linear(float(coef * m.factor) * (S @ m.b))
            return
        dense = m.to_dense(dim)
        self.denses.append(_Dense(coef, dense.A, dense.dense_err, S=S))
        self.add_linear(float(coef) * (dense.matrix.T @ (S @ m.b)))

    # -- the modulus --

    def diagonal_floats(self) -> np.ndarray | None:
        if not self.diagonals:
            return None
        out = np.zeros(self.dim)
        for piece in self.diagonals:
            out[piece.cols] += piece.values()
        return out

    def diagonal_lower(self) -> tuple[Fraction | float, bool]:
        """min over coordinates of the exact diagonal part: (exact Fraction, True) or (float lower, False)."""
        if not self.diagonals:
            return Fraction(0), True
        low = np.zeros(self.dim)
        slack = np.zeros(self.dim)
        magnitude = np.zeros(self.dim)
        for piece in self.diagonals:
            values = piece.lower_values()
            low[piece.cols] += values
            slack[piece.cols] += piece.rounding()
            magnitude[piece.cols] += np.abs(values)
        # summing T terms rounds by at most T u times the sum of their magnitudes
        slack = bound_up(slack + len(self.diagonals) * EPS * magnitude)
        self.diagonal_lower_vector = low - slack   # elementwise <= the exact diagonal
        lower_float = float(np.min(low - slack))
        lower_float -= bound_up(EPS * abs(lower_float))
        if any(piece.err is not None for piece in self.diagonals):
            return lower_float, False
        # exact: the minimum is at a coordinate whose float value cannot be separated from it
        candidates = np.flatnonzero(low - slack <= float(np.min(low + slack)))
        keys = np.zeros((candidates.size, 2 * len(self.diagonals)))  # 0: coordinate not covered
        for t, piece in enumerate(self.diagonals):
            position = np.full(self.dim, -1)
            position[piece.cols] = np.arange(piece.cols.size)
            rows = position[candidates]
            covered = rows >= 0
            keys[covered, 2 * t] = 1.0 if piece.weight is None else piece.weight[rows[covered]]
            keys[covered, 2 * t + 1] = 1.0 if piece.vec is None else piece.vec[rows[covered]]
        unique = np.unique(keys, axis=0)
        if unique.shape[0] > EXACT_CANDIDATES:
            return lower_float, False
        candidates_exact = [sum((piece.coef * exact_constant(key[2 * t]) * exact_constant(key[2 * t + 1]) ** 2
                       for t, piece in enumerate(self.diagonals)), Fraction(0)) for key in unique]
        return min(candidates_exact), True

    def modulus(self) -> tuple[Fraction, bool, tuple[str, ...]]:
        diag_value, exact = self.diagonal_lower()
        if not self.denses:
            if exact and not isinstance(diag_value, float):
                m = self.alpha + diag_value
                if m < 0:
                    return Fraction(0), False, ("the quadratic terms' Hessian is not PSD",)
                how = ("multiple of the identity" if not self.diagonals else
                       "diagonal Hessian: exact minimum of the diagonal")
                return m, True, (f"m: {how}",)
            value = sum_down([float_down(self.alpha), float(diag_value)])
            return as_float_expr(max(value, 0.0)), False, (
                "m: diagonal Hessian, minimum rounded down with a rigorous error bound",)
        diag_float = diag_value if isinstance(diag_value, float) else float_down(diag_value)
        per_term = sum_down([diag_float] + [piece.lower_bound() for piece in self.denses])
        notes = ["m: sum of per-term lower bounds (SVD / eigvalsh of the user's matrices, rounded down)"]
        if self.dim <= COMBINE_LIMIT:
            H = np.zeros((self.dim, self.dim))
            error = 0.0
            if self.diagonals:
                # exact diagonal - this vector >= 0 elementwise, so it only raises lambda_min
                H[np.diag_indices(self.dim)] += self.diagonal_lower_vector
            magnitude = float(np.linalg.norm(H))
            for piece in self.denses:
                term = piece.matrix(self.dim)
                H += term
                error += piece.formation_error()
                magnitude += float(np.linalg.norm(term))
            # each addition rounds by at most u times the magnitudes summed so far
            error += (len(self.denses) + 2) * EPS * magnitude
            H = 0.5 * (H + H.T)
            combined = eig_lower(H) - bound_up(error + EPS * float(np.linalg.norm(H)))
            if combined > per_term:
                per_term = combined
                notes = ["m: smallest eigenvalue of the whole Hessian (eigvalsh, rigorously rounded down)"]
        value = sum_down([float_down(self.alpha), per_term])
        return as_float_expr(max(value, 0.0)), False, tuple(notes)

    def quadratic(self) -> Quadratic | None:
        if self.denses and self.dim > DENSE_SOLVER_LIMIT:
            return None
        dense = None
        if self.denses:
            total = np.zeros((self.dim, self.dim))
            for piece in self.denses:  # the same sums as sum() over the pieces, which starts from 0
                total = total + piece.matrix(self.dim)
            dense = 0.5 * (total + total.T)
        return Quadratic(self.alpha, dense, self.linear, self.diagonal_floats())
