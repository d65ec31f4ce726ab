"""PrivacyCurve.to_dp_events: a dpcvx curve handed to dp-accounting composes as dpcvx composes it."""

import math
import sys

import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import InputError
from dpcvx.privacy.privacy_curve import Composition, CurvePart, PrivacyCurve, compose_epsilon

dp_accounting = pytest.importorskip("dp_accounting")
from dp_accounting.pld import PLDAccountant  # noqa: E402
from dp_accounting.rdp import RdpAccountant  # noqa: E402

REPLACE_ONE = dp_accounting.NeighboringRelation.REPLACE_ONE


@pytest.fixture(scope="module")
def gaussian_release():
    X, y = synthetic_classification(n=800, d=3, random_state=7)
    return dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(X, y, epsilon=0.5, delta=1e-6, mechanism="output",
                                                         random_state=0)


def _epsilon(accountant, event, count: int, delta: float) -> float:
    accountant.compose(event, count)
    return accountant.get_epsilon(delta)


@pytest.mark.slow
@pytest.mark.parametrize("count", [1, 4, 25])
def test_a_gaussian_release_composes_in_dp_accounting_as_in_dpcvx(gaussian_release, count):
    curve = gaussian_release.certificate.privacy_curve
    event = curve.to_dp_events()
    assert event == dp_accounting.ComposedDpEvent([dp_accounting.GaussianDpEvent(curve.parts[0].noise_multiplier)])
    ours = compose_epsilon([curve] * count, 1e-5, method="pld")
    theirs = _epsilon(PLDAccountant(), event, count, 1e-5)
    assert theirs == pytest.approx(ours, rel=2e-3)  # both pessimistic PLDs; grids differ
    rdp = Composition.of([curve] * count).epsilon(1e-5, "rdp")  # the accountant's Renyi DP (a release's curve also
    assert _epsilon(RdpAccountant(), event, count, 1e-5) == pytest.approx(rdp, rel=0.03)  # knows the exact Gaussian)
    assert compose_epsilon([curve] * count, 1e-5, method="rdp") <= rdp  # Renyi orders differ
    if count == 1:  # one release: its certified epsilon at its delta (analytic Gaussian: exact)
        assert _epsilon(PLDAccountant(), event, 1, 1e-6) == pytest.approx(0.5, rel=2e-3)


@pytest.mark.parametrize(("epsilon", "count"), [(1.0, 1), (1.0, 4), (1.0, 25), (0.1, 100), (0.05, 400)])
def test_pure_parts_become_randomized_response_and_compose_as_in_dpcvx(epsilon, count):
    pure = PrivacyCurve((CurvePart("epsilon-delta", "a pure release", epsilon=epsilon),))
    event = pure.to_dp_events()
    (response,) = event.events
    assert isinstance(response, dp_accounting.RandomizedResponseDpEvent) and response.num_buckets == 2
    p = response.noise_parameter
    assert epsilon <= math.log((1 - p / 2) / (p / 2)) <= epsilon + 1e-10  # its loss +-epsilon, never less
    theirs = _epsilon(RdpAccountant(neighboring_relation=REPLACE_ONE), event, count, 1e-5)
    ours = compose_epsilon([pure] * count, 1e-5)
    # a Renyi bound against dpcvx's privacy loss distribution: close (before, ZCDpEvent(eps^2 / 2) gave 4.73 for
    # one release at epsilon 1 and 10.7 for four, above basic composition)
    assert ours * (1 - 1e-3) <= theirs <= ours * 1.1
    assert theirs <= count * epsilon * 1.035


def test_pure_events_composed_one_by_one_in_a_pld_accountant_give_dpcvx_epsilon():
    pure = PrivacyCurve((CurvePart("epsilon-delta", "a pure release", epsilon=1.0),))
    accountant = PLDAccountant(REPLACE_ONE)
    for _ in range(4):  # one compose per release: dp-accounting 0.6.0 composes this event once whatever its count
        accountant.compose(pure.to_dp_events())
    assert accountant.get_epsilon(1e-5) == pytest.approx(compose_epsilon([pure] * 4, 1e-5), rel=5e-4)  # four 1e-4 grids


def test_pure_events_are_refused_where_dp_accounting_would_misread_them():
    event = PrivacyCurve((CurvePart("epsilon-delta", "pure", epsilon=1.0),)).to_dp_events()
    with pytest.raises(dp_accounting.UnsupportedEventError):
        RdpAccountant().compose(event)  # ADD_OR_REMOVE_ONE, the default: the docstring names REPLACE_ONE
    with pytest.raises(dp_accounting.UnsupportedEventError):
        PLDAccountant().compose(event)


def test_mixed_curve_composes_part_by_part():
    mixed = PrivacyCurve((CurvePart("epsilon-delta", "pure", epsilon=0.1), CurvePart.gaussian(3.0, 1.0, "g")))
    theirs = _epsilon(RdpAccountant(neighboring_relation=REPLACE_ONE), mixed.to_dp_events(), 10, 1e-6)
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
