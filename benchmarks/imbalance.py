"""Imbalanced binary tables: class weights and the intercept offset against the defaults (issue 42, items 2-3).

On the imbalanced binary tables of :mod:`benchmarks.real_tables` (rare3: 3% positives, coded80: 6%, adult:
24%; the same loaders, public schemas and seeded 75/25 splits), at each epsilon:

* ``defaults``: DPLogisticRegression() (balanced accuracy at threshold 0.5, and at the table's public prior);
* ``balanced``: DPLogisticRegression(class_weight="balanced"): weights from one private class count within
  epsilon (docs/theory.md, section 21);
* ``offset``: DPLogisticRegression(class_prior=the public prior): the intercept's ridge centred at the prior's
  log-odds (section 21, "The intercept offset"), scored at the prior's threshold;

with the test log loss of ``defaults`` and ``offset`` (predict_proba is the released link) and the
non-private reference of real_tables (LogisticRegression(class_weight="balanced") on standard preprocessing).
Means over the splits. A short run (a few splits); the full tables are real_tables.py's.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.imbalance --splits 3
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from sklearn.metrics import log_loss

import dpcvx
from benchmarks import common
from benchmarks import real_tables as tables

RESULT = tables.RESULTS / "imbalance.md"
TABLES = ("rare3", "coded80", "adult")
EPSILONS = (0.3, 1.0)


def _fit(table: tables.Table, train: np.ndarray, epsilon: float, seed: int, **settings: object) -> object:
    estimator = dpcvx.DPLogisticRegression(epsilon=epsilon, classes=table.classes, random_state=seed, **settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return estimator.fit(table.X[train], table.y[train])


def measure(name: str, splits: int) -> list[str]:
    """Markdown rows of one table: one per epsilon."""
    table = tables.load(name)
    assert table.prior is not None
    prior = (1 - table.prior, table.prior)
    cells: dict[tuple[float, str], list[float]] = {}
    for split in range(splits):
        order = common.generator(0, split).permutation(table.X.shape[0])
        cut = int(round(0.75 * order.size))
        train, test = order[:cut], order[cut:]
        cells.setdefault((0.0, "reference"), []).append(tables.reference(table, train, test))
        for epsilon in EPSILONS:
            seed = common.int_seed(0, split, int(epsilon * 10))
            runs = {"defaults": _fit(table, train, epsilon, seed, threshold=table.prior),
                    "balanced": _fit(table, train, epsilon, seed, class_weight="balanced"),
                    "offset": _fit(table, train, epsilon, seed, class_prior=prior, threshold=table.prior)}
            truth = table.y[test]
            for label, model in runs.items():
                predicted = model.predict(table.X[test])  # type: ignore[attr-defined]
                cells.setdefault((epsilon, label), []).append(tables.score("binary", truth, predicted))
            cells.setdefault((epsilon, "defaults at 0.5"), []).append(tables.score(
                "binary", truth, runs["defaults"].model_.predict(table.X[test])))  # type: ignore[attr-defined]
            for label in ("defaults", "offset"):
                proba = runs[label].predict_proba(table.X[test])[:, 1]  # type: ignore[attr-defined]
                cells.setdefault((epsilon, f"{label} log loss"), []).append(
                    log_loss(truth, proba, labels=list(table.classes)))
    reference = float(np.mean(cells[(0.0, "reference")]))
    rows = []
    for epsilon in EPSILONS:
        mean = {label: float(np.mean(cells[(epsilon, label)])) for label in
                ("defaults at 0.5", "defaults", "balanced", "offset", "defaults log loss", "offset log loss")}
        rows.append(f"| {name} | {epsilon:g} | {mean['defaults at 0.5']:.3f} | {mean['defaults']:.3f} | "
                    f"{mean['balanced']:.3f} | {mean['offset']:.3f} | {reference:.3f} | "
                    f"{(mean['balanced'] - 0.5) / (reference - 0.5):.2f} | {mean['defaults log loss']:.4f} | "
                    f"{mean['offset log loss']:.4f} | {splits} |")
    return rows


HEADER = ("| table | epsilon | defaults (0.5) | defaults (at prior) | balanced | offset (at prior) | reference | "
          "balanced: gap recovered | log loss defaults | log loss offset | splits |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", nargs="+", choices=TABLES, default=list(TABLES))
    parser.add_argument("--splits", type=int, default=3)
    arguments = parser.parse_args()
    record = common.RunRecord("benchmarks.imbalance")
    rows = [row for name in arguments.tables for row in measure(name, arguments.splits)]
    text = ("# Imbalanced tables: class weights and the intercept offset (benchmarks/imbalance.py)\n\n"
            "Balanced accuracy (means over the splits; seed 0).\n\n" + "\n".join([HEADER, *rows]) + "\n")
    print(common.write_markdown(RESULT, text, record))


if __name__ == "__main__":
    main()
