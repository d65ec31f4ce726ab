"""The learners' regression releases on the real-tables' regression families: how often useless, how often told.

PrivateERM with ``task="regression"`` (the Huber loss at m = B / 4, lam="auto") and PrivateLinearRegression (AdaSSP,
delta 1e-6), the layer where a user writes the loss, at three public treatments of the label range (lo, hi) each
table declares: none (``fit_intercept=False``, the papers' default, B = max(|lo|, |hi|)), an intercept
(``fit_intercept=True``, the same B), and the public midpoint shift (y - c with c = (lo + hi) / 2, B = (hi - lo) / 2,
``model.label_shifted(c)``). Every regression table of ``benchmarks/real_tables.py`` (its public schema rows),
epsilon 0.3, 1 and 3, one seeded 70/30 split. Per fit: the test R^2 and whether the NOT PRIVATE TrainingRowsWarning
(R^2 <= 0 on the training rows, :mod:`dpcvx.models.training_rows`) fired. Counted: fits useless on the test rows
(R^2 <= 0) and how many of them were told; fits with test R^2 above 0.1 that were told (alarms). Before the fiftieth
session no learner regression ran the check: every useless fit here was silent.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.learner_regression_rows   # writes results/learner_regression_rows.md
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from sklearn.metrics import r2_score

import dpcvx
from benchmarks import common
from benchmarks import real_tables as tables
from dpcvx.exceptions import TrainingRowsWarning

EPSILONS = (0.3, 1.0, 3.0)
TREATMENTS = ("no intercept", "intercept", "midpoint shift")
LEARNERS = ("PrivateERM huber", "PrivateLinearRegression")
USEFUL = 0.1  # a test R^2 above this is a useful release: a warning there is an alarm
NAMES = tuple(name for name in tables.TABLES if name not in ("adult", "kdd"))  # the UCI files are not needed


def _learner(kind: str, bound: float, intercept: bool) -> object:
    if kind == "PrivateLinearRegression":
        return dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=bound, fit_intercept=intercept)
    return dpcvx.PrivateERM(dpcvx.losses.huber_regression(bound / 4), lam="auto", data_norm=1.0, task="regression",
                            label_bound=bound, fit_intercept=intercept)


def cells(name: str) -> list[dict]:
    """Every fit of one regression table: (learner, treatment, epsilon) on one split."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the schema's NOT PRIVATE notes about the table, not about a fit
        table = tables.load(name)
    if table.task != "regression":
        return []
    lo, hi = table.label_range
    order = np.random.default_rng(0).permutation(len(table.y))
    train, test = order[:int(0.7 * len(order))], order[int(0.7 * len(order)):]
    out = []
    for kind in LEARNERS:
        for treatment in TREATMENTS:
            shift = (lo + hi) / 2 if treatment == "midpoint shift" else 0.0
            bound = (hi - lo) / 2 if shift else max(abs(lo), abs(hi))
            for epsilon in EPSILONS:
                learner = _learner(kind, bound, treatment == "intercept")
                delta = {"delta": 1e-6} if kind == "PrivateLinearRegression" else {}
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    model = learner.fit(table.X[train], table.y[train] - shift, epsilon, random_state=7, **delta)
                if shift:
                    model = model.label_shifted(shift)
                out.append({"table": name, "learner": kind, "treatment": treatment, "epsilon": epsilon,
                            "r2": float(r2_score(table.y[test], model.predict(table.X[test]))),
                            "warned": any(issubclass(w.category, TrainingRowsWarning) for w in caught)})
    return out


def run(args: argparse.Namespace) -> dict:
    return {"cells": [cell for name in args.tables for cell in cells(name)]}


def _counts(cells: list[dict]) -> tuple[int, int, int, int]:
    useless = [c for c in cells if c["r2"] <= 0]
    useful = [c for c in cells if c["r2"] > USEFUL]
    return len(useless), sum(c["warned"] for c in useless), len(useful), sum(c["warned"] for c in useful)


def markdown(result: dict, args: argparse.Namespace) -> str:
    cells = result["cells"]
    lines = ["# The learners' regression releases and their training-rows check "
             "(benchmarks/learner_regression_rows.py)", "",
             "PrivateERM (Huber, m = B / 4, lam='auto') and PrivateLinearRegression (AdaSSP, delta 1e-6) on every "
             "regression table of benchmarks/real_tables.py, epsilon 0.3, 1, 3, one seeded 70/30 split (module "
             "docstring). Useless: test R^2 <= 0; told: the NOT PRIVATE TrainingRowsWarning fired (training R^2 <= "
             f"0); an alarm: told at test R^2 above {USEFUL}.", "",
             "| learner | label treatment | fits | useless (test R^2 <= 0) | of them told | useful (R^2 > 0.1) | "
             "of them told (alarms) |", "|---|---|---|---|---|---|---|"]
    for kind in LEARNERS:
        for treatment in TREATMENTS:
            part = [c for c in cells if c["learner"] == kind and c["treatment"] == treatment]
            useless, told, useful, alarms = _counts(part)
            lines.append(f"| {kind} | {treatment} | {len(part)} | {useless} | {told} | {useful} | {alarms} |")
    useless, told, useful, alarms = _counts(cells)
    lines += [f"| all | all | {len(cells)} | {useless} | {told} | {useful} | {alarms} |", "",
              "Tables: " + ", ".join(sorted({c["table"] for c in cells})) + ".", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", nargs="+", choices=NAMES, default=list(NAMES))
    common.add_result_arguments(parser, "learner_regression_rows")
    return common.run_recorded("benchmarks.learner_regression_rows", parser, argv, run, markdown)


if __name__ == "__main__":
    main()
