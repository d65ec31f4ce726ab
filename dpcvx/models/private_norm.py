"""Fitting without a public norm bound: a share of the budget buys R (opt-in), then the fit clips to it.

Two doors, one implementation (:func:`plan_private_norm`, :func:`charge_private_norm`,
:func:`draw_then_fit`):

* ``PrivateERM(data_norm="private", norm_range=(r_min, r_max), norm_share=0.1)`` (and the estimators'
  same parameters): ``fit`` takes this path and returns the model, whose certificate records the
  drawn bound (``certificate.private_bound``), eps_q, eps_fit, the grid and the total
  (``certificate.total_epsilon``); its plan, :func:`plan_bounds` (a :class:`BoundPlan`: the checks once, the fit's
  plan once per drawn bound, so :func:`dpcvx.tune` plans each candidate once);
* :func:`fit_private_norm` for any learner with ``set_params(data_norm=)``, ``check_fit_inputs`` and
  ``fit(X, y, epsilon=, random_state=)``: a :class:`PrivateNormResult` states the total.

The order of both:

1. every input is checked first, with the learner set to the smallest and to the largest R of the public
   grid (the calibration is monotone in R, so a fit at any grid point is accepted when both are);
2. the accountant is charged ONCE with the total (eps_q + eps_fit, delta) (a refused call spends nothing);
3. R is drawn by the exponential-mechanism quantile of the row norms (:mod:`dpcvx.privacy.quantile`,
   eps_q-DP under replace-one, drawn exactly), over the powers of two in the public [r_min, r_max];
4. the learner is fitted with ``data_norm=R`` (rows beyond R clipped onto it), eps_fit and delta.

By sequential composition the pair (R, model) is (eps_q + eps_fit, delta)-DP: for delta > 0 the fit at
every grid point is (eps_fit, delta)-DP and the charge is by basic composition, proved in docs/theory.md
(section 'Private norm bounds'); the fit's own privacy curve at the drawn R is not composed, since it may
depend on R. Replace-one neighbours only (the quantile's proof). The default of every learner stays a
public bound or a refusal; a bound is never read off the data without this charge.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..data.notes import notes_dropped
from ..exceptions import InputError, float_errors_ignored
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..privacy.composition import check_delta, sequential_epsilon, split_remainder
from ..privacy.linear_calibration import gaussian_output
from ..privacy.neighbours import Neighbours
from ..privacy.privacy_curve import DrawnPart, draws_then_fit_curve, fit_after_draws_part
from ..privacy.quantile import NormBound, power_of_two_grid, private_norm_bound
from ..privacy.rng import RandomState, shared_rng
from ..release.draw_texts import LABEL_BOUND_THEOREM as LABEL_THEOREM
from ..release.draw_texts import bounds_guarantee
from ..release.model import ReleaseCertificate
from ..validation import EPSILON_MIN, check_epsilon, fraction
from . import erm_inputs
from .contract import refuse_fit_arguments
from .failure import after_charge, composite
from .fit_plan import composite_ledger_line, fit_ledger_text, plan_conditional

__all__ = ["fit_private_norm", "plan_bounds", "BoundPlan", "PrivateNormResult", "NormPlan", "BoundDraw",
           "draws_bounds", "plan_private_norm", "charge_private_norm", "draw_then_fit", "split_budget", "NORM_SHARE",
           "NORM_QUANTILE"]

PROCEDURE_NAME = "a fit with a private bound"
NORM_SHARE = 0.1      # eps_q = 10% of the budget by default
NORM_QUANTILE = 0.95  # the target quantile q of the row norms


def split_budget(epsilon: float, share: Any, name: str) -> tuple[float, float]:
    """(eps_q, eps_fit) with eps_q = share epsilon and eps_q + eps_fit <= epsilon in floating point.

    The one check of every budget share (``norm_share``, ``class_count_share``, ``column_statistics_share``,
    :func:`fit_private_norm`'s ``share``), named ``name``: a Python float in (0, 1) (:func:`~dpcvx.validation.fraction`;
    a NumPy scalar would keep its own precision in the products below), and each part a budget of at least
    EPSILON_MIN, so that the refusal names the share rather than a part the user never passed."""
    epsilon, share = check_epsilon(epsilon), fraction(name, share)
    eps_q = epsilon * share
    eps_fit = split_remainder(epsilon, eps_q)
    if min(eps_q, eps_fit) < EPSILON_MIN:
        raise InputError(f"{name}={share:g} splits epsilon={epsilon:g} into {eps_q:g} and {eps_fit:g}, and each part "
                         f"must be at least {EPSILON_MIN:g}: choose {name} further from 0 and 1 or a larger epsilon. "
                         "Nothing was charged")
    return eps_q, eps_fit


@dataclass(frozen=True)
class BoundDraw:
    """One bound to draw: the learner parameter it sets ("data_norm": R of the rows, "label_bound": B of the
    labels), its public grid and its share eps_q."""

    parameter: str
    grid: tuple[float, ...]
    epsilon: float


@dataclass(frozen=True)
class NormPlan:
    """What the checks of a private-bound fit fixed, before anything is charged: all public."""

    draws: tuple[BoundDraw, ...]
    eps_fit: float
    delta: float
    quantile: float
    conditional: bool = False  # the fit rests on an opted-in estimate of a constant (its charge says CONDITIONAL)

    @property
    def eps_q(self) -> float:
        return sequential_epsilon([draw.epsilon for draw in self.draws])

    @property
    def total(self) -> float:
        """The draws' eps_q then eps_fit, added in the order every record of the release adds them
        (:func:`~dpcvx.privacy.composition.sequential_epsilon`, as :func:`~dpcvx.release.model.composed_epsilon`)."""
        return sequential_epsilon([*(draw.epsilon for draw in self.draws), self.eps_fit])


def _with_bounds(learner: Any, bounds: dict[str, float]) -> Any:
    """A copy of ``learner`` with the public ``bounds`` (and no private-bound ranges)."""
    candidate = copy.deepcopy(learner)
    params: dict[str, Any] = dict(bounds)
    for span in ("norm_range", "label_range"):
        if getattr(learner, span, None) is not None:
            params[span] = None
    candidate.set_params(**params)
    return candidate


def plan_private_norm(learner: Any, X: Any, y: ArrayLike, epsilon: float, *,
                      ranges: tuple[tuple[str, float, float], ...], share: Any, share_name: str, quantile: float,
                      accountant: PrivacyAccountant | None = None, **fit_params: Any) -> tuple[NormPlan, Any]:
    """Every check of a private-bound fit, nothing charged or drawn: the split (``share`` as the parameter
    ``share_name``), the relation, the grids (``ranges``: (parameter, low, high) of each bound to draw), q, the
    accountant, and the learner's own checks at the two ends (every bound at its grid's smallest, then at its
    largest). Returns (plan, the classes the learner's check returned)."""
    eps_q, eps_fit = split_budget(epsilon, share, share_name)
    delta = check_delta(fit_params.get("delta", 0.0))
    if Neighbours.parse(fit_params.get("neighbours", Neighbours.REPLACE_ONE)) is not Neighbours.REPLACE_ONE:
        raise InputError("a private bound is offered under replace-one neighbours (the quantile's "
                         "sensitivity and the composition are proved there); nothing was charged")
    draws = tuple(BoundDraw(parameter, power_of_two_grid(low, high), eps_q / len(ranges))  # halving is exact
                  for parameter, low, high in ranges)
    quantile = fraction("quantile", quantile)
    check_accountant(accountant)
    refuse_fit_arguments("fit_private_norm", learner, X, y, epsilon=eps_fit, random_state=None, **fit_params)
    plan = NormPlan(draws, eps_fit, delta, quantile)
    classes, conditional = _check_ends(learner, plan, X, y, fit_params)
    return replace(plan, conditional=conditional), classes


def _check_ends(learner: Any, plan: NormPlan, X: Any, y: ArrayLike, fit_params: dict[str, Any]) -> tuple[Any, bool]:
    """The learner's own checks on (X, y) with every bound at its grid's smallest, then at its largest (the
    calibration is monotone in the bounds): (the classes its check returns, whether its fit rests on an opted-in
    estimate, as a learner that plans first says of its plan: :func:`~dpcvx.models.fit_plan.plan_conditional`)."""
    classes, conditional = None, False
    with notes_dropped(), composite(PROCEDURE_NAME):  # the checks at the grids' ends (their clipping counts are not
        # the fit's); the failure rule
        for end in (0, -1):
            candidate = _with_bounds(learner, {draw.parameter: draw.grid[end] for draw in plan.draws})
            if getattr(candidate, "plans_first", False) is True:  # its plan is its check (check_fit_inputs)
                planned = candidate.plan(X, y, epsilon=plan.eps_fit, **{"delta": plan.delta, **fit_params})
                classes, conditional = planned.classes, conditional or plan_conditional(planned)
            else:
                classes = candidate.check_fit_inputs(X, y, epsilon=plan.eps_fit, **fit_params)
    return classes, conditional


def charge_private_norm(plan: NormPlan, accountant: PrivacyAccountant | None, fit: str, gaussian: bool) -> None:
    """The one charge: (eps_q + eps_fit, delta) with the curve of
    :func:`~dpcvx.privacy.privacy_curve.draws_then_fit_curve` (a quantile's part for each bound; the fit's a Gaussian
    for the analytic Gaussian output perturbation, ``gaussian``), its ledger line built from the same parts
    (:func:`~dpcvx.models.fit_plan.composite_ledger_line`; ``fit``: how the fit names itself,
    :func:`~dpcvx.models.fit_plan.fit_ledger_text`)."""
    if accountant is not None:
        accountant.spend(plan.total, plan.delta, description=composite_ledger_line(
                         fit, [(f"private bound {d.parameter}", "eps_q", d.epsilon) for d in plan.draws],
                         plan.eps_fit),
                         curve=draws_then_fit_curve([(DrawnPart.QUANTILE, d.epsilon) for d in plan.draws],
                                                    fit_after_draws_part(plan.eps_fit, plan.delta, gaussian)),
                         conditional=plan.conditional)


def _draw(draw: BoundDraw, X: Any, y: ArrayLike, quantile: float, rng: Any) -> NormBound:
    """R from the row norms, or B from |y_i| (the norms of y's entries as rows), by the quantile."""
    labels = draw.parameter == "label_bound"
    source = np.reshape(np.asarray(y, dtype=float), (-1, 1)) if labels else X
    norm = private_norm_bound(source, epsilon=draw.epsilon, r_min=draw.grid[0], r_max=draw.grid[-1],
                              quantile=quantile, random_state=rng)
    return replace(norm, theorem=LABEL_THEOREM) if labels else norm


def draw_then_fit(learner: Any, X: Any, y: ArrayLike, plan: NormPlan, rng: np.random.Generator | None,
                  plans: dict[tuple[float, ...], Any] | None = None,
                  **fit_params: Any) -> tuple[Any, tuple[NormBound, ...]]:
    """Draw the bounds (after the charge), then fit a copy of ``learner`` at them with eps_fit, no accountant.

    Each bound is the exponential mechanism's draw and nothing else: the fit reads the data only through it.
    ``rng``: the one stream of the draws and the fit (:func:`~dpcvx.privacy.rng.shared_rng`, resolved before the
    charge). ``plans``: the plans of a learner that plans first, one per drawn bounds (public: points of the grids),
    made on the first fit at those bounds and reused."""
    norms = tuple(_draw(draw, X, y, plan.quantile, rng) for draw in plan.draws)
    bounds = {draw.parameter: norm.bound for draw, norm in zip(plan.draws, norms, strict=True)}
    with after_charge(PROCEDURE_NAME):  # cannot fail under the rule (dpcvx.models.failure); a failure is a bug
        if plans is None:
            model = _with_bounds(learner, bounds).fit(X, y, epsilon=plan.eps_fit, random_state=rng, **fit_params)
        else:
            key = tuple(bounds.values())
            if key not in plans:
                plans[key] = _with_bounds(learner, bounds).plan(X, y, epsilon=plan.eps_fit, **fit_params)
            model = plans[key].fit(X, y, random_state=rng, sample_weight=fit_params.get("sample_weight"))
    return model, norms


def recorded(model: Any, plan: NormPlan, norms: tuple[NormBound, ...]) -> Any:
    """``model`` whose certificate records each bound drawn before its fit (its eps_q, grid and q, and the total:
    ``private_bound``, ``private_label_bound``, so ``total_epsilon`` and the curve are the whole cost) and states
    (eps_q + eps_fit, delta) by sequential composition: the model publishes the drawn bounds (its certificate's R,
    B), so on its own it must state what they cost. A release whose certificate has no such record (a learner of
    :func:`fit_private_norm` other than dpcvx's linear ones) is returned as it is."""
    fitted = getattr(model, "certificate", None)
    if not isinstance(fitted, ReleaseCertificate):
        return model
    records: dict[str, Any] = {f"private_{'bound' if draw.parameter == 'data_norm' else 'label_bound'}":
               norm.release_record(plan.total) for draw, norm in zip(plan.draws, norms, strict=True)}
    drawn = [("R" if draw.parameter == "data_norm" else "B", norm.bound, norm.epsilon)
             for draw, norm in zip(plan.draws, norms, strict=True)]
    model.certificate = replace(fitted, **records, guarantee=bounds_guarantee(
        plan.total, fitted.delta, drawn, fitted.epsilon, fitted.guarantee))
    return model


@dataclass(frozen=True)
class PrivateNormResult:
    """The release of :func:`fit_private_norm`: the model (fitted with ``data_norm = norm.bound`` and eps_fit)
    and the bound's record.

    ``epsilon`` = eps_q + eps_fit is what the whole cost and what the accountant was charged; a dpcvx linear
    model's own certificate records the drawn bound too (:func:`recorded`: its ``total_epsilon`` is the same
    total, ``epsilon`` the fit's part given R).
    """

    model: Any
    norm: NormBound
    fit_epsilon: float
    delta: float = 0.0

    @property
    def epsilon(self) -> float:
        return self.norm.epsilon + self.fit_epsilon

    @property
    def guarantee(self) -> str:
        return (f"({self.epsilon:g}, {self.delta:g})-differential privacy (replace-one): the row-norm bound "
                f"R = {self.norm.bound:g} was drawn by the exponential-mechanism quantile (q = "
                f"{self.norm.quantile:g}) with eps_q = {self.norm.epsilon:g}, then the model was fitted with R "
                f"and eps_fit = {self.fit_epsilon:g}; sequential composition")

    def to_dict(self) -> dict:
        release = getattr(getattr(self.model, "certificate", None), "to_dict", None)
        return {"guarantee": self.guarantee, "epsilon": self.epsilon, "delta": self.delta,
                "fit_epsilon": self.fit_epsilon, "norm_bound": self.norm.to_dict(),
                "release": release() if release else None}


def fit_private_norm(learner: Any, X: Any, y: ArrayLike, epsilon: float, *, r_min: float, r_max: float,
                     share: float = NORM_SHARE, quantile: float = NORM_QUANTILE,
                     accountant: PrivacyAccountant | None = None, random_state: RandomState = None,
                     **fit_params: Any) -> PrivateNormResult:
    """Fit ``learner`` (any learner with ``set_params(data_norm=)``, ``check_fit_inputs`` and
    ``fit(X, y, epsilon=, random_state=)``) with a privately chosen row-norm bound.

    ``[r_min, r_max]`` is the public range of the grid; ``share`` the fraction eps_q / epsilon; ``quantile``
    the target q. ``fit_params`` go to every check and fit (``delta`` included: basic composition). For a
    :class:`~dpcvx.PrivateERM` or an estimator, ``data_norm="private"`` does the same inside ``fit``.

    R is drawn by the exponential-mechanism quantile of the row norms over the public grid, score
    u(r) = -|#{i : ||x_i|| <= r} - q n|, probability proportional to exp(eps_q u(r) / 2) (McSherry and Talwar 2007;
    Smith, STOC 2011), then the fit at R with eps_fit: (eps_q + eps_fit, delta) by sequential composition (Dwork and
    Roth 2014, Theorem 3.16). Proof: docs/theory.md, sections 24.3 and 29.
    """
    _check_learner(learner)
    plan, _ = plan_private_norm(learner, X, y, epsilon, ranges=(("data_norm", r_min, r_max),), share=share,
                                share_name="share", quantile=quantile, accountant=accountant, **fit_params)
    rng = shared_rng(random_state)  # a bad seed refused before the charge
    charge_private_norm(plan, accountant, fit_ledger_text(learner, None, np.shape(y)[0], fit_params),
                        gaussian_output(fit_params, bool(getattr(learner, "float_safe", False))))
    model, norms = draw_then_fit(learner, X, y, plan, rng, **fit_params)
    return PrivateNormResult(model=recorded(model, plan, norms), norm=norms[0], fit_epsilon=plan.eps_fit,
                             delta=plan.delta)


#: what :func:`fit_private_norm` calls on its learner
LEARNER_METHODS = ("set_params", "check_fit_inputs", "fit")


def _check_learner(learner: Any) -> None:
    """Refuse a learner :func:`fit_private_norm` cannot run before anything is read or charged: a class rather than
    an instance, or an object without :data:`LEARNER_METHODS`; a dpcvx estimator is told its own way (its fit draws
    the bound with ``data_norm="private"``)."""
    name = learner.__name__ if isinstance(learner, type) else type(learner).__name__
    missing = [method for method in LEARNER_METHODS if not callable(getattr(learner, method, None))]
    if not isinstance(learner, type) and not missing:
        return
    what = f"the class {name}, not an instance" if isinstance(learner, type) else f"{name}, which has no {missing}"
    estimator = getattr(learner, "keeps_feature_names", False) is True  # a dpcvx estimator (PlansFirst)
    raise InputError("fit_private_norm takes a learner instance with set_params(data_norm=), check_fit_inputs(X, y, "
                     f"...) and fit(X, y, epsilon=, random_state=), such as PrivateERM(...); got {what}" + (
                         f". A dpcvx estimator draws its norm bound in its own fit: {name}(data_norm='private', "
                         "norm_range=(r_min, r_max))" if estimator else "") + ". Nothing was charged")


def draws_bounds(learner: Any) -> bool:
    """Whether a learner's ``data_norm`` or ``label_bound`` is "private" (``fit`` draws it)."""
    return any(erm_inputs.is_private(getattr(learner, name, None)) for name in ("data_norm", "label_bound"))


def plan_bounds(learner: Any, X: Any, y: ArrayLike, epsilon: float, *, accountant: PrivacyAccountant | None = None,
                **fit_params: Any) -> BoundPlan:
    """The plan of a fit of a :class:`~dpcvx.PrivateERM` with ``data_norm`` and/or ``label_bound`` "private": every
    check of :func:`plan_private_norm` once, nothing charged or drawn."""
    ranges, share = erm_inputs.private_bounds(learner)
    plan, classes = plan_private_norm(learner, X, y, epsilon, ranges=ranges, share=share, share_name="norm_share",
                                      quantile=NORM_QUANTILE, accountant=accountant, **fit_params)
    return BoundPlan(learner, plan, {key: value for key, value in fit_params.items() if key != "sample_weight"},
                     classes)


@dataclass(frozen=True)
class BoundPlan:
    """A fit with private bounds planned once (:func:`plan_bounds`): the checks at the grids' ends, and the fit's plan
    at each drawn bound, made on its first draw and reused (the bounds are points of the public grids).
    :func:`dpcvx.tune` fits every run of a candidate from it.

    Attributes
    ----------
    learner : the learner (``data_norm`` and/or ``label_bound`` "private")
    bounds : the draws' plan (grids, shares, eps_fit, delta, q)
    options : the fit's other arguments (mechanism, delta, split, ...)
    classes : the learner's public classes (None for a regression)
    """

    learner: Any
    bounds: NormPlan
    options: dict[str, Any]
    classes: tuple[Any, ...] | None
    _plans: dict[tuple[float, ...], Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @float_errors_ignored
    def fit(self, X: Any, y: ArrayLike, *, random_state: RandomState = None,
            accountant: PrivacyAccountant | None = None, sample_weight: Any = None) -> Any:
        """The plan executed on (X, y) (:meth:`execute`). With an ``accountant`` the rows are first checked as the
        plan checked its own, at the grids' two ends, so that a refused call spends nothing; without one nothing is
        charged here and each fit checks its rows at its drawn bound (inside :func:`dpcvx.tune`, whose one charge
        came before every run, as the runs' checks always did)."""
        check_accountant(accountant)
        if accountant is not None:
            weighted = {} if sample_weight is None else {"sample_weight": sample_weight}
            _check_ends(self.learner, self.bounds, X, y, {**self.options, **weighted})
        return self.execute(X, y, random_state, accountant, sample_weight)

    @float_errors_ignored
    def execute(self, X: Any, y: ArrayLike, random_state: RandomState, accountant: PrivacyAccountant | None,
                sample_weight: Any) -> Any:
        """Charge once, draw, fit at the drawn bounds, on rows the plan's checks passed: the model, whose
        certificate records each drawn bound, its eps_q, grid and q and the total (``private_bound``,
        ``private_label_bound``, ``total_epsilon``) and whose guarantee states (eps_q + eps_fit, delta)."""
        plan, learner = self.bounds, self.learner
        rng = shared_rng(random_state)  # a bad seed refused before the charge
        charge_private_norm(plan, accountant, fit_ledger_text(learner, None, np.shape(y)[0], self.options),
                            gaussian_output(self.options, self.learner.float_safe))
        weighted = {} if sample_weight is None else {"sample_weight": sample_weight}
        plans = self._plans if getattr(learner, "plans_first", False) is True else None
        model, norms = draw_then_fit(learner, X, y, plan, rng, plans, **self.options, **weighted)
        return recorded(model, plan, norms)
