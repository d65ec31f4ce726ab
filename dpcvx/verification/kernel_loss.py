"""Margin losses for the kernel learners: verified constants and the form the solver needs.

The kernel ERM of Jain and Thakurta (ICML 2013, eq. 2) only needs a convex,
L-Lipschitz loss l(z) of the margin z = y f(x) (the regularizer (lam/2)||w||^2
supplies the strong convexity), so the hinge max(0, 1 - z) is allowed here.
:func:`resolve_loss` takes L from :func:`dpcvx.verify` and prepares one of
two exact solver routes:

* C^1 losses (logistic, Huber hinge, ...): numpy l, l', l'' for Newton's method;
* two-piece linear losses l(z) = max(a1 z + c1, a2 z + c2), a1 < a2 (the
  hinge has a1 = -1, c1 = 1, a2 = c2 = 0): the dual box QP.

It also records l(0) and inf_z l(z) (exact, by sympy), which bound the norm
of the minimiser (:func:`dpcvx.privacy.kernel_calibrate.constraint_radius`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cvxpy as cp
import numpy as np

from ..exceptions import AssumptionError, InputError, LossDeclarationError
from ..losses import CATALOGUE, MarginLoss, from_spec, loss_label
from . import kernel_record
from .certificate import declaration_error
from .condition import ESTIMATE_OPT_IN
from .deadline import MIN_CALL_SECONDS, Budget
from .exact import Exact, exact_value, float_down, float_up
from .kernel_record import KernelFacts
from .per_record import substitute
from .problem import LossDerivatives
from .proof_cache import Unencodable
from .verifier import verification_budget, verify_loss_within

if TYPE_CHECKING:  # pragma: no cover - sympy is imported where the kernel loss's facts are proved
    import sympy as sp

    from .symbolic import RealFunction

__all__ = ["KernelLoss", "LossSpec", "TwoPieceLinear", "resolve_loss", "hinge", "loss_words", "kernel_facts",
           "KERNEL_CATALOGUE", "KERNEL_LOSS_NAMES", "check_off_zero"]

# What a kernel learner takes as its loss: "hinge", a catalogue spec, a MarginLoss or a callable z -> l(z).
LossSpec = str | MarginLoss | Callable[[cp.Expression], cp.Expression]

REQUIRED = ("declaration", "domain", "convexity", "lipschitz")

#: The kernel learners' own losses, whose facts the shipped proof catalogue holds (docs/kernels.md).
KERNEL_CATALOGUE = ("hinge", "logistic", "huber_hinge")

#: The loss names the kernel learners take: the hinge and the catalogue's classification (margin) losses. The
#: catalogue's regression losses are losses of a residual, smallest at 0, which :func:`check_off_zero` refuses.
KERNEL_LOSS_NAMES = tuple(sorted(("hinge", *(name for name, make in CATALOGUE.items()
                                             if make().task == "classification"))))


def hinge(z: cp.Expression) -> cp.Expression:
    """The hinge loss max(0, 1 - z); L = 1."""
    return cp.pos(1 - z)


def loss_words(text: str) -> str:
    """A kernel release's loss (the verified text its certificate holds) for a reader: the default hinge loss, whose
    text is CVXPY's form of :func:`hinge`, by its name; another loss as "the loss l(z) = ..."."""
    z = cp.Variable(name="z")
    return f"the hinge loss l(z) = {text}" if text == str(hinge(z)) else f"the loss l(z) = {text}"


@dataclass(frozen=True)
class TwoPieceLinear:
    """l(z) = max(a1 z + c1, a2 z + c2) with a1 < a2; l'(z) ranges over [a1, a2].

    The pieces meet at the kink z_k = (c1 - c2) / (a2 - a1). The convex conjugate on [a1, a2] is linear:
    l*(u) = -c1 - (c2 - c1)(u - a1)/(a2 - a1).
    """

    a1: float
    c1: float
    a2: float
    c2: float

    @property
    def conjugate_slope(self) -> float:
        return -(self.c2 - self.c1) / (self.a2 - self.a1)

    @property
    def kink(self) -> float:
        return (self.c1 - self.c2) / (self.a2 - self.a1)

    def fenchel_young(self, z: np.ndarray, u: np.ndarray) -> np.ndarray:
        """l(z) + l*(u) - u z for u in [a1, a2], written as (a2 - u)(z - z_k)_+ + (u - a1)(z_k - z)_+.

        Both forms are equal; this one sums products of non-negative factors, so its rounding is
        relative to the term itself, where l(z), l*(u) and u z are each of the size of the offsets c1, c2
        and cancel (a hinge term near 0 is computed as 1 - z - 1 + z).
        """
        offset = z - self.kink
        return (self.a2 - u) * np.maximum(offset, 0.0) + (u - self.a1) * np.maximum(-offset, 0.0)


@dataclass(frozen=True)
class KernelLoss:
    """A verified margin loss, ready for the kernel solvers: ``lipschitz`` is the exact L the verifier proved (a
    :class:`~fractions.Fraction`, an :class:`~dpcvx.verification.exact.Irrational` or a double, as a linear release's
    constants hold it), ``float(lipschitz)`` the double the solvers and calibrations compute with."""

    text: str
    lipschitz: Exact
    value_at_zero: float  # a double >= l(0) when proved (kernel_facts), else CVXPY's value
    infimum: float | None  # a double <= inf l; None: not established (or -infinity)
    derivatives: LossDerivatives | None  # the Newton route (C^1 losses)
    pieces: TwoPieceLinear | None  # the dual route (two-piece linear losses)
    curvature: float | None  # a double >= the proved sup l'' (None: not proved): the Newton route's budget

    @property
    def lipschitz_bound(self) -> float:
        """A double >= the proved L (``float(lipschitz)`` rounds to nearest): for the proved budget."""
        return float_up(self.lipschitz)


def _callable(loss: object) -> MarginLoss | Callable[[cp.Expression], cp.Expression]:
    if isinstance(loss, str):
        name = loss.strip().partition(":")[0].strip()
        if name not in KERNEL_LOSS_NAMES and name not in CATALOGUE:
            raise InputError(f"unknown loss {name!r}; the kernel learners take the losses "
                             f"{', '.join(KERNEL_LOSS_NAMES)} (parameters as in 'huber_hinge:h=0.5'), or a "
                             "callable z -> CVXPY expression")
        return hinge if loss.strip() == "hinge" else from_spec(loss)
    if isinstance(loss, MarginLoss) or callable(loss):
        return loss
    raise LossDeclarationError(
        "loss must be 'hinge', a catalogue spec such as 'logistic' or 'huber_hinge:h=0.5', or a "
        f"callable z -> CVXPY expression; got {type(loss).__name__}"
    )


def kernel_facts(expression: sp.Expr) -> tuple[float, float | None, tuple[float, float, float, float] | None]:
    """(l(0), inf l or None, the two-piece form's (a1, c1, a2, c2) or None) of a sympy loss.

    Run in the verifier's worker process, once per loss and installation: the result is kept by the
    loss's CVXPY structure (:mod:`.kernel_record`), shipped for the kernel learners' own losses, so a new
    process fits without the worker (1.5 s of a first TDDL fit's 1.8 s) or sympy's import."""
    from .loss_analysis import SYMBOL
    from .symbolic import RealFunction

    function = RealFunction(expression, SYMBOL)
    # rounded outwards: C reads l(0) - inf l, which each value rounded to its nearest double could understate by
    # an ulp of l(0) (log 2 read as 0.5 with l shifted by 2^51)
    value_at_zero = float_up(function.expression.subs(SYMBOL, 0))
    lowest = function.extremes(0)[0]
    infimum = None if lowest.is_infinite else float_down(lowest)
    return value_at_zero, infimum, _two_pieces(function)


def _two_pieces(function: RealFunction) -> tuple[float, float, float, float] | None:
    """The (a1, c1, a2, c2) of a continuous two-piece linear function, else None."""
    import sympy as sp

    from .loss_analysis import SYMBOL

    lines: list[tuple[sp.Expr, sp.Expr]] = []
    for piece in function.pieces:
        if sp.diff(piece.expression, SYMBOL, 2) != 0:
            return None
        slope = sp.diff(piece.expression, SYMBOL)
        line = (slope, sp.expand(piece.expression - slope * SYMBOL))
        if not lines or lines[-1] != line:
            lines.append(line)
    if len(lines) != 2 or function.jumps(0):
        return None
    (a1, c1), (a2, c2) = [(float(a), float(c)) for a, c in lines]
    return (a1, c1, a2, c2) if a1 < a2 else None


def _proved_facts(expression: cp.Expression, variable: cp.Variable,
                  budget: Budget) -> tuple[KernelFacts | None, str]:
    """(the loss's sympy facts (:func:`kernel_facts`), or None; why they are not established, "" when no time limit
    stopped them). From the shipped catalogue or the disk cache, found by the expression's structure without sympy
    (:mod:`.kernel_record`), else proved in the worker within what is left of the verification's ``budget`` and
    kept; None when sympy cannot state them in that time (then l(0) is evaluated by CVXPY and inf l is not
    established). Before, the worker call had its own 20 s beyond the verification's limit."""
    from . import deadline
    from .verifier import _structural_key

    try:
        key: str | None = kernel_record.facts_key(_structural_key(expression))
    except Unencodable:
        key = None
    found = None if key is None else kernel_record.lookup(key)
    if found is not None:
        return found, ""
    from .loss_analysis import SYMBOL
    from .translate import UnsupportedAtom, elementary, to_sympy

    try:
        form = elementary(to_sympy(expression, variable, SYMBOL))
    except UnsupportedAtom:
        return None, ""
    except Exception:  # noqa: BLE001 - sympy failed in this process (loss_analysis.sympy_failure), a RecursionError too
        return None, ""
    seconds = budget.left()
    limit = f"the time limit (time_limit = {budget.seconds:g} s)"
    if seconds < MIN_CALL_SECONDS:
        return None, f"{limit} was spent before they started"
    outcome = deadline.run(kernel_facts, (form,), seconds=seconds, count_startup=budget.count_startup)
    budget.spent(outcome)
    if outcome.timed_out:
        return None, f"they did not finish within {seconds:.3g} s, the rest of {limit}"
    if not (outcome.finished and outcome.items):
        return None, ""
    facts = KernelFacts(*outcome.items[-1])
    if key is not None:
        kernel_record.keep(key, facts)
    return facts, ""


def check_off_zero(name: str, value_at_zero: float, infimum: float | None) -> None:
    """Refuse a loss smallest at the margin z = 0 (l(0) <= inf l): the minimiser's norm is at most
    C = sqrt(2 (l(0) - inf l) / lam) (:func:`~dpcvx.privacy.kernel_calibrate.constraint_radius`), which is then 0,
    so the only feasible predictor is 0 and there is nothing to learn or release. A regression loss of the
    catalogue (a loss of the residual, smallest at 0) is such a loss."""
    if infimum is not None and not value_at_zero > infimum:
        raise InputError(
            f"the {name} is smallest at the margin z = 0 (l(0) = {value_at_zero:g} = inf l), so the kernel "
            "learners' bound C = sqrt(2 (l(0) - inf l) / lam) on the minimiser's norm is 0 and the only feasible "
            "predictor is w = 0: nothing can be learned. Use a classification loss of the margin such as "
            f"{', '.join(repr(accepted) for accepted in KERNEL_LOSS_NAMES)}, or your own loss with l(0) > inf l; "
            "nothing was charged")


def resolve_loss(loss: LossSpec = "hinge", *, time_limit: float | None = None) -> KernelLoss:
    """Verify ``loss`` and prepare it for the kernel solvers.

    ``time_limit`` (seconds, default 20) is one deadline for the verification and the extra facts above
    (:func:`~dpcvx.verification.verifier.verification_budget`): the facts' worker call gets what the verification
    left; what it did not settle in time is not established (inf l), as when sympy cannot state it.

    Raises :class:`AssumptionError` when convexity or a finite Lipschitz
    constant is not established, :class:`InputError` when the loss is smallest
    at z = 0 (:func:`check_off_zero`) or neither C^1 nor two-piece linear (no
    exact solver route).
    """
    function_of_margin = _callable(loss)
    budget = verification_budget(time_limit)
    verified = verify_loss_within(function_of_margin, budget)  # the one call of the callable
    refused = declaration_error(next((c for c in verified.conditions if c.name == "declaration"), None))
    if refused is not None:  # not given in the form a loss is read: the cause and its fix, before any charge
        raise refused
    failing = [c for c in verified.conditions
               if c.name in REQUIRED and (c.passed is not True or c.method == "estimate")]
    if failing:
        lines = ["the kernel learners need a convex, Lipschitz margin loss, proved:"]
        lines += [f"  - {c.name}: " + ((c.detail or "").removesuffix(ESTIMATE_OPT_IN) + "; the kernel learners take "
                                       "proved constants only (they have no allow_estimates)"
                                       if c.method == "estimate" else c.detail or "not established")
                  + (f" (fix: {c.fix})" if c.fix else "") for c in failing]
        raise AssumptionError("\n".join(lines), tuple(failing))
    lipschitz = next(c.value for c in verified.conditions if c.name == "lipschitz")
    curvature = next((float_up(c.value) for c in verified.conditions if c.name == "curvature"
                      and c.passed is True and c.method != "estimate" and c.value is not None), None)
    expression, variable = verified.expression, verified.variable
    if expression is None or variable is None:  # only a failed declaration has none, refused above
        raise InputError(f"the loss {verified.text} has no verified expression")
    value_at_zero, infimum, pieces = None, None, None
    facts, cut_short = _proved_facts(expression, variable, budget)
    if facts is not None:
        value_at_zero, infimum = facts.value_at_zero, facts.infimum
        pieces = TwoPieceLinear(*facts.pieces) if facts.pieces is not None and verified.derivatives is None else None
    if value_at_zero is None:
        at_zero = substitute(expression, variable, cp.Constant(0.0)).value
        if at_zero is None:
            raise InputError(f"the loss {verified.text} has no value at z = 0")
        value_at_zero = float(at_zero)
    name = loss_label(function_of_margin) if function_of_margin is not hinge else "loss hinge"
    check_off_zero(f"{name} ({verified.text})", value_at_zero, infimum)
    if verified.derivatives is None and pieces is None:
        why = (f"it is not continuously differentiable (Newton route), and whether it is two-piece linear like the "
               f"hinge (dual route) was not established: {cut_short}" if cut_short else
               "it is neither continuously differentiable (Newton route) nor two-piece linear like the hinge (dual "
               "route)")
        raise InputError(f"no exact kernel solver for the loss {verified.text}: {why}; use 'hinge', 'logistic' or "
                         "dpcvx.losses.huber_hinge()")
    return KernelLoss(
        text=verified.text,
        lipschitz=exact_value(lipschitz),
        value_at_zero=value_at_zero,
        infimum=infimum,
        derivatives=verified.derivatives,
        pieces=pieces,
        curvature=curvature,
    )
