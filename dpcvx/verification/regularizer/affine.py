"""Affine maps ``A w + b`` read off the CVXPY tree of a regularizer, with rigorous error bounds.

A map is tracked structurally: a scaled identity ``s w`` (s exact), a coordinate map
(``multiply(a, w)``, ``w[1:]``, ``w / a``: row r reads one coordinate with coefficient a_r,
together with a bound on the rounding of a_r), or a dense matrix (``A @ w``: the user's matrix;
products carry a Frobenius error bound). A constant counts as a scalar only when it has ONE
entry. Unknown atoms are read off by evaluation at 0 and the unit vectors (small maps only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

import cvxpy as cp
import numpy as np
import scipy.sparse as sparse

from ...rounding import EPS, bound_up, two_product, two_sum
from .. import atoms
from ..atoms import Node
from ..exact import exact_constant

__all__ = ["AffineMap", "Unsupported", "affine_map", "constant_value", "flat", "present", "scalar_constant"]


NUMERIC_LIMIT = 2_000_000   # entries of an affine map read off by evaluation (unknown atoms)
NUMERIC_DIM_LIMIT = 2000    # ... which costs one evaluation per coordinate of w


T = TypeVar("T")


def present(value: T | None, what: str) -> T:
    """``value``, which the structure guarantees (a TypeError names the broken invariant otherwise)."""
    if value is None:
        raise TypeError(f"internal: the {what} is missing")
    return value


class Unsupported(Exception):
    """The calculus does not follow this subexpression (the term then contributes 0)."""


@dataclass
class AffineMap:
    """An affine map w -> A w + b with k = len(b) outputs (column-major order).

    Coordinate form (``A`` None): output r is ``coef_r * w[idx[r]] + b_r``
    (``idx`` None means idx = arange(d); ``idx[r] = -1`` a constant row), with
    coef_r = ``scale`` (an exact Fraction) or ``vec[r]`` (a double within
    ``err[r]`` of the exact coefficient; err None means exact). The indices of
    non-constant rows are distinct. Dense form: ``A`` (k x d) within Frobenius
    distance ``dense_err`` of the exact matrix.
    """

    b: np.ndarray
    idx: np.ndarray | None = None
    scale: Fraction | None = None
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
        return present(self.A, "matrix of a dense map")

    @property
    def factor(self) -> Fraction:
        """The exact scale of a coordinate map without per-row coefficients."""
        return present(self.scale, "scale of a coordinate map")

    def coefficients(self) -> np.ndarray:
        return np.full(self.size, float(self.factor)) if self.vec is None else self.vec

    def coefficient_errors(self) -> np.ndarray:
        """Bounds on |exact - float| of ``coefficients()``."""
        if self.vec is None:
            value = float(self.factor)
            exact = Fraction(value) == self.factor
            return np.full(self.size, 0.0 if exact else bound_up(abs(value) * EPS / 2))
        return np.zeros(self.size) if self.err is None else self.err

    def columns(self, dim: int) -> np.ndarray:
        return np.arange(dim) if self.idx is None else self.idx

    def to_dense(self, dim: int) -> AffineMap:
        if not self.coordinate:
            return self
        if self.size * dim > NUMERIC_LIMIT:
            raise Unsupported(f"a {self.size} x {dim} dense map")
        A = np.zeros((self.size, dim))
        rows = np.arange(self.size)
        cols = self.columns(dim)
        live = cols >= 0
        A[rows[live], cols[live]] = self.coefficients()[live]
        error = float(np.linalg.norm(self.coefficient_errors()[live]))
        return AffineMap(self.b, A=A, dense_err=bound_up(error))


def constant_value(node: Node) -> np.ndarray:
    value: Any = node.value  # a dense or a scipy.sparse array
    if value is None:
        raise Unsupported("a constant without a value (a Parameter?)")
    if sparse.issparse(value):
        value = value.toarray()
    return np.asarray(value, dtype=float)


def scalar_constant(node: Node) -> Fraction | None:
    """The exact value of a constant with exactly ONE entry, else None.

    A constant whose entries merely coincide (``c * np.ones((d, d))``) is not
    a scalar: as a matrix factor it is rank one, not ``c I``.
    """
    if not node.is_constant() or node.size != 1:
        return None
    try:
        return exact_constant(constant_value(node).ravel()[0])
    except Unsupported:
        return None


def flat(value: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return np.broadcast_to(value, shape).ravel(order="F")


def _scale_map(m: AffineMap, factor: Fraction) -> AffineMap:
    f = float(factor)
    b = f * m.b
    if not m.coordinate:
        error = m.dense_err * abs(f) + EPS * float(np.linalg.norm(m.matrix)) * abs(f)
        return AffineMap(b, A=f * m.matrix, dense_err=bound_up(error))
    if m.vec is None:
        return AffineMap(b, idx=m.idx, scale=m.factor * factor)
    exact_f = Fraction(f) == factor
    return _multiply_coordinates(m, np.full(m.size, f), b, 0.0 if exact_f else EPS)


def _multiply_coordinates(m: AffineMap, factors: np.ndarray, b: np.ndarray, factor_rel_err: float = 0.0) -> AffineMap:
    """Coordinate map with coefficients factors * coef (factors within relative factor_rel_err)."""
    coef = m.coefficients()
    product, rounding = two_product(factors, coef)
    err = (np.abs(factors) * m.coefficient_errors() + np.abs(rounding)
           + factor_rel_err * np.abs(factors * coef))
    err = bound_up(err) if np.any(err) else None
    return AffineMap(b, idx=m.idx, vec=product, err=err)


def affine_map(node: Node, w: cp.Variable) -> AffineMap:
    """The affine map of ``node`` (an affine expression of w), structurally where possible."""
    dim = w.size
    if isinstance(node, cp.Variable):
        if node.id != w.id:
            raise Unsupported("a second variable")
        return AffineMap(np.zeros(dim), scale=Fraction(1))
    if node.is_constant():
        return AffineMap(flat(constant_value(node), node.shape), idx=np.full(node.size, -1),
                    scale=Fraction(1))
    if isinstance(node, atoms.NEGATE):
        return _scale_map(affine_map(node.args[0], w), Fraction(-1))
    if isinstance(node, atoms.ADD):
        return _add_maps(node, w)
    if isinstance(node, atoms.MULTIPLY):
        for const_arg, other in ((node.args[0], node.args[1]), (node.args[1], node.args[0])):
            if not const_arg.is_constant():
                continue
            factor = scalar_constant(const_arg)
            if factor is not None:
                inner = affine_map(other, w)
                if other.shape == node.shape:
                    return _scale_map(inner, factor)
            elif const_arg.shape == other.shape == node.shape:
                values = flat(constant_value(const_arg), node.shape)
                inner = affine_map(other, w)
                if inner.coordinate:
                    return _multiply_coordinates(inner, values, values * inner.b)
                A = values[:, None] * inner.A
                error = (float(np.abs(values).max(initial=0)) * inner.dense_err
                         + EPS * float(np.linalg.norm(A)))
                return AffineMap(values * inner.b, A=A, dense_err=bound_up(error))
    if isinstance(node, atoms.MATMUL):
        left, right = node.args
        for const_arg, other in ((left, right), (right, left)):
            factor = scalar_constant(const_arg)   # a 1 x 1 matrix: a scalar indeed
            if factor is not None and not other.is_constant() and other.shape == node.shape:
                return _scale_map(affine_map(other, w), factor)
        if left.is_constant() and not right.is_constant() and len(right.shape) <= 1:
            return _matmul(constant_value(left), affine_map(right, w), dim, node.size)
        if right.is_constant() and not left.is_constant() and len(left.shape) <= 1:
            return _matmul(constant_value(right).T, affine_map(left, w), dim, node.size)
    if isinstance(node, atoms.DIVIDE) and node.args[1].is_constant():
        factor = scalar_constant(node.args[1])
        if factor is not None and factor != 0:
            if node.args[0].shape == node.shape:
                return _scale_map(affine_map(node.args[0], w), 1 / factor)
        elif node.args[1].shape == node.args[0].shape == node.shape:
            divisors = flat(constant_value(node.args[1]), node.shape)
            inner = affine_map(node.args[0], w)
            if inner.coordinate and np.all(divisors != 0):
                coef = inner.coefficients()
                quotient = coef / divisors
                product, rounding = two_product(quotient, divisors)
                # |quotient - coef/div| = |quotient*div - coef| / |div| (exact: via TwoProduct)
                residual = np.abs((product - coef) + rounding) / np.abs(divisors)
                err = bound_up(inner.coefficient_errors() / np.abs(divisors) + residual
                          + EPS * np.abs(quotient))
                exact = (inner.err is None and not np.any((product - coef) + rounding)
                         and inner.vec is not None)
                return AffineMap(inner.b / divisors, idx=inner.idx, vec=quotient,
                            err=None if exact else err)
    if isinstance(node, atoms.INDEX) and len(node.args[0].shape) <= 1:
        inner = affine_map(node.args[0], w)
        selection = np.arange(inner.size).reshape(node.args[0].shape, order="F")[_numpy_key(node.key)]
        selection = np.asarray(selection).ravel(order="F")
        if selection.size != node.size:
            raise Unsupported(f"an index key {node.key} the calculus does not follow")
        if inner.coordinate:
            cols = inner.columns(dim)[selection]
            live = cols[cols >= 0]
            if live.size != np.unique(live).size:
                return _numeric_affine_map(node, w)
            return AffineMap(inner.b[selection], idx=cols, scale=inner.scale,
                        vec=None if inner.vec is None else inner.vec[selection],
                        err=None if inner.err is None else inner.err[selection])
        return AffineMap(inner.b[selection], A=inner.matrix[selection], dense_err=inner.dense_err)
    if isinstance(node, atoms.SUM) and node.axis is None:
        inner = affine_map(node.args[0], w)
        if inner.coordinate:
            row = np.zeros(dim)
            cols = inner.columns(dim)
            live = cols >= 0
            row[cols[live]] = inner.coefficients()[live]  # distinct indices: no accumulation
            error = float(np.linalg.norm(inner.coefficient_errors()[live]))
            return AffineMap(np.array([math.fsum(inner.b)]), A=row[None, :], dense_err=bound_up(error))
        A = inner.matrix.sum(axis=0, keepdims=True)
        error = inner.dense_err * math.sqrt(inner.size) + inner.size * EPS * float(np.abs(inner.matrix).sum())
        return AffineMap(np.array([math.fsum(inner.b)]), A=A, dense_err=bound_up(error))
    return _numeric_affine_map(node, w)


def _numpy_key(key: Any) -> tuple[Any, ...]:  # CVXPY's index key: a slice, an int, an array or a tuple
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


def _matmul(C: np.ndarray, inner: AffineMap, dim: int, out_size: int) -> AffineMap:
    """C @ (inner map), C the user's constant matrix (k x size)."""
    C = np.atleast_2d(C) if C.ndim else C.reshape(1, 1)
    if C.ndim != 2 or C.shape[1] != inner.size or C.shape[0] != out_size:
        raise Unsupported("a matrix product of unexpected shape")
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
        return AffineMap(C @ inner.b, A=A, dense_err=bound_up(error))
    A = C @ inner.matrix
    norm_C = float(np.linalg.norm(C))
    error = (norm_C * inner.dense_err
             + (inner.size + 2) * EPS * norm_C * float(np.linalg.norm(inner.matrix)))
    return AffineMap(C @ inner.b, A=A, dense_err=bound_up(error))


def _add_maps(node: Node, w: cp.Variable) -> AffineMap:
    dim = w.size
    shape = node.shape
    offset = np.zeros(node.size)
    parts = []
    for arg in node.args:
        if arg.is_constant():
            offset = offset + flat(constant_value(arg), shape)
        elif arg.shape != shape:
            return _numeric_affine_map(node, w)
        else:
            parts.append(affine_map(arg, w))
    if not parts:
        raise Unsupported("a constant sum")
    b = offset + sum(part.b for part in parts)
    first = parts[0]
    same_rows = all(part.coordinate for part in parts) and all(
        (part.idx is None and first.idx is None)
        or (part.idx is not None and first.idx is not None and np.array_equal(part.idx, first.idx))
        for part in parts)
    if same_rows and all(part.vec is None for part in parts):
        return AffineMap(b, idx=first.idx, scale=sum((part.factor for part in parts), Fraction(0)))
    if same_rows:
        total = parts[0].coefficients()
        err = parts[0].coefficient_errors()
        for part in parts[1:]:
            total, rounding = two_sum(total, part.coefficients())
            err = err + part.coefficient_errors() + np.abs(rounding)
        return AffineMap(b, idx=first.idx, vec=total, err=bound_up(err) if np.any(err) else None)
    dense = [part.to_dense(dim) for part in parts]
    A = dense[0].matrix
    for part in dense[1:]:
        A = A + part.matrix
    error = sum(part.dense_err for part in dense) + len(dense) * EPS * sum(
        float(np.linalg.norm(part.matrix)) for part in dense)
    return AffineMap(b, A=A, dense_err=bound_up(error))


def _numeric_affine_map(node: Node, w: cp.Variable) -> AffineMap:
    """A and b of an affine expression by evaluation at 0 and the unit vectors (small maps only)."""
    if w.size > NUMERIC_DIM_LIMIT or w.size * node.size > NUMERIC_LIMIT:
        raise Unsupported(f"no structural rule for {type(node).__name__} at this size")
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
    return AffineMap(b, A=A, dense_err=bound_up(error))
