"""analyse_regularizer: what the calculus establishes for N(w) at one dimension.

N is split into terms (:mod:`.terms`); every recognised quadratic term contributes its constant
Hessian to the curvature (:mod:`.curvature`), every other term whose product with its factor is
convex by CVXPY's DCP rules contributes 0 (its Hessian is PSD). The modulus is a proved lower bound
of lambda_min of the sum; when another term is not proved convex (-0.1 * huber(w, 1), which takes
0.2 off the Hessian of 0.5 ||w||^2) m is not established (``nonconvex_terms``). When N is quadratic, its
numeric form (:class:`.quadratic.Quadratic`) is returned for the Newton solver; when N is
a ||w||_1 + group norms + quadratic (:mod:`.norms`), the weights and the smooth part for the
proximal solver.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..condition import number_text
from ..exact import float_down
from .quadratic import Quadratic

if TYPE_CHECKING:  # pragma: no cover - the calculus imports CVXPY when it runs (the default N needs none)
    import cvxpy as cp

__all__ = ["RegularizerAnalysis", "analyse_regularizer"]


@dataclass(frozen=True)
class RegularizerAnalysis:
    """What the calculus established for N at dimension ``dim``. The atoms are named as a user writes them
    (:func:`~dpcvx.verification.atoms.spelling`); ``restricting`` are the domain constraints of N's atoms (x >= 0 of
    a log, an inv_pos, a fractional power) that do not hold for every w: N is finite everywhere when it is empty."""

    dim: int
    convex: bool
    finite_everywhere: bool
    strong_convexity: Fraction
    strong_convexity_exact: bool
    differentiable: bool | None
    twice_differentiable: bool | None
    quadratic: Quadratic | None
    nonsmooth_atoms: tuple[str, ...] = ()
    c1_only_atoms: tuple[str, ...] = ()
    unknown_atoms: tuple[str, ...] = ()
    concave: bool = False
    restricting: tuple[str, ...] = ()  # the domain constraints of its atoms not proved to hold for every w
    notes: tuple[str, ...] = field(default=())
    #: the terms (each with its factor, as split by :func:`.terms.split_terms`) the calculus did not read as
    #: quadratic and whose product with their factor CVXPY's DCP rules do not prove convex: any one may lower the
    #: Hessian below the quadratic terms' (-0.1 * huber(w, 1) takes 0.2 off it), so m is not established
    #: (``strong_convexity`` is then 0, not a bound)
    nonconvex_terms: tuple[str, ...] = ()
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


def analyse_regularizer(expression: cp.Expression, w: cp.Variable) -> RegularizerAnalysis:
    """Apply the calculus to the expression N(w) the verifier built (never a second call of N)."""
    import cvxpy as cp

    from ..atoms import spelling
    from .affine import Unsupported
    from .curvature import DENSE_SOLVER_LIMIT, Curvature
    from .norms import group_term, l1_term
    from .terms import atom_smoothness, quadratic_term, split_terms

    dim = int(w.size)
    if not isinstance(expression, cp.Expression):
        expression = cp.Constant(expression)
    if expression.size != 1:
        raise ValueError(f"the regularizer must return a scalar, got shape {expression.shape}")
    expression = cp.reshape(expression, (), order="F") if expression.shape != () else expression

    convex = bool(expression.is_convex())
    restricting = tuple(str(constraint) for constraint in expression.domain if not _holds_everywhere(constraint))
    curvature, all_quadratic = Curvature(dim), True
    nonsmooth, c1_only, unknown = set(), set(), set()
    notes = []
    l1_weight, all_composite = 0.0, True  # N = l1_weight ||w||_1 + group norms + quadratic terms
    groups: list[tuple[tuple[int, ...], float]] = []
    nonconvex_terms: list[str] = []
    for factor, term in split_terms(expression):
        trial = Curvature(dim)
        try:
            recognised = quadratic_term(term, w, trial, factor)
        except (Unsupported, ValueError, IndexError, TypeError) as reason:  # never a claim: 0
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
        if not _convex_term(factor, term):
            nonconvex_terms.append(f"{number_text(factor)} * {term}")
        weight = l1_term(term, w, factor)
        group = None if weight is not None else group_term(term, w, factor, dim)
        if weight is not None:
            l1_weight += weight
        elif group is not None:
            groups.append(group)
        else:
            all_composite = False
        for node in _nodes(term):
            if isinstance(node, (cp.Variable, cp.Constant, cp.Parameter)):
                continue
            smoothness, name = atom_smoothness(node), spelling(node)
            if smoothness == "nonsmooth":
                nonsmooth.add(name)
            elif smoothness == "C1":
                c1_only.add(name)
            elif smoothness is None:
                unknown.add(name)

    m, exact, how = curvature.modulus()
    notes.extend(how)
    if nonconvex_terms:  # the quadratic terms' m is a bound of N's only when every other term is convex
        m, exact = Fraction(0), False
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
        finite_everywhere=not restricting,
        strong_convexity=m,
        strong_convexity_exact=exact,
        differentiable=differentiable,
        twice_differentiable=twice,
        quadratic=quadratic,
        nonsmooth_atoms=tuple(sorted(nonsmooth)),
        c1_only_atoms=tuple(sorted(c1_only)),
        unknown_atoms=tuple(sorted(unknown)),
        notes=tuple(notes),
        nonconvex_terms=tuple(nonconvex_terms),
        concave=not convex and bool(expression.is_concave()),  # asked only then: it may test a matrix
        restricting=restricting,
    )


def _convex_term(factor: Fraction, term: Any) -> bool:
    """Whether ``factor * term`` is convex by CVXPY's DCP rules (term convex for factor > 0, concave for factor < 0;
    a zero factor adds nothing). Such a term has a positive semidefinite Hessian wherever it has one, so it adds
    >= 0 to m; any other may lower it."""
    if factor == 0:
        return True
    return bool(term.is_convex() if factor > 0 else term.is_concave())


def _holds_everywhere(constraint: Any) -> bool:
    """Whether a domain constraint of N's atoms holds for every w: a constant one that holds, or an inequality
    whose expression CVXPY's sign rules prove non-positive (norm(w) >= 0, the domain of cp.power(cp.norm(w), 3),
    which was read as restricting w)."""
    import cvxpy as cp

    if not constraint.variables():
        return bool(constraint.value())
    return isinstance(constraint, cp.constraints.Inequality) and bool(constraint.expr.is_nonpos())


def _nodes(node: Any) -> Iterator[Any]:  # the nodes of a CVXPY tree
    yield node
    for arg in node.args:
        yield from _nodes(arg)
