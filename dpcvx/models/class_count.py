"""Class rates without a public prior: one private class count, charged with the fit once.

Drawn by ``class_weight="balanced"`` without ``class_prior`` (or with ``class_prior="private"``): the count sets the
balanced weights; and by ``class_prior="private"`` with ``class_weight=None``: the count sets the intercept offset
(:mod:`dpcvx.models.intercept_offset`: the ridge centred at b0 = log(n~_+ / (n - n~_+)), the log-odds of the
floored released rate, divided by the intercept scaling s) and, in the estimators, the decision threshold
``threshold="prior"`` (the cut b0). One count, one charge, shared by all of them (docs/theory.md, section 21).

The order, as for a private norm bound (:mod:`dpcvx.models.private_norm`, docs/theory.md sections 21 and 29):

1. every input is checked first: the learner's own checks with the balanced weights of the two extreme released
   rates, (1/2, 1/2) and the floor's (largest weight 1 in both, so L and c are those of the fit; lam="auto"'s
   effective sample size spans its range between them);
2. the accountant is charged ONCE with (eps_c + eps_fit, delta), eps_c = ``class_count_share`` epsilon;
3. the count n_+ of the positive class is released as n_+ + Z, Z discrete Laplace of scale 1 / eps_c (exact
   integer sampler, :func:`dpcvx.privacy.exact_sampling.discrete_laplace`): sensitivity 1 under replace-one with n
   public, so eps_c-DP; it is clamped onto [f, n - f], f = ceil(``MIN_CLASS_RATE`` n) (post-processing);
4. the learner is fitted with the released rates as its ``class_prior`` (balanced weights w_k = min_j pi_j / pi_k),
   or, for the offset, with the ridge centred at b0 / s (:func:`offsets`), eps_fit and delta.

Planned once (:func:`plan_private_count`, a :class:`RatesPlan`): a learner that plans first is planned at the rates
(1/2, 1/2), and each fit binds its released rates to that plan (:func:`at_released_rates`: the weights and s_bar, or
the offset's ridge verified), so :func:`dpcvx.tune` checks and plans such a candidate once, not once per run. After
private column statistics (:mod:`dpcvx.models.column_statistics`) the same plan is made through their placeholder map,
and each fit binds its released map (:meth:`RatesPlan.with_feature_map`), then its released rates.

By sequential composition (Claim 4 of docs/theory.md section 29) the release (count, model) is
(eps_c + eps_fit, delta)-DP. The certificate's ``weights`` record holds the released count, eps_c, the floor and
the total. Replace-one neighbours only (n must be public for n - n_+ to be the other count).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..advice import setting
from ..exceptions import InputError, float_errors_ignored
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..privacy.composition import check_delta, sequential_epsilon
from ..privacy.exact_sampling import discrete_laplace, integer_source
from ..privacy.linear_calibration import gaussian_output
from ..privacy.neighbours import REPLACE_ONE_STATEMENT, Neighbours
from ..privacy.privacy_curve import DrawnPart, draws_then_fit_curve, fit_after_draws_part
from ..privacy.rng import RandomState, shared_rng
from ..release.draw_texts import COUNT_COMPOSITION as COMPOSITION
from ..release.draw_texts import COUNT_THEOREM, OFFSET_COMPOSITION, OFFSET_THEOREM, class_text, count_guarantee
from ..release.model import OFFSET_SOURCE, CertifiedWeights
from ..release.weight_rules import MIN_CLASS_RATE, count_floor, count_rates, log_odds
from ..validation import SignBits, check_classes, check_labels
from ..verification.verifier import default_regularizer
from .failure import after_charge, composite
from .fit_plan import FitPlan, composite_ledger_line, fit_ledger_text, plan_conditional
from .intercept_offset import CentredRidge
from .private_norm import draws_bounds, split_budget

__all__ = ["CLASS_COUNT_SHARE", "MIN_CLASS_RATE", "COUNT_THEOREM", "PRIVATE_PRIOR", "CountPlan", "RatesPlan",
           "count_at_floor", "floor_class", "draws_count", "offsets", "prior_cuts", "at_rates", "check_count_options",
           "released_rates", "plan_private_count", "at_released_rates", "draw_class_count"]

PROCEDURE_NAME = "a fit with balanced class weights from a private count"
#: the procedure of class_prior="private" without class weights (:func:`offsets`), as its refusals name it
OFFSET_PROCEDURE_NAME = "a fit with the intercept offset from a private class count"
#: How a ledger line names the count (:meth:`RatesPlan.draws`)
COUNT_LINE = "private class count"
CLASS_COUNT_SHARE = 0.05  # eps_c = 5% of the budget by default


PRIVATE_PRIOR = "private"  # class_prior="private": the class rates from one private count


def _private_prior(learner: Any) -> bool:
    prior = getattr(learner, "class_prior", None)
    return isinstance(prior, str) and prior == PRIVATE_PRIOR


def procedure_name(learner: Any) -> str:
    """How a refusal names the learner's procedure: the balanced weights the count sets (:data:`PROCEDURE_NAME`), or
    the intercept offset (:data:`OFFSET_PROCEDURE_NAME`, class_prior="private" without class weights)."""
    if offsets(learner):
        return f"{OFFSET_PROCEDURE_NAME} ({setting('class_prior', repr(PRIVATE_PRIOR), PRIVATE_PRIOR)})"
    return PROCEDURE_NAME


def offsets(learner: Any) -> bool:
    """Whether the private count sets the intercept offset: class_prior="private" without class weights."""
    return _private_prior(learner) and getattr(learner, "class_weight", None) is None


def draws_count(learner: Any) -> bool:
    """Whether ``fit`` draws a private class count: class_weight="balanced" without public rates, or
    class_prior="private"."""
    weight = getattr(learner, "class_weight", None)
    balanced = isinstance(weight, str) and weight == "balanced"
    return (balanced and getattr(learner, "class_prior", None) is None) or _private_prior(learner)


def released_rates(weights: CertifiedWeights | None) -> tuple[float, float] | None:
    """The rates (1 - n~_+ / n, n~_+ / n) of a released count that set the offset (a certificate's ``weights``),
    else None: a public function of the release."""
    if weights is None or weights.source != OFFSET_SOURCE or weights.private_count is None:
        return None
    return count_rates(weights.private_count["count"], weights.private_count["n"])


def count_at_floor(weights: CertifiedWeights | None) -> bool:
    """Whether a certificate's ``weights`` hold a released class count that is the floor f or n - f (the count was
    clamped onto it, or its noisy value fell there): the rates the fit used are then the floor's, MIN_CLASS_RATE
    and 1 - MIN_CLASS_RATE, not an estimate of the data's (a rarer class reads as one of 1 %). A function of the
    released count and the public n and f only (post-processing, no privacy cost): the warnings may say so."""
    record = None if weights is None else weights.private_count
    if record is None:
        return False
    return int(record["count"]) in (int(record["floor"]), int(record["n"]) - int(record["floor"]))


def floor_class(weights: CertifiedWeights | None, classes: Sequence[Any]) -> Any:
    """The class of the pair ``classes`` (negative, positive) whose released count in ``weights`` is the floor:
    ``classes[1]`` at n~_+ = f, ``classes[0]`` at n~_+ = n - f; None when the count is not at the floor
    (:func:`count_at_floor`) or none was drawn. Post-processing of the release, as there."""
    if not count_at_floor(weights):
        return None
    assert weights is not None and weights.private_count is not None  # count_at_floor read them
    return classes[1] if int(weights.private_count["count"]) == int(weights.private_count["floor"]) else classes[0]


def prior_cuts(per_class: Sequence[Any]) -> np.ndarray | None:
    """One-vs-rest's (k,) cuts t_c = log(n~_c / (n - n~_c)) of ``threshold="prior"`` from its k release certificates
    ``per_class``: the log-odds of each class's released count (drawn by its binary fit with ``class_prior="private"``
    inside its share epsilon / k, docs/theory.md section 15), the cut :func:`~dpcvx.models.intercept_offset.
    threshold_cut` gives that binary fit. Predicting the largest s_c - t_c compares the k offset-centred scores, each
    measured from its class's prior log-odds (each binary fit's own decision at its prior rate, made comparable): a
    public function of the released counts (post-processing, no privacy cost). None when a class's release holds no
    such count."""
    rates = [released_rates(getattr(certificate, "weights", None)) for certificate in per_class]
    if any(rate is None for rate in rates):
        return None
    return np.array([log_odds(rate) for rate in rates if rate is not None])


@dataclass(frozen=True)
class CountPlan:
    """What the checks fixed before anything is charged: the split, delta, n and the public classes (:meth:`at`: n of
    another fit)."""

    eps_count: float
    eps_fit: float
    delta: float
    n: int
    classes: tuple[Any, Any]

    @property
    def total(self) -> float:
        """eps_c + eps_fit (:func:`~dpcvx.privacy.composition.sequential_epsilon`, the release's order)."""
        return sequential_epsilon([self.eps_count, self.eps_fit])

    @property
    def floor(self) -> int:
        """f = ceil(MIN_CLASS_RATE n): the least count either class is released with (public)."""
        return count_floor(self.n)

    def at(self, n: int) -> CountPlan:
        """This plan for a fit of n public records (the floor is a share of n), refused when both classes cannot
        keep their floor."""
        plan = replace(self, n=int(n))
        if 2 * plan.floor > plan.n:
            raise InputError(f"a private class count needs n >= 2 ceil({MIN_CLASS_RATE:g} n); got n = {plan.n}")
        return plan


def at_rates(learner: Any, rates: tuple[float, float]) -> Any:
    """A copy of ``learner`` at the public ``rates`` (as after the draw): its balanced weights come from them, or
    (:func:`offsets`) its ridge is centred at their log-odds b0 / s."""
    candidate = copy.deepcopy(learner)
    if offsets(learner):
        candidate.set_params(class_prior=None)
        candidate.regularizer = CentredRidge(log_odds(rates) / candidate.row_map().intercept_scaling)
    else:
        candidate.set_params(class_prior=rates)
    return candidate


def check_count_options(learner: Any, neighbours: Any) -> None:
    """The checks of a fit that draws a private class count made before anything is read of the data: the task,
    the bounds it would draw too, the offset's ridge, the neighbour relation. For :func:`plan_private_count` and a
    learner's ``check_options`` (which plans its record weights at :func:`at_rates` (1/2, 1/2) too, as the fit's
    plan does)."""
    if getattr(learner, "task", "classification") != "classification":
        raise InputError("class_weight is for classification")
    if draws_bounds(learner):
        raise InputError("class_weight='balanced' without class_prior draws a private count; with a private "
                         "data_norm or label_bound too the fit would compose three draws, which is not offered: pass "
                         "class_prior (public rates) or a public bound. Nothing was charged")
    if offsets(learner) and (not learner.fit_intercept or learner.regularizer is not default_regularizer):
        raise InputError("class_prior='private' without class weights sets the intercept offset: it needs "
                         "fit_intercept=True and the default ridge (regularizer=None). Nothing was charged")
    if Neighbours.parse(neighbours) is not Neighbours.REPLACE_ONE:
        raise InputError("a private class count is offered under replace-one neighbours (n public: the count's "
                         "sensitivity is 1 and the other class's count is n minus it); pass class_prior under "
                         "add-remove. Nothing was charged")


def plan_private_count(learner: Any, X: Any, y: Any, epsilon: float, *, accountant: PrivacyAccountant | None = None,
                       **fit_params: Any) -> RatesPlan:
    """Every check of the fit, nothing charged or drawn (steps 1 and 2's split): the :class:`RatesPlan`.

    A learner that plans first at public rates (:class:`~dpcvx.models.erm.PrivateERM`) is planned ONCE, at the rates
    (1/2, 1/2), and that plan is checked at the floor's rates too (:meth:`RatesPlan.check`); each fit binds its
    released rates to it (:func:`at_released_rates`). Another learner runs its ``check_fit_inputs`` at both ends and
    is fitted through its ``fit`` at the released rates."""
    check_count_options(learner, fit_params.get("neighbours", Neighbours.REPLACE_ONE))
    eps_count, eps_fit = split_budget(epsilon, learner.class_count_share, "class_count_share")
    delta = check_delta(fit_params.get("delta", 0.0))
    check_accountant(accountant)
    count = CountPlan(eps_count, eps_fit, delta, 0, check_classes(learner.classes)).at(np.shape(y)[0])
    options = {key: value for key, value in fit_params.items() if key != "sample_weight"}
    reference = at_rates(learner, (0.5, 0.5))
    plan = None
    if getattr(reference, "plans_first", False) is True:
        with composite(procedure_name(learner)):
            planned = reference.plan(X, y, epsilon=eps_fit, **fit_params)   # the checks at the rates (1/2, 1/2)
        assert isinstance(planned, FitPlan)  # a learner at public rates draws nothing
        plan = planned
    rates_plan = RatesPlan(learner, count, options, plan, count.classes)
    rates_plan.check(X, y, fit_params.get("sample_weight"), planned=plan is not None)
    return rates_plan


def at_released_rates(plan: FitPlan, learner: Any, rates: tuple[float, float], sample_weight: Any) -> FitPlan:
    """The fit's one ``plan`` (made at other rates) bound to the released ``rates``, post-processing of the count:
    their balanced weights (largest weight 1, so w_max, L and c stand; s_bar moves lam="auto"'s rule,
    :meth:`FitPlan.with_weights`), or, for the offset, the ridge centred at b0 / s verified (its text holds the
    centre; L, c and m stand, :meth:`FitPlan.with_problem`). Nothing else is checked or planned again."""
    candidate = at_rates(learner, rates)
    if offsets(learner):
        return plan.with_problem(candidate._verified(plan.width))
    return plan.with_weights(candidate._weight_plan(sample_weight, plan.classes))


@dataclass(frozen=True)
class RatesPlan:
    """A fit whose class rates come from one private count, planned once (:func:`plan_private_count`): public values
    only. :meth:`fit` charges once, draws the count and fits at the rates it releases; :func:`dpcvx.tune` fits every
    run of a candidate from it.

    Attributes
    ----------
    learner : the learner (``class_weight="balanced"`` without public rates, or ``class_prior="private"``)
    count : the count's plan (the split, delta, the public classes; n is each fit's)
    options : the fit's other arguments (mechanism, delta, split, ...)
    plan : the fit's plan at the rates (1/2, 1/2), each fit's released rates bound to it (None: the learner does not
        plan first and is fitted through ``fit``)
    classes : the learner's public classes
    """

    learner: Any
    count: CountPlan
    options: dict[str, Any]
    plan: FitPlan | None
    classes: tuple[Any, Any]

    def check(self, X: Any, y: Any, sample_weight: Any, *, planned: bool = False) -> None:
        """The fit's checks on (X, y) at both ends of the released rates, nothing charged or drawn: s_bar = 1 and
        the floor's (largest weight 1 in both, so L and c are the fit's; lam="auto"'s effective sample size and the
        offset span their range between them). ``planned``: the plan was just made on (X, y) at (1/2, 1/2)."""
        count = self.count.at(np.shape(y)[0])
        weighted = {} if sample_weight is None else {"sample_weight": sample_weight}
        with composite(procedure_name(self.learner)):
            for low in (0.5, count.floor / count.n):
                rates = (1 - low, low)
                if self.plan is None:
                    at_rates(self.learner, rates).check_fit_inputs(X, y, epsilon=count.eps_fit, **self.options,
                                                                    **weighted)
                elif not (planned and low == 0.5):
                    plan = self.plan if low == 0.5 else at_released_rates(self.plan, self.learner, rates,
                                                                          sample_weight)
                    plan.checked(X, y, sample_weight)

    def draws(self, n: int) -> list[tuple[str, str, float]]:
        """The count as a ledger line names it (:func:`~dpcvx.models.fit_plan.composite_ledger_line`) for a fit of n
        records: its one draw, eps_c (the fit's eps_fit is the rest)."""
        return [(COUNT_LINE, "eps_c", self.count.at(n).eps_count)]

    def with_feature_map(self, feature_map: Any) -> RatesPlan:
        """This plan with the fit's feature map replaced (:meth:`FitPlan.with_feature_map`): the map released by
        private column statistics drawn before the count (:mod:`dpcvx.models.column_statistics`), bound per fit to
        the one plan made with a placeholder map. The count's plan and the rates' binding read no map."""
        if self.plan is None:
            raise InputError("a feature map is bound only to a plan made first (the learner plans first)")
        return replace(self, plan=self.plan.with_feature_map(feature_map))

    @float_errors_ignored
    def fit(self, X: Any, y: Any, *, random_state: RandomState = None, accountant: PrivacyAccountant | None = None,
            sample_weight: Any = None) -> Any:
        """The plan executed on (X, y) (:meth:`execute`). With an ``accountant`` the rows are first checked as the
        plan checked its own (:meth:`check`), so that a refused call spends nothing; without one nothing is charged
        here and the fit checks its rows at its released rates (inside :func:`dpcvx.tune`, whose one charge came
        before every run)."""
        check_accountant(accountant)
        if accountant is not None:
            self.check(X, y, sample_weight)
        return self.execute(X, y, random_state, accountant, sample_weight)

    @float_errors_ignored
    def execute(self, X: Any, y: Any, random_state: RandomState, accountant: PrivacyAccountant | None,
                sample_weight: Any, counted: Any = None) -> Any:
        """Charge once, draw the count, fit at the balanced weights (or the offset) of the released rates (module
        docstring, steps 2 to 4): the model, whose certificate records the count. ``counted``: the public class a
        one-vs-rest fit counts against the rest (its labels are -1/+1), named in the guarantee in place of +1."""
        plan, learner = self.count.at(np.shape(y)[0]), self.learner
        rng = shared_rng(random_state)  # one stream for the count and the fit; a bad seed refused before charging
        if accountant is not None:
            accountant.spend(plan.total, plan.delta, description=composite_ledger_line(
                                 fit_ledger_text(learner, self.plan, plan.n), self.draws(plan.n), plan.eps_fit),
                             curve=draws_then_fit_curve([(DrawnPart.COUNT, plan.eps_count)], fit_after_draws_part(
                                 plan.eps_fit, plan.delta, gaussian_output(self.options, learner.float_safe))),
                             conditional=plan_conditional(self.plan))
        count = draw_class_count(check_labels(y, plan.n, plan.classes, packed=True), plan, integer_source(rng))
        rates = count_rates(count, plan.n)   # the released rates, as public
        weighted = {} if sample_weight is None else {"sample_weight": sample_weight}
        with after_charge(procedure_name(learner)):  # cannot fail under the rule (models.failure): a failure is a bug
            if self.plan is None:
                model = at_rates(learner, rates).fit(X, y, epsilon=plan.eps_fit, random_state=rng, **self.options,
                                                      **weighted)
            else:  # the one plan, the released rates bound now: every check ran before the charge
                model = at_released_rates(self.plan, learner, rates, sample_weight).fit(
                    X, y, random_state=rng, sample_weight=sample_weight)
        return _certified(model, learner, plan, count, counted)


def draw_class_count(labels: np.ndarray | SignBits, plan: CountPlan, source: Any) -> int:
    """The released count of the positive class: n_+ + Z (Z discrete Laplace, scale 1 / eps_c), clamped onto
    [f, n - f]. ``labels`` are -1/+1: a fit's, one bit each (a float64 n-vector of them was the size of a one-column
    memmap)."""
    positives = labels.positives() if isinstance(labels, SignBits) else int(np.count_nonzero(labels > 0))
    noisy = positives + discrete_laplace(1 / Fraction(plan.eps_count), source)
    return min(max(noisy, plan.floor), plan.n - plan.floor)


def _certified(model: Any, learner: Any, plan: CountPlan, count: int, counted: Any = None) -> Any:
    """The model with the count in its certificate: the ``weights`` record (the released count, eps_c, the floor and
    the total) and the guarantee by sequential composition (of class ``counted`` against the rest when given)."""
    fitted = model.certificate
    record = {"epsilon": plan.eps_count, "count": count, "n": plan.n, "floor": plan.floor,
              "theorem": COUNT_THEOREM, "neighbours": REPLACE_ONE_STATEMENT,
              "composition": OFFSET_COMPOSITION if offsets(learner) else COMPOSITION,
              "total_epsilon": plan.total}
    weights = (CertifiedWeights(OFFSET_SOURCE, 1.0, None, None, None, OFFSET_THEOREM, record) if offsets(learner)
               else replace(fitted.weights, source="private count", private_count=record))
    use = "intercept offset" if offsets(learner) else "balanced class weights"
    model.certificate = replace(fitted, weights=weights, guarantee=count_guarantee(
        plan.total, fitted.delta, class_text(plan.classes[1] if counted is None else counted, counted is not None),
        count, plan.eps_count, use, fitted.epsilon, fitted.guarantee))
    return model
