"""The descent's level and its public number of steps (DPLinearRegression()'s default, mechanism "gradient-ranged",
docs/theory.md section 16.1): skewed, zero-inflated, overdispersed and one-hot tables, beside AdaSSP.

Two failures of the descent as it stood (T = 20 steps on residuals clipped at tau = B' / 3), reported on a prober's
tables: (1) on right-skewed, zero-inflated or overdispersed labels its fixed point is a Huber regression at tau, whose
intercept sits below the labels' mean (a claims table, 75% zeros: mean prediction 264-283 against 529; R^2 0.02-0.07
where mechanism="adassp" got 0.09-0.19); (2) on many one-hot blocks, 20 steps of 1 / Lambda do not converge.

How the change was chosen (a prototype, no longer in this script). Candidates, written down before any comparative
run: K1 a private level after the steps (the noisy sum of y' - clip(z . w_T, +-B'), sensitivity 4B', share 0.3 of
the steps' 2.95, added to the intercept); K2 a wider clip tau = B'; K3 T = 60 at the same budget; a public rule
"AdaSSP where n epsilon / d >= 1000" (rejected from the existing development record: the descent led there). After
the first development run, K13 (K1 with T = 60) and K1T (K1, with T = 60 where n epsilon / d >= 1000, else 20) were
added, and the old development cells at epsilon 0.3. The rule (gradient_regression.py's): the worst development
cell's gap recovered, a tie within that cell's 95% half-width broken by the mean. It chose K1T (worst 0.36, mean
0.85; the parent 0.06 and 0.79; AdaSSP 0.26 and 0.73), frozen before any held-out table was fitted. The prototype
patched the parent library (commit a2d02c0) in one process per table, 3 splits, epsilon 1 and 5 (0.3 on the old
development tables); its record is results/gradient_level_prototype.md.

What this script runs now: the library's default DPLinearRegression() (the chosen change) beside
DPLinearRegression(mechanism="adassp"), label_bound the table's public range, on the new families written here
(``FAMILIES``: development zinf, odisp, onehot; held-out tweedie, pareto, onehot2, written with the development ones
and not fitted until the choice was frozen) and real_tables' held-out regression tables, scored as
gradient_regression.py scores (gap recovered per split against StandardScaler + Ridge), 3 splits, epsilon 1 and 5.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.gradient_level --stage dev --tables zinf
    OPENBLAS_NUM_THREADS=1 python -m benchmarks.gradient_level --stage held-out --tables claims
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

import dpcvx
from benchmarks import common
from benchmarks.gradient_regression import HELD_OUT_REGRESSION, _cells, _interval, _summary, measure_table
from benchmarks.real_tables import Table, load, score

RESULTS = Path(__file__).resolve().parent / "results"
EPSILONS = (1.0, 5.0)
SPLITS = 3
ROWS = 20000
DEVELOPMENT = ("zinf", "odisp", "onehot")
HELD_OUT = ("tweedie", "pareto", "onehot2") + HELD_OUT_REGRESSION
METHODS = {"DPLinearRegression()": {}, "DPLinearRegression(mechanism='adassp')": {"mechanism": "adassp"}}
_SEEDS = {"zinf": 11, "odisp": 12, "onehot": 13, "tweedie": 21, "pareto": 22, "onehot2": 23}


def _numeric(rng: np.random.Generator, k: int, high: float = 10.0) -> tuple[dict, tuple]:
    return ({f"x{j}": rng.uniform(0, high, ROWS) for j in range(k)},
            tuple(dpcvx.NumericColumn(f"x{j}", 0, high) for j in range(k)))


def _categorical(rng: np.random.Generator, k: int, levels: int, skewed: bool = False) -> tuple[dict, tuple]:
    raw = {f"c{j}": rng.choice(levels, ROWS, p=rng.dirichlet(np.full(levels, 0.7)) if skewed else None).astype(str)
           for j in range(k)}
    return raw, tuple(dpcvx.CategoricalColumn(f"c{j}", tuple(map(str, range(levels)))) for j in range(k))


def _signal(rng: np.random.Generator, raw: dict, columns: tuple) -> np.ndarray:
    """A standardised linear signal: a random weight on each centred numeric column, a random effect per level."""
    z = np.zeros(ROWS)
    for column in columns:
        values = raw[column.name]
        if isinstance(column, dpcvx.NumericColumn):
            z += rng.normal() * (values - values.mean()) / values.std()
        else:
            z += rng.normal(size=len(column.categories))[values.astype(int)]
    return (z - z.mean()) / z.std()


def family(name: str) -> Table:
    """One of the new families (module docstring), 20,000 rows, its own seed; the label clipped onto its public
    range."""
    rng = np.random.default_rng(_SEEDS[name])
    if name in ("zinf", "odisp", "pareto"):
        raw, columns = _numeric(rng, {"zinf": 8, "odisp": 10, "pareto": 12}[name], 1.0 if name == "pareto" else 10.0)
    elif name == "tweedie":
        raw, columns = _numeric(rng, 6)
        more, extra = _categorical(rng, 2, 5)
        raw, columns = {**raw, **more}, columns + extra
    else:
        raw, columns = _numeric(rng, 3 if name == "onehot" else 2)
        more, extra = _categorical(rng, 6, 10) if name == "onehot" else _categorical(rng, 12, 8, skewed=True)
        raw, columns = {**raw, **more}, columns + extra
    z = _signal(rng, raw, columns)
    if name == "zinf":  # zero-inflated lognormal claim sizes
        positive = rng.random(ROWS) < 1 / (1 + np.exp(-(0.8 * z - 1.4)))
        y, high, text = (np.where(positive, np.exp(6.5 + 0.6 * z + 0.8 * rng.normal(size=ROWS)), 0.0), 5e4,
                         "zero-inflated lognormal (about 75% zeros), 8 numeric columns; label in [0, 50,000]")
    elif name == "odisp":  # gamma-mixed Poisson counts
        y, high, text = (rng.poisson(np.exp(1.5 + 0.7 * z) * rng.gamma(0.7, 1 / 0.7, ROWS)).astype(float), 1000.0,
                         "negative binomial counts, 10 numeric columns; label in [0, 1,000]")
    elif name == "onehot":
        y, high, text = (50 + 10 * z + 5 * rng.normal(size=ROWS), 100.0,
                         "3 numeric columns and 6 categoricals of 10 levels (63 columns); label in [0, 100]")
    elif name == "tweedie":  # compound Poisson-gamma
        counts = rng.poisson(np.exp(-0.7 + 0.5 * z))
        y = np.array([rng.gamma(2.0, 150.0 * np.exp(0.3 * s), k).sum() if k else 0.0
                      for k, s in zip(counts, z, strict=True)])
        high, text = 2e4, ("compound Poisson-gamma, 6 numeric columns and 2 categoricals of 5 levels; label in "
                           "[0, 20,000]")
    elif name == "pareto":
        y, high, text = (100 * np.exp(0.5 * z) * (1 + rng.pareto(2.5, ROWS)), 1e4,
                         "a Pareto(2.5) tail times exp(signal), 12 numeric columns; label in [0, 10,000]")
    else:
        y, high, text = (200 + 40 * z + 25 * rng.normal(size=ROWS), 500.0,
                         "2 numeric columns and 12 categoricals of 8 levels of skewed frequencies (98 columns); "
                         "label in [0, 500]")
    bounded, free = dpcvx.PublicSchema(columns, norm=1.0), dpcvx.PublicSchema(columns, norm=1e12)
    return Table(name, "regression", bounded.transform(raw), free.transform(raw), np.clip(y, 0.0, high),
                 label_range=(0.0, high), text=text)


def _fits(table: Table, train: np.ndarray, test: np.ndarray, epsilon: float, seed: int) -> dict[str, float]:
    """{method: test R^2} of one split at one epsilon: each of ``METHODS`` (warnings silenced)."""
    out = {}
    for method, settings in METHODS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            estimator = dpcvx.DPLinearRegression(epsilon=epsilon, label_bound=table.label_range, random_state=seed,
                                                 **settings)
            predicted = estimator.fit(table.X[train], table.y[train]).predict(table.X[test])
        out[method] = score(table.task, table.y[test], predicted)
    return out


def measure(name: str, splits: int) -> dict[str, Any]:
    """One table's record: per epsilon and method, the test R^2 of each split, and the trivial and reference
    scores (warnings silenced)."""
    table = family(name) if name in _SEEDS else load(name)
    assert table.label_range is not None
    return measure_table(name, table, splits, EPSILONS, _fits, "gradient_level")


def render(stage: str, records: dict[str, dict]) -> str:
    """The Markdown of a stage: the summary over every cell (n epsilon / d >= 50), then one row per cell."""
    cells = _cells(records)
    methods = list(METHODS)
    lines = [f"# The descent's level and steps: the {'development' if stage == 'dev' else 'held-out'} tables", "",
             "Written by benchmarks/gradient_level.py (its docstring: the change, the tables, the rule). Gap recovered "
             "= (R^2 - trivial) / (reference - trivial) per split; mean ± 95% normal interval over the splits.", ""]
    if cells:
        lines += ["## Summary", ""] + _summary(cells, methods) + [""]
    lines += ["## Cells", "", "| table | epsilon | n eps / d | trivial R^2 | reference R^2 | " + " | ".join(methods)
              + " |", "|---|---|---|---|---|" + "---|" * len(methods)]
    for name, epsilon, ratio, gaps in sorted(cells, key=lambda c: (c[0], c[1])):
        record = records[name]
        lines.append(f"| {name} | {epsilon:g} | {ratio:.0f} | {np.mean(record['trivial']):.3f} | "
                     f"{np.mean(record['reference']):.3f} | " + " | ".join(_interval(gaps[m]) for m in methods) + " |")
    return "\n".join(lines + common.tables_and_runs(records)) + "\n"


def main(argv: list[str] | None = None) -> dict[str, dict]:
    stages = {"dev": DEVELOPMENT, "held-out": HELD_OUT}
    return common.staged_main(argv, __doc__, "benchmarks.gradient_level", "gradient_level", stages, SPLITS, RESULTS,
                              measure, render)


if __name__ == "__main__":
    main()
