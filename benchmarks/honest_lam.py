"""lam="auto" against the oracle (the best fixed Lam in hindsight, NOT private).

Public API only (``dpcvx.DPLogisticRegression``, ``dpcvx.load_adult``, ``dpcvx.load_kdd``).
For each cell (data set, epsilon, intercept handling), every (fold, repeat) fits the
default ``lam="auto"`` and every Lam of the oracle grid 10^-5 .. 10^-0.5 (half decades) on
the same training rows with the same noise seed (paired). The oracle is the grid Lam with
the lowest mean test error, chosen in hindsight: it looks at test error and is NOT private.
Reported: mean test errors with 95% intervals (normal, over the fits), the majority-class
error, and the fraction of the gap between the majority error and the oracle's error that
lam="auto" recovers, with a 95% bootstrap interval over the (fold, repeat) units.

NoiseDominatesWarning: for every grid Lam whose fit warns, the paired difference between
its error and the error at lam="auto" (the warning's advice) is recorded; the advice never
lowers accuracy when that difference is never significantly negative.

    python -m benchmarks.honest_lam --repeats 1      # 5 fits per cell, a few minutes
    python -m benchmarks.honest_lam --repeats 10     # 50 fits per cell (the issue's count)
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import dpcvx
from benchmarks.common import RunRecord, write_markdown
from dpcvx.exceptions import NoiseDominatesWarning, SolverError
from dpcvx.privacy.lam_rule import RULE

RESULTS = Path(__file__).resolve().parent / "results" / "honest_lam.md"
ORACLE_GRID = tuple(float(10.0 ** e) for e in np.arange(-5.0, -0.49, 0.5))
FOLDS = 5


@dataclass
class Cell:
    name: str
    errors: dict[float | str, list[float]] = field(default_factory=dict)
    warned: dict[float, list[bool]] = field(default_factory=dict)
    chosen: list[float] = field(default_factory=list)
    majority: list[float] = field(default_factory=list)
    retried: list[str] = field(default_factory=list)


def bundled(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A scikit-learn bundled set made binary, with R = 1 (no download).

    breast_cancer: 569 rows, 30 non-negative features, malignant -1 / benign +1. digits: 1,797
    rows, 64 pixel columns, +1 for the digits 5 to 9 and -1 for 0 to 4 (fixed before any run).
    Each column divided by its maximum over the data (an all-zero column stays 0), then every
    row by the largest row norm: NOT private preprocessing (the maxima are statistics of the
    data), as the loaders' paper mode; it fixes the scale, the comparison of lam="auto" with
    the oracle is unaffected."""
    from sklearn.datasets import load_breast_cancer, load_digits

    if name == "digits":
        X, digit = load_digits(return_X_y=True)
        y = np.where(digit >= 5, 1.0, -1.0)
    else:
        X, label = load_breast_cancer(return_X_y=True)
        y = np.where(label == 1, 1.0, -1.0)
    X = X / np.maximum(X.max(axis=0), 1e-300)
    X /= np.linalg.norm(X, axis=1).max() * (1 + 1e-12)
    return X, y


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    if name == "adult":
        data = dpcvx.load_adult(mode="paper")
        return np.asarray(data.X), np.asarray(data.y)
    if name == "kdd":
        data = dpcvx.load_kdd(mode="paper", n_rows=70_000, random_state=0)
        return np.asarray(data.X), np.asarray(data.y)
    return bundled(name)


def fit_error(lam: float | str, X: np.ndarray, y: np.ndarray, Xt: np.ndarray, yt: np.ndarray, eps: float,
              intercept: bool, seed: int, retried: list[str]) -> tuple[float, bool, float]:
    """(test error, whether NoiseDominatesWarning fired, the Lam). A fit the default solver refuses
    (SolverError) is fitted again with solver="cvxpy" and the same seed, and noted in ``retried``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for solver in ("auto", "cvxpy"):
            model = dpcvx.DPLogisticRegression(epsilon=eps, lam=lam, data_norm=1.0, fit_intercept=intercept,
                                               classes=(-1, 1), random_state=seed, solver=solver)
            try:
                model.fit(X, y)
                break
            except SolverError:
                if solver == "cvxpy":
                    raise
                retried.append(f"lam {lam if isinstance(lam, str) else f'{lam:.2g}'}, seed {seed}")
    warned = any(issubclass(w.category, NoiseDominatesWarning) for w in caught)
    return float(np.mean(model.predict(Xt) != yt)), warned, float(model.certificate_.constants["lam"])


def run_cell(name: str, X: np.ndarray, y: np.ndarray, eps: float, intercept: bool, repeats: int) -> Cell:
    cell = Cell(f"{name}, eps {eps:g}, " + ("intercept column (default)" if intercept else
                                           "no added intercept (the loader's constant feature)"))
    folds = np.random.default_rng(0).permutation(len(y)) % FOLDS
    for fold in range(FOLDS):
        train, test = folds != fold, folds == fold
        majority_label = 1.0 if np.mean(y[train] > 0) >= 0.5 else -1.0  # NOT private: a reference line
        for repeat in range(repeats):
            seed = 1000 * fold + repeat
            cell.majority.append(float(np.mean(y[test] != majority_label)))
            error, _, chosen = fit_error("auto", X[train], y[train], X[test], y[test], eps, intercept, seed,
                                         cell.retried)
            cell.errors.setdefault("auto", []).append(error)
            cell.chosen.append(chosen)
            for lam in ORACLE_GRID:
                error, warned, _ = fit_error(lam, X[train], y[train], X[test], y[test], eps, intercept, seed,
                                            cell.retried)
                cell.errors.setdefault(lam, []).append(error)
                cell.warned.setdefault(lam, []).append(warned)
    return cell


def interval(values: np.ndarray) -> str:
    half = 1.96 * float(np.std(values, ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return f"{float(np.mean(values)):.4f} ± {half:.4f}"


def summarise(cell: Cell) -> tuple[str, str]:
    auto = np.array(cell.errors["auto"])
    majority = np.array(cell.majority)
    means = {lam: float(np.mean(v)) for lam, v in cell.errors.items() if lam != "auto"}
    oracle_lam = min(means, key=lambda lam: means[lam])
    oracle = np.array(cell.errors[oracle_lam])
    gap = float(np.mean(majority) - np.mean(oracle))
    share = (float(np.mean(majority)) - float(np.mean(auto))) / gap if gap > 0 else math.nan
    rng = np.random.default_rng(0)
    boot = []
    for _ in range(2000):
        pick = rng.integers(0, len(auto), len(auto))
        g = np.mean(majority[pick]) - np.mean(oracle[pick])
        if g > 0:
            boot.append((np.mean(majority[pick]) - np.mean(auto[pick])) / g)
    low, high = (np.percentile(boot, [2.5, 97.5]) if boot else (math.nan, math.nan))
    chosen = sorted(set(cell.chosen))
    row = (f"| {cell.name} | {len(auto)} | {np.mean(majority):.4f} | {interval(oracle)} ({oracle_lam:.2g}) | "
           f"{interval(auto)} ({', '.join(f'{c:.2g}' for c in chosen)}) | {share:.2f} [{low:.2f}, {high:.2f}] |")
    advice = []
    for lam, flags in cell.warned.items():
        if any(flags):
            diff = np.array(cell.errors[lam]) - auto   # > 0: following the advice helped
            advice.append(f"{lam:.2g}: {interval(diff)}")
    return row, f"| {cell.name} | " + ("; ".join(advice) if advice else "no grid Lam warned") + " |"


def main() -> None:
    record = RunRecord("benchmarks.honest_lam")
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument("--cells", default="all",
                        help="'all' or 'main' (the issue's cells; breast_cancer and digits at eps 1 and 0.1)")
    parser.add_argument("--frozen", default="(not given)", help="the commit that froze the rule before this run")
    args = parser.parse_args()
    start = time.time()
    plan = [("adult", 0.1, True), ("adult", 0.1, False), ("adult", 1.0, True), ("adult", 1.0, False),
            ("kdd", 0.1, True), ("kdd", 0.1, False), ("kdd", 1.0, True), ("breast_cancer", 1.0, True),
            ("digits", 1.0, True), ("breast_cancer", 0.1, True), ("digits", 0.1, True)]
    if args.cells == "main":
        plan = [cell for cell in plan if cell[2]]
    rows, advice, retries, loaded = [], [], [], {}
    for name, eps, intercept in plan:
        if name not in loaded:
            loaded[name] = load(name)
        X, y = loaded[name]
        cell = run_cell(name, X, y, eps, intercept, args.repeats)
        row, note = summarise(cell)
        retries += [f"{cell.name}: {entry}" for entry in cell.retried]
        rows.append(row)
        advice.append(note)
        print(row, flush=True)
    text = "\n".join([
        "# lam='auto' against the oracle (best fixed Lam in hindsight, NOT private)",
        "",
        f"Command: `python -m benchmarks.honest_lam --repeats {args.repeats} --cells {args.cells} "
        f"--frozen {args.frozen}` "
        f"({time.time() - start:.0f} s, "
        "2 shared cores, OMP_NUM_THREADS=1). DPLogisticRegression, objective perturbation, pure epsilon, "
        f"data_norm 1, {FOLDS} folds x {args.repeats} noise seeds per cell (paired: every Lam sees the same "
        "folds and seeds). Adult: paper mode, 45,222 rows, d = 105 with the loader's constant feature. KDD: paper "
        "mode, 70,000 random rows (seed 0), d = 119. breast_cancer and digits (scikit-learn, 569 and 1,797 rows; "
        "digits: 5-9 against 0-4; at eps 0.1 too, where NoiseDominatesWarning fires): columns by their maxima, "
        "rows by the largest norm (NOT private preprocessing). "
        f"Rule: {RULE} (COMPARATOR_SCALE fitted on synthetic data only at f78b004); the decision to keep it "
        "against the curvature form v2, measured on synthetic data only (results/lam_rule_fit.md), was committed "
        "at e077da1; v1.1 (with an intercept column, the bias weighed with the comparator over the augmented rows, "
        "docs/theory.md section 25.7; v1 runs: honest_lam_v1.md, in git at 8b1a142), checked on synthetic data only "
        f"(results/intercept_comparator.md), was committed at {args.frozen} before these runs. Held out: Adult, "
        "KDD and breast_cancer are NOT held out (rule v1 "
        "was evaluated on them before, and its shortfall on Adult at eps 0.1 motivated the v2 test); digits was "
        "used to design neither form (it appears only in the "
        "NoiseDominatesWarning evaluation, results/noise_warning.md) and is the held-out set. The intercept "
        "default (intercept_scaling='auto', s = sqrt(R B0 / W), which changes R and so the rule's Lam) was set "
        "after v1's first run on Adult (honest_lam_first_run.md): for the intercept, Adult is not held "
        "out. Oracle grid: 10^-5 .. 10^-0.5 in half decades, chosen on the mean test error: NOT private.",
        "",
        "| cell | fits | majority error | oracle error (its Lam), 95% | lam='auto' error (its Lam), 95% | "
        "gap recovered [95% bootstrap] |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "Fits the default solver refused (SolverError) and solver='cvxpy' fitted with the same seed: "
        + ("; ".join(retries) if retries else "none") + ".",
        "",
        "## NoiseDominatesWarning: error at each warned grid Lam minus error at lam='auto' (its advice)",
        "",
        "Positive: following the advice helped. Mean ± 95% half-width over the paired fits.",
        "",
        "| cell | warned Lam: paired difference |",
        "|---|---|",
        *advice,
        "",
    ])
    text = write_markdown(args.output, text, record)
    print(text)


if __name__ == "__main__":
    main()
