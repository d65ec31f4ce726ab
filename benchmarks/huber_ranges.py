"""DPHuberRegressor with and without private ranges of the columns and the label (issue 42): what its default buys.

``DPHuberRegressor()``'s default ``column_statistics="auto"`` (docs/theory.md, section 34.1) draws, inside ``fit`` and
charged with it once, the features' noisy histograms (eps_s = 0.2 epsilon, on a grid whose depth is a public rule of
n, d and eps_s) and the label's (eps_l = 0.3 epsilon), centres and scales the columns by their ranges, centres the
label at its range's midpoint c and fits at the bound B' its range gives (m = B' / 4), adding c back to the
intercept. Each regression table of benchmarks/real_tables.py is fitted at epsilon 0.3, 1 and 3 with
``column_statistics=False`` and with the default "auto", on the same seeded 75/25 splits and seeds as real_tables'
DPHuberRegressor column; the gap recovered is against its trivial predictor and non-private reference. "drew" is the
share of fits whose public rule drew the ranges.

The constants of the seventh session (the share 0.2 and the depth rule's LOCATED_FILL) were fixed on the development
tables energy, trips, sensors and clinic, with heavy, prices, wages500, rents and claims; the earlier ones on heavy,
prices, rents, wages500 and a synthetic table (docs/theory.md, section 34.1).

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.huber_ranges   # writes results/huber_ranges.md (about 2 minutes)
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import numpy as np

import dpcvx
from benchmarks import common
from benchmarks.real_tables import EPSILONS, load, reference, score, trivial

RESULTS = Path(__file__).resolve().parent / "results"
TABLES = ("heavy", "prices", "wages500", "rents", "claims", "diabetes", "energy", "trips", "clinic", "sensors")
SETTINGS = (False, "auto")


def _splits(size: int, splits: int) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """real_tables.run's splits: (train, test, split index)."""
    out = []
    for split in range(splits):
        order = common.generator(0, split).permutation(size)
        cut = int(round(0.75 * order.size))
        out.append((order[:cut], order[cut:], split))
    return out


def run(name: str, splits: int) -> dict:
    """{setting: {epsilon: [(gap recovered, drew), ...]}} and the table's R^2 per fit."""
    table = load(name)
    record: dict = {"table": name, "splits": splits, "gap": {}, "r2": {}, "drew": {}}
    for train, test, split in _splits(table.X.shape[0], splits):
        low, high = trivial(table.task, table.y[train], table.y[test]), reference(table, train, test)
        for epsilon in EPSILONS:
            seed = common.int_seed(0, split, int(epsilon * 10))  # real_tables' fit seed
            for setting in SETTINGS:
                estimator = dpcvx.DPHuberRegressor(epsilon=epsilon, label_bound=table.label_range,
                                                   column_statistics=setting, random_state=seed)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    estimator.fit(table.X[train], table.y[train])
                r2 = score(table.task, table.y[test], estimator.predict(table.X[test]))
                key = f"{setting}@{epsilon}"
                record["r2"].setdefault(key, []).append(r2)
                record["gap"].setdefault(key, []).append((r2 - low) / (high - low))
                record["drew"].setdefault(key, []).append(estimator.certificate_.column_statistics is not None)
    return record


def render(records: list[dict]) -> str:
    lines = ["# DPHuberRegressor: column_statistics=False and \"auto\" (the default: private ranges of the columns "
             "and the label)", "",
             "Written by `OPENBLAS_NUM_THREADS=1 python -m benchmarks.huber_ranges` (module docstring). R^2 and the "
             "gap recovered (mean over the splits, R^2 +- 1.96 standard errors); \"drew\": the share of fits that "
             "drew the ranges. Development tables: all of these (the held-out regression family is in "
             "real_tables.md).", "",
             "| table | epsilon | R^2 off | R^2 auto (default) | gap off | gap auto (default) | drew | splits |",
             "|---|---|---|---|---|---|---|---|"]
    for record in records:
        for epsilon in EPSILONS:
            cells = []
            for kind in ("r2", "gap"):
                for setting in SETTINGS:
                    values = np.array(record[kind][f"{setting}@{epsilon}"])
                    half = 1.96 * values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else 0.0
                    cells.append(f"{values.mean():.3f} ± {half:.3f}" if kind == "r2" else f"{values.mean():.2f}")
            drew = np.mean(record["drew"][f"auto@{epsilon}"])
            lines.append(f"| {record['table']} | {epsilon:g} | {' | '.join(cells)} | {drew:.0%} | "
                         f"{record['splits']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    record = common.RunRecord("benchmarks.huber_ranges")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", choices=TABLES, default=list(TABLES))
    parser.add_argument("--splits", type=int, default=10)
    options = parser.parse_args()
    for name in options.tables:
        common.write_json(RESULTS / f"huber_ranges_{name}.json", run(name, options.splits))
        print(f"[huber_ranges] {name}: done", flush=True)
    saved = [json.loads((RESULTS / f"huber_ranges_{name}.json").read_text()) for name in TABLES
             if (RESULTS / f"huber_ranges_{name}.json").exists()]
    common.write_markdown(RESULTS / "huber_ranges.md", render(saved), record)


if __name__ == "__main__":
    main()
