"""AdaSSP's floating-point status: MITIGATION_ONLY, named in its certificate and re-checked by the loader.

AdaSSP adds double Gaussian noise to three statistics of the data (lambda_min(X^T X), X^T X, X^T y).
The support attack in the manner of Mironov (tests/privacy/support_attack.py) is run on the noisy
X^T y of two neighbouring data sets: the raw noisy doubles (the old AdaSSP) fall to it; rounded to
the release grid 2^-30 of sigma (AdaSSP today, as the linear releases' mitigation) the same attack
finds nothing. That is a mitigation, not a proof, so the certificate says "mitigation-only".
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from support_attack import GAUSSIAN_BRANCHES, inverse_gaussian, raw_attack

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.models.linear_regression import PrivateLinearRegression
from dpcvx.privacy.adassp import adassp_calibration

N, D = 200, 2


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(8)
    X = rng.uniform(-1, 1, (N, D)) / np.sqrt(2)
    return X, np.clip(X @ np.array([0.5, -0.4]) + 0.1 * rng.normal(size=N), -1, 1)


def test_noisy_statistics_fall_to_the_attack_raw_but_not_on_the_release_grid(data):
    X, y = data
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = X[1], -y[1]
    secret, other = X.T @ y, X2.T @ y2
    calibration = adassp_calibration(1.0, 1e-6, dim=D, data_norm=1.0, label_bound=1.0)
    sigma, grid = calibration.sigmas[2], calibration.release_grids[2]
    assert np.linalg.norm(secret - other) <= calibration.sensitivities[2]
    noise = lambda k: inverse_gaussian(k, sigma)  # noqa: E731 - the double Gaussian by inversion
    assert raw_attack(secret, other, noise, GAUSSIAN_BRANCHES, releases=60) >= 18  # delta >= 0.3
    assert raw_attack(secret, other, noise, GAUSSIAN_BRANCHES, releases=60, grid=grid) == 0
    assert grid <= sigma * 2.0**-29


def test_the_certificate_names_mitigation_only_and_the_loader_rechecks_it(data, tmp_path):
    X, y = data
    model = PrivateLinearRegression(1.0, 1.0).fit(X, y, 1.0, 1e-6, random_state=0)
    calibration = model.certificate.calibration.to_dict()
    assert calibration["float_guarantee"] == "mitigation-only"
    assert "floating point: mitigation only" in str(model.certificate)
    path = dpcvx.save(model, tmp_path / "release.json")
    assert dpcvx.load(path).certificate.calibration == model.certificate.calibration
    assert dpcvx.load(path).certificate.calibration.to_dict() == calibration
    for key, value in (("float_guarantee", "exact"), ("release_grids", [g * 2 for g in calibration["release_grids"]])):
        edited = json.loads(path.read_text())
        edited["certificate"]["calibration"][key] = value
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        with pytest.raises(InputError, match="calibration"):
            dpcvx.load(tmp_path / "edited.json")
