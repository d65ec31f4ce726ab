"""The plan of a :class:`~dpcvx.models.erm.PrivateERM` fit: made once from public inputs, executed per data set.

:meth:`PrivateERM.plan <dpcvx.models.erm.PrivateERM.plan>` validates every public input of a fit (the budget,
the mechanism, the neighbour relation, the learner's settings), builds the public row map, verifies the
problem once at the data's width (X's shape, read before any value of X or y: the mechanism's verdict is made
before the data is), chooses the solver and returns a :class:`FitPlan`. The plan holds only
public values: no row, label or statistic of the data. :meth:`FitPlan.fit` executes it on rows of that
width, in the order of the developers' guide: check the rows and labels, calibrate at their public number
n (:meth:`FitPlan.calibrate`, once per n), prove the solver's iteration budget, then charge the accountant
once, draw the noise (OS entropy unless seeded), solve and release. A refused call spends nothing.

One plan serves many fits that differ only in their rows and their noise: :func:`dpcvx.tune` plans each
candidate once and fits every run of it from that plan; :meth:`PrivateERM.fit` plans and executes once.

Calibration (Algorithm 1 or 2 of Chaudhuri, Monteleoni and Sarwate, JMLR 12 (2011), at the user's Lam or
at ``lam="auto"``'s public rule, :mod:`dpcvx.privacy.lam_rule`) goes through the learner's hooks
``_calibrate`` and ``release_calibration``, the solve through ``_solve``
(:class:`~dpcvx.models.erm.PrivateERM`'s extension hooks). The rule's choice of a fit is kept for the process by
its public inputs (``_RULE_CHOICES``), so fits at the same public settings calibrate its grid once.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple, Protocol

import numpy as np
import scipy.sparse as sparse

from ..data.blocks import RowBlocks, cache_block_rows, take_rows
from ..data.notes import checks_then_notes
from ..data.rows import Matrix, RowMap
from ..exceptions import InputError, float_errors_ignored
from ..losses import loss_label as named_loss
from ..privacy import calibrate
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..privacy.calibrate_gaussian import ReleaseCalibration
from ..privacy.calibration import perturbs_objective
from ..privacy.exact_sampling import integer_source
from ..privacy.float_safe import (
    LatticeCalibration,
    draw_objective_noise,
    draw_release_noise,
    float_safe_calibration,
    float_safe_guarantee,
    release_offset,
)
from ..privacy.lam_rule import LamChoice, choose_lam, comparator_for, rule_name
from ..privacy.linear_calibration import calibrate_linear, check_reachable
from ..privacy.neighbours import Neighbours
from ..privacy.rng import NoiseSource, RandomState, resolve_rng
from ..release.constants import Constants
from ..release.draw_texts import NOT_CLIPPED, ROWS_CLIPPED
from ..release.model import PrivateModel, ReleaseCertificate
from ..release.regression_model import PrivateRegressionModel
from ..release.usefulness import one_class_findings, warn_if_constant
from ..solvers.choice import MAX_PROVED_ITERATIONS, SolverChoice, exceeds_limit
from ..solvers.linear import SolveInfo
from ..solvers.objective import _norm
from ..validation import (
    SignBits,
    check_choice,
    check_classes,
    check_delta,
    check_delta_for_n,
    check_epsilon,
    check_flag,
    integer,
    number_text,
    optional,
    positive,
    public_arithmetic,
    sample_size,
)
from ..verification.problem import VerifiedProblem
from ..verification.verdict import Mechanism, release_guarantee
from ..version import __version__
from . import erm_inputs, failure, training_rows
from .record_weights import RecordWeights, record_weights

#: lam="auto"'s choices of the fits made in this process, by every public input the rule reads (n, the width,
#: epsilon, delta, the mechanism, the relation, the split, tol, s_bar, R, W, the task and the verified L, m, c,
#: the problem's dimension, KST12 and a ball's radius; never the data): the rule is a pure function of them
#: (:func:`~dpcvx.privacy.lam_rule.choose_lam`), so a fit at the same public settings reuses its choice instead of
#: calibrating the grid again. At most _RULE_CHOICES_KEPT are kept.
_RULE_CHOICES: dict[tuple[Any, ...], LamChoice] = {}
_RULE_CHOICES_KEPT = 512
# A bound on the noise's norm for the solver's scale (SolverChoice.check_scale): this many times its mean, which a
# Gamma(d) norm (the l2-Laplace noise) or a chi norm (Gaussian) exceeds with probability below e^-900
NOISE_TAIL = 1e3

__all__ = ["FitPlan", "Calibrated", "plan_conditional", "fit_ledger_text", "composite_ledger_line"]


class Hooks(Protocol):
    """The extension hooks of the learner that made a plan (:class:`~dpcvx.models.erm.PrivateERM`'s)."""

    diagnostics_: SolveInfo

    def _calibrate(self, mechanism: str, n: int, epsilon: float, problem: VerifiedProblem, R: float, split: str,
                   delta: float, neighbours: Neighbours, lam: float | None,
                   tol: float | None) -> tuple[ReleaseCalibration, dict[str, Any]]: ...

    def release_calibration(self, calibration: ReleaseCalibration) -> ReleaseCalibration: ...

    def _solve(self, problem: VerifiedProblem, X: Matrix | RowBlocks, y: np.ndarray | SignBits, noise: np.ndarray,
               extra_reg: float, gradient_tolerance: float, start: np.ndarray | None, n: int | None,
               lam: float | None, weights: np.ndarray | None, *, solver: SolverChoice | None,
               rows: RowMap | None, offset: np.ndarray | None = None,
               proved: bool) -> tuple[np.ndarray, SolveInfo]: ...


@dataclass(frozen=True)
class Calibrated:
    """The calibration of a plan at n public records: the Lam rule's choice (None at a numeric Lam), the
    calibration the fit draws with (after the ``release_calibration`` hook and ``float_safe``) and its
    :class:`~dpcvx.release.constants.Constants`."""

    lam_rule: LamChoice | None
    calibration: ReleaseCalibration | LatticeCalibration
    constants: Constants

    @property
    def lam(self) -> float:
        """The fit's numeric Lam (the rule's under ``lam="auto"``)."""
        return self.constants.lam


class _Bound(NamedTuple):
    """A plan bound to one data set, every check passed: what its execution reads (never released)."""

    X: Matrix | RowBlocks
    labels: np.ndarray | SignBits  # one bit a row for rows read by blocks
    n: int
    weights: np.ndarray | None
    calibrated: Calibrated
    proved: bool  # the path's public decision (:meth:`SolverChoice.proved_budget` at the public n and start)


@dataclass(frozen=True)
class FitPlan:
    """One fit of a :class:`~dpcvx.models.erm.PrivateERM`, planned from public inputs and checked.

    Made by :meth:`PrivateERM.plan <dpcvx.models.erm.PrivateERM.plan>` (every refusal of ``fit`` before
    anything is charged); :meth:`fit` executes it on rows of the planned width. Holds public values only.

    Attributes
    ----------
    learner : the learner whose hooks calibrate and solve (``_calibrate``, ``release_calibration``, ``_solve``)
    owner : the learner's class name, for messages
    mechanism, epsilon, delta, split : the fit's budget and mechanism, checked
    relation : the neighbour relation; ``n_public`` its public size under add-remove (else None)
    rows : the public row map (feature map, clipping to R, intercept feature); ``width`` the mapped width d
    problem : the one :class:`~dpcvx.verification.problem.VerifiedProblem` at d (weighted by w_max when the
        fit takes record weights)
    solver : the public solver settings; ``tol`` the relative gradient tolerance
    classes : the public label pair, None for a regression; ``label_bound`` B of a regression
    lam : the user's numeric Lam, None under ``lam="auto"`` (the rule chooses it per n)
    comparator_norm : the rule's public comparator bound
    weight_plan : the public plan of the record weights (None: unit weights), whose public mean s_bar is the rule's
        (:attr:`mean_weight`)
    start : a warm start's weights in the solver's coordinates (None: the solver's own start)

    Not built by users. Its fields are still checked at construction, before any fit (an InputError naming the
    field): the kinds of its parts (the learner's hooks, the mechanism, the relation, the row map, the verified
    problem, the solver settings, the record weights' plan), the budget as the fit checks it
    (:func:`~dpcvx.validation.check_epsilon`, :func:`~dpcvx.validation.check_delta`), the width a positive
    integer, ``n_public`` None or a sample size, the tolerance positive, the flags True or False, ``classes`` None
    or the public pair, ``label_bound``, ``lam`` and ``comparator_norm`` None or positive, ``start`` None or an
    array of the width.
    """

    learner: Hooks
    owner: str
    loss_label: str
    mechanism: Mechanism
    epsilon: float
    delta: float
    split: str
    relation: Neighbours
    n_public: int | None
    rows: RowMap
    width: int
    problem: VerifiedProblem
    solver: SolverChoice
    tol: float
    classes: tuple[Any, Any] | None
    label_bound: float | None
    clip: bool
    float_safe: bool
    allow_large_delta: bool
    lam: float | None
    comparator_norm: float | None
    weight_plan: RecordWeights | None
    start: np.ndarray | None
    _calibrations: dict[int, Calibrated] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kinds = {"owner": (str, "a str"), "loss_label": (str, "a str"), "mechanism": (Mechanism, "a Mechanism"),
                 "relation": (Neighbours, "a Neighbours"), "rows": (RowMap, "a RowMap"),
                 "problem": (VerifiedProblem, "a VerifiedProblem"), "solver": (SolverChoice, "a SolverChoice"),
                 "weight_plan": (RecordWeights | None, "None or a RecordWeights"),
                 "start": (np.ndarray | None, "None or a numpy array")}
        for name, (kind, text) in kinds.items():
            if not isinstance(getattr(self, name), kind):
                raise InputError(f"FitPlan.{name} must be {text}, got {type(getattr(self, name)).__name__}")
        if not all(callable(getattr(self.learner, hook, None)) for hook in ("_calibrate", "release_calibration",
                                                                              "_solve")):
            raise InputError(f"FitPlan.learner must be the learner that made the plan (a PrivateERM), got "
                             f"{type(self.learner).__name__}")
        check_epsilon(self.epsilon, "FitPlan.epsilon")
        check_delta(self.delta, "FitPlan.delta")
        check_choice("FitPlan.split", self.split, calibrate.SPLITS)
        width = integer("FitPlan.width", self.width)
        if self.n_public is not None:
            sample_size(self.n_public, "FitPlan.n_public")
        positive("FitPlan.tol", self.tol)
        for flag in ("clip", "float_safe", "allow_large_delta"):
            check_flag(f"FitPlan.{flag}", getattr(self, flag))
        if self.classes is not None:
            check_classes(self.classes)
        for bound in ("label_bound", "lam", "comparator_norm"):
            optional(positive)(f"FitPlan.{bound}", getattr(self, bound))
        if self.start is not None and self.start.shape != (width,):
            raise InputError(f"FitPlan.start must hold {width} weights, got shape {self.start.shape}")
        if self.n_public is not None:  # the rows' refusal at this tol stays far from the public size
            calibrate.check_add_remove_tol(self.tol)

    @property
    def regression(self) -> bool:
        return self.classes is None

    @property
    def conditional(self) -> bool:
        """Whether the release rests on an opted-in estimate of a constant: its charge and curve say CONDITIONAL."""
        return bool(self.problem.certificate.conditional)

    @property
    def mean_weight(self) -> float:
        """s_bar, the public mean of the record weights (:attr:`RecordWeights.mean_weight`: balanced class weights at
        public rates, no ``sample_weight``), else 1: the one the certificate records (``weights.mean_weight``) and
        a loader re-derives ``lam="auto"``'s rule with. A fit with ``sample_weight`` has none: its weights are
        private (the rule read the class weights alone, and its file did not load)."""
        mean = None if self.weight_plan is None else self.weight_plan.mean_weight
        return 1.0 if mean is None else mean

    def size(self, rows: int) -> int:
        """n, the public size of a fit on ``rows`` records: ``n_public`` under add-remove, else ``rows``."""
        return rows if self.n_public is None else self.n_public

    def ledger_text(self, n: int) -> str:
        """How a ledger line names this fit of n public records: the learner, its loss, the mechanism and n (the
        public n_public under add-remove), e.g. "PrivateERM.fit (loss logistic, objective perturbation, n=3000)";
        a composite's line names it the same way (:func:`composite_ledger_line`)."""
        size = f"n={n}" if self.relation.uses_n else f"add-remove, n_public={n}"
        return f"PrivateERM.fit ({self.loss_label}, {self.mechanism} perturbation, {size})"

    # -- calibration: public inputs only ------------------------------------------------------------------

    def calibrate(self, n: int) -> Calibrated:
        """The calibration of a fit of n public records (computed once per n): Lam (the user's, or the rule's,
        :meth:`lam_choice`), Algorithm 1 or 2 through the learner's ``_calibrate`` hook, the
        ``release_calibration`` hook, ``float_safe``; refuses a tol the noise makes unreachable."""
        if n not in self._calibrations:
            with public_arithmetic(epsilon=self.epsilon, delta=self.delta, lam=self.lam or "auto",
                                   R=self.rows.norm_bound):
                self._calibrations[n] = self._calibrated(n)
        return self._calibrations[n]

    def _calibrated(self, n: int) -> Calibrated:
        R = self.rows.effective_norm_bound
        lam_rule = self._rule_choice(n) if self.lam is None else None
        lam = self.lam if lam_rule is None else lam_rule.lam
        assert lam is not None
        calibration, verified = self.learner._calibrate(self.mechanism, n, self.epsilon, self.problem, R,
                                                        self.split, self.delta, self.relation, lam, self.tol)
        calibration = self.learner.release_calibration(calibration)
        constants = Constants.of(verified, R=R, lam=lam, n=n, d=self.width)
        release: ReleaseCalibration | LatticeCalibration = calibration
        if self.float_safe:
            release = float_safe_calibration(calibration, self.width)
        if perturbs_objective(release):
            check_reachable(release, self.width)
        return Calibrated(lam_rule, release, constants)

    def lam_choice(self, n: int) -> LamChoice:
        """The rule of :mod:`dpcvx.privacy.lam_rule` for this verified problem (public inputs only): the noise
        at the bound R of the rows the theorems see (an intercept column included), the bias at the comparator
        prior on the features' weights joined by the intercept's (:func:`comparator_for`). With a public mean
        record weight s_bar (balanced class weights) the rule is that of the equivalent unweighted fit of n s_bar
        records at Lam / s_bar, Delta / s_bar (docs/theory.md, section 21); its Lam is mapped back."""
        R, mean, d, problem = self.rows.effective_norm_bound, self.mean_weight, self.width, self.problem
        comparator = self._comparator()

        def calibrate_at(lam: float) -> ReleaseCalibration:
            calibration, _ = calibrate_linear(problem, self.mechanism, n=n, lam=lam * mean, epsilon=self.epsilon,
                                              delta=self.delta, R=R, split=self.split, tol=self.tol,
                                              neighbours=self.relation)
            if perturbs_objective(calibration):
                check_reachable(calibration, d)
            gamma = calibration.gradient_tolerance
            assert gamma is not None  # the calibration always has a public tol
            least = self.solver.least_budget(problem, lam * mean, calibration.extra_reg, self.rows, n, gamma,
                                             self.start)
            if least is not None and exceeds_limit(least):
                raise InputError(f"the proved iteration budget at lam {lam:.3g} is above {MAX_PROVED_ITERATIONS:.0e}")
            return calibration

        curvature = problem.curvature if problem.certificate.curvature is not None else None
        choice = choose_lam(calibrate_at, n=max(1, round(n * mean)), d=d, L=problem.lipschitz, R=R,
                            m=problem.strong_convexity, c=curvature, comparator_norm=comparator,
                            rule=rule_name(self.comparator_norm, problem.constraint_set, self.regression),
                            mean_weight=mean)
        return choice if mean == 1 else dataclasses.replace(choice, lam=choice.lam * mean)

    def _comparator(self) -> float:
        """W of the rule (:func:`comparator_for`): public inputs only."""
        return comparator_for(self.comparator_norm, self.problem.constraint_set, self.rows.norm_bound,
                              self.rows.intercept_scaling if self.rows.fit_intercept else None, self.label_bound)

    def _rule_choice(self, n: int) -> LamChoice:
        """:meth:`lam_choice` of a fit, made once per process for its public inputs (:data:`_RULE_CHOICES`)."""
        problem, ball = self.problem, self.problem.constraint_set
        key = (n, self.width, self.epsilon, self.delta, self.mechanism, self.relation, self.split, self.tol,
               self.mean_weight, self.rows.effective_norm_bound, self._comparator(), self.regression,
               problem.lipschitz, problem.strong_convexity,
               problem.curvature if problem.certificate.curvature is not None else None, problem.dim, problem.kst12,
               problem.certificate.one_signed_slope,
               ball.radius if ball is not None and ball.kind == "ball" else None, self.solver.budgeted(problem),
               None if self.start is None else self.start.tobytes())
        choice = _RULE_CHOICES.get(key)
        if choice is None:
            choice = self.lam_choice(n)
            if len(_RULE_CHOICES) >= _RULE_CHOICES_KEPT:
                _RULE_CHOICES.clear()
            _RULE_CHOICES[key] = choice
        return choice

    def with_feature_map(self, feature_map: Any) -> FitPlan:
        """This plan with the row map's feature map replaced: its one late-bound part, a public map of the same
        width and norm bound R drawn after the checks (private column statistics,
        :mod:`dpcvx.models.column_statistics`). The verified problem, the solver and the calibrations read R, the
        width and the intercept only, so they stand and nothing is planned again (the calibrations are shared)."""
        if self.rows.feature_map is None or float(feature_map.norm_bound) != self.rows.norm_bound:
            raise InputError(f"a plan's feature map is replaced only by one of the same norm bound R = "
                             f"{self.rows.norm_bound:g}, and only in a plan made with a feature map")
        plan = copy.copy(self)  # a frozen plan: the copy shares the calibrations, which do not read the map
        object.__setattr__(plan, "rows", dataclasses.replace(self.rows, feature_map=feature_map))
        return plan

    def with_weights(self, weight_plan: RecordWeights) -> FitPlan:
        """This plan with other public class weights of the same w_max: the balanced weights of class rates released
        after the checks (a private class count, :mod:`dpcvx.models.class_count`; the largest weight is 1 at every
        rate). The verified problem (weighted by w_max), the solver and the checks stand; the calibrations too,
        unless s_bar moves ``lam="auto"``'s rule (:meth:`lam_choice`), which is then applied afresh."""
        if self.weight_plan is None or weight_plan.bound != self.weight_plan.bound:
            raise InputError("a plan's record weights are replaced only by weights of the same bound w_max, and only "
                             "in a plan made with record weights")
        plan = copy.copy(self)  # a frozen plan: the copy shares the calibrations when they do not read s_bar
        object.__setattr__(plan, "weight_plan", weight_plan)
        if self.lam is None and plan.mean_weight != self.mean_weight:
            object.__setattr__(plan, "_calibrations", {})
        return plan

    def with_problem(self, problem: VerifiedProblem) -> FitPlan:
        """This plan with its verified problem replaced by one of the same certified L, c and m and the same
        posing: the ridge centred at an intercept offset released after the checks (a private class count,
        :mod:`dpcvx.models.intercept_offset`; its text holds the centre). Weighted by the plan's w_max and held to
        the mechanism's verdict; the solver and the calibrations, which read only those constants, stand."""
        if self.weight_plan is not None:
            problem = problem.weighted(self.weight_plan.bound)
        if _constants(problem) != _constants(self.problem):
            raise InputError("a plan's verified problem is replaced only by one of the same L, c and m: plan again")
        problem.require(self.mechanism, self.delta)
        plan = copy.copy(self)  # a frozen plan: the copy shares the calibrations
        object.__setattr__(plan, "problem", problem)
        return plan

    # -- execution ----------------------------------------------------------------------------------------

    def mapped(self, X: Any, y: Any) -> tuple[Matrix | RowBlocks, np.ndarray | SignBits]:
        """The rows under the public row map and the labels (-1/+1 of the public classes, or the targets
        clipped to [-B, B]); rows beyond R clipped (``clip``) or refused; a width other than the plan's refused."""
        refuse = not self.clip
        mapped, y = erm_inputs.mapped_rows(self.rows, X, y, refuse)
        if mapped.shape[1] != self.width:
            raise InputError(f"this plan is for rows of width {self.width} after the row map, got "
                             f"{mapped.shape[1]}: plan again for these columns")
        return mapped, erm_inputs.fit_labels(self.classes, self.label_bound, y, mapped, refuse)

    @float_errors_ignored
    def bind(self, X: Matrix | RowBlocks, labels: np.ndarray | SignBits, sample_weight: Any = None) -> _Bound:
        """The checks of a fit on mapped rows (:meth:`mapped`), in order, with nothing charged or drawn:
        delta below 1/n, the record weights, the tolerance at the rows, the solver's path, the calibration at
        n and the proved iteration budget (the failure rule, :mod:`dpcvx.models.failure`)."""
        rows = X.shape[0]
        n = self.size(rows)
        check_delta_for_n(self.delta, n, self.allow_large_delta, "n" if self.n_public is None else "n_public")
        weights = None
        if self.weight_plan is not None:
            weights = record_weights(self.weight_plan, sample_weight, labels, rows)
        elif sample_weight is not None:
            raise InputError("this plan was made without sample_weight; plan with it to fit weighted records")
        if self.n_public is not None:  # gamma scales with n_public, the gradient's rounding with the rows
            calibrate.check_tol_at_rows(self.tol, self.n_public, rows)
        self.solver.check(self.problem, X, weighted=weights is not None)
        calibrated = self.calibrate(n)
        # the noise's norm bounded far in its tail (NOISE_TAIL times its mean) for the solver's scale
        noise_norm = NOISE_TAIL * calibrated.calibration.noise_moments(self.width).first
        self.solver.check_scale(self.problem, n, self.rows.effective_norm_bound, noise_norm)
        gamma = calibrated.calibration.gradient_tolerance
        assert gamma is not None  # the calibration always has a public tol
        least = self.solver.least_budget(self.problem, calibrated.lam, calibrated.calibration.extra_reg, self.rows,
                                         n, gamma, self.start)
        # refused wherever the fit runs, alone or in a composite procedure (the failure rule, docs/theory.md, 7.1): no
        # budget (a user's solver, a conic-only problem, Newton without a proved c) or one beyond the limit
        proved = least is not None and not exceeds_limit(least)
        if not proved:  # why, with the fix (a few budget calls: only on the way to the refusal)
            failure.require_proved(False, self.owner, self.solver.unproved_reason(self.problem))
        self.solver.check_max_iter(least)
        return _Bound(X, labels, n, weights, calibrated, proved)

    def checked(self, X: Any, y: Any, sample_weight: Any = None) -> _Bound:
        """:meth:`bind` on the rows :meth:`mapped` gives: every check of a fit on (X, y), then the clipping counts
        found while reading them (:func:`~dpcvx.data.notes.checks_then_notes`: a refused call shows none)."""
        with checks_then_notes():
            return self.bind(*self.mapped(X, y), sample_weight)

    @float_errors_ignored
    def fit(self, X: Any, y: Any, *, random_state: RandomState = None, accountant: PrivacyAccountant | None = None,
            sample_weight: Any = None) -> PrivateModel | PrivateRegressionModel:
        """Execute the plan on (X, y): check, then charge ``accountant`` once, draw the noise, solve, release
        (:meth:`PrivateERM.fit <dpcvx.models.erm.PrivateERM.fit>`). A refused call spends nothing."""
        check_accountant(accountant)
        released = self.execute(self.checked(X, y, sample_weight), random_state, accountant)
        training_rows.warn_on_learner_fit(self.owner, released, X, y)  # NOT PRIVATE: a regression's training rows
        return released

    @float_errors_ignored
    def execute(self, bound: _Bound, random_state: RandomState,
                accountant: PrivacyAccountant | None) -> PrivateModel | PrivateRegressionModel:
        """Charge, draw, solve and release on data :meth:`bind` has checked."""
        rng = resolve_rng(random_state)
        source = integer_source(None if random_state is None else rng)  # the OS CSPRNG unless seeded
        calibration, n = bound.calibrated.calibration, bound.n
        if accountant is not None:
            accountant.spend(self.epsilon, self.delta, description=self.ledger_text(n),
                             curve=calibration.privacy_curve(self.epsilon, self.delta),
                             neighbours=self.relation, conditional=self.conditional)
        # objective: b enters the objective and b_2 covers the approximate minimiser;
        # output: the minimiser of the unperturbed objective gets the one noise vector. Both are drawn before the
        # solve, in the order they always were (the solve draws nothing): the release's noise does not depend on
        # the weights, and the training-rows check takes X times it from the solve's first pass (offset)
        noise = draw_objective_noise(calibration, self.width, rng, source)
        release_noise = draw_release_noise(calibration, self.width, rng, source)
        offset = release_offset(calibration, release_noise) if self._checks_rows() else None
        gamma = calibration.gradient_tolerance
        assert gamma is not None
        with np.errstate(all="ignore"):  # a user's np.seterr cannot make the solve's success depend on the data
            w, info = self.learner._solve(self.problem, bound.X, bound.labels, noise, calibration.extra_reg, gamma,
                                          self.start, n, bound.calibrated.lam, bound.weights, solver=self.solver,
                                          rows=self.rows, offset=offset, proved=bound.proved)
        solved = None if info.final_margins is None else _Solved(w, info.final_margins, offset, info.offset_margins)
        info = info.without_margins()  # the margins go to the training-rows check only
        self.learner.diagnostics_ = info
        erm_inputs.check_solution(w, info)
        w, calibration = calibration.release(w, release_noise)
        del noise, release_noise  # never stored
        return self._release(w, calibration, bound, NoiseSource.of(random_state), solved)

    def _checks_rows(self) -> bool:
        """Whether this fit's release runs the training-rows check (a classifier, not inside tune)."""
        return self.classes is not None and training_rows.runs_here()

    def _release(self, w: np.ndarray, calibration: ReleaseCalibration | LatticeCalibration,
                 bound: _Bound, noise_source: NoiseSource, solved: _Solved | None = None,
                 ) -> PrivateModel | PrivateRegressionModel:
        """The released model of the noisy weights and its certificate (public values and privatised ones).
        ``noise_source``: where its noise came from (the fit's ``random_state``, :meth:`NoiseSource.of
        <dpcvx.privacy.rng.NoiseSource.of>`).
        ``solved``: the solver's point and its fresh margins, when it kept them (the training-rows check's)."""
        problem, rows = self.problem, self.rows
        steps: tuple[str, ...] = ()
        if problem.constraint_set is not None:  # the noise may leave C; projecting back is post-processing
            w, steps = problem.constraint_set.project(w), (problem.constraint_set.projection_step(),)
        coef, intercept = rows.split_weights(w)
        lam_rule = bound.calibrated.lam_rule
        release = ReleaseCertificate(
            mechanism=self.mechanism,
            guarantee=float_safe_guarantee(calibration, release_guarantee(
                problem.certificate.release_theorem(self.mechanism, self.delta, calibration.approximate),
                self.mechanism, calibration.relation is Neighbours.ADD_REMOVE)),
            epsilon=self.epsilon, delta=self.delta, calibration=calibration,
            verification=problem.certificate,
            data_norm=rows.norm_bound, effective_norm_bound=rows.effective_norm_bound,
            fit_intercept=rows.fit_intercept, intercept_scaling=rows.intercept_scaling,
            clipping=ROWS_CLIPPED if self.clip else NOT_CLIPPED,
            library_version=__version__,
            constants=bound.calibrated.constants,
            label_bound=self.label_bound,
            lam_rule=lam_rule,
            post_processing=steps,
            findings=() if self.classes is None else one_class_findings(coef, intercept, self.classes,
                                                                        rows.norm_bound),
            weights=None if self.weight_plan is None else self.weight_plan.record(),
            noise_source=noise_source,
        )
        if self.classes is None:
            return PrivateRegressionModel(coef, intercept, rows, release)
        warn_if_constant(self.owner, release.findings)
        if self._checks_rows():  # NOT PRIVATE, fixed text, never in the release (models.training_rows)
            counts = functools.partial(_confusion, bound.X, w, bound.labels, solved, rows.effective_norm_bound)
            check = training_rows.deferral()
            unweighted = self.weight_plan is None  # every record alike: at its sign, fitted for accuracy
            if check is None:  # at the release's sign; class weights: the note advises none (training_rows.WEIGHED)
                training_rows.warn_on_confusion(self.owner, counts(0.0), self.classes, for_accuracy=unweighted,
                                                weighed=training_rows.weighs_classes(self.learner))
            else:  # at a caller's cut, known once the caller's release is complete (an estimator's threshold)
                check.counts, check.classes, check.unweighted = counts, self.classes, unweighted
                # in memory, the release's decision values for the cut that misses the rarer class (MISSED_CUT)
                check.ranked = (None if isinstance(bound.X, RowBlocks) or isinstance(bound.labels, SignBits) else
                                functools.partial(_best_cut, bound.X, w, bound.labels))
        return PrivateModel(coef, intercept, self.classes, rows, release)


def fit_ledger_text(learner: Any, plan: Any, n: int, options: dict[str, Any] | None = None) -> str:
    """How a composite's ledger line names its fit of n public records: the fit's own line
    (:meth:`FitPlan.ledger_text`) when ``plan`` holds a :class:`FitPlan` (itself, or a composite's plan with its fit's
    as ``plan``, as :func:`plan_conditional` reads it); else the learner's class, its loss (``learner.loss``
    through :func:`~dpcvx.losses.loss_label`), the mechanism its fit takes (``options``' "mechanism", else its fit's
    default; a private bound's line lacked it, a probe of the sixty-third session) and n."""
    while plan is not None and not isinstance(plan, FitPlan):
        plan = getattr(plan, "plan", None)
    if plan is not None:
        return plan.ledger_text(n)
    loss = getattr(learner, "loss", None)
    parameter = inspect.signature(learner.fit).parameters.get("mechanism")
    mechanism = (options or {}).get("mechanism", None if parameter is None else parameter.default)
    words = [named_loss(loss)] if loss is not None else []
    words += [f"{mechanism} perturbation"] if isinstance(mechanism, str) else []
    return f"{type(learner).__name__}.fit ({', '.join([*words, f'n={n}'])})"


def composite_ledger_line(fit: str, draws: Sequence[tuple[str, str, float]], eps_fit: float) -> str:
    """The one ledger line of a composite fit (private draws, then the fit at what they released), built from its
    parts: the fit as it names itself (:func:`fit_ledger_text`), each draw in order by what it drew, its symbol and
    its epsilon (``draws``: (name, symbol, eps)), then the fit's own eps_fit, e.g.
    "PrivateERM.fit (loss logistic, objective perturbation, n=3000): private column statistics (eps_s=0.1), private
    class count (eps_c=0.045), then the fit (eps_fit=0.855)". The line is text only: the charge (its total and curve)
    is made by the composite from the same parts.

    Each epsilon is written as :func:`~dpcvx.validation.number_text` writes it: as ``:g`` does where that reads back as
    the same double, else with the fewest more digits that do (0.1 stays "0.1", 1/3 - 0.1/3 is written in full), so
    the shares on the line, read back and added in its order, are the charge the ledger states beside it (the
    accountant's line writes its epsilon the same way). Six significant digits left a reader three shares that did
    not add up to the total (a probe of the sixty-third session)."""
    drawn = ", ".join(f"{name} ({symbol}={number_text(eps)})" for name, symbol, eps in draws)
    return f"{fit}: {drawn}, then the fit (eps_fit={number_text(eps_fit)})"


def plan_conditional(plan: Any) -> bool:
    """Whether the fit a plan holds (a :class:`FitPlan`, or a composite's plan with its fit's as ``plan``: the class
    count's, the column statistics') rests on an opted-in estimate (:attr:`FitPlan.conditional`); False for None."""
    while plan is not None and not isinstance(plan, FitPlan):
        plan = getattr(plan, "plan", None)
    return plan is not None and plan.conditional


def _constants(problem: VerifiedProblem) -> tuple[Any, ...]:
    """What a plan's calibrations and solver read of its problem: the certified L, c, m and the posing (KST12)."""
    certificate = problem.certificate
    return certificate.lipschitz, certificate.curvature, certificate.strong_convexity, problem.kst12


@dataclass(frozen=True)
class _Solved:
    """What the solve leaves the training-rows check (NOT PRIVATE, never stored): its point w~ and fresh margins
    m_i = y_i fl(x_i . w~), and, when its first pass computed them, the release noise's move u
    (:func:`~dpcvx.privacy.float_safe.release_offset`) with y_i fl(x_i . u) (else None)."""

    point: np.ndarray
    margins: np.ndarray
    offset: np.ndarray | None = None
    offset_margins: np.ndarray | None = None


def _confusion(X: Matrix | RowBlocks, w: np.ndarray, labels: np.ndarray | SignBits,
               solved: _Solved | None, bound: float, cut: float = 0.0) -> np.ndarray:
    """The release's confusion counts on its mapped rows (labels -1, +1; :func:`training_rows.sign_confusion`): a
    row is predicted +1 where x_i . w > ``cut`` exactly (:func:`_positive`; rows of norm at most ``bound``, the public
    R of the mapped rows). With the solver's point and fresh margins (``solved``), the rows they decide are read
    from them and only the others from X (:func:`_decided`); else X is read once, by block for row blocks (the
    decision values stay where the rows are: on a Dask input, on the workers). Both give the same counts: each
    the exact side of the cut."""
    if solved is not None and _gathers(X):  # margins the solve kept: all the labels at once beside them
        signs = np.asarray(labels)
        positive = _decided(X, w, signs, solved, bound, cut)
        if positive is not None:
            return training_rows.sign_confusion(positive, signs)

    def counts(block: Any, part: np.ndarray) -> np.ndarray:
        return training_rows.sign_confusion(_positive(block, w, bound, cut), part)

    if isinstance(X, RowBlocks):  # each block's part of the labels (one bit a row: SignBits)
        return np.asarray(X.sum(counts, labels))
    return counts(X, np.asarray(labels))


#: Stored entries of a CSR's sampled rows :func:`_best_cut` copies and scores at a time (about 3 MB).
_SCORED_ENTRIES = 1 << 18


def _best_cut(X: Matrix, w: np.ndarray, labels: np.ndarray) -> float | None:
    """The largest balanced accuracy of any cut of the release's decision values on its rows in memory
    (:func:`training_rows.best_balanced_accuracy`, from x_i . w as computed: a pass and a sort), on at most about
    :data:`training_rows.MISSED_ROWS` of them, evenly spaced."""
    rows = training_rows.sampled_rows(X.shape[0])
    if sparse.issparse(X):  # the sampled rows a block at a time: X[rows] was a copy of up to all of X's rows (s62)
        chosen = np.arange(X.shape[0])[rows]
        step = max(1, _SCORED_ENTRIES * X.shape[0] // max(X.nnz, 1))
        decisions = np.concatenate([np.asarray(X[chosen[start:start + step]] @ w, dtype=float).ravel()
                                    for start in range(0, chosen.size, step)] or [np.empty(0)])
    else:  # a strided view of an array, no copy
        decisions = np.asarray(X[rows] @ w, dtype=float).ravel()
    return training_rows.best_balanced_accuracy(decisions, np.asarray(labels)[rows])


def _rounding(d: int) -> float:
    """A bound, with a factor 2 to spare, on the relative rounding of a dot product of d terms computed in any
    order: |fl(x . v) - x . v| <= gamma_d sum_j |x_j v_j|, gamma_d = d u / (1 - d u), u = 2^-53 (Higham, Accuracy
    and Stability of Numerical Algorithms, 2002, eq. (3.5) on inner products), without underflow
    (:data:`_UNDERFLOW` per term)."""
    return 2 * d * float(np.finfo(float).eps)


#: :func:`_decided` first counts the undecided rows among every _SAMPLE_STEP-th.
_SAMPLE_STEP = 64

#: The absolute rounding of a product x_j v_j that underflows, with a factor 2^4 to spare (per term).
_UNDERFLOW = 2.0 ** -1070


def _positive(rows: Any, w: np.ndarray, bound: float, cut: float = 0.0) -> np.ndarray:
    """Whether x_i . w > ``cut`` exactly, for each row (norm at most ``bound``): the side of the computed product
    where its distance from the cut exceeds the product's rounding (:func:`_rounding`: gamma_d ||x_i|| ||w|| <=
    gamma_d R ||w||; the factor 2 also covers the subtraction's); the few others from sum_j |x_j w_j|, and those
    within its rounding in exact rational arithmetic (:func:`_exact_positive`). So the result does not depend on how
    the product was summed (BLAS kernel, block, threads).

    A row none of whose terms x_j w_j is nonzero (x_j = 0 or w_j = 0 at each entry: a zero row, or one whose entries
    meet only w's zeros) has x_i . w = 0 exactly. Such rows are those with sum_j |x_j| [w_j != 0] = 0 as computed (a
    sum of nonnegative floats is 0 only when every term is), taken in the product that gives sum_j |x_j w_j|, and are
    decided as 0 > cut with no rational arithmetic. A dense X is read a cache block at a time, each block's near rows
    measured while it is in cache. Zero rows are near the cut and not rare in tables: with three tenths of the rows
    zero, each sent through the rationals (8 us a row) and the near rows gathered whole took 80 % of a 10,000 x 20
    fit (a one-off profile; the fits before and after: benchmarks/results/speed_ab_zero_rows.md)."""
    d = rows.shape[1]
    step = cache_block_rows(d)
    if isinstance(rows, np.ndarray) and rows.shape[0] > step:  # a dense X a cache block at a time
        return np.concatenate([_positive(rows[a:a + step], w, bound, cut) for a in range(0, rows.shape[0], step)])
    values = np.asarray(rows @ w).ravel()
    if cut:
        values -= cut
    positive = values > 0
    size = np.abs(values, out=values)  # |x_i . w - cut| as computed, in place (the sides are taken)
    near = np.flatnonzero(~(size > 2 * _rounding(d) * bound * _norm(w) + d * _UNDERFLOW))
    if not near.size:
        return positive
    # the near rows at once: a dense block's are at most a cache block, a CSR's cost their stored entries (an empty
    # row none); sum_j |x_j w_j| and sum_j |x_j| [w_j != 0] in one product
    scale, live = np.asarray(abs(take_rows(rows, near)) @ np.column_stack([np.abs(w), w != 0])).T
    unsure = ~(size[near] > 2 * _rounding(d) * scale + d * _UNDERFLOW)
    positive[near[unsure & ~(live > 0)]] = cut < 0.0  # every term 0: x_i . w = 0 exactly, and 0 > cut or not
    exact = near[unsure & (live > 0)]
    if exact.size:
        positive[exact] = _exact_positive(sparse.csr_matrix(take_rows(rows, exact)), w, cut)
    return positive


def _exact_positive(rows: sparse.csr_matrix, w: np.ndarray, cut: float = 0.0) -> np.ndarray:
    """Whether x_i . w > ``cut``, summed in exact rational arithmetic (a double is a rational): for the rows whose
    computed product is within its rounding of the cut and that have a nonzero term (exact cancellation; rare, and d
    terms each)."""
    threshold = Fraction(cut)
    return np.array([sum((Fraction(float(x)) * Fraction(float(w[j])) for x, j in
                          zip(rows.data[a:b], rows.indices[a:b], strict=True)), Fraction(0)) > threshold
                     for a, b in zip(rows.indptr[:-1], rows.indptr[1:], strict=True)], dtype=bool)


def _gathers(X: Matrix | RowBlocks) -> bool:
    """Whether some rows of X can be read alone, with the values a pass reads: an array or a CSR in memory, or
    the checked blocks of a memmap (views, the intercept column appended; :meth:`RowBlocks.take`)."""
    if isinstance(X, RowBlocks):
        return X.checked and not X.on_dask
    return sparse.issparse(X) or isinstance(X, np.ndarray)


def _decided(X: Matrix | RowBlocks, w: np.ndarray, labels: np.ndarray, solved: _Solved,
             bound: float, cut: float = 0.0) -> np.ndarray | None:
    """Whether x_i . w > ``cut`` exactly (as :func:`_positive`), from the solver's fresh margins m_i = y_i fl(x_i . w~)
    at its point w~, plus, when the solve's first pass computed them, the margins p_i = y_i fl(x_i . u) of the
    release noise's move u: the rows they decide, and the others gathered a cache block at a time
    (:func:`_positive`); None when those are more than a share min(1/10, d / 400) of the rows, where one pass
    costs less.

    With delta = w - w~ - u (u = 0 without the noise's margins) and ||x_i|| <= R (``bound``),
    |x_i . delta| <= R ||delta||, and each computed product is within gamma_d R ||v|| of x_i . v
    (:func:`_rounding`; v = w~, u). So where the computed s_i = y_i (m_i + p_i) - cut (labels -1 or +1) has
    |s_i| > 2 R (||delta|| + 2 d eps (||w|| + ||w~|| + ||u||)) + d 2^-1070, x_i . w - cut is nonzero and of the
    sign of s_i (the factor 2 also covers the rounding of the sums and of ||delta||). The rows left are few where
    the decision values are far from the cut: without u, only where the release is close to the solver's
    point (objective perturbation at large n; output perturbation's noise leaves every row,
    benchmarks/results/confusion_margins.md); with u, ||delta|| is the rounding onto the release grid."""
    margins = solved.margins
    if margins.shape != labels.shape or not math.isfinite(bound):
        return None
    d = X.shape[1]
    move, size = w - solved.point, _norm(w) + _norm(solved.point)  # numpy's norm, sqrt(v . v), without its checks
    if solved.offset is not None and solved.offset_margins is not None:
        margins = margins + solved.offset_margins
        move -= solved.offset
        size += _norm(solved.offset)
    threshold = 2 * bound * (_norm(move) + _rounding(d) * size) + d * _UNDERFLOW
    share = min(0.1, d / 400)
    # s_i = y_i t_i - cut, the decision values' distance from the cut (y_i^2 = 1); every 64th row's first: when many
    # are left undecided, a pass at once
    sample = labels[::_SAMPLE_STEP] * margins[::_SAMPLE_STEP] - cut
    if np.count_nonzero(~(np.abs(sample) > threshold)) > 2 * share * sample.size:
        return None
    decision = labels * margins
    decision -= cut
    undecided = np.flatnonzero(~(np.abs(decision) > threshold))  # a NaN margin too
    if undecided.size > share * decision.size:
        return None
    positive = decision > 0
    # gathered a cache block at a time: never a copy of a tenth of X (a memmap's file); a CSR's at once (a gather
    # costs the rows' stored entries, and a cache block of a wide CSR's rows is a few hundred)
    step = undecided.size if sparse.issparse(X) else cache_block_rows(d)
    for start in range(0, undecided.size, max(step, 1)):
        part = undecided[start:start + step]
        positive[part] = _positive(X.take(part) if isinstance(X, RowBlocks) else X[part], w, bound, cut)
    return positive
