"""Where TDDL's exact solve stops scaling: time and steps of the whole-RKHS minimiser (docs/kernels.md).

TDDL (Jain and Thakurta 2013) with ``span="training"``, the paper's exact minimiser over the whole RKHS, on rows of a
public synthetic family: 5 standard normal columns scaled into the unit ball, labels sign(x_1 + x_2^2 - 0.2) with 5 %
flipped (seeded). The rbf kernel exp(-||x - x'||^2), lam = 1e-3, (epsilon 1, delta 1e-6), a public Z of 50 rows;
one BLAS thread. Each loss is solved as dpcvx solves it: the hinge by its dual interior point, the logistic loss and
the Huber hinge by Newton (the Huber hinge factors only the points inside its quadratic zone). "fit seconds" is the
whole private fit (checks, Gram matrix, the certified solve, noise, the post-processing); "steps" is the solver's
iteration count (the learner's ``diagnostics_``, NOT PRIVATE: a benchmark on synthetic rows reads it).

    python -m benchmarks.kernel_exact_scaling                     # n = 1000, 3000, 5000: a few minutes
    python -m benchmarks.kernel_exact_scaling --sizes 500 1000    # a quick look
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks import common
from dpcvx import TDDL

LOSSES = ("hinge", "logistic", "huber_hinge")
LAM = 1e-3
EPSILON, DELTA = 1.0, 1e-6
PUBLIC_ROWS = 50


def rows(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The public synthetic family (module docstring)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 5))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X[:, 0] + X[:, 1] ** 2 > 0.2, 1, -1)
    flipped = rng.random(n) < 0.05
    return X, np.where(flipped, -y, y)


def run(args: argparse.Namespace) -> dict:
    Z = rows(PUBLIC_ROWS, args.seed + 1)[0]
    records = []
    for n in args.sizes:
        X, y = rows(n, args.seed)
        for loss in LOSSES:
            learner = TDDL("rbf", gamma=1.0, lam=LAM, loss=loss, span="training")
            start = time.perf_counter()
            learner.fit(X, y, EPSILON, DELTA, Z=Z, random_state=args.seed)
            seconds = time.perf_counter() - start
            report = learner.diagnostics_.get("solve_report")
            records.append({"n": n, "loss": loss, "seconds": seconds, "method": report.method,
                            "steps": report.iterations})
            print(f"[kernel_exact_scaling] n={n} {loss}: {seconds:.2f} s, {report.method}, "
                  f"{report.iterations} steps", flush=True)
    return {"records": records}


def markdown(result: dict, args: argparse.Namespace) -> str:
    by = {(record["n"], record["loss"]): record for record in result["records"]}
    lines = ["# Where TDDL's exact solve stops scaling", "",
             f"rbf kernel, 5-dimensional rows in the unit ball, lam = {LAM:g}, epsilon {EPSILON:g}, delta {DELTA:g}, "
             f"|Z| = {PUBLIC_ROWS}, seed {args.seed}; the whole private fit's seconds (the solver's steps), "
             "one BLAS thread.", "",
             "| n | hinge (dual interior point) | logistic (Newton) | Huber hinge (Newton) |",
             "|---|---|---|---|"]
    for n in args.sizes:
        cells = [f"{by[n, loss]['seconds']:.2g} s ({by[n, loss]['steps']} steps)" for loss in LOSSES]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 5000])
    parser.add_argument("--seed", type=int, default=0)
    common.add_result_arguments(parser, "kernel_exact_scaling")
    return common.run_recorded("benchmarks.kernel_exact_scaling", parser, argv, run, markdown)


if __name__ == "__main__":
    main()
