"""The cost of a private fit's training-rows check (NOT PRIVATE; issue 44), from the solver's margins or by a pass.

The check counts the release's predictions on its training rows (``dpcvx.models.training_rows``). Where Newton
kept its fresh margins at its point, the rows those margins decide (their |margin| beyond the noise and rounding
that separate the release from the solver's point) are not read again; only the others are gathered, and a pass
over X is made when they are many (``dpcvx.models.fit_plan``). The fit runs under cProfile with a CPU-time clock,
and the check's time is the cumulative time of the one call of ``dpcvx/models/fit_plan.py``'s ``_confusion``
(read by name from :mod:`pstats`, as ``newton_profile`` reads the solver's). Medians of ``--repeats`` fits, one
BLAS thread, fixed noise (random_state 0), PrivateERM(logistic, lam=1e-4, data_norm=1), objective perturbation
at epsilon 1, the family sweep's generators (seeds 51,400 on). Run on two trees (PYTHONPATH) for an A/B.

The estimator's check (``DPLogisticRegression(epsilon=1, lam=1e-4, classes=(-1, 1))`` on the isotropic rows,
which checks its own predictions at its threshold) is timed the same way: the cumulative time of
``dpcvx/sklearn/classifiers.py``'s ``_check_training_rows``, or where a tree has none (before issue 44's eighth
session) that of its ``_predicted`` and of ``warn_on_training_rows`` called from the fit.

    python -m benchmarks.confusion_margins                  # 1e5 x 20, 1e6 x 20, 1e5 x 200; 3 repeats
    python -m benchmarks.confusion_margins --sizes 1e4x20 --repeats 5 --tag confusion_margins_check
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

import dpcvx

from . import common, family_sweep

SIZES = ("1e5x20", "1e6x20", "1e5x200")
GENERATORS = ("isotropic", "noisy", "balance 2%", "inside")
SEED = 51_400


def check_ms(X: np.ndarray, y: np.ndarray, intercept: bool, repeats: int) -> tuple[float, float]:
    """(the fit's median CPU ms, the check's median CPU ms) over ``repeats`` profiled fits."""
    fits, checks = [], []
    for _ in range(repeats):
        profiler = cProfile.Profile(time.process_time)
        start = time.process_time()
        profiler.enable()
        dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=1e-4, data_norm=1.0, fit_intercept=intercept).fit(
            X, y, epsilon=1.0, random_state=0)
        profiler.disable()
        fits.append(1e3 * (time.process_time() - start))
        stats: Any = pstats.Stats(profiler).stats  # {(file, line, name): (calls, primitive, tottime, cumtime, ..)}
        checks.append(_cumulative_ms(stats, {"_confusion": "fit_plan.py"}))
    return float(np.median(fits)), float(np.median(checks))


def _cumulative_ms(stats: Any, names: dict[str, str]) -> float:
    """The cumulative CPU ms of the functions ``names`` (name -> the file it is defined in) in pstats' table."""
    return 1e3 * sum(entry[3] for (path, _, name), entry in stats.items()
                     if name in names and path.endswith(names[name]))


def estimator_check_ms(X: np.ndarray, y: np.ndarray, repeats: int) -> tuple[float, float]:
    """(the estimator's fit median CPU ms, its training-rows check's median CPU ms) over ``repeats`` fits."""
    fits, checks = [], []
    for _ in range(repeats):
        profiler = cProfile.Profile(time.process_time)
        start = time.process_time()
        profiler.enable()
        dpcvx.DPLogisticRegression(epsilon=1.0, lam=1e-4, classes=(-1, 1), random_state=0).fit(X, y)
        profiler.disable()
        fits.append(1e3 * (time.process_time() - start))
        stats: Any = pstats.Stats(profiler).stats
        check = _cumulative_ms(stats, {"_check_training_rows": "classifiers.py"})
        if not check:
            check = _cumulative_ms(stats, {"_predicted": "classifiers.py", "warn_on_training_rows": "training_rows.py"})
        checks.append(check)
    return float(np.median(fits)), float(np.median(checks))


def run(args: argparse.Namespace) -> dict:
    record = common.RunRecord("benchmarks.confusion_margins")
    rows: list[dict[str, Any]] = []
    with common.limit_threads(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the training-rows finding, shown to the user only
        for k, size in enumerate(args.sizes):
            n, d = (int(float(part)) for part in size.split("x"))
            for j, kind in enumerate(GENERATORS):
                X, y = family_sweep.generate(kind, n, d, SEED + 10 * k + j)
                for intercept in (False, True):
                    fit_ms, cost = check_ms(X, y, intercept, args.repeats)
                    rows.append({"size": size, "generator": kind, "intercept": intercept, "fit ms": fit_ms,
                                 "check ms": cost})
                    print(size, kind, intercept, round(fit_ms, 1), round(cost, 2), flush=True)
                    if kind == "isotropic" and intercept:
                        fit_ms, cost = estimator_check_ms(X, y, args.repeats)
                        rows.append({"size": size, "generator": kind, "intercept": "estimator", "fit ms": fit_ms,
                                     "check ms": cost})
                        print(size, kind, "estimator", round(fit_ms, 1), round(cost, 2), flush=True)
    return {"run": record.finish(), "repeats": args.repeats, "rows": rows}


def markdown(output: dict) -> str:
    from benchmarks import report
    lines = [report.run_header(output, f"The training-rows check's CPU ms in a profiled fit, medians of "
                                       f"{output['repeats']} fits, 1 BLAS thread"), "",
             "| size | generator | intercept | fit ms | check ms |", "|---|---|---|---|---|"]
    lines += [f"| {row['size']} | {row['generator']} | {row['intercept']} | {row['fit ms']:.0f} | "
              f"{row['check ms']:.1f} |" for row in output["rows"]]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=list(SIZES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tag", default="confusion_margins")
    parser.add_argument("--out", type=Path, default=common.RESULTS_DIR)
    args = parser.parse_args()
    output = run(args)
    common.write_results(output, markdown(output), args.out, args.tag)


if __name__ == "__main__":
    main()
