"""At delta > 0 the pure-epsilon objective perturbation competes with the Gaussian calibrations (docs/theory.md,
section 12.5): pure epsilon-DP implies (epsilon, delta)-DP, and at low d its noise is the smaller one (probeR F2,
session 62: on a ball at d = 12 the KST12 Gaussian release erred +.028 to +.088 more than the pure one)."""

from __future__ import annotations

import math
import warnings

import cvxpy as cp
import numpy as np
import pytest

from dpcvx import PrivacyAccountant, PrivateERM, losses
from dpcvx.privacy.calibrate import ObjectivePerturbation
from dpcvx.privacy.calibrate_gaussian import GaussianObjectivePerturbation

N, D = 8000, 11
DELTA = 1.0 / N**2


def _data(seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ rng.normal(size=D) + 0.5 * rng.logistic(size=N) > 0, 1, -1)
    return X, y


def _ball(lam: float | str = 1e-3, radius: float = 4.0) -> PrivateERM:
    return PrivateERM(loss=losses.logistic(), lam=lam, data_norm=1.0,
                      constraints=lambda w: [cp.norm(w, 2) <= radius])


def _fit(learner: PrivateERM, X: np.ndarray, y: np.ndarray, eps: float, delta: float = DELTA,
         accountant: PrivacyAccountant | None = None):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return learner.fit(X, y, eps, delta=delta, random_state=5, accountant=accountant)


@pytest.mark.parametrize("eps", [0.3, 0.5])
def test_low_d_ball_chooses_the_smaller_noise_calibration(eps: float) -> None:
    """A ball at d = 11 (plus the intercept) and delta = 1/n^2: the pure calibration, whose noise norm d / beta is
    below the KST12 Gaussian's sigma sqrt(d), is the one released; it states and charges (epsilon, 0)."""
    X, y = _data()
    accountant = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    model = _fit(_ball(), X, y, eps, accountant=accountant)
    calibration = model.certificate.calibration
    assert isinstance(calibration, ObjectivePerturbation)
    gaussian = _fit(_ball(), X, y, eps, delta=DELTA)  # the same fit: the choice is a function of public inputs
    assert gaussian.certificate.calibration.to_dict() == calibration.to_dict()
    # the Gaussian candidate of the same problem has the larger noise
    d = model.certificate.constants["d"]
    from dpcvx.privacy.calibrate_gaussian import gaussian_objective_perturbation
    candidate = gaussian_objective_perturbation(N, 1e-3, eps, DELTA, calibration.c, L=calibration.L, R=calibration.R,
                                                m=calibration.m, tol=calibration.tol, dim=d,
                                                smooth_unconstrained=False, weight_norm=4.0)
    assert d / calibration.beta < candidate.sigma * math.sqrt(d)
    # the release states the guarantee it has: pure epsilon under KST12's Theorem 1, charged (epsilon, 0)
    assert model.certificate.delta == 0.0
    assert "Kifer, Smith and Thakurta" in model.certificate.guarantee
    assert "Theorem 1" in model.certificate.guarantee and "Gaussian" not in model.certificate.guarantee
    assert accountant.spent.epsilon == pytest.approx(eps) and accountant.spent.delta == 0.0


def test_the_choice_is_the_same_on_neighbouring_data_sets() -> None:
    """Replacing one record (a row of norm R with the other label) never changes which calibration is used, nor
    any of its numbers: the choice reads public inputs only."""
    X, y = _data()
    X2, y2 = X.copy(), y.copy()
    X2[0] = np.eye(D)[0]
    y2[0] = -y2[0]
    for eps, lam in ((0.3, 1e-3), (0.1, "auto"), (1.0, 1e-2)):
        first = _fit(_ball(lam), X, y, eps).certificate
        second = _fit(_ball(lam), X2, y2, eps).certificate
        assert type(first.calibration) is type(second.calibration)
        if eps < 1.0:  # low d, small epsilon: the pure calibration on both
            assert isinstance(first.calibration, ObjectivePerturbation)
        assert first.calibration.to_dict() == second.calibration.to_dict()
        assert (first.delta, first.guarantee) == (second.delta, second.guarantee)


def test_unconstrained_auto_lam_at_small_epsilon_lets_the_pure_calibration_compete() -> None:
    """The smooth unconstrained path (RKW profile and KST12 as the Gaussian candidates) at eps 0.1 with
    lam="auto": the pure calibration wins at d = 11, under JMLR 2011's Theorem 2."""
    X, y = _data()
    model = _fit(PrivateERM(loss=losses.logistic(), lam="auto", data_norm=1.0), X, y, 0.1)
    assert isinstance(model.certificate.calibration, ObjectivePerturbation)
    assert model.certificate.delta == 0.0
    assert "Theorem 2" in model.certificate.guarantee and "JMLR" in model.certificate.guarantee


def test_high_d_keeps_the_gaussian_calibration() -> None:
    """At d = 300 the Gaussian's noise norm (about sigma sqrt(d)) is below the pure one's (about 2 d / eps): the
    Gaussian calibration is still released, stated and charged at (epsilon, delta)."""
    rng = np.random.default_rng(4)
    n, d = 20_000, 300
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1)[:, None]
    y = np.where(X[:, 0] > 0, 1, -1)
    accountant = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = PrivateERM(loss=losses.logistic(), lam=1e-3, data_norm=1.0).fit(
            X, y, 1.0, delta=1.0 / n**2, random_state=1, accountant=accountant)
    assert isinstance(model.certificate.calibration, GaussianObjectivePerturbation)
    assert model.certificate.delta == pytest.approx(1.0 / n**2)
    assert accountant.spent.delta == pytest.approx(1.0 / n**2)
