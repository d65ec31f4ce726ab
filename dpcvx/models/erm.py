"""PrivateERM: declare, verify, calibrate, solve exactly, release with a certificate.

Algorithms 1 (output perturbation) and 2 (objective perturbation) of
Chaudhuri, Monteleoni and Sarwate, "Differentially Private Empirical Risk
Minimization", JMLR 12 (2011), for a margin loss l and regularizer N written
in CVXPY, with general constants R (public norm bound), L, c and m:

    J(w) = (1/n) sum_i l(y_i w^T x_i) + Lam N(w)

* output:    release argmin J + b,  density of b proportional to exp(-beta ||b||),
             beta = n m Lam eps / (2 L R)
* objective: release argmin J(w) + b^T w / n + (Delta/2) ||w||^2, beta = eps' / (2 L R),
             eps' and Delta from :func:`dpcvx.privacy.calibrate.objective_perturbation`

The fit verifies ONCE: :func:`dpcvx.verification.verifier.verify_problem` returns the
:class:`~dpcvx.verification.problem.VerifiedProblem` that calibration, the solver and the
release all use. Nothing is released unless the certificate allows the
mechanism (:class:`~dpcvx.exceptions.AssumptionError`). The solver is held to
the public gradient bound ||grad F|| <= gamma = tol n L R, and the noise covers
any point within it (approximate minima perturbation; docs/theory.md), so the
release never depends on how close to optimal the solver happened to get.

Order in :meth:`PrivateERM.fit`: validate every input (the parameters, then the
verification and its verdict at X's public width, then the rows and labels), then
charge the accountant once, then draw noise. Solver statistics measured on the private
data go to ``diagnostics_`` on the learner (not private: never published).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, ClassVar, cast

import numpy as np

from .. import losses
from ..advice import setting
from ..data.blocks import RowBlocks, matrix_shape
from ..data.notes import checks_then_notes
from ..data.rows import Matrix, RowMap, mapped_width
from ..exceptions import BudgetLimitError, DPCVXError, InputError, UnsupportedWeightsError, float_errors_ignored
from ..limits import DEFAULT_SPLIT
from ..privacy import calibrate
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..privacy.budget_part import budget_part
from ..privacy.calibrate_gaussian import ReleaseCalibration
from ..privacy.composition import check_delta
from ..privacy.float_safe import (
    LatticeCalibration,
    check_float_safe_form,
)
from ..privacy.lam_rule import LamChoice
from ..privacy.linear_calibration import calibrate_linear
from ..privacy.neighbours import REPLACE_ONE_STATEMENT, Neighbours
from ..privacy.objective_gaussian import check_gaussian_objective_epsilon
from ..privacy.privacy_curve import DrawnPart
from ..privacy.rng import RandomState, resolve_rng
from ..release.model import LinearModel, PrivateModel, named
from ..release.regression_model import LinearRegressionModel, PrivateRegressionModel
from ..solvers.choice import SOLVERS, SolverChoice
from ..solvers.linear import SolveInfo
from ..tables import feature_names
from ..validation import (
    TASKS,
    SignBits,
    check_choice,
    check_classes,
    check_epsilon,
    check_flag,
    sample_size,
)
from ..verification.bounded_residual import with_bounded_residual
from ..verification.certificate import Certificate
from ..verification.constraints import Constraints
from ..verification.prediction_loss import residual_loss, takes_prediction_and_label
from ..verification.problem import LabelLoss, VerifiedProblem
from ..verification.verdict import Mechanism
from ..verification.verifier import PROBE_DIM, Loss, Regularizer, check_dim, default_regularizer, verify_problem
from . import class_count, column_statistics, erm_inputs, private_norm
from .class_count import CLASS_COUNT_SHARE
from .column_statistics import COLUMN_STATISTICS_SHARE
from .contract import ConstructorParameters, as_planned, copied
from .fit_plan import FitPlan
from .private_norm import NORM_SHARE
from .record_weights import RecordWeights, plan_weights
from .training_rows import warn_on_learner_fit

if TYPE_CHECKING:
    import cvxpy as cp

__all__ = ["PrivateERM", "SOLVERS", "NEIGHBOURS", "verdict_in_plan"]

NEIGHBOURS = REPLACE_ONE_STATEMENT  # the replace-one statement of a certificate



#: True inside the entry checks of a fit or a plan (:func:`verdict_in_plan`), whose plan makes the mechanism's verdict
#: on the fit's one verification (issue 17: verify once): :meth:`PrivateERM.check_options` then leaves the loss's
#: verdict (:meth:`PrivateERM._refuse_for_the_loss`) to it
_VERDICT_IN_PLAN: ContextVar[bool] = ContextVar("dpcvx_verdict_in_plan", default=False)


@contextmanager
def verdict_in_plan() -> Iterator[None]:
    """The entry checks of a fit or a plan (an estimator's, one-vs-rest's): :meth:`PrivateERM.check_options` made
    inside makes every check but the loss's verdict, which the plan that follows makes, before anything is charged,
    on the fit's one verification. A caller before the data (:func:`dpcvx.as_opendp_measurement`, ``dpcvx fit``
    before it opens the file, an estimator's ``check_params``) gets the verdict from ``check_options`` itself."""
    token = _VERDICT_IN_PLAN.set(True)
    try:
        yield
    finally:
        _VERDICT_IN_PLAN.reset(token)


class PrivateERM(ConstructorParameters):
    """A declared private ERM problem; :meth:`fit` releases a :class:`~dpcvx.release.model.PrivateModel`.

    This is the mathematical layer, as in the papers: labels -1/+1
    (``classes=(-1, 1)``), no intercept, and no default norm bound (R is a
    public fact about your data that only you know). The scikit-learn
    estimators (:class:`~dpcvx.sklearn.classifiers.DPLogisticRegression` and friends)
    follow scikit-learn instead: labels 0/1, an intercept and
    ``data_norm=1.0`` for rows scaled by a :class:`~dpcvx.PublicSchema`.
    Set ``classes`` to your public label pair, e.g. ``classes=(0, 1)``.

    Parameters
    ----------
    loss : callable z -> CVXPY expression, default ``dpcvx.losses.logistic()``
        Margin loss l(z), z = y w^T x (a regression's loss of the residual: ``task``). A catalogue loss
        (:mod:`dpcvx.losses`) made for the other task is refused (:func:`dpcvx.losses.check_task`): the margin
        losses (logistic, the default, and the Huber hinge) for ``task="regression"``, the residual losses
        (huber_regression, squared_error) for a classification.
    regularizer : callable w -> CVXPY expression, default ``0.5 * cp.sum_squares(w)``
    lam : float or "auto"
        Regularization weight Lam > 0, or "auto": the public rule of
        :mod:`dpcvx.privacy.lam_rule` (docs/theory.md, section 25) chooses it at
        each fit from n (n_public under add/remove), the number of columns d (a
        public part of the schema, never a statistic of the values), epsilon,
        delta, the mechanism, the neighbour relation, the verified L, c, m, R
        and ``comparator_norm``; it costs no privacy, and the certificate
        records the rule and the value (``certificate.lam_rule``; the value is
        also ``certificate.constants["lam"]``).
    data_norm : float or "private"
        Public bound R on ||x||; never taken from the data. Not needed when a
        ``feature_map`` supplies its own ``norm_bound``. "private" (opt-in, with
        ``norm_range``): :meth:`fit` spends ``norm_share`` of epsilon (eps_q) on R,
        drawn by the exponential-mechanism quantile (q = 0.95) of the row norms
        over the powers of two in ``norm_range`` (Smith 2011, exact sampler), fits
        at R with the rest (eps_fit), charges the accountant once (eps_q + eps_fit,
        delta) and records R, eps_q, eps_fit and the grid in the certificate
        (``private_bound``, ``total_epsilon``); replace-one neighbours
        (:mod:`dpcvx.models.private_norm`; docs/theory.md, "Private norm bounds").
    norm_range : pair (r_min, r_max), optional
        The PUBLIC range of ``data_norm="private"``, chosen without looking at the data.
    norm_share : float, default 0.1
        The share eps_q / epsilon that the private bounds cost together (halved
        between R and B when both are "private").
    fit_intercept : bool
        Append a constant feature ``intercept_scaling`` (inside the norm bound,
        the regularizer and the noise; R grows to sqrt(R^2 + s^2)).
    intercept_scaling : float or "auto"
        The constant s (default 1.0). "auto": s = sqrt(R B0 / W) from the public
        intercept prior B0 and the comparator norm W
        (:func:`dpcvx.privacy.lam_rule.intercept_scaling`; docs/theory.md, section 25.7).
    clip : bool
        Rows with ||x|| > R are scaled onto the bound (True, with a
        :class:`~dpcvx.exceptions.ClippingWarning`) or refused (False).
    classes : pair
        Public (negative, positive) label values; never inferred from y. Each label is read by its
        value ("1.0", "true" or True is the class 1, the integer 1 the class "1":
        :func:`dpcvx.validation.declared_labels`); two classes of one value are refused when declared.
    feature_map : object with ``transform(X)``, ``norm_bound`` and ``to_dict()``, optional
        A public, data-independent map such as
        :class:`dpcvx.data.kernels.RandomFourierFeatures`. ``transform`` reads the rows
        read-only (they may be the caller's own arrays) and returns new ones; a map that
        writes to its input gets an :class:`~dpcvx.exceptions.InputError`.
    comparator_norm : float, optional
        The public prior W on ||w*|| (the features' weights) that ``lam="auto"`` weighs
        the bias Lam W^2 / 2 with; default the radius of a constraint ball, else
        ``COMPARATOR_SCALE / R`` (:func:`dpcvx.privacy.lam_rule.default_comparator_norm`).
        With an intercept column s (and no ball) the rule uses sqrt(W^2 + (B0 / s)^2),
        the intercept's prior joined (:func:`dpcvx.privacy.lam_rule.comparator_for`).
    constraints : callable w -> list of CVXPY constraints, optional
        A public closed convex set C the weights are restricted to (KST12):
        ``lambda w: [cp.norm(w, 2) <= 6]`` (a ball) or bounds such as
        ``lambda w: [w >= -1, w <= 1]`` (a box); ``w`` is the whole weight
        vector, intercept last. With constraints, or with an L1 term in the
        regularizer (``a * cp.norm1(w) + b * cp.sum_squares(w)``, elastic net;
        b may be 0), objective perturbation follows Kifer, Smith and Thakurta
        (COLT 2012) and the solve is proximal Newton (docs/theory.md, section 14).
        The noise added after the solve (and the release grid) can leave C, so the
        released weights are projected back onto C exactly (Euclidean projection,
        a few ulps inside): post-processing, recorded in the certificate's
        ``post_processing``.
        The noise reaches every weight, so an L1 or group term gives no exact
        zeros in the release: ``model.sparsify(threshold)`` (a public rule,
        post-processing, no privacy cost) gives them (:mod:`dpcvx.release.sparsify`).
    task : "classification" or "regression"
        "regression": the loss is a function of the residual r = w^T x - y
        (``lambda r: cp.huber(r, 1) / 2``, :func:`dpcvx.losses.huber_regression`),
        or of the prediction p = w^T x and the label, ``lambda p, y: cp.huber(p - y, 1)``,
        proved symbolically to depend on p - y only,
        y is real with the PUBLIC bound ``label_bound`` (|y| <= B; labels
        beyond it are clipped onto [-B, B], or refused with clip=False), and
        :meth:`fit` returns a :class:`~dpcvx.release.regression_model.PrivateRegressionModel`.
        The theorems apply unchanged: each record's loss has gradient l'(r) x
        and Hessian l''(r) x x^T, so L and c bound |l'| and l'' over all
        residuals (docs/theory.md, section 16). A loss that is not Lipschitz
        (squared error) is refused unless ``constraints`` bound the weights:
        on a set with sup ||w|| <= W, L is taken over the reachable residuals
        |r| <= W R + B (KST12, least squares on a ball; docs/theory.md,
        section 16), or use :class:`dpcvx.DPLinearRegression` (AdaSSP).
    label_bound : float or "private", optional
        The public bound B on |y| of a regression (required for task="regression").
        "private" (opt-in, with ``label_range``): B is drawn as R is for
        ``data_norm="private"``, by the quantile of |y_i| over the powers of two in
        ``label_range`` (``certificate.private_label_bound``).
    label_range : pair (b_min, b_max), optional
        The PUBLIC range of ``label_bound="private"``.
    solver : "auto", "fast", "cvxpy", or a callable ``solve(program, w)``
        "fast" is Newton's method on the verified derivatives (smooth loss,
        quadratic regularizer); "cvxpy" solves the same problem with CVXPY (and,
        where the fast path applies and the conic solver stopped above ``tol``,
        polishes its point with Newton steps); "auto" takes the fast path when
        it can. A callable is ANY solver (approximate minima perturbation,
        Iyengar et al. 2019): it gets the perturbed problem as a CVXPY
        ``Problem`` and its variable ``w`` and solves it as it likes (e.g.
        ``lambda program, w: program.solve(solver="SCS", eps_abs=1e-9)``);
        dpcvx computes the gradient at ``w.value`` and accepts it only if it is
        within the public bound gamma / 2. No iteration budget covers a user's
        solver, so a private fit (``fit``, and every estimator, tune and the
        command line) refuses it before anything is charged: its point could
        miss the bound on some data sets and not on their neighbours, and that
        failure after the charge would be a release no theorem covers
        (docs/theory.md, section 7.1). It serves :meth:`fit_nonprivate`.
    cvxpy_solver : str
        "CLARABEL" (default), "ECOS" or "SCS" for the CVXPY path.
    cvxpy_options : dict, optional
        Extra solver options, overriding dpcvx's tightened defaults.
    tol : float, optional
        Public relative gradient tolerance in [1e-13, 1e-3]: the solve stops
        once ||grad F(w)|| <= gamma = tol n L R (F = n J_b), and the noise is
        calibrated to cover any such point (approximate minima perturbation).
        Checked when the learner is constructed. None (default): 1e-10 when
        Newton's method applies (a translated C^1 loss and a quadratic
        regularizer), 1e-7 for problems only a conic solver can take; the
        choice depends on the declared problem only.
    float_safe : bool
        False (default): the float samplers, whose proofs hold in exact
        arithmetic (the release is rounded to a grid 2^-30 of the noise scale,
        a mitigation). True: exact integer noise on a public lattice, a proof
        that holds for the doubles released: output perturbation draws a
        product discrete Laplace (pure epsilon) or a multivariate discrete
        Gaussian ((epsilon, delta)), certificate "exact"; pure-epsilon objective
        perturbation draws dithered-lattice noise, certificate
        "dithered-lattice"; (epsilon, delta) objective perturbation has no
        float-safe form and is refused with it before anything is charged
        (:func:`~dpcvx.privacy.float_safe.check_float_safe_form`: the flag would
        change nothing there). docs/theory.md, section
        "Floating point: the linear releases"; the utility cost is measured in
        benchmarks/results/float_safe_cost.md.
    max_iter : int or None
        None (default): Newton's method runs, safeguarded by gradient steps (proximal gradient steps
        with a constraint set or an L1 or group term), up to the iteration
        budget proved from public constants and the drawn noise (:mod:`dpcvx.solvers.budget`),
        after which the public gradient bound holds whatever the data; it usually stops after a
        few iterations. An int below that budget is refused before anything is charged: whether
        the solve reached the bound would then depend on the data (docs/theory.md, section 7.1).
        A budget above 10^7 iterations is refused before the charge (raise lam), and so is Newton on a loss
        whose curvature c is not proved (no budget at all), and so is every other
        path without a proved budget (a user's solver, a conic-only problem: a
        regularizer that is not quadratic, e.g. 0.5 ||w||^2 + log_sum_exp(w)),
        in a plain fit as in composite procedures (:mod:`dpcvx.models.failure`).
        :meth:`fit_nonprivate` takes it as those paths' limit (default 100).
    strict : bool
        Refuse estimated constants even when ``allow_estimates`` is set (without it they are refused already:
        ``strict=True`` alone is refused, InputError).
    allow_estimates : bool
        Accept grid estimates for constants neither sympy nor the validated
        bounds proved. A release then says its guarantee is CONDITIONAL on
        the estimates (``model.certificate.conditional``). Default False.
    time_limit : float, optional
        Seconds for the verification of the loss (default 20), a deadline shared by all its proving calls
        (:func:`dpcvx.verify`): what it cuts short is not proved. The verification ends within it (its last 0.25 s
        are kept for the verifier's own work in this process after the proving calls), except that the first
        verification of the process that needs it also waits for one start-up of the verifier's worker process
        (importing sympy, 2 to 5 s); a catalogue loss needs no time.
    verbose : bool
        On a terminal, count the passes over an input read by blocks (a memmap or
        Dask X) with their elapsed time. How many passes the solver needs depends on the data: the bar is the
        data owner's view of their own fit (NOT PRIVATE), never part of the release (:mod:`dpcvx.progress`).
    allow_large_delta : bool, default False
        A fit's delta must be below 1/n (n: the public number of records; ``n_public`` under add-remove):
        a mechanism that publishes each record whole with probability delta is (0, delta)-DP, so a delta
        of 1/n or more says nothing useful. True accepts such a delta knowingly
        (:func:`dpcvx.validation.check_delta_for_n`).
    sample_weight_bound : float, optional
        The PUBLIC bound w_max of ``fit(..., sample_weight=)``: the loss is (1/n) sum_i s_i l(z_i) with the public
        n, each s_i clipped onto [0, w_max], and L and c multiplied by w_max (docs/theory.md, section 21;
        :mod:`dpcvx.models.record_weights`). Without it ``sample_weight`` is refused before anything is spent.
    class_weight : None, dict or "balanced"
        A PUBLIC dict {class: weight >= 0} (a class not named weighs 1; w_max is the largest weight), or
        "balanced": w_k = min_j pi_j / pi_k from ``class_prior``, else from one private count of ``classes[1]``
        (:mod:`dpcvx.models.class_count`: ``class_count_share`` of epsilon, discrete Laplace, clamped onto
        [f, n - f], f = ceil(0.01 n) (``MIN_CLASS_RATE``, public): a class rarer than 1 % is weighed as one of 1 %;
        charged with the fit once). The smallest class's count then sets the effective sample size.
    class_prior : dict, pair or "private", optional
        PUBLIC class rates for ``class_weight="balanced"`` (no count is drawn), or "private": one private count
        (:mod:`dpcvx.models.class_count`) whose rates give the balanced weights, or, with ``class_weight=None``
        (an intercept and the default ridge), the intercept offset: the ridge centred at their log-odds. Its
        rates are never below the 1 % floor (``MIN_CLASS_RATE``).
    class_count_share : float, default 0.05
        The share eps_c / epsilon of the private class count.
    column_statistics : bool or 'ranges', default False
        Opt-in (the route when public column ranges are loose): one joint private release of per-column means
        and spreads of the rows clipped onto the public ``data_norm``, which centre and scale the columns before
        the fit (:mod:`dpcvx.models.column_statistics`; docs/theory.md, section 33). The map is kept in the
        model; the certificate's ``column_statistics`` records it, charged with the fit once. ``"ranges"``: the
        scale-free statistic instead, each column's range from a noisy histogram on a public grid, pure epsilon
        (:mod:`dpcvx.privacy.column_histogram`; docs/theory.md, section 34).
    column_statistics_share : float, default 0.1
        The share eps_s / epsilon of the column statistics.

    Notes
    -----
    Extension hooks (docs/architecture.md): a subclass may replace
    :meth:`release_calibration` to substitute a calibration; :meth:`calibration`
    reports one without data; ``fit(warm_start=...)`` starts the solve at a given
    model. The private steps ``_calibrate`` and ``_solve`` are replaced only by the
    privacy audit's tests, to build deliberately broken variants.
    """

    predicts_per_row: ClassVar[bool] = True  # a released model predicts each row alone (models.contract)

    def __init__(
        self,
        loss: Loss | LabelLoss | str | None = None,
        regularizer: Regularizer | None = None,
        lam: float | str = 1e-3,
        data_norm: float | str | None = None,
        *,
        norm_range: tuple[float, float] | None = None,
        norm_share: float = NORM_SHARE,
        comparator_norm: float | None = None,
        fit_intercept: bool = False,
        intercept_scaling: float | str = 1.0,
        clip: bool = True,
        classes: Sequence[Any] = (-1, 1),
        feature_map: Any = None,
        constraints: Constraints | None = None,
        task: str = "classification",
        label_bound: float | str | None = None,
        label_range: tuple[float, float] | None = None,
        solver: str | Callable[[cp.Problem, cp.Variable], None] = "auto",
        cvxpy_solver: str = "CLARABEL",
        cvxpy_options: dict[str, Any] | None = None,
        tol: float | None = None,
        float_safe: bool = False,
        max_iter: int | None = None,
        strict: bool = False,
        allow_estimates: bool = False,
        time_limit: float | None = None,
        verbose: bool = False,
        allow_large_delta: bool = False,
        sample_weight_bound: float | None = None,
        class_weight: Any = None,
        class_prior: Any = None,
        class_count_share: float = CLASS_COUNT_SHARE,
        column_statistics: bool | str = False,
        column_statistics_share: float = COLUMN_STATISTICS_SHARE,
    ) -> None:
        # A regression's loss of (prediction, label) is held as given: the attribute is typed as the margin loss
        # every reader but the fit's verification takes, which turns an l(p, y) into l(p - y) first
        # (takes_prediction_and_label)
        self.loss: Loss = losses.logistic() if loss is None else (
            losses.from_spec(loss) if isinstance(loss, str) else cast(Loss, loss))
        self.regularizer = default_regularizer if regularizer is None else regularizer
        self.lam = lam
        self.comparator_norm = comparator_norm
        self.data_norm = data_norm
        self.norm_range = norm_range
        self.norm_share = norm_share
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.clip = clip
        self.classes = classes
        self.feature_map = feature_map
        self.constraints = constraints
        self.task = task
        self.label_bound = label_bound
        self.label_range = label_range
        self.solver = solver
        self.cvxpy_solver = cvxpy_solver
        self.cvxpy_options = cvxpy_options
        self.tol = None if tol is None else calibrate.check_tol(tol)
        self.float_safe = float_safe
        self.max_iter = max_iter
        self.strict = strict
        self.allow_estimates = allow_estimates
        self.time_limit = time_limit
        self.verbose = verbose
        self.allow_large_delta = allow_large_delta
        self.sample_weight_bound = sample_weight_bound
        self.class_weight = class_weight
        self.class_prior = class_prior
        self.class_count_share = class_count_share
        self.column_statistics = column_statistics
        self.column_statistics_share = column_statistics_share

    #: the declaration's parameters, always shown by ``repr``; every other setting is shown when not at its default
    #: (``allow_estimates=True`` among them: a plan shown before the charge says that its release may be CONDITIONAL)
    _SHOWN = ("loss", "lam", "data_norm", "fit_intercept")

    #: the name this learner's refusals and warnings give it: the scikit-learn estimator that built it (set by
    #: :mod:`dpcvx.sklearn`, so that a ``DPHuberSVM``'s refusal names ``DPHuberSVM``), else None: its own class's.
    #: Not a parameter; a copy or a pickle keeps it.
    shown_as: str | None = None

    def _shown_name(self) -> str:
        return self.shown_as or type(self).__name__

    # -- parameters (scikit-learn conventions) --------------------------------------------

    # -- declaration ---------------------------------------------------------------

    def row_map(self) -> RowMap:
        """The public per-record map (feature map, clipping to R, intercept feature)."""
        return erm_inputs.declared_row_map(self)

    def verify(self, dim: int | None = None, *, progress: bool = False) -> Certificate:
        """The verifier's certificate for this loss and regularizer.

        ``dim`` is the number of input features (after the feature map); the
        regularizer is analysed at ``dim`` (+1 with an intercept). A fit
        re-verifies at the data's dimension.
        """
        features = check_dim(PROBE_DIM if dim is None else dim)
        total = features + (1 if check_flag("fit_intercept", self.fit_intercept) else 0)
        return self._verified(total, progress=progress).certificate

    def smooth_budgeted(self, input_dim: int) -> bool:
        """Whether a fit on rows of ``input_dim`` columns takes Newton's smooth path, which may have a proved
        iteration budget (:meth:`SolverChoice.budgeted <dpcvx.solvers.choice.SolverChoice.budgeted>` of the problem
        verified at the mapped width, not a KST12 problem): not a user's solver, whose fit a composite procedure
        refuses before its charge (docs/theory.md, section 7.1), nor the proximal path of an L1 or group term or a
        constraint set (proved too, but ``column_statistics="auto"``'s ranges were measured on the smooth path only).
        Public: the declaration and the width only."""
        problem = self._verified(self.row_map().dimension(check_dim(input_dim)))
        return self._solver().budgeted(problem) and not problem.kst12

    def _check_settings(self) -> None:
        erm_inputs.check_settings(self)

    @property
    def _regression(self) -> bool:
        return check_choice("task", self.task, TASKS) == "regression"

    def _data(self, X: Any, y: Any, refuse_excess: bool) -> tuple[RowMap, Matrix | RowBlocks, np.ndarray | SignBits]:
        """The public row map, the mapped rows and the labels of a fit (:mod:`dpcvx.models.erm_inputs`)."""
        rows = self.row_map()
        return rows, *erm_inputs.mapped_data(rows, X, y, self._classes(), self._label_bound(), refuse_excess)

    def _classes(self) -> tuple[Any, Any] | None:
        """The public label pair, None for a regression."""
        return None if self._regression else check_classes(self.classes)

    def _label_bound(self) -> float | None:
        """B, the public bound on a regression's |y| (None for a classification)."""
        return erm_inputs.regression_label_bound(self.label_bound) if self._regression else None

    # -- solving ----------------------------------------------------------------------

    def _solver(self) -> SolverChoice:
        """The public solver settings (the choice lives in :mod:`dpcvx.solvers.choice`)."""
        return SolverChoice(self.solver, self.cvxpy_solver, self.cvxpy_options, self.max_iter, self._regression,
                            self.verbose)

    def _solve(self, problem: VerifiedProblem, X: Matrix | RowBlocks, y: np.ndarray | SignBits, noise: np.ndarray,
               extra_reg: float, gradient_tolerance: float, start: np.ndarray | None = None,
               n: int | None = None, lam: float | None = None, weights: np.ndarray | None = None, *,
               solver: SolverChoice | None = None, rows: RowMap | None = None,
               offset: np.ndarray | None = None, proved: bool) -> tuple[np.ndarray, SolveInfo]:
        """A point with ||grad F|| <= gradient_tolerance / 2 (:meth:`SolverChoice.solve`); F's scaling is the
        public ``n`` (default: the number of rows), ``lam`` the fit's numeric Lam (the rule's under
        ``lam="auto"``; default ``self.lam``), ``weights`` the records' s_i; ``solver`` and ``rows`` the plan's
        (default: this learner's); ``offset`` a vector whose margins the solve's first pass may also compute
        (the training-rows check's); ``proved`` the plan's public decision that the path has a proved budget
        (:meth:`SolverChoice.solve`). A subclass may replace it (the audit's broken variants)."""
        solver = self._solver() if solver is None else solver
        return solver.solve(problem, X, y, noise, self._numeric_lam(lam), extra_reg, gradient_tolerance, start, n,
                            rows=self.row_map() if rows is None else rows, weights=weights, offset=offset,
                            proved=proved)

    def _verified(self, dim: int, *, progress: bool = False) -> VerifiedProblem:
        """The verified problem at the fitted dimension (the one verification of a fit).

        A regression over a constraint set with sup ||w|| <= W takes L over the residuals
        it can reach, |r| <= W R + B (:mod:`dpcvx.verification.bounded_residual`); a regression's
        loss of the residual does not use the one-sign profile
        (:meth:`~dpcvx.verification.problem.VerifiedProblem.of_residuals`).
        """
        loss = self.loss
        if self._regression and takes_prediction_and_label(loss):
            loss = residual_loss(loss)  # l(p, y), proved to be l(p - y, 0)
        problem = verify_problem(loss, self.regularizer, dim=dim, strict=self.strict,
                                 allow_estimates=self.allow_estimates, time_limit=self.time_limit,
                                 progress=progress, constraints=self.constraints)
        if self._regression:  # a loss of the residual: the one-sign profile is for margin losses only
            problem = problem.of_residuals()
        if self._regression and not any(bound is None or erm_inputs.is_private(bound)
                                        for bound in (self.label_bound, self.data_norm)):
            weight_bound = None if problem.constraint_set is None else problem.constraint_set.norm_bound()
            problem = with_bounded_residual(problem, weight_bound, self.row_map().effective_norm_bound,
                                            erm_inputs.symmetric_label_bound(self.label_bound))
        return problem
    def _tol(self, problem: VerifiedProblem, solver: SolverChoice | None = None) -> float:
        """The public relative gradient tolerance: the user's, or the default for the problem's path."""
        if self.tol is not None:
            return float(self.tol)
        return (self._solver() if solver is None else solver).default_tol(problem)

    # -- planning and fitting ---------------------------------------------------------------

    @float_errors_ignored
    def plan(self, X: Any, y: Any, *, epsilon: float, delta: float = 0.0, mechanism: str = "objective",
             split: str | None = None, neighbours: str = "replace-one", n_public: int | None = None,
             warm_start: LinearModel | None = None,
             sample_weight: Any = None) -> (FitPlan | column_statistics.StandardisedPlan | class_count.RatesPlan
                                            | private_norm.BoundPlan):
        """The learner contract's first half (:mod:`dpcvx.models.contract`): every check of :meth:`fit` on
        (X, y) (validate, verify, calibrate, refuse), with nothing charged and nothing drawn.

        Returns the :class:`~dpcvx.models.fit_plan.FitPlan`: public values only (the checked budget, the row
        map, the verified problem, the solver, the calibration per n). ``plan.fit(X2, y2, random_state=...,
        accountant=...)`` executes it on any rows of the same width; :func:`dpcvx.tune` fits every run of a
        candidate from its one plan. A learner that first draws private column statistics or a private bound
        returns that composite's plan (:class:`~dpcvx.models.column_statistics.StandardisedPlan`: the fit's plan
        with the released map bound per fit; :class:`~dpcvx.models.class_count.RatesPlan`: the fit's plan with the
        rates of a private class count bound per fit; :class:`~dpcvx.models.private_norm.BoundPlan`: the fit's plan
        per drawn bound). The plan holds a copy of this learner as planned, each parameter value copied
        (:func:`~dpcvx.models.contract.as_planned`): a ``set_params`` or a value changed in place after planning (a
        ``cvxpy_options`` dict, a ``class_weight``) changes nothing of what it checked or what its fits release; the
        solver statistics of its fits go to ``plan.learner.diagnostics_``. A ``feature_map`` not drawn yet is drawn
        first, the caller's own, as :meth:`fit` draws it (:meth:`draw_feature_map`), and the plan holds a copy of the
        drawn map.
        """
        self.draw_feature_map(X)
        return as_planned(self)._plan(X, y, epsilon=epsilon, delta=delta, mechanism=mechanism, split=split,
                                      neighbours=neighbours, n_public=n_public, warm_start=warm_start,
                                      sample_weight=sample_weight)

    def draw_feature_map(self, X: Any) -> None:
        """Draw this learner's ``feature_map`` (the caller's object) at X's public width as :meth:`fit` draws it: its
        ``transform`` of one zero row (:func:`~dpcvx.data.rows.mapped_width`), which draws a
        :class:`~dpcvx.RandomFourierFeatures` not drawn yet from the width and its own ``random_state`` (public
        values only; a drawn map is left as it is). :meth:`plan` calls it before it copies the learner, so ``plan``
        then ``fit`` on the plan and ``fit`` leave the caller's map alike, drawn, and the release's map is that draw:
        a plan copied the map undrawn, so the caller's map stayed undrawn while the release held a draw of its own
        (an attacker probe, sixty-eighth session). Nothing without a map; a map that is not one is refused as
        :meth:`fit` refuses it (InputError), and X's width as fit reads it."""
        if self.feature_map is not None:
            mapped_width(erm_inputs.SETTINGS["feature_map"]("feature_map", self.feature_map), matrix_shape(X)[1])

    def _plan(self, X: Any, y: Any, *, epsilon: float, delta: float = 0.0, mechanism: str = "objective",
              split: str | None = None, neighbours: str = "replace-one", n_public: int | None = None,
              warm_start: LinearModel | None = None,
              sample_weight: Any = None) -> (FitPlan | column_statistics.StandardisedPlan | class_count.RatesPlan
                                             | private_norm.BoundPlan):
        """:meth:`plan` made on this learner itself: :meth:`fit` and :meth:`check_fit_inputs`, one call each, whose
        plan no caller holds."""
        self._check_settings()  # every declared setting, whatever the others, before a composite reads them
        options = {"mechanism": mechanism, "delta": delta, "split": split, "neighbours": neighbours,
                   "n_public": n_public, "warm_start": warm_start, "sample_weight": sample_weight}
        with self._fit_part(epsilon):  # a refusal of the fit's part of epsilon said on epsilon
            if column_statistics.draws_statistics(self):  # opt-in centres and scales (models.column_statistics)
                return column_statistics.plan_column_statistics(self, X, y, epsilon, **options)
            if class_count.draws_count(self):  # the class rates from one private count (models.class_count)
                return class_count.plan_private_count(self, X, y, epsilon, **options)
            if private_norm.draws_bounds(self):  # R (or B) bought with norm_share
                return private_norm.plan_bounds(self, X, y, epsilon, **options)
        return self._planned(X, y, epsilon, mechanism, split, warm_start, delta, neighbours, n_public,
                             sample_weight)[0]

    @property
    def plans_first(self) -> bool:
        """Whether :meth:`fit` is one plan executed, so that a caller may plan once and fit from the plan
        (:meth:`plan`; False when a subclass replaces :meth:`fit`)."""
        return type(self).fit is PrivateERM.fit

    def _planned(self, X: Any, y: Any, epsilon: float, mechanism: str, split: str | None,
                 warm_start: LinearModel | None, delta: float, neighbours: str, n_public: int | None,
                 sample_weight: Any) -> tuple[FitPlan, Any]:
        """Every check of :meth:`fit` on (X, y) after the declared settings' (checked by the caller, :meth:`plan`
        or :meth:`fit`), in order, nothing charged or drawn: the plan at X's public width (:meth:`_shaped_plan`),
        then the plan bound to (X, y) (the rows mapped once)."""
        plan = self._shaped_plan(X, epsilon, mechanism, split, warm_start, delta, neighbours, n_public, sample_weight)
        return plan, plan.checked(X, y, sample_weight)

    def _shaped_plan(self, X: Any, epsilon: float, mechanism: str = "objective", split: str | None = None,
                     warm_start: LinearModel | None = None, delta: float = 0.0, neighbours: str = "replace-one",
                     n_public: int | None = None, sample_weight: Any = None) -> FitPlan:
        """The plan of a fit on X after the declared settings' checks, made at X's public width (its shape:
        :func:`~dpcvx.data.blocks.matrix_shape`) before a value of X or y is read: the budget, the record weights'
        plan, the one verification and the mechanism's verdict (:meth:`_make_plan`). A learner drawing nothing first
        (not :attr:`draws_first`); a caller that reads the labels itself (one-vs-rest, the estimators) plans here
        first and binds its rows after (:meth:`FitPlan.checked <dpcvx.models.fit_plan.FitPlan.checked>`)."""
        kind, epsilon, delta, relation, n_public, split = self._budget(mechanism, epsilon, delta, neighbours,
                                                                       n_public, split)
        classes, label_bound, rows = self._classes(), self._label_bound(), self.row_map()
        weight_plan = self._weight_plan(sample_weight, classes)
        return self._make_plan(rows.dimension(matrix_shape(X)[1]), rows, classes, label_bound, kind, epsilon, delta,
                               split, relation, n_public, warm_start, weight_plan)

    @property
    def draws_first(self) -> bool:
        """Whether a fit first draws a private statistic (column statistics, a class count, a bound): a composite
        whose plan is its own (:meth:`plan`), not one :class:`~dpcvx.models.fit_plan.FitPlan`."""
        return column_statistics.draws_statistics(self) or class_count.draws_count(self) or \
            private_norm.draws_bounds(self)

    def drawn_shares(self, epsilon: float) -> tuple[list[tuple[DrawnPart, float]], float]:
        """(the draws before the fit, each (:class:`~dpcvx.privacy.privacy_curve.DrawnPart`, its eps) in the
        release's order, the fit's own epsilon) of a fit at ``epsilon``, from the public settings alone (no data):
        the splits the composite plans make (:func:`~dpcvx.models.private_norm.split_budget`): private column
        statistics' eps_s, then a class count drawn inside their eps_fit
        (:func:`~dpcvx.models.column_statistics.counted_fit_share`,
        :meth:`StandardisedPlan.shares <dpcvx.models.column_statistics.StandardisedPlan.shares>`); a class count's
        eps_c; a private bound's eps_q, halved between two bounds; ([], epsilon) for a fit that draws nothing first.
        None of them depends on n, so :func:`dpcvx.tune` claims the release's curve
        (:func:`~dpcvx.privacy.privacy_curve.draws_then_fit_curve` of these shares) before any fit, whatever rows a
        run's coins leave (:mod:`dpcvx.models.tuning.renyi`). Raises InputError for a share the plan refuses."""
        self._check_settings()
        if column_statistics.draws_statistics(self):
            eps_s, eps_fit = private_norm.split_budget(epsilon, self.column_statistics_share,
                                                       "column_statistics_share")
            drawn = (DrawnPart.RANGES if self.column_statistics == "ranges" else DrawnPart.SUMS, eps_s)
            if not class_count.draws_count(self):
                return [drawn], eps_fit
            eps_fit = column_statistics.counted_fit_share(epsilon, eps_s, eps_fit, self.class_count_share)
            eps_count, fit = private_norm.split_budget(eps_fit, self.class_count_share, "class_count_share")
            return [(DrawnPart.COUNT, eps_count), drawn], fit
        if class_count.draws_count(self):
            eps_count, fit = private_norm.split_budget(epsilon, self.class_count_share, "class_count_share")
            return [(DrawnPart.COUNT, eps_count)], fit
        if private_norm.draws_bounds(self):
            ranges, share = erm_inputs.private_bounds(self)
            eps_q, fit = private_norm.split_budget(epsilon, share, "norm_share")
            return [(DrawnPart.QUANTILE, eps_q / len(ranges))] * len(ranges), fit  # halving is exact
        return [], epsilon

    def _fit_part(self, epsilon: float) -> AbstractContextManager[None]:
        """The checks of a composite's fit at its part of ``epsilon`` (:meth:`drawn_shares`: what the draws before
        it leave), a refusal of that part said on ``epsilon`` (:func:`~dpcvx.privacy.budget_part.budget_part`):
        analyst probe P7 (session 68, finding 3). Nothing for a learner that draws nothing first."""
        if not self.draws_first:
            return nullcontext()
        return budget_part(epsilon, lambda total: self.drawn_shares(total)[1])

    def _budget(self, mechanism: str, epsilon: float, delta: float, neighbours: str, n_public: int | None,
                split: str | None) -> tuple[Mechanism, float, float, Neighbours, int | None, str]:
        """The checked (mechanism, epsilon, delta, neighbour relation, n_public, split) of a fit. The split: None (the
        default) is "max"; a split given is one of ``calibrate.SPLITS``, and refused under output perturbation,
        whose noise no split changes, whatever its value ("max" too: it was accepted there as the default, and
        "paper" refused). The one check of every fit, plan and ``check_options``, so of the estimators' and the
        command line's --split too."""
        kind = Mechanism.of(mechanism)
        epsilon, delta = check_epsilon(epsilon), check_delta(delta)
        if kind is Mechanism.OBJECTIVE and delta > 0:
            try:
                check_gaussian_objective_epsilon(epsilon)
            except BudgetLimitError:
                self._refuse_for_the_loss(kind, delta)  # its advice, epsilon <= 700, would be refused too
                raise
        if check_flag("float_safe", self.float_safe):
            check_float_safe_form(kind is Mechanism.OBJECTIVE, delta)
        relation, n_public = erm_inputs.neighbour_relation(neighbours, delta, n_public, self.allow_large_delta)
        if split is not None and check_choice("split", split, calibrate.SPLITS) and kind is Mechanism.OUTPUT:
            raise InputError(f"split={split!r} sets the budget split of objective perturbation; output perturbation "
                             "takes none (it would change nothing): leave it out, or fit with mechanism='objective'")
        return kind, epsilon, delta, relation, n_public, DEFAULT_SPLIT if split is None else split

    def _refuse_for_the_loss(self, mechanism: Mechanism, delta: float) -> None:
        """Raise the mechanism's verdict (:class:`~dpcvx.exceptions.AssumptionError`, naming each failing condition
        and its fix) when the loss's own conditions refuse ``mechanism`` at ``delta`` whatever the epsilon and the
        width, as the plan's verdict would refuse it at the data's width. Made where no data is read yet:
        :meth:`check_options` (the estimators' entry checks and :func:`dpcvx.as_opendp_measurement` accepted
        Huber objective perturbation at delta > 0, which every fit refuses: the Huber losses are only piecewise
        C^2; session 69), and a refusal of the epsilon's range, whose advice "choose epsilon <= 700" would then be
        refused for the loss (analyst probe P5, session 68, finding 7). Public; nothing when the verification fails
        here (the plan says why) or when a failure is the regularizer's or the constraint set's (checked at the
        data's width by the plan)."""
        try:
            problem = self._verified(1)
        except DPCVXError:
            return
        failures = problem.certificate.failures(mechanism, delta)
        own = {item.name for item in problem.loss.conditions}
        if failures and all(item.name in own for item in failures):
            problem.require(mechanism, delta)

    def _make_plan(self, width: int, rows: RowMap, classes: tuple[Any, Any] | None, label_bound: float | None,
                   mechanism: Mechanism, epsilon: float, delta: float, split: str, relation: Neighbours,
                   n_public: int | None, warm_start: LinearModel | None, weight_plan: RecordWeights | None) -> FitPlan:
        """The plan at the mapped width: the one verification, the record weights' w_max, the mechanism's
        verdict, the solver and its tolerance, the warm start (public inputs only)."""
        problem = self._verified(width)
        if weight_plan is not None:  # L and c times w_max, in the one problem that flows onward
            problem = problem.weighted(weight_plan.bound)
        problem.require(mechanism, delta)  # the one verdict (verification.verdict), before anything is charged
        solver = self._solver()
        rows = self._held_map(rows)
        return FitPlan(
            learner=self, owner=self._shown_name(), loss_label=losses.loss_label(self.loss), mechanism=mechanism,
            epsilon=epsilon, delta=delta, split=split, relation=relation, n_public=n_public, rows=rows,
            width=width, problem=problem, solver=solver, tol=self._tol(problem, solver), classes=classes,
            label_bound=label_bound, clip=check_flag("clip", self.clip),
            float_safe=check_flag("float_safe", self.float_safe),
            allow_large_delta=check_flag("allow_large_delta", self.allow_large_delta),
            lam=None if self._auto_lam else self._numeric_lam(None),
            comparator_norm=self.comparator_norm, weight_plan=weight_plan,
            start=erm_inputs.warm_start_weights(warm_start, rows, width))

    @staticmethod
    def _held_map(rows: RowMap) -> RowMap:
        """``rows`` holding its own copy of the feature map, taken where the fit plans (before the charge, after the
        map's public draw: :meth:`RowMap.dimension` drew it); the release is built on it, so a change the caller
        makes to the map object after the fit (a ``set_params(gamma=...)`` of a
        :class:`~dpcvx.RandomFourierFeatures` forgets its draw) does not change the release's predictions (a release
        held the caller's object: an attacker probe, sixty-eighth session). A map that cannot be copied is refused by
        name before anything is charged (:func:`~dpcvx.models.contract.copied`; a copy taken when the release was
        built, after the charge, failed there). The copy is of the map object: state its ``transform`` reads from
        outside it (a module's global array) is the caller's, and a change to it reaches the release."""
        if rows.feature_map is None:
            return rows
        return dataclasses.replace(rows, feature_map=copied(
            rows.feature_map, "feature_map", "a release holds a copy of its feature map as planned, so that nothing "
            "changed after the fit reaches its predictions", "; nothing was charged"))

    def _public_plan(self, n: int, d: int, epsilon: float, mechanism: str, delta: float, neighbours: str,
                     split: str | None) -> tuple[FitPlan, int]:
        """The plan of a fit on n rows of d input columns, from public inputs only (no data), and n checked."""
        n = sample_size(n, "n")
        add_remove = Neighbours.parse(neighbours) is Neighbours.ADD_REMOVE
        kind, epsilon, delta, relation, n_public, split = self._budget(mechanism, epsilon, delta, neighbours,
                                                                       n if add_remove else None, split)
        self._check_settings()
        classes, rows = self._classes(), self.row_map()
        weight_plan = None if class_count.draws_count(self) else self._weight_plan(None, classes)
        return self._make_plan(check_dim(d) + (1 if rows.fit_intercept else 0), rows, classes, self._label_bound(),
                               kind, epsilon, delta, split, relation, n_public, None, weight_plan), n

    @float_errors_ignored
    def fit(
        self,
        X: Any,
        y: Any,
        epsilon: float,
        mechanism: str = "objective",
        *,
        delta: float = 0.0,
        neighbours: str = "replace-one",
        n_public: int | None = None,
        split: str | None = None,
        random_state: RandomState = None,
        accountant: PrivacyAccountant | None = None,
        warm_start: LinearModel | None = None,
        sample_weight: Any = None,
    ) -> PrivateModel | PrivateRegressionModel:
        """Release an (epsilon, delta)-differentially private model of (X, y).

        ``delta`` 0 (the default) gives the pure-epsilon mechanisms of JMLR 2011
        with noise density proportional to exp(-beta ||b||). ``delta`` > 0 gives
        Gaussian noise: objective perturbation calibrated by the re-derived
        privacy profile of Redberg, Koskela and Wang (2023) or by KST12, whichever
        needs less noise, with Delta chosen jointly; output perturbation by the
        analytic Gaussian mechanism (docs/theory.md, section 12). Choose delta
        well below 1/n (1/n^2 is common).

        ``neighbours`` is "replace-one" (the default, as in the papers: the data
        sets differ in one record and n is public) or "add-remove" (one record
        added or removed, the relation of DP-SGD libraries; delta > 0 only).
        Under add-remove the number of records is private: ``n_public``, a
        public size chosen without looking at the data, takes its place in the
        objective's scaling and in the calibration, and the release never holds
        the number of records.

        ``mechanism`` is "objective" (Algorithm 2) or "output" (Algorithm 1);
        ``split`` is the objective-perturbation budget split of
        :func:`dpcvx.privacy.calibrate.objective_perturbation`; None (the default) is
        "max", and output perturbation takes none (any split given to it is refused). "max" never
        leaves less budget for the noise than the paper's rule, which can leave
        eps' close to 0 just before it switches to eps' = eps/2 (for the Huber
        hinge at eps = 0.1, n Lam = 20 it keeps eps' = 0.0024 where "max" keeps
        0.05). "rank-one" uses the tighter single-factor Jacobian bound
        (docs/theory.md, section 3).

        ``random_state`` None (the default) draws fresh noise from OS entropy.
        An int seed reproduces the noise: two releases with the same seed on
        the same or neighbouring data share their noise, and their difference
        cancels it: a privacy loss. Seeds are for experiments only.

        ``accountant`` is charged epsilon once, after every input was
        validated and before any noise is drawn; a refused call spends nothing.
        ``warm_start`` (a model fitted by this learner on the same columns) is
        where Newton's method starts; the release is covered for any point
        within the public gradient bound, so the start does not change what the
        guarantee covers. Solver statistics go to ``self.diagnostics_`` (NOT
        private: for the data owner only, never to be published). ``sample_weight`` (one number per record)
        needs the public ``sample_weight_bound``; with ``class_weight`` the records' weights multiply
        (:mod:`dpcvx.models.record_weights`; docs/theory.md, section 21).

        After the release its predictions on its training rows are checked (NOT PRIVATE, never in the release:
        :class:`~dpcvx.exceptions.TrainingRowsWarning`, :mod:`dpcvx.models.training_rows`), a classifier's and a
        regression's alike: a regression no better than its labels' mean is told so, with the missing intercept
        named when it predicts w^T x alone.
        """
        resolve_rng(random_state)  # refused before any data is read, as every learner's fit refuses it
        names = feature_names(X)  # a table's column names, kept by the release (mixed types refused before the charge)
        if self.draws_first:  # a composite's one plan (its settings checked there)
            # its plan, checks and fit read the same rows: each clipping note once, the plan's before the charge
            with checks_then_notes() as checks:
                composed = self._plan(X, y, epsilon=epsilon, delta=delta, mechanism=mechanism, split=split,
                                     neighbours=neighbours, n_public=n_public, warm_start=warm_start,
                                     sample_weight=sample_weight)
                assert not isinstance(composed, FitPlan)  # a composite's plan
                check_accountant(accountant)
            with checks_then_notes(charged_after=checks):
                # its checks ran on (X, y), its fit's on its rows; the release keeps a table's column names
                return named(composed.execute(X, y, random_state, accountant, sample_weight), names)
        check_accountant(accountant)
        self._check_settings()
        plan, bound = self._planned(X, y, epsilon, mechanism, split, warm_start, delta, neighbours, n_public,
                                    sample_weight)
        released = named(plan.execute(bound, random_state, accountant), names)
        warn_on_learner_fit(self._shown_name(), released, X, y)  # NOT PRIVATE: a regression's training rows
        return released

    def _weight_plan(self, sample_weight: Any, classes: tuple[Any, Any] | None) -> RecordWeights | None:
        """The public plan of the fit's record weights (:func:`plan_weights`), refused where a path has none."""
        plan = plan_weights(sample_weight=sample_weight, sample_weight_bound=self.sample_weight_bound,
                            class_weight=self.class_weight, class_prior=self.class_prior,
                            classes=classes, owner=self._shown_name())
        if plan is not None and self.float_safe:
            raise UnsupportedWeightsError(f"{setting('float_safe', 'True')} draws lattice noise whose proof is "
                                          "written for unit weights; fit weights with "
                                          f"{setting('float_safe', 'False')}. Nothing was charged")
        return plan

    def check_fit_inputs(self, X: Any, y: Any, *, epsilon: float = 1.0, mechanism: str = "objective",
                         split: str | None = None, random_state: RandomState = None,
                         warm_start: LinearModel | None = None, delta: float = 0.0,
                         neighbours: str = "replace-one", n_public: int | None = None,
                         sample_weight: Any = None) -> tuple[Any, Any] | None:
        """Raise the error :meth:`fit` would raise for these inputs, charging and drawing nothing: the learner
        contract's check (:mod:`dpcvx.models.contract`), :meth:`plan`'s classes for a learner that plans first.

        Returns the public classes (None for a regression).
        """
        resolve_rng(random_state)
        return self._plan(X, y, epsilon=epsilon, delta=delta, mechanism=mechanism, split=split, neighbours=neighbours,
                         n_public=n_public, warm_start=warm_start, sample_weight=sample_weight).classes

    def check_options(self, epsilon: float, mechanism: str = "objective", *, delta: float = 0.0,
                      split: str | None = None, random_state: RandomState = None, neighbours: str = "replace-one",
                      n_public: int | None = None, sample_weight: Any = None) -> None:
        """Raise the error :meth:`fit` would raise for these options before it reads any data, charging and drawing
        nothing: the settings, the budget, the mechanism, the split, the neighbour relation with ``n_public``,
        ``random_state``, and the record weights' public plan (``class_weight``, ``class_prior``, ``sample_weight``
        without a public bound). For a caller that holds the options before
        the data (:func:`dpcvx.as_opendp_measurement`); :meth:`check_fit_inputs` checks the data too."""
        self._check_settings()
        planned = self  # class_weight, class_prior and the weight bound, as fit plans them
        if class_count.draws_count(self):  # its rates are drawn in fit, its weights planned at public rates
            class_count.check_count_options(self, neighbours)
            planned = class_count.at_rates(self, (0.5, 0.5))
        planned._weight_plan(sample_weight, self._classes())
        # the fit's checks at its part of epsilon, as fit makes them (the draws' shares checked there)
        fit_epsilon = self.drawn_shares(check_epsilon(epsilon))[1] if self.draws_first else epsilon
        with self._fit_part(epsilon):
            kind = self._budget(mechanism, fit_epsilon, delta, neighbours, n_public, split)[0]
        if not _VERDICT_IN_PLAN.get():  # a fit's own entry: its plan makes the verdict (verdict_in_plan)
            self._refuse_for_the_loss(kind, delta)
        resolve_rng(random_state)

    def fit_nonprivate(self, X: Any, y: Any) -> LinearModel | LinearRegressionModel:
        """The minimiser of J to the public gradient bound: NOT private, a baseline for comparisons. Refused
        (:class:`~dpcvx.exceptions.AssumptionError`, naming the condition and its fix) when the verifier did not
        establish the loss and the regularizer convex: a stationary point of another J need not be its minimiser."""
        self._check_settings()
        rows, X_mapped, labels = self._data(X, y, refuse_excess=not self.clip)
        n, d = X_mapped.shape
        problem = self._verified(d)
        problem.certificate.require_convex("fit_nonprivate (the minimiser of J)")
        solver = self._solver()
        solver.check(problem, X_mapped)
        # gamma = tol n L R at a finite proved L, else at L = 1: an unbounded one (the squared error over unbounded
        # residuals has L = inf) gave gamma = inf, a NaN iteration budget (a bare ValueError), and on a path without
        # one a "converged" zero
        proved_lipschitz = problem.certificate.lipschitz is not None and math.isfinite(problem.lipschitz)
        gamma = calibrate.gradient_tolerance(self._tol(problem, solver), n,
                                             problem.lipschitz if proved_lipschitz else 1.0, rows.effective_norm_bound)
        proved = solver.proved_budget(problem, self._numeric_lam(None), 0.0, rows, n, gamma, None) is not None
        w, info = self._solve(problem, X_mapped, labels, np.zeros(d), 0.0, gamma, solver=solver, rows=rows,
                              proved=proved)
        info = info.without_margins()  # an n-vector of the data, read by no check here
        self.diagnostics_ = info
        erm_inputs.check_solution(w, info)
        coef, intercept = rows.split_weights(w)
        if self._regression:
            return LinearRegressionModel(coef, intercept, rows)
        return LinearModel(coef, intercept, check_classes(self.classes), rows)

    # --- calibration: Algorithm 1 or 2 at the fit's numeric Lam (the user's, or lam="auto"'s public rule) ---

    def _calibrate(self, mechanism: str, n: int, epsilon: float, problem: VerifiedProblem,
                   R: float, split: str, delta: float = 0.0, neighbours: Neighbours = Neighbours.REPLACE_ONE,
                   lam: float | None = None, tol: float | None = None) -> tuple[ReleaseCalibration, dict[str, Any]]:
        """(calibration, constants) of Algorithm 1 or 2 for the verified L, c, m, bound R and tol.

        delta > 0 selects the Gaussian forms (docs/theory.md, section 12). ``lam`` as in :meth:`_solve`;
        ``tol`` the plan's (default: :meth:`_tol`). The plan calls it (:meth:`FitPlan.calibrate`); a subclass
        may replace it (the audit's broken variants).
        """
        return calibrate_linear(problem, mechanism, n=n, lam=self._numeric_lam(lam), epsilon=epsilon, delta=delta,
                                R=R, split=split, tol=self._tol(problem) if tol is None else tol,
                                neighbours=neighbours)

    @property
    def _auto_lam(self) -> bool:
        return isinstance(self.lam, str) and self.lam == "auto"

    def _numeric_lam(self, chosen: float | None) -> float:
        """The numeric Lam of a fit: ``chosen`` (the rule's value), else the user's ``lam`` (never state on self)."""
        if chosen is not None:
            return float(chosen)
        if self._auto_lam:
            raise InputError("lam='auto' is chosen by fit from epsilon and n; fit_nonprivate has neither: pass a "
                             "number for lam (for a baseline at a private fit's value, its certificate.constants"
                             "['lam'])")
        return float(self.lam)

    def choose_lam(self, n: int, d: int, epsilon: float, mechanism: str = "objective", *, delta: float = 0.0,
                   neighbours: str = "replace-one", split: str | None = None) -> LamChoice:
        """The Lam that ``lam="auto"`` would choose for n rows of d input columns: public, no data needed.

        ``d`` counts the input columns (after a feature map, before the intercept), as
        declared by the schema. Under ``neighbours="add-remove"`` ``n`` is the public size ``n_public``.
        docs/theory.md, section 25.
        """
        plan, n = self._public_plan(n, d, epsilon, mechanism, delta, neighbours, split)
        return plan.lam_choice(n)

    def release_calibration(self, calibration: ReleaseCalibration) -> ReleaseCalibration:
        """Extension hook: the calibration a fit draws its noise with, given the one dpcvx derived.

        Returns ``calibration`` unchanged. A subclass may return another calibration of the
        same type, for a contender with other published constants (benchmarks/delta_mechanisms.py:
        KST12's, Iyengar et al.'s) or a deliberately under-noised variant an audit must catch. It
        then owns the privacy proof: the release records what it returns, and the checks that
        follow (the reachable gradient bound) apply to it. Called by the plan
        (:meth:`FitPlan.calibrate <dpcvx.models.fit_plan.FitPlan.calibrate>`; :meth:`fit`, :meth:`plan`,
        :meth:`check_fit_inputs`, :meth:`calibration`), after verification, before any charge.
        """
        return calibration

    def calibration(self, n: int, d: int, epsilon: float, mechanism: str = "objective", *, delta: float = 0.0,
                    neighbours: str = "replace-one",
                    split: str | None = None) -> ReleaseCalibration | LatticeCalibration:
        """The calibration :meth:`fit` would use for n rows of d columns: public inputs only, no data.

        ``d`` counts the columns the learner sees (after a feature map, before the intercept);
        under ``neighbours="add-remove"`` ``n`` is the public size ``n_public``. Nothing is solved,
        charged or drawn; an input :meth:`fit` would refuse is refused alike (typed errors). The
        result is the typed calibration (noise scales, Delta, the epsilon shares) at the Lam
        of the fit (the rule's under ``lam="auto"``), as :meth:`release_calibration` returns it
        and ``float_safe`` makes it: what a benchmark reports beside its fits.
        """
        plan, n = self._public_plan(n, d, epsilon, mechanism, delta, neighbours, split)
        return plan.calibrate(n).calibration
