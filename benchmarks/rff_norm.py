"""RandomFourierFeatures + a dpcvx classifier: data_norm=sqrt(2) (features.norm_bound) against data_norm=1.0.

docs/kernels.md advises, for a Pipeline of ``dpcvx.RandomFourierFeatures(kernel, gamma, n_components=D)`` followed
by a dpcvx estimator, ``data_norm=features.norm_bound`` = sqrt(2): the worst-case norm of a feature row
(||v(x)||^2 = (2/D) sum cos^2 <= 2). A feature row's norm is typically near 1 (E ||v||^2 = 1), so the estimators'
default ``data_norm=1`` clips about half the rows slightly (onto the sphere of radius 1) while the noise, which scales
with R, is smaller. A probe found 1.0 better on circles at epsilon 0.5 (3 seeds). This measures it.

Design (fixed before any run; not changed after seeing results):

* Candidates: ``data_norm`` in {sqrt(2) (= ``features.norm_bound``), 1.0}; everything else the estimator's default.
* Estimators: ``dpcvx.DPLogisticRegression(epsilon=eps, data_norm=R, random_state=s)`` and
  ``dpcvx.DPHuberSVM(epsilon=eps, data_norm=R, random_state=s)`` (binary, classes (0, 1)), each after
  ``RandomFourierFeatures("rbf", gamma=g, n_components=D, random_state=m)``. The map is fitted once per data set,
  gamma, D and seed and its features fed to every fit (what a Pipeline with that integer random_state does: a clone
  draws the same map); both candidates of a pair share the map and the estimator's noise seed s.
* Families (seeded numpy, labels 0/1; the 2-D shape, then d - 2 noise columns N(0, 0.3^2) for d > 2; every row
  divided by the PUBLIC constant B = sqrt(r^2 + (d - 2) 0.6^2), r the shape's nominal radius, never by the data's
  max; the share of rows left above norm 1 is recorded):
  circles (angle uniform, radius 0.5 for class 0 and 1.0 for class 1, + N(0, 0.1^2); r = 1.3);
  xor (uniform on [-1, 1]^2, class 1 where x1 x2 > 0; r = sqrt 2);
  moons (class 0: (cos t, sin t), class 1: (1 - cos t, 0.5 - sin t), t uniform on [0, pi], + N(0, 0.1^2) per
  coordinate, shifted by -(0.5, 0.25); r = 1.8);
  blobs (two Gaussians N((+-0.5, 0), 0.4^2 I); r = 1.5);
  linear (uniform on [-1, 1]^2, P(class 1) = sigmoid(6 (x1 + 0.5 x2 - 0.1)); r = sqrt 2).
* Grid: d in {2, 5, 10}; n in {2000, 10000} (rows before the split); gamma in {1, 4} (public); D in {100, 400};
  epsilon in {0.5, 1, 3}; 3 seeds; a seeded 75/25 split (``common.generator``).
  5 x 3 x 2 x 2 x 2 x 3 x 3 = 1080 pairs per estimator, 4320 fits. Nothing cut unless ``--seeds`` is lowered.
* Metric: test balanced accuracy (``sklearn.metrics.balanced_accuracy_score``; the trivial predictor scores 0.5).
  Also counted: fits whose predictions are a single class on every test row, and fits that warned
  ``dpcvx.ClippingWarning`` (all dpcvx warnings are silenced during the fits, ClippingWarning recorded).
* Output, per estimator: for each (family, epsilon) the mean balanced accuracy of each candidate and the paired
  difference (1.0 minus sqrt(2)) with a 95% normal interval (mean +- 1.96 sd / sqrt(m)) over its m = 72 pairs
  (d, n, gamma, D, seed); overall: the mean difference with its interval, the share of cells (family, d, n, gamma,
  D, epsilon; 3 seeds averaged) where 1.0 wins, and each candidate's worst cell (lowest mean balanced accuracy) and
  the cell where it loses most to the other. The pairs within a (family, epsilon) share data sets across gamma and
  D, so the intervals treat correlated pairs as independent (they are somewhat too narrow).

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.rff_norm   # writes results/rff_norm.md and .json (about 4 minutes)
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.metrics import balanced_accuracy_score

import dpcvx
from benchmarks import common

FAMILIES = ("circles", "xor", "moons", "blobs", "linear")
RADIUS = {"circles": 1.3, "xor": math.sqrt(2.0), "moons": 1.8, "blobs": 1.5, "linear": math.sqrt(2.0)}
NOISE_SD = 0.3
DIMS = (2, 5, 10)
SIZES = (2000, 10000)
GAMMAS = (1.0, 4.0)
COMPONENTS = (100, 400)
EPSILONS = (0.5, 1.0, 3.0)
SEEDS = 3
CANDIDATES = ("sqrt2", "1.0")
ESTIMATORS = {"DPLogisticRegression": dpcvx.DPLogisticRegression, "DPHuberSVM": dpcvx.DPHuberSVM}


def shape(family: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The family's 2-D rows (before the public divisor) and labels 0/1."""
    if family == "circles":
        y = rng.integers(0, 2, n)
        t = rng.uniform(0.0, 2 * np.pi, n)
        r = np.where(y == 1, 1.0, 0.5) + rng.normal(0.0, 0.1, n)
        return np.c_[r * np.cos(t), r * np.sin(t)], y
    if family == "xor":
        X = rng.uniform(-1.0, 1.0, (n, 2))
        return X, (X[:, 0] * X[:, 1] > 0).astype(int)
    if family == "moons":
        y = rng.integers(0, 2, n)
        t = rng.uniform(0.0, np.pi, n)
        X = np.where(y[:, None] == 0, np.c_[np.cos(t), np.sin(t)], np.c_[1 - np.cos(t), 0.5 - np.sin(t)])
        return X + rng.normal(0.0, 0.1, (n, 2)) - np.array([0.5, 0.25]), y
    if family == "blobs":
        y = rng.integers(0, 2, n)
        return np.c_[np.where(y == 1, 0.5, -0.5), np.zeros(n)] + rng.normal(0.0, 0.4, (n, 2)), y
    if family == "linear":
        X = rng.uniform(-1.0, 1.0, (n, 2))
        p = 1.0 / (1.0 + np.exp(-6.0 * (X[:, 0] + 0.5 * X[:, 1] - 0.1)))
        return X, (rng.uniform(size=n) < p).astype(int)
    raise ValueError(family)


def make_data(family: str, d: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of width d divided by the public constant B = sqrt(r^2 + (d - 2) (2 NOISE_SD)^2), labels 0/1."""
    rng = common.generator(0, FAMILIES.index(family), d, n, seed)
    X2, y = shape(family, n, rng)
    X = np.hstack([X2, rng.normal(0.0, NOISE_SD, (n, d - 2))])
    bound = math.sqrt(RADIUS[family] ** 2 + (d - 2) * (2 * NOISE_SD) ** 2)
    return X / bound, y


def fit_one(cls, epsilon: float, norm: float, seed: int, V_train, y_train, V_test, y_test) -> dict:
    estimator = cls(epsilon=epsilon, data_norm=norm, random_state=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore")
        warnings.simplefilter("always", dpcvx.ClippingWarning)
        estimator.fit(V_train, y_train)
    predicted = estimator.predict(V_test)
    return {"ba": float(balanced_accuracy_score(y_test, predicted)),
            "one_class": bool(np.unique(predicted).size == 1),
            "clip_warned": any(issubclass(w.category, dpcvx.ClippingWarning) for w in caught),
            "column_statistics": estimator.certificate_.column_statistics is not None}


def run(seeds: int, estimators: list[str]) -> dict:
    """Every pair: its cell, seed and, per estimator and epsilon, both candidates' fits."""
    pairs, data_notes, start = [], [], time.perf_counter()
    for family in FAMILIES:
        for d in DIMS:
            for n in SIZES:
                for seed in range(seeds):
                    X, y = make_data(family, d, n, seed)
                    order = common.generator(1, FAMILIES.index(family), d, n, seed).permutation(n)
                    cut = int(round(0.75 * n))
                    train, test = order[:cut], order[cut:]
                    data_notes.append({"family": family, "d": d, "n": n, "seed": seed,
                                       "share_above_1": float(np.mean(np.linalg.norm(X, axis=1) > 1.0)),
                                       "rate_class_1": float(y.mean())})
                    for gamma in GAMMAS:
                        for D in COMPONENTS:
                            map_seed = common.int_seed(2, FAMILIES.index(family), d, n, int(gamma), D, seed)
                            features = dpcvx.RandomFourierFeatures("rbf", gamma=gamma, n_components=D,
                                                                   random_state=map_seed)
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore")
                                V_train = features.fit_transform(X[train])
                            V_test = features.transform(X[test])
                            norms = np.linalg.norm(V_train, axis=1)
                            candidates = {"sqrt2": features.norm_bound, "1.0": 1.0}
                            for e, epsilon in enumerate(EPSILONS):
                                fit_seed = common.int_seed(3, FAMILIES.index(family), d, n, int(gamma), D, seed, e)
                                for name in estimators:
                                    fits = {label: fit_one(ESTIMATORS[name], epsilon, norm, fit_seed, V_train,
                                                           y[train], V_test, y[test])
                                            for label, norm in candidates.items()}
                                    pairs.append({"estimator": name, "family": family, "d": d, "n": n,
                                                  "gamma": gamma, "D": D, "epsilon": epsilon, "seed": seed,
                                                  "share_rows_above_1": float(np.mean(norms > 1.0)),
                                                  "share_rows_above_sqrt2": float(np.mean(norms > math.sqrt(2))),
                                                  **{f"{label}_{key}": value for label, fit in fits.items()
                                                     for key, value in fit.items()}})
            print(f"[rff_norm] {family} d={d}: {len(pairs)} pairs, {time.perf_counter() - start:.0f} s", flush=True)
    return {"pairs": pairs, "data": data_notes}


def interval(values: np.ndarray) -> tuple[float, float]:
    mean = float(np.mean(values))
    half = 1.96 * float(np.std(values, ddof=1)) / math.sqrt(values.size) if values.size > 1 else float("nan")
    return mean, half


def cell_key(pair: dict) -> tuple:
    return (pair["family"], pair["d"], pair["n"], pair["gamma"], pair["D"], pair["epsilon"])


def cell_label(key: tuple) -> str:
    family, d, n, gamma, D, epsilon = key
    return f"{family} d={d} n={n} gamma={gamma:g} D={D} eps={epsilon:g}"


def summarise(pairs: list[dict], estimator: str) -> dict:
    rows = [p for p in pairs if p["estimator"] == estimator]
    table = []
    for family in FAMILIES:
        for epsilon in EPSILONS:
            sel = [p for p in rows if p["family"] == family and p["epsilon"] == epsilon]
            a = np.array([p["sqrt2_ba"] for p in sel])
            b = np.array([p["1.0_ba"] for p in sel])
            mean, half = interval(b - a)
            table.append({"family": family, "epsilon": epsilon, "pairs": len(sel),
                          "ba_sqrt2": float(a.mean()), "ba_1": float(b.mean()), "diff": mean, "half": half,
                          "one_class_sqrt2": sum(p["sqrt2_one_class"] for p in sel),
                          "one_class_1": sum(p["1.0_one_class"] for p in sel),
                          "clip_warned_sqrt2": float(np.mean([p["sqrt2_clip_warned"] for p in sel])),
                          "clip_warned_1": float(np.mean([p["1.0_clip_warned"] for p in sel])),
                          "rows_above_1": float(np.mean([p["share_rows_above_1"] for p in sel]))})
    cells: dict[tuple, list[dict]] = {}
    for p in rows:
        cells.setdefault(cell_key(p), []).append(p)
    means = {key: (float(np.mean([p["sqrt2_ba"] for p in ps])), float(np.mean([p["1.0_ba"] for p in ps])))
             for key, ps in cells.items()}
    diffs = {key: b - a for key, (a, b) in means.items()}
    all_diff = np.array([p["1.0_ba"] - p["sqrt2_ba"] for p in rows])
    mean, half = interval(all_diff)
    worst_sqrt2 = min(means, key=lambda k: means[k][0])
    worst_1 = min(means, key=lambda k: means[k][1])
    most_lost_1 = min(diffs, key=lambda k: diffs[k])
    most_lost_sqrt2 = max(diffs, key=lambda k: diffs[k])
    return {"estimator": estimator, "table": table, "fits_per_candidate": len(rows),
            "overall": {"diff": mean, "half": half, "cells": len(cells),
                        "share_cells_1_wins": float(np.mean([v > 0 for v in diffs.values()])),
                        "share_cells_tied": float(np.mean([v == 0 for v in diffs.values()])),
                        "share_pairs_1_wins": float(np.mean(all_diff > 0)),
                        "ba_sqrt2": float(np.mean([p["sqrt2_ba"] for p in rows])),
                        "ba_1": float(np.mean([p["1.0_ba"] for p in rows])),
                        "one_class_sqrt2": sum(p["sqrt2_one_class"] for p in rows),
                        "one_class_1": sum(p["1.0_one_class"] for p in rows),
                        "clip_warned_sqrt2": float(np.mean([p["sqrt2_clip_warned"] for p in rows])),
                        "clip_warned_1": float(np.mean([p["1.0_clip_warned"] for p in rows])),
                        "column_statistics_drawn": sum(p["sqrt2_column_statistics"] + p["1.0_column_statistics"]
                                                       for p in rows)},
            "worst": {"sqrt2": [cell_label(worst_sqrt2), *means[worst_sqrt2]],
                      "1.0": [cell_label(worst_1), *means[worst_1]],
                      "1.0_loses_most": [cell_label(most_lost_1), *means[most_lost_1]],
                      "sqrt2_loses_most": [cell_label(most_lost_sqrt2), *means[most_lost_sqrt2]]}}


def render(summaries: list[dict], seeds: int, data_notes: list[dict]) -> str:
    above = max(note["share_above_1"] for note in data_notes)
    lines = ["# RandomFourierFeatures: data_norm = sqrt(2) (features.norm_bound) against 1.0", "",
             "Written by `OPENBLAS_NUM_THREADS=1 python -m benchmarks.rff_norm` (module docstring: design fixed before "
             f"the run). rbf features, gamma in {{1, 4}}, D in {{100, 400}}, d in {{2, 5, 10}}, n in {{2000, 10000}} "
             f"(75/25 split), {seeds} seeds: {len(DIMS) * len(SIZES) * len(GAMMAS) * len(COMPONENTS) * seeds} pairs "
             "per (family, epsilon). Test balanced accuracy (trivial predictor: 0.5); diff = 1.0 minus sqrt(2), "
             "paired (same map, same noise seed), mean +- 1.96 sd / sqrt(pairs) (pairs share data sets across gamma "
             "and D: the interval is somewhat too narrow). \"one class\": fits predicting a single class on every "
             "test row; \"clip warned\": share of fits that warned ClippingWarning; \"rows > 1\": mean share of "
             f"training feature rows with norm above 1. Largest share of input rows above norm 1 in any data set: "
             f"{above:.4f}."]
    for summary in summaries:
        o = summary["overall"]
        lines += ["", f"## {summary['estimator']}", "",
                  "| family | epsilon | BA sqrt(2) | BA 1.0 | diff (1.0 - sqrt 2) | one class sqrt(2) / 1.0 | "
                  "clip warned sqrt(2) / 1.0 | rows > 1 |",
                  "|---|---|---|---|---|---|---|---|"]
        for row in summary["table"]:
            lines.append(f"| {row['family']} | {row['epsilon']:g} | {row['ba_sqrt2']:.3f} | {row['ba_1']:.3f} | "
                         f"{row['diff']:+.3f} ± {row['half']:.3f} | {row['one_class_sqrt2']} / {row['one_class_1']} | "
                         f"{row['clip_warned_sqrt2']:.0%} / {row['clip_warned_1']:.0%} | {row['rows_above_1']:.2f} |")
        worst = summary["worst"]
        lines += ["", f"Overall ({summary['fits_per_candidate']} pairs): BA sqrt(2) {o['ba_sqrt2']:.3f}, BA 1.0 "
                      f"{o['ba_1']:.3f}; mean diff {o['diff']:+.4f} ± {o['half']:.4f}; 1.0 wins "
                      f"{o['share_cells_1_wins']:.0%} of {o['cells']} cells (ties {o['share_cells_tied']:.0%}; "
                      f"{o['share_pairs_1_wins']:.0%} of pairs); one-class fits sqrt(2) {o['one_class_sqrt2']}, "
                      f"1.0 {o['one_class_1']}; clip warned sqrt(2) {o['clip_warned_sqrt2']:.0%}, 1.0 "
                      f"{o['clip_warned_1']:.0%}; column statistics drawn in {o['column_statistics_drawn']} fits.", "",
                  f"- worst cell of sqrt(2): {worst['sqrt2'][0]} (BA sqrt(2) {worst['sqrt2'][1]:.3f}, "
                  f"1.0 {worst['sqrt2'][2]:.3f})",
                  f"- worst cell of 1.0: {worst['1.0'][0]} (BA sqrt(2) {worst['1.0'][1]:.3f}, "
                  f"1.0 {worst['1.0'][2]:.3f})",
                  f"- where 1.0 loses most: {worst['1.0_loses_most'][0]} (BA sqrt(2) {worst['1.0_loses_most'][1]:.3f}, "
                  f"1.0 {worst['1.0_loses_most'][2]:.3f})",
                  f"- where sqrt(2) loses most: {worst['sqrt2_loses_most'][0]} (BA sqrt(2) "
                  f"{worst['sqrt2_loses_most'][1]:.3f}, 1.0 {worst['sqrt2_loses_most'][2]:.3f})"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    record = common.RunRecord("benchmarks.rff_norm", argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=SEEDS)
    parser.add_argument("--estimators", nargs="+", choices=tuple(ESTIMATORS), default=list(ESTIMATORS))
    common.add_result_arguments(parser, "rff_norm")
    options = parser.parse_args(argv)
    with common.limit_threads(1):
        measured = run(options.seeds, options.estimators)
    summaries = [summarise(measured["pairs"], name) for name in options.estimators]
    out = Path(options.out)
    print(common.write_markdown(out / f"{options.tag}.md", render(summaries, options.seeds, measured["data"]), record))
    common.write_json(out / f"{options.tag}.json", {"summaries": summaries, **measured,
                                                     "settings": {"seeds": options.seeds,
                                                                  "estimators": options.estimators},
                                                     "run": record.finish()})
    return measured


if __name__ == "__main__":
    main()
