"""The estimators' intercept: measured options on Adult (docs/theory.md, section 25.7).

DPLogisticRegression, objective perturbation, pure epsilon, lam="auto" and the oracle (the best
of a few fixed Lam in hindsight, NOT private), 5 folds x ``--repeats`` noise seeds, paired. Options:
the intercept column with ``intercept_scaling`` s in {1, 0.5, 0.25} (R grows to sqrt(1 + s^2)),
and no added column (the loader's own constant feature, inside R = 1).

    python -m benchmarks.intercept_options --repeats 1   # writes benchmarks/results/intercept_options.md
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import dpcvx
from benchmarks.common import RunRecord, write_markdown
from benchmarks.honest_lam import FOLDS, interval

RESULTS = Path(__file__).resolve().parent / "results" / "intercept_options.md"
OPTIONS = (("column, s = 1 (before)", True, 1.0), ("column, s = 0.61 (rule)", True, 0.61),
           ("column, s = 0.25", True, 0.25), ("no added column", False, 1.0))
LAMS = tuple(float(10.0 ** e) for e in (-3.5, -3.0, -2.5, -2.0, -1.5))


def main() -> None:
    record = RunRecord("benchmarks.intercept_options")
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--no-constant", action="store_true", help="the loader without its constant feature")
    args = parser.parse_args()
    start = time.time()
    data = dpcvx.load_adult(mode="paper", constant_feature=not args.no_constant)
    X, y = np.asarray(data.X), np.asarray(data.y)
    folds = np.random.default_rng(0).permutation(len(y)) % FOLDS
    rows = []
    for eps in (0.1, 1.0):
        for label, intercept, scaling in OPTIONS:
            errors: dict[float | str, list[float]] = {}
            for fold in range(FOLDS):
                train, test = folds != fold, folds == fold
                for repeat in range(args.repeats):
                    for lam in ("auto", *LAMS):
                        model = dpcvx.DPLogisticRegression(epsilon=eps, lam=lam, fit_intercept=intercept,
                                                           intercept_scaling=scaling, classes=(-1, 1),
                                                           random_state=1000 * fold + repeat).fit(X[train], y[train])
                        errors.setdefault(lam, []).append(float(np.mean(model.predict(X[test]) != y[test])))
            oracle = min(LAMS, key=lambda lam: float(np.mean(errors[lam])))
            rows.append(f"| {eps:g} | {label} | {interval(np.array(errors['auto']))} | "
                        f"{interval(np.array(errors[oracle]))} ({oracle:.2g}) |")
            print(rows[-1], flush=True)
    text = "\n".join([
        "# The intercept: measured options (Adult, paper mode)",
        "",
        f"Command: `python -m benchmarks.intercept_options --repeats {args.repeats}"
        + (" --no-constant" if args.no_constant else "") + f"` ({time.time() - start:.0f} s). "
        + ("Adult WITHOUT the loader's constant feature (d = 104): 'no added column' has no intercept at all. "
           if args.no_constant else "Adult with the loader's constant feature (d = 105), inside R = 1. ") +
        f"DPLogisticRegression, objective perturbation, pure epsilon, data_norm 1, {FOLDS} folds x {args.repeats} "
        "noise seeds (paired). Oracle: the best of Lam in 10^-3.5 .. 10^-1.5 (half decades) in hindsight, NOT "
        "private. Mean test error ± 95% half-width.",
        "",
        "| eps | intercept | lam='auto' | oracle (its Lam) |",
        "|---|---|---|---|",
        *rows,
        "",
    ])
    text = write_markdown(RESULTS.with_name("intercept_options_no_constant.md") if args.no_constant else RESULTS,
                          text, record)
    print(text)


if __name__ == "__main__":
    main()
