"""Evaluate the frozen NoiseDominatesWarning on real data: warned?, accuracy, majority per cell.

docs/theory.md, section 21. Run only after NOISE_RATIO_LIMIT was frozen from
benchmarks/noise_warning_fit.py (synthetic data only). For breast_cancer, digits (one digit
against the rest), Adult and KDD (dpcvx loaders, paper mode; a random subsample, stated in
the output), DPLogisticRegression with data_norm 1 and the default intercept, over a Lam grid,
mechanisms output/objective, eps 0.1/1: whether the fit warns, the mean test accuracy over the
noise seeds, the majority rate, the accuracy of the same Lam without noise (epsilon 1e6: a cell
whose noiseless model is itself no better than the majority fails by the regularization's bias,
which no noise rule can see; counted apart). For each warned cell, the accuracy at the advised Lam
(lam='auto', the advice's value) minus the accuracy at the warned Lam.

    python -m benchmarks.noise_warning_eval [--sets breast_cancer,digits,adult,kdd] [--seeds 2]
"""

from __future__ import annotations

import argparse
import itertools
import warnings
from pathlib import Path

import numpy as np

import dpcvx
from benchmarks.common import RunRecord, write_markdown
from dpcvx.exceptions import NoiseDominatesWarning

RESULTS = Path(__file__).resolve().parent / "results" / "noise_warning.md"
LAMS: tuple[float | str, ...] = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, "auto")
MAX_TRAIN, MAX_TEST = 10_000, 5_000


def unit_rows(X: np.ndarray) -> np.ndarray:
    """Columns by their maxima of |x|, then rows by 1/sqrt(d): inside the unit ball (NOT private
    preprocessing, the maxima are statistics of the data, as the loaders' paper mode)."""
    scale = np.abs(X).max(axis=0)
    return X / np.where(scale > 0, scale, 1.0) / np.sqrt(X.shape[1])


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_breast_cancer, load_digits

    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
        return unit_rows(X), y
    if name == "digits":
        X, y = load_digits(return_X_y=True)
        return unit_rows(X), (y == 8).astype(int)
    data = dpcvx.load_adult(mode="paper") if name == "adult" else dpcvx.load_kdd(mode="paper", n_rows=70_000,
                                                                                 random_state=0)
    return np.asarray(data.X), (np.asarray(data.y) > 0).astype(int)


def split(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    order = np.random.default_rng(0).permutation(len(y))
    cut = min(int(0.8 * len(y)), MAX_TRAIN)
    train, test = order[:cut], order[cut:cut + MAX_TEST]
    return X[train], y[train], X[test], y[test]


def fit(X: np.ndarray, y: np.ndarray, Xt: np.ndarray, yt: np.ndarray, eps: float, mechanism: str,
        lam: float | str, seeds: int) -> tuple[bool, float, float, float]:
    """(warned, mean test accuracy, the Lam used, test accuracy without noise at that Lam)."""
    warned, accuracies, used = False, [], float("nan")
    for seed in range(seeds):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = dpcvx.DPLogisticRegression(epsilon=eps, mechanism=mechanism, lam=lam, data_norm=1.0,
                                               random_state=seed).fit(X, y)
        warned |= any(issubclass(w.category, NoiseDominatesWarning) for w in caught)
        accuracies.append(model.score(Xt, yt))
        used = float(model.certificate_.constants["lam"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = dpcvx.DPLogisticRegression(epsilon=1e6, mechanism="output", lam=used, data_norm=1.0,
                                           random_state=0).fit(X, y)
    return warned, float(np.mean(accuracies)), used, exact.score(Xt, yt)


def run(names: list[str], seeds: int) -> str:
    lines = ["# NoiseDominatesWarning on real data", "",
             f"`python -m benchmarks.noise_warning_eval --sets {','.join(names)} --seeds {seeds}`. "
             "DPLogisticRegression(data_norm=1, intercept 'auto'), rows scaled into the unit ball (breast_cancer, "
             "digits: columns by their maxima, rows by 1/sqrt(d); Adult, KDD: the loaders' paper mode, KDD "
             f"70,000 random rows); one split (seed 0), at most {MAX_TRAIN} training and {MAX_TEST} test rows; "
             f"{seeds} noise seeds per cell. 'bad' = mean accuracy <= majority + 0.01. Threshold frozen before "
             "this run (benchmarks/results/noise_warning_fit.md).", ""]
    totals = {"fp": 0, "fn": 0, "fn_bias": 0, "warned": 0, "bad": 0, "bias": 0, "cells": 0}
    advice_rows = []
    for name in names:
        X, y, Xt, yt = split(*load(name))
        majority = float(max(yt.mean(), 1 - yt.mean()))
        lines += [f"## {name} (n train {len(y)}, d {X.shape[1]}, majority {majority:.3f})", "",
                  "| mechanism | eps | lam | warned | accuracy | without noise | bad |",
                  "|---|---|---|---|---|---|---|"]
        for mechanism, eps in itertools.product(("output", "objective"), (0.1, 1.0)):
            results = {lam: fit(X, y, Xt, yt, eps, mechanism, lam, seeds) for lam in LAMS}
            for lam, (warned, accuracy, used, exact) in results.items():
                bad = accuracy <= majority + 0.01
                bias = exact <= majority + 0.01
                shown = f"auto ({used:.2g})" if lam == "auto" else f"{lam:g}"
                lines.append(f"| {mechanism} | {eps:g} | {shown} | {'WARN' if warned else ''} | {accuracy:.3f} | "
                             f"{exact:.3f} | {('bias' if bias else 'bad') if bad else ''} |")
                totals["cells"] += 1
                totals["warned"] += warned
                totals["bad"] += bad
                totals["bias"] += bad and bias
                totals["fp"] += warned and not bad
                totals["fn"] += bad and not warned and not bias
                totals["fn_bias"] += bad and not warned and bias
                if warned and lam != "auto":
                    advice_rows.append((name, mechanism, eps, lam, results["auto"][1] - accuracy))
        lines.append("")
    lines += ["## Totals", "",
              f"{totals['cells']} cells, {totals['bad']} bad ({totals['bias']} of them 'bias': bad without noise "
              f"too), {totals['warned']} warned. False positives (warned, not bad): {totals['fp']} of "
              f"{totals['cells'] - totals['bad']} good cells. False negatives (bad by the noise, not warned): "
              f"{totals['fn']} of {totals['bad'] - totals['bias']}; bias cells not warned: {totals['fn_bias']} of "
              f"{totals['bias']}.", "",
              "## Following the advice: accuracy at lam='auto' minus accuracy at the warned lam", "",
              "| set | mechanism | eps | warned lam | difference |", "|---|---|---|---|---|"]
    lines += [f"| {r[0]} | {r[1]} | {r[2]:g} | {r[3]:g} | {r[4]:+.3f} |" for r in advice_rows]
    worse = [r for r in advice_rows if r[4] < -0.01]
    lines += ["", f"Cells where following the advice lowered accuracy by more than .01: {len(worse)} of "
              f"{len(advice_rows)}."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    record = RunRecord("benchmarks.noise_warning_eval")
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", default="breast_cancer,digits,adult,kdd")
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args()
    text = run(args.sets.split(","), args.seeds)
    text = write_markdown(RESULTS, text, record)
    print(text)
