"""One-vs-rest with private column ranges drawn once: should ``column_statistics="auto"`` for more than two classes
follow the binary fits' public rule?

A multiclass ``DPLogisticRegression(classes=(three or more), column_statistics="ranges")`` draws noisy per-column
histograms once, at 10% of epsilon, whose ranges centre and widen the columns that fill a small part of their
declared public range, then fits its k one-vs-rest problems on the remaining 90%; ``column_statistics=False`` draws
nothing and gives the k fits the whole epsilon. When this benchmark was written "auto" resolved to False for k > 2;
for two classes it resolved by the public rule ``dpcvx.models.column_statistics.ranges_by_default(n, d, epsilon,
0.1)``. Its run (``results/multiclass_ranges.md``) decided that "auto" follows that rule for every classifier.
The question: over a family of tables, how does "ranges" compare with False where that rule says True and where it
says False, and is there a table where ranges is clearly worse? I.e. would "auto" = (ranges where the rule says
True, else False) be at least as good as the former "always False"?

The family (every generator public and seeded; each column's declared range is what a data dictionary would say,
fixed in the code, never read off the data):

- 16 synthetic designs (``DESIGNS``), each at n = 3,000 and n = 20,000 rows (32 tables): k in {3, 5, 8} classes,
  balanced or skewed shares (3: .65 .25 .10; 5: .55 .25 .10 .07 .03; 8: .45 .20 .10 .08 .06 .05 .04 .02). Labels
  are drawn from a softmax whose logits are linear in the signal columns (each standardised by its generator's
  public mean and sd), plus per-category effects of the signal categoricals, plus log(share); the weights are fixed
  per design (seeded by the design), the rows are fresh per repeat. Column archetypes (``NUMERIC``): LOOSE, the data
  fill about 0.2% to 11% of the declared range (income 0..1e6 lognormal around 3e4; orders 0..5,000 with values
  0..60; session seconds 0..86,400 with mean 300; balance -1e5..1e5 with sd 3,000, centred; temperature -50..60 at
  21 +- 3; weight 0..500 kg at 75 +- 12; page views 0..1e5, lognormal around 50); MEDIUM, age 0..120 uniform on
  18..80; TIGHT, the data fill most of the range (score 0..1, rating 1..5, percent 0..100 as Beta(2, 2), sensor
  -1..1, Likert 1..7, hour 0..23); one or two categorical columns (4, 3 or 5 categories, one-hot through
  ``PublicSchema``) and at least one pure-noise column. Six column sets: ``loose`` (signal in loose columns),
  ``tight`` (every column tight: ranges should bring little), ``mixed``, ``centred`` (loose columns centred in their
  ranges), ``wide`` (13 numeric and two categorical columns, 20 encoded), ``loose-noise`` (signal in tight columns,
  the loose columns pure noise: the fill map widens noise). Every synthetic table is encoded by
  ``PublicSchema(columns)`` at its defaults (centred code, norm 1): on the tables with loose columns the schema's
  NOT PRIVATE ``LevelErasedWarning`` fires (a row's norm division moves its loose columns more than they vary);
  the results' table list names where it did. Both contenders see the same rows.
- the real multiclass tables available offline: scikit-learn's ``wine`` (3 classes, 178 rows, each column's range
  as its DESCR states it) and ``digits`` (10 classes, 1,797 rows, pixels declared 0..16), both through
  ``benchmarks/real_tables.py``'s loaders, and KDD Cup 99 10% in its five categories (normal, dos, probe, r2l, u2r;
  the mapping of ``benchmarks/multiclass.py``) on a fresh seeded subset of ``--kdd-rows`` (50,000) records per
  repeat, encoded by ``dpcvx.load_kdd(mode="private")`` (public bounds and categories only); skipped with a note
  when its file is absent (``DPCVX_DATA``).
- epsilon in {1, 3}; 10 repeats (``--repeats``), each with a fresh data seed (the rows of a synthetic table, the
  split and KDD's subset) and a fresh noise seed; a 70/30 train/test split. (3 repeats were planned; they took
  65 s on the 2-core machine, and 3 repeats leave a cell's mean difference noisy at about 0.02 on the small
  tables, the size of "clearly worse", so the recorded run takes 10.)

Contenders per (table, epsilon, repeat), on the same encoded rows and the same noise seed:
``DPLogisticRegression(classes=public classes, epsilon, random_state=seed, column_statistics=False)`` and the same
with ``column_statistics="ranges"`` (other options at their defaults: lam="auto", intercept, data_norm 1). References
per (table, repeat): scikit-learn's ``LogisticRegression(C=1e4, max_iter=5000)`` (multinomial, NOT private) on the
same encoded rows, and the training majority class (C = 1, scikit-learn's default, is far below the ceiling on rows
whose loose columns sit in a few hundredths of [-1/2, 1/2]: 0.61 against 0.74 on loose-k3-b-n20k). dpcvx's
warnings are suppressed during the fits; the fits that raised the NOT PRIVATE ``TrainingRowsWarning`` are counted
per contender.

Metric: test accuracy and balanced accuracy (over the classes present in the test rows). A cell is a (table,
epsilon) pair, its value the mean over the repeats; the summary gives the distribution of (ranges - False) over the
cells, split by the rule's verdict ``ranges_by_default(n_train, d_encoded, epsilon, 0.1)``, the same over single
fits, and the policy "ranges where the rule says True, False elsewhere" against "always False".

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.multiclass_ranges   # full run, writes results/multiclass_ranges.*
    ... python -m benchmarks.multiclass_ranges --quick --out /tmp   # smoke run: 4 designs at n = 3,000, 1 repeat,
                                                                     # wine and digits, no KDD
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score

import dpcvx
from benchmarks import common, real_tables
from benchmarks.multiclass import CATEGORIES as KDD_CATEGORIES
from benchmarks.multiclass import CLASSES as KDD_CLASSES
from dpcvx.exceptions import TrainingRowsWarning
from dpcvx.models.column_statistics import ranges_by_default

SEED = 2027  # the family's base seed
EPSILONS = (1.0, 3.0)
SIZES = (3_000, 20_000)
SHARE = 0.1  # the classifiers' column_statistics_share (the rule's share)
TRAIN = 0.7
REFERENCE_C = 1e4  # the non-private reference: weakly regularised (C = 1 stays far below it on loose columns)
WORSE = 0.02  # "clearly worse": ranges below False by more than this
CONTENDERS = {"False": False, "ranges": "ranges"}
SKEWED = {3: (0.65, 0.25, 0.10), 5: (0.55, 0.25, 0.10, 0.07, 0.03),
          8: (0.45, 0.20, 0.10, 0.08, 0.06, 0.05, 0.04, 0.02)}


Sampler = Callable[[np.random.Generator, int], np.ndarray]


@dataclass(frozen=True)
class Numeric:
    """A numeric archetype: its declared public range, its generator, and the generator's public mean and sd."""

    lo: float
    hi: float
    draw: Sampler  # (rng, n) -> values
    mean: float
    sd: float
    kind: str  # "loose", "medium" or "tight"


def _lognormal(median: float, sigma: float, cap: float | None = None) -> Sampler:
    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        values = rng.lognormal(np.log(median), sigma, n)
        return values if cap is None else np.minimum(values, cap)
    return draw


NUMERIC = {
    # loose: the data fill 0.2% to 11% of the declared range
    "income": Numeric(0.0, 1e6, _lognormal(3e4, 0.5, 1e6), 3e4 * np.exp(0.125),
                      3e4 * np.exp(0.125) * np.sqrt(np.exp(0.25) - 1), "loose"),
    "orders": Numeric(0.0, 5000.0, lambda rng, n: np.minimum(60.0, np.round(rng.gamma(2.0, 8.0, n))), 16.0,
                      11.3, "loose"),
    "session_seconds": Numeric(0.0, 86_400.0, lambda rng, n: np.minimum(3600.0, rng.exponential(300.0, n)), 300.0,
                               300.0, "loose"),
    "balance": Numeric(-1e5, 1e5, lambda rng, n: rng.normal(0.0, 3000.0, n), 0.0, 3000.0, "loose"),
    "temperature": Numeric(-50.0, 60.0, lambda rng, n: rng.normal(21.0, 3.0, n), 21.0, 3.0, "loose"),
    "weight_kg": Numeric(0.0, 500.0, lambda rng, n: rng.normal(75.0, 12.0, n), 75.0, 12.0, "loose"),
    "page_views": Numeric(0.0, 1e5, _lognormal(50.0, 0.8, 1e5), 50 * np.exp(0.32),
                          50 * np.exp(0.32) * np.sqrt(np.exp(0.64) - 1), "loose"),
    # medium
    "age": Numeric(0.0, 120.0, lambda rng, n: rng.uniform(18.0, 80.0, n), 49.0, 62 / np.sqrt(12), "medium"),
    # tight: the data fill most of the declared range
    "score": Numeric(0.0, 1.0, lambda rng, n: rng.uniform(0.0, 1.0, n), 0.5, 1 / np.sqrt(12), "tight"),
    "rating": Numeric(1.0, 5.0, lambda rng, n: rng.integers(1, 6, n).astype(float), 3.0, np.sqrt(2.0), "tight"),
    "percent": Numeric(0.0, 100.0, lambda rng, n: 100 * rng.beta(2.0, 2.0, n), 50.0, 100 / np.sqrt(20), "tight"),
    "sensor": Numeric(-1.0, 1.0, lambda rng, n: rng.uniform(-1.0, 1.0, n), 0.0, 1 / np.sqrt(3), "tight"),
    "likert": Numeric(1.0, 7.0, lambda rng, n: rng.integers(1, 8, n).astype(float), 4.0, 2.0, "tight"),
    "hour": Numeric(0.0, 23.0, lambda rng, n: rng.integers(0, 24, n).astype(float), 11.5, np.sqrt(575 / 12),
                    "tight"),
}
CATEGORICAL = {"region": ("north", "south", "east", "west"), "plan": ("basic", "plus", "pro"),
               "channel": ("web", "store", "phone", "partner", "other")}

# column sets: (signal numeric, signal categorical, pure-noise numeric)
COLUMN_SETS = {
    "loose": (("income", "orders", "session_seconds"), ("region",), ("score",)),
    "tight": (("score", "rating", "percent", "sensor"), ("plan",), ("hour",)),
    "mixed": (("income", "age", "percent", "sensor"), ("region",), ("page_views",)),
    "centred": (("balance", "temperature", "weight_kg", "orders"), ("channel",), ("sensor",)),
    "wide": (("income", "orders", "session_seconds", "balance", "weight_kg", "page_views", "score", "rating",
              "percent", "sensor"), ("region", "plan"), ("likert", "hour", "temperature")),
    "loose-noise": (("score", "percent", "likert", "sensor"), ("plan",), ("income", "orders", "page_views")),
}
# the 16 designs: (column set, k, shares)
DESIGNS = (("loose", 3, "balanced"), ("tight", 3, "balanced"), ("mixed", 3, "balanced"), ("loose", 3, "skewed"),
           ("wide", 3, "skewed"), ("loose-noise", 3, "skewed"), ("mixed", 5, "balanced"),
           ("centred", 5, "balanced"), ("tight", 5, "balanced"), ("loose", 5, "skewed"), ("mixed", 5, "skewed"),
           ("wide", 5, "skewed"), ("loose", 8, "balanced"), ("loose-noise", 8, "balanced"), ("mixed", 8, "skewed"),
           ("tight", 8, "skewed"))
QUICK_DESIGNS = (0, 1, 5, 13)
LOGIT_SD = 2.5  # the sd of each class's logit from the signal, before log(share)


def design_name(index: int, n: int) -> str:
    columns, k, shares = DESIGNS[index]
    return f"{columns}-k{k}-{shares[0]}-n{n // 1000}k"


def shares_of(k: int, kind: str) -> np.ndarray:
    return np.array(SKEWED[k] if kind == "skewed" else (1 / k,) * k)


def synthetic(index: int, n: int, repeat: int) -> tuple[np.ndarray, np.ndarray, tuple, str]:
    """(encoded X, labels, public classes, text) of design ``index`` at n rows, repeat ``repeat``."""
    column_set, k, kind = DESIGNS[index]
    signal, categorical, noise = COLUMN_SETS[column_set]
    shares = shares_of(k, kind)
    # the design's weights: fixed per design
    weights_rng = common.generator(SEED, 1, index)
    strength = LOGIT_SD / np.sqrt(len(signal) + 0.5 * len(categorical))
    weights = {name: strength * weights_rng.normal(size=k) for name in signal}
    effects = {name: strength * weights_rng.normal(size=(len(CATEGORICAL[name]), k)) for name in categorical}
    # the rows: fresh per (design, n, repeat)
    rng = common.generator(SEED, 2, index, n, repeat)
    raw: dict[str, np.ndarray] = {}
    logits = np.tile(np.log(shares), (n, 1))
    for name in (*signal, *noise):
        archetype = NUMERIC[name]
        raw[name] = archetype.draw(rng, n)
        if name in signal:
            logits += np.outer((raw[name] - archetype.mean) / archetype.sd, weights[name])
    for name in categorical:
        codes = rng.integers(0, len(CATEGORICAL[name]), n)
        raw[name] = np.array(CATEGORICAL[name], dtype=object)[codes]
        logits += effects[name][codes]
    probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    drawn = (probabilities.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1).clip(0, k - 1)
    classes = tuple(f"c{i}" for i in range(k))
    columns: tuple[dpcvx.NumericColumn | dpcvx.CategoricalColumn, ...] = tuple(
        dpcvx.NumericColumn(name, NUMERIC[name].lo, NUMERIC[name].hi) for name in (*signal, *noise))
    columns += tuple(dpcvx.CategoricalColumn(name, CATEGORICAL[name]) for name in categorical)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # the schema's NOT PRIVATE notes about the table: recorded in the text
        X = dpcvx.PublicSchema(columns, norm=1.0).transform(raw)
    notes = sorted({w.category.__name__ for w in caught})
    kinds = ", ".join(f"{name} ({NUMERIC[name].kind})" for name in signal)
    text = (f"{column_set}, k = {k} {kind}; signal: {kinds}, categorical {', '.join(categorical)}; pure noise: "
            f"{', '.join(f'{name} ({NUMERIC[name].kind})' for name in noise)}"
            + (f"; the schema warned {', '.join(notes)} (repeat {repeat})" if notes else ""))
    return X, np.array(classes, dtype=object)[drawn], classes, text


def real(name: str, repeat: int, kdd_rows: int) -> tuple[np.ndarray, np.ndarray, tuple, str]:
    """(encoded X, labels, public classes, text) of wine, digits or KDD's five categories."""
    if name == "kdd5":
        from dpcvx.data.datasets import read_records  # the raw labels (a documented hook, as in multiclass.py)

        data = dpcvx.load_kdd(mode="private", n_rows=kdd_rows, random_state=common.int_seed(SEED, 3, repeat),
                              constant_feature=False)
        attack = np.char.rstrip(np.asarray(read_records("kdd", columns=("label",))["label"])[data.record_index]
                                .astype(str), ".")
        labels = np.full(attack.shape, "normal", dtype=object)
        for category, names in KDD_CATEGORIES.items():
            labels[np.isin(attack, names)] = category
        counts = {c: int(np.sum(labels == c)) for c in KDD_CLASSES}
        return data.X, labels, KDD_CLASSES, (f"KDD Cup 99 10%, {kdd_rows:,} random records per repeat, private-mode "
                                             f"public schema; five categories (repeat {repeat}: {counts})")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the schema's notes about the table
        table = real_tables.load(name)
    return table.X, table.y, table.classes, f"scikit-learn {name}, {table.text}, public ranges of real_tables.py"


def fit_scores(option: Any, classes: tuple, epsilon: float, seed: int, X_train: np.ndarray, y_train: np.ndarray,
               X_test: np.ndarray, y_test: np.ndarray) -> dict:
    model = dpcvx.DPLogisticRegression(classes=classes, epsilon=epsilon, random_state=seed, column_statistics=option)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # recorded, not shown
        start = time.perf_counter()
        model.fit(X_train, y_train)
        seconds = time.perf_counter() - start
    return {**scores(y_test, model.predict(X_test)), "seconds": seconds,
            "training_rows_warning": any(issubclass(w.category, TrainingRowsWarning) for w in caught)}


def scores(truth: np.ndarray, predicted: np.ndarray) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a predicted class absent from the test rows
        return {"accuracy": float(np.mean(predicted == truth)),
                "balanced_accuracy": float(balanced_accuracy_score(truth, predicted))}


def measure(name: str, load: Callable[[int], tuple[np.ndarray, np.ndarray, tuple, str]], repeats: int) -> dict:
    """Every contender on one table over the repeats (module docstring)."""
    record: dict[str, Any] = {"table": name, "repeats": []}
    for repeat in range(repeats):
        X, y, classes, text = load(repeat)
        order = common.generator(SEED, 4, repeat, X.shape[0]).permutation(X.shape[0])
        cut = int(TRAIN * X.shape[0])
        train, test = order[:cut], order[cut:]
        X_train, y_train, X_test, y_test = X[train], y[train], X[test], y[test]
        values, counts = np.unique(y_train, return_counts=True)
        majority = np.repeat(values[np.argmax(counts)], test.size)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence notes
            reference = LogisticRegression(C=REFERENCE_C, max_iter=5000).fit(X_train, y_train).predict(X_test)
        unit: dict[str, Any] = {"repeat": repeat, "sklearn": scores(y_test, reference),
                                "majority": scores(y_test, majority), "eps": {}}
        record.update(text=text, k=len(classes), n=int(X.shape[0]), n_train=int(cut), d=int(X.shape[1]))
        for epsilon in EPSILONS:
            seed = common.int_seed(SEED, 5, hash_name(name), repeat, int(epsilon * 10))
            unit["eps"][str(epsilon)] = {label: fit_scores(option, classes, epsilon, seed, X_train, y_train, X_test,
                                                           y_test) for label, option in CONTENDERS.items()}
        record["repeats"].append(unit)
        shown = "; ".join(f"eps {e}: " + ", ".join(f"{label} {cell['accuracy']:.3f}/{cell['balanced_accuracy']:.3f}"
                                                    for label, cell in fits.items())
                          for e, fits in unit["eps"].items())
        print(f"[multiclass_ranges] {name} repeat {repeat}: sklearn {unit['sklearn']['accuracy']:.3f}/"
              f"{unit['sklearn']['balanced_accuracy']:.3f}, majority {unit['majority']['accuracy']:.3f}; {shown}",
              flush=True)
    record["rule"] = {str(e): bool(ranges_by_default(record["n_train"], record["d"], e, SHARE)) for e in EPSILONS}
    return record


def hash_name(name: str) -> int:
    """A stable small integer of a table's name (the noise seeds' key)."""
    return int.from_bytes(name.encode(), "little") % (2 ** 31)


def run(args: argparse.Namespace) -> dict:
    start = time.perf_counter()
    designs = QUICK_DESIGNS if args.quick else range(len(DESIGNS))
    sizes = SIZES[:1] if args.quick else SIZES
    repeats = 1 if args.quick else args.repeats
    tables: list[dict] = []
    notes: list[str] = []
    for index in designs:
        for n in sizes:
            tables.append(measure(design_name(index, n), partial(synthetic, index, n), repeats))
            tables[-1]["kind"] = "synthetic:" + DESIGNS[index][0]
    for name in ("wine", "digits"):
        tables.append(measure(name, partial(real, name, kdd_rows=args.kdd_rows), repeats))
        tables[-1]["kind"] = "real"
    if args.quick:
        notes.append("KDD Cup 99 not run in --quick.")
    else:
        try:
            real("kdd5", 0, 100)
        except Exception as error:  # its file is absent here
            notes.append(f"KDD Cup 99 skipped: {type(error).__name__}: {error}")
        else:
            tables.append(measure("kdd5", partial(real, "kdd5", kdd_rows=args.kdd_rows), repeats))
            tables[-1]["kind"] = "real"
    return {"tables": tables, "notes": notes, "repeats": repeats, "epsilons": list(EPSILONS),
            "wall_seconds": round(time.perf_counter() - start, 1)}


# -- summaries --------------------------------------------------------------------------------------------------------


def cells(result: dict) -> list[dict]:
    """One row per (table, epsilon): the means over the repeats, the rule's verdict and the warning counts."""
    out = []
    for table in result["tables"]:
        for e in map(str, result["epsilons"]):
            row: dict[str, Any] = {"table": table["table"], "kind": table["kind"], "k": table["k"],
                                   "n_train": table["n_train"], "d": table["d"], "epsilon": float(e),
                                   "rule": table["rule"][e]}
            for metric in ("accuracy", "balanced_accuracy"):
                for label in CONTENDERS:
                    row[f"{label} {metric}"] = float(np.mean([u["eps"][e][label][metric] for u in table["repeats"]]))
                for ref in ("sklearn", "majority"):
                    row[f"{ref} {metric}"] = float(np.mean([u[ref][metric] for u in table["repeats"]]))
                row[f"diff {metric}"] = row[f"ranges {metric}"] - row[f"False {metric}"]
                row[f"fit diffs {metric}"] = [u["eps"][e]["ranges"][metric] - u["eps"][e]["False"][metric]
                                              for u in table["repeats"]]
            for label in CONTENDERS:
                row[f"{label} warned"] = sum(u["eps"][e][label]["training_rows_warning"] for u in table["repeats"])
                row[f"{label} seconds"] = float(np.mean([u["eps"][e][label]["seconds"] for u in table["repeats"]]))
            out.append(row)
    return out


def distribution(values: list[float]) -> dict:
    if not values:
        return {"cells": 0}
    array = np.array(values)
    return {"cells": int(array.size), "mean": float(array.mean()), "median": float(np.median(array)),
            "min": float(array.min()), "max": float(array.max()), "worse": int(np.sum(array < -WORSE))}


def summary(rows: list[dict]) -> dict:
    """The distributions of (ranges - False) by the rule's verdict, over cells and over single fits, and the policy."""
    out: dict[str, Any] = {}
    for metric in ("accuracy", "balanced_accuracy"):
        groups = {"rule True": [r for r in rows if r["rule"]], "rule False": [r for r in rows if not r["rule"]],
                  "all": rows}
        out[metric] = {
            "cells": {g: distribution([r[f"diff {metric}"] for r in part]) for g, part in groups.items()},
            "fits": {g: distribution([d for r in part for d in r[f"fit diffs {metric}"]])
                     for g, part in groups.items()},
            "policy": distribution([r[f"diff {metric}"] if r["rule"] else 0.0 for r in rows]),
            "by kind": {kind: distribution([r[f"diff {metric}"] for r in rows if r["kind"] == kind])
                        for kind in dict.fromkeys(r["kind"] for r in rows)},
            "by k, n_train and rule": {
                f"k = {k}, n_train {'< 5,000' if small else '>= 5,000'}, rule {rule}": distribution(
                    [r[f"diff {metric}"] for r in rows if r["k"] == k and (r["n_train"] < 5000) == small
                     and r["rule"] == rule])
                for k in sorted({r["k"] for r in rows}) for small in (True, False) for rule in (True, False)
                if any(r["k"] == k and (r["n_train"] < 5000) == small and r["rule"] == rule for r in rows)},
        }
    return out


def _dist_row(label: str, dist: dict) -> str:
    if not dist["cells"]:
        return f"| {label} | 0 | | | | | |"
    return (f"| {label} | {dist['cells']} | {dist['mean']:+.3f} | {dist['median']:+.3f} | {dist['min']:+.3f} | "
            f"{dist['max']:+.3f} | {dist['worse']} |")


def _pair(row: dict, who: str) -> str:
    return f"{row[f'{who} accuracy']:.3f} / {row[f'{who} balanced_accuracy']:.3f}"


def markdown(result: dict, args: argparse.Namespace) -> str:
    rows = cells(result)
    stats = summary(rows)
    result["cells"], result["summary"] = rows, stats
    head = "| group | cells | mean | median | min | max | worse by > 0.02 |\n|---|---|---|---|---|---|---|"
    lines = ["# One-vs-rest with private column ranges drawn once: ranges against none "
             "(benchmarks/multiclass_ranges.py)", "",
             f"DPLogisticRegression(classes=..., column_statistics='ranges') against column_statistics=False on "
             f"{len(result['tables'])} tables (module docstring), epsilon {', '.join(f'{e:g}' for e in EPSILONS)}, "
             f"{result['repeats']} repeat(s) (fresh rows or split and noise seed each), 70/30 split. A cell is a "
             "(table, epsilon); its value the mean over the repeats. Rule: "
             "`ranges_by_default(n_train, d_encoded, epsilon, 0.1)`. Wall time of the measurement: "
             f"{result['wall_seconds']:.0f} s.", ""]
    lines += [f"- {note}" for note in result["notes"]] + ([""] if result["notes"] else [])
    for metric, title in (("accuracy", "accuracy"), ("balanced_accuracy", "balanced accuracy")):
        part = stats[metric]
        lines += [f"## ranges - False, test {title}", "", "Over cells (means over the repeats):", "", head,
                  *(_dist_row(g, part["cells"][g]) for g in ("rule True", "rule False", "all")),
                  _dist_row("policy (ranges iff rule True) - always False", part["policy"]), "",
                  "Over single fits (table, epsilon, repeat):", "", head,
                  *(_dist_row(g, part["fits"][g]) for g in ("rule True", "rule False", "all")), "",
                  "By table kind (cells):", "", head,
                  *(_dist_row(kind, dist) for kind, dist in part["by kind"].items()), "",
                  "By classes k, training rows and the rule's verdict (cells):", "", head,
                  *(_dist_row(group, dist) for group, dist in part["by k, n_train and rule"].items()), ""]
    worst = sorted(rows, key=lambda r: min(r["diff accuracy"], r["diff balanced_accuracy"]))[:8]
    lines += ["## The cells where ranges did worst", "",
              "| table | epsilon | rule | acc False | acc ranges | bal acc False | bal acc ranges | "
              "per-fit acc diffs |",
              "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['table']} | {r['epsilon']:g} | {r['rule']} | {r['False accuracy']:.3f} | "
              f"{r['ranges accuracy']:.3f} | {r['False balanced_accuracy']:.3f} | {r['ranges balanced_accuracy']:.3f} "
              f"| {' '.join(f'{d:+.3f}' for d in r['fit diffs accuracy'])} |" for r in worst]
    lines += ["", "## Every cell", "",
              "Accuracy / balanced accuracy, means over the repeats; warned: fits (of the repeats) that raised the "
              "NOT PRIVATE TrainingRowsWarning, False / ranges.", "",
              "| table | k | n_train | d | epsilon | rule | False | ranges | diff | sklearn (NOT private) | majority "
              "| warned |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['table']} | {r['k']} | {r['n_train']:,} | {r['d']} | {r['epsilon']:g} | "
                     f"{'True' if r['rule'] else 'False'} | {_pair(r, 'False')} | {_pair(r, 'ranges')} | "
                     f"{r['diff accuracy']:+.3f} / {r['diff balanced_accuracy']:+.3f} | {_pair(r, 'sklearn')} | "
                     f"{_pair(r, 'majority')} | {r['False warned']} / {r['ranges warned']} |")
    warned = {label: sum(r[f"{label} warned"] for r in rows) for label in CONTENDERS}
    fits = sum(len(t["repeats"]) for t in result["tables"]) * len(EPSILONS)
    lines += ["", f"TrainingRowsWarning over all {fits} fits per contender: False {warned['False']}, ranges "
              f"{warned['ranges']}.", "", "## Tables", ""]
    lines += [f"- {t['table']} (n = {t['n']:,}, d = {t['d']}): {t['text']}" for t in result["tables"]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="4 designs at n = 3,000, 1 repeat, wine and digits")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--kdd-rows", type=int, default=50_000)
    common.add_result_arguments(parser, "multiclass_ranges")
    return common.run_recorded("benchmarks.multiclass_ranges", parser, argv, run, markdown)


if __name__ == "__main__":
    main()
