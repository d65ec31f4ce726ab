"""PrivateERM: declare, verify, calibrate, solve exactly, release with a certificate.

Algorithms 1 (output perturbation) and 2 (objective perturbation) of
Chaudhuri, Monteleoni and Sarwate, "Differentially Private Empirical Risk
Minimization", JMLR 12 (2011), for a margin loss l and regularizer N written
in CVXPY, with general constants R (public norm bound), L, c and m:

    J(w) = (1/n) sum_i l(y_i w^T x_i) + Lam N(w)

* output:    release argmin J + b,  density of b proportional to exp(-beta ||b||),
             beta = n m Lam eps / (2 L R)
* objective: release argmin J(w) + b^T w / n + (Delta/2) ||w||^2, beta = eps' / (2 L R),
             eps' and Delta from :func:`dpcvx.calibrate.objective_perturbation`

Nothing is released unless the certificate allows the mechanism
(:class:`~dpcvx.exceptions.AssumptionError`) and the solver's relative
optimality residual is within ``tol`` (:class:`~dpcvx.exceptions.SolverError`).
"""

from __future__ import annotations

import inspect
import math
import warnings
from dataclasses import replace
from typing import Any

import numpy as np
import sympy as sp

from . import calibrate, losses
from .accountant import PrivacyAccountant
from .certificate import MECHANISMS, Certificate
from .exceptions import ClippingWarning, InputError, SolverError
from .model import LinearModel, PrivateModel, ReleaseCertificate
from .noise import round_to_grid, sample_l2_laplace
from .objective import PerturbedObjective
from .rng import RandomState, resolve_rng
from .rows import RowMap
from .solvers import SolveInfo, newton, solve_with_cvxpy
from .validation import check_classes, check_labels, positive
from .version import __version__
from .verify import PROBE_DIM, default_regularizer, verify, verify_loss, verify_regularizer

__all__ = ["PrivateERM", "SOLVERS"]

SOLVERS = ("auto", "fast", "cvxpy")


def _float_up(value) -> float:
    """value as a float no smaller than value (constants that bound from above: L, c)."""
    number = float(value)
    if isinstance(value, sp.Basic) and not (value.is_Rational and sp.Rational(number) == value):
        return math.nextafter(number, math.inf)
    return number


def _float_down(value) -> float:
    """value as a float no larger than value (the modulus m bounds from below)."""
    number = float(value)
    if isinstance(value, sp.Basic) and not (value.is_Rational and sp.Rational(number) == value):
        return math.nextafter(number, -math.inf)
    return number


class PrivateERM:
    """A declared private ERM problem; :meth:`fit` releases a :class:`~dpcvx.model.PrivateModel`.

    Parameters
    ----------
    loss : callable z -> CVXPY expression, default ``dpcvx.losses.logistic()``
        Margin loss l(z), z = y w^T x.
    regularizer : callable w -> CVXPY expression, default ``0.5 * cp.sum_squares(w)``
    lam : float
        Regularization weight Lam > 0.
    data_norm : float
        Public bound R on ||x||; never taken from the data. Not needed when a
        ``feature_map`` supplies its own ``norm_bound``.
    fit_intercept : bool
        Append a constant feature ``intercept_scaling`` (inside the norm bound,
        the regularizer and the noise; R grows to sqrt(R^2 + s^2)).
    clip : bool
        Rows with ||x|| > R are scaled onto the bound (True, with a
        :class:`~dpcvx.exceptions.ClippingWarning`) or refused (False).
    classes : pair
        Public (negative, positive) label values; never inferred from y.
    feature_map : object with ``transform(X)``, ``norm_bound`` and ``to_dict()``, optional
        A public, data-independent map such as
        :class:`dpcvx.kernels.RandomFourierFeatures`.
    solver : "auto", "fast" or "cvxpy"
        "fast" is Newton's method on the verified derivatives (smooth loss,
        quadratic regularizer); "cvxpy" solves the same problem with CVXPY (and,
        where the fast path applies and the conic solver stopped above ``tol``,
        polishes its point with Newton steps); "auto" takes the fast path when
        it can.
    cvxpy_solver : str
        "CLARABEL" (default), "ECOS" or "SCS" for the CVXPY path.
    cvxpy_options : dict, optional
        Extra solver options, overriding dpcvx's tightened defaults.
    tol : float
        Largest relative optimality residual allowed in a release.
    max_iter : int
        Newton iteration limit.
    strict : bool
        Refuse conditions established only numerically.

    The steps of :meth:`fit` are methods a subclass can replace: ``_certificate``
    (verify and require), ``_calibrate`` (Algorithm 1 or 2) and ``_solve``. The
    privacy audit's tests use them to build deliberately broken variants.
    """

    def __init__(
        self,
        loss=None,
        regularizer=None,
        lam: float = 1e-3,
        data_norm: float | None = None,
        *,
        fit_intercept: bool = False,
        intercept_scaling: float = 1.0,
        clip: bool = True,
        classes: tuple = (-1, 1),
        feature_map: Any = None,
        solver: str = "auto",
        cvxpy_solver: str = "CLARABEL",
        cvxpy_options: dict | None = None,
        tol: float = 1e-9,
        max_iter: int = 100,
        strict: bool = False,
    ):
        self.loss = losses.logistic() if loss is None else loss
        self.regularizer = default_regularizer if regularizer is None else regularizer
        self.lam = lam
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.clip = clip
        self.classes = classes
        self.feature_map = feature_map
        self.solver = solver
        self.cvxpy_solver = cvxpy_solver
        self.cvxpy_options = cvxpy_options
        self.tol = tol
        self.max_iter = max_iter
        self.strict = strict

    def __repr__(self) -> str:
        return (f"PrivateERM(loss={self.loss!r}, lam={self.lam!r}, data_norm={self.data_norm!r}, "
                f"fit_intercept={self.fit_intercept!r})")

    # -- parameters (scikit-learn conventions) --------------------------------------------

    @classmethod
    def _parameter_names(cls) -> tuple[str, ...]:
        signature = inspect.signature(cls.__init__)
        return tuple(name for name in signature.parameters if name != "self")

    def get_params(self, deep: bool = True) -> dict:
        """The constructor parameters (``deep`` is accepted for scikit-learn compatibility)."""
        return {name: getattr(self, name) for name in self._parameter_names()}

    def set_params(self, **params) -> "PrivateERM":
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
        else:
            bound = positive("data_norm", self.data_norm)
        return RowMap(
            norm_bound=bound,
            feature_map=self.feature_map,
            fit_intercept=bool(self.fit_intercept),
            intercept_scaling=positive("intercept_scaling", self.intercept_scaling),
        )

    def verify(self, dim: int | None = None) -> Certificate:
        """The verifier's certificate for this loss and regularizer.

        ``dim`` is the number of input features (after the feature map); the
        regularizer is analysed at ``dim`` (+1 with an intercept). A fit
        re-verifies at the data's dimension.
        """
        features = PROBE_DIM if dim is None else int(dim)
        total = features + (1 if self.fit_intercept else 0)
        return verify(self.loss, self.regularizer, dim=total, strict=self.strict)

    def _check_settings(self) -> None:
        positive("lam", self.lam)
        positive("tol", self.tol)
        if self.solver not in SOLVERS:
            raise InputError(f"solver must be one of {SOLVERS}, got {self.solver!r}")
        if isinstance(self.max_iter, bool) or not isinstance(self.max_iter, int) or self.max_iter < 1:
            raise InputError(f"max_iter must be a positive int, got {self.max_iter!r}")

    def _data(self, X, y, refuse_excess: bool):
        rows = self.row_map()
        mapped, clipped = rows.apply(X, refuse=refuse_excess)
        labels = check_labels(y, mapped.shape[0], check_classes(self.classes))
        if clipped:
            warnings.warn(
                f"{clipped} of {mapped.shape[0]} rows had norm above R = {rows.norm_bound:g} and "
                "were scaled onto the bound (clip=True). This count is shown to you only; it is "
                "not part of the release", ClippingWarning, stacklevel=3,
            )
        return rows, mapped, labels

    # -- solving ----------------------------------------------------------------------

    def _solve(self, X, y, noise: np.ndarray, extra_reg: float) -> tuple[np.ndarray, SolveInfo]:
        derivatives = verify_loss(self.loss).derivatives
        analysis = verify_regularizer(self.regularizer, X.shape[1]).analysis
        quadratic = None if analysis is None else analysis.quadratic
        objective = None
        if derivatives is not None and quadratic is not None:
            objective = PerturbedObjective(X, y, derivatives, quadratic, float(self.lam), noise,
                                           extra_reg)
        if self.solver == "fast" and objective is None:
            raise InputError(
                "solver='fast' needs a loss the verifier translated and proved C^1, and a "
                "quadratic regularizer; use solver='cvxpy' (or 'auto') for this problem"
            )
        if objective is not None and self.solver in ("auto", "fast"):
            return newton(objective, tol=self.tol, max_iter=self.max_iter)
        w, info = solve_with_cvxpy(
            self.loss, self.regularizer, X, y, float(self.lam), noise, extra_reg,
            solver=self.cvxpy_solver, solver_options=self.cvxpy_options, tol=self.tol,
            reference=objective,
        )
        if objective is None or info.converged:
            return w, info
        # Conic solvers stop near 1e-9 relative on exponential cones: polish with Newton
        # on the verified derivatives, starting from the solver's point.
        polished, steps = newton(objective, tol=self.tol, max_iter=self.max_iter, w0=w)
        return polished, replace(
            steps, solver=f"{info.solver}+{steps.solver}",
            status=f"{info.solver} {info.status} at residual {info.residual:.1e}, polished: {steps.status}",
            iterations=info.iterations + steps.iterations, seconds=info.seconds + steps.seconds,
        )

    def _certificate(self, mechanism: str, dim: int) -> Certificate:
        """Verify at the fitted dimension; raise AssumptionError unless ``mechanism`` is allowed."""
        certificate = verify(self.loss, self.regularizer, dim=dim, strict=self.strict)
        certificate.require(mechanism)
        return certificate

    def _calibrate(self, mechanism: str, n: int, epsilon: float, certificate: Certificate,
                   R: float, split: str):
        """(calibration, constants) of Algorithm 1 or 2 for the certified L, c, m and bound R."""
        L = _float_up(certificate.lipschitz)
        m = _float_down(certificate.strong_convexity)
        lam = float(self.lam)
        if mechanism == "objective":
            c = _float_up(certificate.curvature)
            calibration = calibrate.objective_perturbation(n, lam, epsilon, c, L=L, R=R, m=m,
                                                           split=split)
            constants = {"L": certificate.lipschitz, "c": certificate.curvature,
                         "m": certificate.strong_convexity}
        else:
            calibration = calibrate.output_perturbation(n, lam, epsilon, L=L, R=R, m=m)
            constants = {"L": certificate.lipschitz, "m": certificate.strong_convexity}
        return calibration, constants

    @staticmethod
    def _check_solution(w: np.ndarray, info: SolveInfo) -> None:
        if not np.all(np.isfinite(w)):
            raise SolverError(f"{info.solver} returned non-finite weights; nothing is released")
        if not info.converged:
            raise SolverError(
                f"{info.solver} stopped ({info.status}) at relative optimality residual "
                f"{info.residual:.2e} > tol = {info.tolerance:.0e}, after {info.iterations} "
                "iterations; the privacy proofs assume the exact minimiser, so nothing is "
                "released. Raise max_iter, try solver='fast' or another cvxpy_solver; if it "
                "stalled at round-off, the problem is too ill-conditioned for tol (raise lam)"
            )

    def _split_weights(self, w: np.ndarray, rows: RowMap) -> tuple[np.ndarray, float]:
        if rows.fit_intercept:
            return w[:-1], float(w[-1]) * rows.intercept_scaling
        return w, 0.0

    # -- fitting ---------------------------------------------------------------------------

    def fit(
        self,
        X,
        y,
        epsilon: float,
        mechanism: str = "objective",
        *,
        split: str = "max",
        random_state: RandomState = None,
        accountant: PrivacyAccountant | None = None,
    ) -> PrivateModel:
        """Release an epsilon-differentially private model of (X, y).

        ``mechanism`` is "objective" (Algorithm 2) or "output" (Algorithm 1);
        ``split`` is the objective-perturbation budget split of
        :func:`dpcvx.calibrate.objective_perturbation`. The default "max" never
        leaves less budget for the noise than the paper's rule, which can leave
        eps' close to 0 just before it switches to eps' = eps/2 (for the Huber
        hinge at eps = 0.1, n Lam = 20 it keeps eps' = 0.0024 where "max" keeps
        0.05). "rank-one" uses the tighter single-factor Jacobian bound
        (docs/theory.md, section 3). ``random_state`` None draws the noise from
        OS entropy.
        ``accountant`` is charged epsilon before any noise is drawn.
        """
        if mechanism not in MECHANISMS:
            raise InputError(f"mechanism must be 'objective' or 'output', got {mechanism!r}")
        epsilon = positive("epsilon", epsilon)
        if split not in calibrate.SPLITS:
            raise InputError(f"split must be one of {calibrate.SPLITS}, got {split!r}")
        self._check_settings()
        rows, X_mapped, labels = self._data(X, y, refuse_excess=not self.clip)
        n, d = X_mapped.shape
        certificate = self._certificate(mechanism, d)
        calibration, constants = self._calibrate(mechanism, n, epsilon, certificate,
                                                 rows.effective_norm_bound, split)
        constants.update({"R": rows.effective_norm_bound, "lam": float(self.lam), "n": n, "d": d})

        if accountant is not None:
            accountant.spend(epsilon, 0.0, description=f"PrivateERM.fit ({mechanism} perturbation, n={n})")
        rng = resolve_rng(random_state)
        noise = sample_l2_laplace(d, calibration.beta, rng)
        if mechanism == "objective":
            w, info = self._solve(X_mapped, labels, noise, calibration.extra_reg)
            self._check_solution(w, info)
        else:
            w, info = self._solve(X_mapped, labels, np.zeros(d), 0.0)
            self._check_solution(w, info)
            w, spacing = round_to_grid(w + noise, 1.0 / calibration.beta)
            calibration = calibration.with_release_grid(spacing)
        del noise  # never stored

        release = ReleaseCertificate(
            mechanism=mechanism,
            guarantee=certificate.guarantee(mechanism),
            epsilon=epsilon,
            delta=0.0,
            calibration=calibration.to_dict(),
            verification=certificate,
            data_norm=rows.norm_bound,
            effective_norm_bound=rows.effective_norm_bound,
            fit_intercept=rows.fit_intercept,
            intercept_scaling=rows.intercept_scaling,
            clipping="clipped to R" if self.clip else "refused",
            solve=info,
            library_version=__version__,
            constants=constants,
        )
        coef, intercept = self._split_weights(w, rows)
        classes = check_classes(self.classes)
        return PrivateModel(coef, intercept, classes, rows, info, release)

    def fit_nonprivate(self, X, y) -> LinearModel:
        """The exact, NOT private, minimiser of J: a baseline for comparisons."""
        self._check_settings()
        rows, X_mapped, labels = self._data(X, y, refuse_excess=not self.clip)
        d = X_mapped.shape[1]
        w, info = self._solve(X_mapped, labels, np.zeros(d), 0.0)
        self._check_solution(w, info)
        coef, intercept = self._split_weights(w, rows)
        return LinearModel(coef, intercept, check_classes(self.classes), rows, info)
