"""A regressor warns NoiseDominatesWarning when lam's shrinkage keeps every noiseless prediction closer to the labels'
centre than the labels' spread: ||w*|| <= L R / (m lam + Delta), so |w*^T x| <= L R^2 / (m lam + Delta) on rows of
norm at most R (docs/theory.md section 21, "the reach"). A Huber threshold given in the wrong unit (m = 1 on a target
in the thousands, no private label range) released a model whose R^2 was -6.9 with no public warning."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import NoiseDominatesWarning

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning",
                                        "ignore::dpcvx.exceptions.TrainingRowsWarning")


def spend(n: int = 4000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Rows in the unit ball; a target near 2,000 +- 600 in the public [0, 20000], far from its midpoint 10,000."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, (n, 4))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    y = 2000 + X @ np.array([1500.0, -800.0, 600.0, 0.0]) + rng.normal(0, 150, n)
    return X, y


def fit(**settings) -> tuple[dpcvx.DPHuberRegressor, list[str], float]:
    X, y = spend()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = dpcvx.DPHuberRegressor(label_bound=(0.0, 20_000.0), random_state=5, **settings).fit(X, y)
    texts = [str(w.message) for w in caught if issubclass(w.category, NoiseDominatesWarning)]
    return model, texts, model.score(X, y)


def reach(model: dpcvx.DPHuberRegressor) -> float:
    """L R^2 / (m lam + Delta) of the release's certificate."""
    constants, calibration = model.certificate_.constants, model.certificate_.calibration
    strong = float(constants.m) * float(constants.lam) + calibration.extra_reg
    return float(constants.L) * float(constants.R) ** 2 / strong


def test_a_threshold_in_the_wrong_unit_without_a_label_range_is_told_the_fit_cannot_reach_the_labels() -> None:
    model, texts, score = fit(m=1.0, column_statistics=False)
    assert score < 0  # seeded: -183, predictions held within 1,135 of the public midpoint 10,000
    assert reach(model) < 10_000 / 3
    assert len(texts) == 1 and "the fit cannot reach the labels' spread" in texts[0]
    assert f"within {reach(model):.3g} of the labels' centre" in texts[0]
    assert "the Huber threshold m = 1 is small against the labels' spread" in texts[0]


def test_a_large_given_lam_is_told_the_same_and_the_defaults_are_not() -> None:
    """lam = 5 at the default threshold m = B / 4: the reach 2,500 x 2 / 5 is below B / 3, a cause the threshold's
    clause does not name (m is the label's scale); the defaults reach far beyond the labels and stay silent."""
    model, texts, score = fit(lam=5.0, column_statistics=False)
    assert reach(model) < 10_000 / 3 and score < 0.5  # seeded: reach 1,000, R^2 -186
    assert len(texts) == 1 and "the fit cannot reach the labels' spread" in texts[0]
    assert "Huber threshold" not in texts[0]
    model, texts, score = fit(column_statistics=False)
    assert reach(model) > 10_000 and texts == [] and score > 0.5  # seeded: reach 2.8e6, R^2 0.92


def test_a_ball_smaller_than_the_labels_is_told_its_radius_bounds_the_reach() -> None:
    """Least squares on the ball ||w|| <= W (DPLinearRegression(mechanism="objective")): L = W R + B makes L R / s
    large, but the ball itself bounds ||w*|| by W, so every noiseless prediction lies within W R of the centre. W = 5
    and 50 on labels 500 +- 110 in the public [0, 1000] kept 0.03 and 0.24 of R^2 with no public warning; W = 500
    reaches them (R^2 0.83) and stays silent."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (5000, 4))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    y = 500 + X @ np.array([300.0, -200.0, 100.0, 0.0]) + rng.normal(0, 20, 5000)

    def fitted(radius: float) -> tuple[float, list[str]]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-7, mechanism="objective", weight_bound=radius,
                                             label_bound=(0.0, 1000.0), random_state=0).fit(X, y)
        return model.score(X, y), [str(w.message) for w in caught if issubclass(w.category, NoiseDominatesWarning)]

    for radius in (5.0, 50.0):
        score, texts = fitted(radius)
        assert score < 0.5  # seeded: 0.03 and 0.24
        assert len(texts) == 1 and "the fit cannot reach the labels' spread" in texts[0]
        assert f"the ball's radius W = {radius:g}" in texts[0] and f"within {radius * np.sqrt(2):.3g}" in texts[0]
    score, texts = fitted(500.0)
    assert score > 0.5 and texts == []  # seeded: 0.83
