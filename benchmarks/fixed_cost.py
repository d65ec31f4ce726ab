"""A warm private fit's fixed cost: where the time of a small fit goes, outside and inside the solver.

A fit of n = 100 rows does almost no arithmetic, so its time is what every fit pays whatever its size (checks,
calibration, noise, certificate, the training-rows check, the solver's Python); at 10,000 x 20 (the family
sweep's smallest size, ``benchmarks.family_sweep`` generator ``isotropic``) that part is set against the
solver's work. After warm-up fits in the process (imports and the verifier's cache resolved), one BLAS
thread, each call below is made ``--repeats`` times in a row and its least time kept (on a shared machine, the
one other jobs disturbed least); the differences are taken between those:

* ``fit``: ``PrivateERM(logistic(), lam=1e-4, data_norm=1).fit(X, y, epsilon=1)``;
* ``checks and plan``: ``PrivateERM.plan(X, y, epsilon=1)``, every check of the fit (the row map and input
  check, the verification lookup, the calibration, the proved iteration budget) with nothing drawn;
* ``solver``: the fit's ``diagnostics_.seconds`` (Newton's own time);
* ``training-rows check``: the fit's time less that of the same fit inside
  ``dpcvx.models.training_rows.left_to_caller()`` (which turns the check off): one product X w and the counts;
* ``rest``: the fit without the check, less the checks and plan and the solver (the noise draws, the release
  and its certificate, the solver's set-up);
* ``fit, intercept``: ``fit`` with the estimator's intercept column (``fit_intercept=True``,
  ``intercept_scaling="auto"``);
* ``row map, intercept``: ``RowMap(1, fit_intercept=True).apply(X)``, the input check and the copy beside the
  intercept column with the rows clipped (the generator's rows lie on the bound up to rounding);
* ``estimator, lam=1e-4``: ``DPLogisticRegression(classes=(-1, 1), lam=1e-4).fit(X, y)`` (its other defaults:
  an intercept column, the noise warning, the training-rows check at its threshold);
* ``estimator, lam='auto'``: the same with its default ``lam="auto"`` (the rule of
  :mod:`dpcvx.privacy.lam_rule`);
* ``estimator / fit``, ``estimator / fit, intercept``: the estimator at lam=1e-4 over each (the same Lam; over
  the second, the estimator's own layer: its checks, the noise warning, the training-rows check at its
  threshold).

    python -m benchmarks.fixed_cost            # about 30 s
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import dpcvx
from benchmarks import common, family_sweep
from dpcvx.data.rows import RowMap
from dpcvx.models import training_rows

SIZES = ((100, 20), (10_000, 20))
# the clock of least_ms: wall time (perf_counter), or with --clock cpu this process's CPU time (process_time),
# which other jobs on a loaded machine disturb less (the solver's own figure stays its wall time)
CLOCK: list[Callable[[], float]] = [time.perf_counter]
SEED = 48_000
FIGURES = ("fit", "checks and plan", "solver", "training-rows check", "rest", "fit, intercept", "row map, intercept",
           "estimator, lam=1e-4", "estimator, lam='auto'", "estimator / fit", "estimator / fit, intercept")


def least_ms(call: Callable[[], Any], repeats: int) -> tuple[float, list[Any]]:
    """(the least ms of ``repeats`` calls after three warm-up calls, the calls' results), by ``CLOCK``."""
    for _ in range(3):
        call()
    times, results = [], []
    for _ in range(repeats):
        start = CLOCK[0]()
        results.append(call())
        times.append(1e3 * (CLOCK[0]() - start))
    return min(times), results


def measure(X: np.ndarray, y: np.ndarray, repeats: int) -> dict[str, float]:
    """Each figure of the module docstring from the least time of each call over ``repeats`` calls in a row (on
    a shared machine the least time is the one other jobs disturbed least)."""
    def learner() -> dpcvx.PrivateERM:
        return dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=1e-4, data_norm=1.0)

    def fit() -> float:
        fitted = learner()
        fitted.fit(X, y, epsilon=1.0)
        return 1e3 * fitted.diagnostics_.seconds  # measured on the data: for this benchmark only

    def unchecked() -> None:
        with training_rows.left_to_caller():
            learner().fit(X, y, epsilon=1.0)

    fit_ms, solver = least_ms(fit, repeats)
    plan_ms, _ = least_ms(lambda: learner().plan(X, y, epsilon=1.0), repeats)
    unchecked_ms, _ = least_ms(unchecked, repeats)
    intercept_ms, _ = least_ms(lambda: learner().set_params(fit_intercept=True, intercept_scaling="auto").fit(
        X, y, epsilon=1.0), repeats)
    row_map_ms, _ = least_ms(lambda: RowMap(1.0, fit_intercept=True).apply(X), repeats)
    numeric_ms, _ = least_ms(lambda: dpcvx.DPLogisticRegression(classes=(-1, 1), lam=1e-4).fit(X, y), repeats)
    auto_ms, _ = least_ms(lambda: dpcvx.DPLogisticRegression(classes=(-1, 1)).fit(X, y), repeats)
    return {"fit": fit_ms, "checks and plan": plan_ms, "solver": min(solver), "training-rows check":
            fit_ms - unchecked_ms, "rest": unchecked_ms - plan_ms - min(solver), "estimator, lam=1e-4": numeric_ms,
            "fit, intercept": intercept_ms, "row map, intercept": row_map_ms, "estimator, lam='auto'": auto_ms,
            "estimator / fit": numeric_ms / fit_ms, "estimator / fit, intercept": numeric_ms / intercept_ms}


def run(args: argparse.Namespace) -> dict:
    record = common.RunRecord("benchmarks.fixed_cost")
    rows = []
    with common.limit_threads(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the training-rows finding on random labels, shown to the user only
        for k, (n, d) in enumerate(SIZES):
            X, y = family_sweep.generate("isotropic", n, d, SEED + k)
            row: dict[str, Any] = {"n": n, "d": d, "ms": measure(X, y, args.repeats)}
            rows.append(row)
            print(n, d, {name: round(value, 3) for name, value in row["ms"].items()}, flush=True)
    return {"run": record.finish(), "repeats": args.repeats, "clock": args.clock, "rows": rows}


def markdown(output: dict) -> str:
    from benchmarks import report
    clock = "CPU time, the solver's figure wall time" if output.get("clock") == "cpu" else "wall time"
    lines = [report.run_header(output, f"Fixed cost of a warm private fit, ms, least of {output['repeats']} "
                                       f"calls, 1 BLAS thread, {clock}"), "",
             "| n x d | " + " | ".join(FIGURES) + " |", "|---|" + "---|" * len(FIGURES)]
    for row in output["rows"]:
        lines.append(f"| {row['n']:,} x {row['d']} | " + " | ".join(f"{row['ms'][name]:.2f}" for name in FIGURES)
                     + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fixed_cost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=100, help="rounds the least time is taken over")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall time, or this process's CPU time (steadier when other jobs load the machine)")
    common.add_result_arguments(parser, "fixed_cost")
    args = parser.parse_args(argv)
    CLOCK[0] = time.process_time if args.clock == "cpu" else time.perf_counter
    output = run(args)
    common.write_results(output, markdown(output), Path(args.out), args.tag)
    return output


if __name__ == "__main__":
    main()
