"""What lam="auto" costs a warm fit: DPLogisticRegression().fit on 2,000 x 10 rows at lam="auto" against the fit
at a numeric lam (issue 41: at most 1.2x).

Both fits are warm (the loss verified and the solver imported by a first fit of each) and interleaved, so a
change of machine load hits both alike; the ratio of the medians is recorded::

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


def fit_seconds(lam: float | str, X: np.ndarray, y: np.ndarray) -> float:
    """Wall seconds of one DPLogisticRegression fit (seeded; its release is not used)."""
    estimator = dpcvx.DPLogisticRegression(epsilon=1.0, lam=lam, random_state=0)
    start = time.perf_counter()
    estimator.fit(X, y)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=41)
    parser.add_argument("--lam", type=float, default=1e-3, help="the numeric lam compared against")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    record = RunRecord("benchmarks.lam_auto_cost", argv)
    X, y = synthetic_classification(n=2000, d=10, random_state=0)
    y = y > 0
    times: dict[str, list[float]] = {"auto": [], "numeric": []}
    with limit_threads(1):
        for lam in ("auto", args.lam):  # warm: the first fit verifies the loss and imports the solver
            fit_seconds(lam, X, y)
        for _ in range(args.repeats):
            times["auto"].append(fit_seconds("auto", X, y))
            times["numeric"].append(fit_seconds(args.lam, X, y))
    medians = {key: statistics.median(values) for key, values in times.items()}
    ratio = medians["auto"] / medians["numeric"]
    result = {"rows": 2000, "columns": 10, "repeats": args.repeats, "numeric_lam": args.lam,
              "median_seconds": medians, "ratio_auto_to_numeric": ratio, "target": TARGET, "run": record.finish()}
    write_json(args.out / "lam_auto_cost.json", result)
    text = "\n".join([
        "# lam='auto': the cost of a warm fit", "",
        f"DPLogisticRegression(epsilon=1).fit on 2,000 x 10 synthetic rows, {args.repeats} interleaved fits of each, "
        "one BLAS thread.", "",
        "| lam | median seconds |", "|---|---|",
        f"| auto | {medians['auto']:.4f} |", f"| {args.lam:g} | {medians['numeric']:.4f} |", "",
        f"Ratio auto / numeric: {ratio:.2f} (target: at most {TARGET:g}).",
    ])
    print(write_markdown(args.out / "lam_auto_cost.md", text, record))
    return result


if __name__ == "__main__":
    main()
