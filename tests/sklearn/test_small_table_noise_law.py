"""SmallTableWarning holds a release to the width of its own noise law: d for a pure-epsilon release, d' = epsilon
z(epsilon, delta) sqrt(d) for one whose noise is Gaussian (dpcvx.sklearn.noise_warning.noise_width). The rule held
(epsilon, delta) releases to the pure rate d / (n epsilon): a wide Gaussian fit was told to expect little where its
noise is that of a pure fit of a fifth of its width, and a narrow one was not told where its noise is that of three
times its width."""

import math
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import NoiseDominatesWarning, SmallTableWarning
from dpcvx.privacy.calibrate_gaussian import gaussian_output_perturbation
from dpcvx.privacy.gaussian import analytic_gaussian_multiplier
from dpcvx.sklearn.noise_warning import noise_width, warn_if_small_table


def _small(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [str(w.message) for w in caught if issubclass(w.category, SmallTableWarning)]


def test_pure_width_is_d():
    for d in (1, 7, 80, 12345):
        for epsilon in (0.1, 0.3, 1.0, 3.0):
            assert noise_width(d, epsilon) == d


@pytest.mark.parametrize("d,epsilon,delta", [(2, 1.0, 1e-6), (80, 3.0, 1e-8), (500, 0.3, 1e-6)])
def test_gaussian_width_is_the_calibrations_noise_per_unit_sensitivity(d, epsilon, delta):
    """d' = epsilon E||b|| / Delta of the Gaussian output calibration the fit draws (whatever n, lam, L, R)."""
    for n, lam, L in ((1000, 0.01, 1.0), (50_000, 1e-4, 3.0)):
        calibration = gaussian_output_perturbation(n, lam, epsilon, delta, L=L, R=1.0, m=1.0, tol=1e-9, dim=d)
        per_unit = epsilon * calibration.noise_moments(d).first / calibration.sensitivity
        assert noise_width(d, epsilon, delta) == pytest.approx(per_unit, rel=1e-6)
    assert noise_width(d, epsilon, delta) == pytest.approx(
        epsilon * analytic_gaussian_multiplier(epsilon, delta) * math.sqrt(d))


def test_rule_reads_the_noise_law():
    # wide: n epsilon / d = 10 (pure: warned); d' = 94.5 at delta 1e-6, 5000 / 94.5 = 52.9 (quiet)
    assert _small(lambda: warn_if_small_table("E", 5000, 500, 1.0))
    assert not _small(lambda: warn_if_small_table("E", 5000, 500, 1.0, delta=1e-6))
    # narrow: n epsilon / d = 75 (pure: quiet); d' = 6.0, 150 / 6.0 = 25 (warned), the width named in the text
    assert not _small(lambda: warn_if_small_table("E", 150, 2, 1.0))
    (message,) = _small(lambda: warn_if_small_table("E", 150, 2, 1.0, delta=1e-6))
    assert "d' = epsilon z(epsilon, delta) sqrt(d) = 5.97 in d's place" in message and "(d = 2:" in message
    assert "150 x 1 / 5.97" in message and "sqrt(d log(1 / delta)) / (n epsilon)" in message


def _wide(seed=0, n=6000, d=300):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / math.sqrt(d)
    y = (X[:, :20].sum(axis=1) + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_gaussian_classifier_held_to_its_width():
    """n 6000, d 300, epsilon 1: n epsilon / d = 20, but d' = 85 at delta = 1 / n^2, so 70.4: no SmallTableWarning;
    the pure fit of the same table keeps it."""
    X, y = _wide()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoiseDominatesWarning)  # not what is checked here
        assert not _small(lambda: dpcvx.DPLogisticRegression(epsilon=1.0, delta=1 / 6000**2, random_state=0).fit(X, y))
        (message,) = _small(lambda: dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y))
    assert "6000 x 1 / 300 = 20" in message and "d' =" not in message


def test_adassp_regression_held_to_its_width():
    """DPLinearRegression (AdaSSP, delta 1e-6) on 200 rows of 2 columns: n epsilon / d = 100, d' = 6.0 with the
    intercept-free width 2 (33 < 50): warned; DPHuberRegressor's pure fit of the same rows is not."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(200, 2)) / 2
    y = 5 + 3 * X[:, 0] + rng.normal(scale=0.5, size=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoiseDominatesWarning)  # not what is checked here
        (message,) = _small(lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, label_bound=(0, 10),
                                                             random_state=0).fit(X, y))
        assert not _small(lambda: dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=(0, 10), random_state=0).fit(X, y))
    assert "d' = epsilon z(epsilon, delta) sqrt(d)" in message and "score (R^2)" in message


def test_one_vs_rest_delta_is_named_as_a_part():
    """One-vs-rest's certificate holds one class's delta / k: the text names it as that part, not as the setting."""
    (message,) = _small(lambda: warn_if_small_table("E", 150, 2, 1 / 3, delta=1e-6 / 3, total_epsilon=1.0, classes=3))
    assert "at its delta = 3.33333e-07 (one class's part of the delta you gave)" in message
    assert "delta=3.33333e-07" not in message
