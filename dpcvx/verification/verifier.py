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

import functools
import logging
import re
import sys
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import InputError
from ..limits import PROBE_DIM
from ..validation import POSITIVE_MIN, check_callable, check_flag, sample_size
from . import loss_record
from .certificate import Certificate, Condition
from .deadline import Budget
from .exact import beyond_doubles, float_down, magnitude_text
from .loss_declaration import (
    CONSTANT_FIX,
    LOSS_CONDITIONS,
    SYMBOLIC_SECONDS,
    UnfixedConstant,
    check_constants,
    check_time_limit,
    declared_loss,
    pending_conditions,
)
from .numpy_code import UnsafeCode
from .problem import Loss, LossDerivatives, Quadratic, Regularizer, VerifiedLoss, VerifiedProblem, VerifiedRegularizer
from .regularizer.analysis import RegularizerAnalysis
from .scaled_huber import HUBER, UNIT_THRESHOLD, scaled_huber

if TYPE_CHECKING:  # pragma: no cover - CVXPY is imported where an expression is built (a catalogue fit needs none)
    import cvxpy as cp

    from .constraints import Constraints
    from .per_record import NotSeparable

__all__ = [
    "verify",
    "verify_loss",
    "verify_regularizer",
    "default_regularizer",
    "LossDerivatives",
    "VerifiedLoss",
    "VerifiedRegularizer",
    "verify_problem",
    "catalogue_loss",
    "default_ridge",
    "SYMBOLIC_SECONDS",
]
_LOG = logging.getLogger("dpcvx.verify")


def __getattr__(name: str) -> Any:
    if name == "SYMBOL":  # the loss's sympy symbol: sympy is imported only when it is asked for
        from .loss_analysis import SYMBOL

        return SYMBOL
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _readable(expression: cp.Expression) -> str:
    """CVXPY's text of an expression, with its internal forms written as a user writes them."""
    text = re.sub(r"quad_over_lin\((.+?), 1\.0, None, False\)", r"sum_squares(\1)", str(expression))
    text = re.sub(r"PowerApprox\((.+?), 2\.0\)", r"square(\1)", text)
    text = re.sub(r"reshape\(([^(),]+|[^(),]*\([^()]*\)[^(),]*), \(1,\), F\)", r"\1", text)
    text = re.sub(r"log_sum_exp\(Hstack\((.+?)\), None, False\)", r"log_sum_exp(hstack([\1]))", text)
    return re.sub(r"(Pnorm|PnormApprox)\(Hstack\((.+?)\), 2\)", r"norm(hstack([\2]))", text)


def loss_text(loss: Loss) -> str:
    """The verifier's text of ``loss`` (:func:`_readable` of its expression of z): a certificate's ``loss``, which
    the file reader rebuilds for a catalogue loss at the parameter the recorded constants give."""
    return _readable(declared_loss(loss)[1])


def regularizer_text(regularizer: Regularizer, dim: int) -> str:
    """The verifier's text of ``regularizer`` at dimension ``dim`` (:func:`_readable` of N(w)): a certificate's
    ``regularizer``, which the file reader rebuilds for a built-in ridge from the recorded constants."""
    return _readable(declared_regularizer(regularizer, dim)[1])


def default_regularizer(w: cp.Variable) -> cp.Expression:
    """N(w) = 0.5 ||w||^2, 1-strongly convex."""
    import cvxpy as cp

    return 0.5 * cp.sum_squares(w)


#: The verifier's text of :func:`default_regularizer` (``_readable`` of its expression).
DEFAULT_REGULARIZER_TEXT = "0.5 * sum_squares(w)"


# --- structural keys ------------------------------------------------------------


def _structural_key(node: Any) -> tuple[Any, ...]:  # a CVXPY tree node (cvxpy types get_data() as None)
    import cvxpy as cp

    if isinstance(node, cp.Variable):
        return ("variable", node.shape)
    if isinstance(node, cp.Constant):  # a declaration holds no cp.Parameter (loss_declaration.check_constants)
        value: Any = node.value
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

#: :func:`verify_problem`'s problems without a constraint set or a composite N, by the verified loss and regularizer
#: it was made of (the objects the caches above keep; the entry holds them, so their ids stay theirs) and the
#: options that enter the certificate (dimension, strict, allow_estimates): every fit of one declaration at one
#: width gets the same certificate, whose verdicts and safely rounded constants are then computed once. Public
#: declarations only, never data. At most _PROBLEMS_KEPT are kept.
#: what a regularizer is, as a refusal of one that is not callable says it
REGULARIZER_SIGNATURE = "w -> CVXPY expression"

_PROBLEMS: dict[tuple[int, int, int, bool, bool], VerifiedProblem] = {}
_PROBLEMS_KEPT = 256


#: How a loss analysis ended (:func:`_analysed`), which decides what is cached: a complete analysis is kept in this
#: process and on disk; one cut short by the time limit on disk only, with that limit (it serves calls with a limit
#: no larger); a failed one (a worker that died or raised) nowhere, so that the next verification tries again.
COMPLETE, CUT_SHORT, FAILED = "complete", "cut short", "failed"


def forget_losses() -> None:
    """Empty this process's cache of verified losses (the catalogue is proved afresh), and the problems made of
    them."""
    _LOSS_CACHE.clear()
    _PROBLEMS.clear()


# --- loss ---------------------------------------------------------------------------


def _error_text(error: Exception) -> str:
    """A declaration's error as its condition states it: the message of a constant refused by
    :func:`check_constants` (it names the cause), any other error with its type."""
    return str(error) if isinstance(error, UnfixedConstant) else f"{type(error).__name__}: {error}"


def _constant_error(error: Exception) -> bool:
    """Whether a declaration failed on one of its constants: refused by :func:`check_constants`, or beyond the
    doubles CVXPY converts it to (an OverflowError: a regularizer 10**309 * cp.sum_squares(w) was told to "pass a
    callable such as ...", which it had)."""
    return isinstance(error, (UnfixedConstant, OverflowError))


def declaration_fix(loss: Any, error: Exception) -> str:
    """The fix of a loss that could not be declared, the one change that makes the call work, in the words of its
    reader (a ``dpcvx`` command's loss file, else Python): a constant that cannot be proved (:data:`CONSTANT_FIX`);
    a factory of :mod:`dpcvx.losses` passed uncalled (``loss=dpcvx.losses.logistic``: the factory, called on z,
    is no loss): call it, or pass its name; a callable of two positional arguments (scikit-learn's ``loss(z, y)``,
    or a regression's l(p, y) given to a classifier): a margin loss takes z = y w^T x alone; else a callable of z.
    Every entry (PrivateERM, the estimators, tune, verify, the command line) fails a declaration here."""
    from ..advice import command_line_runs
    from ..losses import CATALOGUE
    from .prediction_loss import takes_prediction_and_label

    if _constant_error(error):
        return CONSTANT_FIX
    factory = next((name for name, make in CATALOGUE.items() if loss is make), None)
    if factory is not None:
        example = {"huber_hinge": "h=0.5", "huber": "h=0.5", "huber_regression": "m=1.0"}.get(factory, "")
        spec = f"{factory}:{example}" if example else factory
        return (f"dpcvx.losses.{factory} makes the loss and is not one: call it, dpcvx.losses.{factory}({example}), "
                f"or pass its name, {spec!r}")
    where = "in the file " if command_line_runs() else ""
    if takes_prediction_and_label(loss):
        return (f"a margin loss takes z = y w^T x alone (the label is in z): define loss(z) {where}with one "
                "argument, for example loss = lambda z: cp.logistic(-z)")
    if command_line_runs():
        return ("define loss(z) in the file as a scalar CVXPY expression of z, for example "
                "loss = lambda z: cp.logistic(-z)")
    return ("pass a callable such as lambda z: cp.logistic(-z) that maps a scalar cp.Variable to a scalar CVXPY "
            "expression")


def _failed_declaration(loss: Any, error: Exception) -> VerifiedLoss:
    condition = Condition(
        "declaration", "loss(z) is a scalar CVXPY expression of z", False, None, "none",
        _error_text(error), declaration_fix(loss, error),
    )
    domain = ("domain", "l(z) is finite for every real z")
    pending = pending_conditions("the loss could not be declared", (domain, *LOSS_CONDITIONS))
    return VerifiedLoss("<invalid loss>", (condition, *pending), False, None)


def verify_loss(loss: Loss, *, time_limit: float | None = None, progress: bool = False) -> VerifiedLoss:
    """Establish the loss conditions (cached by expression structure). Never raises on a bad loss.

    ``time_limit`` (seconds, default 20) is a deadline for the whole
    verification (:func:`verification_budget`): its worker-process calls (sympy,
    then the validated bounds) share it (:class:`~dpcvx.verification.deadline.Budget`),
    and end :data:`AFTER_WORK_SECONDS` before it, kept for the caller's own work after
    them (printing the numpy code of the derivatives, the grid estimates: about
    0.15 s for the losses of the tests); the caller's work before them (declaring and
    translating the loss) counts against the limit. The one exception is the first
    verification of the process that waits for the worker process: its one start-up
    (importing sympy, 2 to 5 s; at most :data:`~dpcvx.verification.deadline.STARTUP_SECONDS`)
    is not counted. A worker killed at a deadline is replaced in the background, and a
    later wait for a start-up counts against the limit; a worker that cannot start or dies
    while starting fails the call (nothing runs in the caller's process, where no limit
    could stop it). What it cut short is reported as not proved, and the analysis is
    not cached in the process, so a later call with a longer limit tries again. ``progress``
    shows a tqdm bar when tqdm is installed (else logs to "dpcvx.verify").
    Raises :class:`~dpcvx.exceptions.InputError` only for an invalid ``time_limit``.
    """
    return verify_loss_within(loss, verification_budget(time_limit), progress)


#: Seconds of a verification's time limit (at most half of it) kept back, after the worker calls, for the caller's
#: own work that follows them and cannot be interrupted: the grid estimates, printing and compiling the numpy code
#: of the derivatives (about 0.15 s for the losses of the tests; it grows with the size of the expression), the
#: regularizer's analysis and the certificate. Before, that work came after the deadline. It was 0.25 s, and on a
#: busy two-core machine (CI beside other jobs) that work took up to 0.37 s, past the limit: twice the quiet cost and
#: more is kept.
AFTER_WORK_SECONDS = 0.5


def verification_budget(time_limit: Any) -> Budget:
    """The one deadline of a verification with ``time_limit`` (checked: :func:`check_time_limit`), started now:
    every stage of it (the loss's worker calls, a kernel learner's extra loss facts) draws on what is left."""
    seconds = check_time_limit(time_limit)
    return Budget(seconds, reserve=min(AFTER_WORK_SECONDS, seconds / 2))


def verify_loss_within(loss: Loss, budget: Budget, progress: bool = False) -> VerifiedLoss:
    """:func:`verify_loss` within ``budget``, a verification's deadline that later stages share too."""
    seconds = budget.seconds
    served = catalogue_loss(loss, seconds)
    if served is not None:
        return served
    from .per_record import NotSeparable, check_separable

    try:
        variable, expression = declared_loss(loss)
        key = _structural_key(expression)
    except Exception as error:  # verify reports a bad user loss, it does not raise
        return _failed_declaration(loss, error)
    if key not in _LOSS_CACHE:
        try:
            check_separable(expression, variable)
        except NotSeparable as error:
            _LOSS_CACHE[key] = _not_separable(_readable(expression), error, expression, variable)
            return _LOSS_CACHE[key]
        try:
            record_key = loss_record.record_key(key)
        except loss_record.Unencodable:
            record_key = None
        found = None if record_key is None else loss_record.lookup(record_key, seconds)
        if found is not None:  # served from the shipped catalogue or the disk: no sympy
            record, derivatives = found
            _LOSS_CACHE[key] = VerifiedLoss(record.text, record.conditions, record.dcp_convex, derivatives,
                                            (variable, expression))
            return _LOSS_CACHE[key]
        verified, code, outcome = _analysed(loss, variable, expression, budget, progress)
        if outcome == FAILED:  # a crash is no verdict on the loss: nothing is kept, the next call proves again
            return verified
        if record_key is not None:  # cut short: kept with its limit, for calls with a limit no larger
            limit = None if outcome == COMPLETE else seconds
            loss_record.keep(record_key, loss_record.LossRecord(verified.text, verified.conditions,
                                                                verified.dcp_convex, code, limit))
        if outcome != COMPLETE:
            return verified
        _LOSS_CACHE[key] = verified
    return _LOSS_CACHE[key]


def catalogue_loss(loss: Loss, seconds: float = SYMBOLIC_SECONDS) -> VerifiedLoss | None:
    """A catalogue loss (exactly a :class:`dpcvx.losses.MarginLoss`: :func:`dpcvx.losses.catalogue_entry`) served
    from the shipped catalogue by its name, without building its expression (no CVXPY): the record is the one the
    verifier wrote for exactly that loss's expression when the catalogue was written
    (:func:`dpcvx.verification.loss_record.template_lookup`; tests/verification/test_catalogue_template.py verifies
    each afresh and compares). The Huber loss of the residual at a threshold m other than 1 is the shipped m = 1
    record scaled exactly (:mod:`.scaled_huber`). None otherwise: the loss is then verified from its expression.

    What is certified is what is solved: the served loss's expression (built on first use, for a solver that needs
    it) is the catalogue's own, rebuilt from the name, never the caller's object. A subclass of ``MarginLoss`` is no
    catalogue entry (its ``__call__`` may return another expression, such as logistic(-10 z) under the name
    "logistic"), and before it was served the shipped proof, its own expression handed to a user solver, and its
    ``build`` kept under the name for every later fit of that name in the process."""
    from ..losses import MarginLoss, catalogue_entry

    entry = catalogue_entry(loss)
    if entry is None:
        return None
    key = ("catalogue template", entry.spec)
    if key not in _LOSS_CACHE:
        found = loss_record.template_lookup(entry.spec, seconds)
        threshold = dict(entry.params).get("m", UNIT_THRESHOLD)
        if found is None and entry.name == HUBER and threshold != UNIT_THRESHOLD:  # scaled from the shipped m = 1
            unit = catalogue_loss(MarginLoss(HUBER, (("m", UNIT_THRESHOLD),)), seconds)
            if unit is None:
                return None
            _LOSS_CACHE[key] = scaled_huber(unit, entry, threshold)
            return _LOSS_CACHE[key]
        if found is None:
            return None
        record, derivatives = found
        _LOSS_CACHE[key] = VerifiedLoss(record.text, record.conditions, record.dcp_convex, derivatives,
                                        build=functools.partial(declared_loss, entry))
    return _LOSS_CACHE[key]


def _analysed(loss: Loss, variable: cp.Variable, expression: cp.Expression, budget: Budget,
              progress: bool) -> tuple[VerifiedLoss, tuple[str, str, str] | None, str]:
    """Prove the loss conditions (sympy; the provers' results may come from the proof cache).

    Returns the verified loss, the numpy code of its derivatives, and how the analysis ended: :data:`COMPLETE`,
    :data:`CUT_SHORT` (the time limit stopped a prover) or :data:`FAILED` (a worker call ended without a result:
    its process died, was killed or ran out of memory, or it raised; no verdict on the loss). The derivatives are
    compiled from that code, as a cached record's are, so a fresh and a cached verification give the solver the
    same functions.
    """
    from .loss_analysis import LossAnalyser

    analyser = LossAnalyser(loss, variable, expression, budget, progress)
    conditions = analyser.conditions()
    try:
        code = analyser.derivative_code(conditions)
        derivatives = loss_record.derivatives_of(code)
    except UnsafeCode as error:  # code not printed, or refused by the loader: the solver goes without derivatives
        _LOG.warning("verify: the derivatives' numpy code was refused (%s); the generic solver is used", error)
        code, derivatives = None, None
    verified = VerifiedLoss(_readable(expression), conditions, analyser.dcp_convex, derivatives, (variable, expression))
    return verified, code, FAILED if analyser.failed else CUT_SHORT if analyser.timed_out else COMPLETE


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
    pending = pending_conditions("the loss is not a separable sum over records", (domain, *LOSS_CONDITIONS))
    return VerifiedLoss(text, (condition, *pending), False, None, (variable, expression))


# --- regularizer ---------------------------------------------------------------------


def _regularizer_failure(text: str, detail: str, constant: bool = False) -> VerifiedRegularizer:
    """Every regularizer condition failed with ``detail``; ``constant``: refused by :func:`check_constants`."""
    fix = CONSTANT_FIX if constant else ("pass a callable such as lambda w: 0.5 * cp.sum_squares(w) returning a "
                                         "scalar CVXPY expression of w")
    names = (
        ("regularizer_convexity", "N is convex and finite on all of R^d"),
        ("strong_convexity", "N is m-strongly convex with m > 0"),
        ("regularizer_differentiability", "N is differentiable"),
        ("regularizer_twice_differentiability", "N is twice differentiable"),
    )
    conditions = tuple(Condition(name, description, False, None, "none", detail, fix)
                       for name, description in names)
    return VerifiedRegularizer(text, conditions, None)


def declared_regularizer(regularizer: Regularizer, dim: int) -> tuple[cp.Variable, Any]:
    """Call the regularizer once on a variable w of dimension ``dim``: (w, N(w)) (checked by the caller)."""
    import cvxpy as cp

    w = cp.Variable(dim, name="w")
    return w, regularizer(w)


@functools.lru_cache(maxsize=64)
def default_ridge(dim: int) -> VerifiedRegularizer:
    """The verified default N(w) = 0.5 ||w||^2 at dimension ``dim``, without CVXPY: what the calculus establishes
    for it at every dimension (N = (1/2) w^T (1 I) w: convex, finite, smooth, m = 1 exactly, a multiple of the
    identity; tests/verification/test_catalogue_template.py compares with the calculus's result at several
    dimensions). Its expression is built on first use (:class:`~.problem.VerifiedRegularizer`). Made once per
    dimension, as :data:`_REGULARIZER_CACHE` keeps a declared N: the same object for every fit at that width
    (:func:`verify_problem` keeps its problems by it)."""
    analysis = RegularizerAnalysis(dim, True, True, Fraction(1), True, True, True, Quadratic(Fraction(1)),
                                   notes=("m: multiple of the identity",))
    return VerifiedRegularizer(DEFAULT_REGULARIZER_TEXT, _regularizer_conditions(analysis), analysis,
                               build=functools.partial(declared_regularizer, default_regularizer, dim))


def verify_regularizer(regularizer: Regularizer | None, dim: int) -> VerifiedRegularizer:
    """Apply the regularizer calculus at dimension ``dim`` (cached). Never raises on a bad N.

    The default (``None`` or :func:`default_regularizer`) is :func:`default_ridge`: its facts need no CVXPY."""
    if regularizer is None or regularizer is default_regularizer:
        return default_ridge(dim)
    import cvxpy as cp

    from .regularizer import analyse_regularizer

    try:
        w, expression = declared_regularizer(regularizer, dim)
        if not isinstance(expression, cp.Expression) or expression.size != 1:
            raise TypeError("regularizer(w) must return a scalar CVXPY expression")
        check_constants(expression, "regularizer(w)")
        key = (_structural_key(expression), dim)
    except Exception as error:  # a bad user regularizer becomes a failing certificate
        return _regularizer_failure("<invalid regularizer>", f"{_error_text(error)} (at dimension {dim})",
                                    _constant_error(error))
    if key not in _REGULARIZER_CACHE:
        text = _readable(expression)
        try:
            analysis = analyse_regularizer(expression, w)
        except Exception as error:  # noqa: BLE001 - reported in the certificate
            return _regularizer_failure(text, f"{type(error).__name__}: {error}")
        _REGULARIZER_CACHE[key] = VerifiedRegularizer(text, _regularizer_conditions(analysis), analysis,
                                                      (w, expression))
    return _REGULARIZER_CACHE[key]


def _regularizer_conditions(analysis: RegularizerAnalysis) -> tuple[Condition, ...]:
    ridge = "add a strongly convex term such as 0.5 * cp.sum_squares(w)"
    smooth_fix = ("Theorems 1 and 2 need a differentiable regularizer; use 0.5 * cp.sum_squares(w) "
                  "or cp.quad_form(w, P) with P positive definite, and write a smooth term with smooth atoms "
                  "(cp.square(cp.sum_squares(w)) for ||w||^4, cp.sum(cp.power(w, 4)), cp.sum(cp.exp(w))); or, for "
                  "objective perturbation (KST12), a * cp.norm1(w) and/or group norms c * cp.norm(w[g], 2) over "
                  "disjoint index sets g, plus a quadratic")
    convex = analysis.convex and analysis.finite_everywhere
    if not analysis.convex:
        detail, fix = (("N is concave, not convex" if analysis.concave else
                        "CVXPY's DCP rules do not prove N convex (it is not convex, or convex in a form they do not "
                        "follow)"),
                       "use a convex regularizer as the DCP rules build it: convex atoms (cp.sum_squares, "
                       "cp.quad_form with P positive semidefinite, cp.norm1) of affine expressions of w, with "
                       "nonnegative weights")
    else:
        detail, fix = (f"N is infinite or undefined for some w: its atoms' domain constraint "
                       f"{', '.join(analysis.restricting)} fails there (cp.log, cp.inv_pos, cp.sqrt, cp.entr and "
                       "fractional powers are finite only on part of R^d)",
                       "use a regularizer finite on all of R^d (such as 0.5 * cp.sum_squares(w)); a set the weights "
                       "must stay in is declared with constraints= (KST12), not with the regularizer's domain")
    convexity = Condition(
        "regularizer_convexity", "N is convex and finite on all of R^d", convex,
        "yes" if convex else "no", "dcp",
        "CVXPY's DCP rules" if convex else detail, "" if convex else fix,
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
    if analysis.nonconvex_terms:
        strong = Condition(
            "strong_convexity", strong.description, None, None, "none",
            f"m is not established: the term {', '.join(analysis.nonconvex_terms)} of N is not convex by CVXPY's DCP "
            "rules, so it may lower N's Hessian below the quadratic terms' (-0.1 * cp.sum(cp.huber(w, 1)) takes 0.2 "
            "off that of 0.5 * cp.sum_squares(w)); the calculus counts a non-quadratic term as adding 0 to m only "
            "when it is convex",
            "write N as quadratic terms (whose Hessian the calculus reads exactly, with any sign) plus convex terms "
            "with nonnegative weights, such as 0.5 * cp.sum_squares(w) + 0.1 * cp.sum(cp.huber(w, 1))")
    elif beyond_doubles(m):
        strong = Condition(
            "strong_convexity", strong.description, False, m, "symbolic",
            f"m = {magnitude_text(m)} is too large for floating point (the largest double is "
            f"{sys.float_info.max:.3g}): {how}",
            "scale the regularizer down so that its curvature is a double (a release computes with doubles)")
    elif positive and float_down(m) < POSITIVE_MIN:
        strong = Condition(
            "strong_convexity", strong.description, False, m, "symbolic",
            f"the regularizer's modulus m = {magnitude_text(m)} is positive but below the smallest normal double "
            f"({POSITIVE_MIN:.3g}): as a double it is 0 or subnormal, with too few digits for a calibration's "
            f"safe-side rounding (the one rule for output and objective perturbation alike): {how}",
            f"scale the regularizer up so that m is at least {POSITIVE_MIN:.3g}: k * N with lam / k is the same "
            "objective with k times the modulus (or raise N's smallest quadratic coefficients)")
    powers = any(name.startswith("cp.power") for name in analysis.unknown_atoms)
    unproved = f"no smoothness rule for {', '.join(analysis.unknown_atoms)}" + (
        " (a power is proved smooth only for an integer exponent >= 2; cp.sqrt and cp.inv_pos are powers)"
        if powers else "")
    nonsmooth = (f"N holds {', '.join(analysis.nonsmooth_atoms)}: not differentiable everywhere (a norm or cp.abs "
                 "at 0, a maximum where its arguments cross); each atom is judged on its own, so a smooth composition "
                 "of one, such as cp.power(cp.norm(w), 3), is not proved smooth either")
    c1_only = (f"N holds {', '.join(analysis.c1_only_atoms)}: differentiable, but its second derivative jumps")

    def smoothness(name: str, description: str, verdict: bool | None, twice: bool) -> Condition:
        if verdict:
            return Condition(name, description, True, "yes", "symbolic", "every atom is smooth")
        if verdict is None:
            return Condition(name, description, None, "unknown", "none", unproved, smooth_fix)
        if not analysis.nonsmooth_atoms:  # only C^1 atoms: N is differentiable, not twice
            return Condition(name, description, False, "no", "symbolic", c1_only,
                             "objective perturbation needs N twice differentiable: replace those terms by smooth "
                             "ones (0.5 * cp.sum_squares(w)), or use mechanism='output', which needs N "
                             "differentiable only")
        reasons = [nonsmooth, c1_only] if twice and analysis.c1_only_atoms else [nonsmooth]
        return Condition(name, description, False, "no", "symbolic", "; ".join(reasons), smooth_fix)

    return (
        convexity,
        strong,
        smoothness("regularizer_differentiability", "N is differentiable", analysis.differentiable, False),
        smoothness("regularizer_twice_differentiability", "N is twice differentiable",
                   analysis.twice_differentiable, True),
    )


# --- entry point -------------------------------------------------------------------------


def verify(
    loss: Loss | str,
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
    loss : callable or str
        ``z -> l(z)``, a scalar CVXPY expression of the margin ``z = y w^T x``, or the name of a catalogue loss
        (``"logistic"``, ``"huber_hinge:h=0.5"``: :func:`dpcvx.losses.from_spec`, as ``PrivateERM`` takes it).
    regularizer : callable, optional
        ``w -> N(w)``; default ``0.5 * cp.sum_squares(w)``.
    dim : int, optional
        Dimension at which N is analysed (default 3; a fit re-verifies at the
        data's dimension).
    strict : bool
        Refuse estimated conditions even when ``allow_estimates`` is set.
        Proofs (symbolic, validated, DCP) are always accepted. Without
        ``allow_estimates`` it would change nothing: refused (InputError).
    allow_estimates : bool
        Accept grid estimates (method "estimate") for what neither sympy nor
        the validated bounds proved. The certificate is then *conditional*
        (``cert.conditional``): its guarantee holds only if the estimated
        constants are right, which nothing checks. Default False: refused.
    time_limit : float, optional
        Seconds for the whole verification (default 20): sympy, then the
        validated bounds, share them (sympy at most half), leaving the last
        0.5 s (:data:`AFTER_WORK_SECONDS`, at most half the limit) for the
        caller's own work after them (numpy printing, grid
        estimates, the regularizer), so the call returns within them, except
        that the first verification of the process that waits for it also
        waits for one start-up of the worker process (importing sympy, 2 to
        5 s; never again in that process). What they did not prove in time is
        reported as not established (an estimate at best, refused unless
        ``allow_estimates=True``), never as proved.
    progress : bool
        Show progress (a tqdm bar when tqdm is installed, else log records of
        the "dpcvx.verify" logger at INFO level).
    constraints : callable, optional
        ``w -> [CVXPY constraints]``, the public closed convex set of
        ``PrivateERM(constraints=...)``. A set, an L1 or a group term poses the
        problem for KST12 (:mod:`dpcvx.verification.kst12`), as a fit does: the
        certificate's verdicts are the fit's (:mod:`dpcvx.verification.verdict`).

    Returns
    -------
    Certificate
        The :class:`~dpcvx.verification.certificate.Certificate`; a callable that declares no valid
        loss or regularizer (no scalar CVXPY expression, a broken condition) gives a failing certificate
        that says what failed and how to fix it.

    Raises
    ------
    InputError
        A loss that is neither a callable nor a catalogue name (an unknown name too), a regularizer or
        constraints that are not callable, ``dim`` not a positive integer of at most 2^63 - 1, or an
        invalid option.
    """
    return verify_problem(loss, regularizer, dim=PROBE_DIM if dim is None else dim, strict=strict,
                          allow_estimates=allow_estimates, time_limit=time_limit,
                          progress=progress, constraints=constraints).certificate


def verify_problem(
    loss: Loss | str,
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
    strict, allow_estimates = check_estimate_options(strict, allow_estimates)
    from ..losses import check_loss, from_spec

    # a catalogue name, as PrivateERM takes it (an unknown one refused, the known named); anything else not callable
    callable_loss: Loss = check_loss(from_spec(loss) if isinstance(loss, str) else loss)
    if regularizer is not None:
        check_callable("regularizer", regularizer, REGULARIZER_SIGNATURE)
    check_flag("progress", progress)
    budget = verification_budget(time_limit)
    verified_loss = verify_loss_within(callable_loss, budget, progress)
    verified_reg = verify_regularizer(regularizer, probe_dim)
    plain = constraints is None and not (verified_reg.analysis is not None and verified_reg.analysis.composite)
    key = (id(verified_loss), id(verified_reg), probe_dim, strict, allow_estimates)
    kept = _PROBLEMS.get(key) if plain else None
    if kept is not None and kept.loss is verified_loss and kept.regularizer is verified_reg:
        return kept
    certificate = Certificate(
        loss=verified_loss.text,
        regularizer=verified_reg.text,
        dim=probe_dim,
        conditions=verified_loss.conditions + verified_reg.conditions,
        strict=strict,
        allow_estimates=allow_estimates,
    )
    problem = VerifiedProblem(verified_loss, verified_reg, certificate)
    if plain:  # with_kst12 would return it unchanged (no constraint set, no L1 or group term)
        if len(_PROBLEMS) >= _PROBLEMS_KEPT:
            _PROBLEMS.clear()
        _PROBLEMS[key] = problem
        return problem
    from .kst12 import with_kst12

    return with_kst12(problem, constraints)


def check_estimate_options(strict: Any, allow_estimates: Any,
                           names: tuple[str, str] = ("strict=True", "allow_estimates=True")) -> tuple[bool, bool]:
    """(strict, allow_estimates), each a flag (:func:`dpcvx.validation.check_flag`); InputError for ``strict`` without
    ``allow_estimates``: strict refuses the estimated constants that allow_estimates would accept, and without it
    they are refused already, so it would change nothing (it was accepted silently). ``names`` are the caller's
    words for the two (the command line's ``--strict``, ``--allow-estimates``)."""
    strict = check_flag("strict", strict)
    allow_estimates = check_flag("allow_estimates", allow_estimates)
    if strict and not allow_estimates:
        raise InputError(f"{names[0]} refuses estimated constants that {names[1]} would accept; without "
                         f"{names[1]} they are refused already, so {names[0]} alone changes nothing: pass both "
                         f"(a guarantee conditional on no estimate: every constant proved) or leave {names[0]} out")
    return strict, allow_estimates


def check_dim(dim: Any) -> int:
    """The dimension N is analysed at, a number of features: a positive int of at most 2^63 - 1, the largest size an
    array can have (:func:`dpcvx.validation.sample_size`)."""
    return sample_size(dim, "dim")
