"""What lam="auto" costs a warm fit: DPLogisticRegression().fit on 2,000 x 10 rows at lam="auto" against the fit
at a numeric lam (issue 41: at most 1.2x), at public settings already seen in the process and at new ones.

Both fits are warm (the loss verified and the solver imported by a first fit of each) and interleaved, so a
change of machine load hits both alike; the ratio of the medians is recorded for two cases:

* cached: every fit takes the same rows, so from the second on the rule's choice is the one kept for these
  public settings (``dpcvx.models.fit_plan._RULE_CHOICES``) and the grid is not calibrated again;
* uncached: fit i takes the first 2,000 + i rows, public settings new to the process (n differs), so every
  lam="auto" fit calibrates the rule's grid (the first fit of a process at its settings).

Times are CPU seconds of this process (:func:`time.process_time`), which other processes' load moves less than
wall time (P4 of session 70 measured the uncached case that way)::

    python -m benchmarks.lam_auto_cost                # about 10 s on one core
    python -m benchmarks.lam_auto_cost --repeats 5    # a quick look
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

import dpcvx
from benchmarks.common import RunRecord, limit_threads, write_json, write_markdown
from dpcvx.demo import synthetic_classification

RESULTS = Path(__file__).resolve().parent / "results"
TARGET = 1.2
ROWS = 2000


def fit_seconds(lam: float | str, X: np.ndarray, y: np.ndarray) -> float:
    """CPU seconds of one DPLogisticRegression fit (seeded; its release is not used)."""
    estimator = dpcvx.DPLogisticRegression(epsilon=1.0, lam=lam, random_state=0)
    start = time.process_time()
    estimator.fit(X, y)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=41)
    parser.add_argument("--lam", type=float, default=1e-3, help="the numeric lam compared against")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    record = RunRecord("benchmarks.lam_auto_cost", argv)
    X, y = synthetic_classification(n=ROWS + args.repeats, d=10, random_state=0)
    y = y > 0
    cases = {"cached": lambda i: ROWS, "uncached": lambda i: ROWS + 1 + i}  # the rows of fit i
    times: dict[str, dict[str, list[float]]] = {case: {"auto": [], "numeric": []} for case in cases}
    with limit_threads(1):
        for lam in ("auto", args.lam):  # warm: the first fit verifies the loss and imports the solver
            fit_seconds(lam, X[:ROWS], y[:ROWS])
        for i in range(args.repeats):
            for case, rows in cases.items():
                times[case]["auto"].append(fit_seconds("auto", X[:rows(i)], y[:rows(i)]))
                times[case]["numeric"].append(fit_seconds(args.lam, X[:rows(i)], y[:rows(i)]))
    medians = {case: {key: statistics.median(values) for key, values in timed.items()}
               for case, timed in times.items()}
    ratios = {case: median["auto"] / median["numeric"] for case, median in medians.items()}
    result = {"rows": ROWS, "columns": 10, "repeats": args.repeats, "numeric_lam": args.lam,
              "median_cpu_seconds": medians, "ratio_auto_to_numeric": ratios, "target": TARGET,
              "run": record.finish()}
    write_json(args.out / "lam_auto_cost.json", result)
    text = "\n".join([
        "# lam='auto': the cost of a warm fit", "",
        f"DPLogisticRegression(epsilon=1).fit on {ROWS:,} x 10 synthetic rows, {args.repeats} interleaved fits of "
        "each, one BLAS thread, CPU seconds of the process. Cached: the same rows each time, so the rule's choice "
        f"for these public settings is kept after the first fit. Uncached: fit i takes {ROWS:,} + 1 + i rows, "
        "settings new to the process, so each lam='auto' fit calibrates the rule's grid.", "",
        f"| case | lam='auto' (median s) | lam={args.lam:g} (median s) | ratio auto / numeric |", "|---|---|---|---|",
        *(f"| {case} | {medians[case]['auto']:.4f} | {medians[case]['numeric']:.4f} | {ratios[case]:.2f} |"
          for case in cases), "",
        f"Target: at most {TARGET:g}.",
    ])
    print(write_markdown(args.out / "lam_auto_cost.md", text, record))
    return result


if __name__ == "__main__":
    main()
