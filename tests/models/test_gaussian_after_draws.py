"""A fit of the analytic Gaussian output perturbation after private draws (the column ranges of the estimators'
default, a private class count, a private bound) is charged and certified as the Gaussian of multiplier
z(eps_fit, delta): the release's sigma is z Delta rounded up whatever Delta the drawn values give. Before, it was
an (eps_fit, delta) pair, so a ledger of ten default releases at delta 1e-5 spent epsilon 10 where their Gaussians
compose to about 3.1 (docs/accounting.md had promised Gaussian releases compose exactly). The ledger's charge (made
before the draws, from public options) and the certificate's curve (from the calibration) are the same curve."""


import numpy as np
import pytest

import dpcvx
from dpcvx.privacy.gaussian import analytic_gaussian_multiplier


def _data(n: int = 4000, seed: int = 0, rate: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, (n, 4))
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > np.quantile(X[:, 0], 1 - rate)).astype(int)


SETTINGS = {
    "column ranges (default)": dict(),
    "private class count": dict(column_statistics=False, class_weight="balanced"),
    "private bound": dict(column_statistics=False, data_norm="private", norm_range=(0.1, 10.0)),
}


@pytest.mark.parametrize("name", list(SETTINGS))
@pytest.mark.parametrize("mechanism, delta, float_safe, gaussian", [
    ("output", 1e-6, False, True), ("output", 1e-6, True, False), ("objective", 1e-6, False, False),
    ("output", 0.0, False, False)])
def test_the_ledger_charges_the_curve_the_certificate_states(name, mechanism, delta, float_safe, gaussian):
    if float_safe and "count" in name:
        pytest.skip("float_safe=True takes unit weights only (refused before any charge)")
    X, y = _data(rate=0.2 if "count" in name else 0.5)
    accountant = dpcvx.PrivacyAccountant(10.0, 1e-3)
    model = dpcvx.DPLogisticRegression(epsilon=1.0, delta=delta, mechanism=mechanism, float_safe=float_safe,
                                       accountant=accountant, random_state=0, **SETTINGS[name]).fit(X, y)
    curve = model.model_.certificate.privacy_curve
    assert len(curve.parts) == 2 and accountant.ledger[0].curve == curve
    fit = curve.parts[-1]
    if gaussian:
        eps_fit = 1.0 - curve.parts[0].epsilon
        assert fit.kind == "gaussian" and fit.noise_multiplier == analytic_gaussian_multiplier(eps_fit, delta)
    else:
        assert fit.kind == "epsilon-delta"


def test_ten_default_gaussian_releases_compose_as_gaussians():
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(100.0, 1e-4)
    for seed in range(10):
        dpcvx.DPLogisticRegression(epsilon=1.0, delta=1e-6, mechanism="output", accountant=accountant,
                                   random_state=seed).fit(X, y)
    assert accountant.spent.epsilon < 3.5  # 10.0 when each fit after its ranges was an (eps_fit, delta) pair
