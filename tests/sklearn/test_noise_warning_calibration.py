"""NoiseDominatesWarning predicts "no better than the majority class" from public quantities only
(docs/theory.md, section 21): it fires where the noise swamps the comparator's margin, stays quiet
on a release that is clearly useful, and its advice is lam='auto''s value."""

import math
import re
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import NoiseDominatesWarning
from dpcvx.sklearn.noise_warning import (
    NOISE_RATIO_LIMIT,
    margin_noise_to_signal,
    noise_in_predictions,
    noise_to_signal,
)
from dpcvx.verification.loss_declaration import loss_at_zero


def positive_rows(n, d, seed):
    """breast_cancer-like rows: features in [0, 1] sharing a large common direction, scaled by 1/sqrt(d)."""
    rng = np.random.default_rng(seed)
    sign = np.sign(np.random.default_rng(1000 + d).normal(size=d))
    y0 = rng.random(n) < 0.4
    X = np.clip(0.5 + 0.075 * np.where(y0, 1.0, -1.0)[:, None] * sign + 0.2 * rng.normal(size=(n, d)), 0, 1)
    y = (rng.random(n) < 1 / (1 + np.exp(-4 * np.where(y0, 1.0, -1.0)))).astype(int)
    return X / math.sqrt(d), y


def fit_recording(estimator, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return [w for w in caught if issubclass(w.category, NoiseDominatesWarning)]


def ratio(estimator):
    noise, signal = margin_noise_to_signal(estimator.certificate_, loss_at_zero(estimator._private_erm().loss))
    return noise / signal


def test_warns_where_the_release_is_worse_than_the_majority_class():
    """500 breast_cancer-like rows in R^30, output perturbation at eps 0.1 and lam='auto': the release
    scores below the majority rate (seeded, 3 seeds, on 4000 fresh rows) and the rule fires. A broken
    variant that takes the signal as the worst-case weight bound min(L R / s, sqrt(2 l(0) / s)) instead
    of the comparator prior stays below the fitted limit here: checked to miss it."""
    X, y = positive_rows(500, 30, 7)
    Xt, yt = positive_rows(4000, 30, 8)
    majority = max(yt.mean(), 1 - yt.mean())
    for seed in range(3):
        estimator = dpcvx.DPLogisticRegression(epsilon=0.1, mechanism="output", data_norm=1.0, random_state=seed)
        found = fit_recording(estimator, X, y)
        assert len(found) == 1 and found[0].filename == __file__
        assert estimator.score(Xt, yt) <= majority + 0.01
    assert ratio(estimator) > NOISE_RATIO_LIMIT
    noise, worst_case = noise_to_signal(estimator.certificate_, math.log(2))
    assert noise / worst_case < NOISE_RATIO_LIMIT   # the broken variant would stay quiet


@pytest.fixture(scope="module")
def separable():
    """The regime of tests/privacy/test_gaussian_release.py::test_estimators_take_delta."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.normal(size=400) > 0, 1, 0)
    return X, y


def test_quiet_on_a_useful_gaussian_output_release(separable):
    """DPHuberSVM, n 400, d 4 with the intercept, lam 0.01, eps 1, delta 1e-6: every seed beats the
    majority class, and the rule stays quiet. The old prediction rule (noise at ||x|| = R against
    the fixed margin 1, limit 2) fired here: the broken variant is checked to fire."""
    X, y = separable
    majority = max(y.mean(), 1 - y.mean())
    for seed in range(3):
        estimator = dpcvx.DPHuberSVM(epsilon=1.0, delta=1e-6, mechanism="output", lam=1e-2, random_state=seed)
        assert fit_recording(estimator, X, y) == []
        assert estimator.score(X, y) > majority + 0.05
    noise, _ = noise_to_signal(estimator.certificate_, 1.0)
    assert noise_in_predictions(estimator.certificate_, noise) / 1.0 > 2.0   # the old rule's false alarm
    assert ratio(estimator) < NOISE_RATIO_LIMIT


def test_the_advice_is_the_value_of_lam_auto(separable):
    X, y = separable
    estimator = dpcvx.DPLogisticRegression(epsilon=0.1, mechanism="output", lam=1e-4, random_state=0)
    found = fit_recording(estimator, X[:200], y[:200])
    assert len(found) == 1
    advised = float(re.search(r"would choose lam=([0-9.e+-]+) ", str(found[0].message)).group(1))
    assert advised == pytest.approx(estimator._private_erm().choose_lam(200, 3, 0.1, "output").lam, rel=0.05)


def test_the_warning_weighs_the_signal_with_the_rules_comparator_at_any_lam():
    """At a numeric lam the warning's W is the one lam='auto' would use for the same bounds (rule v1.1: with
    the estimators' intercept column s, sqrt((8 / R)^2 + (log 19 / s)^2), not 8 / R' with R' = sqrt(R^2 + s^2))."""
    from dpcvx.sklearn.noise_warning import comparator_norm

    X, y = positive_rows(400, 6, 0)
    for data_norm in (1.0, 2.0):
        fixed = dpcvx.DPLogisticRegression(epsilon=1.0, lam=1e-2, data_norm=data_norm, random_state=0).fit(X, y)
        auto = dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=data_norm, random_state=0).fit(X, y)
        rule = auto.model_.certificate.lam_rule.comparator_norm
        assert comparator_norm(fixed.model_.certificate) == pytest.approx(rule, rel=1e-15)
        assert comparator_norm(auto.model_.certificate) == rule
        assert rule > 8.0 / fixed.model_.certificate.effective_norm_bound
