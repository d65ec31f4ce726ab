"""verify(): establish the conditions of the privacy theorems for a declared problem.

The loss ``l`` is a callable taking a scalar ``cp.Variable`` (the margin
``z = y w^T x``) and returning a scalar CVXPY expression; the regularizer ``N``
takes a vector ``cp.Variable`` and returns a scalar expression. For each
condition the symbolic route (:mod:`dpcvx.verification.translate`, :mod:`dpcvx.verification.symbolic`,
:mod:`dpcvx.verification.regularizer`) is tried first, then validated interval bounds
(:mod:`dpcvx.verification.validated`), both in a worker process with a deadline
(:mod:`dpcvx.verification.deadline`). Grid estimates (:mod:`dpcvx.verification.numeric`) fill in what
neither proved; they are marked "estimate" and refused unless the caller
passes ``allow_estimates=True``.

Results are cached by the structure of the expression tree (atoms, constants,
shapes), so two lambdas that build the same expression share one analysis; the
worker's results are kept across processes by :mod:`dpcvx.verification.proof_cache`
(the catalogue's shipped with the package, others on disk under an HMAC).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np
import sympy as sp

from ..exceptions import InputError
from ..progress import progress as progress_bar
from ..validation import check_flag
from . import numeric, proof_cache, validated
from .certificate import PIECEWISE_NOTE, Certificate, Condition
from .constraints import Constraints
from .kst12 import with_kst12
from .per_record import NotSeparable, check_separable
from .problem import VerifiedProblem
from .regularizer import RegularizerAnalysis, analyse_regularizer
from .symbolic import FACT_NAMES, Failed, LossFacts, loss_facts
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
_UNBOUNDED_WITNESS = 1e30  # a proved value of |l^(k)| beyond this is reported as unbounded
_LOG = logging.getLogger("dpcvx.verify")

Loss = Callable[[cp.Expression], cp.Expression]  # z -> l(z), z = y w^T x (any CVXPY expression)
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


def _structural_key(node: Any) -> tuple[Any, ...]:  # a CVXPY tree node (cvxpy types get_data() as None)
    if isinstance(node, cp.Variable):
        return ("variable", node.shape)
    if isinstance(node, cp.Parameter) and node.value is None:
        return ("parameter", node.id)
    if isinstance(node, (cp.Constant, cp.Parameter)):
        value: Any = node.value  # not None: a Parameter without a value returned above
        array = np.asarray(value.toarray() if hasattr(value, "toarray") else value, dtype=float)
        return ("constant", node.shape, array.tobytes())
    data: list[tuple[Any, ...] | str] = []
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


_LOSS_CACHE: dict[tuple[Any, ...], VerifiedLoss] = {}
_REGULARIZER_CACHE: dict[tuple[Any, ...], VerifiedRegularizer] = {}


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
    built: dict[int, tuple[cp.Variable, cp.Expression | None, bool]] = {}

    def build(size: int) -> tuple[cp.Variable, cp.Expression | None, bool]:
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

    def at(expression: cp.Expression, variable: cp.Variable, values: np.ndarray | float) -> np.ndarray:
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
        if vectorised and expression is not None:  # vectorised: the loss built an expression
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


def _pending(reason: str, names: tuple[tuple[str, str], ...] = LOSS_CONDITIONS) -> tuple[Condition, ...]:
    return tuple(Condition(name, description, None, None, "none", reason) for name, description in names)


class _LossAnalyser:
    """Settles each loss condition: proved symbolically, else by validated bounds, else estimated.

    sympy (all the :class:`~dpcvx.verification.symbolic.RealFunction` queries) and the
    validated bounds each run in one call to a worker process with a deadline
    (:mod:`dpcvx.verification.deadline`), so no signal or timer of the caller is touched and
    a hard problem cannot hang any thread. Derivatives for the solver are built
    here, in the caller's process. Grid estimates (:mod:`dpcvx.verification.numeric`) are
    computed only for what neither route proved, and are marked "estimate":
    the certificate refuses them unless ``allow_estimates=True``.
    """

    def __init__(self, loss: Loss, variable: cp.Variable, expression: cp.Expression,
                 time_limit: float | None = None, progress: bool = False):
        self.loss = loss
        self.variable = variable
        self.expression = expression
        self.dcp_convex = bool(expression.is_convex())
        self.seconds = self.check_time_limit(time_limit)
        self.progress = progress
        self.timed_out = False
        self.translation_error = ""
        try:
            self.symbolic = to_sympy(expression, variable, SYMBOL)
            self.elementary = elementary(self.symbolic)
        except UnsupportedAtom as error:
            self.symbolic, self.elementary = None, None
            self.translation_error = str(error)
        self._facts: LossFacts | None = None
        self._proof: dict[str, Any] | None = None
        self._numeric: numeric.NumericAnalysis | None = None
        self.sympy_note = ""
        self.validated_note = ""

    @staticmethod
    def check_time_limit(time_limit: Any) -> float:
        """Seconds for each worker call (sympy, then validated bounds); InputError when invalid."""
        if time_limit is None:
            return SYMBOLIC_SECONDS
        try:
            seconds = float(time_limit)
        except (TypeError, ValueError):
            seconds = float("nan")
        if isinstance(time_limit, bool) or not (seconds > 0 and np.isfinite(seconds)):
            raise InputError(f"time_limit must be a positive number of seconds (or None), got {time_limit!r}")
        return seconds

    # -- the three routes ---------------------------------------------------------------

    def _constraint_forms(self) -> tuple[sp.Expr, ...] | None:
        try:
            return tuple(elementary(to_sympy(c.expr, self.variable, SYMBOL)) for c in self.expression.domain)
        except UnsupportedAtom:
            return None

    def _reporter(self, total: int, what: str) -> tuple[Callable[[Any], None], Callable[[], None]]:
        """(on_item, close): the shared progress bar (dpcvx.progress) when progress=True, and log lines."""
        bar = progress_bar(total, f"verify ({what})", unit="condition", verbose=self.progress)

        def on_item(item: Any) -> None:
            name = item[0] if isinstance(item, tuple) and item else "?"
            bar.update(1)
            (_LOG.info if self.progress else _LOG.debug)("verify %s: %s settled", what, name)

        return on_item, bar.close

    @property
    def facts(self) -> LossFacts:
        """sympy's facts, from one worker call with the deadline."""
        if self._facts is None:
            if self.elementary is None:
                self._facts = LossFacts.from_items((), f"no sympy form: {self.translation_error}")
                return self._facts
            on_item, close = self._reporter(len(FACT_NAMES), "sympy")
            try:
                result = proof_cache.run(loss_facts, (self.elementary, SYMBOL, self._constraint_forms()),
                                      seconds=self.seconds, on_item=on_item)
            finally:
                close()
            if result.timed_out:
                self.timed_out = True
                self.sympy_note = f"sympy did not finish within {self.seconds:g} s"
            elif not result.finished:
                self.sympy_note = f"sympy failed: {result.error}"
            self._facts = LossFacts.from_items(result.items, self.sympy_note or "not computed")
        return self._facts

    def _fact(self, name: str) -> Any:
        """A sympy fact, or None (with the reason remembered) when sympy did not settle it."""
        value = getattr(self.facts, name)
        if isinstance(value, Failed):
            if not self.sympy_note:
                self.sympy_note = f"sympy could not settle it ({value.reason})"
            return None
        return value

    @property
    def proof(self) -> dict[str, Any]:
        """Validated (interval-arithmetic) facts, from one worker call with the deadline."""
        if self._proof is None:
            self._proof = {}
            if self.symbolic is None:
                self.validated_note = f"no validated bound: {self.translation_error}"
                return self._proof
            on_item, close = self._reporter(4, "validated bounds")
            try:
                # the bounds stop themselves a little before the deadline: a bound cut short is
                # still an upper bound (only looser), a killed worker gives nothing
                arguments = (self.symbolic, SYMBOL, validated.FACTS, validated.BOX_BUDGET, 0.8 * self.seconds)
                result = proof_cache.run(validated.validated_facts, arguments, seconds=self.seconds,
                                      on_item=on_item)
            finally:
                close()
            self._proof = dict(result.items)
            if any(validated.TIME_LIMIT_REASON in str(getattr(fact, "reason", fact))
                   for fact in self._proof.values()):
                self.timed_out = True  # a bound cut short by the clock: do not cache it
            if result.timed_out:
                self.timed_out = True
                self.validated_note = f"the validated bounds did not finish within {self.seconds:g} s"
            elif not result.finished:
                self.validated_note = f"the validated bounds failed: {result.error}"
        return self._proof

    def _proved(self, name: str) -> Any:
        """A validated fact, or None (with the reason remembered)."""
        value = self.proof.get(name)
        if value is None or isinstance(value, str):
            if not self.validated_note:
                self.validated_note = f"no validated bound: {value or 'not computed'}"
            return None
        return value

    @property
    def numeric(self) -> numeric.NumericAnalysis:
        if self._numeric is None:
            if self.symbolic is not None:
                evaluate = lambdify(SYMBOL, self.symbolic.rewrite(sp.Piecewise))
            else:
                evaluate = _cvxpy_evaluator(self.loss)
            self._numeric = numeric.analyse(evaluate)
        return self._numeric

    def after_sympy(self) -> str:
        """Why the validated route was needed, for the detail of a validated condition."""
        return f"; {self.sympy_note}" if self.sympy_note else ""

    def why_estimate(self) -> str:
        reasons = [self.translation_error or self.sympy_note or "sympy could not settle it exactly"]
        if self.validated_note and not self.translation_error:
            reasons.append(self.validated_note)
        return ("ESTIMATE, not a proof (" + "; ".join(reasons) + "); accepted only with "
                "allow_estimates=True")

    # -- conditions -----------------------------------------------------------------

    def domain(self) -> Condition:
        description = "l(z) is finite for every real z"
        constraints = self.expression.domain
        if not constraints:
            return Condition("domain", description, True, "all of R", "symbolic",
                             "no atom restricts the domain")
        sups = self._fact("domain")
        if sups is not None:
            violated = [str(c) for c, sup in zip(constraints, sups, strict=True) if sup.is_extended_positive]
            if all(sup.is_extended_nonpositive for sup in sups):
                return Condition("domain", description, True, "all of R", "symbolic",
                                 "the atoms' domain constraints hold for every z")
            if violated:
                return self._domain_failure(description, "symbolic", violated)
        smooth = self._proved("smoothness")
        if smooth is not None and smooth.c2 is True:
            return Condition("domain", description, True, "all of R", "validated",
                             "interval enclosures of l are finite on every box of R and every log "
                             "or fractional-power argument is proved > 0" + self.after_sympy())
        if self.numeric.finite:
            return Condition("domain", description, True, "all of R (estimate)", "estimate",
                             f"finite on the test grid; {self.why_estimate()}")
        return self._domain_failure(description, "estimate", [str(c) for c in constraints])

    @staticmethod
    def _domain_failure(description: str, method: str, violated: list[str]) -> Condition:
        return Condition(
            "domain", description, False, "a proper subset of R", method,
            f"l(z) is undefined or infinite for some real z (domain constraint {', '.join(violated)})",
            "the margin z = y w^T x takes every real value; use a loss defined on all of R "
            "(for example logistic instead of -log)",
        )

    _SMOOTH_FIX = ("smooth the kink: dpcvx.losses.huber_hinge(h=0.5) replaces the hinge "
                   "max(0, 1 - z); in general use a differentiable loss")

    def smoothness(self) -> tuple[Condition, Condition, tuple[Any, ...], tuple[Any, ...]]:  # points: sympy or float
        """(differentiability, twice_differentiability, kinks, curvature jumps)."""
        c1 = ("differentiability", "l is continuously differentiable (C^1)")
        c2 = ("twice_differentiability", "l is twice differentiable (C^2)")
        jumps = self._fact("jumps")
        if jumps is None:
            smooth = self._proved("smoothness")
            if smooth is not None and smooth.c2 is True:
                reason = smooth.reason + self.after_sympy()
                return (Condition(*c1, True, "C^1", "validated", reason),
                        Condition(*c2, True, "C^2", "validated", reason), (), ())
            if smooth is not None and smooth.c2 is False:
                return (
                    Condition(*c1, False, "no", "validated", smooth.reason, self._SMOOTH_FIX),
                    Condition(*c2, False, "no", "validated", "l is not even C^1: " + smooth.reason,
                              "objective perturbation needs a C^2 loss (or a C^1, piecewise C^2 one)"),
                    (0.5 * (smooth.kink[0] + smooth.kink[1]),), (),
                )
        if jumps is not None:
            method, detail_suffix = "symbolic", ""
            discontinuities, kinks, curvature_jumps = jumps
            kinks = tuple(sorted(set(discontinuities) | set(kinks), key=float))
        else:
            method, detail_suffix = "estimate", f"; {self.why_estimate()}"
            kinks, curvature_jumps = self.numeric.kinks, self.numeric.curvature_jumps

        def points(values: Iterable[float]) -> str:
            return ", ".join(str(v) for v in values)

        if kinks:
            first = Condition(*c1, False, "no", method, f"l' jumps at z = {points(kinks)}{detail_suffix}",
                              self._SMOOTH_FIX)
            second = Condition(*c2, False, "no", method, "l is not even C^1" + detail_suffix,
                               "objective perturbation needs a C^2 loss (or a C^1, piecewise C^2 one)")
            return first, second, kinks, curvature_jumps
        first = Condition(*c1, True, "C^1", method, "l' is continuous" + detail_suffix)
        if curvature_jumps:
            second = Condition(*c2, True, "piecewise C^2", method,
                               f"l'' jumps at z = {points(curvature_jumps)}: {PIECEWISE_NOTE}{detail_suffix}")
        else:
            second = Condition(*c2, True, "C^2", method, "l'' is continuous" + detail_suffix)
        return first, second, kinks, curvature_jumps

    def convexity(self, kinks_are_upward: bool | None = None) -> Condition:
        description = "l is convex"
        dcp = "DCP: convex" if self.dcp_convex else "not DCP (the CVXPY solver path cannot take it)"
        fix = "use a convex loss of the margin (logistic, Huber hinge, ...)"
        lowest = self._fact("convexity")
        if lowest is not None:
            inf_second, upward, discontinuities = lowest
            if inf_second.is_nonnegative and upward and not discontinuities:
                return Condition("convexity", description, True, "yes", "symbolic",
                                 f"l'' >= 0 on every piece and l' never jumps down; {dcp}")
            return Condition("convexity", description, False, "no", "symbolic",
                             f"l''(z) reaches {inf_second} < 0 or l' jumps down; {dcp}", fix)
        if self.dcp_convex:
            return Condition("convexity", description, True, "yes", "dcp",
                             "CVXPY's DCP rules prove convexity")
        bound = self._proved("inf2")
        if bound is not None and bound.witness is not None:
            return Condition("convexity", description, False, "no", "validated",
                             f"l''(z) < 0 at z = {bound.witness:.6g} (interval arithmetic); {dcp}", fix)
        if bound is not None and bound.lower >= 0:
            return Condition("convexity", description, True, "yes", "validated",
                             f"interval enclosures of l'' are >= 0 on every box of R ({bound.boxes} "
                             f"boxes); {dcp}{self.after_sympy()}")
        if bound is not None and bound.reason and not self.validated_note:
            self.validated_note = f"no validated bound: {bound.reason}"
        if self.numeric.convex:
            return Condition("convexity", description, True, "yes (estimate)", "estimate",
                             f"l' nondecreasing on the test grid; {dcp}; {self.why_estimate()}")
        return Condition("convexity", description, False, "no", "estimate",
                         f"l' decreases somewhere on the test grid; {dcp}", fix)

    def bound(self, name: str, order: int, differentiable: bool, how: str = "symbolic") -> Condition:
        symbol = {1: "L = sup |l'(z)|", 2: "c = sup |l''(z)|"}[order]
        what = "l'(z)" if order == 1 else "l''(z)"
        description = f"{symbol} is finite"
        unbounded_fix = ("privacy needs a loss that grows at most linearly; use logistic, "
                         "Huber hinge or pseudo-Huber instead of a quadratic or exponential loss")
        if order == 2 and not differentiable:
            return Condition(name, description, False, None, how,
                             "l' jumps, so l'' is unbounded (a point mass at each kink)",
                             "use a C^1 loss such as dpcvx.losses.huber_hinge")
        exact = self._fact(f"sup{order}")
        if exact is not None:
            if exact == sp.oo:
                return Condition(name, description, False, exact, "symbolic", f"|{what}| is unbounded",
                                 unbounded_fix)
            return Condition(name, description, True, exact, "symbolic", "exact supremum over R")
        proved = self._proved(f"sup{order}")
        if proved is not None and proved.finite:
            return Condition(name, description, True, proved.upper, "validated",
                             f"upper bound by interval arithmetic over all of R ({proved.boxes} boxes); "
                             f"|{what}| reaches {proved.lower:.6g}{self.after_sympy()}")
        if proved is not None and proved.lower > _UNBOUNDED_WITNESS:
            return Condition(name, description, False, sp.oo, "validated",
                             f"|{what}| is unbounded: it reaches {proved.lower:.3g} (interval arithmetic)",
                             unbounded_fix)
        if proved is not None and not self.validated_note:
            self.validated_note = f"no validated bound: {proved.reason or 'no finite enclosure'}"
        estimate = self.numeric.lipschitz if order == 1 else self.numeric.curvature
        value = sp.oo if not np.isfinite(estimate) else float(estimate)
        note = (f"grid maximum x (1 + {numeric.SAFETY_FACTOR:g}) safety factor; {self.why_estimate()}")
        if value == sp.oo:
            return Condition(name, description, False, value, "estimate", f"|{what}| is unbounded; {note}",
                             unbounded_fix)
        return Condition(name, description, True, value, "estimate", note)

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
            self.bound("curvature", 2, first.passed is True, first.method),
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


def verify_loss(loss: Loss, *, time_limit: float | None = None, progress: bool = False) -> VerifiedLoss:
    """Establish the loss conditions (cached by expression structure). Never raises on a bad loss.

    ``time_limit`` (seconds, default 20) bounds each of the two worker-process
    calls (sympy, then the validated bounds); an analysis that hit it is not
    cached, so a later call with a longer limit tries again. ``progress``
    shows a tqdm bar when tqdm is installed (else logs to "dpcvx.verify").
    Raises :class:`~dpcvx.exceptions.InputError` only for an invalid ``time_limit``.
    """
    _LossAnalyser.check_time_limit(time_limit)
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
        analyser = _LossAnalyser(loss, variable, expression, time_limit, progress)
        conditions = analyser.conditions()
        verified = VerifiedLoss(
            _readable(expression), conditions, analyser.dcp_convex, analyser.derivatives(conditions),
            expression, variable,
        )
        if analyser.timed_out:
            return verified
        _LOSS_CACHE[key] = verified
    return _LOSS_CACHE[key]


def _not_separable(text: str, error: NotSeparable, expression: cp.Expression, variable: cp.Variable) -> VerifiedLoss:
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
                  "or cp.quad_form(w, P) with P positive definite; or, for objective perturbation (KST12), "
                  "a * cp.norm1(w) and/or group norms c * cp.norm(w[g], 2) over disjoint index sets g, plus a "
                  "quadratic")
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

    def smoothness(name: str, description: str, verdict: bool | None, bad: tuple[str, ...]) -> Condition:
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
    allow_estimates: bool = False,
    time_limit: float | None = None,
    progress: bool = False,
    constraints: Constraints | None = None,
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
        Refuse estimated conditions even when ``allow_estimates`` is set.
        Proofs (symbolic, validated, DCP) are always accepted.
    allow_estimates : bool
        Accept grid estimates (method "estimate") for what neither sympy nor
        the validated bounds proved. The certificate is then *conditional*
        (``cert.conditional``): its guarantee holds only if the estimated
        constants are right, which nothing checks. Default False: refused.
    time_limit : float, optional
        Seconds for each worker-process call (sympy, then the validated
        bounds); default 20. A call that runs out falls back to the next route.
    progress : bool
        Show progress (a tqdm bar when tqdm is installed, else log records of
        the "dpcvx.verify" logger at INFO level).
    constraints : callable, optional
        ``w -> [CVXPY constraints]``, the public closed convex set of
        ``PrivateERM(constraints=...)``. A set, an L1 or a group term poses the
        problem for KST12 (:mod:`dpcvx.verification.kst12`), as a fit does: the
        certificate's verdicts are the fit's (:mod:`dpcvx.verification.verdict`).

    Returns a :class:`~dpcvx.verification.certificate.Certificate`; never raises on a bad
    loss or regularizer (the certificate says what failed and how to fix it).
    """
    return verify_problem(loss, regularizer, dim=PROBE_DIM if dim is None else dim, strict=strict,
                          allow_estimates=allow_estimates, time_limit=time_limit,
                          progress=progress, constraints=constraints).certificate


def verify_problem(
    loss: Loss,
    regularizer: Regularizer | None = None,
    *,
    dim: int,
    strict: bool = False,
    allow_estimates: bool = False,
    time_limit: float | None = None,
    progress: bool = False,
    constraints: Constraints | None = None,
) -> VerifiedProblem:
    """Verify once and return the :class:`~dpcvx.verification.problem.VerifiedProblem` everything downstream uses.

    The loss callable is called once (on a scalar variable) and the
    regularizer once (at ``dim``); calibration, the solvers and the release
    read only the returned object, never the callables. The options are
    those of :func:`verify`; the problem is posed for KST12 when it has a
    constraint set or a non-smooth regularizer (:func:`~.kst12.with_kst12`).
    """
    probe_dim = check_dim(dim)
    strict = check_flag("strict", strict)
    allow_estimates = check_flag("allow_estimates", allow_estimates)
    check_flag("progress", progress)
    verified_loss = verify_loss(loss, time_limit=time_limit, progress=progress)
    verified_reg = verify_regularizer(regularizer, probe_dim)
    certificate = Certificate(
        loss=verified_loss.text,
        regularizer=verified_reg.text,
        dim=probe_dim,
        conditions=verified_loss.conditions + verified_reg.conditions,
        strict=strict,
        allow_estimates=allow_estimates,
    )
    return with_kst12(VerifiedProblem(verified_loss, verified_reg, certificate), constraints)


def check_dim(dim: Any) -> int:
    """The dimension N is analysed at: a positive int (InputError otherwise)."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
        raise InputError(f"dim must be a positive int (a number of features), got {dim!r}")
    return int(dim)
