"""AdaSSP's public rule for the constant feature's scale (docs/theory.md, section 16)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.privacy.adassp import INTERCEPT_KEPT, adassp_calibration, adassp_intercept_scaling


def _ridge(epsilon: float, delta: float, dim: int, norm: float) -> float:
    return adassp_calibration(epsilon, delta, dim=dim, data_norm=norm, label_bound=1.0).ridge_bound


@pytest.mark.parametrize(("n", "norm"), [(5_000, 1.0), (40_000, 1.0), (3_000, 0.5), (20_000, 2.0)])
def test_the_intercept_keeps_exactly_its_share_at_the_returned_scale(n: int, norm: float) -> None:
    s = adassp_intercept_scaling(1.0, 1e-6, dim=10, data_norm=norm, n=n)
    assert 0 < s < 1
    ridge = _ridge(1.0, 1e-6, 10, math.hypot(norm, s))  # the calibration the fit runs at R_eff(s)
    kept = n * s * s / (n * s * s + ridge)
    assert kept == pytest.approx(INTERCEPT_KEPT, rel=1e-6)  # equality up to the sigmas' upward rounding
    smaller = 0.99 * s  # any smaller scale keeps less than the share
    assert n * smaller**2 / (n * smaller**2 + _ridge(1.0, 1e-6, 10, math.hypot(norm, smaller))) < INTERCEPT_KEPT


def test_the_former_constant_when_no_scale_up_to_one_reaches_the_share() -> None:
    assert adassp_intercept_scaling(1.0, 1e-6, dim=10, data_norm=1.0, n=300) == 1.0
    ridge_at_one = _ridge(1.0, 1e-6, 10, 1.0)  # the threshold n = 9 r (1 + R^2), r the ridge at R_eff = 1
    threshold = 9 * ridge_at_one * 2
    assert adassp_intercept_scaling(1.0, 1e-6, dim=10, data_norm=1.0, n=math.floor(threshold)) == 1.0
    assert adassp_intercept_scaling(1.0, 1e-6, dim=10, data_norm=1.0, n=math.ceil(threshold) + 1) < 1.0


def test_bad_public_inputs_are_refused() -> None:
    with pytest.raises(InputError):
        adassp_intercept_scaling(1.0, 1e-6, dim=10, data_norm=1.0, n=0)
    with pytest.raises(InputError):
        adassp_intercept_scaling(-1.0, 1e-6, dim=10, data_norm=1.0, n=100)


def _fit(neighbours: str, n: int, column_statistics: bool | str = "auto") -> dpcvx.DPLinearRegression:
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.3, 0.3, size=(n, 3))
    y = X @ np.array([1.0, -1.0, 0.5]) + 0.1 * rng.standard_normal(n)
    return dpcvx.DPLinearRegression(epsilon=1.0, neighbours=neighbours, random_state=0, mechanism="adassp",
                                    column_statistics=column_statistics,
                                    n_public=n if neighbours == "add-remove" else None).fit(X, y)


def test_the_estimator_fits_at_the_rule_and_the_certificate_records_it() -> None:
    # the default ("auto") searches private ranges here, True draws column statistics: larger unit sigmas
    for statistics, rule in (("auto", {"range_columns": 4}), (True, {"column_statistics": True}), (False, {})):
        model = _fit("replace-one", 20_000, statistics)
        expected = adassp_intercept_scaling(1.0, 1e-6, dim=4, data_norm=1.0, n=20_000, **rule)
        assert expected < 1.0
        assert model.certificate_.intercept_scaling == expected
        assert model.certificate_.effective_norm_bound == pytest.approx(math.hypot(1.0, expected))
    assert expected < adassp_intercept_scaling(1.0, 1e-6, dim=4, data_norm=1.0, n=20_000, column_statistics=True) \
        < adassp_intercept_scaling(1.0, 1e-6, dim=4, data_norm=1.0, n=20_000, range_columns=4)


def test_add_remove_keeps_the_former_constant() -> None:
    assert _fit("add-remove", 20_000).certificate_.intercept_scaling == 1.0
