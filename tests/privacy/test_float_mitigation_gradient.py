"""Noisy gradient descent's floating-point status (``gradient-ranged``, ``DPLinearRegression()``'s default):
MITIGATION_ONLY, named in its certificate and re-checked by the loader.

The descent adds double Gaussian noise to three kinds of value (dpcvx/privacy/gradient_descent.py): the top
eigenvalue lambda_max(Z^T Z), each step's gradient Z^T clip(Z v - y', +-tau) and, with an intercept, the label's level
sum_i (y'_i - clip(z_i . w, +-B')); the weights it releases are computed from those noisy values only. The support
attack in the manner of Mironov (tests/privacy/support_attack.py) is run on each of the three on two neighbouring
data sets (row 0 replaced): the raw noisy doubles fall to it; rounded to the grid 2^-30 of their sigma that the
calibration states (``release_grids``, ``level_grid``) the same attack finds nothing. The mechanism is checked to
round every noisy value to exactly that grid (and the check to fail on a mechanism that does not round). That is a
mitigation, not a proof, so the certificate says "mitigation-only". The range search that precedes the descent is
tested in tests/privacy/test_float_mitigation_column_ranges.py.

Seeded: the attack's releases come from ``raw_attack``'s seed 11 (60 releases each; raw: 31, 50 and 49 of 60 cannot
occur under the neighbour here, the bound 18 is delta >= 0.3 against the claimed delta = 1e-6).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from support_attack import GAUSSIAN_BRANCHES, inverse_gaussian, on_lattice, raw_attack

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.privacy import gradient_descent
from dpcvx.privacy.gradient_descent import GradientCalibration, gradient_calibration
from dpcvx.sklearn import DPLinearRegression

N, D = 200, 2
RELEASES = ("eigenvalue", "gradient", "level")


@pytest.fixture(scope="module")
def neighbours():
    """Two data sets differing in row 0 (rows inside ||z|| <= 1, labels inside [-1, 1])."""
    rng = np.random.default_rng(8)
    Z = rng.uniform(-1, 1, (N, D)) / np.sqrt(2)
    y = np.clip(Z @ np.array([0.5, -0.4]) + 0.1 * rng.normal(size=N), -1, 1)
    Z2, y2 = Z.copy(), y.copy()
    Z2[0], y2[0] = Z[1], -y[1]
    return (Z, y), (Z2, y2)


@pytest.fixture(scope="module")
def calibration():
    return gradient_calibration(1.0, 1e-6, dim=D, data_norm=1.0, label_bound=1.0, range_columns=D + 1, level=True)


def secret(release: str, Z: np.ndarray, y: np.ndarray, calibration: GradientCalibration) -> np.ndarray:
    """The value the descent adds noise to: the top eigenvalue, the first step's gradient (v = 0) or the level at
    w = 0 (each a function of the data, as in dpcvx.models.linear_regression._descend)."""
    if release == "eigenvalue":
        return np.array([np.linalg.eigvalsh(Z.T @ Z)[-1]])
    if release == "gradient":
        tau = calibration.residual_clip
        return Z.T @ np.clip(-y, -tau, tau)
    return np.array([np.sum(y)])  # sum_i (y_i - clip(z_i . w, +-B')) at w = 0


def sigma_grid_sensitivity(release: str, calibration: GradientCalibration) -> tuple[float, float, float]:
    """(sigma, the stated grid, the sensitivity) of a release, from the calibration and its record."""
    record = calibration.to_dict()
    if release == "level":
        return calibration.level_sigma, record["level_grid"], calibration.level_sensitivity
    i = RELEASES.index(release)
    return calibration.sigmas[i], calibration.release_grids[i], calibration.sensitivities[i]


@pytest.mark.parametrize("release", RELEASES)
def test_each_noisy_value_falls_to_the_attack_raw_but_not_on_its_stated_grid(neighbours, calibration, release):
    (Z, y), (Z2, y2) = neighbours
    value, other = secret(release, Z, y, calibration), secret(release, Z2, y2, calibration)
    sigma, grid, sensitivity = sigma_grid_sensitivity(release, calibration)
    assert 0 < np.linalg.norm(value - other) <= sensitivity
    assert grid <= sigma * 2.0**-29  # 2^-30 of sigma, to the power of two above
    noise = lambda k: inverse_gaussian(k, sigma)  # noqa: E731 - the double Gaussian by inversion
    assert raw_attack(value, other, noise, GAUSSIAN_BRANCHES, releases=60) >= 18  # delta >= 0.3
    assert raw_attack(value, other, noise, GAUSSIAN_BRANCHES, releases=60, grid=grid) == 0


def drawn_on_grid(calibration: GradientCalibration, value: np.ndarray, release: str, seed: int) -> bool:
    """Whether the mechanism's noisy ``release`` of ``value`` is value + sigma N(0, 1) (the same draw) rounded to
    the stated grid: on the grid, and within half a cell of the raw sum."""
    sigma, grid, _ = sigma_grid_sensitivity(release, calibration)
    draw = {"eigenvalue": lambda rng: calibration.release_eigenvalue(float(value[0]), rng),
            "gradient": lambda rng: calibration.release_gradient(value, rng),
            "level": lambda rng: calibration.release_level(float(value[0]), rng)}[release]
    released = np.atleast_1d(draw(np.random.default_rng(seed)))
    raw = value + sigma * np.random.default_rng(seed).standard_normal(value.shape)
    return all(on_lattice(float(v), grid) for v in released) and bool(np.all(np.abs(released - raw) <= grid / 2))


@pytest.mark.parametrize("release", RELEASES)
def test_the_mechanism_rounds_each_noisy_value_to_the_grid_the_attack_assumes(neighbours, calibration, release,
                                                                           monkeypatch):
    (Z, y), _ = neighbours
    value = secret(release, Z, y, calibration)
    assert all(drawn_on_grid(calibration, value, release, seed) for seed in range(20))
    # the check fails on a mechanism that releases the raw doubles (its grid taken off)
    monkeypatch.setattr(gradient_descent, "round_to_grid", lambda values, scale: (np.asarray(values), scale))
    assert not any(drawn_on_grid(calibration, value, release, seed) for seed in range(20))


def test_the_certificate_names_mitigation_only_and_states_the_grids_and_the_loader_rechecks_them(tmp_path):
    rng = np.random.default_rng(5)
    n = 2000
    X = rng.uniform(-1, 1, (n, D)) / np.sqrt(2)
    y = np.clip(X @ np.array([0.5, -0.4]) + 0.1 * rng.normal(size=n), -1, 1)
    model = DPLinearRegression(epsilon=1.0, delta=1e-6, data_norm=1.0, label_bound=1.0, random_state=0).fit(X, y)
    calibration = model.certificate_.calibration
    record = calibration.to_dict()
    assert isinstance(calibration, GradientCalibration) and record["mechanism"] == "gradient-ranged"  # the default
    assert record["float_guarantee"] == "mitigation-only"
    assert "floating point: mitigation only" in str(model.certificate_)
    assert record["release_grids"] == list(calibration.release_grids)  # the grids the tests above attack
    assert record["level_grid"] == sigma_grid_sensitivity("level", calibration)[1]
    path = dpcvx.save(model, tmp_path / "release.json")
    assert dpcvx.load(path).certificate.calibration.to_dict() == record
    for key, value in (("float_guarantee", "exact"), ("release_grids", [g * 2 for g in record["release_grids"]]),
                       ("level_grid", record["level_grid"] / 2)):
        edited = json.loads(path.read_text())
        edited["certificate"]["calibration"][key] = value
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        with pytest.raises(InputError, match="calibration"):
            dpcvx.load(tmp_path / "edited.json")
