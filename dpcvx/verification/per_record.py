"""The verified loss, instantiated per record: one expression, never a second call of the callable.

The verifier calls the user's loss once, on a scalar ``cp.Variable`` z, and
proves the privacy conditions for that scalar expression l(z). The solver
needs sum_i l(z_i) over the margins z_i = y_i w^T x_i. Calling the callable
again on a vector would let it build a different function (a reduction such
as ``cp.sum`` or ``cp.max`` over its argument, a mean, or a stateful callable
returning something else on the second call), which would then be solved
under a certificate proved for the first. Instead, :func:`per_record` rebuilds
the verified scalar tree with z replaced by the vector of margins, record by
record: each node of the scalar tree (a scalar or a small array built from z
by ``hstack``, ``vstack`` and indexing) becomes a list of length-n expressions,
one per entry of the node in column-major order. Elementwise atoms apply to
each entry; reductions (``sum``, ``max``, ``min``, norms, ``log_sum_exp``,
``quad_over_lin``) combine the entries of ONE record, so the result is the
separable sum of exactly the function that was verified.

A node this module has no per-record rule for raises :class:`NotSeparable`;
the verifier reports it in the certificate (condition "separable").
:func:`substitute` rebuilds any tree with one variable replaced, for the
regularizer (whose verified expression is then solved as it was analysed).
"""

from __future__ import annotations

import math
from typing import Any

import cvxpy as cp
import numpy as np

from . import atoms
from .atoms import Node

__all__ = ["NotSeparable", "per_record", "check_separable", "substitute"]

Entries = list[cp.Expression]  # list of cp.Expression (shape (n,) or scalar), column-major over the node's shape


class NotSeparable(Exception):
    """The loss contains a node with no per-record meaning."""


def _stack(entries: Entries) -> cp.Expression:
    """The entries of one record as rows of a (k, n) expression (scalars broadcast to n)."""
    n = max(entry.size for entry in entries)
    return cp.vstack([entry if entry.size == n else entry * np.ones(n) for entry in entries])


def _reduce(node: Any, entries: Entries) -> cp.Expression:
    """A reduction atom (``reduction`` in the atom table) over the entries of one record."""
    if getattr(node, "axis", None) is not None:
        raise NotSeparable(f"{type(node).__name__} with an axis inside the loss")
    if isinstance(node, atoms.SUM):
        return sum(entries[1:], entries[0])
    if isinstance(node, atoms.MAX):
        return entries[0] if len(entries) == 1 else cp.maximum(*entries)
    if isinstance(node, atoms.MIN):
        return entries[0] if len(entries) == 1 else cp.minimum(*entries)
    if isinstance(node, atoms.LOG_SUM_EXP):
        return cp.log_sum_exp(_stack(entries), axis=0)
    if isinstance(node, atoms.NORMS):
        p = atoms.norm_order(node)
        if p == 1:
            return sum((cp.abs(entry) for entry in entries[1:]), cp.abs(entries[0]))
        if len(entries) == 1 and p in (2, math.inf):
            return cp.abs(entries[0])
        if p == 2:
            return cp.norm(_stack(entries), 2, axis=0)
        if p == math.inf:
            return cp.maximum(*[cp.abs(entry) for entry in entries])
        raise NotSeparable(f"a {p}-norm inside the loss")
    raise NotSeparable(f"the atom {type(node).__name__}, which has no per-record rule")


def _shape(node: Node) -> tuple[int, ...]:
    return tuple(node.shape)


def _layout(node: Node) -> np.ndarray:
    """Entry indices of a node in its own shape (column-major), for stacking and indexing."""
    return np.arange(max(node.size, 1)).reshape(_shape(node) or (), order="F")


def _broadcast(lists: list[Entries], size: int) -> list[Entries]:
    out = []
    for entries in lists:
        if len(entries) == size:
            out.append(entries)
        elif len(entries) == 1:
            out.append(entries * size)
        else:
            raise NotSeparable(f"operands of sizes {[len(e) for e in lists]} inside the loss")
    return out


def _constant_entries(node: Node) -> Entries:
    value = node.value
    array = np.asarray(value.toarray() if hasattr(value, "toarray") else value, dtype=float)
    return [cp.Constant(float(v)) for v in array.ravel(order="F")]


def _has_variable(node: Node) -> bool:
    return bool(node.variables())


def _entries(node: Node, variable: cp.Variable, margins: cp.Expression) -> Entries:
    if isinstance(node, cp.Variable):
        if node.id != variable.id:
            raise NotSeparable(f"the variable {node.name()} other than z")
        return [margins]
    if isinstance(node, cp.Constant):
        return _constant_entries(node)
    if not _has_variable(node):  # a constant subexpression: its value, frozen as verified
        return _constant_entries(node)
    children = [_entries(arg, variable, margins) for arg in node.args]
    return _combine(node, children)


def _combine(node: Node, children: list[Entries]) -> Entries:
    if isinstance(node, atoms.ADD):
        size = max(len(c) for c in children)
        columns = _broadcast(children, size)
        return [sum(parts[1:], parts[0]) for parts in zip(*columns, strict=True)]
    if isinstance(node, atoms.NEGATE):
        return [-entry for entry in children[0]]
    if isinstance(node, atoms.MULTIPLY + atoms.MATMUL):
        left, right = node.args
        if isinstance(node, atoms.MATMUL) and left.size > 1 and right.size > 1:
            raise NotSeparable("a matrix product inside the loss")
        if _has_variable(left) and _has_variable(right):
            raise NotSeparable("a product of two terms that both depend on z")
        size = max(len(c) for c in children)
        a, b = _broadcast(children, size)
        return [cp.multiply(x, y) for x, y in zip(a, b, strict=True)]
    if isinstance(node, atoms.DIVIDE):
        if _has_variable(node.args[1]):
            raise NotSeparable("a division by an expression of z")
        size = max(len(c) for c in children)
        a, b = _broadcast(children, size)
        return [x / y for x, y in zip(a, b, strict=True)]
    if isinstance(node, atoms.ELEMENTWISE):
        size = max(len(c) for c in children)
        columns = _broadcast(children, size)
        return [node.copy(args=list(parts)) for parts in zip(*columns, strict=True)]
    if isinstance(node, atoms.HSTACK + atoms.VSTACK):
        flat = [entry for child in children for entry in child]
        offsets = np.cumsum([0] + [len(c) for c in children])
        blocks = [_layout(arg) + offset for arg, offset in zip(node.args, offsets[:-1], strict=True)]
        blocks = [b.reshape(-1) if b.ndim == 0 else b for b in blocks]
        stacked = np.hstack(blocks) if isinstance(node, atoms.HSTACK) else np.vstack(blocks)
        return [flat[i] for i in stacked.ravel(order="F")]
    if isinstance(node, atoms.INDEX):
        order = _layout(node.args[0])[node.key]
        return [children[0][i] for i in np.atleast_1d(order).ravel(order="F")]
    if isinstance(node, atoms.TRANSPOSE):
        return [children[0][i] for i in _layout(node.args[0]).T.ravel(order="F")]
    if isinstance(node, atoms.RESHAPE):
        return children[0]
    if isinstance(node, atoms.PROMOTE):
        return children[0] * max(node.size, 1)
    if isinstance(node, atoms.QUAD_OVER_LIN):
        if _has_variable(node.args[1]):
            raise NotSeparable("quad_over_lin with a denominator that depends on z")
        numerator, (denominator,) = children
        squares = [cp.square(entry) for entry in numerator]
        return [sum(squares[1:], squares[0]) / denominator]
    known = atoms.facts(node)
    if known is None or not known.reduction:
        raise NotSeparable(f"the atom {type(node).__name__}, which has no per-record rule")
    return [_reduce(node, children[0])]


def per_record(expression: cp.Expression, variable: cp.Variable, margins: cp.Expression) -> cp.Expression:
    """The verified scalar loss l(z) applied to every margin: a vector of shape (n,).

    Raises :class:`NotSeparable` for a node without a per-record rule.
    """
    entries = _entries(expression, variable, margins)
    if len(entries) != 1:
        raise NotSeparable(f"the loss has {len(entries)} entries, not one scalar per record")
    (value,) = entries
    if value.size == 1 and margins.size != 1:  # a loss constant in z
        value = value * np.ones(margins.shape)
    return value


def check_separable(expression: cp.Expression, variable: cp.Variable) -> None:
    """Raise :class:`NotSeparable` unless :func:`per_record` can instantiate the loss."""
    per_record(expression, variable, cp.Variable(2))


def substitute(expression: cp.Expression, variable: cp.Variable, replacement: cp.Expression) -> cp.Expression:
    """The same expression tree with ``variable`` replaced (atoms copied with their data)."""
    if isinstance(expression, cp.Variable):
        return replacement if expression.id == variable.id else expression
    node: Any = expression  # an atom: its arguments and copy() are not in Expression's stubs
    if not node.args:
        return expression
    return node.copy(args=[substitute(arg, variable, replacement) for arg in node.args])
