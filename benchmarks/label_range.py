"""DPLinearRegression() when n is too small to search every column: the label's range alone (issue 42, seventh session).

At epsilon 0.3 every regression table of benchmarks/real_tables.py but diabetes has too few rows for the private
range search of all d + 1 columns; the default then fell back to plain AdaSSP, whose label is centred at the public
midpoint. It now searches the label's range alone when its public level at n is defined (docs/theory.md section 16,
"the label's range alone"). This fits, on real_tables' seeded splits, plain AdaSSP (``column_statistics=False``:
the release the default made before, bit for bit, wherever the full search was not offered) beside the default,
with 95% intervals over the splits, the trivial predictor, the columns the default searched, and how often the
public ``NoiseDominatesWarning`` fired on the default. It runs no held-out table written after the change
(water, repairs, harvest).

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.label_range   # writes results/label_range.md (about 20 s)
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

import dpcvx
from benchmarks import common
from benchmarks.real_tables import load, score, seeded_splits, trivial
from dpcvx.exceptions import NoiseDominatesWarning

RESULTS = Path(__file__).resolve().parent / "results" / "label_range.md"
TABLES = ("clinic", "trips", "energy", "sensors", "prices", "rents", "claims", "wages500", "heavy", "diabetes")
SPLITS = 10
EPSILONS = (0.3, 3.0)


def _cell(values: list[float]) -> str:
    return f"{np.mean(values):.3f} ± {1.96 * np.std(values, ddof=1) / np.sqrt(len(values)):.3f}"


def measure(name: str, epsilon: float, splits: int) -> str:
    """One Markdown row: plain AdaSSP, the default, trivial, the columns searched, the share warned."""
    table = load(name)
    plain, default, low, searched, warned = [], [], [], set(), 0
    for train, test, seed in seeded_splits(table, splits):
        low.append(trivial(table.task, table.y[train], table.y[test]))
        for statistics, scores in ((False, plain), ("auto", default)):
            estimator = dpcvx.DPLinearRegression(mechanism="adassp",
                                                 epsilon=epsilon, label_bound=table.label_range, random_state=seed,
                                                 column_statistics=statistics)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                estimator.fit(table.X[train], table.y[train])
            scores.append(score(table.task, table.y[test], estimator.predict(table.X[test])))
            if statistics == "auto":
                searched.add(estimator.certificate_.calibration.range_columns)
                warned += any(issubclass(w.category, NoiseDominatesWarning) for w in caught)
    n, d = len(train), table.X.shape[1]
    columns = ", ".join("none" if k == 0 else "the label" if k == 1 else f"{k} (every column)"
                        for k in sorted(searched))
    return (f"| {name} | {epsilon:g} | {n * epsilon / d:.0f} | {_cell(plain)} | {_cell(default)} | {_cell(low)} | "
            f"{columns} | {warned / splits:.0%} |")


def run(tables: tuple[str, ...], splits: int) -> str:
    lines = ["# The label's range alone (benchmarks/label_range.py)", "",
             f"R^2 over {splits} seeded splits of benchmarks/real_tables.py (mean ± 1.96 standard errors).", "",
             "| table | epsilon | n eps / d | plain AdaSSP (the former fallback) | DPLinearRegression() | trivial | "
             "ranges searched | NoiseDominatesWarning |", "|---|---|---|---|---|---|---|---|"]
    lines += [measure(name, epsilon, splits) for epsilon in EPSILONS for name in tables]
    return "\n".join(lines) + "\n"


def main() -> None:
    common.tables_main("benchmarks.label_range", __doc__.split("\n")[0], TABLES, SPLITS, RESULTS, run)


if __name__ == "__main__":
    main()
