"""scikit-learn regressors: DPLinearRegression (AdaSSP) and DPHuberRegressor (objective or output perturbation).

Both follow scikit-learn's regressor contract (``fit``, ``predict``, ``score``
as R^2; every parameter has a default) and take the data contract as
parameters: ``data_norm`` (public bound R on ||x||, default 1 for rows scaled by a
:class:`~dpcvx.PublicSchema`) and ``label_bound`` (public bound B on |y|,
default 1). Rows beyond R and labels beyond B are scaled onto the bounds
(``clip=True``) or refused. The bounds are never read off the data.

- :class:`DPLinearRegression`: least squares. It is not Lipschitz, so the ERM theorems
  do not cover it without a bound on w. Two mechanisms handle it: AdaSSP (Wang 2018),
  whose three releases are calibrated jointly as one Gaussian mechanism
  (:mod:`dpcvx.privacy.adassp`), and objective perturbation on the ball ||w|| <= W
  (``mechanism="objective"``, ``weight_bound=W``; KST12 with L = W R + B, docs/theory.md
  section 16). ``mechanism="auto"`` (the default) picks AdaSSP: it had the lower test MSE in
  every configuration of ``benchmarks/regression.py`` (recorded in its results). The
  certificate names the mechanism.
- :class:`DPHuberRegressor`: the Huber loss of the residual (``m`` its threshold;
  L = m, c = 1), through :class:`~dpcvx.models.erm.PrivateERM` with ``task="regression"``.
  It is piecewise C^2, which the Gaussian objective perturbation does not cover.
  ``mechanism="auto"`` therefore uses pure-epsilon objective perturbation whatever delta
  is: epsilon-DP implies (epsilon, delta)-DP, and it needs far less noise than output
  perturbation here. The certificate then states delta = 0.
"""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from . import losses
from .exceptions import InputError
from .models.erm import PrivateERM
from .models.linear_regression import PrivateLinearRegression
from .privacy.accountant import PrivacyAccountant
from .privacy.neighbours import Neighbours
from .privacy.rng import check_estimator_seed
from .release.regression_model import PrivateRegressionModel
from .validation import positive
from .verification.verdict import Mechanism

__all__ = ["DPLinearRegression", "DPHuberRegressor"]

MECHANISMS = ("auto", "adassp", "objective")


class _PrivateRegressor(RegressorMixin, BaseEstimator):
    """Shared validation, fitted attributes and prediction."""

    predicts_per_row = True  # a released linear model predicts each row alone (models.contract)

    def _release(self, X: np.ndarray, y: np.ndarray, seed: int | None,
                 accountant: PrivacyAccountant | None) -> PrivateRegressionModel:
        raise NotImplementedError

    def fit(self, X: Any, y: Any, *, accountant: PrivacyAccountant | None = None) -> _PrivateRegressor:
        """Release an (``epsilon``, ``delta``)-differentially private regression of (X, y)."""
        seed = check_estimator_seed(self.random_state, type(self).__name__)
        try:
            X, y = validate_data(self, X, y, y_numeric=True, reset=True)
        except ValueError as error:
            raise InputError(str(error)) from error
        model = self._release(X, np.asarray(y, dtype=float), seed, accountant)
        self.model_, self.certificate_ = model, model.certificate
        self.coef_, self.intercept_ = model.coef_, model.intercept_
        return self

    def predict(self, X: Any) -> np.ndarray:
        check_is_fitted(self)
        try:
            X = validate_data(self, X, reset=False)
        except ValueError as error:
            raise InputError(str(error)) from error
        return self.model_.predict(X)


class DPLinearRegression(_PrivateRegressor):
    """Private least squares (AdaSSP with a joint Gaussian calibration; module docstring).

    Parameters
    ----------
    epsilon, delta : privacy budget (delta > 0; default 1e-6, keep it well below 1/n).
    lam : extra ridge n lam ||w||^2 / 2 on top of AdaSSP's adaptive ridge (default 0).
    data_norm, label_bound : public bounds R on ||x|| and B on |y| (default 1 and 1).
    fit_intercept : default True (a constant feature inside the norm bound).
    mechanism : "auto" (AdaSSP, the mechanism with the best measured utility dpcvx offers for
        least squares), "adassp", or "objective" (least squares on the ball ||w|| <= weight_bound,
        KST12; replace-one neighbours; ``lam`` is then the ridge of the objective).
    weight_bound : the public radius W of the ball (required by mechanism="objective").
    neighbours : "replace-one" (default) or "add-remove".
    clip : scale rows and labels onto the bounds (True) or refuse them (False).
    random_state : None (fresh OS entropy) or an int seed for experiments.
    """

    def __init__(self, *, epsilon: float = 1.0, delta: float = 1e-6, lam: float = 0.0, data_norm: float = 1.0,
                 label_bound: float = 1.0, fit_intercept: bool = True, mechanism: str = "auto",
                 weight_bound: float | None = None, neighbours: str = "replace-one", clip: bool = True,
                 random_state: Any = None) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.lam = lam
        self.data_norm = data_norm
        self.label_bound = label_bound
        self.fit_intercept = fit_intercept
        self.mechanism = mechanism
        self.weight_bound = weight_bound
        self.neighbours = neighbours
        self.clip = clip
        self.random_state = random_state

    def _release(self, X, y, seed, accountant):
        if self.mechanism not in MECHANISMS:
            raise InputError(f"mechanism must be one of {MECHANISMS}, got {self.mechanism!r}")
        if self.mechanism == Mechanism.OBJECTIVE:
            return self._least_squares_on_a_ball(X, y, seed, accountant)
        learner = PrivateLinearRegression(self.data_norm, self.label_bound, lam=self.lam,
                                          fit_intercept=self.fit_intercept, clip=self.clip)
        return learner.fit(X, y, self.epsilon, self.delta, neighbours=self.neighbours, random_state=seed,
                           accountant=accountant)


    def _least_squares_on_a_ball(self, X, y, seed, accountant):
        if self.weight_bound is None:
            raise InputError("mechanism='objective' needs weight_bound: a PUBLIC radius W, the weights are "
                             "restricted to ||w|| <= W (never read off the data)")
        if Neighbours.parse(self.neighbours) is not Neighbours.REPLACE_ONE:
            raise InputError("mechanism='objective' is offered under replace-one neighbours here; use "
                             "mechanism='adassp' for add-remove")
        radius = positive("weight_bound", self.weight_bound)
        if not self.lam > 0:
            raise InputError(f"mechanism='objective' needs lam > 0, the ridge of the objective, got lam={self.lam!r}")
        learner = PrivateERM(loss=losses.squared_error(), task="regression", label_bound=self.label_bound,
                             lam=self.lam, data_norm=self.data_norm, fit_intercept=self.fit_intercept,
                             clip=self.clip, constraints=lambda w: [cp.norm(w, 2) <= radius])
        model = learner.fit(X, y, self.epsilon, "objective", delta=self.delta, random_state=seed,
                            accountant=accountant)
        assert isinstance(model, PrivateRegressionModel)
        return model


class DPHuberRegressor(_PrivateRegressor):
    """Private Huber regression: the Huber loss of the residual with threshold ``m`` (module docstring).

    Parameters as :class:`DPLinearRegression`, plus ``m`` (default 1.0), ``lam`` (the L2
    regularization weight, default 1e-3) and ``mechanism`` ("auto": pure-epsilon objective
    perturbation, a stronger guarantee than any delta > 0; or "objective", "output").
    """

    def __init__(self, *, epsilon: float = 1.0, delta: float = 0.0, m: float = 1.0, lam: float = 1e-3,
                 data_norm: float = 1.0, label_bound: float = 1.0, fit_intercept: bool = True,
                 mechanism: str = "auto", clip: bool = True, random_state: Any = None) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.m = m
        self.lam = lam
        self.data_norm = data_norm
        self.label_bound = label_bound
        self.fit_intercept = fit_intercept
        self.mechanism = mechanism
        self.clip = clip
        self.random_state = random_state

    def _release(self, X, y, seed, accountant):
        mechanism, delta = self.mechanism, self.delta
        if mechanism == "auto":  # pure epsilon: (epsilon, 0) implies (epsilon, delta) (module docstring)
            mechanism, delta = "objective", 0.0
        learner = PrivateERM(loss=losses.huber_regression(self.m), task="regression", label_bound=self.label_bound,
                             lam=self.lam, data_norm=self.data_norm, fit_intercept=self.fit_intercept,
                             clip=self.clip)
        model = learner.fit(X, y, self.epsilon, mechanism, delta=delta, random_state=seed,
                            accountant=accountant)
        assert isinstance(model, PrivateRegressionModel)
        return model
