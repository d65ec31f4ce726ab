"""verify(): establish the conditions of the privacy theorems for a declared problem.

The loss ``l`` is a callable taking a scalar ``cp.Variable`` (the margin
``z = y w^T x``) and returning a scalar CVXPY expression; the regularizer ``N``
takes a vector ``cp.Variable`` and returns a scalar expression. For each
condition the symbolic route (:mod:`dpcvx.translate`, :mod:`dpcvx.symbolic`,
:mod:`dpcvx.regularizer`) is tried first; the numeric route
(:mod:`dpcvx.numeric`) is used only for the conditions sympy could not settle,
and is marked "numeric" in the certificate.

Results are cached by the structure of the expression tree (atoms, constants,
shapes), so two lambdas that build the same expression share one analysis.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import cvxpy as cp
import numpy as np
import sympy as sp

from . import numeric
from .certificate import PIECEWISE_NOTE, Certificate, Condition
from .per_record import NotSeparable, check_separable
from .exceptions import InputError
from .validation import check_flag
from .problem import VerifiedProblem
from .regularizer import RegularizerAnalysis, analyse_regularizer
from .symbolic import RealFunction, SymbolicFailure, time_limit
from .translate import UnsupportedAtom, elementary, lambdify, to_sympy

__all__ = [
    "verify",
    "verify_loss",
    "verify_regularizer",
    "default_regularizer",
    "LossDerivatives",
    "VerifiedLoss",
    "VerifiedRegularizer",
    "verify_problem",
]

SYMBOL = sp.Symbol("z", real=True)
PROBE_DIM = 3
SYMBOLIC_SECONDS = 20.0

Loss = Callable[[cp.Variable], cp.Expression]
Regularizer = Callable[[cp.Variable], cp.Expression]


def _readable(expression: cp.Expression) -> str:
    """CVXPY's text of an expression, with its internal forms written as a user writes them."""
    text = re.sub(r"quad_over_lin\((.+?), 1\.0, None, False\)", r"sum_squares(\1)", str(expression))
    text = re.sub(r"PowerApprox\((.+?), 2\.0\)", r"square(\1)", text)
    text = re.sub(r"reshape\(([^(),]+|[^(),]*\([^()]*\)[^(),]*), \(1,\), F\)", r"\1", text)
    text = re.sub(r"log_sum_exp\(Hstack\((.+?)\), None, False\)", r"log_sum_exp(hstack([\1]))", text)
    return re.sub(r"(Pnorm|PnormApprox)\(Hstack\((.+?)\), 2\)", r"norm(hstack([\2]))", text)


def default_regularizer(w: cp.Variable) -> cp.Expression:
    """N(w) = 0.5 ||w||^2, 1-strongly convex."""
    return 0.5 * cp.sum_squares(w)


@dataclass(frozen=True)
class LossDerivatives:
    """Vectorised l, l', l'' (numpy), from the verified sympy form."""

    value: Callable[[np.ndarray], np.ndarray]
    first: Callable[[np.ndarray], np.ndarray]
    second: Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class VerifiedLoss:
    """The loss as verified: the one expression l(z) of the scalar ``variable`` the proofs cover."""

    text: str
    conditions: tuple[Condition, ...]
    dcp_convex: bool
    derivatives: LossDerivatives | None
    expression: cp.Expression | None = None
    variable: cp.Variable | None = None


@dataclass(frozen=True)
class VerifiedRegularizer:
    """The regularizer as verified: the one expression N(w) of ``variable`` at one dimension."""

    text: str
    conditions: tuple[Condition, ...]
    analysis: RegularizerAnalysis | None
    expression: cp.Expression | None = None
    variable: cp.Variable | None = None


# --- structural keys ------------------------------------------------------------


def _structural_key(node) -> tuple:
    if isinstance(node, cp.Variable):
        return ("variable", node.shape)
    if isinstance(node, (cp.Constant, cp.Parameter)):
        value = node.value
        if value is None:
            return ("parameter", node.id)
        array = np.asarray(value.toarray() if hasattr(value, "toarray") else value, dtype=float)
        return ("constant", node.shape, array.tobytes())
    data = []
    for item in node.get_data() or ():
        if isinstance(item, cp.Expression):
            data.append(_structural_key(item))
        else:
            data.append(repr(item))
    return (
        f"{type(node).__module__}.{type(node).__qualname__}",
        node.shape,
        tuple(data),
        tuple(_structural_key(arg) for arg in node.args),
    )


_LOSS_CACHE: dict[tuple, VerifiedLoss] = {}
_REGULARIZER_CACHE: dict[tuple, VerifiedRegularizer] = {}


# --- loss ---------------------------------------------------------------------------


def _declared_loss(loss: Loss) -> tuple[cp.Variable, cp.Expression]:
    """Call the loss on a scalar variable and check what comes back."""
    variable = cp.Variable(name="z")
    if not callable(loss):
        raise TypeError(f"loss must be a callable z -> CVXPY expression, got {type(loss).__name__}")
    expression = loss(variable)
    if not isinstance(expression, cp.Expression):
        raise TypeError(f"loss(z) returned {type(expression).__name__}, not a CVXPY expression")
    if expression.size != 1:
        raise TypeError(f"loss(z) must be a scalar, got shape {expression.shape}")
    others = [v for v in expression.variables() if v.id != variable.id]
    if others:
        raise TypeError(f"loss(z) uses variables other than z: {[v.name() for v in others]}")
    if expression.parameters() and any(p.value is None for p in expression.parameters()):
        raise TypeError("loss(z) uses a cp.Parameter without a value")
    return variable, expression


def _cvxpy_evaluator(loss: Loss) -> Callable[[np.ndarray], np.ndarray]:
    """Evaluate the CVXPY loss on arrays; NaN where a domain constraint is violated."""
    built: dict[int, tuple[cp.Variable, cp.Expression, bool]] = {}

    def build(size: int):
        if size not in built:
            variable = cp.Variable(size)
            try:
                expression = loss(variable)
                vectorised = expression.shape == (size,)
            except Exception:
                expression, vectorised = None, False
            built[size] = (variable, expression, vectorised)
        return built[size]

    scalar_variable, scalar_expression = _declared_loss(loss)

    def at(expression, variable, values) -> np.ndarray:
        variable.value = values
        out = np.asarray(expression.value, dtype=float).reshape(np.shape(values))
        for constraint in expression.domain:
            residual = np.asarray(constraint.residual, dtype=float)
            if residual.shape == out.shape:
                out = np.where(residual > 1e-9, np.nan, out)
            elif np.any(residual > 1e-9):
                out = np.full_like(out, np.nan)
        return out

    def evaluate(values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        variable, expression, vectorised = build(values.size)
        if vectorised:
            return at(expression, variable, values.ravel()).reshape(values.shape)
        return np.array(
            [at(scalar_expression, scalar_variable, float(v)) for v in values.ravel()]
        ).reshape(values.shape)

    return evaluate


LOSS_CONDITIONS = (
    ("convexity", "l is convex"),
    ("differentiability", "l is continuously differentiable (C^1)"),
    ("twice_differentiability", "l is twice differentiable (C^2)"),
    ("lipschitz", "L = sup |l'(z)| is finite"),
    ("curvature", "c = sup |l''(z)| is finite"),
)


def _pending(reason: str, names=LOSS_CONDITIONS) -> tuple[Condition, ...]:
    return tuple(Condition(name, description, None, None, "none", reason) for name, description in names)


class _LossAnalyser:
    """Settles each loss condition, symbolically when possible."""

    def __init__(self, loss: Loss, variable: cp.Variable, expression: cp.Expression):
        self.loss = loss
        self.variable = variable
        self.expression = expression
        self.dcp_convex = bool(expression.is_convex())
        self.translation_error = ""
        try:
            self.symbolic = to_sympy(expression, variable, SYMBOL)
            self.function = RealFunction(elementary(self.symbolic), SYMBOL)
        except UnsupportedAtom as error:
            self.symbolic, self.function = None, None
            self.translation_error = str(error)
        self._numeric: numeric.NumericAnalysis | None = None

    @property
    def numeric(self) -> numeric.NumericAnalysis:
        if self._numeric is None:
            if self.symbolic is not None:
                evaluate = lambdify(SYMBOL, self.symbolic.rewrite(sp.Piecewise))
            else:
                evaluate = _cvxpy_evaluator(self.loss)
            self._numeric = numeric.analyse(evaluate)
        return self._numeric

    def symbolically(self, compute: Callable):
        """Run a symbolic computation; None when sympy cannot settle it."""
        if self.function is None:
            return None
        try:
            with time_limit(SYMBOLIC_SECONDS):
                return compute(self.function)
        except (SymbolicFailure, NotImplementedError, TypeError, ValueError, AttributeError):
            return None

    def why_numeric(self) -> str:
        if self.translation_error:
            return f"numeric because {self.translation_error}"
        return "numeric because sympy could not settle it exactly"

    # -- conditions -----------------------------------------------------------------

    def domain(self) -> Condition:
        description = "l(z) is finite for every real z"
        constraints = self.expression.domain
        if not constraints:
            return Condition("domain", description, True, "all of R", "symbolic",
                             "no atom restricts the domain")
        if self.function is not None:
            try:
                sups = []
                for constraint in constraints:
                    g = elementary(to_sympy(constraint.expr, self.variable, SYMBOL))
                    with time_limit(SYMBOLIC_SECONDS):
                        sups.append((constraint, RealFunction(g, SYMBOL).extremes(0)[1]))
                violated = [str(c) for c, sup in sups if sup.is_extended_positive]
                if all(sup.is_extended_nonpositive for _, sup in sups):
                    return Condition("domain", description, True, "all of R", "symbolic",
                                     "the atoms' domain constraints hold for every z")
                if violated:
                    return self._domain_failure(description, "symbolic", violated)
            except (UnsupportedAtom, SymbolicFailure, NotImplementedError, TypeError, ValueError):
                pass
        if self.numeric.finite:
            return Condition("domain", description, True, "all of R (numeric)", "numeric",
                             f"finite on the test grid; {self.why_numeric()}")
        return self._domain_failure(description, "numeric", [str(c) for c in constraints])

    @staticmethod
    def _domain_failure(description: str, method: str, violated: list[str]) -> Condition:
        return Condition(
            "domain", description, False, "a proper subset of R", method,
            f"l(z) is undefined or infinite for some real z (domain constraint {', '.join(violated)})",
            "the margin z = y w^T x takes every real value; use a loss defined on all of R "
            "(for example logistic instead of -log)",
        )

    def smoothness(self) -> tuple[Condition, Condition, tuple, tuple]:
        """(differentiability, twice_differentiability, kinks, curvature jumps)."""
        jumps = self.symbolically(lambda f: (f.jumps(0), f.jumps(1), f.jumps(2)))
        if jumps is not None:
            method, detail_suffix = "symbolic", ""
            discontinuities, kinks, curvature_jumps = jumps
            kinks = tuple(sorted(set(discontinuities) | set(kinks), key=float))
        else:
            method, detail_suffix = "numeric", f"; {self.why_numeric()}"
            kinks, curvature_jumps = self.numeric.kinks, self.numeric.curvature_jumps

        def points(values) -> str:
            return ", ".join(str(v) for v in values)

        if kinks:
            first = Condition(
                "differentiability", "l is continuously differentiable (C^1)", False, "no", method,
                f"l' jumps at z = {points(kinks)}{detail_suffix}",
                "smooth the kink: dpcvx.losses.huber_hinge(h=0.5) replaces the hinge "
                "max(0, 1 - z); in general use a differentiable loss",
            )
            second = Condition(
                "twice_differentiability", "l is twice differentiable (C^2)", False, "no", method,
                "l is not even C^1" + detail_suffix,
                "objective perturbation needs a C^2 loss (or a C^1, piecewise C^2 one)",
            )
            return first, second, kinks, curvature_jumps
        first = Condition("differentiability", "l is continuously differentiable (C^1)", True,
                          "C^1", method, "l' is continuous" + detail_suffix)
        if curvature_jumps:
            second = Condition(
                "twice_differentiability", "l is twice differentiable (C^2)", True,
                "piecewise C^2", method,
                f"l'' jumps at z = {points(curvature_jumps)}: {PIECEWISE_NOTE}{detail_suffix}",
            )
        else:
            second = Condition("twice_differentiability", "l is twice differentiable (C^2)", True,
                               "C^2", method, "l'' is continuous" + detail_suffix)
        return first, second, kinks, curvature_jumps

    def convexity(self, kinks_are_upward: bool | None) -> Condition:
        description = "l is convex"
        dcp = "DCP: convex" if self.dcp_convex else "not DCP (the CVXPY solver path cannot take it)"
        lowest = self.symbolically(lambda f: (f.extremes(2)[0], f.upward_jumps_only(1), f.jumps(0)))
        if lowest is not None:
            inf_second, upward, discontinuities = lowest
            if inf_second.is_nonnegative and upward and not discontinuities:
                return Condition("convexity", description, True, "yes", "symbolic",
                                 f"l'' >= 0 on every piece and l' never jumps down; {dcp}")
            return Condition("convexity", description, False, "no", "symbolic",
                             f"l''(z) reaches {inf_second} < 0 or l' jumps down; {dcp}",
                             "use a convex loss of the margin (logistic, Huber hinge, ...)")
        if self.dcp_convex:
            return Condition("convexity", description, True, "yes", "dcp",
                             "CVXPY's DCP rules prove convexity")
        if self.numeric.convex:
            return Condition("convexity", description, True, "yes (numeric)", "numeric",
                             f"l' nondecreasing on the test grid; {dcp}; {self.why_numeric()}")
        return Condition("convexity", description, False, "no", "numeric",
                         f"l' decreases somewhere on the test grid; {dcp}",
                         "use a convex loss of the margin (logistic, Huber hinge, ...)")

    def bound(self, name: str, order: int, differentiable: bool) -> Condition:
        symbol = {1: "L = sup |l'(z)|", 2: "c = sup |l''(z)|"}[order]
        description = f"{symbol} is finite"
        if order == 2 and not differentiable:
            return Condition(name, description, False, None, "symbolic" if self.function else "numeric",
                             "l' jumps, so l'' is unbounded (a point mass at each kink)",
                             "use a C^1 loss such as dpcvx.losses.huber_hinge")
        exact = self.symbolically(lambda f: f.supremum_abs(order))
        if exact is not None:
            value, method, note = exact, "symbolic", "exact supremum over R"
        else:
            estimate = self.numeric.lipschitz if order == 1 else self.numeric.curvature
            value = sp.oo if not np.isfinite(estimate) else float(estimate)
            method = "numeric"
            note = (f"grid maximum x (1 + {numeric.SAFETY_FACTOR:g}) safety factor; "
                    f"{self.why_numeric()}")
        if value == sp.oo:
            what = "l'(z)" if order == 1 else "l''(z)"
            return Condition(name, description, False, value, method,
                             f"|{what}| is unbounded" + ("" if method == "symbolic" else f"; {note}"),
                             "privacy needs a loss that grows at most linearly; use logistic, "
                             "Huber hinge or pseudo-Huber instead of a quadratic or exponential loss")
        return Condition(name, description, True, value, method, note)

    def conditions(self) -> tuple[Condition, ...]:
        declaration = Condition("declaration", "loss(z) is a scalar CVXPY expression of z", True,
                                "ok", "given", str(self.expression))
        domain = self.domain()
        if not domain.passed:
            return (declaration, domain, *_pending("needs l defined on all of R"))
        first, second, kinks, _ = self.smoothness()
        return (
            declaration,
            domain,
            self.convexity(None),
            first,
            second,
            self.bound("lipschitz", 1, True),
            self.bound("curvature", 2, first.passed),
        )

    def derivatives(self, conditions: tuple[Condition, ...]) -> LossDerivatives | None:
        """Numpy l, l', l'' for the fast solver, when the loss was translated and is C^1."""
        differentiable = next(c for c in conditions if c.name == "differentiability").passed
        if self.symbolic is None or not differentiable:
            return None
        form = self.symbolic.rewrite(sp.Piecewise)
        return LossDerivatives(
            lambdify(SYMBOL, form),
            lambdify(SYMBOL, sp.diff(form, SYMBOL)),
            lambdify(SYMBOL, sp.diff(form, SYMBOL, 2)),
        )


def _failed_declaration(error: Exception) -> VerifiedLoss:
    condition = Condition(
        "declaration", "loss(z) is a scalar CVXPY expression of z", False, None, "none",
        f"{type(error).__name__}: {error}",
        "pass a callable such as lambda z: cp.logistic(-z) that maps a scalar cp.Variable "
        "to a scalar CVXPY expression",
    )
    domain = ("domain", "l(z) is finite for every real z")
    pending = _pending("the loss could not be declared", (domain, *LOSS_CONDITIONS))
    return VerifiedLoss("<invalid loss>", (condition, *pending), False, None)


def verify_loss(loss: Loss) -> VerifiedLoss:
    """Establish the loss conditions (cached by expression structure). Never raises on a bad loss."""
    try:
        variable, expression = _declared_loss(loss)
        key = _structural_key(expression)
    except Exception as error:  # verify reports a bad user loss, it does not raise
        return _failed_declaration(error)
    if key not in _LOSS_CACHE:
        try:
            check_separable(expression, variable)
        except NotSeparable as error:
            _LOSS_CACHE[key] = _not_separable(_readable(expression), error, expression, variable)
            return _LOSS_CACHE[key]
        analyser = _LossAnalyser(loss, variable, expression)
        conditions = analyser.conditions()
        _LOSS_CACHE[key] = VerifiedLoss(
            _readable(expression), conditions, analyser.dcp_convex, analyser.derivatives(conditions),
            expression, variable,
        )
    return _LOSS_CACHE[key]


def _not_separable(text: str, error: NotSeparable, expression, variable) -> VerifiedLoss:
    """A loss the solver could not apply record by record as it was verified: refused."""
    condition = Condition(
        "declaration", "loss(z) is a scalar CVXPY expression of z", False, None, "given",
        f"not a separable sum over records: {error}; the objective must be sum_i l(z_i) for the "
        "one scalar function l that was verified",
        "write l(z) for ONE margin z with elementwise atoms (cp.logistic, cp.huber, cp.square, "
        "...); hstack/vstack of scalars with norm, sum, max or log_sum_exp over them are fine",
    )
    domain = ("domain", "l(z) is finite for every real z")
    pending = _pending("the loss is not a separable sum over records", (domain, *LOSS_CONDITIONS))
    return VerifiedLoss(text, (condition, *pending), False, None, expression, variable)


# --- regularizer ---------------------------------------------------------------------


def _regularizer_failure(text: str, detail: str) -> VerifiedRegularizer:
    fix = ("pass a callable such as lambda w: 0.5 * cp.sum_squares(w) returning a scalar "
           "CVXPY expression of w")
    names = (
        ("regularizer_convexity", "N is convex and finite on all of R^d"),
        ("strong_convexity", "N is m-strongly convex with m > 0"),
        ("regularizer_differentiability", "N is differentiable"),
        ("regularizer_twice_differentiability", "N is twice differentiable"),
    )
    conditions = tuple(Condition(name, description, False, None, "none", detail, fix)
                       for name, description in names)
    return VerifiedRegularizer(text, conditions, None)


def verify_regularizer(regularizer: Regularizer | None, dim: int) -> VerifiedRegularizer:
    """Apply the regularizer calculus at dimension ``dim`` (cached). Never raises on a bad N."""
    regularizer = default_regularizer if regularizer is None else regularizer
    try:
        w = cp.Variable(dim, name="w")
        expression = regularizer(w)
        if not isinstance(expression, cp.Expression) or expression.size != 1:
            raise TypeError("regularizer(w) must return a scalar CVXPY expression")
        key = (_structural_key(expression), dim)
    except Exception as error:  # a bad user regularizer becomes a failing certificate
        return _regularizer_failure("<invalid regularizer>",
                                    f"{type(error).__name__}: {error} (at dimension {dim})")
    if key not in _REGULARIZER_CACHE:
        text = _readable(expression)
        try:
            analysis = analyse_regularizer(expression, w)
        except Exception as error:  # noqa: BLE001 - reported in the certificate
            return _regularizer_failure(text, f"{type(error).__name__}: {error}")
        _REGULARIZER_CACHE[key] = VerifiedRegularizer(text, _regularizer_conditions(analysis), analysis,
                                                      expression, w)
    return _REGULARIZER_CACHE[key]


def _regularizer_conditions(analysis: RegularizerAnalysis) -> tuple[Condition, ...]:
    ridge = "add a strongly convex term such as 0.5 * cp.sum_squares(w)"
    smooth_fix = ("Theorems 1 and 2 need a differentiable regularizer; use 0.5 * cp.sum_squares(w) "
                  "or cp.quad_form(w, P) with P positive definite")
    convex = analysis.convex and analysis.finite_everywhere
    convexity = Condition(
        "regularizer_convexity", "N is convex and finite on all of R^d", convex,
        "yes" if convex else "no", "dcp",
        "CVXPY's DCP rules" if convex else
        ("N is not DCP-convex" if not analysis.convex else "N restricts the domain of w"),
        "" if convex else "use a convex regularizer finite everywhere",
    )
    m = analysis.strong_convexity
    exact = analysis.strong_convexity_exact
    method_notes = [note[len("m: "):] for note in analysis.notes if note.startswith("m: ")]
    how = "; ".join(method_notes) or ("exact: the quadratic terms' Hessian is diagonal" if exact else
                                       "lower bound of the quadratic terms' smallest eigenvalue, rounded down")
    positive = bool(m > 0)
    strong = Condition(
        "strong_convexity", "N is m-strongly convex with m > 0", positive, m, "symbolic",
        how if positive else "N is not strongly convex (m = 0)", "" if positive else ridge,
    )

    def smoothness(name: str, description: str, verdict: bool | None, bad: tuple[str, ...]):
        if verdict:
            return Condition(name, description, True, "yes", "symbolic", "every atom is smooth")
        if verdict is None:
            return Condition(name, description, None, "unknown", "none",
                             f"no smoothness rule for atoms {', '.join(analysis.unknown_atoms)}",
                             smooth_fix)
        return Condition(name, description, False, "no", "symbolic",
                         f"non-smooth atoms: {', '.join(bad)}", smooth_fix)

    return (
        convexity,
        strong,
        smoothness("regularizer_differentiability", "N is differentiable",
                   analysis.differentiable, analysis.nonsmooth_atoms),
        smoothness("regularizer_twice_differentiability", "N is twice differentiable",
                   analysis.twice_differentiable,
                   analysis.nonsmooth_atoms + analysis.c1_only_atoms),
    )


# --- entry point -------------------------------------------------------------------------


def verify(
    loss: Loss,
    regularizer: Regularizer | None = None,
    *,
    dim: int | None = None,
    strict: bool = False,
) -> Certificate:
    """Check the conditions of Theorems 1 and 2 (JMLR 2011) for ``loss`` and ``regularizer``.

    Parameters
    ----------
    loss : callable
        ``z -> l(z)``, a scalar CVXPY expression of the margin ``z = y w^T x``.
    regularizer : callable, optional
        ``w -> N(w)``; default ``0.5 * cp.sum_squares(w)``.
    dim : int, optional
        Dimension at which N is analysed (default 3; a fit re-verifies at the
        data's dimension).
    strict : bool
        Refuse conditions established only numerically.

    Returns a :class:`~dpcvx.certificate.Certificate`; never raises on a bad
    loss or regularizer (the certificate says what failed and how to fix it).
    """
    return verify_problem(loss, regularizer, dim=PROBE_DIM if dim is None else dim,
                          strict=strict).certificate


def verify_problem(
    loss: Loss,
    regularizer: Regularizer | None = None,
    *,
    dim: int,
    strict: bool = False,
) -> VerifiedProblem:
    """Verify once and return the :class:`~dpcvx.problem.VerifiedProblem` everything downstream uses.

    The loss callable is called once (on a scalar variable) and the
    regularizer once (at ``dim``); calibration, the solvers and the release
    read only the returned object, never the callables.
    """
    probe_dim = check_dim(dim)
    strict = check_flag("strict", strict)
    verified_loss = verify_loss(loss)
    verified_reg = verify_regularizer(regularizer, probe_dim)
    certificate = Certificate(
        loss=verified_loss.text,
        regularizer=verified_reg.text,
        dim=probe_dim,
        conditions=verified_loss.conditions + verified_reg.conditions,
        strict=strict,
    )
    return VerifiedProblem(verified_loss, verified_reg, certificate)


def check_dim(dim) -> int:
    """The dimension N is analysed at: a positive int (InputError otherwise)."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
        raise InputError(f"dim must be a positive int (the number of weights), got {dim!r}")
    return int(dim)
