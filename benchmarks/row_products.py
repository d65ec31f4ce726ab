"""Which product a row-major block read from memory should use, by width (issue 44): numpy or BLAS.

One BLAS thread, Gaussian rows of 2e7 entries in all (160 MB, far beyond the caches), cut into the
solver's cache-sized row blocks (``cache_block_rows``). For each width d it times, interleaved, the median
of ``--repeats``:

* X^T u as the sum of the blocks' ``np.einsum("ij,i->j")`` against the sum of the blocks' BLAS gemv
  (``X_b.T @ u_b``);
* X v as the blocks' ``np.vecdot`` against the blocks' BLAS gemv (``X_b @ v``).

The solver's ``EINSUM_WIDTHS`` and ``ROW_PRODUCT_WIDTHS`` (``dpcvx.solvers.objective``) are the widths at
which numpy is the faster of the two on the machine that runs the package's benchmarks.

    python -m benchmarks.row_products                  # widths 20 to 2,000, 7 repeats
    python -m benchmarks.row_products --widths 500 1000 --repeats 9 --tag row_products_check
"""

from __future__ import annotations

import argparse
import functools
import operator
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from dpcvx.data.blocks import cache_block_rows

from . import common

ENTRIES = 20_000_000
WIDTHS = (20, 32, 48, 64, 100, 200, 300, 400, 500, 700, 1000, 1500, 2000)


def variants(X: np.ndarray) -> dict[str, Callable[[], Any]]:
    """The four block-wise products of one X (u and v fixed, seeded)."""
    rng = np.random.default_rng(1)
    n, d = X.shape
    u, v = rng.normal(size=n), rng.normal(size=d)
    step = cache_block_rows(d)
    rows = [slice(a, a + step) for a in range(0, n, step)]
    return {
        "X^T u einsum": lambda: functools.reduce(operator.add, (np.einsum("ij,i->j", X[r], u[r]) for r in rows)),
        "X^T u BLAS": lambda: functools.reduce(operator.add, (X[r].T @ u[r] for r in rows)),
        "X v vecdot": lambda: np.concatenate([np.vecdot(X[r], v) for r in rows]),
        "X v BLAS": lambda: np.concatenate([X[r] @ v for r in rows]),
    }


def width_times(d: int, repeats: int) -> dict[str, float]:
    """Median seconds of each variant at width d (the variants interleaved in each round)."""
    X = np.random.default_rng(0).normal(size=(ENTRIES // d, d))
    products = variants(X)
    times: dict[str, list[float]] = {name: [] for name in products}
    for _ in range(repeats):
        for name, product in products.items():
            start = time.perf_counter()
            product()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(values)) for name, values in times.items()}


def run(args: argparse.Namespace) -> dict:
    record = common.RunRecord("benchmarks.row_products")
    cases = []
    with common.limit_threads(1):
        for d in args.widths:
            case = {"d": d, "rows": ENTRIES // d, "seconds": width_times(d, args.repeats)}
            cases.append(case)
            print(_line(case), flush=True)
    return {"run": record.finish(), "repeats": args.repeats, "cases": cases,
            "numpy": np.__version__, "blas": _blas()}


def _blas() -> str:
    """OpenBLAS's kernel family and version, as numpy reports them (empty when it does not)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # an optional package of the benchmarks
        return ""
    return ", ".join(f"{info.get('internal_api')} {info.get('version')} {info.get('architecture')}"
                     for info in threadpool_info() if info.get("user_api") == "blas")


def _line(case: dict) -> str:
    return f"d = {case['d']}: " + ", ".join(f"{name} {value * 1000:.1f} ms" for name, value in case["seconds"].items())


def markdown(output: dict) -> str:
    run = output["run"]
    lines = [f"**Row-block products read from memory, numpy against BLAS: median of {output['repeats']} repeats, "
             "1 BLAS thread**", "", f"- command: `{run['command']}`", f"- date (UTC): {run['date_utc']}",
             f"- load average at start {run['load_average_start']}, at end {run['load_average_end']} (2 cores)",
             f"- git commit: {run['git_commit']}",
             f"- numpy {output['numpy']}; BLAS: {output['blas'] or 'not reported'}",
             "", f"{ENTRIES:,} entries in all at each width, read by the solver's cache-sized row blocks; ms. "
             "A ratio below 1 means numpy is faster.", "",
             "| d | X^T u einsum | X^T u BLAS | einsum / BLAS | X v vecdot | X v BLAS | vecdot / BLAS |",
             "|---|---|---|---|---|---|---|"]
    for case in output["cases"]:
        s = case["seconds"]
        lines.append(f"| {case['d']} | {s['X^T u einsum'] * 1000:.1f} | {s['X^T u BLAS'] * 1000:.1f} | "
                     f"{s['X^T u einsum'] / s['X^T u BLAS']:.2f} | {s['X v vecdot'] * 1000:.1f} | "
                     f"{s['X v BLAS'] * 1000:.1f} | {s['X v vecdot'] / s['X v BLAS']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.row_products", description=__doc__.split("\n\n")[0])
    parser.add_argument("--widths", nargs="+", type=int, default=list(WIDTHS), help="widths d")
    parser.add_argument("--repeats", type=int, default=7, help="timings per variant and width")
    common.add_result_arguments(parser, "row_products")
    return common.run_and_write(parser, argv, run, markdown)


if __name__ == "__main__":
    main()
