"""How calibrated is the logistic release's ``predict_proba``, and what the class settings do to it (session 71, P7).

On the imbalanced binary tables of :mod:`benchmarks.real_tables` (rare3: 3% positives, coded80: 6%, alarms: 11%,
adult: 24%; the same loaders, public schemas and seeded 75/25 splits), at each epsilon, the held-out Brier score
(mean squared error of the positive class's probability; lower is better) of:

* ``default``: DPLogisticRegression(). ``threshold=`` the public rate moves only the cut of ``predict``: its
  ``predict_proba`` is the default's, array for array (the run checks it), so one column serves both;
* ``balanced``: DPLogisticRegression(class_weight="balanced");
* ``prior``: DPLogisticRegression(class_prior="private", threshold="prior");
* ``calibrated``: scikit-learn's CalibratedClassifierCV(DPLogisticRegression(), method="sigmoid", cv=3) fitted on
  the training rows. NOT a private release: its three fits put each row in two of them (each fit is charged
  epsilon), and its Platt map is fitted without noise on the private rows' held-out scores. It is here only to
  show what it would have bought;

beside the constant at the table's public rate and non-private scikit-learn LogisticRegression() on the same
encoded rows. Means over the splits (seed 0).

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.probability_calibration --splits 3
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import brier_score_loss

import dpcvx
from benchmarks import common
from benchmarks import real_tables as tables

RESULT = tables.RESULTS / "probability_calibration.md"
TABLES = ("rare3", "coded80", "alarms", "adult")
EPSILONS = (1.0, 3.0)
COLUMNS = ("constant", "sklearn", "default", "balanced", "prior", "calibrated")


def _brier(table: tables.Table, test: np.ndarray, proba: np.ndarray) -> float:
    return float(brier_score_loss(table.y[test] == table.classes[1], proba))


def measure(name: str, splits: int) -> list[str]:
    """Markdown rows of one table: one per epsilon."""
    table = tables.load(name)
    assert table.prior is not None
    cells: dict[tuple[float, str], list[float]] = {}
    for split, (train, test, _) in enumerate(tables.seeded_splits(table, splits)):
        sklearn = LogisticRegression(max_iter=2000).fit(table.X[train], table.y[train])
        positive = list(sklearn.classes_).index(table.classes[1])
        shared = {"constant": _brier(table, test, np.full(test.size, table.prior)),
                  "sklearn": _brier(table, test, sklearn.predict_proba(table.X[test])[:, positive])}
        for epsilon in EPSILONS:
            seed = common.int_seed(0, split, int(epsilon * 10))
            for label, value in shared.items():
                cells.setdefault((epsilon, label), []).append(value)
            settings: dict[str, dict[str, object]] = {
                "default": {}, "threshold": {"threshold": table.prior}, "balanced": {"class_weight": "balanced"},
                "prior": {"class_prior": "private", "threshold": "prior"}}
            probabilities = {}
            for label, extra in settings.items():
                estimator = dpcvx.DPLogisticRegression(epsilon=epsilon, classes=table.classes, random_state=seed,
                                                       **extra)  # type: ignore[arg-type]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the fits' own notes are not what is measured here
                    estimator.fit(table.X[train], table.y[train])
                probabilities[label] = estimator.predict_proba(table.X[test])[:, 1]
            if not np.array_equal(probabilities["default"], probabilities["threshold"]):
                raise AssertionError(f"{name}: threshold= changed predict_proba")
            for label in ("default", "balanced", "prior"):
                cells.setdefault((epsilon, label), []).append(_brier(table, test, probabilities[label]))
            calibrated = CalibratedClassifierCV(
                dpcvx.DPLogisticRegression(epsilon=epsilon, classes=table.classes, random_state=seed),
                method="sigmoid", cv=3)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                calibrated.fit(table.X[train], table.y[train])
            column = list(calibrated.classes_).index(table.classes[1])
            cells.setdefault((epsilon, "calibrated"), []).append(
                _brier(table, test, calibrated.predict_proba(table.X[test])[:, column]))
    rows = []
    for epsilon in EPSILONS:
        means = " | ".join(f"{float(np.mean(cells[(epsilon, label)])):.4f}" for label in COLUMNS)
        rows.append(f"| {name} | {table.prior:g} | {epsilon:g} | {means} | {splits} |")
    return rows


HEADER = ("| table | public rate | epsilon | constant | sklearn | default (= threshold=) | balanced | "
          "prior | calibrated (NOT private) | splits |\n|---|---|---|---|---|---|---|---|---|---|")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", nargs="+", choices=TABLES, default=list(TABLES))
    parser.add_argument("--splits", type=int, default=3)
    arguments = parser.parse_args()
    record = common.RunRecord("benchmarks.probability_calibration")
    rows = [row for name in arguments.tables for row in measure(name, arguments.splits)]
    text = ("# The logistic release's predict_proba: Brier scores (benchmarks/probability_calibration.py)\n\n"
            "Held-out Brier score of the positive class's probability (lower is better; means over the splits, "
            "seed 0). `default` is DPLogisticRegression(); `threshold=` the public rate leaves predict_proba as "
            "it is (checked array for array), so it shares that column. `balanced` is class_weight=\"balanced\", "
            "`prior` class_prior=\"private\", threshold=\"prior\". `calibrated` is scikit-learn's "
            "CalibratedClassifierCV(method=\"sigmoid\", cv=3) around the default: NOT a private release (three "
            "charged fits, each row in two of them, and a Platt map fitted without noise on the private rows' "
            "scores). `constant` predicts the public rate; `sklearn` is non-private LogisticRegression() on the "
            "same encoded rows.\n\n" + "\n".join([HEADER, *rows]) + "\n")
    print(common.write_markdown(RESULT, text, record))


if __name__ == "__main__":
    main()
