"""One total per release (session 68): every certificate type states what its release cost, ``cost`` (epsilon with
what the fit drew first, and delta), and every layer that reads a release's total reads it there: the release's
``epsilon`` / ``delta`` (a tuned model's is its selection's), the accountant's ``spend_release``, the report, the
OpenDP bridge and the dp-accounting bridge (the curve's events). Before, each layer spelled
``getattr(certificate, "total_epsilon", certificate.epsilon)`` on its own. Checked on releases with several parts:
column statistics drawn, a private label bound, a private class count, tune's selection, one-vs-rest."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx import PrivacyAccountant
from dpcvx.exceptions import ClippingWarning, NoiseDominatesWarning
from dpcvx.privacy.accountant import PrivacyCost

pytest.importorskip("sklearn")

N, D = 1500, 3


def _rows(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    binary = (X[:, 0] + rng.normal(size=N) > 0).astype(int)
    three = np.digitize(X[:, 0] + rng.normal(size=N) / 2, [-0.5, 0.5])
    return X, binary, three, X @ np.ones(D) / 2 + rng.normal(size=N) / 4


def _quiet_fit(estimator, X, y):
    with warnings.catch_warnings():  # the fits' notes on clipped rows and noise are not what is checked here
        warnings.simplefilter("ignore", ClippingWarning)
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        return estimator.fit(X, y)


ESTIMATORS = {
    "column and label ranges": lambda: dpcvx.DPHuberRegressor(column_statistics="ranges", epsilon=2.0,
                                                              random_state=0),
    "one-vs-rest, statistics and a private count": lambda: dpcvx.DPLogisticRegression(
        classes=(0, 1, 2), column_statistics=True, class_prior="private", threshold="prior", data_norm=4.0,
        epsilon=1.5, random_state=0),
    "a private norm bound and a private label bound": lambda: dpcvx.DPHuberRegressor(
        data_norm="private", norm_range=(0.25, 8.0), label_bound="private", label_range=(0.25, 8.0), m=0.5,
        epsilon=1 / 3, random_state=0),
    "statistics at delta > 0": lambda: dpcvx.DPLogisticRegression(
        column_statistics=True, data_norm=4.0, classes=(0, 1), epsilon=3.0, delta=1e-6, mechanism="output",
        random_state=0),
}


def _labels(name: str, binary, three, target):
    return target if "label" in name else three if "one-vs-rest" in name else binary


def _assert_one_total(release, cost: PrivacyCost) -> None:
    """Every reader of the release's total states ``cost``, compared with ==."""
    assert isinstance(release.cost, PrivacyCost) and release.cost == cost
    assert (release.epsilon, release.delta) == tuple(cost)
    assert PrivacyAccountant(100.0, 0.5).spend_release(release) == cost
    report = release.report()
    assert (report.epsilon, report.delta) == tuple(cost)
    if cost.delta == 0:  # dp-accounting: one randomized response per pure part, whose epsilons add to the total
        pytest.importorskip("dp_accounting")
        events = release.privacy_curve.to_dp_events().events
        spent = math.fsum(math.log(2 / event.noise_parameter - 1) for event in events)
        assert spent == pytest.approx(cost.epsilon, rel=1e-9)  # each p rounded down: at most a few ulps above


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_a_release_with_several_parts_states_one_total_everywhere(name):
    X, binary, three, target = _rows()
    estimator = _quiet_fit(ESTIMATORS[name](), X, _labels(name, binary, three, target))
    release = estimator.model_
    cost = release.certificate.cost
    assert cost.epsilon == estimator.epsilon and cost.delta == estimator.delta  # the budget the user gave, exactly
    assert len(release.certificate.private_bounds if hasattr(release.certificate, "private_bounds")
               else release.certificate.per_class[0].private_bounds) >= 1  # something was drawn before the fit
    _assert_one_total(release, cost)
    assert PrivacyAccountant(100.0, 0.5).spend_release(estimator) == cost  # the estimator holding it, too


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_the_opendp_bridge_checks_the_same_total(name):
    pytest.importorskip("opendp")
    X, binary, three, target = _rows()
    estimator = ESTIMATORS[name]()
    measurement = dpcvx.as_opendp_measurement(estimator, allow_fixed_seed=True)
    expected = estimator.epsilon if estimator.delta == 0 else (estimator.epsilon, estimator.delta)
    assert measurement.map(1) == expected
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        fitted = measurement((X, _labels(name, binary, three, target)))  # refused if the release's total differed
    assert fitted.model_.cost == PrivacyCost(estimator.epsilon, estimator.delta)


def test_a_tuned_release_states_its_selection_total_everywhere():
    X, binary, _, _ = _rows()
    learner = dpcvx.DPLogisticRegression(column_statistics=True, data_norm=4.0, classes=(0, 1), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        result = dpcvx.tune(learner, X, binary, {"lam": [0.01, 0.1]}, epsilon=0.9, random_state=0)
    release = result.release
    cost = result.certificate.cost
    assert cost == PrivacyCost(0.9, 0.0) and release.tuning.cost == cost
    share = release.certificate.cost  # the selected candidate's fit, its column statistics included
    assert share.epsilon < cost.epsilon and share.epsilon == release.certificate.total_epsilon
    _assert_one_total(release, cost)
    assert PrivacyAccountant(100.0, 0.5).spend_release(result) == cost
    assert f"epsilon = {dpcvx.validation.number_text(share.epsilon)} and delta" in release.report().to_markdown()


def test_every_certificate_type_states_its_cost():
    X, binary, _, target = _rows()
    kernel = dpcvx.TDDL("rbf", gamma=1.0, lam=0.1)
    kernel.fit(X[:400], binary[:400] * 2 - 1, 0.8, Z=X[400:440], random_state=0)
    adassp = _quiet_fit(dpcvx.DPLinearRegression(data_norm=4.0, label_bound=4.0, epsilon=1.0, delta=1e-6,
                                                 random_state=0), X, target)
    for release in (kernel.model_, adassp.model_):
        assert release.certificate.cost == PrivacyCost(release.certificate.epsilon, release.certificate.delta)
        _assert_one_total(release, release.certificate.cost)


def test_a_foreign_certificate_stating_a_total_is_charged_its_total():
    """An object of another library whose certificate states ``total_epsilon`` but no ``cost`` is charged that total
    (it was charged its ``epsilon`` alone for a while: an attacker probe, sixty-eighth session); one stating neither
    is charged its ``epsilon``."""
    from types import SimpleNamespace

    from dpcvx.privacy.accountant import release_cost

    stated = SimpleNamespace(certificate=SimpleNamespace(epsilon=0.9, total_epsilon=1.0, delta=1e-6))
    assert release_cost(stated) == dpcvx.PrivacyCost(1.0, 1e-6)
    plain = SimpleNamespace(certificate=SimpleNamespace(epsilon=0.9, delta=0.0))
    assert release_cost(plain) == dpcvx.PrivacyCost(0.9, 0.0)
