"""A calculus over the CVXPY tree of a regularizer N(w).

Strong convexity. N is split into terms; every recognised quadratic term
contributes its constant Hessian, every other convex term contributes 0 (its
Hessian is PSD). The modulus is a PROVED lower bound of lambda_min of the
sum, derived from the structure of the expression, never from a dense
eigendecomposition of a d x d matrix the user did not write:

* Affine maps ``A w + b`` inside the squares are tracked structurally: a
  scaled identity ``s w`` (s exact), a coordinate map (``multiply(a, w)``,
  ``w[1:]``, ``w / a``: row r reads one coordinate with coefficient a_r,
  together with a rigorous bound on the rounding of a_r), or a dense matrix
  (``A @ w``: the user's matrix; products carry a Frobenius error bound).
  A constant counts as a scalar only when it has ONE entry: an all-equal
  matrix ``c * ones((d, d))`` is a rank-one matrix, not ``c I``.
* Squares on coordinate maps (``sum_squares``, ``sum(square)``,
  ``sum(multiply(a, square(.)))``, ``a @ square(.)``, ``norm(.)**2``,
  ``quad_over_lin(., y)``, ``quad_form`` with a diagonal P) give a diagonal
  Hessian: the scaled-identity part is a sympy rational, and the minimum of
  the diagonal is computed exactly (sympy, at the few candidate coordinates
  that floating point cannot separate) when every coefficient is exact, else
  rounded down with a rigorous error bound. The convention is the Hessian's:
  ``0.5 ||w||^2`` has m = 1, ``sum(multiply(a, square(w)))`` has m = 2 min(a).
* Dense terms (``sum_squares(A @ w)``, ``quad_form(x, P)`` with a dense P)
  are bounded one by one from the user's matrices: ``2 sigma_min(A)^2`` for a
  tall or square A (0 for a wide one, whose Gram matrix is singular) by an
  SVD of A, ``lambda_min(P + P^T) s^2`` by eigvalsh of P, each minus a
  rigorous multiple of eps times a Frobenius norm. The sum of per-term lower
  bounds is a lower bound of the sum (Weyl). For d <= ``COMBINE_LIMIT`` the
  whole Hessian (which the Newton solver forms anyway) is also bounded at
  once, and the larger of the two proved bounds is kept.

Differentiability: a term is C^2 when every atom in it is smooth, C^1 when
the only non-smooth atom is ``huber``, and not differentiable when it contains
``abs``, ``max``, a norm (outside ``norm(.)**2``) or similar. Atoms not in the
table (:mod:`.atoms`) are "not established", never assumed smooth.

When N is quadratic, ``N(w) = 0.5 w^T (alpha I + diag(diagonal) + dense) w
+ linear^T w + const``; the fast solver uses that form (``Quadratic``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

import cvxpy as cp
import numpy as np
import scipy.sparse as sparse
import sympy as sp

from ..rounding import EPS, bound_up, sum_down
from . import atoms
from .exact import exact_constant, float_down, product_down

__all__ = ["Quadratic", "RegularizerAnalysis", "analyse_regularizer"]

COMBINE_LIMIT = 1000        # whole-Hessian bound (eigvalsh of a d x d matrix) only up to this d
DENSE_SOLVER_LIMIT = 5000   # a Quadratic with a dense d x d part only up to this d
NUMERIC_LIMIT = 2_000_000   # entries of an affine map read off by evaluation (unknown atoms)
NUMERIC_DIM_LIMIT = 2000    # ... which costs one evaluation per coordinate of w
EXACT_CANDIDATES = 64       # distinct diagonal entries evaluated in exact arithmetic


@dataclass(frozen=True)
class Quadratic:
    """0.5 w^T (alpha I + diag(diagonal) + dense) w + linear^T w (constants dropped).

    ``matrix`` (the Hessian minus ``alpha I``: ``diag(diagonal) + dense``, or
    None) is kept for callers that add it to a dense Hessian; it is built on
    first use only. ``hessian_vector`` and ``hessian_diagonal`` never build it.
    A third positional argument is still ``linear``; the old
    ``Quadratic(alpha, matrix, linear)`` reads ``matrix`` as ``dense``.
    """

    alpha: sp.Expr
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

    def scaled(self, factor: sp.Expr) -> Quadratic:
        f = float(factor)
        return Quadratic(
            self.alpha * factor,
            None if self.dense is None else f * self.dense,
            None if self.linear is None else f * self.linear,
            None if self.diagonal is None else f * self.diagonal,
        )

    def smallest_eigenvalue(self) -> tuple[sp.Expr, bool]:
        """(a lower bound of lambda_min of the Hessian, exact?) from the stored floats.

        :func:`analyse_regularizer` certifies m from the expression's structure
        instead; this is for a Quadratic built by hand.
        """
        if self.dense is None and self.diagonal is None:
            return sp.nsimplify(self.alpha), True
        bound = 0.0
        if self.diagonal is not None:
            bound += float(self.diagonal.min()) - EPS * float(np.abs(self.diagonal).max())
        if self.dense is not None:
            bound += _eig_lower(0.5 * (self.dense + self.dense.T))
        value = sum_down([float_down(self.alpha), bound])
        return _as_float_expr(max(value, 0.0)), False

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


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


ZERO = Quadratic(sp.Integer(0))


@dataclass(frozen=True)
class RegularizerAnalysis:
    """What the calculus established for N at dimension ``dim``."""

    dim: int
    convex: bool
    finite_everywhere: bool
    strong_convexity: sp.Expr
    strong_convexity_exact: bool
    differentiable: bool | None
    twice_differentiable: bool | None
    quadratic: Quadratic | None
    nonsmooth_atoms: tuple[str, ...] = ()
    c1_only_atoms: tuple[str, ...] = ()
    unknown_atoms: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())
    l1_weight: float = 0.0
    smooth_part: Quadratic | None = None
    groups: tuple[tuple[tuple[int, ...], float], ...] = ()  # (coordinates g, b_g) of the terms b_g ||w_g||_2

    @property
    def composite(self) -> bool:
        """N = l1_weight ||w||_1 + sum_g b_g ||w_g||_2 + smooth_part(w) with a non-smooth part
        (lasso, elastic net, group lasso over disjoint groups, sparse group lasso)."""
        return (self.l1_weight > 0 or bool(self.groups)) and self.smooth_part is not None

    @property
    def nonsmooth_weight(self) -> float:
        """a + min_g b_g: the scale of the non-smooth part (a utility proxy only)."""
        return self.l1_weight + min((weight for _, weight in self.groups), default=0.0)


# -- float error analysis (the rounding policy: dpcvx.rounding) ------------------------------


T = TypeVar("T")


def _present(value: T | None, what: str) -> T:
    """``value``, which the structure guarantees (a TypeError names the broken invariant otherwise)."""
    if value is None:
        raise TypeError(f"internal: the {what} is missing")
    return value


def _as_float_expr(value: float) -> sp.Expr:
    if value == 0:
        return sp.Integer(0)
    return sp.Float(value, precision=53)


def _two_sum_err(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(fl(a + b), exact rounding error) elementwise (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a: np.ndarray):
    c = 134217729.0 * a
    high = c - (c - a)
    return high, a - high


def _two_prod_err(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(fl(a * b), exact rounding error) elementwise (Dekker's TwoProduct; no overflow assumed)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _eig_lower(S: np.ndarray) -> float:
    """A lower bound of lambda_min of the symmetric float matrix S (backward-stable eigvalsh)."""
    if S.size == 0:
        return 0.0
    smallest = float(np.linalg.eigvalsh(S)[0])
    return smallest - bound_up((S.shape[0] + 4) * EPS * float(np.linalg.norm(S)))


def _eig_upper(S: np.ndarray) -> float:
    if S.size == 0:
        return 0.0
    largest = float(np.linalg.eigvalsh(S)[-1])
    return largest + bound_up((S.shape[0] + 4) * EPS * float(np.linalg.norm(S)))


def _sigma_min_lower(B: np.ndarray, error: float) -> float:
    """A lower bound of sigma_min of the true matrix within Frobenius ``error`` of the float B (k >= d)."""
    k, d = B.shape
    if k < d:
        return 0.0
    smallest = float(np.linalg.svd(B, compute_uv=False)[-1])
    shade = bound_up((max(k, d) + 4) * EPS * float(np.linalg.norm(B)) + error)
    return max(smallest - shade, 0.0)


# -- affine maps -------------------------------------------------------------------------------


class _Unsupported(Exception):
    """The calculus does not follow this subexpression (the term then contributes 0)."""


@dataclass
class _Map:
    """An affine map w -> A w + b with k = len(b) outputs (column-major order).

    Coordinate form (``A`` None): output r is ``coef_r * w[idx[r]] + b_r``
    (``idx`` None means idx = arange(d); ``idx[r] = -1`` a constant row), with
    coef_r = ``scale`` (an exact sympy number) or ``vec[r]`` (a double within
    ``err[r]`` of the exact coefficient; err None means exact). The indices of
    non-constant rows are distinct. Dense form: ``A`` (k x d) within Frobenius
    distance ``dense_err`` of the exact matrix.
    """

    b: np.ndarray
    idx: np.ndarray | None = None
    scale: sp.Expr | None = None
    vec: np.ndarray | None = None
    err: np.ndarray | None = None
    A: np.ndarray | None = None
    dense_err: float = 0.0

    @property
    def size(self) -> int:
        return self.b.size

    @property
    def coordinate(self) -> bool:
        return self.A is None

    @property
    def matrix(self) -> np.ndarray:
        """A of a map in dense form."""
        return _present(self.A, "matrix of a dense map")

    @property
    def factor(self) -> sp.Expr:
        """The exact scale of a coordinate map without per-row coefficients."""
        return _present(self.scale, "scale of a coordinate map")

    def coefficients(self) -> np.ndarray:
        return np.full(self.size, float(self.factor)) if self.vec is None else self.vec

    def coefficient_errors(self) -> np.ndarray:
        """Bounds on |exact - float| of ``coefficients()``."""
        if self.vec is None:
            value = float(self.factor)
            exact = sp.Rational(value) == self.factor
            return np.full(self.size, 0.0 if exact else bound_up(abs(value) * EPS / 2))
        return np.zeros(self.size) if self.err is None else self.err

    def columns(self, dim: int) -> np.ndarray:
        return np.arange(dim) if self.idx is None else self.idx

    def to_dense(self, dim: int) -> _Map:
        if not self.coordinate:
            return self
        if self.size * dim > NUMERIC_LIMIT:
            raise _Unsupported(f"a {self.size} x {dim} dense map")
        A = np.zeros((self.size, dim))
        rows = np.arange(self.size)
        cols = self.columns(dim)
        live = cols >= 0
        A[rows[live], cols[live]] = self.coefficients()[live]
        error = float(np.linalg.norm(self.coefficient_errors()[live]))
        return _Map(self.b, A=A, dense_err=bound_up(error))


def _constant_value(node) -> np.ndarray:
    value = node.value
    if value is None:
        raise _Unsupported("a constant without a value (a Parameter?)")
    if sparse.issparse(value):
        value = value.toarray()
    return np.asarray(value, dtype=float)


def _scalar_constant(node) -> sp.Expr | None:
    """The exact value of a constant with exactly ONE entry, else None.

    A constant whose entries merely coincide (``c * np.ones((d, d))``) is not
    a scalar: as a matrix factor it is rank one, not ``c I``.
    """
    if not node.is_constant() or node.size != 1:
        return None
    try:
        return exact_constant(_constant_value(node).ravel()[0])
    except _Unsupported:
        return None


def _flat(value: np.ndarray, shape) -> np.ndarray:
    return np.broadcast_to(value, shape).ravel(order="F")


def _scale_map(m: _Map, factor: sp.Expr) -> _Map:
    f = float(factor)
    b = f * m.b
    if not m.coordinate:
        error = m.dense_err * abs(f) + EPS * float(np.linalg.norm(m.matrix)) * abs(f)
        return _Map(b, A=f * m.matrix, dense_err=bound_up(error))
    if m.vec is None:
        return _Map(b, idx=m.idx, scale=m.scale * factor)
    exact_f = sp.Rational(f) == factor
    return _multiply_coordinates(m, np.full(m.size, f), b, 0.0 if exact_f else EPS)


def _multiply_coordinates(m: _Map, factors: np.ndarray, b: np.ndarray, factor_rel_err=0.0) -> _Map:
    """Coordinate map with coefficients factors * coef (factors within relative factor_rel_err)."""
    coef = m.coefficients()
    product, rounding = _two_prod_err(factors, coef)
    err = (np.abs(factors) * m.coefficient_errors() + np.abs(rounding)
           + factor_rel_err * np.abs(factors * coef))
    err = bound_up(err) if np.any(err) else None
    return _Map(b, idx=m.idx, vec=product, err=err)


def _affine(node, w: cp.Variable) -> _Map:
    """The affine map of ``node`` (an affine expression of w), structurally where possible."""
    dim = w.size
    if isinstance(node, cp.Variable):
        if node.id != w.id:
            raise _Unsupported("a second variable")
        return _Map(np.zeros(dim), scale=sp.Integer(1))
    if node.is_constant():
        return _Map(_flat(_constant_value(node), node.shape), idx=np.full(node.size, -1),
                    scale=sp.Integer(1))
    if isinstance(node, atoms.NEGATE):
        return _scale_map(_affine(node.args[0], w), sp.Integer(-1))
    if isinstance(node, atoms.ADD):
        return _add_maps(node, w)
    if isinstance(node, atoms.MULTIPLY):
        for const_arg, other in ((node.args[0], node.args[1]), (node.args[1], node.args[0])):
            if not const_arg.is_constant():
                continue
            factor = _scalar_constant(const_arg)
            if factor is not None:
                inner = _affine(other, w)
                if other.shape == node.shape:
                    return _scale_map(inner, factor)
            elif const_arg.shape == other.shape == node.shape:
                values = _flat(_constant_value(const_arg), node.shape)
                inner = _affine(other, w)
                if inner.coordinate:
                    return _multiply_coordinates(inner, values, values * inner.b)
                A = values[:, None] * inner.A
                error = (float(np.abs(values).max(initial=0)) * inner.dense_err
                         + EPS * float(np.linalg.norm(A)))
                return _Map(values * inner.b, A=A, dense_err=bound_up(error))
    if isinstance(node, atoms.MATMUL):
        left, right = node.args
        for const_arg, other in ((left, right), (right, left)):
            factor = _scalar_constant(const_arg)   # a 1 x 1 matrix: a scalar indeed
            if factor is not None and not other.is_constant() and other.shape == node.shape:
                return _scale_map(_affine(other, w), factor)
        if left.is_constant() and not right.is_constant() and len(right.shape) <= 1:
            return _matmul(_constant_value(left), _affine(right, w), dim, node.size)
        if right.is_constant() and not left.is_constant() and len(left.shape) <= 1:
            return _matmul(_constant_value(right).T, _affine(left, w), dim, node.size)
    if isinstance(node, atoms.DIVIDE) and node.args[1].is_constant():
        factor = _scalar_constant(node.args[1])
        if factor is not None and factor != 0:
            if node.args[0].shape == node.shape:
                return _scale_map(_affine(node.args[0], w), 1 / factor)
        elif node.args[1].shape == node.args[0].shape == node.shape:
            divisors = _flat(_constant_value(node.args[1]), node.shape)
            inner = _affine(node.args[0], w)
            if inner.coordinate and np.all(divisors != 0):
                coef = inner.coefficients()
                quotient = coef / divisors
                product, rounding = _two_prod_err(quotient, divisors)
                # |quotient - coef/div| = |quotient*div - coef| / |div| (exact: via TwoProduct)
                residual = np.abs((product - coef) + rounding) / np.abs(divisors)
                err = bound_up(inner.coefficient_errors() / np.abs(divisors) + residual
                          + EPS * np.abs(quotient))
                exact = (inner.err is None and not np.any((product - coef) + rounding)
                         and inner.vec is not None)
                return _Map(inner.b / divisors, idx=inner.idx, vec=quotient,
                            err=None if exact else err)
    if isinstance(node, atoms.INDEX) and len(node.args[0].shape) <= 1:
        inner = _affine(node.args[0], w)
        selection = np.arange(inner.size).reshape(node.args[0].shape, order="F")[_numpy_key(node.key)]
        selection = np.asarray(selection).ravel(order="F")
        if selection.size != node.size:
            raise _Unsupported(f"an index key {node.key} the calculus does not follow")
        if inner.coordinate:
            cols = inner.columns(dim)[selection]
            live = cols[cols >= 0]
            if live.size != np.unique(live).size:
                return _numeric_affine_map(node, w)
            return _Map(inner.b[selection], idx=cols, scale=inner.scale,
                        vec=None if inner.vec is None else inner.vec[selection],
                        err=None if inner.err is None else inner.err[selection])
        return _Map(inner.b[selection], A=inner.matrix[selection], dense_err=inner.dense_err)
    if isinstance(node, atoms.SUM) and node.axis is None:
        inner = _affine(node.args[0], w)
        if inner.coordinate:
            row = np.zeros(dim)
            cols = inner.columns(dim)
            live = cols >= 0
            row[cols[live]] = inner.coefficients()[live]  # distinct indices: no accumulation
            error = float(np.linalg.norm(inner.coefficient_errors()[live]))
            return _Map(np.array([math.fsum(inner.b)]), A=row[None, :], dense_err=bound_up(error))
        A = inner.matrix.sum(axis=0, keepdims=True)
        error = inner.dense_err * math.sqrt(inner.size) + inner.size * EPS * float(np.abs(inner.matrix).sum())
        return _Map(np.array([math.fsum(inner.b)]), A=A, dense_err=bound_up(error))
    return _numeric_affine_map(node, w)


def _numpy_key(key):
    """CVXPY's normalised key in numpy's terms: a reversed slice ending before 0 has stop -1 there."""
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for part in key:
        if isinstance(part, slice) and part.step is not None and part.step < 0 \
                and part.stop is not None and part.stop < 0:
            part = slice(part.start, None, part.step)
        out.append(part)
    return tuple(out)


def _matmul(C: np.ndarray, inner: _Map, dim: int, out_size: int) -> _Map:
    """C @ (inner map), C the user's constant matrix (k x size)."""
    C = np.atleast_2d(C) if C.ndim else C.reshape(1, 1)
    if C.ndim != 2 or C.shape[1] != inner.size or C.shape[0] != out_size:
        raise _Unsupported("a matrix product of unexpected shape")
    if inner.coordinate and C.shape[0] == C.shape[1] and not np.any(C - np.diag(np.diag(C))):
        # a diagonal matrix (the user's, checked entry by entry) scales coordinates
        values = np.diag(C).copy()
        return _multiply_coordinates(inner, values, values * inner.b)
    if inner.coordinate:
        cols = inner.columns(dim)
        live = cols >= 0
        coef = inner.coefficients()
        A = np.zeros((C.shape[0], dim))
        A[:, cols[live]] = C[:, live] * coef[live][None, :]  # distinct columns
        error = (float(np.linalg.norm(C[:, live] * inner.coefficient_errors()[live][None, :]))
                 + EPS * float(np.linalg.norm(A)))
        return _Map(C @ inner.b, A=A, dense_err=bound_up(error))
    A = C @ inner.matrix
    norm_C = float(np.linalg.norm(C))
    error = (norm_C * inner.dense_err
             + (inner.size + 2) * EPS * norm_C * float(np.linalg.norm(inner.matrix)))
    return _Map(C @ inner.b, A=A, dense_err=bound_up(error))


def _add_maps(node, w) -> _Map:
    dim = w.size
    shape = node.shape
    offset = np.zeros(node.size)
    parts = []
    for arg in node.args:
        if arg.is_constant():
            offset = offset + _flat(_constant_value(arg), shape)
        elif arg.shape != shape:
            return _numeric_affine_map(node, w)
        else:
            parts.append(_affine(arg, w))
    if not parts:
        raise _Unsupported("a constant sum")
    b = offset + sum(part.b for part in parts)
    first = parts[0]
    same_rows = all(part.coordinate for part in parts) and all(
        (part.idx is None and first.idx is None)
        or (part.idx is not None and first.idx is not None and np.array_equal(part.idx, first.idx))
        for part in parts)
    if same_rows and all(part.vec is None for part in parts):
        return _Map(b, idx=first.idx, scale=sum((part.factor for part in parts), sp.Integer(0)))
    if same_rows:
        total = parts[0].coefficients()
        err = parts[0].coefficient_errors()
        for part in parts[1:]:
            total, rounding = _two_sum_err(total, part.coefficients())
            err = err + part.coefficient_errors() + np.abs(rounding)
        return _Map(b, idx=first.idx, vec=total, err=bound_up(err) if np.any(err) else None)
    dense = [part.to_dense(dim) for part in parts]
    A = dense[0].matrix
    for part in dense[1:]:
        A = A + part.matrix
    error = sum(part.dense_err for part in dense) + len(dense) * EPS * sum(
        float(np.linalg.norm(part.matrix)) for part in dense)
    return _Map(b, A=A, dense_err=bound_up(error))


def _numeric_affine_map(node, w: cp.Variable) -> _Map:
    """A and b of an affine expression by evaluation at 0 and the unit vectors (small maps only)."""
    if w.size > NUMERIC_DIM_LIMIT or w.size * node.size > NUMERIC_LIMIT:
        raise _Unsupported(f"no structural rule for {type(node).__name__} at this size")
    saved = w.value
    try:
        w.value = np.zeros(w.shape)
        b = np.asarray(node.value, dtype=float).ravel(order="F")
        A = np.empty((b.size, w.size))
        for j in range(w.size):
            unit = np.zeros(w.size)
            unit[j] = 1.0
            w.value = unit.reshape(w.shape, order="F")
            A[:, j] = np.asarray(node.value, dtype=float).ravel(order="F") - b
    finally:
        w.value = saved
    # evaluation may round (products inside the expression): a generous Frobenius bound
    error = 4 * (w.size + b.size + 4) * EPS * float(np.linalg.norm(A))
    return _Map(b, A=A, dense_err=bound_up(error))


# -- curvature pieces ----------------------------------------------------------------------------


@dataclass
class _Diagonal:
    """Hessian diag: coordinate ``cols[r]`` gets coef * weight[r] * vec[r]^2."""

    coef: sp.Expr
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
        vec = _present(self.vec, "coefficients of an inexact diagonal term")
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

    coef: sp.Expr
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
        return _present(self.A, "matrix of a dense term")

    def _norm_A(self) -> float:
        return bound_up(float(np.linalg.norm(self._A)) + self.A_err)

    def _s_bounds(self, S: np.ndarray) -> tuple[float, float]:
        rounding = bound_up(EPS * float(np.linalg.norm(S)))  # S = P + P^T was rounded
        return _eig_lower(S) - rounding, _eig_upper(S) + rounding

    def _unscaled_lower(self) -> float:
        if self.S is not None:
            s_low, _ = self._s_bounds(self.S)
            if self.A is None:
                return s_low
            if s_low >= 0:   # lambda_min(A^T S A) >= lambda_min(S) sigma_min(A)^2
                sigma = _sigma_min_lower(self.A, self.A_err)
                return s_low * sigma * sigma * (1 - 4 * EPS)
            return s_low * self._norm_A() ** 2 * (1 + 4 * EPS)
        weight = np.ones(self._A.shape[0]) if self.weight is None else self.weight
        if weight.min(initial=0.0) >= 0:   # A^T W A = B^T B with B = sqrt(W) A
            root = np.sqrt(weight)
            B = root[:, None] * self._A
            error = float(root.max(initial=0.0)) * self.A_err + EPS * float(np.linalg.norm(B))
            sigma = _sigma_min_lower(B, bound_up(error))
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
class _Curvature:
    dim: int
    alpha: sp.Expr = sp.Integer(0)
    diagonals: list = field(default_factory=list)
    denses: list = field(default_factory=list)
    linear: np.ndarray | None = None

    def add_linear(self, g: np.ndarray):
        if np.any(g):
            self.linear = g if self.linear is None else self.linear + g

    def add_squares(self, m: _Map, coef: sp.Expr, weight: np.ndarray | None):
        """coef * sum_r weight_r (m(w)_r)^2: Hessian 2 coef M^T diag(weight) M."""
        dim = self.dim
        if weight is not None and not np.all(np.isfinite(weight)):
            raise _Unsupported("non-finite weights")
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
            g[cols[live]] = 2 * float(coef) * m.coefficients()[live] * wb[live]
            self.add_linear(g)
            return
        self.denses.append(_Dense(2 * coef, m.A, m.dense_err, weight=weight))
        self.add_linear(2 * float(coef) * (m.matrix.T @ wb))

    def add_quad_form(self, m: _Map, P: np.ndarray, coef: sp.Expr):
        """coef * x^T P x with x = m(w): Hessian coef M^T (P + P^T) M."""
        dim = self.dim
        if isinstance(P, _DiagonalMatrix):
            if P.size != m.size:
                raise _Unsupported("quad_form of unexpected shape")
            self.add_squares(m, coef, np.asarray(P).copy())
            return
        if P.ndim != 2 or P.shape[0] != P.shape[1] or P.shape[0] != m.size:
            raise _Unsupported("quad_form of unexpected shape")
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

    def diagonal_lower(self) -> tuple[sp.Expr | float, bool]:
        """min over coordinates of the exact diagonal part: (exact sympy, True) or (float lower, False)."""
        if not self.diagonals:
            return sp.Integer(0), True
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
        best = None
        for key in unique:
            value = sp.Integer(0)
            for t, piece in enumerate(self.diagonals):
                value += piece.coef * exact_constant(key[2 * t]) * exact_constant(key[2 * t + 1]) ** 2
            best = value if best is None or value < best else best
        return best, True

    def modulus(self) -> tuple[sp.Expr, bool, tuple[str, ...]]:
        diag_value, exact = self.diagonal_lower()
        if not self.denses:
            if exact:
                m = self.alpha + diag_value
                if m < 0:
                    return sp.Integer(0), False, ("the quadratic terms' Hessian is not PSD",)
                how = ("multiple of the identity" if not self.diagonals else
                       "diagonal Hessian: exact minimum of the diagonal")
                return m, True, (f"m: {how}",)
            value = sum_down([float_down(self.alpha), diag_value])
            return _as_float_expr(max(value, 0.0)), False, (
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
            combined = _eig_lower(H) - bound_up(error + EPS * float(np.linalg.norm(H)))
            if combined > per_term:
                per_term = combined
                notes = ["m: smallest eigenvalue of the whole Hessian (eigvalsh, rigorously rounded down)"]
        value = sum_down([float_down(self.alpha), per_term])
        return _as_float_expr(max(value, 0.0)), False, tuple(notes)

    def quadratic(self) -> Quadratic | None:
        if self.denses and self.dim > DENSE_SOLVER_LIMIT:
            return None
        dense = None
        if self.denses:
            dense = sum(piece.matrix(self.dim) for piece in self.denses)
            dense = 0.5 * (dense + dense.T)
        return Quadratic(self.alpha, dense, self.linear, self.diagonal_floats())


# -- terms ---------------------------------------------------------------------------------------


def _is_power(node, p: float) -> bool:
    return isinstance(node, atoms.POWER) and atoms.power_exponent(node) == p


def _weighted_squares(node):
    """(inner affine x, weight array or None, exact scalar factor) for sum(a * square(x)) forms."""
    if isinstance(node, atoms.SUM) and node.axis is None:
        inner = node.args[0]
        if _is_power(inner, 2.0):
            return inner.args[0], None, sp.Integer(1)
        if isinstance(inner, atoms.MULTIPLY):
            for const_arg, other in ((inner.args[0], inner.args[1]), (inner.args[1], inner.args[0])):
                if const_arg.is_constant() and _is_power(other, 2.0):
                    factor = _scalar_constant(const_arg)
                    if factor is not None and other.shape == inner.shape:
                        return other.args[0], None, factor
                    if const_arg.shape == other.shape == inner.shape:
                        return other.args[0], _flat(_constant_value(const_arg), other.shape), sp.Integer(1)
    if isinstance(node, atoms.MATMUL) and node.size == 1:
        left, right = node.args
        for const_arg, other in ((left, right), (right, left)):
            if const_arg.is_constant() and _is_power(other, 2.0) and len(other.shape) == 1 \
                    and const_arg.size == other.size:
                return other.args[0], _constant_value(const_arg).ravel(), sp.Integer(1)
    return None


class _DiagonalMatrix(np.ndarray):
    """The diagonal of a sparse diagonal P, marked so that quad_form never densifies it."""


def _quad_form_matrix(P):
    """P of quad_form: a dense array, or (a sparse diagonal P at any size) its diagonal, marked."""
    value = P.value
    if value is None:
        raise _Unsupported("a quad_form matrix without a value")
    if sparse.issparse(value):
        value = sparse.csr_array(value)
        diagonal = np.asarray(value.diagonal(), dtype=float)
        if (value - sparse.diags_array(diagonal)).count_nonzero() == 0:
            return diagonal.view(_DiagonalMatrix)
        if value.shape[0] > DENSE_SOLVER_LIMIT:
            raise _Unsupported(f"a sparse non-diagonal quad_form matrix of size {value.shape[0]}")
        value = value.toarray()
    return np.asarray(value, dtype=float)


def _quadratic_term(node, w, curvature: _Curvature, factor: sp.Expr) -> bool:
    """Add ``factor * node`` to ``curvature`` if it is a recognised quadratic (or affine) term."""
    if isinstance(node, atoms.QUAD_OVER_LIN):
        denominator = _scalar_constant(node.args[1])
        if denominator is not None and denominator > 0 and node.args[0].is_affine():
            curvature.add_squares(_affine(node.args[0], w), factor / denominator, None)
            return True
    if isinstance(node, atoms.QUAD_FORMS) and node.args[1].is_constant():  # Constant, psd_wrap
        x, P = node.args
        if x.is_affine():
            curvature.add_quad_form(_affine(x, w), _quad_form_matrix(P), factor)
            return True
    weighted = _weighted_squares(node)
    if weighted is not None and weighted[0].is_affine():
        inner, weight, scalar = weighted
        curvature.add_squares(_affine(inner, w), factor * scalar, weight)
        return True
    if _is_power(node, 2.0) and node.size == 1:
        inner = node.args[0]
        if inner.is_affine():
            curvature.add_squares(_affine(inner, w), factor, None)
            return True
        if isinstance(inner, atoms.NORMS) and atoms.norm_order(inner) == 2 and inner.args[0].is_affine():
            curvature.add_squares(_affine(inner.args[0], w), factor, None)
            return True
    if node.is_affine() and node.size == 1:
        if node.is_constant():
            return True
        m = _affine(node, w).to_dense(w.size)
        curvature.add_linear(float(factor) * m.matrix.ravel())
        return True
    return bool(node.is_constant())


def _terms(node, factor: sp.Expr = sp.S.One):
    """Split a scalar expression into (positive-or-negative factor, term) pairs."""
    if isinstance(node, atoms.ADD):
        for arg in node.args:
            yield from _terms(arg, factor)
        return
    if isinstance(node, atoms.NEGATE):
        yield from _terms(node.args[0], -factor)
        return
    if isinstance(node, atoms.MULTIPLY + atoms.MATMUL) and node.size == 1:
        for const_arg, other in ((node.args[0], node.args[1]), (node.args[1], node.args[0])):
            scalar = _scalar_constant(const_arg)
            if scalar is not None and other.size == 1:
                yield from _terms(other, factor * scalar)
                return
    if isinstance(node, atoms.DIVIDE) and node.size == 1:
        scalar = _scalar_constant(node.args[1])
        if scalar is not None and scalar != 0:
            yield from _terms(node.args[0], factor / scalar)
            return
    yield factor, node


def _smoothness(node) -> str | None:
    """The atom table's smoothness of one node: "C2", "C1", "nonsmooth", or None (not established).

    A power is C^2 on all of R exactly when its exponent is an integer >= 2.
    """
    known = atoms.facts(node)
    if known is None:
        return None
    if known.smoothness == "power":
        p = atoms.power_exponent(node)
        return "C2" if p.is_integer() and p >= 2 else None
    return known.smoothness


def analyse_regularizer(expression: cp.Expression, w: cp.Variable) -> RegularizerAnalysis:
    """Apply the calculus to the expression N(w) the verifier built (never a second call of N)."""
    dim = int(w.size)
    if not isinstance(expression, cp.Expression):
        expression = cp.Constant(expression)
    if expression.size != 1:
        raise ValueError(f"the regularizer must return a scalar, got shape {expression.shape}")
    expression = cp.reshape(expression, (), order="F") if expression.shape != () else expression

    convex = bool(expression.is_convex())
    finite = all(not constraint.variables() and constraint.value() for constraint in expression.domain)
    curvature, all_quadratic = _Curvature(dim), True
    nonsmooth, c1_only, unknown = set(), set(), set()
    notes = []
    l1_weight, all_composite = 0.0, True  # N = l1_weight ||w||_1 + group norms + quadratic terms
    groups: list[tuple[tuple[int, ...], float]] = []
    for factor, term in _terms(expression):
        trial = _Curvature(dim)
        try:
            recognised = _quadratic_term(term, w, trial, factor)
        except (_Unsupported, ValueError, IndexError, TypeError) as reason:  # never a claim: 0
            recognised = False
            notes.append(f"term {term} contributes 0 to m: {reason}")
        if recognised:
            curvature.alpha += trial.alpha
            curvature.diagonals += trial.diagonals
            curvature.denses += trial.denses
            if trial.linear is not None:
                curvature.add_linear(trial.linear)
            continue
        all_quadratic = False
        weight = _l1_term(term, w, factor)
        group = None if weight is not None else _group_term(term, w, factor, dim)
        if weight is not None:
            l1_weight += weight
        elif group is not None:
            groups.append(group)
        else:
            all_composite = False
        for node in _nodes(term):
            if isinstance(node, (cp.Variable, cp.Constant, cp.Parameter)):
                continue
            smoothness, name = _smoothness(node), type(node).__name__
            if smoothness == "nonsmooth":
                nonsmooth.add(name)
            elif smoothness == "C1":
                c1_only.add(name)
            elif smoothness is None:
                unknown.add(name)

    m, exact, how = curvature.modulus()
    notes.extend(how)
    quadratic = curvature.quadratic() if all_quadratic else None
    if all_quadratic and quadratic is None:
        notes.append(f"N is quadratic with a dense Hessian at d = {dim} > {DENSE_SOLVER_LIMIT}: "
                     "no Quadratic form for the Newton solver")
    differentiable = False if nonsmooth else (None if unknown else True)
    twice = False if (nonsmooth or c1_only) else (None if unknown else True)
    covered = [index for indices, _ in groups for index in indices]
    if len(covered) != len(set(covered)):
        all_composite = False
        notes.append("the group norms overlap: their proximal map has no closed form, so N is not composite")
    smooth_part = curvature.quadratic() if all_composite and (l1_weight > 0 or groups) else None
    return RegularizerAnalysis(
        l1_weight=float_down(l1_weight) if smooth_part is not None else 0.0,
        smooth_part=smooth_part,
        groups=tuple(groups) if smooth_part is not None else (),
        dim=dim,
        convex=convex,
        finite_everywhere=finite,
        strong_convexity=m,
        strong_convexity_exact=exact,
        differentiable=differentiable,
        twice_differentiable=twice,
        quadratic=quadratic,
        nonsmooth_atoms=tuple(sorted(nonsmooth)),
        c1_only_atoms=tuple(sorted(c1_only)),
        unknown_atoms=tuple(sorted(unknown)),
        notes=tuple(notes),
    )


def _l1_term(term, w: cp.Variable, factor: sp.Expr) -> float | None:
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


def _group_term(term, w: cp.Variable, factor: sp.Expr, dim: int) -> tuple[tuple[int, ...], float] | None:
    """(g, b) of a term b ||w_g||_2 (``norm(w[g], 2)``, ``norm2(w[g])``, ``norm(w, 2)``), g distinct
    coordinates selected with one common coefficient; else None. b is rounded down, as the L1 weight."""
    two_norm = isinstance(term, atoms.PNORMS) and float(getattr(term, "p", 0)) == 2
    single = isinstance(term, atoms.NORM1) and term.args[0].size == 1  # CVXPY writes ||w_i||_2 as |w_i|
    if not (two_norm or single) or len(term.args) != 1:
        return None
    try:
        selection = _affine(term.args[0], w)
    except (_Unsupported, ValueError, IndexError, TypeError):
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


def _nodes(node):
    yield node
    for arg in node.args:
        yield from _nodes(arg)
