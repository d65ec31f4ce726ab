"""A calculus over the CVXPY tree of a regularizer N(w).

Strong convexity: every convex term adds a Hessian lower bound. Quadratic terms
(``sum_squares``, ``quad_form``, ``square`` summed, ``norm(.)**2``, scaled by
positive constants) add their exact constant Hessian; every other convex term
adds 0. The modulus is ``m = lambda_min`` of the sum. When all quadratic
terms act on ``s * w`` the Hessian is a multiple of the identity and ``m`` is
exact (a sympy rational); otherwise it is the smallest eigenvalue computed in
double precision and shaded down by a relative 1e-12.

Differentiability: a term is C^2 when every atom in it is smooth, C^1 when
the only non-smooth atom is ``huber``, and not differentiable when it contains
``abs``, ``max``, a norm (outside ``norm(.)**2``) or similar. Atoms not in the
tables are "not established", never assumed smooth.

When N is quadratic, ``N(w) = 0.5 w^T (alpha I + M) w + g^T w + const``;
the fast solver uses that form directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np
import sympy as sp

from .translate import exact_constant

__all__ = ["Quadratic", "RegularizerAnalysis", "analyse_regularizer"]


@dataclass(frozen=True)
class Quadratic:
    """0.5 w^T (alpha I + matrix) w + linear^T w (constants dropped)."""

    alpha: sp.Expr
    matrix: np.ndarray | None = None
    linear: np.ndarray | None = None

    def __add__(self, other: "Quadratic") -> "Quadratic":
        return Quadratic(
            self.alpha + other.alpha,
            _add(self.matrix, other.matrix),
            _add(self.linear, other.linear),
        )

    def scaled(self, factor: sp.Expr) -> "Quadratic":
        f = float(factor)
        return Quadratic(
            self.alpha * factor,
            None if self.matrix is None else f * self.matrix,
            None if self.linear is None else f * self.linear,
        )

    def smallest_eigenvalue(self) -> tuple[sp.Expr, bool]:
        """(lambda_min of the Hessian, exact?)."""
        if self.matrix is None:
            return sp.nsimplify(self.alpha), True
        eigen = float(np.linalg.eigvalsh(0.5 * (self.matrix + self.matrix.T)).min())
        shade = 1e-12 * (abs(eigen) + np.abs(self.matrix).max())
        return sp.Float(max(float(self.alpha) + eigen - shade, 0.0), 15), False

    def gradient(self, w: np.ndarray) -> np.ndarray:
        out = float(self.alpha) * w
        if self.matrix is not None:
            out = out + self.matrix @ w
        if self.linear is not None:
            out = out + self.linear
        return out

    def value(self, w: np.ndarray) -> float:
        out = 0.5 * float(self.alpha) * float(w @ w)
        if self.matrix is not None:
            out += 0.5 * float(w @ (self.matrix @ w))
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


SMOOTH_ATOMS = frozenset(
    {"exp", "logistic", "log_sum_exp", "quad_over_lin", "QuadForm", "SymbolicQuadForm",
     "entr", "kl_div", "rel_entr", "log", "xexp", "Sum", "AddExpression", "NegExpression",
     "multiply", "MulExpression", "DivExpression", "reshape", "Hstack", "Vstack", "index",
     "Promote", "transpose", "sum_squares", "trace", "diag_vec", "diag_mat"}
)
C1_ONLY_ATOMS = frozenset({"huber"})
NONSMOOTH_ATOMS = frozenset(
    {"abs", "maximum", "minimum", "max", "min", "Pnorm", "PnormApprox", "pnorm", "norm1",
     "norm_inf", "sum_largest", "sum_smallest", "lambda_max", "normNuc", "sigma_max",
     "tv", "cummax", "dotsort"}
)


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


def _is_power(node, p: float) -> bool:
    return type(node).__name__ in {"power", "PowerApprox", "Power"} and float(node.p.value) == p


def _scalar_constant(node) -> sp.Expr | None:
    """The exact value of a constant expression whose entries are all equal, else None."""
    if not node.is_constant() or node.value is None:
        return None
    values = np.asarray(node.value, dtype=float).ravel()
    if values.size == 0 or not np.all(values == values[0]):
        return None
    return exact_constant(values[0])


def _affine_map(node, w: cp.Variable):
    """node = A w + b. Returns (scale or None, A or None, b): A = scale * I when scale is given."""
    if isinstance(node, cp.Variable) and node.id == w.id:
        return sp.Integer(1), None, np.zeros(w.size)
    name = type(node).__name__
    if name == "NegExpression":
        scale, A, b = _affine_map(node.args[0], w)
        return (-scale if scale is not None else None), (None if A is None else -A), -b
    if name == "AddExpression":
        parts = [_affine_map(arg, w) for arg in node.args if not arg.is_constant()]
        offset = sum(
            (np.broadcast_to(np.asarray(arg.value, dtype=float), node.shape).ravel(order="F")
             for arg in node.args if arg.is_constant()),
            np.zeros(node.size),
        )
        b = offset + sum((part[2] for part in parts), np.zeros(node.size))
        if all(part[0] is not None for part in parts):
            return sum((part[0] for part in parts), sp.Integer(0)), None, b
        A = sum(part[1] if part[1] is not None else float(part[0]) * np.eye(w.size) for part in parts)
        return None, A, b
    if name in {"multiply", "MulExpression"}:
        for const_arg, other in ((node.args[0], node.args[1]), (node.args[1], node.args[0])):
            factor = _scalar_constant(const_arg)
            if factor is not None and other.shape == node.shape:
                scale, A, b = _affine_map(other, w)
                if scale is not None:
                    return scale * factor, None, float(factor) * b
                return None, float(factor) * A, float(factor) * b
    if name == "DivExpression":
        factor = _scalar_constant(node.args[1])
        if factor is not None:
            scale, A, b = _affine_map(node.args[0], w)
            if scale is not None:
                return scale / factor, None, b / float(factor)
            return None, A / float(factor), b / float(factor)
    return None, *_numeric_affine_map(node, w)


def _numeric_affine_map(node, w: cp.Variable):
    """A and b of an affine expression by evaluation at 0 and the unit vectors."""
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
    return A, b


def _squared_norm(node, w, weight: sp.Expr) -> Quadratic:
    """weight * ||A w + b||^2 as a Quadratic (Hessian 2 weight A^T A)."""
    scale, A, b = _affine_map(node, w)
    if scale is not None:
        alpha = 2 * weight * scale**2
        linear = float(2 * weight * scale) * b if np.any(b) else None
        return Quadratic(alpha, None, linear)
    f = 2 * float(weight)
    linear = f * (A.T @ b) if np.any(b) else None
    return Quadratic(sp.Integer(0), f * (A.T @ A), linear)


def _quadratic_term(node, w) -> Quadratic | None:
    """The exact Quadratic of a recognised quadratic term, else None."""
    name = type(node).__name__
    if name == "quad_over_lin":
        denominator = _scalar_constant(node.args[1])
        if denominator is not None and denominator > 0 and node.args[0].is_affine():
            return _squared_norm(node.args[0], w, 1 / denominator)
    if name in {"QuadForm", "SymbolicQuadForm"} and isinstance(node.args[1], cp.Constant):
        x, P = node.args
        if x.is_affine():
            P = np.asarray(P.value, dtype=float)
            scale, A, b = _affine_map(x, w)
            if A is None:
                A = float(scale) * np.eye(w.size)
            sym = P + P.T
            linear = A.T @ (sym @ b) if np.any(b) else None
            return Quadratic(sp.Integer(0), A.T @ sym @ A, linear)
    if name == "Sum" and node.axis is None and _is_power(node.args[0], 2.0):
        inner = node.args[0].args[0]
        if inner.is_affine():
            return _squared_norm(inner, w, sp.Integer(1))
    if _is_power(node, 2.0) and node.size == 1:
        inner = node.args[0]
        if inner.is_affine():
            return _squared_norm(inner, w, sp.Integer(1))
        if type(inner).__name__ in {"Pnorm", "PnormApprox", "pnorm"} and float(inner.p) == 2:
            if inner.args[0].is_affine():
                return _squared_norm(inner.args[0], w, sp.Integer(1))
    if node.is_affine():
        scale, A, b = _affine_map(node, w)
        gradient = np.full(w.size, float(scale)) if A is None else A.ravel()
        if node.size == 1:
            return Quadratic(sp.Integer(0), None, gradient if np.any(gradient) else None)
    if node.is_constant():
        return ZERO
    return None


def _terms(node, factor: sp.Expr = sp.Integer(1)):
    """Split a scalar expression into (positive-or-negative factor, term) pairs."""
    name = type(node).__name__
    if name == "AddExpression":
        for arg in node.args:
            yield from _terms(arg, factor)
        return
    if name == "NegExpression":
        yield from _terms(node.args[0], -factor)
        return
    if name in {"multiply", "MulExpression"} and node.size == 1:
        for const_arg, other in ((node.args[0], node.args[1]), (node.args[1], node.args[0])):
            scalar = _scalar_constant(const_arg)
            if scalar is not None and other.size == 1:
                yield from _terms(other, factor * scalar)
                return
    if name == "DivExpression" and node.size == 1:
        scalar = _scalar_constant(node.args[1])
        if scalar is not None and scalar != 0:
            yield from _terms(node.args[0], factor / scalar)
            return
    yield factor, node


def _atom_names_in(node) -> set[str]:
    names = {type(node).__name__}
    for arg in node.args:
        names |= _atom_names_in(arg)
    return names


def analyse_regularizer(regularizer, dim: int) -> RegularizerAnalysis:
    """Apply the calculus to ``regularizer(cp.Variable(dim))``."""
    w = cp.Variable(dim)
    expression = regularizer(w)
    if not isinstance(expression, cp.Expression):
        expression = cp.Constant(expression)
    if expression.size != 1:
        raise ValueError(f"the regularizer must return a scalar, got shape {expression.shape}")
    expression = cp.reshape(expression, (), order="F") if expression.shape != () else expression

    convex = bool(expression.is_convex())
    finite = all(not constraint.variables() and constraint.value() for constraint in expression.domain)
    total, all_quadratic = ZERO, True
    nonsmooth, c1_only, unknown = set(), set(), set()
    for factor, term in _terms(expression):
        quadratic = _quadratic_term(term, w)
        if quadratic is not None:
            total = total + quadratic.scaled(factor)
            continue
        all_quadratic = False
        for name in _atom_names_in(term) - {"Variable", "Constant", "Parameter"}:
            if name in NONSMOOTH_ATOMS:
                nonsmooth.add(name)
            elif name in C1_ONLY_ATOMS:
                c1_only.add(name)
            elif name not in SMOOTH_ATOMS and not _is_smooth_power(term, name):
                unknown.add(name)

    m, exact = total.smallest_eigenvalue()
    differentiable = False if nonsmooth else (None if unknown else True)
    twice = False if (nonsmooth or c1_only) else (None if unknown else True)
    return RegularizerAnalysis(
        dim=dim,
        convex=convex,
        finite_everywhere=finite,
        strong_convexity=m,
        strong_convexity_exact=exact,
        differentiable=differentiable,
        twice_differentiable=twice,
        quadratic=total if all_quadratic else None,
        nonsmooth_atoms=tuple(sorted(nonsmooth)),
        c1_only_atoms=tuple(sorted(c1_only)),
        unknown_atoms=tuple(sorted(unknown)),
    )


def _is_smooth_power(term, name: str) -> bool:
    """power atoms with an integer exponent >= 2 are smooth on all of R."""
    if name not in {"power", "PowerApprox", "Power"}:
        return False
    return all(
        float(node.p.value).is_integer() and float(node.p.value) >= 2
        for node in _nodes(term)
        if type(node).__name__ == name
    )


def _nodes(node):
    yield node
    for arg in node.args:
        yield from _nodes(arg)
