"""Heavy-ball momentum in the descent of DPLinearRegression()'s default (mechanism "gradient-ranged", docs/theory.md
section 16.1): the candidates on development tables, the chosen rule on held-out ones.

Why. The descent's step is 1 / Lambda, Lambda the private top eigenvalue of Z^T Z, for T = 20 steps (60 where
n epsilon / d >= 1000). Columns of 0/1 flags with a few percent ones, centred by their private ranges, and one-hot
blocks put a large common direction in Z^T Z and leave the signal's directions far below it, so the steps stop far
from the fit. A prober's table of 30 flags at 10 % (8,000 rows) scored R^2 0.77 to 0.86 at epsilon 1 and 0.48 to
0.54 at epsilon 1.5 to 3 (more columns located: worse with more budget), against 0.89 for ridge. Heavy-ball momentum
(Polyak 1964), v = w_t + beta (w_t - w_(t-1)), the gradient at v, w_(t+1) = v - g / Lambda, moves along those
directions up to 1 / (1 - beta) times faster; each gradient is the same Gaussian mechanism at a point that is a
function of released values, so the privacy proof and the calibration are unchanged. It also carries each step's
noise on, which costs where n epsilon / d is small.

How the rule was chosen. Candidates written before any run: beta in {0.5, 0.7, 0.9} at every n, beside beta = 0.
After the development run showed the loss at small n epsilon / d, the rules "beta where n epsilon / d >= A", A in
{100, 200, 400}, were added, and the rule of gradient_regression.py applied: the largest worst development cell's
gap recovered over the cells with n epsilon / d >= 50, a tie broken by the mean. Every rule at A >= 200 leaves the
worst cell (diabetes at epsilon 3, below A) as it was, and the mean chose beta = 0.9 at A = 200
(``dpcvx.privacy.gradient_descent.MOMENTUM``, ``MOMENTUM_AT``), frozen with its acceptance rule on the held-out
tables (the worst held-out cell within 0.02 of beta = 0's, the mean at least beta = 0's) before any held-out table was
fitted. A first run of this selection patched the descent in a scratch script; this script measures the library's.
Session 70 replaced the step at A = 200 by a ramp (``MOMENTUM_FROM``: no beta at or below 100, 0.9 from 200, linear
between) after a 69-column table at n epsilon / d = 196 scored worse at epsilon 3 than at 1; each table's "ramp" key
is the library's rule fitted as it stands, beside the candidates (written after both stages had been seen).

What this script runs. For each table, split and epsilon, DPLinearRegression() (label_bound the table's public
range) with each candidate beta applied at every n: the library's public rule's two constants set for the run
(``MOMENTUM`` = beta, ``MOMENTUM_AT`` = 0; beta = 0 is the descent without momentum), scored as gradient_regression.py
scores (gap recovered per split against StandardScaler + Ridge). The rules are read off these cells at render time
(a rule's cell is its beta's where n epsilon / d >= A, else beta = 0's). Development: the flag families written
here (``flags30``, ``flagsmix``), gradient_level.py's (zinf, odisp, onehot) and gradient_regression.py's
(diabetes, heavy, the two 45-column families at four sizes). Held-out, written with the development ones and not
fitted until the rule was frozen: ``flagsrare``, ``flagsdense``, gradient_level.py's held-out families and
real_tables' held-out regression tables. Epsilon 0.3, 1 and 3; 3 splits.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.descent_momentum --stage dev --tables flags30 zinf
    OPENBLAS_NUM_THREADS=1 python -m benchmarks.descent_momentum --stage held-out --tables flagsrare prices
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

import dpcvx
from benchmarks import common
from benchmarks.gradient_level import family
from benchmarks.gradient_regression import HELD_OUT_REGRESSION, SYNTHETIC, _half, _synthetic, measure_table
from benchmarks.gradient_regression import _cells as gradient_cells
from benchmarks.real_tables import Table, load, score
from dpcvx.privacy import gradient_descent

RESULTS = Path(__file__).resolve().parent / "results"
EPSILONS = (0.3, 1.0, 3.0)
SPLITS = 3
SCORED_AT = 50.0  # the summary's cells: n epsilon / d at least this (gradient_regression.py's)
BETAS = (0.0, 0.5, 0.7, 0.9)
THRESHOLDS = (100.0, 200.0, 400.0)
CHOSEN = (gradient_descent.MOMENTUM, gradient_descent.MOMENTUM_AT, gradient_descent.MOMENTUM_FROM)
#: the key of the fits at the library's rule as it stands (the ramp, session 70), beside the betas at every n
RAMP = "ramp"
FLAGS = {"flags30": 31, "flagsmix": 32, "flagsrare": 41, "flagsdense": 42}
DEVELOPMENT = ("flags30", "flagsmix", "zinf", "odisp", "onehot", "diabetes", "heavy") + SYNTHETIC
HELD_OUT = ("flagsrare", "flagsdense", "tweedie", "pareto", "onehot2") + HELD_OUT_REGRESSION


def flags(name: str) -> Table:
    """A table of 0/1 flag columns (declared [0, 1]) and a label linear in them, its own seed: ``flags30`` 30 flags
    at 5 to 15 % ones, 8,000 rows, label in [0, 100]; ``flagsmix`` 10 flags at 5 % and one column uniform on [0, 1],
    25,000 rows, label in [0, 1,000]; ``flagsrare`` 40 flags at 2 to 20 % and two categoricals of 5 levels, 12,000
    rows, label in [0, 1,000]; ``flagsdense`` 20 flags at 30 to 50 % and 4 numeric columns on [0, 10], 12,000 rows,
    label in [0, 500]."""
    rng = np.random.default_rng(FLAGS[name])
    numeric, category = dpcvx.NumericColumn, dpcvx.CategoricalColumn
    if name == "flags30":
        n, high = 8000, 100.0
        raw: dict[str, Any] = {f"b{j}": (rng.random(n) < rng.uniform(0.05, 0.15)).astype(float) for j in range(30)}
        y = 40 + sum(rng.normal(0, 8) * raw[key] for key in raw) + rng.normal(0, 5, n)
        columns = tuple(numeric(key, 0, 1) for key in raw)
        text = "30 0/1 flags at 5 to 15 % ones; label in [0, 100]"
    elif name == "flagsmix":
        n, high = 25000, 1000.0
        raw = {f"f{j}": (rng.random(n) < 0.05).astype(float) for j in range(10)}
        raw["c"] = rng.uniform(0, 1, n)
        y = (500 + 400 * (raw["c"] - 0.5) + sum(w * raw[f"f{j}"] for j, w in enumerate(np.linspace(60, 150, 10)))
             + rng.normal(0, 10, n))
        columns = tuple(numeric(key, 0, 1) for key in raw)
        text = "10 0/1 flags at 5 % ones and a column uniform on [0, 1]; label in [0, 1,000]"
    elif name == "flagsrare":
        n, high = 12000, 1000.0
        raw = {f"b{j}": (rng.random(n) < rng.uniform(0.02, 0.2)).astype(float) for j in range(40)}
        levels = {f"c{j}": rng.integers(0, 5, n).astype(str) for j in range(2)}
        effect = rng.normal(0, 30, (2, 5))
        y = (300 + sum(rng.normal(0, 40) * raw[key] for key in raw)
             + sum(effect[j][levels[f"c{j}"].astype(int)] for j in range(2)) + rng.normal(0, 30, n))
        columns = (tuple(numeric(key, 0, 1) for key in raw)
                   + tuple(category(key, tuple(map(str, range(5)))) for key in levels))
        raw = {**raw, **levels}
        text = "40 0/1 flags at 2 to 20 % ones and two categoricals of 5 levels; label in [0, 1,000]"
    else:
        n, high = 12000, 500.0
        raw = {f"b{j}": (rng.random(n) < rng.uniform(0.3, 0.5)).astype(float) for j in range(20)}
        raw.update({f"x{j}": rng.uniform(0, 10, n) for j in range(4)})
        y = (200 + sum(rng.normal(0, 15) * raw[f"b{j}"] for j in range(20))
             + sum(rng.normal(0, 5) * raw[f"x{j}"] for j in range(4)) + rng.normal(0, 20, n))
        columns = tuple(numeric(f"b{j}", 0, 1) for j in range(20)) + tuple(numeric(f"x{j}", 0, 10) for j in range(4))
        text = "20 0/1 flags at 30 to 50 % ones and 4 numeric columns on [0, 10]; label in [0, 500]"
    bounded, free = dpcvx.PublicSchema(columns, norm=1.0), dpcvx.PublicSchema(columns, norm=1e12)
    return Table(name, "regression", bounded.transform(raw), free.transform(raw), np.clip(y, 0.0, high),
                 label_range=(0.0, high), text=text)


def _table(name: str) -> Table:
    if name in FLAGS:
        return flags(name)
    if name in SYNTHETIC:
        return _synthetic(name)
    return family(name) if name in ("zinf", "odisp", "onehot", "tweedie", "pareto", "onehot2") else load(name)


def _fit(table: Table, train: np.ndarray, test: np.ndarray, epsilon: float, seed: int, beta: float | None) -> float:
    """Test R^2 of DPLinearRegression() with momentum beta at every n (the public rule's constants set for the fit,
    restored after; warnings silenced); ``beta=None``: the library's rule as it stands (the ramp)."""
    assert table.label_range is not None
    saved = gradient_descent.MOMENTUM, gradient_descent.MOMENTUM_AT
    if beta is not None:
        gradient_descent.MOMENTUM, gradient_descent.MOMENTUM_AT = beta, 0.0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            estimator = dpcvx.DPLinearRegression(epsilon=epsilon, label_bound=table.label_range, random_state=seed)
            predicted = estimator.fit(table.X[train], table.y[train]).predict(table.X[test])
    finally:
        gradient_descent.MOMENTUM, gradient_descent.MOMENTUM_AT = saved
    return score(table.task, table.y[test], predicted)


def measure(name: str, splits: int) -> dict[str, Any]:
    """One table's record: per epsilon and beta, the test R^2 of each split, and the trivial and reference scores."""
    def fits(table: Table, train: np.ndarray, test: np.ndarray, epsilon: float, seed: int) -> dict[str, float]:
        return {**{str(beta): _fit(table, train, test, epsilon, seed, beta) for beta in BETAS},
                RAMP: _fit(table, train, test, epsilon, seed, None)}
    return measure_table(name, _table(name), splits, EPSILONS, fits, "descent_momentum")


def _cells(records: dict[str, dict]) -> list[tuple[str, float, float, dict[Any, list[float]]]]:
    """(table, epsilon, n epsilon / d, {beta, or RAMP: gap recovered per split}) of every recorded cell."""
    return [(name, epsilon, ratio, {key if key == RAMP else float(key): gaps for key, gaps in betas.items()})
            for name, epsilon, ratio, betas in gradient_cells(records)]


def _rule(cell: tuple[str, float, float, dict[Any, list[float]]], beta: float | None, at: float) -> list[float]:
    """A rule's gaps in a cell: beta's where n epsilon / d >= ``at``, else beta = 0's; ``beta=None``: the ramp's
    (the library's rule, fitted as it stands)."""
    if beta is None:
        return cell[3][RAMP]
    return cell[3][beta if cell[2] >= at else 0.0]


def render(stage: str, records: dict[str, dict]) -> str:
    """The Markdown of a stage: each rule's worst and mean gap over the cells with n epsilon / d >= 50 and the cells
    where it lost more than 0.02 of beta = 0's, then every cell at each beta."""
    cells = sorted(_cells(records), key=lambda c: (c[0], c[1]))
    scored = [cell for cell in cells if cell[2] >= SCORED_AT]
    rules: list[tuple[float | None, float]] = [(0.0, 0.0)] + [(beta, at) for beta in BETAS[1:]
                                                              for at in (0.0, *THRESHOLDS)]
    if all(RAMP in cell[3] for cell in cells):
        rules.append((None, 0.0))
    lines = [f"# Momentum in the descent: the {'development' if stage == 'dev' else 'held-out'} tables", "",
             "Written by benchmarks/descent_momentum.py (its docstring: the candidates, the tables, the rule). Gap "
             "recovered = (R^2 - trivial) / (reference - trivial) per split, mean over the splits; a rule takes "
             f"beta where n epsilon / d >= A, else none. The library's rule (since session 70): beta = {CHOSEN[0]:g} "
             f"at n epsilon / d >= {CHOSEN[1]:g}, none at or below {CHOSEN[2]:g}, linear between (the ramp row, fitted "
             "as the library stands).", ""]
    if scored:
        lines += [f"## Summary over the {len(scored)} cells with n epsilon / d >= {SCORED_AT:g}", "",
                  "| rule | worst cell's gap (95% half-width) | mean gap | cells below beta = 0 by more than 0.02 |",
                  "|---|---|---|---|"]
        for beta, at in rules:
            means = [float(np.mean(_rule(cell, beta, at))) for cell in scored]
            worst = int(np.argmin(means))
            base = [float(np.mean(cell[3][0.0])) for cell in scored]
            lost = [f"{cell[0]} at {cell[1]:g} ({mean - before:+.3f})"
                    for cell, mean, before in zip(scored, means, base, strict=True) if mean < before - 0.02]
            name = ("the library's ramp" if beta is None else "none (beta = 0)" if beta == 0 else
                    f"beta {beta:g}" + (f" at A = {at:g}" if at else " everywhere"))
            lines.append(f"| {name} | {means[worst]:.3f} ± {_half(_rule(scored[worst], beta, at)):.3f} "
                         f"({scored[worst][0]} at {scored[worst][1]:g}) | {np.mean(means):.3f} | "
                         f"{'; '.join(lost) or 'none'} |")
        lines.append("")
    lines += ["## Cells (gap recovered at each beta, applied at every n)", "",
              "| table | epsilon | n eps / d | " + " | ".join(f"beta {beta:g}" for beta in BETAS) + " | ramp |",
              "|---|---|---|" + "---|" * (len(BETAS) + 1)]
    for name, epsilon, ratio, gaps in cells:
        ramp = f"{float(np.mean(gaps[RAMP])):.3f}" if RAMP in gaps else "not run"
        lines.append(f"| {name} | {epsilon:g} | {ratio:.0f} | "
                     + " | ".join(f"{float(np.mean(gaps[beta])):.3f}" for beta in BETAS) + f" | {ramp} |")
    return "\n".join(lines + common.tables_and_runs(records)) + "\n"


def main(argv: list[str] | None = None) -> dict[str, dict]:
    stages = {"dev": DEVELOPMENT, "held-out": HELD_OUT}
    return common.staged_main(argv, __doc__, "benchmarks.descent_momentum", "descent_momentum", stages, SPLITS,
                              RESULTS, measure, render)


if __name__ == "__main__":
    main()
