"""SmallTableWarning counts the public sample_weight_bound w_max: a fit with sample weights up to w_max has noise
w_max times an unweighted fit's, so at weights of mean 1 it is held to n / max(1, w_max) rows (docs/theory.md,
section 21). An analyst probe (session 69, P8 finding 3): survey weights 0.2 to 5 at sample_weight_bound=5 scored a
weighted accuracy of 0.610 at epsilon 1 against 0.658 without the weights, and no warning fired (n epsilon / d = 72
without w_max)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import SmallTableWarning
from dpcvx.sklearn.noise_warning import warn_if_small_table, weighted_rows


def _quiet(call) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallTableWarning)
        call()


def test_the_rule_divides_the_rows_by_the_bound():
    assert weighted_rows(4800, None) == 4800
    assert weighted_rows(4800, 5.0) == 960
    assert weighted_rows(4800, 0.5) == 4800   # weights of mean at most 0.5 cannot be held to more rows than n
    _quiet(lambda: warn_if_small_table("owner", 4800, 66, 1.0))   # 72.7: quiet
    with pytest.warns(SmallTableWarning, match=r"w_max = 5 .*960 rows in n's place\): 960 x 1 / 66 = 14.5 is below "
                                               r"50.*sample weights normalised to mean 1 by a public rule"):
        warn_if_small_table("owner", 4800, 66, 1.0, weight_bound=5.0)
    _quiet(lambda: warn_if_small_table("owner", 4800, 66, 1.0, weight_bound=1.0))
    with pytest.warns(SmallTableWarning, match=r"n 2 min\(prior, 1 - prior\) = 1000 x 0.5 = 500 in n's place .*"
                                               r"divided by the public sample_weight_bound w_max = 2 .*250 rows"):
        warn_if_small_table("owner", 1000, 10, 1.0, prior=0.25, weight_bound=2.0)


def _table(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 10)) / np.sqrt(10)
    y = (X[:, 0] + 0.2 * rng.normal(size=n) > 0).astype(int)
    return X, y, rng.uniform(0.2, 5.0, n)


def _small_tables(fit) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [str(w.message) for w in caught if issubclass(w.category, SmallTableWarning)]


def test_a_weighted_classifier_is_held_to_n_over_w_max():
    """n 1,000, d 11 with the intercept, epsilon 1: 91 without weights (quiet), 18 at w_max = 5 (warned)."""
    X, y, w = _table(1000, 1)
    plain = _small_tables(lambda: dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y))
    weighted = _small_tables(lambda: dpcvx.DPLogisticRegression(epsilon=1.0, sample_weight_bound=5.0,
                                                                random_state=0).fit(X, y, sample_weight=w))
    assert plain == []
    assert len(weighted) == 1 and "w_max = 5" in weighted[0] and "200 rows in n's place" in weighted[0], weighted


def test_a_weighted_huber_regressor_is_held_to_n_over_w_max():
    X, _, w = _table(1000, 2)
    y = X @ np.arange(1.0, 11.0)
    estimator = dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=(-10, 10), column_statistics=False,
                                       sample_weight_bound=5.0, random_state=0)
    texts = _small_tables(lambda: estimator.fit(X, y, sample_weight=w))
    assert len(texts) == 1 and "w_max = 5" in texts[0], texts
    assert hasattr(estimator, "coef_")   # the warning after the charge never costs the release
