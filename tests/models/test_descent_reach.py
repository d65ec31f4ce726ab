"""NOT PRIVATE: the check of noisy gradient descent's reach (dpcvx.models.descent_reach), told to the data owner.

The prober's table (30 flags at 10 % ones, 10,000 rows; here 6,000 to keep the test short) scored R^2 0.55 at
epsilon 2 where it scored 0.86 at 0.5 and 0.87 at 4, silently: the release must now say so, with the advice the
development and held-out families of benchmarks/descent_reach.py measured, and a well-conditioned table stays quiet.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import NoiseDominatesWarning, SlowDescentWarning
from dpcvx.models import descent_reach
from dpcvx.models.descent_reach import HUBER_WIDTH, REACH_AT, SHORTFALL, descent_shortfall
from dpcvx.privacy.gradient_descent import MOMENTUM_FROM
from dpcvx.release.usefulness import checks_off


def _flags(p: float, n: int = 6000, d: int = 30) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    B = (rng.random((n, d)) < p).astype(float)
    y = 100 + B @ rng.uniform(0, 200, d) + rng.normal(0, 40, n)
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"f{j}", 0, 1) for j in range(d)), norm=1.0)
    return schema.transform({f"f{j}": B[:, j] for j in range(d)}), y


def _slow(X: np.ndarray, y: np.ndarray, epsilon: float) -> tuple[list[str], np.ndarray]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = dpcvx.DPLinearRegression(epsilon=epsilon, label_bound=(0, 5000), random_state=0).fit(X, y)
    return [str(w.message) for w in caught if issubclass(w.category, SlowDescentWarning)], model.coef_


def test_flags_that_are_mostly_zero_warn_with_the_fix():
    X, y = _flags(0.1)
    said, _ = _slow(X, y, 2.0)
    assert len(said) == 1
    assert "DPLinearRegression's noisy gradient descent could not reach" in said[0]
    assert "DPHuberRegressor" in said[0] and "NOT PRIVATE" in said[0]


def test_a_well_conditioned_table_is_quiet():
    rng = np.random.default_rng(3)
    X = rng.normal(0, 1, (6000, 10)) / 4
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    y = 2500 + X @ rng.normal(0, 800, 10) + rng.normal(0, 40, 6000)
    said, _ = _slow(X, y, 2.0)
    assert said == []


def test_the_check_leaves_the_release_as_it_was():
    X, y = _flags(0.1)
    _, coef = _slow(X, y, 2.0)
    with checks_off(), warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        quiet = dpcvx.DPLinearRegression(epsilon=2.0, label_bound=(0, 5000), random_state=0).fit(X, y).coef_
    np.testing.assert_array_equal(coef, quiet)


def test_shortfall_of_the_steps_against_least_squares():
    rng = np.random.default_rng(0)
    Z = np.c_[rng.normal(0, 1, (500, 3)), np.ones(500)]
    y = Z @ np.array([1.0, -2.0, 0.5, 3.0]) + rng.normal(0, 0.1, 500)
    gram, moment = Z.T @ Z, Z.T @ y
    args = (float(y @ y), float(y.sum()), 500)
    top = float(np.linalg.eigvalsh(gram)[-1])
    assert descent_shortfall(gram, moment, *args, top, 200, 0.0, 1.0) == pytest.approx(0.0, abs=1e-6)
    # one common direction far above the rest: a step of 1 / Lambda moves little elsewhere
    W = np.c_[rng.normal(0, 1, (500, 3)) * 0.01 + 5, np.ones(500)]
    yw = W[:, :3] @ np.array([100.0, -100.0, 50.0])
    g2, top2 = W.T @ W, float(np.linalg.eigvalsh(W.T @ W)[-1])
    share = descent_shortfall(g2, W.T @ yw, float(yw @ yw), float(yw.sum()), 500, top2, 20, 0.9, 1.0)
    assert share >= SHORTFALL


def _one_hot(levels: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A categorical of ``levels`` levels (Zipf shares 1 / rank) and one numeric column, y in the declared (0, 100):
    benchmarks/descent_advice.py's development one-hot generator (the prober's table at 400 levels)."""
    rng = np.random.default_rng(0)
    share = 1 / np.arange(1, levels + 1)
    level = rng.choice(levels, n, p=share / share.sum())
    a = rng.uniform(0, 100, n)
    y = np.clip(50 + rng.normal(0, 10, levels)[level] + 0.1 * (a - 50) + rng.normal(0, 5, n), 0, 100)
    names = tuple(f"L{i:03d}" for i in range(levels))
    schema = dpcvx.PublicSchema((dpcvx.CategoricalColumn("code", names), dpcvx.NumericColumn("a", 0, 100)))
    return schema.transform({"code": np.array(names)[level], "a": a}), y


def _said(X: np.ndarray, y: np.ndarray, epsilon: float, label_bound: tuple[float, float]) -> list[tuple[type, str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dpcvx.DPLinearRegression(epsilon=epsilon, label_bound=label_bound, random_state=0).fit(X, y)
    return [(w.category, str(w.message)) for w in caught if w.category.__module__.startswith("dpcvx")]


# slow: several seconds; the default run on a bare clone must stay within 5 minutes (pyproject.toml)
@pytest.mark.slow
def test_a_wide_one_hot_block_is_not_advised_huber():
    """The prober's shape: 400 levels, 30,000 rows, epsilon 4 (n epsilon / d = 299, with momentum): the check fires,
    and the advice that made such fits worse (DPHuberRegressor: 0.163 against the default's 0.543 in the development
    run; the prober's 0.12-0.14 against 0.52-0.63) is not given."""
    X, y = _one_hot(400, 30000)
    said = [text for kind, text in _said(X, y, 4.0, (0, 100)) if kind is SlowDescentWarning]
    assert len(said) == 1
    assert "No setting is known to do better in every case on rows of 401 encoded columns" in said[0]
    assert "DPHuberRegressor(epsilon" not in said[0] and "Fix:" not in said[0]


# slow: several seconds; the default run on a bare clone must stay within 5 minutes (pyproject.toml)
@pytest.mark.slow
def test_a_wide_block_warning_states_what_huber_with_the_public_map_did():
    """probeB session 62 finding 2: at d 254, epsilon 8 the text said "No setting is known to do better" where
    DPHuberRegressor(column_statistics=False), which benchmarks/descent_advice.py never measured, did better in 5 of
    5 fits. benchmarks/descent_wide_huber.py measured it (rule first): better in 17 of 19 warned fits, worse by more
    than 0.02 in 1 held-out, so it failed the held-out check; the text names it with those counts, not as a fix."""
    X, y = _one_hot(400, 30000)
    (said,) = [text for kind, text in _said(X, y, 4.0, (0, 100)) if kind is SlowDescentWarning]
    assert ("DPHuberRegressor(column_statistics=False), at the same epsilon and bounds, did better in 17 of the 19"
            in said)
    assert "held-out 6 of 8, worse by more than 0.02 in 1" in said and "not as a fix" in said


def test_the_wide_block_counts_are_the_recorded_ones():
    """WIDE_HUBER_FIRED / WIDE_HUBER_BETTER are the sums of results/descent_wide_huber_{dev,held}.md's K = 100 rows."""
    fired = better = worse = 0
    for which in ("dev", "held"):
        text = (Path(__file__).resolve().parents[2] / "benchmarks" / "results"
                / f"descent_wide_huber_{which}.md").read_text()
        row = next(line for line in text.splitlines() if line.startswith("| 100 |"))
        a, b, c = (int(cell) for cell in row.strip("|").split("|")[1:4])
        fired, better, worse = fired + a, better + b, worse + c
    assert (fired, better, worse) == (descent_reach.WIDE_HUBER_FIRED, descent_reach.WIDE_HUBER_BETTER, 1)


def test_the_check_runs_without_momentum_from_reach_at():
    """30 flags at 20 % ones, 3,000 rows, epsilon 1: n epsilon / d = 100, no momentum (at or below MOMENTUM_FROM;
    session 70's ramp gives some above it, and at 5,000 rows, 167, the steps with it reach the fit: silent), at least
    REACH_AT: the steps' shortfall is told, with DPHuberRegressor (d = 30 <= HUBER_WIDTH)."""
    X, y = _flags(0.2, n=3000)
    assert REACH_AT <= 3000 * 1.0 / 30 <= MOMENTUM_FROM and HUBER_WIDTH >= 30
    said = [text for kind, text in _said(X, y, 1.0, (0, 5000)) if kind is SlowDescentWarning]
    assert len(said) == 1 and "DPHuberRegressor(epsilon=..., label_bound=...) with the same epsilon" in said[0]
    assert "Fix:" not in said[0] and "did better in 16 of the 17 fits" in said[0]


def test_the_columns_not_located_warning_does_not_promise_epsilon_on_a_wide_block():
    """100 levels, 6,000 rows, epsilon 1: the columns' ranges were not located; at epsilon 2, where they are, the
    development run's fit fell from 0.675 to 0.544, so the public warning says that its evidence stops at 60 columns."""
    X, y = _one_hot(100, 6000)
    said = [text for kind, text in _said(X, y, 1.0, (0, 100)) if kind is NoiseDominatesWarning]
    assert len(said) == 1 and "the columns' ranges were not located" in said[0]
    assert "On rows of more than 60 encoded columns a larger epsilon is not known to help" in said[0]
    assert "raise epsilon" not in said[0]


def test_a_benchmark_measures_the_gate_through_its_hook_not_a_monkeypatch():
    """benchmarks/descent_advice.py assigned descent_reach.REACH_AT = 0 (a monkeypatch the benchmarks' public-API
    test refuses); the documented hook sets the gate inside its block only."""
    from dpcvx.models import descent_reach
    assert not descent_reach.reach_checked(1_000, 1.0, 100)  # n epsilon / d = 10 < REACH_AT
    with descent_reach.measured_from(0.0):
        assert descent_reach.reach_checked(1_000, 1.0, 100)
    assert not descent_reach.reach_checked(1_000, 1.0, 100) and descent_reach.REACH_AT == 100.0
