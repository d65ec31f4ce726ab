"""Ordered classes (ratings, grades): one-vs-rest against one regression on the class values, rounded.

A prober (session 62, probeB finding 1) fitted DPLogisticRegression(classes=(1, 2, 3, 4, 5)) one-vs-rest on a
cumulative-logit rating (shares 0.08 / 0.12 / 0.24 / 0.35 / 0.20, 8 columns): at epsilon 1, n 5,000 its balanced
accuracy on new rows was 0.349 (0.365 with class_prior="private", threshold="prior"), where
DPHuberRegressor(label_bound=(1, 5), column_statistics=False) on the rating, its prediction rounded to the nearest class
and clipped to 1..5, scored 0.449 (better in 5 of 5); at epsilon 8, n 5,000 the prior won (0.503 against 0.482). The
one-vs-rest note names only class settings. Whether the declared classes are numbers is public; so are n, epsilon
and k.

Each cell fits, at the same epsilon and noise seed: "ovr" DPLogisticRegression(classes=...) at its defaults, "prior"
the same with class_prior="private", threshold="prior", and "reg" DPHuberRegressor(label_bound=(lowest, highest),
column_statistics=False) rounded to the nearest declared class and clipped to the declared range. Balanced accuracy
on new rows, the mean over the cell's seeds.

The rule, written before the development run (public quantities only: n, epsilon, k): the one-vs-rest note, on
classes that are all numbers, says that "reg" did better where n epsilon / k < K, K in {1,000, 2,000, 4,000}. The
chosen K: the largest under which "reg" beats both "ovr" and "prior" in every development cell with n epsilon / k <
K; none if no K does. The held-out check, at the frozen K: "reg" better than both in at least 80 % of the held-out
cells with n epsilon / k < K and below the better of the two by more than 0.02 in none. Whatever the outcome, the
text (if any) states the counts of both runs below and at or above K; if no K is chosen or the check fails, the text
names the regression with its counts only, not as a setting known to do better.

Families (written before the development run):

* development: the prober's generator family on new seeds: 8 columns U(-0.5, 0.5) scaled to norm at most 1, a
  latent score (weights 3, -2, 2, 1, 0, 0, 0.5, -1, times 1.5) plus logistic noise 0.7, cut into 5 classes at the
  score's quantiles for shares "skewed" (0.08 / 0.12 / 0.25 / 0.35 / 0.20) and "even" (0.2 each); n 1,000, 5,000 and
  20,000; epsilon 1, 4 and 8; data seeds 7101-7103 (noise seed = data seed).
* held-out: another generator: 6 columns N(0, 1) clipped to (-3, 3) and scaled to norm at most 1, a latent score
  with weights N(0, 1) and Gaussian noise 0.5, cut into 4 classes (shares 0.1 / 0.4 / 0.4 / 0.1) and 7 classes
  (shares 1/7 each); n 2,000 and 10,000; epsilon 0.5, 2 and 8; data seeds 7201-7203.

Run: python -m benchmarks.ordinal_regression [dev|held]   (results/ordinal_regression_{dev,held}.md)
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
from sklearn.metrics import balanced_accuracy_score

import dpcvx
from benchmarks.common import RESULTS_DIR, RunRecord, write_markdown

KS = (1000.0, 2000.0, 4000.0)
WORSE = 0.02
NEW = 5000  # new rows per table


def _cut(score: np.ndarray, shares: tuple[float, ...]) -> np.ndarray:
    return 1 + np.searchsorted(np.quantile(score, np.cumsum(shares)[:-1]), score)


def dev_tables() -> Iterator[tuple[str, int, tuple[float, ...], Any]]:
    for kind, shares in (("skewed", (0.08, 0.12, 0.25, 0.35, 0.20)), ("even", (0.2,) * 5)):
        for n in (1000, 5000, 20000):
            def make(seed: int, n: int = n, shares: tuple[float, ...] = shares) -> tuple[np.ndarray, np.ndarray]:
                rng = np.random.default_rng(seed)
                X = rng.uniform(-0.5, 0.5, (n + NEW, 8)) / np.sqrt(2.0)
                s = X @ np.array([3, -2, 2, 1, 0, 0, 0.5, -1.0]) * 1.5 * np.sqrt(2.0) + rng.logistic(size=n + NEW) * 0.7
                return X, _cut(s, shares)
            yield f"5 classes {kind} n={n}", n, (1.0, 4.0, 8.0), make


def held_tables() -> Iterator[tuple[str, int, tuple[float, ...], Any]]:
    for k, shares in ((4, (0.1, 0.4, 0.4, 0.1)), (7, (1 / 7,) * 7)):
        for n in (2000, 10000):
            def make(seed: int, n: int = n, shares: tuple[float, ...] = shares) -> tuple[np.ndarray, np.ndarray]:
                rng = np.random.default_rng(seed)
                X = np.clip(rng.normal(size=(n + NEW, 6)), -3, 3) / (3 * np.sqrt(6.0))
                w = rng.normal(size=6)
                s = X @ w * 3 * np.sqrt(6.0) / np.linalg.norm(w) + rng.normal(0, 0.5, n + NEW)
                return X, _cut(s, shares)
            yield f"{k} classes n={n}", n, (0.5, 2.0, 8.0), make


def _scores(X: np.ndarray, y: np.ndarray, n: int, eps: float, seed: int) -> tuple[float, float, float]:
    classes = tuple(int(c) for c in range(1, int(y.max()) + 1))
    Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for est in (dpcvx.DPLogisticRegression(epsilon=eps, classes=classes, random_state=seed),
                    dpcvx.DPLogisticRegression(epsilon=eps, classes=classes, class_prior="private",
                                               threshold="prior", random_state=seed)):
            out.append(balanced_accuracy_score(yte, est.fit(Xtr, ytr).predict(Xte)))
        reg = dpcvx.DPHuberRegressor(epsilon=eps, label_bound=(classes[0], classes[-1]), column_statistics=False,
                                     random_state=seed).fit(Xtr, ytr.astype(float))
        rounded = np.clip(np.round(reg.predict(Xte)), classes[0], classes[-1]).astype(int)
        out.append(balanced_accuracy_score(yte, rounded))
    return out[0], out[1], out[2]


def run(which: str) -> list[dict]:
    tables, seeds = (dev_tables(), (7101, 7102, 7103)) if which == "dev" else (held_tables(), (7201, 7202, 7203))
    cells = []
    for name, n, epsilons, make in tables:
        data = [make(seed) for seed in seeds]
        k = int(data[0][1].max())
        for eps in epsilons:
            got = np.array([_scores(X, y, n, eps, seed) for (X, y), seed in zip(data, seeds, strict=True)])
            ovr, prior, reg = got.mean(axis=0)
            cell = {"table": name, "n": n, "k": k, "epsilon": eps, "ratio": n * eps / k, "ovr": ovr, "prior": prior,
                    "reg": reg, "reg_wins": int(np.sum(got[:, 2] > got[:, :2].max(axis=1)))}
            cells.append(cell)
            print(_row(cell), flush=True)
    return cells


def _row(c: dict) -> str:
    best = max(c["ovr"], c["prior"])
    return (f"| {c['table']} | {c['epsilon']:g} | {c['ratio']:.0f} | {c['ovr']:.3f} | {c['prior']:.3f} | "
            f"{c['reg']:.3f} | {c['reg'] - best:+.3f} | {c['reg_wins']} |")


def counts(cells: list[dict], least: float, most: float) -> tuple[int, int, int]:
    """(cells with least <= n eps / k < most, reg better than both there, reg worse than the better by > WORSE)."""
    part = [c for c in cells if least <= c["ratio"] < most]
    better = sum(c["reg"] > max(c["ovr"], c["prior"]) for c in part)
    worse = sum(c["reg"] < max(c["ovr"], c["prior"]) - WORSE for c in part)
    return len(part), better, worse


def chosen(cells: list[dict]) -> float | None:
    for k in sorted(KS, reverse=True):
        total, better, _ = counts(cells, 0.0, k)
        if total and better == total:
            return k
    return None


def summary(cells: list[dict], which: str) -> list[str]:
    lines = ["| K | cells below K | reg better than both | reg worse by > 0.02 | cells at or above K | reg better | "
             "reg worse by > 0.02 |", "|---|---|---|---|---|---|---|"]
    for k in KS:
        below, above = counts(cells, 0.0, k), counts(cells, k, float("inf"))
        lines.append(f"| {k:g} | {below[0]} | {below[1]} | {below[2]} | {above[0]} | {above[1]} | {above[2]} |")
    if which == "dev":
        k = chosen(cells)
        lines += ["", f"The written criterion chooses K = {k:g}." if k is not None
                  else "The written criterion chooses no K."]
    return lines


def main(which: str) -> None:
    record = RunRecord("benchmarks.ordinal_regression")
    cells = run(which)
    title = "development" if which == "dev" else "held-out"
    text = "\n".join([
        f"# Ordered classes, one-vs-rest against one rounded regression: the {title} family", "",
        f"Written by `python -m benchmarks.ordinal_regression {which}` (the families and the rule: the script's "
        "docstring). Balanced accuracy on 5,000 new rows, the mean over 3 seeds; 'reg - best' is the rounded "
        "regression less the better of ovr and prior; 'reg wins' the seeds where it beat both.", "",
        *summary(cells, which), "", "## Cells", "",
        "| table | epsilon | n eps / k | ovr | prior | reg | reg - best | reg wins (of 3) |",
        "|---|---|---|---|---|---|---|---|", *(_row(c) for c in cells)])
    print(write_markdown(RESULTS_DIR / f"ordinal_regression_{which}.md", text, record))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "dev")
