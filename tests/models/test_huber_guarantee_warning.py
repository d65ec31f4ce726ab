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
from dpcvx.exceptions import NoiseDominatesWarning
from dpcvx.sklearn.noise_warning import GUARANTEE_RATIO_LIMIT, guarantee_to_spread

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


def fitted(X: np.ndarray, y: np.ndarray, epsilon: float, label_bound: tuple[float, float]) -> tuple[float, list, float]:
    """(share of the gap between the labels' mean and a non-private ridge recovered on held-out rows, the fit's
    NoiseDominatesWarnings, the public ratio) of DPHuberRegressor's defaults on a seeded 75/25 split."""
    cut = int(0.75 * len(y))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = dpcvx.DPHuberRegressor(epsilon=epsilon, label_bound=label_bound, random_state=77).fit(X[:cut], y[:cut])
    trivial = r2_score(y[cut:], np.full(len(y) - cut, y[:cut].mean()))
    reference = r2_score(y[cut:], Ridge(1e-3).fit(X[:cut], y[:cut]).predict(X[cut:]))
    gap = (r2_score(y[cut:], model.predict(X[cut:])) - trivial) / (reference - trivial)
    ratio = guarantee_to_spread(model.certificate_)
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


def test_a_warned_release_that_keeps_most_of_the_gap_is_told_the_measured_odds_not_a_wrong_cause() -> None:
    """A count target (visits, documented maximum 100) at epsilon 1: a probe's count table (n = 3,000, ratio 0.34)
    kept about 0.8 of the non-private R^2 and this one (n = 2,000, ratio 0.33) 0.57 of the gap, above the limit. The
    warning said "on tables of many one-hot columns such releases kept 0.1 to 0.3" (a one-hot probe at n = 20,000
    kept 0.79 too): no public ratio tells such tables apart, so it gives the measured odds of the rule's tables and
    the range seen elsewhere instead of a cause."""
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, (2000, 6)) / np.sqrt(6)
    z = X @ np.random.default_rng(5).normal(size=6)
    y = rng.poisson(np.exp(1.2 + 0.6 * (z - z.mean()) / z.std())).astype(float)
    gap, caught, ratio = fitted(X, y, 1.0, (0.0, 100.0))
    assert ratio > GUARANTEE_RATIO_LIMIT and len(caught) == 1  # seeded: 0.33
    assert gap > 0.5  # seeded: 0.57, more than half of the gap, warned all the same
    text = str(caught[0].message)
    assert "one-hot columns such releases kept 0.1 to 0.3" not in text
    assert "44 kept less than half" in text and "0.7 to 0.99 of it" in text
