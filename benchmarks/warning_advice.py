"""Does following NoiseDominatesWarning's advice on lam ever hurt? Regression tables, paired over splits.

The rule under test (docs/theory.md, section 25.4): the warning's advice on lam names only lam="auto", the
public rule of the estimator that warned. For DPHuberRegressor that is the excess-risk rule of section 25
with the regression prior of 25.9; for DPLinearRegression's AdaSSP it is AdaSSP's own adaptive ridge, so the
advice says nothing about lam (lam="auto", the default, adds no ridge). Issue 42 measured the advice it
replaces on a hidden wages table: AdaSSP's warning advised the ridge lam = rho* / n of section 30 (the ridge
that minimises the predicted error of a model that uses the whole label bound), and following it raised the
MSE from 2465 to 3397.

Tables: benchmarks/real_tables.py's regressions (diabetes, target in [25, 346]; heavy, Student t(2) noise; the
held-out ``clinic`` and ``sensors``, added after the rule was frozen, whose columns fill small parts of their public
ranges) and ``wages``, a synthetic table with a target in the hundreds, its generator fixed before any run (3,000
rows, 9 columns: years of education, age, weekly hours and six 0/1 codes; y = 150 + 18 edu + 4 (age - 18)
+ 3 hours + codes . (40, -30, 25, 0, 60, -20) + N(0, 150^2), clipped to the public range [0, 1500]).
Each table at epsilon 0.3, 1 and 3 over SPLITS seeded 75/25 splits; in each split, on the same rows with the
same seed:

* ``adassp``: DPLinearRegression(label_bound=the public range), its default (AdaSSP, lam 0 = "auto");
  ``adassp, old advice``: the same at the lam the warning advised before (benchmarks/adassp_warning.py's
  ``former_advised_lam``, docs/theory.md section 30);
* ``huber``: DPHuberRegressor(lam=1e-3, label_bound=the public range), the former default;
  ``huber, lam="auto"``: the same at lam="auto" (the advice, now the default).

Classifiers (``--classifiers``: real_tables.py's breast_cancer, wine, digits, rare3, coded80 and the held-out
``alarms``; Adult and KDD by name): DPLogisticRegression(classes=...) at its default lam="auto", and the same at
the numeric lam its warning names (the advice: the value lam="auto" chose), same rows and seed, scored as real_tables.py
scores them (balanced accuracy for binary tables, accuracy for multiclass); higher is better there.

Reported: the mean test MSE of each, the share of fits that warned NoiseDominatesWarning, and the paired
difference (advice minus the fit it advises on) with its 95% normal interval over the splits. "hurts" means
the advice's mean MSE exceeds the advised-on fit's by more than that interval.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.warning_advice   # writes results/warning_advice.md
"""

from __future__ import annotations

import argparse
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np

import dpcvx
from benchmarks.adassp_warning import former_advised_lam
from benchmarks.common import RunRecord, write_markdown
from benchmarks.real_tables import Table, _numeric, load, score
from dpcvx.exceptions import NoiseDominatesWarning

RESULTS = Path(__file__).resolve().parent / "results" / "warning_advice.md"
TABLES = ("diabetes", "heavy", "wages", "clinic", "sensors")
CLASSIFIERS = ("breast_cancer", "wine", "digits", "rare3", "coded80", "alarms")
EPSILONS = (0.3, 1.0, 3.0)
SPLITS = 5


def wages() -> Table:
    """The synthetic wages table (module notes): a target in the hundreds, public ranges only."""
    rng = np.random.default_rng(7)
    n = 3000
    edu, age, hours = rng.integers(6, 21, n), rng.integers(18, 71, n), rng.integers(5, 81, n)
    codes = (rng.random((n, 6)) < [0.5, 0.3, 0.4, 0.5, 0.2, 0.3]).astype(float)
    y = 150 + 18 * edu + 4 * (age - 18) + 3 * hours + codes @ np.array([40, -30, 25, 0, 60, -20])
    y = np.clip(y + rng.normal(0, 150, n), 0, 1500)
    raw = np.column_stack([edu, age, hours, codes]).astype(float)
    bounds = [(0.0, 20.0), (18.0, 70.0), (0.0, 80.0)] + [(0.0, 1.0)] * 6
    return _numeric("wages", "regression", raw, y, bounds, "3,000 rows, 9 columns, target in [0, 1500]",
                    label_range=(0.0, 1500.0))


def _fit(estimator: Any, X: np.ndarray, y: np.ndarray) -> tuple[Any, bool]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return estimator, any(issubclass(w.category, NoiseDominatesWarning) for w in caught)


def _mse(model: Any, X: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean((model.predict(X) - y) ** 2))


def run_split(table: Table, epsilon: float, split: int) -> dict[str, tuple[float, bool]]:
    train, test = _split(table, split)
    Xtr, ytr, Xte, yte = table.X[train], table.y[train], table.X[test], table.y[test]
    bound = table.label_range
    seed = 10 * split + 1
    out: dict[str, tuple[float, bool]] = {}
    model, warned = _fit(dpcvx.DPLinearRegression(mechanism="adassp",
                                                  epsilon=epsilon, label_bound=bound, random_state=seed), Xtr, ytr)
    out["adassp"] = (_mse(model, Xte, yte), warned)
    advised = former_advised_lam(model.certificate_.calibration, ytr.size)
    model, warned = _fit(dpcvx.DPLinearRegression(mechanism="adassp", epsilon=epsilon, label_bound=bound, lam=advised,
                                                  random_state=seed), Xtr, ytr)
    out["adassp, old advice"] = (_mse(model, Xte, yte), warned)
    for name, lam in (("huber", 1e-3), ('huber, lam="auto"', "auto")):
        model, warned = _fit(dpcvx.DPHuberRegressor(epsilon=epsilon, label_bound=bound, lam=lam, random_state=seed),
                             Xtr, ytr)
        out[name] = (_mse(model, Xte, yte), warned)
    return out


def _split(table: Table, split: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.random.default_rng(1000 + split).permutation(table.y.size)
    cut = int(0.75 * order.size)
    return order[:cut], order[cut:]


def classifier_split(table: Table, epsilon: float, split: int) -> tuple[float, float, bool, str]:
    """(score at lam="auto", score at the lam its warning names, warned, that lam)."""
    train, test = _split(table, split)
    seed = 10 * split + 1
    model, warned = _fit(dpcvx.DPLogisticRegression(epsilon=epsilon, classes=table.classes, random_state=seed),
                         table.X[train], table.y[train])
    certificate = model.certificate_.per_class[0] if len(table.classes) > 2 else model.certificate_
    named = float(certificate.constants["lam"])  # "lam='auto' chose lam=... here": the advice
    advised, _ = _fit(dpcvx.DPLogisticRegression(epsilon=epsilon, classes=table.classes, lam=named,
                                                 random_state=seed), table.X[train], table.y[train])
    y = table.y[test]
    return (score(table.task, y, model.predict(table.X[test])), score(table.task, y, advised.predict(table.X[test])),
            warned, f"{named:.2g}")


def _interval(values: list[float]) -> float:
    return 1.96 * float(np.std(values, ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else float("nan")


PAIRS = (("adassp", "adassp, old advice"), ("huber", 'huber, lam="auto"'))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=SPLITS)
    parser.add_argument("--tables", nargs="*", default=list(TABLES))
    parser.add_argument("--classifiers", nargs="*", default=list(CLASSIFIERS))
    args = parser.parse_args()
    record = RunRecord("benchmarks.warning_advice")
    lines = ["# Following NoiseDominatesWarning's advice on lam (regression tables)", "",
             "benchmarks/warning_advice.py (its docstring states the rule, the tables and the columns). Mean test MSE "
             f"over {args.splits} seeded 75/25 splits; 'warned' the share of fits that warned; the paired difference "
             "is advice minus the fit advised on, with its 95% interval; 'hurts' when it exceeds the interval.", "",
             "| table | epsilon | fit advised on | MSE | warned | advice | MSE | advice - fit [95%] | hurts |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name in args.tables:
        table = wages() if name == "wages" else load(name)
        for epsilon in EPSILONS:
            results = [run_split(table, epsilon, split) for split in range(args.splits)]
            for base, advice in PAIRS:
                before = [r[base][0] for r in results]
                after = [r[advice][0] for r in results]
                differences = [a - b for a, b in zip(after, before, strict=True)]
                mean, width = float(np.mean(differences)), _interval(differences)
                warned = np.mean([r[base][1] for r in results])
                lines.append(f"| {name} | {epsilon:g} | {base} | {np.mean(before):.4g} | {warned:.0%} | {advice} | "
                             f"{np.mean(after):.4g} | {mean:+.4g} ± {width:.3g} | "
                             f"{'yes' if mean > width else 'no'} |")
            print(lines[-2], lines[-1], sep="\n", flush=True)
    lines += ["", "Classifiers: DPLogisticRegression at lam=\"auto\" (its default) and at the lam its warning names "
              "(higher is better; 'warned' the share of default fits that warned).", "",
              "| table | epsilon | score at lam='auto' | warned | lam named | score at that lam "
              "| advice - default [95%] | hurts |", "|---|---|---|---|---|---|---|---|"]
    for name in args.classifiers:
        table = load(name)
        for epsilon in EPSILONS:
            cells = [classifier_split(table, epsilon, split) for split in range(args.splits)]
            differences = [advised - plain for plain, advised, _, _ in cells]
            mean, width = float(np.mean(differences)), _interval(differences)
            plain, advised, warned = (np.mean([cell[index] for cell in cells]) for index in range(3))
            lines.append(f"| {name} | {epsilon:g} | {plain:.4f} | {warned:.0%} | {cells[0][3]} | {advised:.4f} | "
                         f"{mean:+.4f} ± {width:.3g} | {'yes' if -mean > width else 'no'} |")
            print(lines[-1], flush=True)
    write_markdown(RESULTS, "\n".join(lines) + "\n", record)


if __name__ == "__main__":
    main()
