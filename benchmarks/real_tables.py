"""Real tables: what the estimators' defaults give a user, beside trivial and non-private scikit-learn (issue 42).

Every table the project has, each encoded with public bounds only (a :class:`dpcvx.PublicSchema`, or the
loaders' ``mode="private"`` schemas), fitted with the estimators' defaults at epsilon in {0.3, 1, 3}:

* Adult and KDD Cup 99 (70,000 random rows, seed 0): binary, balanced accuracy;
* scikit-learn's bundled breast_cancer (binary, balanced accuracy), diabetes (regression, R^2), digits
  (10 classes, accuracy) and wine (3 classes, accuracy). Their public bounds are the ranges their
  documentation states (the DESCR tables of breast_cancer and wine list each column's min and max;
  digits' pixels lie in [0, 16]; diabetes' columns are centred and scaled to unit norm, so |x| <= 1, and
  its target lies in [25, 346]);
* three synthetic tables, their generators fixed before any run: ``rare3`` (10,000 rows, 3 numeric
  columns, 3% positives), ``coded80`` (6,000 rows, 80 integer-coded columns in [0, 9], 6% positives) and
  ``heavy`` (5,000 rows, 8 columns, a regression whose noise is Student t with 2 degrees of freedom,
  public label range [-20, 20]).
* four HELD-OUT synthetic families (``HELD_OUT``; issue 42's hidden check, shaped like what users bring), their
  generators and the one public rule they check (AdaSSP's intercept scale, docs/theory.md section 16) committed
  before any fit on them: ``prices`` (4,000 rows, a price in [0, 1000] that sits in its lower fifth; area,
  rooms, building age and distance with loose public ranges, four 0/1 codes), ``wages500`` (3,500 rows, a wage
  in [0, 500]; schooling, experience and hours beside a 5-category sector and two 0/1 codes), ``mixed10``
  (20,000 rows, 10% positives; four numeric columns with loose ranges and four categorical ones, 22 features)
  and ``rare2`` (30,000 rows, 2% positives; six numeric columns, three of them in a tenth of their public
  range).
* two more HELD-OUT regression families, written after DPHuberRegressor's m="auto" rule (docs/theory.md section
  16) was committed, to check it: ``rents`` (5,000 rows, a monthly rent in [0, 5000]; a log-normal floor area,
  an 8-category district, floor, year built, furnished and bedrooms, a skewed noise) and ``claims`` (6,000 rows,
  a claim cost in [0, 40000]; age, a body-mass index, smoker, children, a 4-category region, one column spread
  over its whole range and four [-1, 1] columns of which two carry no signal; noise twice as wide for smokers).
* two more HELD-OUT regression families whose columns fill a small part of their public ranges, written and
  committed before any fit on them and before DPLinearRegression's default was changed for issue 42 (to check it):
  ``energy`` (4,500 rows, a yearly energy use in [0, 2,000,000] kWh; a log-normal floor area in a public range
  [0, 100,000] m^2, year built in [1800, 2030] around 1950-2020, weekly occupied hours in [0, 168] around 55,
  a thermostat setpoint in [0, 40] within 18-24, a 6-category use and a 0/1 retrofit) and ``trips`` (4,000 rows,
  a delivery time in [0, 600] minutes; distance in [0, 500] km around 8, parcel weight in [0, 1000] kg around
  20, items in [0, 200] around 3, the hour in [0, 24] within 7-21, floors in [0, 100] around 2, a 3-category
  vehicle and a 0/1 rain flag).
* three more HELD-OUT families whose columns fill a small part of their public ranges, written and committed
  (2026-11-29, fifth session) before any fit on them and before a scale-free private column statistic was built
  for issue 42 (to check it): ``clinic`` (3,000 rows, a stay cost in [0, 100,000]; age in [0, 120] around 20-95,
  systolic pressure in [0, 300] around 110-170, body temperature in [0, 50] around 36-39.5, a body-mass index in
  [0, 100] around 18-40, a 4-category ward, a 0/1 emergency flag), ``sensors`` (6,000 rows, a yield in [0, 1000];
  pressure in [0, 2000] around 990-1030, humidity in [0, 100], temperature in kelvin in [0, 500] around 280-310,
  a flow in [0, 10,000] around 100-300, a voltage in [0, 1000] around 228-232, a speed in [0, 20,000] around
  1,400-1,600 and two readings that carry no signal) and ``alarms`` (12,000 rows, about 11% positive; five such
  readings and a 3-category site).
* one more HELD-OUT binary family, written and committed (2026-11-29, sixth session) with only its non-private
  reference run, before any dpcvx fit on it and before the classifiers' default column statistic was changed for
  issue 42 (to check it): ``orders`` (14,000 rows, about 8% positive, a fraud flag; a log-normal order amount in
  [0, 100,000] around 20-400, items in [0, 500] around 1-8 (Poisson), an account age in [0, 7,300] days spread
  over 0-3,000, a discount share in [0, 1] spread over all of it, a shipping distance in [0, 20,000] km around
  5-900 (exponential), a 0/1 express flag at 4%, a 0/1 new-address flag at 15%, a 5-category payment and a reading
  that carries no signal in [0, 1000] around 480-520).
* three more HELD-OUT regression families, written and committed (2026-11-29, seventh session) with only their
  non-private reference run, before any dpcvx fit on them and before DPHuberRegressor's default was changed for
  issue 42 (to check it); skewed columns at very different fractions of their public ranges, a few that fill them,
  a column without signal and a label whose public range is loose against its spread: ``water`` (7,000 rows, a
  household's daily water use in litres in [0, 100,000]; household size, a garden area that is often zero, an
  income, an outdoor temperature, a pool flag, a 4-category dwelling and a meter age without signal),
  ``repairs`` (9,000 rows, a repair cost in [0, 250,000] with heavy-tailed noise; running hours, machine age,
  a vibration reading, a load share, technicians, a warranty flag, a 5-category fault and a humidity without
  signal) and ``harvest`` (3,200 rows, a crop yield in t/ha in [0, 100]; rainfall, a nitrogen dose that is
  zero on organic fields, soil pH, field size, slope, sowing day, an irrigation flag, a 3-category variety and
  a shade share without signal).

Columns: ``dpcvx``: DPLogisticRegression() (binary and multiclass, ``classes`` the public labels) or
DPLinearRegression(label_bound=the public range) with every other parameter at its default, on the public-schema
rows (regression tables also show DPHuberRegressor(label_bound=the public range) at its defaults, scored alike: gap
and acceptance rule for each), and for binary tables the same release's decision cut at the log-odds of the table's
public rate of the positive class (PRIORS, from its documentation; ``threshold=`` that rate, post-processing of the
same release, docs/theory.md section 32); on imbalanced binary tables (minority rate below 0.3)
``DPLogisticRegression(class_weight="balanced")``, its weights from one private class count within the same epsilon
(docs/theory.md, section 21); ``trivial``: 0.5 balanced accuracy, the training majority class's test accuracy, or
the R^2 of the training mean; ``reference``: non-private scikit-learn on standard preprocessing (one-hot and
StandardScaler: the schema's features before the row-norm bound, then StandardScaler),
LogisticRegression(class_weight="balanced") for binary tables, LogisticRegression for multiclass, Ridge for
regression; ``diffprivlib``: its LogisticRegression / LinearRegression where it imports and builds (skipped with the
reason otherwise). "gap recovered" = (dpcvx - trivial) / (reference - trivial) in means over the splits. ``n_min eps
/ d``: n_min the smallest class's training rows (classification) or all training rows (regression), d the encoded
width; the issue's acceptance rule scores tables where it is at least 50 at epsilon 1 (gap recovered >= 0.5) and
asks elsewhere for no score below trivial beyond the interval, with a warning. ``warned``: the share of dpcvx fits
that warned NoiseDominatesWarning or ConstantPredictionWarning or SmallTableWarning (public checks; the NOT PRIVATE
TrainingRowsWarning is counted apart). ``one class on every test row, no warning``: the fits (defaults and
class_weight="balanced") that predicted a single class on every test row without any warning, public or NOT PRIVATE
(the issue: none). On imbalanced tables the gap, the acceptance rule and the two warning columns use the
class_weight="balanced" fits (the issue's defaults "plus class_weight='balanced' on imbalanced binary tables").

Each split is a seeded random 75/25 split; intervals are 95% normal intervals over the splits. One
process per table keeps a run short; ``--render`` merges ``results/real_tables_<table>.json`` into
``results/real_tables.md`` and docs/honest-results.md (the README gives the gap recovered and links there).

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.real_tables --tables breast_cancer wine --splits 10
    OPENBLAS_NUM_THREADS=1 python -m benchmarks.real_tables --tables rare2 mixed10 --splits 10 --column-statistics
    OPENBLAS_NUM_THREADS=1 python -m benchmarks.real_tables --tables kdd --splits 5
    OPENBLAS_NUM_THREADS=1 python -m benchmarks.real_tables --tables kdd --splits 10 --first 5   # the rest
    python -m benchmarks.real_tables --render
"""

from __future__ import annotations

import argparse
import json
import math
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import dpcvx
from benchmarks import common
from dpcvx.exceptions import ConstantPredictionWarning, NoiseDominatesWarning, SmallTableWarning, TrainingRowsWarning

RESULTS = Path(__file__).resolve().parent / "results"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "honest-results.md"
START, END = "<!-- real-tables:start -->", "<!-- real-tables:end -->"
EPSILONS = (0.3, 1.0, 3.0)
#: Held-out families (issue 42's hidden check): generators written, and AdaSSP's intercept rule
#: (dpcvx.privacy.adassp.adassp_intercept_scaling) committed, before any fit on them; nothing was tuned to them.
HELD_OUT = ("prices", "wages500", "mixed10", "rare2", "rents", "claims", "energy", "trips", "clinic", "sensors",
            "alarms", "orders", "water", "repairs", "harvest")
TABLES = ("adult", "kdd", "breast_cancer", "diabetes", "digits", "wine", "rare3", "coded80", "heavy") + HELD_OUT
#: The public rate of the positive class of each binary table, from its documentation, never counted on the data:
#: adult.names states P(>50K) = 23.93%; KDD Cup 99's task description counts 391,458 DoS records of the 494,021 in
#: the 10% file (79.2%); breast_cancer's DESCR states 357 benign (class 1) of 569; rare3 and coded80 are designed
#: at 3% and 6%, the held-out mixed10, rare2, alarms and orders at 10%, 2%, 11% and 8%. A table whose minority
#: rate is below IMBALANCED is "imbalanced" (the acceptance rule then scores the release at this threshold, issue 42's
#: "class_weight='balanced'" done by a public prior).
PRIORS = {"adult": 0.2393, "kdd": 0.792, "breast_cancer": 357 / 569, "rare3": 0.03, "coded80": 0.06,
          "mixed10": 0.10, "rare2": 0.02, "alarms": 0.11, "orders": 0.08}
IMBALANCED = 0.3
SCORED_AT = 50.0  # n_min * epsilon / d at which the acceptance rule scores a table (issue 42)
PUBLIC_WARNINGS = ("NoiseDominatesWarning", "ConstantPredictionWarning", "SmallTableWarning")


@dataclass
class Table:
    """A task on public-schema rows X (||x|| <= 1) and their standard-preprocessing twin Z."""

    name: str
    task: str  # "binary", "multiclass" or "regression"
    X: np.ndarray
    Z: np.ndarray
    y: np.ndarray
    classes: tuple = ()
    label_range: tuple[float, float] | None = None
    text: str = ""
    prior: float | None = None  # binary: the PUBLIC rate of classes[1] (PRIORS), the decision threshold
    schema: dpcvx.PublicSchema | None = None  # the public schema that made X (from raw, or the loader's)
    raw: np.ndarray | None = None  # the raw columns (None for adult and kdd: their loaders read the files)


def _schema(bounds: list[tuple[float, float]]) -> tuple[dpcvx.PublicSchema, dpcvx.PublicSchema]:
    """(the schema at norm 1, the same columns unbounded: the features before the row-norm bound)."""
    columns = tuple(dpcvx.NumericColumn(f"x{j}", lo, hi) for j, (lo, hi) in enumerate(bounds))
    return dpcvx.PublicSchema(columns, norm=1.0), dpcvx.PublicSchema(columns, norm=1e12)


def _numeric(name: str, task: str, raw: np.ndarray, y: np.ndarray, bounds: list[tuple[float, float]],
             text: str, **extra: Any) -> Table:
    bounded, free = _schema(bounds)
    return Table(name, task, bounded.transform(raw), free.transform(raw), y, text=text, schema=bounded, raw=raw,
                 **extra)


def _documented_ranges(raw: np.ndarray) -> list[tuple[float, float]]:
    """breast_cancer and wine: the min and max their DESCR tables state, which are the columns' own."""
    return [(float(lo), float(hi)) for lo, hi in zip(raw.min(axis=0), raw.max(axis=0), strict=True)]


def load(name: str) -> Table:
    """The table ``name`` (module notes), with its public prior when binary."""
    table = _load(name)
    table.prior = PRIORS.get(name)
    return table


def _load(name: str) -> Table:
    from sklearn import datasets

    if name in ("adult", "kdd"):
        loader = dpcvx.load_adult if name == "adult" else dpcvx.load_kdd
        extra = {} if name == "adult" else {"n_rows": 70_000, "random_state": 0}
        bounded = loader(mode="private", constant_feature=False, **extra)
        free = loader(mode="private", constant_feature=False, norm=1e12, **extra)
        return Table(name, "binary", bounded.X, free.X, np.where(bounded.y > 0, 1, 0), classes=(0, 1),
                     text=bounded.description.split(".")[0], schema=bounded.schema)
    if name == "breast_cancer":
        raw, y = datasets.load_breast_cancer(return_X_y=True)
        return _numeric(name, "binary", raw, y, _documented_ranges(raw), "569 rows, 30 columns", classes=(0, 1))
    if name == "wine":
        raw, y = datasets.load_wine(return_X_y=True)
        return _numeric(name, "multiclass", raw, y, _documented_ranges(raw), "178 rows, 13 columns",
                        classes=(0, 1, 2))
    if name == "digits":
        raw, y = datasets.load_digits(return_X_y=True)
        return _numeric(name, "multiclass", raw, y, [(0.0, 16.0)] * 64, "1,797 rows, 64 pixels",
                        classes=tuple(range(10)))
    if name == "diabetes":
        raw, y = datasets.load_diabetes(return_X_y=True)
        return _numeric(name, "regression", raw, y, [(-1.0, 1.0)] * 10, "442 rows, 10 columns",
                        label_range=(25.0, 346.0))
    rng = np.random.default_rng(42)  # the synthetic generators: fixed before any run
    if name == "rare3":
        n = 10_000
        raw = np.column_stack([rng.uniform(0, 100, n), rng.uniform(0, 1, n), rng.uniform(-5, 5, n)])
        u = (raw - [50.0, 0.5, 0.0]) / [50.0, 0.5, 5.0]
        logit = -4.6 + 2.0 * u[:, 0] - 1.5 * u[:, 1] + 1.0 * u[:, 2]
        y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
        return _numeric(name, "binary", raw, y, [(0, 100), (0, 1), (-5, 5)],
                        f"10,000 rows, 3 columns, {y.mean():.1%} positive", classes=(0, 1))
    if name == "coded80":
        n = 6_000
        raw = rng.integers(0, 10, size=(n, 80)).astype(float)
        logit = -3.9 + 0.35 * (raw[:, :5] - 4.5) @ np.array([1.0, -1.0, 0.8, 0.6, -0.5])
        y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
        return _numeric(name, "binary", raw, y, [(0, 9)] * 80, f"6,000 rows, 80 coded columns, {y.mean():.1%} "
                        "positive", classes=(0, 1))
    if name == "heavy":
        n = 5_000
        raw = rng.uniform(-1, 1, size=(n, 8))
        y = raw @ np.array([3.0, -2.0, 2.0, 1.0, -1.0, 0.5, 0.0, 0.0]) + rng.standard_t(2, size=n)
        return _numeric(name, "regression", raw, y, [(-1, 1)] * 8, "5,000 rows, 8 columns, Student t(2) noise",
                        label_range=(-20.0, 20.0))
    if name in HELD_OUT:
        return _held_out(name)
    raise ValueError(f"unknown table {name!r}; choose from {TABLES}")


def _mixed(name: str, task: str, columns: tuple[dpcvx.NumericColumn | dpcvx.CategoricalColumn, ...],
           raw: dict[str, np.ndarray], y: np.ndarray, text: str, **extra: Any) -> Table:
    """A held-out table from its public schema (numeric and categorical columns) and its columns."""
    bounded, free = dpcvx.PublicSchema(columns, norm=1.0), dpcvx.PublicSchema(columns, norm=1e12)
    return Table(name, task, bounded.transform(raw), free.transform(raw), y, text=text, schema=bounded, **extra)


def _logistic(rng: np.random.Generator, logit: np.ndarray) -> np.ndarray:
    return (rng.random(logit.size) < 1 / (1 + np.exp(-logit))).astype(int)


def _held_out(name: str) -> Table:
    """The held-out families (module notes); each generator has its own seed, fixed before any run."""
    numeric, category = dpcvx.NumericColumn, dpcvx.CategoricalColumn
    if name == "prices":
        rng = np.random.default_rng(2101)
        n = 4_000
        area = np.clip(30 + rng.gamma(3.0, 25.0, n), 10, 500)
        rooms = np.clip(np.round(area / 30 + rng.normal(0, 0.8, n)), 1, 10)
        age, distance = rng.uniform(0, 80, n), np.clip(rng.exponential(6.0, n), 0, 50)
        codes = (rng.random((n, 4)) < [0.4, 0.5, 0.3, 0.25]).astype(float)
        y = (40 + 1.5 * area + 12 * rooms - 0.6 * age - 5 * distance + codes @ np.array([25.0, 15.0, 30.0, -10.0])
             + rng.normal(0, 60, n))
        columns = (numeric("area", 10, 500), numeric("rooms", 1, 10), numeric("age", 0, 150),
                   numeric("distance", 0, 50)) + tuple(numeric(f"code{j}", 0, 1) for j in range(4))
        raw = dict(zip(("area", "rooms", "age", "distance"), (area, rooms, age, distance), strict=True))
        raw.update({f"code{j}": codes[:, j] for j in range(4)})
        return _mixed(name, "regression", columns, raw, np.clip(y, 0, 1000),
                      "held out: 4,000 rows, 8 columns, a price in the public range [0, 1000]",
                      label_range=(0.0, 1000.0))
    if name == "wages500":
        rng = np.random.default_rng(2102)
        n = 3_500
        school, experience = rng.integers(8, 19, n).astype(float), rng.uniform(0, 40, n)
        hours = np.clip(rng.normal(38, 8, n), 0, 100)
        sector = rng.choice(["a", "b", "c", "d", "e"], n, p=[0.3, 0.25, 0.2, 0.15, 0.1])
        union, female = (rng.random(n) < 0.2).astype(float), (rng.random(n) < 0.45).astype(float)
        effect = dict(zip("abcde", (0.0, 15.0, -10.0, 25.0, 5.0), strict=True))
        y = (20 + 9 * school + 3 * experience - 0.05 * experience**2 + 1.5 * hours
             + np.array([effect[v] for v in sector]) + 12 * union - 18 * female + rng.normal(0, 45, n))
        columns = (numeric("school", 0, 25), numeric("experience", 0, 50), numeric("hours", 0, 100),
                   category("sector", tuple("abcde")), numeric("union", 0, 1), numeric("female", 0, 1))
        raw = {"school": school, "experience": experience, "hours": hours, "sector": sector, "union": union,
               "female": female}
        return _mixed(name, "regression", columns, raw, np.clip(y, 0, 500),
                      "held out: 3,500 rows, 6 columns (one of 5 categories), a wage in the public range [0, 500]",
                      label_range=(0.0, 500.0))
    if name == "mixed10":
        rng = np.random.default_rng(2103)
        n = 20_000
        age, income = rng.uniform(18, 70, n), np.clip(rng.lognormal(np.log(35_000), 0.5, n), 0, 200_000)
        tenure, balance = rng.uniform(0, 120, n), np.clip(rng.normal(4_000, 3_000, n), -5_000, 50_000)
        levels = {"region": "pqrstu", "product": "wxyz", "channel": "klm", "education": "fghij"}
        picked = {key: rng.choice(list(values), n) for key, values in levels.items()}
        effects = {"region": (0.0, 0.3, -0.2, 0.5, 0.0, -0.4), "product": (0.0, 0.8, -0.5, 0.3),
                   "channel": (0.0, -0.6, 0.4), "education": (-0.3, 0.0, 0.2, 0.4, 0.6)}
        logit = (-3.1 + 0.9 * (age - 44) / 15 - 0.7 * (np.log(income) - np.log(35_000)) / 0.5
                 - 0.5 * (tenure - 60) / 35 + 0.4 * (balance - 4_000) / 3_000)
        for key, values in levels.items():
            logit = logit + np.array(effects[key])[np.searchsorted(np.array(list(values)), picked[key])]
        columns = ((numeric("age", 18, 100), numeric("income", 0, 200_000), numeric("tenure", 0, 240),
                    numeric("balance", -5_000, 50_000))
                   + tuple(category(key, tuple(values)) for key, values in levels.items()))
        raw = {"age": age, "income": income, "tenure": tenure, "balance": balance, **picked}
        y = _logistic(rng, logit)
        return _mixed(name, "binary", columns, raw, y, f"held out: 20,000 rows, 4 numeric and 4 categorical "
                      f"columns, {y.mean():.1%} positive", classes=(0, 1))
    if name in ("rents", "claims"):
        return _regression_held_out(name)
    if name in ("energy", "trips"):
        return _narrow_held_out(name)
    if name in ("clinic", "sensors", "alarms"):
        return _late_held_out(name)
    if name == "orders":
        return _orders()
    if name in ("water", "repairs", "harvest"):
        return _seventh_held_out(name)
    rng = np.random.default_rng(2104)  # rare2
    n = 30_000
    loose = rng.normal([150.0, 200.0, 120.0], [25.0, 30.0, 20.0], size=(n, 3))
    tight = rng.uniform([0.0, -1.0, 0.0], [1.0, 1.0, 10.0], size=(n, 3))
    standard = np.column_stack([(loose - [150.0, 200.0, 120.0]) / [25.0, 30.0, 20.0],
                                (tight - [0.5, 0.0, 5.0]) / [0.29, 0.58, 2.9]])
    y = _logistic(rng, -4.9 + standard @ np.array([0.9, -0.7, 0.0, 0.8, 0.5, -0.4]))
    columns = tuple(numeric(f"reading{j}", 0, 1000) for j in range(3)) + (
        numeric("share", 0, 1), numeric("score", -1, 1), numeric("level", 0, 10))
    raw = {column.name: values for column, values in zip(columns, np.column_stack([loose, tight]).T, strict=True)}
    return _mixed(name, "binary", columns, raw, y, f"held out: 30,000 rows, 6 columns (3 in a tenth of their "
                  f"public range), {y.mean():.1%} positive", classes=(0, 1))


def _regression_held_out(name: str) -> Table:
    """``rents`` and ``claims`` (module notes): written after DPHuberRegressor's m="auto" rule was committed."""
    numeric, category = dpcvx.NumericColumn, dpcvx.CategoricalColumn
    if name == "rents":
        rng = np.random.default_rng(2105)
        n = 5_000
        area = np.clip(rng.lognormal(np.log(65.0), 0.45, n), 12, 400)
        district = rng.choice(list("pqrstuvw"), n, p=[0.2, 0.18, 0.15, 0.12, 0.12, 0.1, 0.08, 0.05])
        floor, built = rng.integers(0, 21, n).astype(float), rng.uniform(1900, 2024, n)
        furnished, bedrooms = (rng.random(n) < 0.3).astype(float), np.clip(np.round(area / 28), 0, 6)
        premium = dict(zip("pqrstuvw", (0.0, 150.0, -120.0, 300.0, 60.0, -200.0, 450.0, 90.0), strict=True))
        y = (250 + 11 * area + np.array([premium[v] for v in district]) + 8 * floor + 2.5 * (built - 1900)
             + 140 * furnished + 60 * bedrooms + rng.gamma(2.0, 90.0, n) - 180 + rng.normal(0, 220, n))
        columns = (numeric("area", 0, 400), category("district", tuple("pqrstuvw")), numeric("floor", 0, 40),
                   numeric("built", 1850, 2025), numeric("furnished", 0, 1), numeric("bedrooms", 0, 10))
        raw = {"area": area, "district": district, "floor": floor, "built": built, "furnished": furnished,
               "bedrooms": bedrooms}
        return _mixed(name, "regression", columns, raw, np.clip(y, 0, 5000),
                      "held out: 5,000 rows, 6 columns (one of 8 categories), a rent in the public range [0, 5000]",
                      label_range=(0.0, 5000.0))
    rng = np.random.default_rng(2106)  # claims
    n = 6_000
    age, bmi = rng.uniform(18, 80, n), np.clip(rng.normal(28, 5, n), 15, 55)
    smoker, children = (rng.random(n) < 0.2).astype(float), rng.poisson(1.2, n).clip(0, 8).astype(float)
    region = rng.choice(["ne", "nw", "se", "sw"], n)
    score_, others = rng.uniform(0, 1, n), rng.uniform(-1, 1, size=(n, 4))
    shift = dict(zip(("ne", "nw", "se", "sw"), (0.0, -300.0, 500.0, 200.0), strict=True))
    y = (1200 + 180 * (age - 18) + 260 * np.maximum(bmi - 25, 0) + 8000 * smoker + 450 * children
         + np.array([shift[v] for v in region]) + 1500 * score_ + others @ np.array([600.0, -400.0, 0.0, 0.0])
         + rng.normal(0, 1800, n) * (1 + smoker))
    columns = ((numeric("age", 0, 100), numeric("bmi", 10, 60), numeric("smoker", 0, 1), numeric("children", 0, 10),
                category("region", ("ne", "nw", "se", "sw")), numeric("score", 0, 1))
               + tuple(numeric(f"other{j}", -1, 1) for j in range(4)))
    raw = {"age": age, "bmi": bmi, "smoker": smoker, "children": children, "region": region, "score": score_,
           **{f"other{j}": others[:, j] for j in range(4)}}
    return _mixed(name, "regression", columns, raw, np.clip(y, 0, 40_000),
                  "held out: 6,000 rows, 10 columns (one of 4 categories), a claim cost in the public range "
                  "[0, 40000]", label_range=(0.0, 40_000.0))


def _narrow_held_out(name: str) -> Table:
    """``energy`` and ``trips`` (module notes): columns in a small part of their public ranges, written before
    DPLinearRegression's default was changed for issue 42."""
    numeric, category = dpcvx.NumericColumn, dpcvx.CategoricalColumn
    if name == "energy":
        rng = np.random.default_rng(2107)
        n = 4_500
        area = np.clip(rng.lognormal(np.log(1_800.0), 0.6, n), 100, 100_000)
        built, hours = rng.uniform(1950, 2020, n), np.clip(rng.normal(55, 12, n), 0, 168)
        setpoint = rng.uniform(18, 24, n)
        use = rng.choice(list("oshrwl"), n, p=[0.3, 0.2, 0.15, 0.15, 0.1, 0.1])
        retrofit = (rng.random(n) < 0.25).astype(float)
        intensity = dict(zip("oshrwl", (0.0, 25.0, 60.0, 40.0, -30.0, 10.0), strict=True))
        y = (area * (120 + np.array([intensity[v] for v in use]) - 0.6 * (built - 1950) + 0.8 * (hours - 55)
                     + 6 * (setpoint - 21) - 35 * retrofit) * rng.lognormal(0.0, 0.25, n))
        columns = (numeric("area", 0, 100_000), numeric("built", 1800, 2030), numeric("hours", 0, 168),
                   numeric("setpoint", 0, 40), category("use", tuple("oshrwl")), numeric("retrofit", 0, 1))
        raw = {"area": area, "built": built, "hours": hours, "setpoint": setpoint, "use": use, "retrofit": retrofit}
        return _mixed(name, "regression", columns, raw, np.clip(y, 0, 2_000_000),
                      "held out: 4,500 rows, 6 columns (one of 6 categories) in small parts of their public ranges, "
                      "an energy use in the public range [0, 2000000]", label_range=(0.0, 2_000_000.0))
    rng = np.random.default_rng(2108)  # trips
    n = 4_000
    distance, weight = np.clip(rng.exponential(8.0, n), 0.2, 500), np.clip(rng.gamma(2.0, 10.0, n), 0.1, 1000)
    items, hour = rng.poisson(3.0, n).clip(1, 200).astype(float), rng.uniform(7, 21, n)
    floors, rain = rng.poisson(2.0, n).clip(0, 100).astype(float), (rng.random(n) < 0.3).astype(float)
    vehicle = rng.choice(["bike", "van", "truck"], n, p=[0.35, 0.5, 0.15])
    speed = dict(zip(("bike", "van", "truck"), (3.5, 2.2, 2.8), strict=True))
    rush = np.exp(-((hour - 8.5) ** 2) / 2) + np.exp(-((hour - 17.5) ** 2) / 2)
    y = (12 + np.array([speed[v] for v in vehicle]) * distance + 0.3 * weight + 2.5 * items + 4 * floors
         + 15 * rush + 9 * rain + rng.gamma(2.0, 6.0, n))
    columns = (numeric("distance", 0, 500), numeric("weight", 0, 1000), numeric("items", 0, 200),
               numeric("hour", 0, 24), numeric("floors", 0, 100), category("vehicle", ("bike", "van", "truck")),
               numeric("rain", 0, 1))
    raw = {"distance": distance, "weight": weight, "items": items, "hour": hour, "floors": floors,
           "vehicle": vehicle, "rain": rain}
    return _mixed(name, "regression", columns, raw, np.clip(y, 0, 600),
                  "held out: 4,000 rows, 7 columns (one of 3 categories) in small parts of their public ranges, "
                  "a delivery time in the public range [0, 600]", label_range=(0.0, 600.0))


def _late_held_out(name: str) -> Table:
    """``clinic``, ``sensors`` and ``alarms`` (module notes): written before any fit on them and before a
    scale-free private column statistic was built (issue 42, fifth session)."""
    numeric, category = dpcvx.NumericColumn, dpcvx.CategoricalColumn
    if name == "clinic":
        rng = np.random.default_rng(2109)
        n = 3_000
        age = np.clip(rng.normal(62, 15, n), 20, 95)
        pressure = np.clip(rng.normal(135, 12, n) + 0.2 * (age - 62), 100, 190)
        temperature = np.clip(rng.normal(37.2, 0.6, n), 35.5, 41)
        bmi = np.clip(rng.normal(27, 4.5, n), 16, 50)
        ward = rng.choice(list("gcso"), n, p=[0.4, 0.25, 0.2, 0.15])
        emergency = (rng.random(n) < 0.35).astype(float)
        extra = dict(zip("gcso", (0.0, 6_000.0, 3_500.0, -1_500.0), strict=True))
        y = (9_000 + 110 * (age - 62) + 60 * (pressure - 135) + 2_400 * (temperature - 37.2) + 150 * (bmi - 27)
             + np.array([extra[v] for v in ward]) + 2_800 * emergency + rng.normal(0, 2_500, n))
        columns = (numeric("age", 0, 120), numeric("pressure", 0, 300), numeric("temperature", 0, 50),
                   numeric("bmi", 0, 100), category("ward", tuple("gcso")), numeric("emergency", 0, 1))
        raw = {"age": age, "pressure": pressure, "temperature": temperature, "bmi": bmi, "ward": ward,
               "emergency": emergency}
        return _mixed(name, "regression", columns, raw, np.clip(y, 0, 100_000),
                      "held out: 3,000 rows, 6 columns (one of 4 categories) in small parts of their public "
                      "ranges, a stay cost in the public range [0, 100000]", label_range=(0.0, 100_000.0))
    rng = np.random.default_rng(2110 if name == "sensors" else 2111)
    n = 6_000 if name == "sensors" else 12_000
    centres = np.array([1_010.0, 55.0, 295.0, 200.0, 230.0, 1_500.0, 40.0, 500.0])
    spreads = np.array([8.0, 12.0, 6.0, 40.0, 0.8, 50.0, 10.0, 150.0])
    readings = centres + spreads * rng.standard_normal((n, 8))
    standard = (readings - centres) / spreads
    names = ("pressure", "humidity", "kelvin", "flow", "voltage", "speed", "spare", "counter")
    highs = (2_000.0, 100.0, 500.0, 10_000.0, 1_000.0, 20_000.0, 100.0, 5_000.0)
    if name == "sensors":
        y = 400 + standard[:, :6] @ np.array([25.0, -18.0, 30.0, 22.0, -12.0, 15.0]) + rng.normal(0, 30, n)
        columns = tuple(numeric(key, 0, high) for key, high in zip(names, highs, strict=True))
        raw = {key: readings[:, j] for j, key in enumerate(names)}
        return _mixed(name, "regression", columns, raw, np.clip(y, 0, 1_000),
                      "held out: 6,000 rows, 8 readings in small parts of their public ranges (two without "
                      "signal), a yield in the public range [0, 1000]", label_range=(0.0, 1_000.0))
    site = rng.choice(["north", "south", "east"], n, p=[0.5, 0.3, 0.2])  # alarms
    shift = dict(zip(("north", "south", "east"), (0.0, 0.5, -0.4), strict=True))
    logit = (-3.0 + standard[:, :5] @ np.array([0.9, -0.6, 0.8, 0.5, -0.7])
             + np.array([shift[v] for v in site]))
    y = _logistic(rng, logit)
    columns = tuple(numeric(key, 0, high) for key, high in zip(names[:5], highs[:5], strict=True)) + (
        category("site", ("north", "south", "east")),)
    raw = {key: readings[:, j] for j, key in enumerate(names[:5])}
    raw["site"] = site
    return _mixed(name, "binary", columns, raw, y, f"held out: 12,000 rows, 5 readings in small parts of their "
                  f"public ranges and a 3-category site, {y.mean():.1%} positive", classes=(0, 1))


def _orders() -> Table:
    """``orders`` (module notes): written before any fit on it and before the classifiers' default column statistic
    was changed (issue 42, sixth session); skewed columns, columns at different fractions of their public ranges and
    two indicators, one rare."""
    numeric, category = dpcvx.NumericColumn, dpcvx.CategoricalColumn
    rng = np.random.default_rng(2112)
    n = 14_000
    amount = np.clip(rng.lognormal(np.log(90.0), 0.7, n), 1, 100_000)
    items = np.clip(rng.poisson(3.0, n), 0, 500).astype(float)
    account = rng.uniform(0, 3_000, n)
    discount = rng.uniform(0, 1, n)
    distance = np.clip(rng.exponential(150.0, n), 0, 20_000)
    express, moved = (rng.random(n) < 0.04).astype(float), (rng.random(n) < 0.15).astype(float)
    payment = rng.choice(["card", "wallet", "transfer", "voucher", "cash"], n, p=[0.45, 0.25, 0.15, 0.1, 0.05])
    noise = rng.normal(500, 8, n)
    shift = dict(zip(("card", "wallet", "transfer", "voucher", "cash"), (0.0, 0.3, -0.4, 0.9, 0.5), strict=True))
    logit = (-3.4 + 0.8 * (np.log(amount) - np.log(90.0)) / 0.7 + 0.25 * (items - 3.0) / 1.7
             - 0.7 * (account - 1_500) / 870 + 0.4 * (discount - 0.5) / 0.29 + 0.5 * (distance - 150) / 150
             + 0.9 * express + 0.8 * moved + np.array([shift[v] for v in payment]))
    y = _logistic(rng, logit)
    columns = (numeric("amount", 0, 100_000), numeric("items", 0, 500), numeric("account", 0, 7_300),
               numeric("discount", 0, 1), numeric("distance", 0, 20_000), numeric("express", 0, 1),
               numeric("moved", 0, 1), category("payment", ("card", "wallet", "transfer", "voucher", "cash")),
               numeric("reading", 0, 1_000))
    raw = {"amount": amount, "items": items, "account": account, "discount": discount, "distance": distance,
           "express": express, "moved": moved, "payment": payment, "reading": noise}
    return _mixed("orders", "binary", columns, raw, y, f"held out: 14,000 rows, 9 columns (one of 5 categories, two "
                  f"0/1 flags) at different fractions of their public ranges, {y.mean():.1%} positive",
                  classes=(0, 1))


def _seventh_held_out(name: str) -> Table:
    """``water``, ``repairs`` and ``harvest`` (module notes): regression tables written before any fit on them and
    before DPHuberRegressor's default was changed (issue 42, seventh session)."""
    numeric, category = dpcvx.NumericColumn, dpcvx.CategoricalColumn
    if name == "water":
        rng = np.random.default_rng(2113)
        n = 7_000
        people = np.clip(rng.poisson(2.4, n) + 1, 1, 30).astype(float)
        garden = np.where(rng.random(n) < 0.3, 0.0, np.clip(rng.lognormal(np.log(120.0), 1.0, n), 0, 50_000))
        income = np.clip(rng.lognormal(np.log(48_000.0), 0.55, n), 0, 1_000_000)
        temperature = np.clip(rng.normal(22.0, 5.0, n), -50, 60)
        pool, meter = (rng.random(n) < 0.07).astype(float), rng.uniform(0, 40, n)
        kinds = ("flat", "terrace", "detached", "farm")
        dwelling = rng.choice(kinds, n, p=[0.45, 0.3, 0.2, 0.05])
        extra = dict(zip(kinds, (-40.0, 0.0, 60.0, 250.0), strict=True))
        y = (80 + 70 * people + 0.25 * garden * (1 + 0.04 * (temperature - 22)) + 180 * pool
             + 0.0008 * (income - 48_000) + 4 * (temperature - 22) + np.array([extra[v] for v in dwelling])
             + rng.normal(0, 110, n))
        columns = (numeric("people", 0, 30), numeric("garden", 0, 50_000), numeric("income", 0, 1_000_000),
                   numeric("temperature", -50, 60), numeric("pool", 0, 1), category("dwelling", kinds),
                   numeric("meter", 0, 40))
        return _regression(name, columns, (people, garden, income, temperature, pool, dwelling, meter), y, 100_000,
                           "a daily water use")
    if name == "repairs":
        rng = np.random.default_rng(2114)
        n = 9_000
        hours = np.clip(rng.lognormal(np.log(4_000.0), 0.8, n), 0, 200_000)
        age, vibration = np.clip(rng.gamma(2.0, 18.0, n), 0, 600), np.clip(rng.gamma(1.8, 2.0, n), 0, 100)
        load, technicians = rng.uniform(0.2, 1.0, n), np.clip(rng.poisson(0.8, n) + 1, 0, 50).astype(float)
        warranty, humidity = (rng.random(n) < 0.25).astype(float), np.clip(rng.normal(60, 12, n), 0, 100)
        faults = ("electrical", "hydraulic", "mechanical", "software", "other")
        fault = rng.choice(faults, n, p=[0.3, 0.2, 0.25, 0.15, 0.1])
        extra = dict(zip(faults, (0.0, 800.0, 400.0, -300.0, 150.0), strict=True))
        y = (900 + 0.12 * hours + 9 * age + 140 * vibration + 600 * load + 350 * technicians - 500 * warranty
             + np.array([extra[v] for v in fault]) + 600 * rng.standard_t(3, n))
        columns = (numeric("hours", 0, 200_000), numeric("age", 0, 600), numeric("vibration", 0, 100),
                   numeric("load", 0, 1), numeric("technicians", 0, 50), numeric("warranty", 0, 1),
                   category("fault", faults), numeric("humidity", 0, 100))
        return _regression(name, columns, (hours, age, vibration, load, technicians, warranty, fault, humidity), y,
                           250_000, "a repair cost with heavy-tailed noise")
    rng = np.random.default_rng(2115)  # harvest
    n = 3_200
    rain = np.clip(rng.gamma(6.0, 110.0, n), 0, 5_000)
    nitrogen = np.where(rng.random(n) < 0.25, 0.0, np.clip(rng.normal(150, 30, n), 0, 1_000))
    ph, size = np.clip(rng.normal(6.5, 0.5, n), 0, 14), np.clip(rng.lognormal(np.log(25.0), 1.1, n), 0, 10_000)
    slope, sowing = np.clip(rng.exponential(4.0, n), 0, 90), rng.uniform(80, 140, n)
    irrigated, shade = (rng.random(n) < 0.2).astype(float), rng.uniform(0, 1, n)
    variety = rng.choice(["early", "main", "late"], n, p=[0.3, 0.5, 0.2])
    extra = dict(zip(("early", "main", "late"), (0.0, 0.6, -0.4), strict=True))
    y = (6.0 + 1.6 * np.tanh((rain - 600) / 300) + 0.012 * (nitrogen - 112) - 0.8 * (ph - 6.5) ** 2
         + 0.15 * np.log(size) - 0.05 * slope - 0.02 * (sowing - 110) + 0.9 * irrigated
         + np.array([extra[v] for v in variety]) + rng.normal(0, 0.9, n))
    columns = (numeric("rain", 0, 5_000), numeric("nitrogen", 0, 1_000), numeric("ph", 0, 14),
               numeric("size", 0, 10_000), numeric("slope", 0, 90), numeric("sowing", 1, 366),
               numeric("irrigated", 0, 1), category("variety", ("early", "main", "late")), numeric("shade", 0, 1))
    return _regression(name, columns, (rain, nitrogen, ph, size, slope, sowing, irrigated, variety, shade), y, 100,
                       "a crop yield")


def _regression(name: str, columns: tuple[dpcvx.NumericColumn | dpcvx.CategoricalColumn, ...],
                values: tuple[np.ndarray, ...], y: np.ndarray, high: float, label: str) -> Table:
    """A held-out regression table whose label is clipped onto its public range [0, ``high``]."""
    raw = dict(zip((column.name for column in columns), values, strict=True))
    categories = next(len(column.categories) for column in columns if isinstance(column, dpcvx.CategoricalColumn))
    return _mixed(name, "regression", columns, raw, np.clip(y, 0, high),
                  f"held out: {y.size:,} rows, {len(columns)} columns (one of {categories} categories) at different "
                  f"fractions of their public ranges, {label} in the public range [0, {high:g}]",
                  label_range=(0.0, float(high)))


def score(task: str, y: np.ndarray, predicted: np.ndarray) -> float:
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, r2_score

    if task == "binary":
        return float(balanced_accuracy_score(y, predicted))
    if task == "multiclass":
        return float(accuracy_score(y, predicted))
    return float(r2_score(y, predicted))


def trivial(task: str, y_train: np.ndarray, y_test: np.ndarray) -> float:
    if task == "binary":
        return 0.5
    if task == "multiclass":
        values, counts = np.unique(y_train, return_counts=True)
        return float(np.mean(y_test == values[np.argmax(counts)]))
    return score(task, y_test, np.full(y_test.shape, float(np.mean(y_train))))


def reference(table: Table, train: np.ndarray, test: np.ndarray) -> float:
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model: Any = (Ridge() if table.task == "regression" else
                  LogisticRegression(max_iter=2000, class_weight="balanced" if table.task == "binary" else None))
    pipeline = make_pipeline(StandardScaler(), model).fit(table.Z[train], table.y[train])
    return score(table.task, table.y[test], pipeline.predict(table.Z[test]))


def _fitted(estimator: Any, table: Table, train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, dict]:
    """Fit on the training rows; (test predictions, {warning name: fired, "silent_constant": one class predicted
    on every test row and no warning of any kind})."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(table.X[train], table.y[train])
    fired = {category.__name__: any(issubclass(w.category, category) for w in caught)
             for category in (NoiseDominatesWarning, ConstantPredictionWarning, SmallTableWarning, TrainingRowsWarning)}
    predicted = estimator.predict(table.X[test])
    fired["silent_constant"] = (table.task != "regression" and np.unique(predicted).size == 1
                                and not any(fired.values()))
    return predicted, fired


def private(table: Table, train: np.ndarray, test: np.ndarray, epsilon: float,
            seed: int) -> tuple[float, float | None, dict]:
    """dpcvx's defaults: (test score, the same release's score at the public prior's threshold (binary tables;
    post-processing of the same release, not a second fit), {warning name: fired})."""
    estimator: Any = (dpcvx.DPLinearRegression(epsilon=epsilon, label_bound=table.label_range, random_state=seed)
                      if table.task == "regression" else
                      dpcvx.DPLogisticRegression(epsilon=epsilon, classes=table.classes, random_state=seed))
    predicted, fired = _fitted(estimator, table, train, test)
    plain = score(table.task, table.y[test], predicted)
    if table.prior is None:
        return plain, None, fired
    cut = math.log(table.prior / (1 - table.prior))
    at_prior = np.where(estimator.decision_function(table.X[test]) > cut, table.classes[1], table.classes[0])
    return plain, score(table.task, table.y[test], at_prior), fired


def huber(table: Table, train: np.ndarray, test: np.ndarray, epsilon: float, seed: int) -> tuple[float, dict] | None:
    """A regression table's other default: DPHuberRegressor(label_bound=the public range), m="auto" = B / 4
    (docs/theory.md, section 16). (test R^2, warnings), else None."""
    if table.task != "regression":
        return None
    estimator = dpcvx.DPHuberRegressor(epsilon=epsilon, label_bound=table.label_range, random_state=seed)
    predicted, fired = _fitted(estimator, table, train, test)
    return score(table.task, table.y[test], predicted), fired


def balanced(table: Table, train: np.ndarray, test: np.ndarray, epsilon: float,
             seed: int) -> tuple[float, dict] | None:
    """DPLogisticRegression(class_weight="balanced") on an imbalanced binary table (its weights from one private
    class count, charged within epsilon: docs/theory.md, section 21): (test score, warnings), else None."""
    if table.prior is None or min(table.prior, 1 - table.prior) >= IMBALANCED:
        return None
    estimator = dpcvx.DPLogisticRegression(epsilon=epsilon, classes=table.classes, random_state=seed,
                                           class_weight="balanced")
    predicted, fired = _fitted(estimator, table, train, test)
    return score(table.task, table.y[test], predicted), fired


def private_offset(table: Table, train: np.ndarray, test: np.ndarray, epsilon: float,
                   seed: int) -> tuple[float, dict] | None:
    """Opt-in, on an imbalanced binary table: DPLogisticRegression(class_prior="private", threshold="prior"), one
    private class count within the same epsilon setting the intercept offset and the decision cut at its log-odds
    (docs/theory.md, section 21): (test score, warnings), else None."""
    if table.prior is None or min(table.prior, 1 - table.prior) >= IMBALANCED:
        return None
    estimator = dpcvx.DPLogisticRegression(epsilon=epsilon, classes=table.classes, random_state=seed,
                                           class_prior="private", threshold="prior")
    predicted, fired = _fitted(estimator, table, train, test)
    return score(table.task, table.y[test], predicted), fired


def standardised(table: Table, train: np.ndarray, test: np.ndarray, epsilon: float, seed: int,
                 option: bool | str = True) -> float | None:
    """``--column-statistics`` (opt-in, binary tables): DPLogisticRegression(column_statistics=option), the columns
    centred and scaled by one private release inside the same epsilon (docs/theory.md, sections 33 and 34: True the
    sums and sums of squares, "ranges" the noisy histograms' ranges); on imbalanced
    tables with class_weight="balanced" from the PUBLIC prior (a private count and private statistics together are
    not offered). The test score, else None."""
    if table.task != "binary":
        return None
    imbalanced = table.prior is not None and min(table.prior, 1 - table.prior) < IMBALANCED
    weights: dict[str, Any] = ({"class_weight": "balanced", "class_prior": (1 - table.prior, table.prior)}
                               if imbalanced and table.prior is not None else {})
    estimator = dpcvx.DPLogisticRegression(epsilon=epsilon, classes=table.classes, random_state=seed,
                                           column_statistics=option, **weights)
    predicted, _ = _fitted(estimator, table, train, test)
    return score(table.task, table.y[test], predicted)


def peer(table: Table, train: np.ndarray, test: np.ndarray, epsilon: float, seed: int) -> float:
    """diffprivlib on the public-schema rows (R = 1), with its own defaults otherwise."""
    from diffprivlib import models

    if table.task == "regression":
        lo, hi = table.label_range or (0.0, 1.0)
        d = table.X.shape[1]
        model: Any = models.LinearRegression(epsilon=epsilon, bounds_X=(-np.ones(d), np.ones(d)),
                                             bounds_y=(lo, hi), random_state=seed)
    else:
        model = models.LogisticRegression(epsilon=epsilon, data_norm=1.0, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(table.X[train], table.y[train])
    return score(table.task, table.y[test], model.predict(table.X[test]))


def seeded_splits(table: Table, splits: int) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(train, test, fit seed at epsilon 1) of the first ``splits`` seeded 75/25 splits of seed 0 (what the AdaSSP
    grids of adassp_gap, adassp_spread and column_ranges fit on)."""
    out = []
    for split in range(splits):
        order = common.generator(0, split).permutation(table.X.shape[0])
        cut = int(round(0.75 * order.size))
        out.append((order[:cut], order[cut:], common.int_seed(0, split, 10)))
    return out


def n_min(table: Table, train: np.ndarray) -> int:
    if table.task == "regression":
        return int(train.size)
    return int(np.unique(table.y[train], return_counts=True)[1].min())


def run(name: str, splits: int, seed: int, first: int = 0, statistics: bool = False) -> dict:
    harness = common.RunRecord("benchmarks.real_tables")  # command, machine, threads, load, commit
    table = load(name)
    peers, skipped = common.usable_peers(["diffprivlib"], "real_tables")
    record: dict[str, Any] = {"table": name, "task": table.task, "text": table.text, "n": int(table.X.shape[0]),
                              "d": int(table.X.shape[1]), "splits": [], "skipped": skipped,
                              "versions": common.versions(), "load_average": common.load_average()}
    path = RESULTS / f"real_tables_{name}.json"
    if first:  # splits first.. continue a recorded run (a long table in two short processes)
        earlier = json.loads(path.read_text())
        record["splits"] = [unit for unit in earlier["splits"] if unit["split"] < first]
    start = time.perf_counter()
    for split in range(first, splits):
        rng = common.generator(seed, split)
        order = rng.permutation(table.X.shape[0])
        cut = int(round(0.75 * order.size))
        train, test = order[:cut], order[cut:]
        unit: dict[str, Any] = {"split": split, "n_min": n_min(table, train),
                                "trivial": trivial(table.task, table.y[train], table.y[test]),
                                "reference": reference(table, train, test), "dpcvx": {}, "warned": {},
                                "diffprivlib": {}}
        for epsilon in EPSILONS:
            fit_seed = common.int_seed(seed, split, int(epsilon * 10))
            value, at_prior, fired = private(table, train, test, epsilon, fit_seed)
            unit["dpcvx"][str(epsilon)], unit["warned"][str(epsilon)] = value, fired
            if at_prior is not None:
                unit.setdefault("threshold", {})[str(epsilon)] = at_prior
            robust = huber(table, train, test, epsilon, fit_seed)
            if robust is not None:
                unit.setdefault("huber", {})[str(epsilon)] = robust[0]
                unit.setdefault("huber_warned", {})[str(epsilon)] = robust[1]
            weighted = balanced(table, train, test, epsilon, fit_seed)
            if weighted is not None:
                unit.setdefault("balanced", {})[str(epsilon)] = weighted[0]
                unit.setdefault("balanced_warned", {})[str(epsilon)] = weighted[1]
            offset = private_offset(table, train, test, epsilon, fit_seed)
            if offset is not None:
                unit.setdefault("private_offset", {})[str(epsilon)] = offset[0]
                unit.setdefault("private_offset_warned", {})[str(epsilon)] = offset[1]
            for option, field in ((True, "column_statistics"), ("ranges", "column_ranges")):
                opted = standardised(table, train, test, epsilon, fit_seed, option) if statistics else None
                if opted is not None:
                    unit.setdefault(field, {})[str(epsilon)] = opted
            if "diffprivlib" in peers:
                unit["diffprivlib"][str(epsilon)] = peer(table, train, test, epsilon, fit_seed)
        record["splits"].append(unit)
        print(f"[real_tables] {name} split {split}: {time.perf_counter() - start:.0f} s", flush=True)
    record["seconds"] = time.perf_counter() - start
    record["run"] = harness.finish()
    return record


def _interval(values: list[float]) -> tuple[float, float]:
    mean = float(np.mean(values))
    half = 1.96 * float(np.std(values, ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return mean, half


def _cell(values: list[float]) -> str:
    mean, half = _interval(values)
    if abs(mean) >= 1000:  # a peer's R^2 far below 0 (diffprivlib's regression on these bounds)
        return f"{mean:.2g} ± {half:.2g}"
    return f"{mean:.3f} ± {half:.3f}"


def rows(record: dict) -> list[str]:
    """Markdown rows of one table: one per epsilon."""
    units = record["splits"]
    out = []
    for epsilon in EPSILONS:
        key = str(epsilon)
        prior = PRIORS.get(record["table"])
        at_prior = [unit["threshold"][key] for unit in units if key in unit.get("threshold", {})]
        weighted = [unit["balanced"][key] for unit in units if key in unit.get("balanced", {})]
        imbalanced = prior is not None and min(prior, 1 - prior) < IMBALANCED
        mine = weighted if imbalanced else [unit["dpcvx"][key] for unit in units]
        low = [unit["trivial"] for unit in units]
        high = [unit["reference"] for unit in units]
        gap = (np.mean(high) - np.mean(low))
        recovered = (np.mean(mine) - np.mean(low)) / gap if gap > 0 else math.nan
        size = np.mean([unit["n_min"] for unit in units]) * epsilon / record["d"]
        scored = ([unit["balanced_warned"][key] for unit in units if key in unit.get("balanced_warned", {})]
                  if imbalanced else [unit["warned"][key] for unit in units])  # the warnings of the scored fits
        warned = np.mean([any(fired.get(name, False) for name in PUBLIC_WARNINGS) for fired in scored])
        training = np.mean([fired["TrainingRowsWarning"] for fired in scored])
        records = [unit["warned"][key] for unit in units] + [unit[name][key] for unit in units
                                                              for name in ("balanced_warned", "private_offset_warned")
                                                              if key in unit.get(name, {})]
        silent = sum(bool(fired.get("silent_constant", False)) for fired in records)
        peer_values = [unit["diffprivlib"][key] for unit in units if key in unit["diffprivlib"]]
        status = _status(recovered, gap, size, mine, low, warned) if epsilon == 1.0 else "(rule stated at 1)"
        robust = [unit["huber"][key] for unit in units if key in unit.get("huber", {})]
        shown_gap = f"{recovered:.2f}"
        if robust:  # a regression: DPHuberRegressor()'s defaults beside DPLinearRegression()'s, scored alike
            other = (np.mean(robust) - np.mean(low)) / gap if gap > 0 else math.nan
            shown_gap += f"; DPHuberRegressor(): {other:.2f}"
            if epsilon == 1.0:
                alarms = np.mean([any(fired.get(name, False) for name in PUBLIC_WARNINGS)
                                  for fired in (unit["huber_warned"][key] for unit in units)])
                status += f"; DPHuberRegressor(): {_status(other, gap, size, robust, low, alarms)}"
        plain = _cell([unit["dpcvx"][key] for unit in units])
        shown = f"{plain}; at prior {prior:.3g}: {_cell(at_prior)}" if at_prior else plain
        shown += f"; class_weight='balanced': {_cell(weighted)}" if weighted else ""
        offset = [unit["private_offset"][key] for unit in units if key in unit.get("private_offset", {})]
        shown += f"; class_prior='private', threshold='prior' (opt-in): {_cell(offset)}" if offset else ""
        shown += f"; DPHuberRegressor(): {_cell(robust)}" if robust else ""
        opted = [unit["column_statistics"][key] for unit in units if key in unit.get("column_statistics", {})]
        shown += f"; column_statistics=True (opt-in): {_cell(opted)}" if opted else ""
        ranged = [unit["column_ranges"][key] for unit in units if key in unit.get("column_ranges", {})]
        shown += f"; column_statistics='ranges' (opt-in): {_cell(ranged)}" if ranged else ""
        metric = {"binary": "balanced acc.", "multiclass": "accuracy", "regression": "R^2"}[record["task"]]
        label = f"{record['table']} (held out)" if record["table"] in HELD_OUT else record["table"]
        out.append(f"| {label} | {metric} | {epsilon:g} | {shown} | {_cell(low)} | {_cell(high)} | "
                   f"{_cell(peer_values) if peer_values else 'skipped'} | {shown_gap} | {size:.0f} | "
                   f"{warned:.0%} | {training:.0%} | {silent} of {len(records)} | {status} | {len(units)} |")
    return out


def _status(recovered: float, gap: float, size: float, mine: list[float], low: list[float], warned: float) -> str:
    """The issue's acceptance rule for this cell (it is stated at epsilon 1; the other rows are shown alike)."""
    if gap < 0.05:
        return "reported (gap < 0.05)"
    if size >= SCORED_AT:
        return "met" if recovered >= 0.5 else "NOT met"
    if recovered >= 0.5:
        return "met (small, yet recovers >= 0.5)"
    mean, half = _interval([a - b for a, b in zip(mine, low, strict=True)])
    above = mean + half >= 0
    return ("met (small: not below trivial, warned)" if above and warned > 0 else
            "NOT met (small: below trivial)" if not above else "NOT met (small: no warning)")


HEADER = ("| table | metric | epsilon | dpcvx defaults (binary: also at the public prior's threshold; "
          "imbalanced: class_weight='balanced') | trivial "
          "| non-private reference | diffprivlib | gap recovered "
          "| n_min eps / d | warned | NOT PRIVATE training-rows warning | one class on every test row, no warning "
          "| acceptance rule | splits |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def render() -> str:
    records = [json.loads(path.read_text()) for name in TABLES
               if (path := RESULTS / f"real_tables_{name}.json").exists()]
    lines = [HEADER] + [row for record in records for row in rows(record)]
    skipped = sorted({reason for record in records for reason in record["skipped"].values()})
    notes = [f"diffprivlib skipped: {reason}" for reason in skipped]
    text = "\n".join(lines + [""] + notes)
    (RESULTS / "real_tables.md").write_text(
        "# Real tables (benchmarks/real_tables.py)\n\n" + text + "\n\n" + "\n".join(
            f"- {record['table']}: {record['text']}; n = {record['n']}, d = {record['d']}; {record['seconds']:.0f} s, "
            f"load average {record.get('run', {}).get('load_average_start', record['load_average'])}"
            for record in records) + "\n")
    page = DOCS.read_text()
    if START in page and END in page:
        head, rest = page.split(START, 1)
        DOCS.write_text(head + START + "\n" + text + "\n" + END + rest.split(END, 1)[1])
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", nargs="+", choices=TABLES, default=[])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="continue a recorded run from this split")
    parser.add_argument("--render", action="store_true")
    parser.add_argument("--column-statistics", action="store_true",
                        help="also fit binary tables with the opt-in private column statistics")
    arguments = parser.parse_args()
    for name in arguments.tables:
        common.write_json(RESULTS / f"real_tables_{name}.json", run(name, arguments.splits, arguments.seed,
                                                                    arguments.first, arguments.column_statistics))
    if arguments.render:
        print(render())


if __name__ == "__main__":
    main()
