"""Advice that, followed, makes the release worse, or contradicts itself (an analyst probe, session 68, P2).

* SlowDescentWarning named DPHuberRegressor(column_statistics=False) with the counts of benchmarks/descent_wide_huber.py
  on a table whose labels filled a small part of the declared label_bound; there the switch scored R^2 -2 to -4.
  Every fit those counts came from had located the label's range at 0.36 to 0.70 of the declared one
  (descent_reach.FILLED_MEASURED); the text names the switch only there.
* No estimator is called a "Fix" in that warning, and it sends the reader to a LevelErasedWarning of the same rows
  first (on the analyst's dates table that warning's advice worked and the estimator switch did worse in 6 of 6).
* A regression release no better than a constant on its training rows is told so plainly.
* A public NoiseDominatesWarning measured against the declared label bound says that labels filling a small part of
  it fit far worse than the mean, and advises the tightest public bound.
* The "columns not located" warning of a descent on more than 60 columns led with "raise epsilon" and ended with "a
  larger epsilon is not known to help such a block"; the caveat now leads and "raise epsilon" is not advised.
"""

from __future__ import annotations

import warnings

import numpy as np

import dpcvx
from dpcvx.exceptions import NoiseDominatesWarning, SlowDescentWarning, TrainingRowsWarning


def _one_hot(scale: float, levels: int = 50, n: int = 8000) -> tuple[np.ndarray, np.ndarray]:
    """benchmarks/descent_advice.py's development one-hot table (Zipf levels and one numeric column, labels in
    (0, 100)), its labels multiplied by ``scale``: at 0.1 they fill a tenth of the declared (0, 100)."""
    rng = np.random.default_rng(0)
    share = 1 / np.arange(1, levels + 1)
    level = rng.choice(levels, n, p=share / share.sum())
    a = rng.uniform(0, 100, n)
    y = np.clip(50 + rng.normal(0, 10, levels)[level] + 0.1 * (a - 50) + rng.normal(0, 5, n), 0, 100) * scale
    names = tuple(f"L{i:03d}" for i in range(levels))
    schema = dpcvx.PublicSchema((dpcvx.CategoricalColumn("code", names), dpcvx.NumericColumn("a", 0, 100)))
    return schema.transform({"code": np.array(names)[level], "a": a}), y


def _fit(estimator: object, X: np.ndarray, y: np.ndarray) -> tuple[object, dict[type, list[str]]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = estimator.fit(X, y)  # type: ignore[attr-defined]
    said: dict[type, list[str]] = {}
    for w in caught:
        said.setdefault(w.category, []).append(str(w.message))
    return model, said


def _r2(y: np.ndarray, p: np.ndarray) -> float:
    return float(1 - np.sum((y - p) ** 2) / np.sum((y - y.mean()) ** 2))


def test_slow_descent_does_not_name_the_public_huber_where_the_labels_fill_little_of_their_bound():
    """d 51, n 6,000, epsilon 0.85 (n epsilon / d 100, no momentum; at epsilon 1, 118, session 70's momentum ramp
    lets the steps reach the fit and the check is silent): the check fires. Labels in a tenth of (0, 100): the
    default's released label range is far below the 0.35 of every benchmark fit, and the switch the old text named
    does much worse than the default on held-out rows (seeded: 0.61 against -3.6; asserted with wide margins)."""
    X, y = _one_hot(0.1)
    default, said = _fit(dpcvx.DPLinearRegression(epsilon=0.85, label_bound=(0, 100), random_state=0), X[:6000],
                         y[:6000])
    (text,) = said[SlowDescentWarning]
    assert "DPHuberRegressor(column_statistics=False) is not named here" in text
    assert "DPHuberRegressor(column_statistics=False), at the same epsilon and bounds, did better" not in text
    assert "far worse than predicting the labels' mean" in text and "Fix:" not in text
    assert text.index("If a LevelErasedWarning was shown") < text.index("No setting is known")
    huber, _ = _fit(dpcvx.DPHuberRegressor(epsilon=0.85, label_bound=(0, 100), column_statistics=False,
                                           random_state=0), X[:6000], y[:6000])
    assert _r2(y[6000:], huber.predict(X[6000:])) < 0 < _r2(y[6000:], default.predict(X[6000:])) - 0.3


def test_slow_descent_names_the_public_huber_with_its_counts_where_the_labels_fill_their_bound():
    """The same table with its labels filling (0, 100), as in the benchmark's fits: the counts are given, not as a
    fix."""
    X, y = _one_hot(1.0)
    _, said = _fit(dpcvx.DPLinearRegression(epsilon=1, label_bound=(0, 100), random_state=0), X[:6000], y[:6000])
    (text,) = said[SlowDescentWarning]
    assert ("DPHuberRegressor(column_statistics=False), at the same epsilon and bounds, did better in 17 of the 19"
            in text)
    assert "not as a fix" in text and "Fix:" not in text and "is not named here" not in text


def test_a_huber_release_worse_than_the_mean_is_told_so_plainly():
    """The switch on the narrow-label table: its training R^2 is below 0, and the note says it in those words."""
    X, y = _one_hot(0.1)
    _, said = _fit(dpcvx.DPHuberRegressor(epsilon=1, label_bound=(0, 100), column_statistics=False, random_state=0),
                   X[:6000], y[:6000])
    (text,) = said[TrainingRowsWarning]
    assert "the release is worse than predicting the labels' mean" in text


def test_the_public_noise_rule_on_a_declared_label_bound_warns_of_labels_filling_little_of_it():
    """DPHuberRegressor(column_statistics=False) with a large lam: the rule (against sigma = B / 4 of the declared
    bound) fires; the text says the declared bound sets the noise and advises the tightest public one."""
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, (2000, 5)) / np.sqrt(5)
    y = 5 + X @ rng.normal(0, 3, 5) + rng.normal(0, 1, 2000)
    _, said = _fit(dpcvx.DPHuberRegressor(epsilon=1, lam=10.0, label_bound=(0, 365), column_statistics=False,
                                          random_state=0), X, y)
    (text,) = said[NoiseDominatesWarning]
    assert "The noise scales with the declared label bound (half-width B=182.5)" in text
    assert "if the labels fill a small part of it, the predictions can be far worse than the labels' mean" in text
    assert "declare the tightest public label range" in text


def test_columns_not_located_on_a_wide_block_does_not_lead_with_raise_epsilon():
    """A one-hot block of 50 levels and a numeric column at n 2,000, epsilon 1 (d 51 is within the evidence's 60:
    the advice to raise epsilon stays); and of 100 levels (d 101): the caveat leads, and epsilon is not advised."""
    for levels, wide in ((50, False), (100, True)):
        X, y = _one_hot(1.0, levels=levels, n=2000)
        _, said = _fit(dpcvx.DPLinearRegression(epsilon=1, label_bound=(0, 100), random_state=0), X, y)
        (text,) = [t for t in said[NoiseDominatesWarning] if "the columns' ranges were not located" in t]
        assert ("raise epsilon" in text) is not wide
        assert ("a larger epsilon is not known to help" in text) is wide
