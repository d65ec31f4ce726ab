"""The Gaussian calibrations at small epsilon against 60-digit arithmetic: the computed profiles do not cancel
(docs/theory.md, section 9), so every sigma is at least the exact least valid one, down to epsilon = 1e-12."""

from __future__ import annotations

import warnings

import mpmath as mp
import numpy as np
import pytest

import dpcvx
from dpcvx.privacy.gaussian import analytic_gaussian_sigma, gaussian_delta
from dpcvx.privacy.neighbours import Neighbours
from dpcvx.privacy.objective_gaussian import _disk_bound, _folded, jacobian_epsilon, objective_gaussian_sigma

mp.mp.dps = 60


def _exact_delta(sigma: float, shift: float, epsilon: float) -> mp.mpf:
    """Balle and Wang's G_S(epsilon) in 60 digits."""
    sigma, shift, epsilon = mp.mpf(sigma), mp.mpf(shift), mp.mpf(epsilon)
    return (mp.ncdf(shift / (2 * sigma) - epsilon * sigma / shift)
            - mp.exp(epsilon) * mp.ncdf(-shift / (2 * sigma) - epsilon * sigma / shift))


def _exact_folded(sigma: float, shift: float, epsilon: float) -> mp.mpf:
    if epsilon >= shift * shift / (2 * sigma * sigma):
        return 2 * _exact_delta(sigma, shift, epsilon)
    return 1 - 2 * mp.exp(epsilon) * mp.ncdf(-mp.mpf(shift) / sigma)


def _exact_disk(shift: float, sigma: float, epsilon: float) -> mp.mpf:
    shift, sigma, epsilon = mp.mpf(shift), mp.mpf(sigma), mp.mpf(epsilon)
    r0 = max(sigma ** 2 * epsilon / shift - shift / 2, 0)
    far = r0 + shift
    return (mp.exp(-r0 ** 2 / (2 * sigma ** 2)) - mp.exp(epsilon - far ** 2 / (2 * sigma ** 2))
            + (shift / sigma) * mp.sqrt(2 * mp.pi) * mp.exp(epsilon) * mp.ncdf(-far / sigma))


# (epsilon, delta): the auditor's cases (1e-5, 1e-10) and (2e-8, 2e-17), the least epsilon, delta down to 1e-300
_CASES = [(1e-5, 1e-10), (2e-8, 2e-17), (1e-12, 1e-6), (1e-9, 1e-300), (1e-3, 0.3), (0.5, 1e-12), (20.0, 1e-6)]


@pytest.mark.parametrize(("epsilon", "delta"), _CASES)
def test_the_analytic_gaussian_sigma_meets_delta_exactly(epsilon: float, delta: float) -> None:
    # before, Phi(a - b) - e^eps Phi(-a - b) cancelled: at (2e-8, 2e-17) the sigma met only delta (1 + 7.9e-6), and
    # at epsilon 1e-12 the bisection's window reached 1 and divided by zero
    for sensitivity in (1.0, 3e-4):
        sigma = analytic_gaussian_sigma(sensitivity, epsilon, delta)
        assert _exact_delta(sigma, sensitivity, epsilon) <= delta
        assert _exact_delta(sigma / (1 + 3e-12), sensitivity, epsilon) > delta  # and is tight


@pytest.mark.parametrize(("epsilon", "delta"), _CASES)
def test_the_profiles_are_computed_to_a_relative_1e_12(epsilon: float, delta: float) -> None:
    # at the boundary sigma, where a calibration decides; before, the relative error reached 1e2 (epsilon 1e-12)
    sigma = float(mp.mpf(analytic_gaussian_sigma(1.0, epsilon, delta)))
    for shift in (1.0, 2.0, 2 ** 0.5):
        exact = _exact_delta(sigma, shift, epsilon)
        assert abs(gaussian_delta(sigma, shift, epsilon) / exact - 1) < 1e-12
        exact = _exact_folded(sigma, shift, epsilon)
        assert abs(_folded(sigma, shift, epsilon) / exact - 1) < 1e-12
        exact = _exact_disk(shift, sigma, epsilon)
        assert abs(_disk_bound(shift, sigma, epsilon) / exact - 1) < 1e-12


@pytest.mark.parametrize("neighbours", list(Neighbours))
@pytest.mark.parametrize("monotone", [False, True])
def test_the_objective_sigma_meets_delta_where_eps_minus_e0_is_tiny(neighbours: Neighbours, monotone: bool) -> None:
    # eps - e0 = 1e-10 (the Jacobian term e0 takes almost all of epsilon), e0 the double the calibration uses;
    # before, the sigmas met delta only to a relative 1e-4
    epsilon, delta, n, c, r = 1e-3, 1e-9, 100, 0.25, 1.0
    lam_m = float(c * r * r / (n * mp.expm1(mp.mpf(epsilon) - mp.mpf(1e-10))))
    e0 = mp.mpf(jacobian_epsilon(n, c, r, lam_m))
    sigma = objective_gaussian_sigma(epsilon, delta, n=n, lipschitz=1.0, smoothness=c, norm_bound=r, lam_m=lam_m,
                                     neighbours=neighbours, monotone_loss=monotone)
    eps = mp.mpf(epsilon) - e0
    assert 0 < eps < 2e-10
    if neighbours is Neighbours.ADD_REMOVE:
        exact = _exact_delta(sigma, 1.0, eps) if monotone else _exact_folded(sigma, 1.0, eps)
    else:
        union = (_exact_delta(sigma, 2.0, eps) + 2 * _exact_delta(sigma, 1.0, eps) if monotone
                 else _exact_folded(sigma, 2.0, eps) + _exact_folded(sigma, 2 ** 0.5, eps))
        exact = min(union, _exact_disk(2.0, sigma, eps))
    assert exact <= delta


def test_the_least_epsilon_fits_with_gaussian_noise() -> None:
    # epsilon = 1e-12, the least accepted: a ZeroDivisionError before, in output perturbation and in AdaSSP
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (30, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        model = dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(X, y, 1e-12, "output", delta=1e-6, random_state=0)
        regression = dpcvx.DPLinearRegression(epsilon=1e-12, delta=1e-6, data_norm=1.0, label_bound=1.0,
                                              mechanism="adassp", random_state=0).fit(X, X[:, 0])
    assert np.all(np.isfinite(model.coef_)) and np.all(np.isfinite(regression.coef_))
    sigma = analytic_gaussian_sigma(1.0, 1e-12, 1e-10)
    assert _exact_delta(sigma, 1.0, 1e-12) <= 1e-10
