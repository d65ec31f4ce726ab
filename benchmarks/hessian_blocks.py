"""Hessian-vector products by row blocks (issue 32): the block size, for both memory orders.

One BLAS thread, the speed sweep's synthetic rows (``speed_sweep.dense_data``): H v = X^T (c * (X v))
as two whole-matrix products (``block_hessian_product`` on all of X), and as the sum over row
blocks of 0.5, 1, 2 (``cache_block_rows``, the solver's) and 4 MB of the same formula, for
row-major and column-major X; the variants interleaved, the median of ``--repeats`` timings each.

    python -m benchmarks.hessian_blocks                 # 1e5 x 200 and 3e5 x 500, 7 repeats
"""

from __future__ import annotations

import argparse
import functools
import json
import operator
import time
from pathlib import Path
from typing import Any

import numpy as np

from dpcvx.data.blocks import cache_block_rows
from dpcvx.solvers.objective import block_hessian_product

from . import common
from .speed_sweep import dense_data

BLOCK_BYTES = (1 << 19, 1 << 20, 1 << 21, 1 << 22)


def blocked(X: np.ndarray, c: np.ndarray, v: np.ndarray, rows: int) -> np.ndarray:
    """sum_b X_b^T (c_b * (X_b v)) over blocks of ``rows`` rows, in block order (as the solver adds them)."""
    return functools.reduce(operator.add, (block_hessian_product(X[a:a + rows], c[a:a + rows], v)[0]
                                           for a in range(0, X.shape[0], rows)))


def product_times(X: np.ndarray, repeats: int) -> dict[str, Any]:
    """Median seconds of H v: whole-matrix, and by blocks of each size in BLOCK_BYTES."""
    rng = np.random.default_rng(1)
    c, v = rng.random(X.shape[0]), rng.normal(size=X.shape[1])
    d = X.shape[1]
    variants = {"whole": X.shape[0], **{f"{size >> 10} KB": max(1, size // (8 * d)) for size in BLOCK_BYTES}}
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repeats):  # the variants interleaved in each round
        for name, rows in variants.items():
            start = time.perf_counter()
            blocked(X, c, v, rows)
            times[name].append(time.perf_counter() - start)
    return {"solver_rows": cache_block_rows(d), "rows": variants,
            "seconds": {name: float(np.median(values)) for name, values in times.items()}}


def run(args: argparse.Namespace) -> dict:
    record = common.RunRecord("benchmarks.hessian_blocks")
    cases = []
    with common.limit_threads(1):
        for size in args.sizes:
            n, d = (int(float(part)) for part in size.lower().split("x"))
            X, _ = dense_data(n, d)
            for order in ("C", "F"):
                X = np.asarray(X, order=order)
                case = {"n": n, "d": d, "order": order, "products": product_times(X, args.repeats)}
                cases.append(case)
                print(_line(case), flush=True)
    return {"run": record.finish(), "repeats": args.repeats, "cases": cases}


def _line(case: dict) -> str:
    seconds = case["products"]["seconds"]
    return (f"{case['n']:,} x {case['d']} {case['order']}: H v "
            + ", ".join(f"{name} {value:.4f} s" for name, value in seconds.items()))


def markdown(output: dict) -> str:
    run = output["run"]
    names = list(output["cases"][0]["products"]["seconds"])
    lines = [f"**Hessian-vector products by row blocks: median of {output['repeats']} repeats, 1 BLAS thread**",
             "", f"- command: `{run['command']}`", f"- date (UTC): {run['date_utc']}",
             f"- load average at start {run['load_average_start']}, at end {run['load_average_end']} (2 cores)",
             f"- git commit: {run['git_commit']}", "",
             "H v = X^T (c * (X v)), seconds; 'whole' is the two whole-matrix products, the other columns sum "
             "the same formula over row blocks of that many bytes (the solver's: 2048 KB, cache_block_rows).", "",
             "| n x d | order | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for case in output["cases"]:
        lines.append(f"| {case['n']:,} x {case['d']} | {case['order']} | "
                     + " | ".join(f"{value:.4f}" for value in case["products"]["seconds"].values()) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.hessian_blocks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["1e5x200", "3e5x500"], help="n x d cases")
    parser.add_argument("--repeats", type=int, default=7, help="timings per H v variant")
    parser.add_argument("--out", default=str(common.RESULTS_DIR), help="output directory")
    args = parser.parse_args(argv)
    output = run(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "hessian_blocks.json").write_text(json.dumps(output, indent=1))
    (out / "hessian_blocks.md").write_text(markdown(output))
    return output


if __name__ == "__main__":
    main()
