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

Order in :meth:`PrivateERM.fit`: validate every input, then charge the
accountant once, then draw noise. Solver statistics measured on the private
data go to ``diagnostics_`` on the learner (not private: never published).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any, ClassVar, NamedTuple

import cvxpy as cp
import numpy as np

from .. import losses
from ..data.blocks import RowBlocks, is_out_of_core
from ..data.rows import Matrix, RowMap
from ..exceptions import ClippingWarning, InputError, SolverError, user_stacklevel
from ..privacy import calibrate
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..privacy.calibrate_gaussian import ReleaseCalibration
from ..privacy.composition import check_delta
from ..privacy.exact import IntegerSource, integer_source
from ..privacy.float_safe import (
    LatticeCalibration,
    draw_objective_noise,
    float_safe_calibration,
    float_safe_guarantee,
    perturb_release,
)
from ..privacy.lam_rule import LamChoice, choose_lam, default_comparator_norm, intercept_scaling
from ..privacy.linear_calibration import calibrate_linear
from ..privacy.neighbours import Neighbours
from ..privacy.privacy_curve import curve_of_calibration
from ..privacy.registry import PerturbsObjective
from ..privacy.rng import RandomState, resolve_rng
from ..release.model import LinearModel, PrivateModel, ReleaseCertificate
from ..release.regression_model import LinearRegressionModel, PrivateRegressionModel
from ..solvers.choice import SOLVERS, SolverChoice
from ..solvers.linear import SolveInfo
from ..validation import (
    TASKS,
    check_choice,
    check_classes,
    check_epsilon,
    check_flag,
    check_labels,
    check_targets,
    label_clipping_note,
    positive,
    sample_size,
)
from ..verification.bounded_residual import with_bounded_residual
from ..verification.certificate import MECHANISMS, Certificate
from ..verification.constraints import Constraints
from ..verification.prediction_loss import residual_loss, takes_prediction_and_label
from ..verification.problem import VerifiedProblem
from ..verification.verdict import Mechanism
from ..verification.verifier import PROBE_DIM, Loss, Regularizer, check_dim, default_regularizer, verify_problem
from ..version import __version__

__all__ = ["PrivateERM", "SOLVERS", "NEIGHBOURS"]

NEIGHBOURS = ("replace-one: neighbouring data sets differ in one record, replaced by another; "
              "n is public")
ADD_REMOVE = ("add-remove: neighbouring data sets differ by one record added or removed; the public "
              "size n_public = {n} takes the place of n in the objective and the calibration, and the "
              "number of records is not released")


@functools.cache
def _installed_solvers() -> frozenset[str]:
    """CVXPY's installed solvers, looked up once per process (each lookup tries to import every
    solver: about 3 ms, a third of a 10,000 x 20 fit)."""
    return frozenset(cp.installed_solvers())


class _Prepared(NamedTuple):
    """What :meth:`PrivateERM.fit` has checked and computed before it charges the accountant."""

    epsilon: float
    delta: float
    n: int
    neighbours: Neighbours
    rows: RowMap
    X: Matrix | RowBlocks
    labels: np.ndarray
    problem: VerifiedProblem
    calibration: ReleaseCalibration | LatticeCalibration
    constants: dict[str, Any]
    start: np.ndarray | None
    rng: np.random.Generator
    source: IntegerSource
    classes: tuple[Any, Any] | None
    lam_rule: LamChoice | None


class PrivateERM:
    """A declared private ERM problem; :meth:`fit` releases a :class:`~dpcvx.release.model.PrivateModel`.

    This is the mathematical layer, as in the papers: labels -1/+1
    (``classes=(-1, 1)``), no intercept, and no default norm bound (R is a
    public fact about your data that only you know). The scikit-learn
    estimators (:class:`~dpcvx.estimators.DPLogisticRegression` and friends)
    follow scikit-learn instead: labels 0/1, an intercept and
    ``data_norm=1.0`` for rows scaled by a :class:`~dpcvx.PublicSchema`.
    Set ``classes`` to your public label pair, e.g. ``classes=(0, 1)``.

    Parameters
    ----------
    loss : callable z -> CVXPY expression, default ``dpcvx.losses.logistic()``
        Margin loss l(z), z = y w^T x.
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
    data_norm : float
        Public bound R on ||x||; never taken from the data. Not needed when a
        ``feature_map`` supplies its own ``norm_bound``.
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
        Public (negative, positive) label values; never inferred from y.
    feature_map : object with ``transform(X)``, ``norm_bound`` and ``to_dict()``, optional
        A public, data-independent map such as
        :class:`dpcvx.data.kernels.RandomFourierFeatures`.
    comparator_norm : float, optional
        The public prior W on ||w*|| that ``lam="auto"`` weighs the bias Lam W^2 / 2
        with; default the radius of a constraint ball, else
        ``COMPARATOR_SCALE / R`` (:func:`dpcvx.privacy.lam_rule.default_comparator_norm`).
    constraints : callable w -> list of CVXPY constraints, optional
        A public closed convex set C the weights are restricted to (KST12):
        ``lambda w: [cp.norm(w, 2) <= 6]`` (a ball) or bounds such as
        ``lambda w: [w >= -1, w <= 1]`` (a box); ``w`` is the whole weight
        vector, intercept last. With constraints, or with an L1 term in the
        regularizer (``a * cp.norm1(w) + b * cp.sum_squares(w)``, elastic net;
        b may be 0), objective perturbation follows Kifer, Smith and Thakurta
        (COLT 2012) and the solve is proximal Newton (docs/theory.md, section 14).
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
    label_bound : float, optional
        The public bound B on |y| of a regression (required for task="regression").
    solver : "auto", "fast", "cvxpy", or a callable ``solve(program, w)``
        "fast" is Newton's method on the verified derivatives (smooth loss,
        quadratic regularizer); "cvxpy" solves the same problem with CVXPY (and,
        where the fast path applies and the conic solver stopped above ``tol``,
        polishes its point with Newton steps); "auto" takes the fast path when
        it can. A callable is ANY solver (approximate minima perturbation,
        Iyengar et al. 2019): it gets the perturbed problem as a CVXPY
        ``Problem`` and its variable ``w`` and solves it as it likes (e.g.
        ``lambda program, w: program.solve(solver="SCS", eps_abs=1e-9)``);
        dpcvx computes the gradient at ``w.value`` and releases only if it is
        within the public bound gamma / 2. The noise that covers such a point
        is calibrated before the solve (its share of epsilon is in the
        certificate, ``amp_epsilon``); the default ``tol`` is then 1e-7. A point
        outside the bound raises SolverError AFTER the accountant was charged
        (the solve ran on the private data); nothing is released.
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
        "dithered-lattice"; (epsilon, delta) objective perturbation keeps the
        mitigation (certificate "mitigation-only"). docs/theory.md, section
        "Floating point: the linear releases"; the utility cost is measured in
        benchmarks/results/float_safe_cost.md.
    max_iter : int
        Newton iteration limit.
    strict : bool
        Refuse estimated constants even when ``allow_estimates`` is set.
    allow_estimates : bool
        Accept grid estimates for constants neither sympy nor the validated
        bounds proved. A release then says its guarantee is CONDITIONAL on
        the estimates (``model.certificate.conditional``). Default False.
    time_limit : float, optional
        Seconds for each of the verifier's worker-process calls (default 20).
    verbose : bool
        On a terminal, count the passes over an input read by blocks (a memmap or
        Dask X) with their elapsed time: public steps only, never a measured value.

    Extension hooks (docs/architecture.md): a subclass may replace
    :meth:`release_calibration` to substitute a calibration; :meth:`calibration`
    reports one without data; ``fit(warm_start=...)`` starts the solve at a given
    model. The private steps ``_calibrate`` and ``_solve`` are replaced only by the
    privacy audit's tests, to build deliberately broken variants.
    """

    predicts_per_row: ClassVar[bool] = True  # a released model predicts each row alone (models.contract)

    def __init__(
        self,
        loss: Loss | str | None = None,
        regularizer: Regularizer | None = None,
        lam: float | str = 1e-3,
        data_norm: float | None = None,
        *,
        comparator_norm: float | None = None,
        fit_intercept: bool = False,
        intercept_scaling: float | str = 1.0,
        clip: bool = True,
        classes: tuple[Any, Any] = (-1, 1),
        feature_map: Any = None,
        constraints: Constraints | None = None,
        task: str = "classification",
        label_bound: float | None = None,
        solver: str = "auto",
        cvxpy_solver: str = "CLARABEL",
        cvxpy_options: dict[str, Any] | None = None,
        tol: float | None = None,
        float_safe: bool = False,
        max_iter: int = 100,
        strict: bool = False,
        allow_estimates: bool = False,
        time_limit: float | None = None,
        verbose: bool = False,
    ) -> None:
        self.loss = losses.logistic() if loss is None else (
            losses.from_spec(loss) if isinstance(loss, str) else loss)
        self.regularizer = default_regularizer if regularizer is None else regularizer
        self.lam = lam
        self.comparator_norm = comparator_norm
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.clip = clip
        self.classes = classes
        self.feature_map = feature_map
        self.constraints = constraints
        self.task = task
        self.label_bound = label_bound
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

    def __repr__(self) -> str:
        return (f"PrivateERM(loss={self.loss!r}, lam={self.lam!r}, data_norm={self.data_norm!r}, "
                f"fit_intercept={self.fit_intercept!r})")

    # -- parameters (scikit-learn conventions) --------------------------------------------

    @classmethod
    def _parameter_names(cls) -> tuple[str, ...]:
        signature = inspect.signature(cls.__init__)
        return tuple(name for name in signature.parameters if name != "self")

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters (``deep`` is accepted for scikit-learn compatibility)."""
        return {name: getattr(self, name) for name in self._parameter_names()}

    def set_params(self, **params: Any) -> PrivateERM:
        """Set constructor parameters in place; unknown names raise InputError."""
        unknown = set(params) - set(self._parameter_names())
        if unknown:
            raise InputError(f"unknown parameters {sorted(unknown)}; valid: {self._parameter_names()}")
        for name, value in params.items():
            setattr(self, name, value)
        return self

    # -- declaration ---------------------------------------------------------------

    def row_map(self) -> RowMap:
        """The public per-record map (feature map, clipping to R, intercept feature)."""
        if self.feature_map is not None:
            if self.data_norm is not None:
                raise InputError(
                    "data_norm bounds raw rows, but with a feature_map the rows the theorems see "
                    "are the map's outputs, bounded by feature_map.norm_bound; drop data_norm"
                )
            bound = positive("feature_map.norm_bound", self.feature_map.norm_bound)
        elif self.data_norm is None:
            raise InputError(
                "data_norm is required: a public bound R on ||x|| (for example 1.0 after "
                "scaling features by public bounds). It is never taken from the data"
            )
        elif isinstance(self.data_norm, str):
            raise InputError(f"data_norm={self.data_norm!r} is not a number. For a private bound (data_norm="
                             "'private') call dpcvx.fit_private_norm(learner, X, y, epsilon, r_min=, r_max=): it "
                             "buys R with a stated share of epsilon and states the total. Nothing was charged")
        else:
            bound = positive("data_norm", self.data_norm)
        if isinstance(self.intercept_scaling, str) and self.intercept_scaling == "auto":
            comparator = None if self.comparator_norm is None else positive("comparator_norm", self.comparator_norm)
            scaling = intercept_scaling(bound, comparator)
        else:
            scaling = positive("intercept_scaling", self.intercept_scaling)
        return RowMap(
            norm_bound=bound,
            feature_map=self.feature_map,
            fit_intercept=bool(self.fit_intercept),
            intercept_scaling=scaling,
        )

    def verify(self, dim: int | None = None, *, progress: bool = False) -> Certificate:
        """The verifier's certificate for this loss and regularizer.

        ``dim`` is the number of input features (after the feature map); the
        regularizer is analysed at ``dim`` (+1 with an intercept). A fit
        re-verifies at the data's dimension.
        """
        features = check_dim(PROBE_DIM if dim is None else dim)
        total = features + (1 if check_flag("fit_intercept", self.fit_intercept) else 0)
        return self._verified(total, progress=progress).certificate

    def _check_settings(self) -> None:
        if not self._auto_lam:
            positive("lam", self.lam)
        if self.comparator_norm is not None:
            positive("comparator_norm", self.comparator_norm)
        for flag in ("fit_intercept", "clip", "strict", "allow_estimates", "verbose"):
            check_flag(flag, getattr(self, flag))
        if not callable(self.solver):
            check_choice("solver", self.solver, SOLVERS)
        if self.tol is not None:
            calibrate.check_tol(self.tol)
        if isinstance(self.max_iter, bool) or not isinstance(self.max_iter, int) or self.max_iter < 1:
            raise InputError(f"max_iter must be a positive int, got {self.max_iter!r}")
        installed = _installed_solvers()
        if not isinstance(self.cvxpy_solver, str) or self.cvxpy_solver.upper() not in installed:
            raise InputError(f"cvxpy_solver must be the name of an installed CVXPY solver "
                             f"({', '.join(sorted(installed))}), got {self.cvxpy_solver!r}")
        if self.cvxpy_options is not None and not (
                isinstance(self.cvxpy_options, dict) and all(isinstance(k, str) for k in self.cvxpy_options)):
            raise InputError(f"cvxpy_options must be a dict of solver settings (str keys), "
                             f"got {self.cvxpy_options!r}")

    @property
    def _regression(self) -> bool:
        return check_choice("task", self.task, TASKS) == "regression"

    def _labels(self, y: Any, n: int, refuse_excess: bool) -> np.ndarray:
        """-1/+1 labels of the public classes, or regression targets clipped to [-B, B]."""
        if not self._regression:
            return check_labels(y, n, check_classes(self.classes))
        if self.label_bound is None:
            raise InputError("task='regression' needs label_bound: a PUBLIC bound B on |y| (never read off the "
                             "data); labels beyond it are clipped onto [-B, B]")
        bound = positive("label_bound", self.label_bound)
        labels, clipped = check_targets(y, n, bound, refuse_excess)
        if clipped:
            warnings.warn(label_clipping_note(clipped, n, bound), ClippingWarning, stacklevel=user_stacklevel())
        return labels

    def _data(self, X: Any, y: Any, refuse_excess: bool) -> tuple[RowMap, Matrix | RowBlocks, np.ndarray]:
        rows = self.row_map()
        mapped: Matrix | RowBlocks
        if is_out_of_core(X):  # a memmap or Dask input: checked in one pass, read by blocks when solving
            mapped = RowBlocks(X, rows)
            clipped = mapped.validate(refuse_excess)
            mapped = mapped.trusted(clipped)
            y = y.compute() if is_out_of_core(y) and hasattr(y, "compute") else y
        else:
            mapped, clipped = rows.apply(X, refuse=refuse_excess)
        labels = self._labels(y, mapped.shape[0], refuse_excess)
        if clipped:
            warnings.warn(
                f"{clipped} of {mapped.shape[0]} rows had norm above R = {rows.norm_bound:g} and "
                "were scaled onto the bound (clip=True). NOT PRIVATE: this count is shown to you "
                "only and is not part of the release. To keep rows inside R, scale each column by "
                "bounds you know without looking at the data: dpcvx.PublicSchema with "
                "NumericColumn(name, low, high) and CategoricalColumn(name, categories) maps every "
                "row to norm <= 1; docs/getting-started.md ('Rows inside a public norm bound') "
                "explains why R must not be read off the data", ClippingWarning, stacklevel=3,
            )
        return rows, mapped, labels

    # -- solving ----------------------------------------------------------------------

    @staticmethod
    def _start(model: LinearModel | None, rows: RowMap, dim: int) -> np.ndarray | None:
        """The weight vector of a warm-start model, in the coordinates of the solver."""
        if model is None:
            return None
        if not isinstance(model, LinearModel):
            raise InputError(f"warm_start must be a model returned by fit or fit_nonprivate, "
                             f"got {type(model).__name__}")
        w = np.asarray(model.coef_, dtype=float)
        if rows.fit_intercept:
            w = np.append(w, model.intercept_ / rows.intercept_scaling)
        if w.shape != (dim,) or not np.all(np.isfinite(w)):
            raise InputError(f"warm_start has {w.shape[0]} weights, this fit has {dim}: fit it "
                             "with the same columns and fit_intercept")
        return w

    def _solver(self) -> SolverChoice:
        """The public solver settings (the choice lives in :mod:`dpcvx.solvers.choice`)."""
        return SolverChoice(self.solver, self.cvxpy_solver, self.cvxpy_options, self.max_iter, self._regression,
                            self.verbose)

    def _solve(self, problem: VerifiedProblem, X: Matrix | RowBlocks, y: np.ndarray, noise: np.ndarray,
               extra_reg: float, gradient_tolerance: float, start: np.ndarray | None = None,
               n: int | None = None, lam: float | None = None) -> tuple[np.ndarray, SolveInfo]:
        """A point with ||grad F|| <= gradient_tolerance / 2 (:meth:`SolverChoice.solve`); F's scaling is the
        public ``n`` (default: the number of rows), ``lam`` the fit's numeric Lam (the rule's under
        ``lam="auto"``; default ``self.lam``). A subclass may replace it (the audit's broken variants)."""
        return self._solver().solve(problem, X, y, noise, self._numeric_lam(lam), extra_reg, gradient_tolerance,
                                    start, n, rows=self.row_map())

    def _verified(self, dim: int, *, progress: bool = False) -> VerifiedProblem:
        """The verified problem at the fitted dimension (the one verification of a fit).

        A regression over a constraint set with sup ||w|| <= W takes L over the residuals
        it can reach, |r| <= W R + B (:mod:`dpcvx.verification.bounded_residual`).
        """
        loss = self.loss
        if self._regression and takes_prediction_and_label(loss):
            loss = residual_loss(loss)  # l(p, y), proved to be l(p - y, 0)
        problem = verify_problem(loss, self.regularizer, dim=dim, strict=self.strict,
                                 allow_estimates=self.allow_estimates, time_limit=self.time_limit,
                                 progress=progress, constraints=self.constraints)
        if self._regression and self.label_bound is not None and self.data_norm is not None:
            weight_bound = None if problem.constraint_set is None else problem.constraint_set.norm_bound()
            problem = with_bounded_residual(problem, weight_bound, self.row_map().effective_norm_bound,
                                            positive("label_bound", self.label_bound))
        return problem

    def _tol(self, problem: VerifiedProblem) -> float:
        """The public relative gradient tolerance: the user's, or the default for the problem's path."""
        return float(self.tol) if self.tol is not None else self._solver().default_tol(problem)

    def _calibrate(self, mechanism: str, n: int, epsilon: float, problem: VerifiedProblem,
                   R: float, split: str, delta: float = 0.0, neighbours: Neighbours = Neighbours.REPLACE_ONE,
                   lam: float | None = None) -> tuple[ReleaseCalibration, dict[str, Any]]:
        """(calibration, constants) of Algorithm 1 or 2 for the verified L, c, m, bound R and tol.

        delta > 0 selects the Gaussian forms (docs/theory.md, section 12). ``lam`` as in :meth:`_solve`.
        """
        return self._calibrate_at(self._numeric_lam(lam), mechanism, n, epsilon, problem, R, split, delta, neighbours)

    def _calibrate_at(self, lam: float, mechanism: str, n: int, epsilon: float, problem: VerifiedProblem,
                      R: float, split: str, delta: float = 0.0,
                      neighbours: Neighbours = Neighbours.REPLACE_ONE) -> tuple[ReleaseCalibration, dict[str, Any]]:
        """:meth:`_calibrate` at a given Lam (also the candidates of ``lam="auto"``)."""
        return calibrate_linear(problem, mechanism, n=n, lam=lam, epsilon=epsilon, delta=delta, R=R, split=split,
                                tol=self._tol(problem), neighbours=neighbours)

    @staticmethod
    def _check_solution(w: np.ndarray, info: SolveInfo) -> None:
        if not np.all(np.isfinite(w)):
            raise SolverError(f"{info.solver} returned non-finite weights; nothing is released")
        if not info.converged:
            raise SolverError(
                f"{info.solver} stopped ({info.status}) before ||grad F|| reached half the public "
                f"bound gamma = {info.gradient_tolerance:.2e}; nothing is released (this message "
                "is computed on the private data: do not publish it). Raise max_iter, try "
                "solver='fast' or another cvxpy_solver; if it stalled at round-off, the problem "
                "is too ill-conditioned for tol (raise lam or tol)"
            )

    # -- fitting ---------------------------------------------------------------------------

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
        split: str = "max",
        random_state: RandomState = None,
        accountant: PrivacyAccountant | None = None,
        warm_start: LinearModel | None = None,
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
        :func:`dpcvx.privacy.calibrate.objective_perturbation`. The default "max" never
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
        private: for the data owner only, never to be published).
        """
        prepared = self._prepare(X, y, epsilon, mechanism, split, random_state, warm_start, accountant, delta,
                                 neighbours, n_public)
        rows, X_mapped, labels, problem = prepared.rows, prepared.X, prepared.labels, prepared.problem
        calibration, epsilon, start, rng = prepared.calibration, prepared.epsilon, prepared.start, prepared.rng
        delta, n = prepared.delta, prepared.n
        d = X_mapped.shape[1]
        if accountant is not None:
            size = f"n={n}" if prepared.neighbours.uses_n else f"add-remove, n_public={n}"
            accountant.spend(epsilon, delta, description=f"PrivateERM.fit ({mechanism} perturbation, {size})",
                             curve=curve_of_calibration(calibration.to_dict(), epsilon, delta),
                             neighbours=prepared.neighbours)

        # objective: b enters the objective and b_2 covers the approximate minimiser;
        # output: the minimiser of the unperturbed objective gets the one noise vector
        noise = draw_objective_noise(calibration, d, rng, prepared.source)
        gamma = calibration.gradient_tolerance
        assert gamma is not None  # _calibrate always passes a public tol
        # the rule's Lam goes to the solver as an argument, never as state on the learner; a subclass
        # whose _solve predates lam="auto" keeps working with a numeric lam
        chosen = {} if prepared.lam_rule is None else {"lam": prepared.lam_rule.lam}
        w, info = self._solve(problem, X_mapped, labels, noise, calibration.extra_reg, gamma, start, n, **chosen)
        self.diagnostics_ = info
        self._check_solution(w, info)
        w, calibration = perturb_release(calibration, w, rng, prepared.source)
        del noise  # never stored

        release = ReleaseCertificate(
            mechanism=mechanism,
            guarantee=float_safe_guarantee(calibration, self._guarantee(problem, mechanism, delta)),
            epsilon=epsilon,
            delta=delta,
            calibration=calibration.to_dict(),
            verification=problem.certificate,
            data_norm=rows.norm_bound,
            effective_norm_bound=rows.effective_norm_bound,
            fit_intercept=rows.fit_intercept,
            intercept_scaling=rows.intercept_scaling,
            clipping="clipped to R" if self.clip else "refused",
            neighbours=NEIGHBOURS if prepared.neighbours.uses_n else ADD_REMOVE.format(n=n),
            library_version=__version__,
            constants=prepared.constants,
            label_bound=positive("label_bound", self.label_bound) if self._regression else None,
            lam_rule=None if prepared.lam_rule is None else prepared.lam_rule.to_dict(),
        )
        coef, intercept = rows.split_weights(w)
        if self._regression:
            return PrivateRegressionModel(coef, intercept, rows, release)
        return PrivateModel(coef, intercept, prepared.classes, rows, release)

    def _prepare(self, X: Any, y: Any, epsilon: float, mechanism: str, split: str, random_state: RandomState,
                 warm_start: LinearModel | None, accountant: PrivacyAccountant | None, delta: float = 0.0,
                 neighbours: str = "replace-one", n_public: int | None = None) -> _Prepared:
        """Every check of :meth:`fit`, in order, with nothing charged and nothing drawn."""
        check_choice("mechanism", mechanism, MECHANISMS)
        epsilon = check_epsilon(epsilon)
        delta = check_delta(delta)
        relation, n_public = self._relation(neighbours, delta, n_public)
        check_choice("split", split, calibrate.SPLITS)
        check_accountant(accountant)
        self._check_settings()
        rows, X_mapped, labels = self._data(X, y, refuse_excess=not self.clip)
        n = X_mapped.shape[0] if n_public is None else n_public
        d = X_mapped.shape[1]
        problem = self._verified(d)
        problem.require(mechanism, delta)  # the one verdict (verification.verdict), before anything is charged
        self._solver().check(problem, X_mapped)
        lam_rule, release, constants = self._calibration_for(mechanism, n, d, epsilon, problem,
                                                             rows.effective_norm_bound, split, delta, relation)
        start = self._start(warm_start, rows, d)
        rng = resolve_rng(random_state)
        # the exact samplers: the OS CSPRNG unless a seed (or generator) is given
        source = integer_source(None if random_state is None else rng)
        return _Prepared(epsilon, delta, n, relation, rows, X_mapped, labels, problem, release, constants,
                         start, rng, source, None if self._regression else check_classes(self.classes), lam_rule)

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

    def _lam_choice(self, mechanism: str, n: int, d: int, epsilon: float, problem: VerifiedProblem, R: float,
                    split: str, delta: float, neighbours: Neighbours) -> LamChoice:
        """The rule of :mod:`dpcvx.privacy.lam_rule` for this verified problem (public inputs only)."""
        constraint = problem.constraint_set
        if self.comparator_norm is not None:
            comparator = positive("comparator_norm", self.comparator_norm)
        elif constraint is not None and constraint.kind == "ball" and constraint.radius is not None:
            comparator = float(constraint.radius)
        else:
            comparator = default_comparator_norm(R)

        def calibrate_at(lam: float) -> dict[str, Any]:
            calibration, _ = self._calibrate_at(lam, mechanism, n, epsilon, problem, R, split, delta, neighbours)
            if isinstance(calibration, PerturbsObjective):
                self._check_reachable(calibration, d)
            return calibration.to_dict()

        curvature = problem.curvature if problem.certificate.curvature is not None else None
        return choose_lam(calibrate_at, mechanism, n=n, d=d, L=problem.lipschitz, R=R,
                          m=problem.strong_convexity, c=curvature, comparator_norm=comparator)

    def choose_lam(self, n: int, d: int, epsilon: float, mechanism: str = "objective", *, delta: float = 0.0,
                   neighbours: str = "replace-one", split: str = "max") -> LamChoice:
        """The Lam that ``lam="auto"`` would choose for n rows of d input columns: public, no data needed.

        ``d`` counts the input columns (after a feature map, before the intercept), as
        declared by the schema. docs/theory.md, section 25.
        """
        check_choice("mechanism", mechanism, MECHANISMS)
        check_choice("split", split, calibrate.SPLITS)
        rows = self.row_map()
        width = check_dim(d) + (1 if rows.fit_intercept else 0)
        problem = self._verified(width)
        delta = check_delta(delta)
        problem.require(mechanism, delta)
        return self._lam_choice(mechanism, sample_size(n, "n"), width, check_epsilon(epsilon), problem,
                                rows.effective_norm_bound, split, delta, Neighbours.parse(neighbours))

    @staticmethod
    def _relation(neighbours: str, delta: float, n_public: int | None) -> tuple[Neighbours, int | None]:
        """The neighbour relation and the checked public size (add-remove only), before anything is charged."""
        relation = Neighbours.parse(neighbours)
        if relation is Neighbours.ADD_REMOVE:
            if delta == 0:
                raise InputError("neighbours='add-remove' is offered for delta > 0 (the Gaussian mechanisms); "
                                 "the pure-epsilon mechanisms are derived for replace-one neighbours")
            if n_public is None:
                raise InputError("neighbours='add-remove' needs n_public: a public data-set size, chosen without "
                                 "looking at the data, that fixes the objective's scaling (the number of "
                                 "records is private under add-remove)")
            return relation, sample_size(n_public, "n_public")
        if n_public is not None:
            raise InputError("n_public is for neighbours='add-remove'; under replace-one n is the number of "
                             "rows, which is public")
        return relation, None

    def release_calibration(self, calibration: ReleaseCalibration) -> ReleaseCalibration:
        """Extension hook: the calibration a fit draws its noise with, given the one dpcvx derived.

        Returns ``calibration`` unchanged. A subclass may return another calibration of the
        same type, for a contender with other published constants (benchmarks/delta_mechanisms.py:
        KST12's, Iyengar et al.'s) or a deliberately under-noised variant an audit must catch. It
        then owns the privacy proof: the release records what it returns, and the checks that
        follow (the reachable gradient bound) apply to it. Called by :meth:`fit`,
        :meth:`check_fit_inputs` and :meth:`calibration`, after verification, before any charge.
        """
        return calibration

    def calibration(self, n: int, d: int, epsilon: float, mechanism: str = "objective", *, delta: float = 0.0,
                    neighbours: str = "replace-one", split: str = "max") -> ReleaseCalibration | LatticeCalibration:
        """The calibration :meth:`fit` would use for n rows of d columns: public inputs only, no data.

        ``d`` counts the columns the learner sees (after a feature map, before the intercept);
        under ``neighbours="add-remove"`` ``n`` is the public size ``n_public``. Nothing is solved,
        charged or drawn; an input :meth:`fit` would refuse is refused alike (typed errors). The
        result is the typed calibration (noise scales, Delta, the epsilon shares) at the Lam
        of the fit (the rule's under ``lam="auto"``), as :meth:`release_calibration` returns it
        and ``float_safe`` makes it: what a benchmark reports beside its fits.
        """
        check_choice("mechanism", mechanism, MECHANISMS)
        epsilon, delta = check_epsilon(epsilon), check_delta(delta)
        add_remove = Neighbours.parse(neighbours) is Neighbours.ADD_REMOVE
        relation, _ = self._relation(neighbours, delta, n if add_remove else None)
        check_choice("split", split, calibrate.SPLITS)
        self._check_settings()
        rows = self.row_map()
        width = check_dim(d) + (1 if rows.fit_intercept else 0)
        problem = self._verified(width)
        problem.require(mechanism, delta)
        return self._calibration_for(mechanism, sample_size(n, "n"), width, epsilon, problem,
                                     rows.effective_norm_bound, split, delta, relation)[1]

    def _calibration_for(self, mechanism: str, n: int, d: int, epsilon: float, problem: VerifiedProblem, R: float,
                         split: str, delta: float, relation: Neighbours
                         ) -> tuple[LamChoice | None, ReleaseCalibration | LatticeCalibration, dict[str, Any]]:
        """(the Lam rule's choice, the calibration fit draws with, its constants): Lam, the calibration,
        the :meth:`release_calibration` hook, ``float_safe``; refuses a tol the noise makes unreachable."""
        lam_rule = self._lam_choice(mechanism, n, d, epsilon, problem, R, split, delta, relation) if self._auto_lam \
            else None
        chosen = () if lam_rule is None else (lam_rule.lam,)   # as for _solve in fit
        calibration, constants = self._calibrate(mechanism, n, epsilon, problem, R, split, delta, relation, *chosen)
        calibration = self.release_calibration(calibration)
        constants.update({"R": R, "lam": self._numeric_lam(None if lam_rule is None else lam_rule.lam), "n": n,
                          "d": d})
        release: ReleaseCalibration | LatticeCalibration = calibration
        if self.float_safe:
            release = float_safe_calibration(calibration, d)
        if isinstance(release, PerturbsObjective):
            self._check_reachable(release, d)
        return lam_rule, release, constants

    @staticmethod
    def _check_reachable(calibration: PerturbsObjective, d: int) -> None:
        """Refuse, before charging, a tol that the objective's noise makes unreachable in floating point.

        A function of public quantities only (epsilon, tol, n, L, R, d): never a
        refusal that depends on the data.
        """
        floor = calibration.noise_rounding_floor(d)
        gamma = calibration.gradient_tolerance
        if gamma is not None and gamma < 2 * floor:
            needed = 2 * floor / (calibration.n * calibration.L * calibration.R)
            raise InputError(
                f"epsilon = {calibration.epsilon:g} is too small for tol = {calibration.tol:g}: the "
                f"objective's noise (||b|| up to {floor / (32 * np.finfo(float).eps):.3g}) makes the "
                f"gradient bound gamma = {gamma:.3g} unreachable in double "
                f"precision; use tol >= {needed:.2g} (at most {calibrate.TOL_RANGE[1]:g}) or a larger epsilon"
            )

    def plan(self, X: Any, y: Any, *, epsilon: float, delta: float = 0.0, mechanism: str = "objective",
             split: str = "max", random_state: RandomState = None, warm_start: LinearModel | None = None,
             neighbours: str = "replace-one", n_public: int | None = None) -> _Prepared:
        """The learner contract's first half (dpcvx.models.contract): every check of :meth:`fit` (validate,
        verify, calibrate, refuse), with nothing charged and nothing drawn."""
        return self._prepare(X, y, epsilon, mechanism, split, random_state, warm_start, None, delta, neighbours,
                             n_public)

    def check_fit_inputs(self, X: Any, y: Any, *, epsilon: float = 1.0, mechanism: str = "objective",
                         split: str = "max", random_state: RandomState = None,
                         warm_start: LinearModel | None = None, delta: float = 0.0,
                         neighbours: str = "replace-one", n_public: int | None = None) -> tuple[Any, Any] | None:
        """Raise the error :meth:`fit` would raise for these inputs, charging and drawing nothing.

        Returns the public classes (None for a regression). Private tuning calls it for every candidate
        before its accountant is charged.
        """
        return self.plan(X, y, epsilon=epsilon, delta=delta, mechanism=mechanism, split=split,
                         random_state=random_state, warm_start=warm_start, neighbours=neighbours,
                         n_public=n_public).classes

    @staticmethod
    def _guarantee(problem: VerifiedProblem, mechanism: str, delta: float = 0.0) -> str:
        """The theorem the release relies on, with the approximate-minimiser cover."""
        cover = ("; the released point is an approximate minimiser (||grad F|| <= gamma), covered "
                 + ("by approximate minima perturbation (Iyengar et al. 2019) with its budget share"
                    if Mechanism.of(mechanism) is Mechanism.OBJECTIVE else
                    "by the sensitivity bound 2 L R / (n m Lam) + 2 gamma / (n m Lam)"))
        return problem.certificate.guarantee(mechanism, delta) + cover

    def fit_nonprivate(self, X: Any, y: Any) -> LinearModel | LinearRegressionModel:
        """The minimiser of J to the public gradient bound: NOT private, a baseline for comparisons."""
        self._check_settings()
        rows, X_mapped, labels = self._data(X, y, refuse_excess=not self.clip)
        n, d = X_mapped.shape
        problem = self._verified(d)
        self._solver().check(problem, X_mapped)
        gamma = calibrate.gradient_tolerance(self._tol(problem), n, problem.lipschitz if
                                             problem.certificate.lipschitz is not None else 1.0,
                                             rows.effective_norm_bound)
        w, info = self._solve(problem, X_mapped, labels, np.zeros(d), 0.0, gamma)
        self.diagnostics_ = info
        self._check_solution(w, info)
        coef, intercept = rows.split_weights(w)
        if self._regression:
            return LinearRegressionModel(coef, intercept, rows)
        return LinearModel(coef, intercept, check_classes(self.classes), rows)
