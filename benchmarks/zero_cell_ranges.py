"""The classifiers' fill map on flag columns: a raised column whose private range is the one cell holding 0 kept at
slope 1 beyond the coordinate clip (``soft``, format 18) against the former map that clipped it, and against
``column_statistics=False``.

A 0/1 flag or one-hot level on under q = 10 % of the rows has its 10 % and 90 % points at 0, so its released range
is the cell [0, 2 R / 2^D); the fill map raises it (centre the cell's midpoint, multiplier t / h) and the clip
crushed its rare "on" value onto 2 R / sqrt(d) (session 57's probe: one-hot d = 200 at epsilon 10 scored 0.791 with
the ranges, 0.825 without). The former map is ``fill_map(..., soft_zero_cell=False)`` bound in place of the default
for the "former" arm (the same centres, multipliers and fill level; only the soft columns differ); the same seed
draws the same histograms and noise in every arm.

``--part dev``: the tables the rule was developed on (the probe's one-hot, zip-code and bag-of-words families, KDD,
Adult, and real_tables' and coarse_ranges' tables where the ranges help: alarms, mixed10, orders, clustered at spread
0.004). Candidate rules measured there before this one (in the session's scratch, not recorded here) kept every
one-cell range at its public map (lost on narrow columns: clustered-0.004 and alarms, AUC 0.83 -> 0.78) or left
the flags out of the fill level (lost on Adult, 0.841 -> 0.834 at epsilon 3). ``--part held``: three families
written after the rule was fixed and run once: multi-hot tags, independent flags at rates 1-20 %, flags mixed with
narrow continuous columns (centred encoding). Accuracy and ROC AUC on held-out rows, seeds 0-2, only the cells where
the default drew the ranges.
"""

from __future__ import annotations

import argparse
import functools
import warnings
from typing import Any

import numpy as np

from benchmarks import common

SEEDS = (0, 1, 2)
ARMS = ("former", "soft", "off")
DEV = {"onehot": (3.0, 10.0), "zips": (3.0, 10.0), "bow": (3.0, 10.0), "kdd": (3.0, 10.0), "adult": (3.0, 10.0),
       "alarms": (1.0, 3.0), "mixed10": (1.0, 3.0), "orders": (1.0, 3.0), "clustered-0.004": (10.0,)}
HELD = {"tags": (1.0, 3.0, 10.0), "flags": (1.0, 3.0, 10.0), "mixed-flags": (1.0, 3.0, 10.0)}


def _label(rng: np.random.Generator, z: np.ndarray, positives: float) -> np.ndarray:
    return (rng.random(z.size) < 1 / (1 + np.exp(-(z - np.quantile(z, 1 - positives))))).astype(int)


def _categoricals(n: int, rng: np.random.Generator, levels: tuple[int, ...], effect: Any,
                  positives: float, age: bool = False) -> tuple[Any, np.ndarray]:
    """Rows of uniform categoricals (one-hot by a public schema), an optional age column, a logistic label."""
    import pandas as pd

    import dpcvx

    data, columns, z = {}, [], np.zeros(n)
    for j, count in enumerate(levels):
        values = rng.integers(0, count, n)
        z += effect(count)[values]
        names = tuple(f"L{k}" for k in range(count))
        data[f"c{j}"] = np.array(names)[values]
        columns.append(dpcvx.CategoricalColumn(f"c{j}", names))
    if age:
        years = rng.uniform(20, 70, n)
        data["age"] = years
        columns.append(dpcvx.NumericColumn("age", 0, 120))
        z += 0.03 * (years - 45)
    return dpcvx.PublicSchema(tuple(columns)).transform(pd.DataFrame(data)), _label(rng, z, positives)


def _unit_flags(X: np.ndarray) -> np.ndarray:
    """0/1 columns declared [0, 1], unit-coded (each row scaled onto norm 1 by the schema's public bound)."""
    import dpcvx

    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"f{j}", 0, 1) for j in range(X.shape[1])),
                                encoding="unit")
    return schema.transform({f"f{j}": X[:, j] for j in range(X.shape[1])})


def generated(name: str, seed: int, n: int = 25_000) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) of a generated family; the first 20,000 rows train."""
    import dpcvx

    rng = np.random.default_rng([seed, sum(map(ord, name))])
    if name == "onehot":  # 5 uniform categoricals, 200 levels
        return _categoricals(n, rng, (50, 100, 30, 12, 8), lambda count: rng.normal(0, 1.0, count), 0.2)
    if name == "zips":  # a 150-level code, two 40-level codes, an age
        return _categoricals(n, rng, (150, 40, 40), lambda count: rng.standard_t(3, count) * 0.8, 0.25, age=True)
    if name == "bow":  # 300 words at frequencies 0.5-15 %, 20 carry the label
        X = (rng.random((n, 300)) < np.exp(rng.uniform(np.log(0.005), np.log(0.15), 300))).astype(float)
        w = np.zeros(300)
        w[rng.choice(300, 20, replace=False)] = rng.normal(0, 2.5, 20)
        return _unit_flags(X), _label(rng, X @ w, 0.3)
    if name == "tags":  # multi-hot: Poisson(4) tags per row of 150, Zipf popularity, 40 % of tags carry the label
        popularity = 1.0 / np.arange(1, 151) ** 0.8
        popularity /= popularity.sum()
        X = np.zeros((n, 150))
        for i, count in enumerate(np.maximum(rng.poisson(4.0, n), 1)):
            X[i, rng.choice(150, count, replace=False, p=popularity)] = 1.0
        return _unit_flags(X), _label(rng, X @ (rng.normal(0, 1.2, 150) * (rng.random(150) < 0.4)), 0.3)
    if name == "flags":  # 60 independent flags at rates 1-20 %
        X = (rng.random((n, 60)) < rng.uniform(0.01, 0.20, 60)).astype(float)
        return _unit_flags(X), _label(rng, X @ rng.normal(0, 1.5, 60), 0.25)
    if name == "mixed-flags":  # 40 flags at 1-20 % and 8 columns in 3 % of [0, 100], centred encoding
        flags = (rng.random((n, 40)) < rng.uniform(0.01, 0.20, 40)).astype(float)
        centre = rng.uniform(30, 70, 8)
        narrow = np.clip(centre + rng.normal(0, 1.5, (n, 8)), 0, 100)
        z = flags @ rng.normal(0, 1.0, 40) + ((narrow - centre) / 1.5) @ rng.normal(0, 0.8, 8)
        columns = tuple(dpcvx.NumericColumn(f"f{j}", 0, 1) for j in range(40)) + tuple(
            dpcvx.NumericColumn(f"x{j}", 0, 100) for j in range(8))
        values = {**{f"f{j}": flags[:, j] for j in range(40)}, **{f"x{j}": narrow[:, j] for j in range(8)}}
        return dpcvx.PublicSchema(columns).transform(values), _label(rng, z, 0.2)
    raise ValueError(name)


def split(name: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Training and test rows of ``name``: a generated family (20,000 / 5,000), coarse_ranges' clustered table at
    spread 0.004 (3,000 x 30 and its test rows), or a real_tables table (a seeded 80 / 20 split)."""
    if name in DEV and name not in ("kdd", "adult", "alarms", "mixed10", "orders", "clustered-0.004") or name in HELD:
        X, y = generated(name, seed)
        return X[:20_000], y[:20_000], X[20_000:], y[20_000:]
    if name == "clustered-0.004":
        from benchmarks import coarse_ranges

        schema, y, frame = coarse_ranges.table(name, 3_000, 30, seed)
        X = schema.transform(frame)
        return X[:3_000], y[:3_000], X[3_000:], y[3_000:]
    from benchmarks import real_tables

    table = real_tables.load(name)
    order = np.random.default_rng(seed).permutation(len(table.y))
    train, test = order[:int(0.8 * len(order))], order[int(0.8 * len(order)):]
    return table.X[train], table.y[train], table.X[test], table.y[test]


def fit(arm: str, X: np.ndarray, y: np.ndarray, epsilon: float, seed: int) -> Any:
    """DPLogisticRegression()'s default in the arm: the soft map (this dpcvx), the former map, or no ranges."""
    import dpcvx
    from dpcvx.data import standardiser
    from dpcvx.models import column_statistics

    column_statistics.fill_map = (functools.partial(standardiser.fill_map, soft_zero_cell=False)
                                  if arm == "former" else standardiser.fill_map)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return dpcvx.DPLogisticRegression(epsilon=epsilon, random_state=seed,
                                              **({"column_statistics": False} if arm == "off" else {})).fit(X, y)
    finally:
        column_statistics.fill_map = standardiser.fill_map


def measure(name: str, epsilons: tuple[float, ...]) -> list[dict]:
    from sklearn.metrics import accuracy_score, roc_auc_score

    cells = []
    for seed in SEEDS:
        X, y, X_test, y_test = split(name, seed)
        for epsilon in epsilons:
            for arm in ARMS:
                model = fit(arm, X, y, epsilon, seed)
                statistics = model.certificate_.column_statistics
                soft = model.model_.rows.feature_map.soft if statistics is not None else ()
                cells.append({"table": name, "seed": seed, "epsilon": epsilon, "arm": arm,
                              "ranges": statistics is not None, "soft": len(soft), "d": X.shape[1],
                              "accuracy": accuracy_score(y_test, model.predict(X_test)),
                              "auc": roc_auc_score(y_test == model.classes_[1], model.decision_function(X_test))})
    return cells


def run(arguments: argparse.Namespace) -> dict:
    tables = DEV if arguments.part == "dev" else HELD
    return {"cells": [cell for name in arguments.tables or tables for cell in measure(name, tables[name])]}


def markdown(result: dict, arguments: argparse.Namespace) -> str:
    lines = [f"# The fill map's flag columns ({arguments.part}; benchmarks/zero_cell_ranges.py)", "",
             "DPLogisticRegression() at its defaults: accuracy / ROC AUC on held-out rows, mean over seeds "
             f"{SEEDS}; the cells where the ranges were drawn. former: every output clipped (format 17); soft: the "
             "columns in the cell holding 0 at slope 1 beyond the clip (format 18); off: column_statistics=False. "
             "Paired differences soft - former (min..max over the seeds).", "",
             "| table | epsilon | soft columns / d | former | soft | off | soft - former accuracy | AUC |",
             "|---|---|---|---|---|---|---|---|"]
    cells = result["cells"]
    for name in dict.fromkeys(cell["table"] for cell in cells):
        for epsilon in sorted({cell["epsilon"] for cell in cells if cell["table"] == name}):
            arm = {key: [c for c in cells if c["table"] == name and c["epsilon"] == epsilon and c["arm"] == key]
                   for key in ARMS}
            if not any(c["ranges"] for c in arm["soft"]):
                lines.append(f"| {name} | {epsilon:g} | no ranges drawn | | | | | |")
                continue
            shown = [f"{np.mean([c['accuracy'] for c in arm[key]]):.4f} / {np.mean([c['auc'] for c in arm[key]]):.4f}"
                     for key in ARMS]
            gaps = [[s[metric] - f[metric] for s, f in zip(arm["soft"], arm["former"], strict=True)]
                    for metric in ("accuracy", "auc")]
            soft = f"{np.mean([c['soft'] for c in arm['soft']]):.0f} / {arm['soft'][0]['d']}"
            lines.append(f"| {name} | {epsilon:g} | {soft} | " + " | ".join(shown) + " | "
                         + " | ".join(f"{np.mean(g):+.4f} ({min(g):+.4f}..{max(g):+.4f})" for g in gaps) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("dev", "held"), required=True)
    parser.add_argument("--tables", nargs="+", help="a subset of the part's tables")
    common.add_result_arguments(parser, None)
    argv_list = list(argv) if argv is not None else None
    arguments, _ = parser.parse_known_args(argv_list)
    parser.set_defaults(tag=f"zero_cell_ranges_{arguments.part}")
    return common.run_recorded("benchmarks.zero_cell_ranges", parser, argv_list, run, markdown)


if __name__ == "__main__":
    main()
