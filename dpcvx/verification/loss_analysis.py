"""The loss analyser: each condition on the scalar loss l(z), proved symbolically, else validated, else estimated.

For each condition of the privacy theorems (convexity, C^1, C^2, L = sup |l'|, c = sup |l''|,
finiteness on R) the symbolic route (:mod:`dpcvx.verification.translate`,
:mod:`dpcvx.verification.symbolic`) is tried first, then validated interval bounds
(:mod:`dpcvx.verification.validated`), both in a worker process with a deadline
(:mod:`dpcvx.verification.deadline`), their results kept across processes by
:mod:`dpcvx.verification.proof_replay`. Grid estimates (:mod:`dpcvx.verification.numeric`) fill in what
neither proved; they are marked "estimate". The entry point that caches the result is
:func:`dpcvx.verification.verifier.verify_loss`.
"""

from __future__ import annotations

import logging
import math
import sys
from collections.abc import Callable, Iterable
from typing import Any

import cvxpy as cp
import numpy as np
import sympy as sp

from ..progress import progress as progress_bar
from . import numeric, proof_replay, validated
from .certificate import PIECEWISE_NOTE, Condition
from .condition import ESTIMATE_OPT_IN, number_text
from .deadline import MIN_CALL_SECONDS, Budget, DeadlineResult
from .exact import beyond_doubles, magnitude_text, plain
from .loss_declaration import (
    LOSS_CONDITIONS,
    NON_DECREASING,
    NON_INCREASING,
    SIGN_CHANGE,
    SLOPE_SIGN,
    SYMBOLIC_SECONDS,
    cvxpy_evaluator,
    declared_loss,
    pending_conditions,
    violated_constraints,
)
from .numpy_code import UnsafeCode
from .problem import Loss
from .symbolic import FACT_NAMES, Failed, LossFacts, loss_facts
from .translate import UnsupportedAtom, elementary, lambdify, numpy_code, to_sympy

__all__ = ["LOSS_CONDITIONS", "SYMBOL", "SYMBOLIC_SECONDS", "LossAnalyser", "cvxpy_evaluator", "declared_loss",
           "pending_conditions", "sympy_failure"]

SYMBOL = sp.Symbol("z", real=True)
_UNBOUNDED_WITNESS = 1e30  # a proved value of |l^(k)| beyond this is reported as unbounded
_TOO_LARGE_FIX = ("scale the loss and its margin's constants so that l' and l'' stay within floating point "
                  "(a release computes with doubles)")
#: The fix of an unbounded |l'| (order 1) and of an unbounded |l''| (order 2). A loss with a bounded l'' may grow
#: quadratically (the squared error), so the second names what makes l'' unbounded, and output perturbation, which
#: needs no c.
_UNBOUNDED_FIX = {
    1: ("privacy needs a loss that grows at most linearly; use logistic, "
        "Huber hinge or pseudo-Huber instead of a quadratic or exponential loss"),
    2: ("objective perturbation needs a bounded l''; the exponential, powers above 2 (cp.power(z, 3)) and fractional "
        "powers at 0 (cp.power(z, 1.5)) have an unbounded one: use logistic, Huber hinge or pseudo-Huber (a "
        "regression: cp.huber(p - y, m) or the squared error, whose l'' is 2), or mechanism='output', which needs no "
        "c"),
}
_LOG = logging.getLogger("dpcvx.verify")
#: sympy's share of the time left when it starts: the validated bounds, which settle what sympy did not, get the rest
SYMPY_SHARE = 0.5
#: the validated bounds stop themselves at this share of their time: a bound cut short by its own clock is still an
#: upper bound (only looser), a bound of a killed worker is lost
VALIDATED_SELF_STOP = 0.8


def sympy_failure(step: str, error: BaseException) -> str:
    """Why a sympy step in the caller's process failed, as a condition's detail or the log states it.

    The analyser builds the loss's form, prints it as numpy code and rewrites it for the grid in the caller's
    process (the provers run in the worker, whose failures :meth:`LossAnalyser._run` reports). There sympy may
    raise its own errors, of many classes, or a RecursionError: for cp.max of logistic(-z) and logistic(-z) +-
    1e-9 z, Piecewise's rewrite of the maximum recursed without end, and the RecursionError left verify and
    PrivateERM.fit untyped, naming no condition. Each such step catches any exception: it is no verdict on the
    loss, that step's route is not taken, and what it would have settled is proved by another route, or not
    proved (refused with its condition and fix, before any charge), or estimated."""
    return f"sympy could not {step} ({type(error).__name__}: {str(error)[:200]})"


class LossAnalyser:
    """Settles each loss condition: proved symbolically, else by validated bounds, else estimated.

    sympy (all the :class:`~dpcvx.verification.symbolic.RealFunction` queries) and the
    validated bounds each run in one call to a worker process with a deadline
    (:mod:`dpcvx.verification.deadline`), so no signal or timer of the caller is touched and
    a hard problem cannot hang any thread. The two calls share the verification's
    :class:`~dpcvx.verification.deadline.Budget` (its ``time_limit``): sympy gets at most
    :data:`SYMPY_SHARE` of it, the validated bounds what is left. Derivatives for the solver are built
    here, in the caller's process. Grid estimates (:mod:`dpcvx.verification.numeric`) are
    computed only for what neither route proved, and are marked "estimate":
    the certificate refuses them unless ``allow_estimates=True``.
    """

    def __init__(self, loss: Loss, variable: cp.Variable, expression: cp.Expression,
                 budget: Budget, progress: bool = False):
        self.loss = loss
        self.variable = variable
        self.expression = expression
        self.dcp_convex = bool(expression.is_convex())
        self.budget = budget
        self.progress = progress
        self.timed_out = False
        #: a worker call ended without a result (its process died, or it raised): not a verdict on the loss
        self.failed = False
        self.translation_error = ""
        try:
            self.symbolic = to_sympy(expression, variable, SYMBOL)
            self.elementary = elementary(self.symbolic)
        except UnsupportedAtom as error:
            self.symbolic, self.elementary = None, None
            self.translation_error = str(error)
        except Exception as error:  # noqa: BLE001 - sympy failed here (sympy_failure): no sympy route
            self.symbolic, self.elementary = None, None
            self.translation_error = sympy_failure("build the loss's form", error)
        self._facts: LossFacts | None = None
        self._proof: dict[str, Any] | None = None
        self._numeric: numeric.NumericAnalysis | None = None
        self.sympy_note = ""
        self.validated_note = ""

    def _run(self, prover: Any, arguments: Callable[[float], tuple[Any, ...]], share: float, what: str,
             on_item: Callable[[Any], None], spare: bool = False) -> tuple[DeadlineResult, str]:
        """One prover call within the budget: its result, and why it is incomplete ("" when it finished): the time ran
        out (``timed_out`` set) or the call failed (``failed`` set). ``arguments(seconds)`` are the prover's
        arguments for a call of ``seconds``; ``spare`` starts a worker for the next call in the background
        (:func:`~dpcvx.verification.deadline.run`)."""
        limit = f"time_limit = {self.budget.seconds:g} s"
        seconds = share * self.budget.left()
        if seconds < MIN_CALL_SECONDS:
            self.timed_out = True
            return DeadlineResult(timed_out=True), f"the time limit ({limit}) was spent before {what} started"
        result = proof_replay.run(prover, arguments(seconds), seconds=seconds, on_item=on_item,
                                  count_startup=self.budget.count_startup, spare=spare)
        self.budget.spent(result)
        if result.timed_out:
            self.timed_out = True
            return result, f"{what} did not finish within {seconds:.3g} s, " \
                           f"{'its share' if share < 1 else 'the rest'} of the time limit ({limit})"
        if not result.finished:
            self.failed = True
            return result, f"{what} failed: {result.error}"
        return result, ""

    # -- the three routes ---------------------------------------------------------------

    def _constraint_forms(self) -> tuple[sp.Expr, ...] | None:
        try:
            return tuple(elementary(to_sympy(c.expr, self.variable, SYMBOL)) for c in self.expression.domain)
        except UnsupportedAtom:
            return None
        except Exception as error:  # noqa: BLE001 - sympy_failure: the other routes settle the domain
            _LOG.info("verify: %s", sympy_failure("build the domain constraints' forms", error))
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
            arguments = (self.elementary, SYMBOL, self._constraint_forms())
            try:
                # sympy cut short is killed with its worker: the validated bounds that follow get a spare one
                result, note = self._run(loss_facts, lambda seconds: arguments, SYMPY_SHARE, "sympy", on_item,
                                         spare=True)
            finally:
                close()
            self.sympy_note = note or self.sympy_note
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
            on_item, close = self._reporter(len(validated.FACTS), "validated bounds")
            symbolic = self.symbolic
            try:
                result, note = self._run(
                    validated.validated_facts,
                    lambda seconds: (symbolic, SYMBOL, validated.FACTS, validated.BOX_BUDGET,
                                     VALIDATED_SELF_STOP * seconds),
                    1.0, "the validated bounds", on_item)
            finally:
                close()
            self._proof = dict(result.items)
            if any(validated.TIME_LIMIT_REASON in str(getattr(fact, "reason", fact))
                   for fact in self._proof.values()):
                self.timed_out = True  # a bound cut short by the clock: do not cache it
            self.validated_note = note or self.validated_note
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
            evaluate = None
            if self.symbolic is not None:
                # not printed, or printed as code the loader refuses, or sympy failed on the form (sympy_failure):
                # CVXPY evaluates the loss
                try:
                    evaluate = lambdify(SYMBOL, self.symbolic.rewrite(sp.Piecewise))
                except UnsafeCode:
                    pass
                except Exception as error:  # noqa: BLE001 - sympy_failure
                    _LOG.info("verify: %s; CVXPY evaluates it on the grid", sympy_failure("print the loss", error))
            self._numeric = numeric.analyse(cvxpy_evaluator(self.loss) if evaluate is None else evaluate)
        return self._numeric

    def after_sympy(self) -> str:
        """Why the validated route was needed, for the detail of a validated condition."""
        return f"; {self.sympy_note}" if self.sympy_note else ""

    def estimate_fix(self, finding: str, fix: str) -> str:
        """The fix of a condition the test grid's ESTIMATE failed: ``fix`` alone, or, when the proofs were cut short
        by the time limit, first a longer time_limit. Finite differences of a smooth loss of large values cancel: under
        time_limit = 1 s the grid read kinks into a C-infinity loss that the default 20 s proves C^2, and the refusal
        advised only smoothing (an attacker probe)."""
        if not self.timed_out:
            return fix
        return (f"{finding} is only an estimate of the test grid (finite differences of a smooth loss of large values "
                f"can show one), and the proofs were cut short: give a longer time_limit (it is "
                f"{self.budget.seconds:g} s) for them to settle it; if the estimate is right, {fix}")

    def why_estimate(self) -> str:
        reasons = [self.translation_error or self.sympy_note or "sympy could not settle it exactly"]
        if self.validated_note and not self.translation_error:
            reasons.append(self.validated_note)
        return "ESTIMATE, not a proof (" + "; ".join(reasons) + ")" + ESTIMATE_OPT_IN

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
        if self.numeric.overflow is not None:
            return self._domain_unproved(description, f"l(z) overflows in floating point at |z| = "
                                         f"{self.numeric.overflow:.3g} on the test grid (infinite there, while no "
                                         f"domain constraint is violated)")
        broken = violated_constraints(self.expression, self.variable, self.numeric.undefined)
        if not broken:
            where = ", ".join(f"{point:.6g}" for point in sorted(self.numeric.undefined, key=abs)[:3])
            return self._domain_unproved(description, f"l(z) is not finite at z = {where} on the test grid, where no "
                                         f"domain constraint is violated (the NaN or infinity comes from evaluating "
                                         f"l in floating point, such as inf - inf)")
        at = [f"{name} violated at z = {point:.6g}" for name, point in broken.items()]
        return self._domain_failure(description, "estimate", at, " on the test grid")

    _EVALUATION_FIX = ("rewrite the loss with atoms the verifier translates (docs/verifier.md) and so that it "
                       "evaluates without overflow: cp.logistic(u) for log(1 + exp(u)), cp.log_sum_exp for a log of "
                       "a sum of exponentials")

    def _domain_unproved(self, description: str, evidence: str) -> Condition:
        """Not established: the grid's only evidence against the domain is ``evidence``, l(z) infinite or NaN in
        floating point where no domain constraint is violated, and no route proved the domain. Overflow on the
        grid's tails (log1p(exp(-z)), the logistic loss, whose log1p has no translation) was reported as violating
        "-1 <= exp(-z)", which always holds; an evaluation such as inf - inf as violating every constraint."""
        reasons = self.translation_error or "; ".join(filter(None, (self.sympy_note, self.validated_note)))
        return Condition("domain", description, None, "unknown", "none",
                         f"not established: {evidence}, and nothing proved its domain ({reasons or 'no proof'})",
                         self._EVALUATION_FIX)

    @staticmethod
    def _domain_failure(description: str, method: str, violated: list[str], where: str = "") -> Condition:
        """Failed: the domain constraints ``violated`` (only those) fail for some real z."""
        return Condition(
            "domain", description, False, "a proper subset of R", method,
            f"l(z) is undefined or infinite for some real z (domain constraint {', '.join(violated)}{where})",
            "the margin z = y w^T x takes every real value; use a loss defined on all of R "
            "(for example logistic instead of -log)",
        )

    _SMOOTH_FIX = ("smooth the kink: dpcvx.losses.huber_hinge(h=0.5) replaces the hinge "
                   "max(0, 1 - z) of a classifier, dpcvx.losses.huber_regression(m=B / 4) (cp.huber(p - y, m), m in "
                   "the label's unit, B its bound) the absolute error |p - y| of a regression; in general use a "
                   "differentiable loss")

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
            return ", ".join(number_text(v) for v in values)

        if kinks:
            fix = self.estimate_fix("the kink", self._SMOOTH_FIX) if method == "estimate" else self._SMOOTH_FIX
            first = Condition(*c1, False, "no", method, f"l' jumps at z = {points(kinks)}{detail_suffix}", fix)
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
        if lowest is not None and lowest[0].is_nonnegative is None:  # its sign undecided: the other routes settle it
            self.sympy_note = self.sympy_note or f"sympy could not decide the sign of inf l'' = {lowest[0]}"
            lowest = None
        if lowest is not None:
            inf_second, upward, discontinuities = lowest
            if inf_second.is_nonnegative and upward and not discontinuities:
                return Condition("convexity", description, True, "yes", "symbolic",
                                 f"l'' >= 0 on every piece and l' never jumps down; {dcp}")
            if not inf_second.is_nonnegative:
                why = f"l''(z) reaches {number_text(inf_second)} < 0"
            elif discontinuities:
                why = f"l jumps at z = {', '.join(number_text(point) for point in discontinuities)}"
            else:
                why = "l'' >= 0 on every piece, but l' jumps down at a kink"
            return Condition("convexity", description, False, "no", "symbolic", f"{why}; {dcp}", fix)
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
                         f"l' decreases somewhere on the test grid; {dcp}",
                         self.estimate_fix("the decrease of l'", fix))

    def bound(self, name: str, order: int, differentiable: bool, how: str = "symbolic") -> Condition:
        symbol = {1: "L = sup |l'(z)|", 2: "c = sup |l''(z)|"}[order]
        what = "l'(z)" if order == 1 else "l''(z)"
        description = f"{symbol} is finite"
        unbounded_fix = _UNBOUNDED_FIX[order]
        if order == 2 and not differentiable:
            return Condition(name, description, False, None, how,
                             "l' jumps, so l'' is unbounded (a point mass at each kink)",
                             "use a C^1 loss such as dpcvx.losses.huber_hinge(h=0.5)")
        exact = plain(self._fact(f"sup{order}"))  # a Fraction, inf, or an irrational sympy number
        if exact is not None:
            if exact == math.inf:
                return Condition(name, description, False, exact, "symbolic", f"|{what}| is unbounded",
                                 unbounded_fix)
            if beyond_doubles(exact):
                return Condition(name, description, False, exact, "symbolic",
                                 f"sup |{what}| = {magnitude_text(exact)} is finite but too large for floating point "
                                 f"(the largest double is {sys.float_info.max:.3g})", _TOO_LARGE_FIX)
            return Condition(name, description, True, exact, "symbolic", "exact supremum over R")
        proved = self._proved(f"sup{order}")
        if proved is not None and proved.finite:
            return Condition(name, description, True, proved.upper, "validated",
                             f"upper bound by interval arithmetic over all of R ({proved.boxes} boxes); "
                             f"|{what}| reaches {proved.lower:.6g}{self.after_sympy()}")
        if proved is not None and proved.lower == math.inf:
            return Condition(name, description, False, math.inf, "validated",
                             f"|{what}| exceeds the largest double, {sys.float_info.max:.3g}, somewhere (interval "
                             "arithmetic): it is unbounded or too large for floating point",
                             f"{unbounded_fix}; {_TOO_LARGE_FIX}")
        if proved is not None and proved.lower > _UNBOUNDED_WITNESS:
            return Condition(name, description, False, math.inf, "validated",
                             f"|{what}| is unbounded: it reaches {proved.lower:.3g} (interval arithmetic)",
                             unbounded_fix)
        if proved is not None and not self.validated_note:
            self.validated_note = f"no validated bound: {proved.reason or 'no finite enclosure'}"
        estimate = self.numeric.lipschitz if order == 1 else self.numeric.curvature
        value = math.inf if not np.isfinite(estimate) else float(estimate)
        note = (f"grid maximum x (1 + {numeric.SAFETY_FACTOR:g}) safety factor; {self.why_estimate()}")
        if value == math.inf:
            return Condition(name, description, False, value, "estimate",
                             f"|{what}| overflows floating point on the test grid: it is unbounded or too large "
                             f"for floating point; {note}",
                             self.estimate_fix("the overflow", f"{unbounded_fix}; {_TOO_LARGE_FIX}"))
        return Condition(name, description, True, value, "estimate", note)

    def slope_sign(self) -> Condition:
        """Whether l' has one sign on all of R: l'(z) <= 0 for every z (a non-increasing margin loss: logistic, the
        smoothed hinges) or l'(z) >= 0. Proved symbolically (the exact extremes of l' that L is taken from), else by
        validated bounds (interval arithmetic: inf of -l', or of l', proved >= 0); never estimated. Not a condition of
        any theorem: when it holds, the Gaussian objective perturbation is calibrated by the tighter profile of
        docs/theory.md, section 12.3 (the shift set of neighbours is a segment [0, L v], not [-L v, L v]); otherwise
        (not proved, or l' changes sign) by the general one, which is always valid."""
        name, description = SLOPE_SIGN
        general = "; the Gaussian objective perturbation uses the general profile (docs/theory.md, section 12.3)"
        extremes = self._fact("slope")
        if extremes is not None:
            lowest, highest = extremes
            if highest.is_extended_nonpositive:
                return Condition(name, description, True, NON_INCREASING, "symbolic",
                                 f"sup l'(z) over R = {number_text(highest)} (exact)")
            if lowest.is_extended_nonnegative:
                return Condition(name, description, True, NON_DECREASING, "symbolic",
                                 f"inf l'(z) over R = {number_text(lowest)} (exact)")
            if lowest.is_extended_negative and highest.is_extended_positive:
                return Condition(name, description, False, SIGN_CHANGE, "symbolic",
                                 "l' takes both signs (its exact infimum over R is negative, its supremum positive)"
                                 + general)
        bounds = self._proved("sign1")
        if bounds is not None:
            falling, rising = bounds
            if falling.nonnegative:
                return Condition(name, description, True, NON_INCREASING, "validated",
                                 f"interval enclosures of l' are <= 0 on every box of R ({falling.boxes} boxes)"
                                 + self.after_sympy())
            if rising is not None and rising.nonnegative:
                return Condition(name, description, True, NON_DECREASING, "validated",
                                 f"interval enclosures of l' are >= 0 on every box of R ({rising.boxes} boxes)"
                                 + self.after_sympy())
            if falling.witness is not None and rising is not None and rising.witness is not None:
                return Condition(name, description, False, SIGN_CHANGE, "validated",
                                 f"l'({falling.witness:.6g}) > 0 and l'({rising.witness:.6g}) < 0 (interval "
                                 "arithmetic)" + general)
        reasons = self.translation_error or "; ".join(filter(None, (self.sympy_note, self.validated_note)))
        return Condition(name, description, None, None, "none",
                         f"not proved ({reasons or 'no proof'}); never estimated" + general)

    def conditions(self) -> tuple[Condition, ...]:
        declaration = Condition("declaration", "loss(z) is a scalar CVXPY expression of z", True,
                                "ok", "given", str(self.expression))
        domain = self.domain()
        if not domain.passed:
            return (declaration, domain, *pending_conditions("needs l defined on all of R"))
        first, second, kinks, _ = self.smoothness()
        return (
            declaration,
            domain,
            self.convexity(None),
            first,
            second,
            self.bound("lipschitz", 1, True),
            self.bound("curvature", 2, first.passed is True, first.method),
            self.slope_sign(),
        )

    def derivative_code(self, conditions: tuple[Condition, ...]) -> tuple[str, str, str] | None:
        """The numpy code of l, l', l'' for the fast solver (:mod:`.numpy_code`), when the loss was translated
        and is C^1; None otherwise."""
        differentiable = next(c for c in conditions if c.name == "differentiability").passed
        if self.symbolic is None or not differentiable:
            return None
        try:
            form = self.symbolic.rewrite(sp.Piecewise)
            return (numpy_code(SYMBOL, form), numpy_code(SYMBOL, sp.diff(form, SYMBOL)),
                    numpy_code(SYMBOL, sp.diff(form, SYMBOL, 2)))
        except UnsafeCode:
            raise
        except Exception as error:  # noqa: BLE001 - sympy_failure: as refused code, the generic solver is used
            raise UnsafeCode(sympy_failure("print the derivatives' code", error)) from None
