"""The terms of N: its split into scaled terms, the quadratic ones, and each atom's smoothness.

Differentiability: a term is C^2 when every atom in it is smooth, C^1 when the only non-smooth
atom is ``huber``, and not differentiable when it contains ``abs``, ``max``, a norm (outside
``norm(.)**2``) or similar. Atoms not in the table (:mod:`dpcvx.verification.atoms`) are "not
established", never assumed smooth.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import cvxpy as cp
import numpy as np
import scipy.sparse as sparse

from .. import atoms
from ..atoms import Node
from .affine import Unsupported, affine_map, constant_value, flat, scalar_constant
from .curvature import DENSE_SOLVER_LIMIT, Curvature, DiagonalMatrix

__all__ = ["atom_smoothness", "quadratic_term", "split_terms"]


def _is_power(node: Node, p: int) -> bool:
    return isinstance(node, atoms.POWER) and atoms.power_exponent(node) == p


def _weighted_squares(node: Node) -> tuple[Node, np.ndarray | None, Fraction] | None:
    """(inner affine x, weight array or None, exact scalar factor) for sum(a * square(x)) forms."""
    if isinstance(node, atoms.SUM) and node.axis is None:
        inner = node.args[0]
        if _is_power(inner, 2):
            return inner.args[0], None, Fraction(1)
        if isinstance(inner, atoms.MULTIPLY):
            for const_arg, other in ((inner.args[0], inner.args[1]), (inner.args[1], inner.args[0])):
                if const_arg.is_constant() and _is_power(other, 2):
                    factor = scalar_constant(const_arg)
                    if factor is not None and other.shape == inner.shape:
                        return other.args[0], None, factor
                    if const_arg.shape == other.shape == inner.shape:
                        return other.args[0], flat(constant_value(const_arg), other.shape), Fraction(1)
    if isinstance(node, atoms.MATMUL) and node.size == 1:
        left, right = node.args
        for const_arg, other in ((left, right), (right, left)):
            if const_arg.is_constant() and _is_power(other, 2) and len(other.shape) == 1 \
                    and const_arg.size == other.size:
                return other.args[0], constant_value(const_arg).ravel(), Fraction(1)
    return None


def _quad_form_matrix(P: Node) -> np.ndarray:
    """P of quad_form: a dense array, or (a sparse diagonal P at any size) its diagonal, marked."""
    value = P.value
    if value is None:
        raise Unsupported("a quad_form matrix without a value")
    if sparse.issparse(value):
        value = sparse.csr_array(value)
        diagonal = np.asarray(value.diagonal(), dtype=float)
        if (value - sparse.diags_array(diagonal)).count_nonzero() == 0:
            return diagonal.view(DiagonalMatrix)
        if value.shape[0] > DENSE_SOLVER_LIMIT:
            raise Unsupported(f"a sparse non-diagonal quad_form matrix of size {value.shape[0]}")
        value = value.toarray()
    return np.asarray(value, dtype=float)


def quadratic_term(node: Node, w: cp.Variable, curvature: Curvature, factor: Fraction) -> bool:
    """Add ``factor * node`` to ``curvature`` if it is a recognised quadratic (or affine) term."""
    if isinstance(node, atoms.QUAD_OVER_LIN):
        denominator = scalar_constant(node.args[1])
        if denominator is not None and denominator > 0 and node.args[0].is_affine():
            curvature.add_squares(affine_map(node.args[0], w), factor / denominator, None)
            return True
    if isinstance(node, atoms.QUAD_FORMS) and node.args[1].is_constant():  # Constant, psd_wrap
        x, P = node.args
        if x.is_affine():
            curvature.add_quad_form(affine_map(x, w), _quad_form_matrix(P), factor)
            return True
    weighted = _weighted_squares(node)
    if weighted is not None and weighted[0].is_affine():
        inner, weight, scalar = weighted
        curvature.add_squares(affine_map(inner, w), factor * scalar, weight)
        return True
    if _is_power(node, 2) and node.size == 1:
        inner = node.args[0]
        if inner.is_affine():
            curvature.add_squares(affine_map(inner, w), factor, None)
            return True
        if isinstance(inner, atoms.NORMS) and atoms.norm_order(inner) == 2 and inner.args[0].is_affine():
            curvature.add_squares(affine_map(inner.args[0], w), factor, None)
            return True
    if node.is_affine() and node.size == 1:
        if node.is_constant():
            return True
        m = affine_map(node, w).to_dense(w.size)
        curvature.add_linear(float(factor) * m.matrix.ravel())
        return True
    return bool(node.is_constant())


def split_terms(node: Node, factor: Fraction = Fraction(1)) -> Iterator[tuple[Fraction, Node]]:
    """Split a scalar expression into (positive-or-negative factor, term) pairs."""
    if isinstance(node, atoms.ADD):
        for arg in node.args:
            yield from split_terms(arg, factor)
        return
    if isinstance(node, atoms.NEGATE):
        yield from split_terms(node.args[0], -factor)
        return
    if isinstance(node, atoms.MULTIPLY + atoms.MATMUL) and node.size == 1:
        for const_arg, other in ((node.args[0], node.args[1]), (node.args[1], node.args[0])):
            scalar = scalar_constant(const_arg)
            if scalar is not None and other.size == 1:
                yield from split_terms(other, factor * scalar)
                return
    if isinstance(node, atoms.DIVIDE) and node.size == 1:
        scalar = scalar_constant(node.args[1])
        if scalar is not None and scalar != 0:
            yield from split_terms(node.args[0], factor / scalar)
            return
    yield factor, node


def atom_smoothness(node: Node) -> str | None:
    """The atom table's smoothness of one node: "C2", "C1", "nonsmooth", or None (not established).

    A power is C^2 on all of R exactly when its exponent is an integer >= 2.
    """
    known = atoms.facts(node)
    if known is None:
        return None
    if known.smoothness == "power":
        p = atoms.power_exponent(node)
        return "C2" if p.denominator == 1 and p >= 2 else None
    return known.smoothness
