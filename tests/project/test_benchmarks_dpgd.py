"""The RDP accountant of the DP-GD baseline in benchmarks/dpgd.py (the benchmark itself never runs in CI)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import dpgd  # noqa: E402
from dpcvx.privacy.gaussian import analytic_gaussian_sigma, gaussian_delta  # noqa: E402


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("delta", [1e-5, 1e-9])
def test_one_step_is_close_to_the_analytic_gaussian(epsilon, delta):
    # T = 1: RDP may only be looser than the exact (analytic) Gaussian, and not by much
    z_rdp = dpgd.noise_multiplier(epsilon, delta, steps=1)
    z_exact = analytic_gaussian_sigma(1.0, epsilon, delta)
    assert z_exact <= z_rdp <= 1.15 * z_exact  # measured: 5-11 % above at these (epsilon, delta)
    # the RDP noise level is (epsilon, delta)-DP by the exact criterion too
    assert gaussian_delta(z_rdp, 1.0, epsilon) <= delta


def test_composed_epsilon_grows_with_steps_and_shrinks_with_noise():
    values = [dpgd.rdp_epsilon(50.0, steps, 1e-8) for steps in (1, 10, 100, 300)]
    assert np.all(np.diff(values) > 0)
    assert dpgd.rdp_epsilon(100.0, 300, 1e-8) < dpgd.rdp_epsilon(50.0, 300, 1e-8)


def test_noise_multiplier_meets_the_target_tightly():
    z = dpgd.noise_multiplier(0.1, 1e-9, 300)
    assert dpgd.rdp_epsilon(z, 300, 1e-9) <= 0.1
    assert dpgd.rdp_epsilon(z * (1 - 1e-6), 300, 1e-9) > 0.1 * (1 - 1e-4)
    # T Gaussian steps with noise z compose like one step with noise z / sqrt(T)
    assert dpgd.rdp_epsilon(z, 300, 1e-9) == pytest.approx(dpgd.rdp_epsilon(z / np.sqrt(300), 1, 1e-9), rel=1e-6)


def test_dpgd_without_noise_approaches_the_minimiser():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ np.array([1.0, -1.0, 0.5, 0.0, 0.2]) + 0.1 * rng.normal(size=400) > 0, 1.0, -1.0)
    w, info = dpgd.dpgd(X, y, 0.01, epsilon=None, delta=1e-6, steps=2000, step_size=2.0, rng=None)
    margins = y * (X @ w)
    grad = -(X * y[:, None]).T @ (1 / (1 + np.exp(margins))) / len(y) + 0.01 * w
    assert np.linalg.norm(grad) < 1e-4
    assert info["noise_std"] == 0.0


def test_dpgd_refuses_rows_above_the_norm_bound():
    with pytest.raises(ValueError, match="norm bound"):
        dpgd.dpgd(np.full((3, 2), 2.0), np.ones(3), 0.1, epsilon=1.0, delta=1e-6, steps=1, step_size=1.0,
                  rng=np.random.default_rng(0))
