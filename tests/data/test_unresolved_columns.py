"""NOT PRIVATE: a column the private ranges located without resolving it is named with its fix
(dpcvx.data.notes.unresolved_columns, UnresolvedColumnWarning).

A prober's tables released useless models and named no column: spend near 200 declared 0..1,000,000 (balanced
accuracy 0.50; the training-rows warning advised class weights), and six classes in raw columns of units 1 to 1e5
under one data_norm (accuracy below the majority rate). Each such column fell within one cell of its grid, and the
map scaled it by the cell's width."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.data.notes import UNRESOLVED_SHARE, unresolved_columns
from dpcvx.exceptions import UnresolvedColumnWarning


def tiers(n=9000, seed=5):
    """Three tiers told by spend (0..150 or so) and an age that tells nothing."""
    rng = np.random.default_rng(seed)
    tier = rng.choice([0, 1, 2], n, p=[.6, .3, .1])
    return {"spend": tier * 40 + rng.gamma(2, 10, n), "age": rng.uniform(18, 90, n)}, tier


def schema(high):
    return dpcvx.PublicSchema((dpcvx.NumericColumn("spend", 0, high), dpcvx.NumericColumn("age", 0, 120)))


def fitted(X, y, **options):
    """Accuracy on held-out rows, and the texts of the UnresolvedColumnWarnings of the fit."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = dpcvx.DPLogisticRegression(classes=(0, 1, 2), epsilon=1, random_state=0, **options).fit(
            X[:7000], y[:7000])
    texts = [str(w.message) for w in caught if w.category is UnresolvedColumnWarning]
    return float(np.mean(model.predict(X[7000:]) == y[7000:])), texts


def test_a_column_in_one_cell_of_its_grid_is_named_with_its_fix():
    """Declared 0..100,000 the three classes scored the majority rate, and nothing named spend; declared 0..1,000
    (the warning's fix: a closer documented range) they are told apart, and nothing is said."""
    table, tier = tiers()
    loose, texts = fitted(schema(100_000).transform(table), tier)
    assert len(texts) == 1 and "column 0" in texts[0] and "column 1" not in texts[0], texts
    assert "Fix: a declared range closer" in texts[0] and "NOT PRIVATE" in texts[0] and "dpcvx.PublicSchema" in texts[0]
    # the one fix named is the one benchmarks/unresolved_advice.py measured better in every case: the log scale is
    # told as better in most cases, not all, and is no longer offered as a fix beside it
    assert "did better in every measured case" in texts[0] and "or the log scale" not in texts[0], texts[0]
    close, texts = fitted(schema(1000).transform(table), tier)
    assert texts == [] and close > loose + 0.1, (close, loose)
    # the same columns without the private ranges: nothing located, nothing said
    assert fitted(schema(100_000).transform(table), tier, column_statistics=False)[1] == []


def heavy_tailed(scale="linear", n=15000, seed=0):
    """benchmarks/unresolved_advice.py's development table "lognormal s=1 linear": spend exp(N(5, 1)) declared
    0..1e5 (or on the log scale), visits, age; the label linear in spend."""
    rng = np.random.default_rng(seed)
    spend, visits, age = np.exp(rng.normal(5, 1.0, n)), rng.integers(0, 30, n) + 0.0, rng.integers(18, 80, n) + 0.0
    declared = dpcvx.PublicSchema((dpcvx.NumericColumn("spend", 0, 1e5, scale=scale), dpcvx.NumericColumn(
        "visits", 0, 31), dpcvx.NumericColumn("age", 17, 90)), norm=1.0)
    X = declared.transform({"spend": spend, "visits": visits, "age": age})
    return X, 0.8 * spend + 5 * visits + rng.normal(0, 20, n)


def huber(X, y):
    """DPHuberRegressor's test R^2 on the last 5,000 rows, and the texts of its UnresolvedColumnWarnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = dpcvx.DPHuberRegressor(epsilon=8, label_bound=(-100, 80_300), random_state=0).fit(X[:10000], y[:10000])
    texts = [str(w.message) for w in caught if w.category is UnresolvedColumnWarning]
    return model.score(X[10000:], y[10000:]), texts


def test_a_regressor_names_no_fix_that_was_measured_worse():
    """The analyst probe of session 58 (finding 5): after DPHuberRegressor on a heavy-tailed column the warning named
    the log scale and a closer range, and following it made the fit worse and silent. Both did worse on this table
    (benchmarks/unresolved_advice.py), so the text names neither as a fix and says that none is known."""
    X, y = heavy_tailed()
    warned, texts = huber(X, y)
    assert len(texts) == 1 and "column 0" in texts[0], texts
    assert "Fix:" not in texts[0] and "No setting is known to do better in every case" in texts[0], texts[0]
    assert "benchmarks/unresolved_advice.py" in texts[0] and "NOT PRIVATE" in texts[0]
    # the measured outcome the text rests on: the log scale does worse here, and is silent
    logged, texts = huber(*heavy_tailed("log"))
    assert logged < warned - 0.2 and texts == [], (logged, warned)


def test_a_table_names_its_columns():
    """Raw columns in units 1 to 1e5 under one public data_norm: the small ones are named by the table's names."""
    pandas = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 9000
    small, large = rng.uniform(0, 10, n), rng.uniform(0, 100_000, n)
    y = (small + large / 10_000 + rng.normal(0, 1, n) > 10).astype(int)
    X = pandas.DataFrame({"rooms": small, "price": large})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dpcvx.DPLogisticRegression(data_norm=float(np.hypot(10, 100_000)), epsilon=1, random_state=0).fit(X, y)
    texts = [str(w.message) for w in caught if w.category is UnresolvedColumnWarning]
    assert len(texts) == 1 and "'rooms'" in texts[0] and "'price'" not in texts[0], texts


def test_a_regression_names_a_small_column_beside_a_large_one():
    """DPLinearRegression's ranges (the search's grid of 2^14 cells) on raw columns 0..1 beside 0..100,000 under one
    R: R^2 0.46 where the columns scaled by their bounds reach 0.92, and nothing was said."""
    rng = np.random.default_rng(1)
    n = 20000
    X = np.column_stack([rng.uniform(0, 1, n), rng.uniform(0, 100_000, n)])
    y = 500 * X[:, 0] + X[:, 1] / 500 + rng.normal(0, 20, n)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dpcvx.DPLinearRegression(data_norm=float(np.hypot(1, 100_000)), label_bound=(-100, 900), epsilon=1,
                                 random_state=0).fit(X, y)
    texts = [str(w.message) for w in caught if w.category is UnresolvedColumnWarning]
    assert len(texts) == 1 and "column 0" in texts[0] and "column 1" not in texts[0], texts


def test_what_is_not_named():
    """Located ranges (2 x d, in the rows' values) against the rows: a column filling a sliver of its one-cell range
    is named; a flag that holds one value on most rows (a range of one point states it), a column filling its range,
    a column whose range is the whole grid, and a column that holds one value but moves with the factor of rows
    scaled onto their bound are not."""
    rng = np.random.default_rng(3)
    n, cell = 20000, 2 / 256
    sliver = -0.3 + rng.uniform(0, cell / 10, n)  # a tenth of one cell
    flag = np.where(rng.uniform(size=n) < 0.05, 0.2, -0.2)
    filled = rng.uniform(0.1, 0.1 + 3 * cell, n)
    whole = rng.uniform(-0.3, 0.3, n)
    X = np.column_stack([sliver, flag, filled, whole])
    ranges = np.array([[-0.3, -0.2, 0.1, -1.0], [-0.3 + cell, -0.2 + cell, 0.1 + 3 * cell, 1.0]])
    assert unresolved_columns(X, ranges, cell, 1.0).tolist() == [0]
    assert unresolved_columns(X[:, 1:], ranges[:, 1:], cell, 1.0).tolist() == []
    # the sliver's spread at the share and beyond it
    wider = np.column_stack([-0.3 + rng.uniform(0, UNRESOLVED_SHARE * cell * 1.3, n), flag])
    assert unresolved_columns(wider, ranges[:, :2], cell, 1.0).tolist() == []
    # rows scaled onto R = 1 by a column that moves them: the constant column's values move with each row's factor
    big = np.column_stack([np.full(n, -0.3), rng.uniform(2, 3, n)])
    scaled = big / np.linalg.norm(big, axis=1)[:, None]
    assert unresolved_columns(scaled, np.array([[-0.3, -1.0], [-0.3 + cell, 1.0]]), cell, 1.0).tolist() == []
    # a sparse matrix or no rows: not read
    assert unresolved_columns(X[:0], ranges, cell, 1.0).tolist() == []


def test_tune_says_nothing():
    """A selection does not react to a NOT PRIVATE note: tune's runs draw the ranges inside checks_off."""
    table, tier = tiers()
    X = schema(100_000).transform(table)[:7000]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dpcvx.tune(dpcvx.DPLogisticRegression(classes=(0, 1, 2)), X, tier[:7000], {"lam": [1e-4, 1e-3]}, epsilon=1,
                   random_state=0)
    assert not any(w.category is UnresolvedColumnWarning for w in caught)


def test_the_command_line_names_the_schema_column(tmp_path):
    """dpcvx fit knows its schema: the encoded column is named by the declared column that makes it."""
    table, tier = tiers()
    path = tmp_path / "tiers.csv"
    path.write_text("spend,age,tier\n" + "\n".join(f"{table['spend'][i]:.3f},{table['age'][i]:.3f},{tier[i]}"
                                                   for i in range(tier.size)) + "\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["fit", str(path), "--target", "tier", "--classes", "0,1,2", "--numeric", "spend:0:100000",
                     "--numeric", "age:0:120", "--epsilon", "1", "--data-norm", "1", "--random-state", "0",
                     "--out", str(tmp_path / "m.json")]) == 0
    texts = [str(w.message) for w in caught if w.category is UnresolvedColumnWarning]
    assert len(texts) == 1 and "'spend'" in texts[0] and "--numeric NAME:LO:HI:log" in texts[0], texts
