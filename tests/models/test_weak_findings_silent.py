"""A regression's NOT PRIVATE findings that keep less than least squares but more than a constant (LITTLE_KEPT,
MAP_LOST: training_rows.WEAK_FINDINGS) are said only where the warning names something to do that was measured to
do better (training_rows.says_regression_finding). An analyst probe (session 67, P3 finding 3) read a MAP_LOST text
of about 1,900 characters ending "no setting is known to do better" on every useful DPLinearRegression fit of a
house-price table; benchmarks/results/real_tables.md recorded it on every epsilon-1 fit of six regression tables."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import TrainingRowsWarning
from dpcvx.models import training_rows


def _told(estimator, X, y) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return [str(w.message) for w in caught if issubclass(w.category, TrainingRowsWarning)]


def _heavy(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A lognormal spend column driving its label (MAP_LOST fires on DPLinearRegression's default here)."""
    rng = np.random.default_rng(seed)
    spend = np.exp(rng.normal(5, 1.5, n))
    visits, age = rng.integers(0, 30, n).astype(float), rng.integers(18, 80, n).astype(float)
    y = 0.8 * spend + 5 * visits + rng.normal(0, 20, n)
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("spend", 0, 1e5), dpcvx.NumericColumn("visits", 0, 31),
                                 dpcvx.NumericColumn("age", 17, 90)), norm=1.0)
    return schema.transform({"spend": spend, "visits": visits, "age": age}), np.clip(y, -100, 1e5)


def test_the_advice_is_the_decision_nothing_named_nothing_said() -> None:
    says = training_rows.says_regression_finding
    for owner, defaults, width, scale in (("DPLinearRegression", True, 43, 50_000.0),   # wide rows
                                          ("DPLinearRegression", True, 9, 6_000.0),    # below MAP_SMALL
                                          ("DPLinearRegression", False, 9, 50_000.0),  # off the defaults
                                          ("DPHuberRegressor", False, 9, 50_000.0),
                                          ("PrivateLinearRegression", True, 9, 50_000.0)):  # a learner
        advice = training_rows.map_lost_advice(owner, defaults, width, scale)
        assert advice == "" and not says(training_rows.MAP_LOST, advice), (owner, defaults, width, scale)
        assert "No setting is known" not in advice and "Keep this fit's settings" not in advice
    for owner, width, scale in (("DPLinearRegression", 9, 7_500.0), ("DPHuberRegressor", 9, 1_000.0),
                                ("DPHuberRegressor", 43, 1_000.0)):
        advice = training_rows.map_lost_advice(owner, True, width, scale)
        assert advice and says(training_rows.MAP_LOST, advice)
        assert "did better" in advice
    assert training_rows.little_kept_advice("DPLinearRegression", 51) == ""
    assert training_rows.little_kept_advice("PrivateLinearRegression", 5) == ""
    assert "DPLinearRegression()" in training_rows.little_kept_advice("DPHuberRegressor", 300)
    # something else to act on keeps the finding: a label range too narrow
    assert says(training_rows.MAP_LOST, "", ("upper",)) and says(training_rows.LITTLE_KEPT, "", ("lower",))
    # a release no better than a constant is told whatever follows it
    for finding in (training_rows.NO_BETTER_REGRESSION, training_rows.CODE_LABELS, training_rows.FAR_LABELS):
        assert says(finding, "")
    assert not says(None, "anything")


def test_advice_after_other_settings_is_empty_through_the_fit_s_own_reading() -> None:
    for settings in ({"mechanism": "adassp"}, {"column_statistics": False}):
        model = SimpleNamespace(**{"mechanism": "auto", "column_statistics": "auto", "coef_": np.zeros(3),
                                   "certificate": SimpleNamespace(epsilon=1.0), **settings})
        assert training_rows._advice("DPLinearRegression", model, training_rows.MAP_LOST, 20_000) == ""


@pytest.mark.parametrize(("n", "epsilon"), [(2000, 1), (3000, 2)])
def test_the_default_below_the_public_n_x_epsilon_says_nothing(n, epsilon) -> None:
    """MAP_LOST holds on these rows (the advice said "keep this fit's settings"): nothing is said now."""
    X, y = _heavy(n, 0)
    model = dpcvx.DPLinearRegression(epsilon=epsilon, label_bound=(-100, 1e5), random_state=0)
    assert _told(model, X, y) == []


def test_the_default_above_it_still_names_its_setting() -> None:
    X, y = _heavy(8000, 0)
    (text,) = _told(dpcvx.DPLinearRegression(epsilon=1, label_bound=(-100, 1e5), random_state=0), X, y)
    assert training_rows.MAP_LOST in text and "DPHuberRegressor(column_statistics=False) did better" in text
