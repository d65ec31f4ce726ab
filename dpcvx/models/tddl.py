"""TDDL: the Test Data Dependent Learner (Jain and Thakurta, ICML 2013, Algorithm 2).

Given private training data and a PUBLIC sample Z = {z_1..z_T} of test points:

1. solve the kernel ERM to the public tolerance gamma: ||w - w*|| <= gamma,
   w = sum_i beta_i phi(x_i) (the paper's exact minimiser w*, up to gamma;
   O(n^3) time and 8 n^2 bytes); or, with ``span="public"``, the ERM
   restricted to span phi(Z), the Nystrom features of the public sample
   (O(n T^2) per Newton step, 8 n T bytes), whose minimiser has the same
   sensitivity (docs/theory.md, section 11, "Minimising over span phi(Z)");
2. release noisy predictions yhat_t = <w, phi(z_t)> + b_t, with b_t
   Laplace (epsilon-DP, L1 sensitivity) or Gaussian ((epsilon, delta)-DP,
   L2 sensitivity through ||Phi_Z||_op = sqrt(lambda_max(K_Z))), calibrated
   by :func:`dpcvx.privacy.kernel_calibrate.tddl_calibration` with the weight
   sensitivity 2 L R / (lam n) + 2 gamma (both neighbours' solutions within
   gamma of their exact minimisers);
3. post-process: w = argmin_{||w|| <= C, w in span phi(Z)} (1/T) sum_t (<w, phi(z_t)> - yhat_t)^2,
   the CVXPY template :class:`ConstrainedLeastSquares`, C = constraint_radius.

The released predictor is (Z, a, kernel) with w = sum_t a_t phi(z_t). Step 3
touches only yhat and public data, so it costs no privacy.

Privacy: Jain and Thakurta 2013, Theorem 4 (TDDL is (epsilon, delta)-DP; their
Definition 1: data sets of size n differing in one point, i.e. replace-one
neighbours with n public), re-derived in docs/theory.md (section 11, K4); the proof's exact minimiser is replaced
by the certified approximate one through the enlarged sensitivity.
"""

from __future__ import annotations

import warnings
from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from scipy.optimize import brentq

from ..data.kernels import KernelSpec, as_rows
from ..data.notes import checks_then_notes, warn_public_sample
from ..exceptions import InputError, float_errors_ignored
from ..privacy.accountant import PrivacyAccountant
from ..privacy.exact_sampling import integer_source
from ..privacy.kernel_calibrate import (
    MINIMISER_SPANS,
    TDDLCalibration,
    gram_spectrum,
    gram_top_eigenvalue_bound,
    is_indefinite,
    loss_radius,
    numerical_range,
    tddl_calibration,
)
from ..privacy.lattice import clamp_secret, float_kernel_name
from ..privacy.lattice_predictions import LatticeTDDL
from ..privacy.noise import round_to_grid
from ..privacy.rng import RandomState
from ..progress import progress
from ..release.kernel_model import KernelPredictor, PrivateKernelModel
from ..release.model import named
from ..rounding import round_up
from ..solvers.kernel import KernelERM
from ..solvers.linear import CVXPY_SOLVER_OPTIONS
from ..tables import check_names
from ..validation import check_finite, check_flag, positive
from .kernel_learner import Budget, Diagnostics, PrivateKernelLearner, check_budget, check_coefficient_bound

__all__ = ["ConstrainedLeastSquares", "perturb_predictions", "TDDL"]

FEASIBILITY_SLACK = 1e-9
# Clarabel's defaults leave ~1e-6 relative suboptimality on the ill-conditioned diagonal;
# at these tolerances it often reports "optimal_inaccurate" for a better point, so the
# status is not trusted: the KKT residual is computed and reported instead.
KKT_TOLERANCE = 1e-6  # above this relative KKT residual the closed form replaces the conic point
# span="auto" minimises over span phi(Z) when n > |Z| (its solver step costs O(n |Z|^2), the exact one O(n^3); both
# public: n by replace-one, |Z| the public sample's; benchmarks/tddl_span_rule.py measured the accuracies), over the
# whole RKHS otherwise. With float_safe=True, whose exact lattice guarantee is proved over the whole RKHS only, it keeps
# the whole RKHS up to this many training rows, over span phi(Z) above them (the O(n^3) solve and its 8 n^2 bytes no
# longer fit a workstation)
AUTO_PUBLIC_SPAN_ROWS = 10_000


def _gram_matrix(gram: Any) -> np.ndarray:
    """gram as a dense, finite, non-empty, symmetric float matrix; InputError naming what it is not. A Gram matrix
    K_ij = k(z_i, z_j) is symmetric; one that differs from its transpose by more than sqrt(eps) max |K| is not one
    (rounding in a kernel's evaluation leaves far less)."""
    if sparse.issparse(gram):
        raise InputError("gram must be a dense matrix, got a scipy.sparse matrix; pass gram.toarray()")
    gram = check_finite("gram", gram)
    if gram.ndim != 2 or gram.shape[0] != gram.shape[1] or gram.shape[0] == 0:
        raise InputError(f"gram must be a non-empty square matrix, got shape {gram.shape}")
    scale = float(np.max(np.abs(gram)))
    if float(np.max(np.abs(gram - gram.T))) > np.sqrt(np.finfo(float).eps) * scale:
        raise InputError("gram must be symmetric (K_ij = k(z_i, z_j) = K_ji), got a matrix that differs from its "
                         "transpose by more than rounding; pass the kernel's Gram matrix of the public sample")
    return gram


def _refuse_indefinite(eigenvalues: np.ndarray) -> None:
    """InputError when the Gram matrix has an eigenvalue below -sqrt(eps) max |lambda|
    (:func:`~dpcvx.privacy.kernel_calibrate.is_indefinite`): a kernel's Gram matrix is positive semidefinite, and
    rounding leaves negative eigenvalues of about T eps lambda_max only."""
    if is_indefinite(eigenvalues):
        raise InputError(f"gram must be positive semidefinite (a kernel's Gram matrix), got an eigenvalue "
                         f"{float(eigenvalues.min()):.6g}; pass the kernel's Gram matrix of the public sample")


class ConstrainedLeastSquares:
    """min_a (1/T) ||K_Z a - t||^2  subject to  a^T K_Z a <= C^2, as a reusable CVXPY problem.

    K_Z = U diag(lam) U^T is PSD in exact arithmetic; its computed eigenvalues
    are clipped at 0, and those below T eps lambda_max are dropped (numerical
    rank r). With F = U_r diag(sqrt(lam_r)) (so K_Z = F F^T) and coordinates
    c = F^T a, w = Phi_Z a has ||w||^2 = a^T K_Z a = ||c||^2 and predictions
    K_Z a = F c. Because U_r has orthonormal columns,
    ||F c - t||^2 = ||diag(sqrt(lam_r)) c - U_r^T t||^2 + const, so the problem is

        minimise (1/T) ||diag(sqrt(lam_r)) c - U_r^T t||^2  subject to  ||c||_2 <= C,

    a second-order cone program with no quad_form on an indefinite matrix. ``spectrum``: the
    :func:`~dpcvx.privacy.kernel_calibrate.gram_spectrum` of this same ``gram`` where the caller holds it (TDDL over
    span phi(Z), whose Nystrom features decomposed the same K_Z), so it is not computed twice. It
    is built once (targets and radius are cp.Parameters, so repeated solves
    reuse the compilation) and a = U_r diag(1/sqrt(lam_r)) c is the minimum-norm
    coefficient vector.

    The problem is diagonal, so it also has a closed form: with u = U_r^T t,
    c_j = sqrt(lam_j) u_j / (lam_j + mu), where mu = 0 if that point is
    feasible and otherwise the unique mu > 0 with ||c(mu)|| = C (a monotone
    scalar equation, solved by bracketing). When the conic solver fails or its
    KKT residual exceeds ``KKT_TOLERANCE``, the closed form is used instead;
    ``method`` says which one produced the last solution.
    """

    def __init__(self, gram: ArrayLike, radius: float,
                 spectrum: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        gram = _gram_matrix(gram)
        T = gram.shape[0]
        if spectrum is not None and (spectrum[0].shape != (T,) or spectrum[1].shape != (T, T)):
            raise InputError(f"spectrum must be the eigenvalues ({T},) and eigenvectors ({T}, {T}) of the gram "
                             f"matrix, got shapes {spectrum[0].shape} and {spectrum[1].shape}")
        self.eigenvalues, vectors = gram_spectrum(gram) if spectrum is None else spectrum
        _refuse_indefinite(self.eigenvalues)
        keep = numerical_range(self.eigenvalues)
        if not np.any(keep):
            raise InputError("the Gram matrix of the public sample is zero: phi(z_t) = 0 for all t")
        roots = np.sqrt(self.eigenvalues[keep])
        self._basis = vectors[:, keep]
        self._roots = roots
        self.coordinates = cp.Variable(roots.size, name="c")
        self.projected_targets = cp.Parameter(roots.size, name="U_r^T t")
        self.radius = cp.Parameter(nonneg=True, name="C", value=positive("radius", radius))
        residual = cp.multiply(roots, self.coordinates) - self.projected_targets
        self._norm_constraint = cp.norm(self.coordinates, 2) <= self.radius
        self.problem = cp.Problem(cp.Minimize(cp.sum_squares(residual) / T), [self._norm_constraint])
        self.residual: float | None = None
        self.method: str | None = None

    @property
    def rank(self) -> int:
        return self._roots.size

    def solve(self, targets: ArrayLike) -> np.ndarray:
        """The coefficients a of the constrained least-squares fit to ``targets``."""
        targets = check_finite("targets", targets)
        if targets.shape != (self._basis.shape[0],):
            raise InputError(f"targets must be a finite vector of length {self._basis.shape[0]}, "
                             f"got shape {targets.shape}")
        projected = self._basis.T @ targets
        coordinates = self._conic(projected)
        if coordinates is not None:
            residual = self._kkt_residual(coordinates, projected)
        if coordinates is None or residual > KKT_TOLERANCE:
            coordinates, self.method = self._closed_form(projected), "closed form"
            residual = self._kkt_residual(coordinates, projected, self._multiplier)
        else:
            self.method = "cvxpy:CLARABEL"
        self.residual = residual
        return self._basis @ (coordinates / self._roots)

    def _conic(self, projected: np.ndarray) -> np.ndarray | None:
        """The conic solver's point, scaled into the ball; None if the solver failed."""
        self.projected_targets.value = projected
        try:
            with warnings.catch_warnings():
                # CVXPY's "Solution may be inaccurate" is replaced by the KKT residual check below
                warnings.filterwarnings("ignore", message="Solution may be inaccurate")
                self.problem.solve(solver=cp.CLARABEL, **CVXPY_SOLVER_OPTIONS["CLARABEL"])
        except cp.SolverError:
            return None
        coordinates = self.coordinates.value
        if self.problem.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or coordinates is None:
            return None
        norm, radius = float(np.linalg.norm(coordinates)), self._current_radius()
        if norm > radius * (1 + FEASIBILITY_SLACK):  # the solver's feasibility tolerance
            coordinates = coordinates * (radius / norm)
        return coordinates

    def _current_radius(self) -> float:
        value = self.radius.value
        if value is None:
            raise InputError("the radius C of the least-squares template is not set")
        return float(value)

    def _closed_form(self, projected: np.ndarray) -> np.ndarray:
        """c(mu) = sqrt(lam) u / (lam + mu) with the smallest feasible mu >= 0."""
        lam, radius = self._roots**2, self._current_radius()
        weighted = self._roots * projected

        def excess(mu: float) -> float:
            return float(np.linalg.norm(weighted / (lam + mu))) - radius

        if excess(0.0) <= 0:
            self._multiplier = 0.0
        else:  # excess is decreasing in mu and <= 0 at mu = ||sqrt(lam) u|| / C, in exact arithmetic
            upper = float(np.linalg.norm(weighted)) / radius
            while excess(upper) > 0:  # rounding may leave it a few eps above 0 there (lam_j far below mu)
                upper *= 2
            self._multiplier = brentq(excess, 0.0, upper, xtol=1e-15 * max(upper, 1.0), rtol=1e-15)
        coordinates = weighted / (lam + self._multiplier)
        norm = float(np.linalg.norm(coordinates))
        return coordinates * (radius / norm) if norm > radius else coordinates

    def _kkt_residual(self, coordinates: np.ndarray, projected: np.ndarray,
                      multiplier: float | None = None) -> float:
        """Relative KKT residual: stationarity (lam + mu) c = sqrt(lam) U^T t and complementarity.

        mu is given (closed form) or mu = T nu / (2 ||c||) from the conic
        constraint's dual value nu (0 when inactive).
        """
        T = self._basis.shape[0]
        norm, radius = float(np.linalg.norm(coordinates)), self._current_radius()
        if multiplier is None:
            dual = float(self._norm_constraint.dual_value or 0.0)
            mu = T * dual / (2 * norm) if norm > 0 else 0.0
        else:
            mu = multiplier
        scale = max(float(np.linalg.norm(self._roots * projected)), np.finfo(float).tiny)
        stationarity = np.linalg.norm((self._roots**2 + mu) * coordinates - self._roots * projected)
        complementarity = mu * abs(norm - radius) * max(norm, 1.0)
        return float(max(stationarity, complementarity) / scale)


def check_span(name: str, value: Any) -> str:
    """TDDL's ``span``: "auto" or one of :data:`MINIMISER_SPANS`."""
    if not isinstance(value, str) or (value != "auto" and value not in MINIMISER_SPANS):
        raise InputError(f"{name} must be 'auto' or one of {MINIMISER_SPANS}, got {value!r}")
    return value


def perturb_predictions(predictions: np.ndarray, calibration: TDDLCalibration,
                        rng: np.random.Generator) -> np.ndarray:
    """predictions + i.i.d. Laplace(scale) or N(0, scale^2) noise, as the calibration says, rounded to the
    grid 2^-30 of the scale (:func:`~dpcvx.privacy.noise.round_to_grid`: a mitigation, MITIGATION_ONLY)."""
    predictions = np.asarray(predictions, dtype=float)
    return round_to_grid(predictions + calibration.draw(predictions.size, rng), calibration.scale)[0]


class TDDL(PrivateKernelLearner):
    """Test Data Dependent Learner (Jain and Thakurta, ICML 2013, Algorithm 2).

    ``fit(X, y, epsilon, delta=0.0, *, Z, random_state=None, accountant=None)``
    trains on the private (X, y) and the public sample Z and returns the release,
    a :class:`~dpcvx.release.kernel_model.PrivateKernelModel` (a
    :class:`KernelPredictor` on the centres Z, with its certificate), which
    predicts any point. (epsilon, delta)-DP with respect to (X, y); pure
    epsilon-DP when delta = 0. Accuracy guarantees hold for points distributed
    like Z. See :class:`~dpcvx.models.kernel_learner.PrivateKernelLearner` for the
    parameters.

    ``span`` chooses the subspace the ERM is minimised over: ``"training"``
    (the whole RKHS, the paper's exact minimiser), ``"public"`` (span phi(Z):
    the Nystrom features of the public sample, linear in n), or ``"auto"``
    (the default: "public" when n > |Z|, where its solver step, O(n |Z|^2),
    is cheaper than the exact one, O(n^3); "training" otherwise; with
    ``float_safe=True``, whose exact guarantee is proved over the whole RKHS
    only, "training" up to ``AUTO_PUBLIC_SPAN_ROWS`` = 10,000 rows and
    "public" above). The rule reads public sizes only (n: replace-one
    neighbours keep it). The certificate's calibration records it as
    ``minimiser_span``; the privacy guarantee and the noise are the same
    (docs/theory.md, section 11, K4). The two spans' test accuracies were
    measured before the rule was adopted: benchmarks/tddl_span_rule.py,
    docs/scale.md.

    ``float_safe`` (default False): True releases the predictions on a public lattice with exact
    integer noise (:mod:`dpcvx.privacy.lattice_predictions`): the certificate says "exact" for the
    rbf and laplacian kernels over the training span (evaluation error proved and charged),
    "mitigation-only" otherwise; False draws double Laplace or Gaussian noise.

    Fitted attributes (public): ``model_`` (the release), ``predictor_`` (its
    predictor), ``calibration_`` (noise derivation, with the solve tolerance
    gamma), ``constraint_radius_`` (C). ``diagnostics_`` (NOT PRIVATE, the
    curator's only): the solve report of the non-private minimiser and the KKT
    residual and method of step 3.
    """

    algorithm = "TDDL (Jain and Thakurta 2013, Algorithm 2)"
    theorem = ("Jain and Thakurta (ICML 2013), Theorem 4 (privacy of TDDL, Algorithm 2: the Laplace or "
               "Gaussian mechanism on the T predictions), as re-derived in docs/theory.md (section 11, K4), "
               "with the weight sensitivity enlarged by 2 gamma for the certified approximate minimiser")
    _param_names = (*PrivateKernelLearner._param_names, "span", "float_safe")
    span: str
    float_safe: bool
    _parameter_checks = {**PrivateKernelLearner._parameter_checks, "span": check_span, "float_safe": check_flag}

    def __init__(self, kernel: KernelSpec = "rbf", *, lam: float, span: str = "auto", float_safe: bool = False,
                 **params: Any) -> None:
        super().__init__(kernel, lam=lam, **params)
        self.set_params(span=span, float_safe=float_safe)

    def _minimiser_span(self, X: ArrayLike, Z: ArrayLike) -> tuple[str, np.ndarray, np.ndarray]:
        """(the public choice of subspace, X checked as rows, Z checked as rows of X's width): ``span``, checked with
        the settings before X is read; "auto" then resolved by public sizes only: "public" (span phi(Z)) when
        n > |Z|, where a solver step over the Nystrom features costs O(n |Z|^2) against the exact O(n^3), else
        "training"; with ``float_safe`` (exact over the whole RKHS only) "training" up to
        :data:`AUTO_PUBLIC_SPAN_ROWS` rows. n is public (replace-one neighbours keep it), |Z| is the public sample's
        size."""
        settings = self._settings()[0]
        rows = as_rows(X)
        # 2-D as X is, and a copy of its own: the release holds its centres (a Z the caller changes in place after the
        # fit changed the released predictor, sixty-seventh session)
        points = np.array(as_rows(Z, "Z", rows.shape[1], owner="TDDL", note=" (the width of X)"))
        span = settings["span"]
        if span != "auto":
            return span, rows, points
        n = rows.shape[0]
        public = n > AUTO_PUBLIC_SPAN_ROWS if settings["float_safe"] else n > points.shape[0]
        return ("public" if public else "training"), rows, points

    def _check(self, X: ArrayLike, y: ArrayLike, Z: ArrayLike, budget: Budget
               ) -> tuple[KernelERM, np.ndarray, np.ndarray, float, ConstrainedLeastSquares,
                          TDDLCalibration | LatticeTDDL]:
        """Every input and public constant of a fit, with X's rows as checked; raises before anything is charged or
        solved."""
        with checks_then_notes():  # the clipping count shown once every check below has passed
            # Z as given is the table itself, whose column names the learner keeps (a table is read as rows again:
            # cheap beside the Gram matrix)
            table = Z
            span, rows, Z = self._minimiser_span(X, Z)
            model = self._check_training(X, y, landmarks=Z if span == "public" else None, delta=budget.delta)
            check_names(type(self).__name__, self._names_read[0], table, "Z")  # Z is read by position, as X is
            model.check_predict(Z)  # the released predictions' kernel calls, tried before the charge
            kernel, loss = model.kernel, model.loss
            radius = loss_radius(self.lam, loss, kernel.feature_bound)
            # over span phi(Z) the Nystrom features decomposed the same K_Z = (G + G^T) / 2, G = k(Z, Z): that
            # decomposition, not a second O(|Z|^3) one (the same bits: eigh of the same matrix)
            spectrum = None if model.nystrom is None else model.nystrom.take_spectrum()
            gram = kernel.gram(Z, Z)
            least_squares = ConstrainedLeastSquares(gram, radius, spectrum)
            # lambda_max(K_Z) bounded as a load recomputes it (the same function of the same k(Z, Z)): a loaded
            # certificate is this one; the eigenvalues above are its fallback below LANCZOS_FROM points
            calibration = tddl_calibration(
                model.n, self.lam, loss.lipschitz_bound, kernel.feature_bound, budget.epsilon, budget.delta,
                np.sqrt(np.maximum(kernel.diagonal(Z), 0.0)),
                gram_top_eigenvalue_bound(gram, least_squares.eigenvalues), span,
            )
            if self.float_safe:
                return model, rows, Z, radius, least_squares, LatticeTDDL.of(
                    calibration, float_kernel_name(kernel), model.n_features)
            return model, rows, Z, radius, least_squares, calibration

    def check_fit_inputs(self, X: ArrayLike, y: ArrayLike, epsilon: float = 1.0, delta: float = 0.0, *, Z: ArrayLike,
                         random_state: RandomState = None, accountant: PrivacyAccountant | None = None,
                         sample_weight: None = None) -> None:
        """Raise the error :meth:`fit` would raise for bad input, without charging or solving."""
        budget = check_budget(epsilon, delta, random_state, accountant, type(self).__name__, sample_weight)
        self._check(X, y, Z, budget)

    @float_errors_ignored
    def fit(self, X: ArrayLike, y: ArrayLike, epsilon: float, delta: float = 0.0, *, Z: ArrayLike,
            random_state: RandomState = None, accountant: PrivacyAccountant | None = None,
            sample_weight: None = None) -> PrivateKernelModel:
        """Release the predictor. Every input is checked first, then ``accountant`` (optional)
        is charged (epsilon, delta) once, then the model is solved and the noise drawn.

        Paper: Jain and Thakurta (ICML 2013), Algorithm 2 and Theorem 4 (privacy of TDDL); proof: docs/theory.md,
        section 11, K4."""
        with progress(3, "TDDL fit", unit="step", verbose=self.verbose) as bar:
            budget = check_budget(epsilon, delta, random_state, accountant, type(self).__name__, sample_weight)
            model, rows, Z, radius, least_squares, calibration = self._check(X, y, Z, budget)
            warn_public_sample(Z, rows)  # NOT PRIVATE, once every check has passed
            self._charge(budget)
            bar.update()
            model = self.solve_curator_model(model)
            bar.update()
            # <w*, phi(z)> at Z after the charge by the rule that never raises (KernelERM.answer): the calls
            # check_predict made before it, so the same values; a callable that fails only now cannot raise here.
            # Clamped to their proved range |<w, phi(z_t)>| <= (C + gamma) ||phi(z_t)||, the bound the calibration
            # takes (relatively 1e-12 wider, so that rounding in it clamps no value), as PINP's answers are
            # (clamp_secret: 1-Lipschitz, so the sensitivity holds; no value of a positive semidefinite kernel
            # changes), so the noisy targets are finite and the least-squares step cannot fail on a callable's huge
            # entry against a private row
            norms = np.sqrt(np.maximum(model.kernel.diagonal(Z), 0.0))
            secret = clamp_secret(model.answer(Z), (radius + model.tolerance) * norms * (1 + 1e-12))
            if isinstance(calibration, LatticeTDDL):
                check_coefficient_bound(model, calibration.coefficient_bound, "nothing was released")
                noisy = calibration.perturb(secret, integer_source(None if random_state is None else budget.rng))
            else:
                noisy = perturb_predictions(secret, calibration, budget.rng)
            coef = least_squares.solve(noisy)
            bar.update()
        self.calibration_ = calibration
        self.constraint_radius_ = radius
        self.diagnostics_ = Diagnostics(solve_report=model.report,
                                        least_squares_residual=least_squares.residual,
                                        least_squares_method=least_squares.method)
        self.predictor_ = KernelPredictor(model.kernel, Z, coef, privatised=("coef",))
        self.model_ = named(PrivateKernelModel(self.predictor_, self._certificate(model, budget, calibration)),
                            self._names_read[0])  # the table's column names, which its predictions check
        constants = self.model_.certificate.constants
        base = calibration.base if isinstance(calibration, LatticeTDDL) else calibration
        finding = base.noise_finding(round_up((constants.C + constants.gamma) * constants.R_phi))
        self._after_release(finding, model.fitted_rows, y)
        return self.model_
