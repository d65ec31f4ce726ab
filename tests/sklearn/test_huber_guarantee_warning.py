"""DPHuberRegressor warns NoiseDominatesWarning when lam="auto"'s own bound on the excess risk is a large share of a
constant model's risk on labels of the released spread (dpcvx.sklearn.noise_warning.guarantee_to_spread; docs/theory.md
section 21). The audit's rent table (60 neighbourhoods one-hot, rent near 1,500 +- 320 in the public [0, 20000]) kept
0.10 to 0.30 of the gap at epsilon 1 with no warning; a dense table of a few columns keeps most of it and stays
silent."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score

import dpcvx
from benchmarks import huber_guarantee_tables
from dpcvx.exceptions import NoiseDominatesWarning
from dpcvx.sklearn.noise_warning import GUARANTEE_RATIO_LIMIT, constant_risk, guarantee_to_spread
from dpcvx.sklearn.regressors import HUBER_FRACTION

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning",
                                        "ignore::dpcvx.exceptions.TrainingRowsWarning")


def rent(n: int = 9000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Schema rows of a rent table: 60 neighbourhoods one-hot, size, beds, year, furnished; rent in dollars."""
    rng = np.random.default_rng(seed)
    hood = rng.integers(0, 60, n)
    sqft = rng.gamma(6, 140, n)
    beds = np.clip(np.round(sqft / 400 + rng.normal(0, 0.6, n)), 0, 10)
    year = rng.integers(1900, 2024, n).astype(float)
    furnished = rng.random(n) < 0.2
    effect = np.random.default_rng(13).normal(0, 180, 60)
    y = np.clip(1400 + 0.45 * (sqft - 840) + 60 * beds + 1.2 * (year - 1960) + effect[hood] + 90 * furnished
                + rng.normal(0, 150, n), 0, 20_000)
    schema = dpcvx.PublicSchema((dpcvx.CategoricalColumn("hood", tuple(f"H{k}" for k in range(60))),
                                 dpcvx.NumericColumn("sqft", 0, 10_000), dpcvx.NumericColumn("beds", 0, 10),
                                 dpcvx.NumericColumn("year", 1800, 2030),
                                 dpcvx.CategoricalColumn("furnished", ("0", "1"))))
    raw = {"hood": np.array([f"H{k}" for k in hood]), "sqft": np.clip(sqft, 0, 10_000), "beds": beds, "year": year,
           "furnished": np.where(furnished, "1", "0")}
    return schema.transform(raw), y


def energy(n: int = 16_000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Schema rows of a dense table: three numeric columns and one 4-level column; kWh in the hundreds."""
    rng = np.random.default_rng(seed)
    area, occupants, degree_days = rng.lognormal(4.6, 0.35, n), rng.integers(1, 7, n).astype(float), \
        rng.uniform(1500, 4000, n)
    heat = rng.integers(0, 4, n)
    y = np.clip(120 + 1.6 * area + 35 * occupants + 0.05 * degree_days + np.array([0, 80, -60, 150.0])[heat]
                + rng.gamma(2, 40, n), 0, 5000)
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("area", 0, 1000), dpcvx.NumericColumn("occupants", 0, 15),
                                 dpcvx.NumericColumn("degree_days", 0, 8000),
                                 dpcvx.CategoricalColumn("heat", ("gas", "elec", "oil", "pump"))))
    raw = {"area": np.clip(area, 0, 1000), "occupants": occupants, "degree_days": degree_days,
           "heat": np.array(["gas", "elec", "oil", "pump"])[heat]}
    return schema.transform(raw), y


def fitted(X: np.ndarray, y: np.ndarray, epsilon: float, label_bound: tuple[float, float],
           m: float | str = "auto") -> tuple[float, list, float]:
    """(share of the gap between the labels' mean and a non-private ridge recovered on held-out rows, the fit's
    NoiseDominatesWarnings, the public ratio) of DPHuberRegressor's defaults (and threshold ``m``) on a seeded 75/25
    split."""
    cut = int(0.75 * len(y))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = dpcvx.DPHuberRegressor(epsilon=epsilon, label_bound=label_bound, m=m,
                                       random_state=77).fit(X[:cut], y[:cut])
    trivial = r2_score(y[cut:], np.full(len(y) - cut, y[:cut].mean()))
    reference = r2_score(y[cut:], Ridge(1e-3).fit(X[:cut], y[:cut]).predict(X[cut:]))
    gap = (r2_score(y[cut:], model.predict(X[cut:])) - trivial) / (reference - trivial)
    threshold = HUBER_FRACTION * model.certificate_.label_bound if m == "auto" else m
    ratio = guarantee_to_spread(model.certificate_, dpcvx.losses.huber_regression(threshold))
    assert ratio is not None  # lam="auto" records its rule
    return gap, [w for w in caught if issubclass(w.category, NoiseDominatesWarning)], ratio


def test_the_rent_table_that_keeps_little_of_the_gap_warns_with_the_rules_bound() -> None:
    gap, caught, ratio = fitted(*rent(), 1.0, (0.0, 20_000.0))
    assert gap < 0.5  # seeded: 0.30 (the audit's 0.10 to 0.30 over splits); tolerance: the half of the gap
    assert ratio > GUARANTEE_RATIO_LIMIT
    assert len(caught) == 1
    assert "shrinkage" in str(caught[0].message) and "sigma = 1005.86 / 3" in str(caught[0].message)


def test_a_dense_table_that_keeps_most_of_the_gap_stays_silent() -> None:
    gap, caught, ratio = fitted(*energy(), 1.0, (0.0, 5000.0))
    assert gap >= 0.5  # seeded: 0.9 (benchmarks/results/huber_guarantee.md: 0.81 to 0.94 over splits)
    assert ratio <= GUARANTEE_RATIO_LIMIT and caught == []


def test_a_count_release_that_keeps_most_of_the_gap_now_stays_silent() -> None:
    """A count target (visits, documented maximum 100) at epsilon 1: a probe's count table (n = 3,000, ratio 0.34)
    kept about 0.8 of the non-private R^2 and this one (n = 2,000, ratio 0.33) 0.57 of the gap. Both were warned at
    the former limit 4 / 15; at 0.35 (moved on benchmarks/huber_guarantee.py's second development family) they are
    not."""
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, (2000, 6)) / np.sqrt(6)
    z = X @ np.random.default_rng(5).normal(size=6)
    y = rng.poisson(np.exp(1.2 + 0.6 * (z - z.mean()) / z.std())).astype(float)
    gap, caught, ratio = fitted(X, y, 1.0, (0.0, 100.0))
    assert 4 / 15 < ratio <= GUARANTEE_RATIO_LIMIT and caught == []  # seeded: 0.33
    assert gap > 0.5  # seeded: 0.57


def development_ii(make, n: int) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    """Schema rows, labels and the public label range of a table of the benchmark's second development family."""
    raw, y, columns, label_range, _ = make(np.random.default_rng(7), n)
    return dpcvx.PublicSchema(columns).transform(raw), y, label_range


def test_the_moved_limit_keeps_a_good_development_fit_silent_and_still_warns_a_useless_one() -> None:
    """The limit 0.35 on benchmarks/huber_guarantee.py's second development family (seed 7 here, not the benchmark's):
    used cars at n = 2,000 and epsilon 3 keep most of the gap at a ratio near 0.30 (warned under 4 / 15, silent now);
    trip durations at n = 10,000 and epsilon 0.5, at a ratio near 0.37, keep almost none and are still warned."""
    X, y, label_range = development_ii(huber_guarantee_tables.used_cars, 2000)
    gap, caught, ratio = fitted(X, y, 3.0, label_range)
    assert 4 / 15 < ratio <= GUARANTEE_RATIO_LIMIT and caught == []  # seeded: ratio 0.30
    assert gap > 0.5  # seeded: 0.70 (the benchmark's splits: 0.67 to 0.86)
    X, y, label_range = development_ii(huber_guarantee_tables.trip_seconds, 10_000)
    gap, caught, ratio = fitted(X, y, 0.5, label_range)
    assert ratio > GUARANTEE_RATIO_LIMIT and len(caught) == 1  # seeded: 0.37
    assert gap < 0.5  # seeded: 0.06 (the benchmark's splits: 0.03 to 0.07)
    assert "promises little beyond a constant model" in str(caught[0].message)


def test_a_threshold_given_far_below_the_labels_unit_warns_naming_it() -> None:
    """m = 1 on rents in the thousands: every residual beyond m costs a slope 1 per dollar, and lam's shrinkage
    (Lam W^2 / 2, in the loss's units) outweighs what the fit can gain. Against sigma^2 / 2 the rule's ratio was
    about 0.01 (silent, on a fit keeping a fifth of the gap); against the loss's own l(sigma) = m sigma - m^2 / 2 it
    is sigma / 2 (about 170) times larger, and the warning names the threshold and m="auto" as the fix."""
    X, y = rent()
    gap, caught, ratio = fitted(X, y, 3.0, (0.0, 20_000.0), m=1.0)
    assert gap < 0.5  # seeded: 0.18; tolerance: the half of the gap
    assert ratio > GUARANTEE_RATIO_LIMIT and len(caught) == 1  # seeded: 1.97
    text = str(caught[0].message)
    assert "the Huber threshold m = 1 is small against the labels' spread" in text and "use m='auto'" in text


def test_the_default_threshold_restates_the_limit_against_sigma_squared() -> None:
    """At m = B' / 4 = 3 sigma / 4, l(sigma) = m sigma - m^2 / 2 is 15 / 16 of sigma^2 / 2, the unit the limit 0.25
    was first fixed in: 0.25 of it is 4 / 15 of l(sigma), and the limit 0.35 of l(sigma) is 0.328 of it. The least
    squares loss r^2 / 2 keeps sigma^2 / 2, and a threshold above sigma the Huber loss's r^2 / 2 part."""
    for sigma in (0.3, 7.0, 1234.5):
        default = dpcvx.losses.huber_regression(HUBER_FRACTION * 3 * sigma)
        assert constant_risk(default, sigma) == pytest.approx(15 / 16 * sigma**2 / 2, rel=1e-12)
        assert 4 / 15 * constant_risk(default, sigma) == pytest.approx(0.25 * sigma**2 / 2, rel=1e-12)
        assert GUARANTEE_RATIO_LIMIT * constant_risk(default, sigma) == pytest.approx(
            0.35 * 15 / 16 * sigma**2 / 2, rel=1e-12)
        assert constant_risk(dpcvx.losses.squared_error(), sigma) == pytest.approx(sigma**2 / 2, rel=1e-12)
        assert constant_risk(dpcvx.losses.huber_regression(2 * sigma), sigma) == pytest.approx(sigma**2 / 2, rel=1e-12)
        assert constant_risk(dpcvx.losses.huber_regression(1e-3 * sigma), sigma) == pytest.approx(
            1e-3 * sigma**2 - (1e-3 * sigma) ** 2 / 2, rel=1e-12)
