"""AdaSSP on columns and a label mapped by private ranges: the map's constants (issue 42, fifth round).

DPLinearRegression()'s default under replace-one with enough rows (mechanism "adassp-ranged", docs/theory.md
section 16) searches a private range of every column and of the label (a noisy binary search of Gaussian counts,
:mod:`dpcvx.privacy.column_ranges`), maps each column so that its implied standard deviation becomes
``RANGE_SPREAD`` R / sqrt(d), clips each coordinate onto ``RANGE_CLIP`` R / sqrt(d) and the row onto R, and clips
the centred label onto ``LABEL_WIDTH`` implied standard deviations (:mod:`dpcvx.data.standardiser`). This grid
fits the estimator itself with the three constants set to each triple shown (the library's constants patched for
the run), beside plain AdaSSP (column_statistics=False) and the older standardised map (column_statistics=True),
on the development tables of benchmarks/real_tables.py: energy, trips, wages500 and diabetes (diabetes has too
few rows for the search at epsilon 1: every ranged setting falls back to plain AdaSSP there). Never the held-out
``clinic`` and ``sensors``, written before the mechanism and fitted only after the constants were committed.
Epsilon 1, the first SPLITS seeded splits; the gap recovered against real_tables' trivial predictor and reference.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.column_ranges   # writes results/column_ranges.md (about a minute)
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

import dpcvx
import dpcvx.data.standardiser as standardiser_module
from benchmarks import common
from benchmarks.real_tables import load, reference, score, seeded_splits, trivial

RESULTS = Path(__file__).resolve().parent / "results" / "column_ranges.md"
TABLES = ("energy", "trips", "wages500", "diabetes")
SPLITS = 3
#: (spread, coordinate clip, label width) of the ranged map; the strings are the other releases
GRID: tuple[tuple[float, float, float] | str, ...] = (
    "plain AdaSSP", "standardised (column_statistics=True)", (0.75, 1.0, 3.0), (1.25, 1.0, 3.0), (1.0, 2.5, 3.0),
    (1.25, 2.0, 3.0), (1.25, 2.5, 3.0), (1.25, 3.0, 3.0), (1.5, 2.5, 3.0), (1.25, 2.5, 2.0), (1.25, 2.5, 4.0))
CONSTANTS = ("RANGE_SPREAD", "RANGE_CLIP", "LABEL_WIDTH")


def _label(setting: tuple[float, float, float] | str) -> str:
    if isinstance(setting, str):
        return setting
    chosen = tuple(getattr(standardiser_module, name) for name in CONSTANTS) == setting
    return f"ranges: spread {setting[0]:g}, clip {setting[1]:g}, label width {setting[2]:g}" + (
        " (the default)" if chosen else "")


def measure(name: str, splits: int) -> dict[str, float]:
    """{setting: gap recovered} on one table (means over the splits)."""
    table = load(name)
    kept = tuple(getattr(standardiser_module, constant) for constant in CONSTANTS)
    labels = [_label(setting) for setting in GRID]
    values: dict[str, list[float]] = {}
    low, high = [], []
    try:
        for train, test, seed in seeded_splits(table, splits):
            low.append(trivial(table.task, table.y[train], table.y[test]))
            high.append(reference(table, train, test))
            for label, setting in zip(labels, GRID, strict=True):
                statistics: bool | str = "ranges"
                if isinstance(setting, str):
                    statistics = setting != "plain AdaSSP"
                else:
                    for constant, value in zip(CONSTANTS, setting, strict=True):
                        setattr(standardiser_module, constant, value)
                estimator = dpcvx.DPLinearRegression(mechanism="adassp",
                                                     label_bound=table.label_range, random_state=seed,
                                                     column_statistics=statistics)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        predicted = estimator.fit(table.X[train], table.y[train]).predict(table.X[test])
                    except dpcvx.InputError:  # too few rows for the search: what "auto" does (plain AdaSSP)
                        estimator.set_params(column_statistics=False)
                        predicted = estimator.fit(table.X[train], table.y[train]).predict(table.X[test])
                values.setdefault(label, []).append(score(table.task, table.y[test], predicted))
                for constant, value in zip(CONSTANTS, kept, strict=True):
                    setattr(standardiser_module, constant, value)
    finally:
        for constant, value in zip(CONSTANTS, kept, strict=True):
            setattr(standardiser_module, constant, value)
    gap = float(np.mean(high) - np.mean(low))
    return {label: (float(np.mean(scores)) - float(np.mean(low))) / gap for label, scores in values.items()}


def run(tables: tuple[str, ...], splits: int) -> str:
    measured = {name: measure(name, splits) for name in tables}
    return "\n".join(common.gap_grid("AdaSSP on private ranges: the map's constants (benchmarks/column_ranges.py)",
                                     splits, tables, measured, [_label(setting) for setting in GRID])) + "\n"


def main() -> None:
    common.tables_main("benchmarks.column_ranges", __doc__.split("\n")[0], TABLES, SPLITS, RESULTS, run)


if __name__ == "__main__":
    main()
