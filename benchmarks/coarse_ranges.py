"""The classifiers' private column ranges on coarser grids (docs/theory.md section 34, "Coarser grids"): tables whose
columns sit in a correct but not loose public range, before and after, side by side.

Why. The default ``DPLogisticRegression()`` draws private column ranges (``column_statistics="auto"``) as noisy
histograms on 2^8 cells per column. A column is located when cells above the threshold T (about 2,660 rows at
d = 12 and epsilon 1) hold half of the rows. A prober's sensor table (n = 8,000, 8 temperatures near 350 and 4
pressures near 95, 3% faults) scored 0.995-1.0 balanced accuracy with public ranges [0, 500] / [0, 100] (each column
in 2 or 3 cells, located) and 0.5 with the narrower, still correct [300, 400] / [80, 100]: there each column spread
over about 20 cells of 1,000 rows, none above T, so nothing was located and each column kept a twentieth of the row
bound. The change: a column not located on the 2^8 grid is sought on the coarser grids that sums of 2, 4, ...
adjacent noisy counts make (post-processing of the same release, no privacy cost), at a Chernoff threshold with the
single cell's false-keep probability, finest grid first, and taken only where its range is narrower than its share
R / sqrt(d) of the row bound. Those three rules were written down before any table here was fitted; nothing was
tuned on these tables.

What this script runs: for each generated table (``FAMILIES``, public, seeded), in separate processes for the
tree given by ``--before`` and this repository (:func:`benchmarks.common.tree_child`), the default
``DPLogisticRegression(epsilon=eps)`` on the rows of a ``PublicSchema`` with each column's declared range, scored on
5,000 held-out rows by ROC AUC (decision function) and balanced accuracy, beside scikit-learn's
``LogisticRegression()`` on the same rows (the reference). Reported: per family and epsilon, the AUC's gap
recovered (AUC - 0.5) / (reference AUC - 0.5), its mean and worst cell, before and after, and how many columns were
located.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.coarse_ranges --before ../dpcvx-parent
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import common

TEST_ROWS = 5000
ROWS = (3000, 10000, 30000)
WIDTHS = (5, 12, 30)
EPSILONS = (0.3, 1.0, 3.0)
SEEDS = (0, 1)
#: spread: the columns' standard deviation as a share of their public half-width
FAMILIES = {
    "clustered-0.004": {"spread": 0.004, "positives": 0.5},
    "clustered-0.016": {"spread": 0.016, "positives": 0.3},
    "clustered-0.06": {"spread": 0.06, "positives": 0.1},
    "clustered-0.25": {"spread": 0.25, "positives": 0.5},
    "mixed": {"spread": 0.03, "positives": 0.2},
    "sensor": {"spread": 0.04, "positives": 0.03},
}
#: Written after the first run (whose rare3 cell at epsilon 0.3 added the rule T <= n) and before any fit with that
#: rule: columns uniform over their range with 2% positives (rare3's shape), right-skewed (lognormal) columns,
#: two-cluster columns, and half tight, half uniform columns
HELD_OUT = {
    "uniform-rare": {"spread": 0.0, "positives": 0.02},
    "skewed": {"spread": 0.5, "positives": 0.2},
    "bimodal": {"spread": 0.02, "positives": 0.3},
    "half-tight": {"spread": 0.02, "positives": 0.1},
}
#: Written after the second run (whose half-share and window rules came from a test's table of three normal columns
#: of deviation R / 2) and before any fit with those rules: broad normal columns, columns at two spreads, small
#: integer counts in a wide declared range
LAST_HELD_OUT = {
    "normal-wide": {"spread": 0.35, "positives": 0.05},
    "two-scale": {"spread": 0.1, "positives": 0.2},
    "integer-levels": {"spread": 0.0, "positives": 0.15},
}
#: real_tables' binary tables (Adult and KDD read ../shared/data), 5 seeded 75/25 splits each
REAL = ("breast_cancer", "rare3", "coded80", "mixed10", "rare2", "alarms", "orders", "adult", "kdd")
SPLITS = 5


def table(family: str, n: int, d: int, seed: int) -> tuple[Any, np.ndarray, Any]:
    """(schema, labels, frame) of ``n + TEST_ROWS`` rows: ``family``'s columns in public ranges [0, 100] each, normal
    about centres in [20, 80] at the family's spread (mixed: a quarter uniform over the range, a quarter 0/1 flags
    declared [0, 1]; sensor: one common factor; the held-out shapes of ``HELD_OUT`` and ``LAST_HELD_OUT``), a label
    drawn from a logistic
    model of the standardised columns, its intercept set for the family's share of positives."""
    import pandas as pd

    import dpcvx

    settings = {**FAMILIES, **HELD_OUT, **LAST_HELD_OUT}[family]
    rng = np.random.default_rng([seed, n, d, sum(map(ord, family))])
    rows = n + TEST_ROWS
    centres = rng.uniform(20, 80, d)
    factor = rng.normal(size=rows) if family == "sensor" else np.zeros(rows)
    noise = rng.normal(size=(rows, d))
    values = centres + 50 * settings["spread"] * (factor[:, None] + noise) / (2.0 if family == "sensor" else 1.0)
    high = np.full(d, 100.0)
    if family == "mixed":
        quarter = max(1, d // 4)
        values[:, :quarter] = rng.uniform(0, 100, (rows, quarter))
        values[:, quarter:2 * quarter] = rng.random((rows, quarter)) < 0.3
        high[quarter:2 * quarter] = 1.0
    elif family == "uniform-rare":
        values = rng.uniform(0, 100, (rows, d))
    elif family == "skewed":
        values = np.exp(rng.normal(np.log(rng.uniform(3, 15, d)), settings["spread"], (rows, d)))
    elif family == "bimodal":
        second = rng.uniform(20, 80, d)
        values = np.where(rng.random((rows, d)) < 0.35, second + 50 * settings["spread"] * noise, values)
    elif family == "half-tight":
        half = d // 2
        values[:, half:] = rng.uniform(0, 100, (rows, d - half))
    elif family == "normal-wide":
        values = 50 + 50 * settings["spread"] * noise
    elif family == "two-scale":
        values[:, d // 2:] = centres[d // 2:] + 50 * 0.01 * noise[:, d // 2:]
    elif family == "integer-levels":
        values = rng.poisson(rng.uniform(1, 4, d), (rows, d)).astype(float)
    values = np.clip(values, 0, high)
    standard = (values - values.mean(axis=0)) / np.maximum(values.std(axis=0), 1e-12)
    signal = standard @ rng.normal(0, 2 / np.sqrt(d), d)
    if family == "sensor":
        signal += 3 * factor
    intercept = np.quantile(signal, 1 - settings["positives"])
    labels = (rng.random(rows) < 1 / (1 + np.exp(-(signal - intercept)))).astype(int)
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"x{j}", 0.0, float(high[j])) for j in range(d)))
    return schema, labels, pd.DataFrame(values, columns=[f"x{j}" for j in range(d)])


def measure(family: str) -> list[dict]:
    """Every cell of ``family`` (rows x widths x epsilons x seeds): the default fit's and the reference's AUC and
    balanced accuracy, and the columns located (the released cells other than the whole grid)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    import dpcvx

    cells = []
    for n in ROWS:
        for d in WIDTHS:
            for seed in SEEDS:
                schema, labels, frame = table(family, n, d, seed)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    X = schema.transform(frame)
                train, test = slice(0, n), slice(n, None)
                reference = LogisticRegression(max_iter=1000).fit(X[train], labels[train])
                ref_auc = roc_auc_score(labels[test], reference.decision_function(X[test]))
                for epsilon in EPSILONS:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        model = dpcvx.DPLogisticRegression(epsilon=epsilon, random_state=seed).fit(
                            X[train], labels[train])
                    statistics = model.certificate_.column_statistics
                    located = None if statistics is None else sum(
                        1 for low, high in zip(*statistics["cells"], strict=True) if (low, high) != (0, 256))
                    cells.append({"n": n, "d": d, "seed": seed, "epsilon": epsilon, "located": located,
                                  "auc": roc_auc_score(labels[test], model.decision_function(X[test])),
                                  "reference_auc": ref_auc,
                                  "bacc": balanced_accuracy_score(labels[test], model.predict(X[test]))})
    return cells


def measure_table(name: str) -> list[dict]:
    """Every cell of real_tables' binary table ``name`` (its seeded splits x epsilons): as :func:`measure`, the
    reference scikit-learn's LogisticRegression() on the same public-schema rows."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    import dpcvx
    from benchmarks.real_tables import load, seeded_splits

    table = load(name)
    cells = []
    for split, (train, test, seed) in enumerate(seeded_splits(table, SPLITS)):
        positive = table.y[test] == table.classes[1]
        reference = LogisticRegression(max_iter=1000).fit(table.X[train], table.y[train])
        ref_auc = roc_auc_score(positive, reference.decision_function(table.X[test]))
        for epsilon in EPSILONS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = dpcvx.DPLogisticRegression(epsilon=epsilon, classes=table.classes, random_state=seed).fit(
                    table.X[train], table.y[train])
            statistics = model.certificate_.column_statistics
            located = None if statistics is None else sum(
                1 for low, high in zip(*statistics["cells"], strict=True) if (low, high) != (0, 256))
            cells.append({"n": int(train.size), "d": int(table.X.shape[1]), "seed": split, "epsilon": epsilon,
                          "located": located, "auc": roc_auc_score(positive, model.decision_function(table.X[test])),
                          "reference_auc": ref_auc,
                          "bacc": balanced_accuracy_score(table.y[test], model.predict(table.X[test]))})
    return cells


def _recovered(cell: dict) -> float:
    return (cell["auc"] - 0.5) / max(cell["reference_auc"] - 0.5, 1e-9)


def run(arguments: argparse.Namespace) -> dict:
    body = ("from benchmarks.coarse_ranges import measure, measure_table\nimport json\n"
            "print(json.dumps({call}({family!r})))")
    trees = (("before", Path(arguments.before).resolve()), ("after", common.REPO_ROOT))
    return {family: {tree: common.tree_child(path, body.format(call="measure_table" if family in REAL else "measure",
                                                               family=family))
                     for tree, path in trees}
            for family in arguments.families}


def markdown(result: dict, arguments: argparse.Namespace) -> str:
    lines = ["# The classifiers' column ranges on coarser grids (benchmarks/coarse_ranges.py)", "",
             f"DPLogisticRegression() defaults, before (`{arguments.before}`) and after; AUC's gap recovered against "
             f"scikit-learn's LogisticRegression() on {TEST_ROWS:,} held-out rows: mean [worst] over n in {ROWS}, "
             f"d in {WIDTHS} and seeds {SEEDS}; columns located out of all, summed over the cells where the ranges "
             "were drawn; balanced accuracy's mean.", "",
             "| family | epsilon | AUC recovered, before | after | located, before | after | bal. acc., before "
             "| after |",
             "|---|---|---|---|---|---|---|---|"]
    for family, trees in result.items():
        for epsilon in EPSILONS:
            shown = []
            for key in ("recovered", "located", "bacc"):
                for tree in ("before", "after"):
                    cells = [cell for cell in trees[tree] if cell["epsilon"] == epsilon]
                    if key == "recovered":
                        values = [_recovered(cell) for cell in cells]
                        shown.append(f"{np.mean(values):.2f} [{min(values):.2f}]")
                    elif key == "located":
                        drawn = [cell for cell in cells if cell["located"] is not None]
                        shown.append(f"{sum(c['located'] for c in drawn)} / {sum(c['d'] for c in drawn)}")
                    else:
                        shown.append(f"{np.mean([cell['bacc'] for cell in cells]):.3f}")
            lines.append(f"| {family} | {epsilon:g} | " + " | ".join(shown) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="a dpcvx tree to compare against (its root)")
    families = list(FAMILIES) + list(REAL) + list(HELD_OUT) + list(LAST_HELD_OUT)
    parser.add_argument("--families", nargs="+", choices=families, default=families)
    common.add_result_arguments(parser, "coarse_ranges")
    return common.run_recorded("benchmarks.coarse_ranges", parser, argv, run, markdown)


if __name__ == "__main__":
    main()
