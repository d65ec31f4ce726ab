"""VerifiedProblem: the one object that flows from the verifier to the release.

declare -> verify -> calibrate -> solve -> release. The verifier
(:func:`dpcvx.verification.verifier.verify_problem`) calls the user's loss once, on a scalar
variable, and the regularizer once, at the fitted dimension, and proves the
conditions of the privacy theorems for exactly those expressions. This object
holds them with the proved constants. Calibration reads the constants from
it, the solvers instantiate the SAME expressions (the loss per record by
:func:`dpcvx.verification.per_record.per_record`, the regularizer by substitution), and the
release states its certificate. Nothing downstream calls a user callable or
the verifier again, so what is certified is what is solved.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from ..validation import check_fields, instance_of, optional
from .certificate import Certificate, Condition
from .exact import float_down, float_up
from .regularizer.quadratic import Quadratic

if TYPE_CHECKING:  # pragma: no cover - CVXPY is imported where an expression is built (a catalogue fit needs none)
    import cvxpy as cp

    from .constraints import ConstraintSet
    from .regularizer.analysis import RegularizerAnalysis

__all__ = ["Declared", "LabelLoss", "Loss", "LossDerivatives", "Quadratic", "Regularizer", "VerifiedLoss",
           "VerifiedProblem", "VerifiedRegularizer", "WEIGHTED_TAIL", "weight_note"]

Loss = Callable[["cp.Expression"], "cp.Expression"]  # z -> l(z), z = y w^T x (any CVXPY expression)
# (p, y) -> l(p, y) of a prediction p = w^T x and its label y: a regression loss (PrivateERM(task="regression"))
LabelLoss = Callable[["cp.Expression", "cp.Expression"], "cp.Expression"]
Regularizer = Callable[["cp.Variable"], "cp.Expression"]


@dataclass(frozen=True)
class LossDerivatives:
    """Vectorised l, l', l'' (numpy), from the verified sympy form."""

    value: Callable[[np.ndarray], np.ndarray]
    first: Callable[[np.ndarray], np.ndarray]
    second: Callable[[np.ndarray], np.ndarray]


class Declared:
    """The CVXPY expression and variable of a verified declaration, built on first use.

    ``built`` is (variable, expression) as the verifier built them; ``build`` (when ``built`` is None) is the
    verifier's own declaration, called once on first use, so that a fit that never needs the expression imports
    no CVXPY. :class:`VerifiedLoss`: l(z) of a scalar z; :class:`VerifiedRegularizer`: N(w) of a vector w.
    """

    built: tuple[cp.Variable, cp.Expression] | None
    build: Callable[[], tuple[cp.Variable, cp.Expression]] | None

    @functools.cached_property
    def _declared(self) -> tuple[cp.Variable, cp.Expression] | None:
        return self.build() if self.built is None and self.build is not None else self.built

    @property
    def expression(self) -> cp.Expression | None:
        """The verified expression, l(z) or N(w) (None only for a declaration that could not be built)."""
        return None if self._declared is None else self._declared[1]

    @property
    def variable(self) -> cp.Variable | None:
        """The variable of :attr:`expression` (z, a scalar; w, a vector)."""
        return None if self._declared is None else self._declared[0]


@dataclass(frozen=True)
class VerifiedLoss(Declared):
    """The loss as verified: the one expression l(z) of the scalar ``variable`` the proofs cover.

    ``built`` is (z, l(z)) as the verifier built them. A catalogue loss served from the shipped catalogue by its
    name (:func:`dpcvx.verification.loss_record.template_lookup`: the record the verifier wrote for exactly that
    expression) has ``build`` instead, the verifier's own declaration of it, called on first use: a fit that never
    needs the expression (Newton on the record's derivatives) imports no CVXPY.
    """

    text: str
    conditions: tuple[Condition, ...]
    dcp_convex: bool
    derivatives: LossDerivatives | None
    built: tuple[cp.Variable, cp.Expression] | None = None
    build: Callable[[], tuple[cp.Variable, cp.Expression]] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class VerifiedRegularizer(Declared):
    """The regularizer as verified: the one expression N(w) of ``variable`` at one dimension.

    ``built`` is (w, N(w)) as the verifier built them; the default N = 0.5 ||w||^2, whose facts need no CVXPY
    (:func:`dpcvx.verification.verifier.default_ridge`), has ``build`` instead, the verifier's own declaration
    of it, called on first use.
    """

    text: str
    conditions: tuple[Condition, ...]
    analysis: RegularizerAnalysis | None
    built: tuple[cp.Variable, cp.Expression] | None = None
    build: Callable[[], tuple[cp.Variable, cp.Expression]] | None = field(default=None, compare=False)


WEIGHTED_TAIL = ": the weighted loss s l, 0 <= s <= w_max]"


def weight_note(weight_bound: float) -> str:
    """The note after the detail of the conditions L and c of a weighted problem (:meth:`VerifiedProblem.weighted`),
    naming w_max: a model file's reader checks it against the file's record of the weights."""
    return f" [x w_max = {float(weight_bound):g}{WEIGHTED_TAIL}"


@dataclass(frozen=True)
class VerifiedProblem:
    """The declared loss and regularizer as verified, with the certificate of their conditions.

    Created only by :func:`dpcvx.verification.verifier.verify_problem`. ``lipschitz``,
    ``curvature`` and ``strong_convexity`` are the certified constants as
    floats rounded in the safe direction (L and c up, m down).
    """

    loss: VerifiedLoss
    regularizer: VerifiedRegularizer
    certificate: Certificate
    constraint_set: ConstraintSet | None = None  # KST12's closed convex set (dpcvx.verification.kst12)

    def __post_init__(self) -> None:
        """Every field checked, by the constructor and by ``dataclasses.replace``."""
        from .constraints import ConstraintSet

        check_fields(self, {"loss": instance_of(VerifiedLoss), "regularizer": instance_of(VerifiedRegularizer),
                            "certificate": instance_of(Certificate),
                            "constraint_set": optional(instance_of(ConstraintSet))})

    @property
    def kst12(self) -> bool:
        """Whether the problem is posed for KST12 (a constraint set or an L1 term)."""
        return self.certificate.kst12

    @property
    def l1_weight(self) -> float:
        """a in N = a ||w||_1 + quadratic (0 when N has no L1 term)."""
        analysis = self.regularizer.analysis
        return 0.0 if analysis is None else analysis.l1_weight

    @property
    def groups(self) -> tuple[tuple[tuple[int, ...], float], ...]:
        """(coordinates g, b_g) of N's group-norm terms b_g ||w_g||_2 (empty when there are none)."""
        analysis = self.regularizer.analysis
        return () if analysis is None else analysis.groups

    @property
    def smooth_quadratic(self) -> Quadratic | None:
        """The quadratic part of N: N itself when quadratic, the rest of a ||w||_1 + quadratic otherwise."""
        analysis = self.regularizer.analysis
        if analysis is None:
            return None
        return analysis.smooth_part if analysis.composite else analysis.quadratic

    @property
    def dim(self) -> int:
        dim = self.certificate.dim
        if dim is None:  # verify_problem always analyses N at a dimension
            raise ValueError("this certificate was proved without a dimension; it is not a verified problem")
        return int(dim)

    def require(self, mechanism: str, delta: float = 0.0) -> None:
        """Raise :class:`~dpcvx.exceptions.AssumptionError` unless ``mechanism`` is allowed at ``delta``."""
        self.certificate.require(mechanism, delta)

    def weighted(self, weight_bound: float) -> VerifiedProblem:
        """The problem of the weighted loss s l(z), 0 <= s <= ``weight_bound`` = w_max (a public bound): L and c
        multiplied by w_max, exactly (docs/theory.md, section 21). The one place the weights' constants are made:
        calibration, the solver's budget, the rounding allowance gamma = tol n L R and the certificate read them
        from the problem returned; the loss expression and its derivatives are l's own (the solvers multiply each
        record's term by its s_i)."""
        scale = Fraction(weight_bound)
        conditions = tuple(
            replace(item, value=_scaled(item.value, scale),
                    detail=item.detail + weight_note(weight_bound))
            if item.name in ("lipschitz", "curvature") and item.value is not None else item
            for item in self.certificate.conditions)
        return replace(self, certificate=replace(self.certificate, conditions=conditions))

    def of_residuals(self) -> VerifiedProblem:
        """The problem of a regression, whose loss is one of the residual r = w^T x - y, not of the margin: its
        ``slope_sign`` condition (if any) not used, so that the Gaussian objective perturbation keeps the general
        profile (docs/theory.md, section 12.3: the one-sign profile is applied to margin losses only)."""
        conditions = tuple(
            replace(item, passed=None, value=None, method="none",
                    detail=f"not used for a loss of the residual ({item.detail}): the one-sign profile is applied "
                           "to margin losses only; the Gaussian objective perturbation uses the general profile",
                    fix="")
            if item.name == "slope_sign" else item for item in self.certificate.conditions)
        return replace(self, certificate=replace(self.certificate, conditions=conditions))

    # -- constants, rounded safely --------------------------------------------------

    @functools.cached_property
    def lipschitz(self) -> float:
        return float_up(self.certificate.lipschitz)

    @functools.cached_property
    def curvature(self) -> float:
        return float_up(self.certificate.curvature)

    @functools.cached_property
    def strong_convexity(self) -> float:
        """m rounded down; 0.0 when m is not established (the condition's value None: N not declared, or a term of
        N not proved convex), the one double that never overstates it. It raised AttributeError there."""
        value = self.certificate.strong_convexity
        return 0.0 if value is None else float_down(value)

    # -- what the solvers use -------------------------------------------------------

    @property
    def derivatives(self) -> LossDerivatives | None:
        """Numpy l, l', l'' of the verified loss (None unless translated and C^1)."""
        return self.loss.derivatives

    @property
    def quadratic(self) -> Quadratic | None:
        """N as 0.5 w^T H w + g^T w when the calculus found it quadratic, else None."""
        analysis = self.regularizer.analysis
        return None if analysis is None else analysis.quadratic

    def expressions(self) -> tuple[cp.Expression | None, cp.Expression | None]:
        """(l(z), N(w)) as verified, built now where a catalogue template stands in for them (CVXPY imported): a
        path that solves the expressions asks for them before any charge
        (:meth:`dpcvx.solvers.choice.SolverChoice.check`)."""
        return self.loss.expression, self.regularizer.expression

    def loss_terms(self, margins: cp.Expression, weights: np.ndarray | None = None) -> cp.Expression:
        """sum_i l(z_i) (sum_i s_i l(z_i) with record ``weights`` s) for the verified l, as a CVXPY expression of
        the margins."""
        import cvxpy as cp

        from .per_record import per_record

        assert self.loss.expression is not None and self.loss.variable is not None
        terms = per_record(self.loss.expression, self.loss.variable, margins)
        return cp.sum(terms if weights is None else cp.multiply(weights, terms))

    def regularizer_of(self, w: cp.Variable) -> cp.Expression:
        """The verified N with its variable replaced by ``w`` (same tree, same constants)."""
        from .per_record import substitute

        assert self.regularizer.expression is not None and self.regularizer.variable is not None
        if w.shape != self.regularizer.variable.shape:
            raise ValueError(f"N was verified at shape {self.regularizer.variable.shape}, not {w.shape}")
        return substitute(self.regularizer.expression, self.regularizer.variable, w)


def _scaled(value: object, scale: Fraction) -> object:
    """``value`` * ``scale``, never rounded down: exact for an exact number, the next double up for a float bound."""
    if isinstance(value, float):
        return value if math.isinf(value) or scale == 1 else math.nextafter(value * float(scale), math.inf)
    if isinstance(value, Fraction | int):
        return value * scale
    import sympy  # an irrational constant is a sympy number: sympy is loaded already (a kernel fit never gets here)

    return value * sympy.Rational(scale.numerator, scale.denominator)
