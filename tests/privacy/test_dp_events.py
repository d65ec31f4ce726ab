"""PrivacyCurve.to_dp_events: a dpcvx curve handed to dp-accounting composes as dpcvx composes it."""

import sys

import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import InputError
from dpcvx.privacy.privacy_curve import CurvePart, PrivacyCurve, compose_epsilon

dp_accounting = pytest.importorskip("dp_accounting")
from dp_accounting.pld import PLDAccountant  # noqa: E402
from dp_accounting.rdp import RdpAccountant  # noqa: E402


@pytest.fixture(scope="module")
def gaussian_release():
    X, y = synthetic_classification(n=800, d=3, random_state=7)
    return dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(X, y, epsilon=0.5, delta=1e-6, mechanism="output",
                                                         random_state=0)


def _epsilon(accountant, event, count: int, delta: float) -> float:
    accountant.compose(event, count)
    return accountant.get_epsilon(delta)


@pytest.mark.parametrize("count", [1, 4, 25])
def test_a_gaussian_release_composes_in_dp_accounting_as_in_dpcvx(gaussian_release, count):
    curve = gaussian_release.certificate.privacy_curve
    event = curve.to_dp_events()
    assert event == dp_accounting.ComposedDpEvent([dp_accounting.GaussianDpEvent(curve.parts[0].noise_multiplier)])
    ours = compose_epsilon([curve] * count, 1e-5, method="pld")
    theirs = _epsilon(PLDAccountant(), event, count, 1e-5)
    assert theirs == pytest.approx(ours, rel=2e-3)  # both pessimistic PLDs; grids differ
    assert _epsilon(RdpAccountant(), event, count, 1e-5) == pytest.approx(
        compose_epsilon([curve] * count, 1e-5, method="rdp"), rel=0.03)  # Renyi orders differ
    if count == 1:  # one release: its certified epsilon at its delta (analytic Gaussian: exact)
        assert _epsilon(PLDAccountant(), event, 1, 1e-6) == pytest.approx(0.5, rel=2e-3)


def test_pure_parts_become_zcdp_events_and_compose_as_in_dpcvx():
    pure = PrivacyCurve((CurvePart("epsilon-delta", "a pure release", epsilon=0.05),))
    event = pure.to_dp_events()
    assert event == dp_accounting.ComposedDpEvent([dp_accounting.ZCDpEvent(0.05**2 / 2)])
    theirs = _epsilon(RdpAccountant(), event, 400, 1e-6)
    ours = compose_epsilon([pure] * 400, 1e-6, method="rdp")
    # the same Renyi curve alpha e^2 / 2 at these orders (dpcvx's min(e, .) does not bind), on other order grids
    assert theirs == pytest.approx(ours, rel=0.01)
    assert theirs < 400 * 0.05  # far below basic composition at 400 releases


def test_mixed_curve_composes_part_by_part():
    mixed = PrivacyCurve((CurvePart("epsilon-delta", "pure", epsilon=0.1), CurvePart.gaussian(3.0, 1.0, "g")))
    theirs = _epsilon(RdpAccountant(), mixed.to_dp_events(), 10, 1e-6)
    assert theirs == pytest.approx(compose_epsilon([mixed] * 10, 1e-6, method="rdp"), rel=0.05)


def test_an_approximate_part_is_refused_with_the_fix():
    approximate = PrivacyCurve((CurvePart("epsilon-delta", "objective share", epsilon=0.4, delta=1e-7),))
    with pytest.raises(InputError, match="no dp-accounting event represents.*compose_epsilon"):
        approximate.to_dp_events()
    assert PrivacyCurve(()).to_dp_events() == dp_accounting.NoOpDpEvent()


def test_without_dp_accounting_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dp_accounting", None)
    curve = PrivacyCurve((CurvePart.gaussian(2.0, 1.0, "g"),))
    with pytest.raises(ImportError, match=r"dpcvx\[accounting\]"):
        curve.to_dp_events()
    assert np.isfinite(curve.epsilon(1e-6))  # dpcvx's own composition still works
