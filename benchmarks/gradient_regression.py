"""Noisy gradient descent on private ranges (mechanism "gradient-ranged", DPLinearRegression()'s default where a range
is searched): its development and held-out tables, beside the former default AdaSSP and DPHuberRegressor().

DPLinearRegression()'s former default (mechanism "adassp-ranged", docs/theory.md section 16) recovers little of the
gap between the trivial predictor and non-private ridge when n epsilon / d is 50 to 250. Mechanism "gradient-ranged"
(docs/theory.md section 16.1, :mod:`dpcvx.privacy.gradient_descent`) keeps its first half (the private ranges of
every column and of the label, or of the label alone, searched by Gaussian counts, and their maps) and replaces
AdaSSP's sufficient statistics by T steps of full-batch gradient descent on the residuals clipped onto [-tau, tau],
tau = B' / LABEL_WIDTH, step 1 / Lambda with Lambda a private top eigenvalue of Z^T Z, from w = 0, in one joint
Gaussian with the search.

How T was chosen (a prototype, no longer in this script). The library's mechanism did not exist yet; this script
first held a prototype of it (the library's range search and maps, the same shares) with T and a residual clip's
multiple kappa (tau = kappa B' / LABEL_WIDTH) as parameters, and ran the grid T in {5, 10, 20} by kappa in {0.5, 1, 2}
on development tables only: real_tables' non-held-out regression tables (diabetes, heavy) and two synthetic
families written here (``mixed45``, ``dense45``; :func:`_synthetic`), epsilon 0.3, 1 and 3, 5 splits. The rule: the
(T, kappa) whose WORST development cell with n epsilon / d >= 50 has the largest gap recovered (tie: the mean). It
chose T = 20, kappa = 1 (worst 0.056, mean 0.888; DPLinearRegression() then: worst 0.005, mean 0.651), committed
(c3cfc84) before any held-out run, and the held-out run of the frozen prototype followed (e0679e4). Their records are
results/gradient_regression_prototype_dev.md and gradient_regression_prototype_held_out.md; the script that wrote
them is this file at those commits (the runs name the commits of the branch they ran on, 5ca942c and 1105b1e, whose
script is the same). The library's STEPS = 20 and tau = B' / LABEL_WIDTH are that choice; the library also searches
the label's range alone where every column's cannot be searched, as the prototype did.

What this script runs now: the library, on the same tables, splits and fit seeds as real_tables.py: DPLinearRegression()
(the default: the descent wherever a range is searched, AdaSSP elsewhere), DPLinearRegression(mechanism="adassp") (the
former default) and DPHuberRegressor() (label_bound = the table's public range), beside the trivial predictor and the
non-private reference (StandardScaler + Ridge), all scored by real_tables. "gap recovered" = (R^2 - trivial) /
(reference - trivial) per split, mean and 95% normal interval over the splits. Stage ``dev``: the development tables;
stage ``held-out``: every held-out regression family of benchmarks/real_tables.py.

Tables run one per process invocation (``--tables``); each run merges into results/gradient_regression_<stage>.json
and rewrites its Markdown from every table recorded there, with the command of each.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.gradient_regression --stage dev --tables heavy
    OPENBLAS_NUM_THREADS=1 python -m benchmarks.gradient_regression --stage held-out --tables prices
    python -m benchmarks.gradient_regression --stage held-out --render   # the Markdown again from the JSON
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import dpcvx
from benchmarks import common
from benchmarks.real_tables import Table, load, reference, score, seeded_splits, trivial
from dpcvx.privacy.adassp import range_search_level

RESULTS = Path(__file__).resolve().parent / "results"
EPSILONS = (0.3, 1.0, 3.0)
DELTA = 1e-6  # DPLinearRegression's default
SPLITS = 5
SCORED_AT = 50.0  # the summary's cells: n epsilon / d at least this
#: the synthetic development families: (family, n epsilon / d at epsilon 1 of the training rows)
SYNTHETIC_SIZES = (30, 100, 300, 1000)
SYNTHETIC = tuple(f"{family}_{size}" for family in ("mixed45", "dense45") for size in SYNTHETIC_SIZES)
DEVELOPMENT = ("diabetes", "heavy") + SYNTHETIC
#: real_tables' held-out families whose task is a regression (HELD_OUT less the binary mixed10, rare2, alarms, orders)
HELD_OUT_REGRESSION = ("prices", "wages500", "rents", "claims", "energy", "trips", "clinic", "sensors", "water",
                       "repairs", "harvest")
#: the methods compared, by their column name: (estimator, its settings besides epsilon, label_bound, random_state)
METHODS = {"DPLinearRegression()": ("DPLinearRegression", {}),
           "DPLinearRegression(mechanism='adassp')": ("DPLinearRegression", {"mechanism": "adassp"}),
           "DPHuberRegressor()": ("DPHuberRegressor", {})}


def _searched(n: int, d: int, epsilon: float, delta: float = DELTA) -> int:
    """The columns whose ranges a fit of n rows of d columns searches (column_statistics="auto" of adassp-ranged):
    every column and the label (d + 1) when the search's level at n is defined for them, else the label alone (1)
    when it is for it, else none (0). Public: epsilon, delta, d and n."""
    return next((k for k in (d + 1, 1) if range_search_level(epsilon, delta, columns=k, n=n) is not None), 0)


def _synthetic(name: str) -> Table:
    """``mixed45_<size>`` or ``dense45_<size>`` (module notes): n = size * 45 / 0.75 rows, so that the training rows'
    n epsilon / d is ``size`` at epsilon 1; generators fixed before any fit, their own seeds."""
    family, size = name.rsplit("_", 1)
    n = int(round(int(size) * 45 / 0.75))
    rng = np.random.default_rng(7000 + int(size))
    if family == "mixed45":  # as /work audit's t05_reg_gap table: 3 + 40 + 2 encoded columns
        numeric, category = dpcvx.NumericColumn, dpcvx.CategoricalColumn
        raw = {"sqft": rng.uniform(300, 4000, n), "rooms": rng.integers(1, 9, n).astype(float),
               "dist": rng.uniform(0, 1, n), "zone": rng.integers(1, 41, n).astype(str),
               "new": rng.integers(0, 2, n).astype(bool).astype(str)}
        effect = np.random.default_rng(99).normal(size=41) * 60
        y = (1e4 + 0.12 * (raw["sqft"] - 2000) + 20 * raw["rooms"] - 150 * raw["dist"]
             + effect[raw["zone"].astype(int)] + 40 * (raw["new"] == "True") + rng.normal(0, 60, n))
        columns = (numeric("sqft", 0, 10000), numeric("rooms", 0, 20), numeric("dist", 0, 1),
                   category("zone", tuple(str(i) for i in range(1, 41))), category("new", ("False", "True")))
        bounded, free = dpcvx.PublicSchema(columns, norm=1.0), dpcvx.PublicSchema(columns, norm=1e12)
        X, Z = bounded.transform(raw), free.transform(raw)
        text = f"{n:,} rows: 3 numeric, a 40-level categorical, a bool (45 columns); label near 10,000 in [0, 20,000]"
    else:  # as t05c's numeric table: rows inside the unit ball, columns filling their public ranges
        X = rng.uniform(-0.5, 0.5, (n, 45)) / math.sqrt(45 / 3)
        weights = np.random.default_rng(98).normal(size=45)
        signal = X @ weights
        y = 1e4 + 150 * signal / np.std(signal) + rng.normal(0, 60, n)
        Z = X
        text = f"{n:,} rows: 45 numeric columns filling their public ranges; label near 10,000 in [0, 20,000]"
    return Table(name, "regression", X, Z, np.clip(y, 0, 20000), label_range=(0.0, 20000.0), text=text)


def _table(name: str) -> Table:
    return _synthetic(name) if name in SYNTHETIC else load(name)


def _gap(values: list[float], low: list[float], high: list[float]) -> list[float]:
    """The gap recovered of each split."""
    return [(v - a) / (b - a) for v, a, b in zip(values, low, high, strict=True)]


def _fits(table: Table, train: np.ndarray, test: np.ndarray, epsilon: float, seed: int) -> dict[str, float]:
    """{method: test R^2} of one split at one epsilon: each of ``METHODS`` (label_bound = the public range; warnings
    silenced)."""
    out = {}
    assert table.label_range is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method, (name, settings) in METHODS.items():
            estimator = getattr(dpcvx, name)(epsilon=epsilon, label_bound=table.label_range, random_state=seed,
                                             **settings)
            predicted = estimator.fit(table.X[train], table.y[train]).predict(table.X[test])
            out[method] = score(table.task, table.y[test], predicted)
    return out


def measure_table(name: str, table: Table, splits: int, epsilons: tuple[float, ...],
                  fits: Callable[[Table, np.ndarray, np.ndarray, float, int], dict[str, float]],
                  script: str) -> dict[str, Any]:
    """One table's record, as this script and those that share its scoring (gradient_level.py, descent_momentum.py)
    keep it: per epsilon and key of ``fits`` (a method, a candidate), the test R^2 of each split, and the trivial and
    reference scores; real_tables' splits and fit seeds."""
    record: dict[str, Any] = {"table": name, "text": table.text, "n": int(table.X.shape[0]),
                              "d": int(table.X.shape[1]), "trivial": [], "reference": [], "n_train": [],
                              "scores": {}}
    for split, (train, test, _) in enumerate(seeded_splits(table, splits)):
        record["trivial"].append(trivial(table.task, table.y[train], table.y[test]))
        record["reference"].append(reference(table, train, test))
        record["n_train"].append(int(train.size))
        for epsilon in epsilons:
            seed = common.int_seed(0, split, int(epsilon * 10))  # real_tables' fit seed
            cell = record["scores"].setdefault(str(epsilon), {})
            for key, value in fits(table, train, test, epsilon, seed).items():
                cell.setdefault(key, []).append(value)
        print(f"[{script}] {name} split {split} done", flush=True)
    return record


def measure(name: str, splits: int) -> dict[str, Any]:
    """One table's record: per epsilon and method, the R^2 of each split, and the trivial and reference scores."""
    return measure_table(name, _table(name), splits, EPSILONS, _fits, "gradient_regression")


def _cells(records: dict[str, dict]) -> list[tuple[str, float, float, dict[str, list[float]]]]:
    """(table, epsilon, n epsilon / d, {method: gap recovered per split}) of every recorded cell."""
    out = []
    for name, record in records.items():
        for epsilon, methods in record["scores"].items():
            ratio = float(np.mean(record["n_train"])) * float(epsilon) / record["d"]
            out.append((name, float(epsilon), ratio, {method: _gap(values, record["trivial"], record["reference"])
                                                      for method, values in methods.items()}))
    return out


def _summary(cells: list[tuple[str, float, float, dict[str, list[float]]]], methods: list[str]) -> list[str]:
    """Markdown lines: each method's worst and mean gap over the cells with n epsilon / d >= SCORED_AT, then the cells
    where the default's mean gap is below another method's (and whether the intervals are apart)."""
    scored = [cell for cell in cells if cell[2] >= SCORED_AT]
    lines = [f"Over the {len(scored)} cells with n epsilon / d >= {SCORED_AT:g}:", "",
             "| method | worst cell's gap | mean gap |", "|---|---|---|"]
    for method in methods:
        gaps = [float(np.mean(cell[3][method])) for cell in scored]
        lines.append(f"| {method} | {min(gaps):.2f} | {np.mean(gaps):.2f} |")
    default, others = methods[0], methods[1:]
    lines += ["", f"Cells where {default} has the lower mean gap (all cells; \"apart\": the 95% intervals do not "
              "overlap):", ""]
    for name, epsilon, ratio, gaps in sorted(cells, key=lambda c: (c[0], c[1])):
        mine, half = float(np.mean(gaps[default])), _half(gaps[default])
        for method in others:
            theirs, spread = float(np.mean(gaps[method])), _half(gaps[method])
            if mine < theirs:
                apart = "apart" if mine + half < theirs - spread else "overlapping"
                lines.append(f"- {name} at epsilon {epsilon:g} (n eps / d {ratio:.0f}): {mine:.2f} against "
                             f"{method} {theirs:.2f} ({apart})")
    return lines


def _half(values: list[float]) -> float:
    """The half-width of the 95% normal interval of the mean over the splits."""
    return 1.96 * float(np.std(values, ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else math.nan


def _interval(values: list[float]) -> str:
    return f"{float(np.mean(values)):.2f} ± {_half(values):.2f}"


def render(stage: str, records: dict[str, dict]) -> str:
    """The Markdown of a stage: one row per (table, epsilon), the gap recovered of each method."""
    cells = _cells(records)
    methods = list(cells[0][3]) if cells else []
    title = ("DPLinearRegression()'s default (gradient-ranged where a range is searched): "
             + ("the development tables" if stage == "dev" else "the held-out tables"))
    lines = [f"# {title}", "", "Written by benchmarks/gradient_regression.py (its docstring: the mechanism, the "
             "tables, the rule). Gap recovered = (R^2 - trivial) / (reference - trivial) per split; mean ± 95% "
             "normal interval over the splits. \"searched\": the ranges DPLinearRegression() searches at that n "
             "(every column and the label, the label alone, or none: the public rule of column_statistics=\"auto\"; "
             "with none it releases AdaSSP).", ""]
    if cells:
        lines += ["## Summary", ""] + _summary(cells, methods) + [""]
    lines += ["## Cells", "", "| table | epsilon | n eps / d | searched | trivial R^2 | reference R^2 | "
              + " | ".join(methods) + " |", "|---|---|---|---|---|---|" + "---|" * len(methods)]
    for name, epsilon, ratio, gaps in sorted(cells, key=lambda c: (c[0], c[1])):
        record = records[name]
        searched = {0: "none", 1: "label"}.get(_searched(record["n_train"][0], record["d"], epsilon), "all")
        lines.append(f"| {name} | {epsilon:g} | {ratio:.0f} | {searched} | {np.mean(record['trivial']):.3f} | "
                     f"{np.mean(record['reference']):.3f} | " + " | ".join(_interval(gaps[m]) for m in methods) + " |")
    return "\n".join(lines + common.tables_and_runs(records)) + "\n"


def main(argv: list[str] | None = None) -> dict[str, dict]:
    stages = {"dev": DEVELOPMENT, "held-out": HELD_OUT_REGRESSION}
    return common.staged_main(argv, __doc__, "benchmarks.gradient_regression", "gradient_regression", stages,
                              SPLITS, RESULTS, measure, render)


if __name__ == "__main__":
    main()
