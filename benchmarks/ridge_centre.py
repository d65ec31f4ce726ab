"""AdaSSP's ridge centred at the intercept-only fit against the former release, centred at 0, on the same draws.

docs/theory.md section 16, "The ridge's centre": with an intercept, :meth:`dpcvx.privacy.adassp.AdaSSPCalibration.
release` centres the ridge at theta_0 = t max(0, 1 - k^2 v / t^2) e_d, the intercept-only fit t of the released
statistics shrunk towards 0 within k = ``CENTRE_MARGIN`` deviations of its own noise. The former release is the
ridge centred at 0 (theta_0 = 0). This script measures both, and the margins k = 0 (unshrunk), 1 and 2 that k = 3
was chosen from, by fitting the package itself with its public constant ``CENTRE_MARGIN`` set to each k for the fit
(:func:`margin`; the library's constant patched for the run, as benchmarks/column_ranges.py does): the centre is
post-processing after every draw, so every variant of one fit releases from the SAME noise draws, and k = infinity
drops every centre, which is the former release draw for draw. :func:`checks` asserts both before anything is
measured: the release with the centre under an infinite margin equals ``release(..., intercept=False)``, and the fit
with the margin set to ``CENTRE_MARGIN`` equals the unpatched package's, bit for bit.

Three measurements, every draw seeded from ``--seed``:

1. **Seven tables** (test R^2, means over seeded 75/25 splits: 6 on diabetes, 4 on the others) at epsilon 0.3, 1,
   3 and 10, ``DPLinearRegression(mechanism="adassp")`` under replace-one: diabetes (benchmarks/real_tables.py's
   rows and public label range [25, 346]) and the test's table (the 500-row design of
   tests/privacy/test_adassp_ridge_centre.py: 36 one-hot sites and two numeric columns, labels about 190 +- 50 in
   [0, 1000]) at the estimator's defaults (plain AdaSSP where n is too small for the label's range search, the
   label's range alone above it: the mechanism of each cell is recorded); and five audit tables fitted with
   ``column_statistics=False`` (plain AdaSSP on rows kept at their public schema's map): clinic_small (700 rows, 36
   sites, a skewed cost about 150 in [0, 1000]), crop (3,000 rows, a yield with a rain x temperature hump the
   linear model cannot fit, 12 soils, [0, 20]), retail (6,000 rows, 45 stores, Student t(2) noise, [0, 5000]),
   rent (9,000 rows, 60 neighbourhoods, a rent about 1,500 +- 400 in [0, 20000]) and hospital (4,000 rows, 25
   departments, a log-normal cost about 400 in [0, 50000], an age with missing cells). Also recorded: the labels'
   mean and spread, each cell's mechanism and intercept_scaling s (the certificate's), and a variant tried and not
   kept, derived from the same fits: the centre only where the scale rule keeps s = 1 (``SCALE_ONLY``).
2. **The audit grid** (144 cells: n in {1, 3, 10, 100, 1000, 20000} x six label shapes x both neighbour relations x
   epsilon in {0.3, 3}; ``GRID_DRAWS`` seeded tables each): ``PrivateLinearRegression(1, 1, fit_intercept=True,
   intercept_scaling="auto")`` at delta 1e-6 on 3 columns uniform in [-1, 1] / sqrt(3), the test MSE on 2,000 rows
   of the same shape. A cell's value is the median MSE over its draws; a margin is worse (better) than the former
   release in a cell whose median exceeds (falls below) the former's by more than ``SAME`` of it, else equal.
   Shapes: offset (labels about 0.8, far from the public centre 0), centred, const (every label 0.9), zeroX (every
   row 0, labels about 0.7), neg (labels about -0.95) and bigX (rows on the unit sphere, labels 0.9 x_1).
3. **Worst cases of the unshrunk centre**: ``DPLinearRegression()``'s defaults on 5 to 150 rows (3 columns, labels
   0.3 x_1 plus noise in the default public range, delta min(1e-6, 0.5 / n)) at epsilon 0.3 and 1, test R^2 on
   2,000 rows; and ``PrivateLinearRegression(1, 1, intercept_scaling=s)`` at epsilon 1 on 400 and 5,000 rows
   (labels 0.3 + 0.5 x_1 plus noise), test MSE, for s from 0.001 to 1. Median and worst over ``WORST_DRAWS`` draws.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.ridge_centre           # writes results/ridge_centre.{md,json}
    OPENBLAS_NUM_THREADS=1 python -m benchmarks.ridge_centre --quick   # fewer splits and draws (ridge_centre_quick)
"""

from __future__ import annotations

import argparse
import math
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from unittest import mock

import numpy as np

import dpcvx
import dpcvx.privacy.adassp as adassp
from benchmarks import common
from benchmarks.real_tables import load
from dpcvx.models.linear_regression import PrivateLinearRegression

EPSILONS = (0.3, 1.0, 3.0, 10.0)
#: The margins measured: the former release (no centre), the unshrunk centre, and the three k was chosen from.
MARGINS = {"former": math.inf, "k=0": 0.0, "k=1": 1.0, "k=2": 2.0, "k=3": 3.0}
SPLITS = {"diabetes": 6}  # splits per table; the others DEFAULT_SPLITS
DEFAULT_SPLITS = 4
GRID_SIZES = (1, 3, 10, 100, 1_000, 20_000)
GRID_SHAPES = ("offset", "centred", "const", "zeroX", "neg", "bigX")
GRID_EPSILONS = (0.3, 3.0)
RELATIONS = ("replace-one", "add-remove")
GRID_DRAWS = 20
WORST_DRAWS = 10
SMALL_SIZES = (5, 20, 50, 150)
SCALINGS = (0.001, 0.01, 0.1, 1.0)
SAME = 0.01  # a grid cell's medians within 1 % of the former's are "equal"
CLOSE = 0.01  # two of the seven tables' mean R^2 within 0.01 are "equal"
COLUMNS = 3  # the grid's and the worst cases' width
TEST_ROWS = 2_000
#: The seven tables' derived variant: k = 3 where the fit's intercept_scaling is 1, the former release elsewhere.
SCALE_ONLY = "k=3 where s = 1"
T = TypeVar("T")


@contextmanager
def margin(k: float) -> Iterator[None]:
    """The fits inside release with AdaSSP's centre margin k (the public constant ``CENTRE_MARGIN``, which
    :func:`dpcvx.privacy.adassp.shrunk_centre` reads at every release; restored after). k = inf: theta_0 = 0, the
    former release. The noise draws do not depend on k (the centre is computed after them)."""
    with mock.patch.object(adassp, "CENTRE_MARGIN", k):
        yield


def each_margin(fit: Callable[[], T]) -> dict[str, T]:
    """``fit()`` (which seeds its own draws) once under every margin of ``MARGINS``: {margin: what it returns}."""
    out = {}
    for name, k in MARGINS.items():
        with margin(k), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[name] = fit()
    return out


def checks(seed: int) -> dict[str, bool]:
    """What the comparison rests on, asserted: an infinite margin gives the former release (intercept=False) draw for
    draw where the package's margin keeps a centre, and the margin set to ``CENTRE_MARGIN`` gives the package's
    unpatched fit bit for bit."""
    rng = common.generator(seed, 0)
    n, s = 400, 0.7
    rows = np.column_stack([rng.uniform(-0.5, 0.5, (n, 3)), np.full(n, s)])
    y = 0.6 + 0.1 * rng.standard_normal(n)
    calibration = adassp.adassp_calibration(1.0, 1e-6, dim=4, data_norm=float(np.hypot(math.sqrt(0.75), s)),
                                            label_bound=1.0)

    def release(intercept: bool) -> np.ndarray:
        return calibration.release(rows.T @ rows, rows.T @ y, common.generator(seed, 1), intercept=intercept,
                                   intercept_mass=n * s * s)

    former = release(False)
    with margin(math.inf):
        dropped = release(True)
    assert np.array_equal(dropped, former), (dropped, former)
    assert not np.allclose(release(True), former)  # the package's margin keeps this centre: the check can fail
    X, labels = the_tests_table(common.generator(seed, 2))

    def coefficients() -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = dpcvx.DPLinearRegression(epsilon=1.0, label_bound=(0.0, 1000.0), mechanism="adassp",
                                             random_state=seed).fit(X, labels)
        return np.append(model.coef_, model.intercept_)

    package = coefficients()
    with margin(adassp.CENTRE_MARGIN):
        patched = coefficients()
    assert np.array_equal(package, patched), (package, patched)
    return {"infinite margin == release(intercept=False)": True,
            f"margin {adassp.CENTRE_MARGIN:g} patched == the package's fit": True}


# -- 1. seven tables ---------------------------------------------------------------------------------------------


def the_tests_table(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The design of tests/privacy/test_adassp_ridge_centre.py's table: 500 rows of 36 one-hot sites (0.6) and two
    numeric columns in [-0.5, 0.5]; labels about 190 +- 50 in the public range [0, 1000]."""
    n = 500
    site = rng.integers(0, 36, n)
    X = np.zeros((n, 38))
    X[np.arange(n), site] = 0.6
    X[:, 36:] = rng.uniform(-0.5, 0.5, (n, 2))
    y = 150 + 40 * X[:, 36] + rng.normal(0, 30, 36)[site] + rng.gamma(1.5, 25, n)
    return X, y


Num, Cat = dpcvx.NumericColumn, dpcvx.CategoricalColumn
Audit = tuple[dict[str, np.ndarray], np.ndarray, tuple[Any, ...], tuple[float, float]]


def _codes(prefix: str, codes: np.ndarray) -> np.ndarray:
    return np.array([f"{prefix}{code}" for code in codes])


def _levels(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{code}" for code in range(count))


def clinic_small(rng: np.random.Generator) -> Audit:
    """700 rows, 36 sites, body-mass index and age; a skewed cost about 150 in [0, 1000]."""
    n = 700
    site = rng.integers(0, 36, n)
    bmi, age = rng.normal(27, 4, n), rng.uniform(20, 80, n)
    effect = np.random.default_rng(15).normal(0, 30, 36)
    y = 150 + 3 * (bmi - 27) + 1.5 * (age - 50) + effect[site] + rng.gamma(1.5, 30, n)
    raw = {"site": _codes("c", site), "bmi": np.clip(bmi, 10, 70), "age": age}
    return raw, y, (Cat("site", _levels("c", 36)), Num("bmi", 10, 70), Num("age", 0, 120)), (0.0, 1000.0)


def crop(rng: np.random.Generator) -> Audit:
    """3,000 rows: a yield in [0, 20] with a rain x temperature hump a linear model cannot fit; 12 soils."""
    n = 3_000
    rain, temp = rng.uniform(200, 1200, n), rng.uniform(10, 32, n)
    soil, fertiliser = rng.integers(0, 12, n), rng.uniform(0, 200, n)
    effect = np.random.default_rng(14).normal(0, 0.3, 12)
    u, v = (rain - 700) / 300, (temp - 21) / 6
    y = 6 + 1.2 * (-u**2 - v**2 + 0.8 * u * v) + 0.004 * fertiliser + effect[soil] + rng.normal(0, 0.7, n)
    raw = {"rain": rain, "temp": temp, "soil": _codes("soil", soil), "n_fert": fertiliser}
    return raw, y, (Num("rain", 0, 3000), Num("temp", -10, 45), Cat("soil", _levels("soil", 12)),
                    Num("n_fert", 0, 400)), (0.0, 20.0)


def retail(rng: np.random.Generator) -> Audit:
    """6,000 rows of weekly sales in [0, 5000], 45 stores, Student t(2) noise; temperature, fuel and CPI fill part of
    their public ranges."""
    n = 6_000
    store, temp, fuel = rng.integers(0, 45, n), rng.normal(15, 8, n), rng.uniform(2.5, 4.2, n)
    holiday, cpi = rng.random(n) < 0.07, rng.uniform(126, 228, n)
    effect = np.random.default_rng(12).gamma(2.0, 120, 45)
    y = effect[store] + 2.0 * temp - 30 * fuel + 80 * holiday + 0.5 * cpi + 40 * rng.standard_t(2, n)
    raw = {"store": _codes("S", store), "temp": np.clip(temp, -40, 50), "fuel": fuel,
           "holiday": np.where(holiday, "yes", "no"), "cpi": cpi}
    return raw, y, (Cat("store", _levels("S", 45)), Num("temp", -40, 50), Num("fuel", 0, 10),
                    Cat("holiday", ("no", "yes")), Num("cpi", 0, 400)), (0.0, 5000.0)


def rent(rng: np.random.Generator) -> Audit:
    """9,000 rows of a monthly rent about 1,500 +- 400 in [0, 20000] (50 times its spread); 60 neighbourhoods."""
    n = 9_000
    hood, sqft = rng.integers(0, 60, n), rng.gamma(6, 140, n)
    beds = np.clip(np.round(sqft / 400 + rng.normal(0, 0.6, n)), 0, 10)
    year, furnished = rng.integers(1900, 2024, n).astype(float), rng.random(n) < 0.2
    effect = np.random.default_rng(13).normal(0, 180, 60)
    y = (1400 + 0.45 * (sqft - 840) + 60 * beds + 1.2 * (year - 1960) + effect[hood] + 90 * furnished
         + rng.normal(0, 150, n))
    raw = {"hood": _codes("H", hood), "sqft": np.clip(sqft, 0, 10000), "beds": beds, "year": year,
           "furnished": np.where(furnished, "1", "0")}
    return raw, y, (Cat("hood", _levels("H", 60)), Num("sqft", 0, 10000), Num("beds", 0, 10),
                    Num("year", 1800, 2030), Cat("furnished", ("0", "1"))), (0.0, 20000.0)


def hospital(rng: np.random.Generator) -> Audit:
    """4,000 stays of a log-normal cost about 400 in [0, 50000]; 25 departments, an age with missing cells, a
    near-constant flag."""
    n = 4_000
    age, stay = rng.uniform(18, 90, n), np.minimum(rng.geometric(0.25, n), 60).astype(float)
    department, flag = rng.integers(0, 25, n), (rng.random(n) < 0.01).astype(float)
    charlson = rng.poisson(1.5, n).astype(float)
    effect = np.random.default_rng(11).normal(0, 0.35, 25)
    y = np.exp(5.3 + 0.006 * age + 0.09 * stay + effect[department] + 0.08 * charlson + 0.3 * flag
               + rng.normal(0, 0.45, n))
    age[rng.random(n) < 0.08] = np.nan
    raw = {"age": age, "los": stay, "dept": _codes("D", department), "flag": flag, "charlson": charlson}
    return raw, y, (Num("age", 0, 110, missing=50.0, missing_indicator=True), Num("los", 0, 365),
                    Cat("dept", _levels("D", 25)), Num("flag", 0, 1), Num("charlson", 0, 30)), (0.0, 50000.0)


AUDIT_TABLES: dict[str, Callable[[np.random.Generator], Audit]] = {
    "clinic_small": clinic_small, "crop": crop, "retail": retail, "rent": rent, "hospital": hospital}
TABLES = ("diabetes", "the test's table", *AUDIT_TABLES)


def table_rows(name: str, seed: int) -> tuple[np.ndarray, np.ndarray, tuple[float, float], dict[str, Any]]:
    """(public-schema rows, labels clipped onto the public range, that range, the estimator's options) of ``name``."""
    if name == "diabetes":
        table = load("diabetes")
        assert table.label_range is not None
        return table.X, table.y, table.label_range, {}
    if name == "the test's table":
        X, y = the_tests_table(common.generator(seed, 10))
        return X, y, (0.0, 1000.0), {}
    raw, y, columns, label_range = AUDIT_TABLES[name](common.generator(seed, 10, TABLES.index(name)))
    return (dpcvx.PublicSchema(columns).transform(raw), np.clip(y, *label_range), label_range,
            {"column_statistics": False})


def table_fit(estimator: Any, X: np.ndarray, y: np.ndarray, X_test: np.ndarray, y_test: np.ndarray
              ) -> tuple[float, str, float]:
    """(test R^2, the certificate's mechanism, its intercept_scaling s) of ``estimator`` fitted on (X, y)."""
    model = estimator.fit(X, y)
    return float(model.score(X_test, y_test)), model.certificate_.mechanism, model.certificate_.intercept_scaling


def seven_tables(seed: int, quick: bool) -> list[dict]:
    """Measurement 1: per table and epsilon, each margin's test R^2 on every split, and the mechanism fitted."""
    out = []
    for index, name in enumerate(TABLES):
        X, y, label_range, options = table_rows(name, seed)
        n = X.shape[0]
        splits = 2 if quick else SPLITS.get(name, DEFAULT_SPLITS)
        row: dict[str, Any] = {"table": name, "rows": n, "train": int(0.75 * n), "label_range": label_range,
                               "labels": [float(y.mean()), float(y.std())], "r2": {}, "mechanism": {}, "scaling": {}}
        for split in range(splits):
            order = common.generator(seed, 20, index, split).permutation(n)
            train, test = order[:int(0.75 * n)], order[int(0.75 * n):]
            for position, epsilon in enumerate(EPSILONS):
                estimator = dpcvx.DPLinearRegression(epsilon=epsilon, label_bound=label_range, mechanism="adassp",
                                                     random_state=common.int_seed(seed, 30, index, split, position),
                                                     **options)
                fitted = each_margin(partial(table_fit, estimator, X[train], y[train], X[test], y[test]))
                cells = row["r2"].setdefault(f"{epsilon:g}", {})
                for margin_name, (value, mechanism, scaling) in fitted.items():
                    cells.setdefault(margin_name, []).append(value)
                    row["mechanism"].setdefault(f"{epsilon:g}", set()).add(mechanism)
                    row["scaling"].setdefault(f"{epsilon:g}", set()).add(scaling)
                # the variant tried and not kept: the centre only where the scale rule keeps s = 1
                cells.setdefault(SCALE_ONLY, []).append(cells["k=3" if scaling == 1 else "former"][-1])
        row["mechanism"] = {key: sorted(value) for key, value in row["mechanism"].items()}
        row["scaling"] = {key: sorted(value) for key, value in row["scaling"].items()}
        out.append(row)
        print(name, {eps: {m: round(float(np.mean(v)), 3) for m, v in cells.items()}
                     for eps, cells in row["r2"].items()}, flush=True)
    return out


# -- 2. the audit grid -------------------------------------------------------------------------------------------


def grid_table(shape: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """n rows of 3 columns uniform in [-1, 1] / sqrt(3) and labels of ``shape`` (module notes), clipped onto [-1, 1]."""
    X = rng.uniform(-1, 1, (n, COLUMNS)) / math.sqrt(COLUMNS)
    if shape == "offset":
        y = 0.8 + 0.1 * X.sum(axis=1) + 0.02 * rng.standard_normal(n)
    elif shape == "centred":
        y = 0.5 * X.sum(axis=1) + 0.05 * rng.standard_normal(n)
    elif shape == "const":
        y = np.full(n, 0.9)
    elif shape == "zeroX":
        X = np.zeros((n, COLUMNS))
        y = 0.7 + 0.1 * rng.standard_normal(n)
    elif shape == "neg":
        y = -0.95 + 0.05 * rng.standard_normal(n)
    else:  # bigX: rows on the unit sphere, the intercept carried by x
        X = X / np.linalg.norm(X, axis=1, keepdims=True)
        y = 0.9 * X[:, 0]
    return X, np.clip(y, -1.0, 1.0)


def held_out_mse(fit: Callable[[], Any], X_test: np.ndarray, y_test: np.ndarray) -> float:
    """The test MSE of the model ``fit()`` releases."""
    return float(np.mean((fit().predict(X_test) - y_test) ** 2))


def audit_grid(seed: int, draws: int) -> list[dict]:
    """Measurement 2: per cell, each margin's test MSE on every draw."""
    out = []
    for shape_index, shape in enumerate(GRID_SHAPES):
        X_test, y_test = grid_table(shape, TEST_ROWS, common.generator(seed, 40, shape_index))
        for n in GRID_SIZES:
            for relation_index, relation in enumerate(RELATIONS):
                for epsilon_index, epsilon in enumerate(GRID_EPSILONS):
                    mse: dict[str, list[float]] = {name: [] for name in MARGINS}
                    for draw in range(draws):
                        X, y = grid_table(shape, n, common.generator(seed, 41, shape_index, n, draw))

                        learner = PrivateLinearRegression(1.0, 1.0, fit_intercept=True, intercept_scaling="auto",
                                                          allow_large_delta=True)
                        fit_seed = common.int_seed(seed, 42, shape_index, n, relation_index, epsilon_index, draw)
                        fit = partial(held_out_mse, partial(learner.fit, X, y, epsilon, 1e-6, neighbours=relation,
                                                        random_state=fit_seed), X_test, y_test)
                        for name, value in each_margin(fit).items():
                            mse[name].append(value)
                    out.append({"shape": shape, "n": n, "relation": relation, "epsilon": epsilon, "mse": mse})
        print("grid", shape, "done", flush=True)
    return out


def grid_summary(cells: list[dict]) -> dict[str, dict[str, Any]]:
    """Per margin: the cells worse, better and equal than the former release (medians, ``SAME``), the largest and
    smallest ratio of medians, and the cells whose every draw released the former fit exactly."""
    summary = {}
    for name in MARGINS:
        if name == "former":
            continue
        ratios, identical = [], 0
        for cell in cells:
            former, mine = np.median(cell["mse"]["former"]), np.median(cell["mse"][name])
            ratios.append(float(mine / former) if former > 0 else (1.0 if mine == former else math.inf))
            identical += cell["mse"][name] == cell["mse"]["former"]
        worst = int(np.argmax(ratios))
        summary[name] = {"worse": sum(r > 1 + SAME for r in ratios), "better": sum(r < 1 - SAME for r in ratios),
                         "equal": sum(abs(r - 1) <= SAME for r in ratios), "identical": identical,
                         "max_ratio": max(ratios), "min_ratio": min(ratios),
                         "worst_cell": {key: cells[worst][key] for key in ("shape", "n", "relation", "epsilon")}}
    return summary


# -- 3. worst cases ----------------------------------------------------------------------------------------------


def small_tables(seed: int, draws: int) -> list[dict]:
    """Measurement 3a: DPLinearRegression()'s test R^2 on 5 to 150 rows, each margin, every draw."""
    out = []
    for n in SMALL_SIZES:
        for epsilon in (0.3, 1.0):
            r2: dict[str, list[float]] = {name: [] for name in MARGINS}
            for draw in range(draws):
                rng = common.generator(seed, 50, n, draw)
                X = rng.uniform(-1, 1, (n, COLUMNS)) / math.sqrt(COLUMNS)
                y = 0.3 * X[:, 0] + 0.05 * rng.standard_normal(n)
                X_test = rng.uniform(-1, 1, (TEST_ROWS, COLUMNS)) / math.sqrt(COLUMNS)

                estimator = dpcvx.DPLinearRegression(epsilon=epsilon, delta=min(1e-6, 0.5 / n),
                                                     random_state=common.int_seed(seed, 51, n, draw))
                fit = partial(table_fit, estimator, X, y, X_test, 0.3 * X_test[:, 0])
                for name, (value, *_) in each_margin(fit).items():
                    r2[name].append(value)
            out.append({"n": n, "epsilon": epsilon, "r2": r2})
    return out


def small_scalings(seed: int, draws: int) -> list[dict]:
    """Measurement 3b: PrivateLinearRegression's test MSE at intercept_scaling s, each margin, every draw."""
    out = []
    for n in (400, 5_000):
        for scaling in SCALINGS:
            mse: dict[str, list[float]] = {name: [] for name in MARGINS}
            for draw in range(draws):
                rng = common.generator(seed, 60, n, draw)
                X = rng.uniform(-1, 1, (n, COLUMNS)) / math.sqrt(COLUMNS)
                y = 0.5 * X[:, 0] + 0.3 + 0.05 * rng.standard_normal(n)
                X_test = rng.uniform(-1, 1, (TEST_ROWS, COLUMNS)) / math.sqrt(COLUMNS)

                learner = PrivateLinearRegression(1.0, 1.0, fit_intercept=True, intercept_scaling=scaling)
                fit = partial(held_out_mse, partial(learner.fit, X, y, 1.0, 1e-6,
                                                random_state=common.int_seed(seed, 61, n, draw)),
                              X_test, 0.5 * X_test[:, 0] + 0.3)
                for name, value in each_margin(fit).items():
                    mse[name].append(value)
            out.append({"n": n, "intercept_scaling": scaling, "mse": mse})
    return out


# -- the run and its Markdown ------------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict:
    record = common.RunRecord("benchmarks.ridge_centre")
    draws, worst = (5, 4) if args.quick else (GRID_DRAWS, WORST_DRAWS)
    with common.limit_threads(1):
        verified = checks(args.seed)
        tables = seven_tables(args.seed, args.quick)
        grid = audit_grid(args.seed, draws)
        small = small_tables(args.seed, worst)
        scalings = small_scalings(args.seed, worst)
    return {"run": record.finish(), "quick": args.quick, "seed": args.seed, "package_margin": adassp.CENTRE_MARGIN,
            "margins": {name: (None if math.isinf(k) else k) for name, k in MARGINS.items()}, "checks": verified,
            "grid_draws": draws, "worst_draws": worst, "same": SAME, "close": CLOSE, "tables": tables,
            "grid": grid, "grid_summary": grid_summary(grid), "small_tables": small, "scalings": scalings}


def r2_text(value: float) -> str:
    """A mean R^2 at the precision the docs quote: two decimals below 10 in size, three figures above."""
    return f"{value:.3g}" if abs(value) >= 10 else f"{value:.2f}"


def table_differences(tables: list[dict], name: str, against: str = "former") -> list[float]:
    """Per cell of the seven tables, the mean R^2 of ``name`` minus that of ``against``."""
    return [float(np.mean(cell[name]) - np.mean(cell[against])) for row in tables for cell in row["r2"].values()]


def table_counts(tables: list[dict], name: str, against: str = "former") -> tuple[int, int, int]:
    """(better, worse, equal) cells of the seven tables for ``name`` against ``against`` (means within ``CLOSE``
    equal)."""
    differences = table_differences(tables, name, against)
    better, worse = sum(d > CLOSE for d in differences), sum(d < -CLOSE for d in differences)
    return better, worse, len(differences) - better - worse


def markdown(output: dict) -> str:
    from benchmarks import report

    k = f"k={output['package_margin']:g}"
    tables = output["tables"]
    lines = [report.run_header(output, "AdaSSP's ridge centre against the former release (centred at 0), same draws "
                                       "(benchmarks/ridge_centre.py)"), "",
             "Checks (asserted before measuring): " + "; ".join(output["checks"]) + ".", "",
             f"## 1. Seven tables: mean test R^2, former release -> centred ({k}, the package's)", "",
             "Splits: " + ", ".join(f"{row['table']} {len(next(iter(row['r2'].values()))['former'])}"
                                    for row in tables) + ". n: training rows.", "",
             "| table (n) | " + " | ".join(f"{eps:g}" for eps in EPSILONS) + " |", "|---|" + "---|" * len(EPSILONS)]
    for row in tables:
        lines.append(f"| {row['table']} ({row['train']:,}) | " + " | ".join(
            f"{r2_text(np.mean(cell['former']))} -> {r2_text(np.mean(cell[k]))}" for cell in row["r2"].values())
            + " |")
    lines += ["", "Labels (mean ± sd over all rows, clipped onto the public range), and per epsilon the certificate's "
              "mechanism and intercept_scaling s:", "",
              "| table | labels (public range) | mechanism | s |", "|---|---|---|---|"]
    for row in tables:
        low, high = row["label_range"]
        lines.append(f"| {row['table']} | {row['labels'][0]:.4g} ± {row['labels'][1]:.3g} ({low:g}, {high:g}) | "
                     + " / ".join("+".join(m) for m in row["mechanism"].values()) + " | "
                     + " / ".join("+".join(f"{v:.3g}" for v in values) for values in row["scaling"].values()) + " |")
    variants = [*MARGINS, SCALE_ONLY]
    epsilons = ", ".join(f"{e:g}" for e in EPSILONS)
    lines += ["", f"Every margin on the seven tables: mean test R^2 at each epsilon ({epsilons}), and the cells (of "
              f"{len(EPSILONS) * len(tables)}) better / worse / equal against the former release (means within "
              f"{output['close']:g} equal). {SCALE_ONLY}: the centre (k = 3) only where the fit's s is 1, the former "
              "release elsewhere.", "",
              "| table | " + " | ".join(variants) + " |", "|---|" + "---|" * len(variants)]
    for row in tables:
        lines.append(f"| {row['table']} | " + " | ".join(
            " / ".join(r2_text(np.mean(cell[name])) for cell in row["r2"].values()) for name in variants) + " |")
    lines.append("| better / worse / equal | - | " + " | ".join(
        "{} / {} / {}".format(*table_counts(tables, name)) for name in variants[1:]) + " |")
    differences = table_differences(tables, SCALE_ONLY, k)
    lines += ["", f"{SCALE_ONLY} against {k}: better / worse / equal in "
              "{} / {} / {} cells".format(*table_counts(tables, SCALE_ONLY, k))
              + f"; mean R^2 summed over the cells it wins {sum(d for d in differences if d > CLOSE):+.2f}, over "
              f"those it loses {sum(d for d in differences if d < -CLOSE):+.2f}."]
    summary = output["grid_summary"]
    lines += ["", f"## 2. The audit grid: {len(output['grid'])} cells, {output['grid_draws']} draws each", "",
              f"Cells whose median test MSE is worse / better than the former release's by more than "
              f"{output['same']:.0%} of it, else equal; identical: every draw released the former fit exactly.", "",
              "| margin | worse | better | equal | identical | largest MSE ratio (cell) | smallest MSE ratio |",
              "|---|---|---|---|---|---|---|"]
    for name, cells in summary.items():
        cell = cells["worst_cell"]
        lines.append(f"| {name} | {cells['worse']} | {cells['better']} | {cells['equal']} | {cells['identical']} | "
                     f"{cells['max_ratio']:.3g} ({cell['shape']}, n {cell['n']:,}, {cell['relation']}, epsilon "
                     f"{cell['epsilon']:g}) | {cells['min_ratio']:.3g} |")
    lines += ["", f"## 3. Worst cases, median (worst) over {output['worst_draws']} draws", "",
              "DPLinearRegression()'s defaults on few rows: test R^2.", "",
              "| n | epsilon | " + " | ".join(MARGINS) + " |", "|---|---|" + "---|" * len(MARGINS)]
    for cell in output["small_tables"]:
        lines.append(f"| {cell['n']} | {cell['epsilon']:g} | " + " | ".join(
            f"{np.median(cell['r2'][name]):.3g} ({min(cell['r2'][name]):.3g})" for name in MARGINS) + " |")
    lines += ["", "PrivateLinearRegression(intercept_scaling=s) at epsilon 1: test MSE (labels in [-1, 1]).", "",
              "| n | s | " + " | ".join(MARGINS) + " |", "|---|---|" + "---|" * len(MARGINS)]
    for cell in output["scalings"]:
        lines.append(f"| {cell['n']:,} | {cell['intercept_scaling']:g} | " + " | ".join(
            f"{np.median(cell['mse'][name]):.3g} ({max(cell['mse'][name]):.3g})" for name in MARGINS) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ridge_centre", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="2 splits a table, 5 draws a grid cell, 4 a worst case")
    common.add_result_arguments(parser, None, "file name tag (default: ridge_centre, or _quick)")
    args = parser.parse_args(argv)
    output = run(args)
    common.write_results(output, markdown(output), Path(args.out),
                         args.tag or ("ridge_centre_quick" if args.quick else "ridge_centre"))
    return output


if __name__ == "__main__":
    main()
