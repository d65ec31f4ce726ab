"""The input check of a CSR: whether a (row, column) repeats, and what a private fit pays for it.

On the speed sweep's matrix (``benchmarks.speed_sweep.sparse_data``: 200,000 x 100,000, 20 entries
a row) in its three forms (each row's indices decreasing as generated, in random order, canonical),
one BLAS thread, medians of ``--repeats`` runs:

* ``count``: :func:`dpcvx.data.repeats.has_repeats`, the check dpcvx runs (scipy's canonical-form scan,
  then rows whose indices all decrease recognised by comparing neighbours, else a count of distinct
  positions in one pass);
* ``pattern product``: the same check by its fallback, scipy's P * P by row groups;
* ``row sort``: the check it replaced, a copy of the indices sorted row by row, then scipy's
  canonical-form test;
* ``copy and sort``: what round 5 did before the fit, a copy of the whole CSR sorted in place;
* ``fit``: the sweep's private fit (``speed_sweep.fit_dpcvx``) and the minor page faults it takes
  (``resource.getrusage``), after a first fit in the process.

    python -m benchmarks.csr_check             # about 30 s
    python -m benchmarks.csr_check --quick     # 20,000 x 10,000
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy.sparse as sparse

from benchmarks import common, speed_sweep
from dpcvx.data import repeats


def shared(X: sparse.csr_matrix) -> sparse.csr_matrix:
    """A new CSR object over X's arrays (no cached form flags), as dpcvx's input check makes one."""
    return sparse.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape)


def row_sort(X: sparse.csr_matrix) -> bool:
    probe = sparse.csr_matrix((np.empty(X.nnz, dtype=np.bool_), X.indices.copy(), X.indptr), shape=X.shape)
    probe.sort_indices()
    return not shared(probe).has_canonical_format


def copy_and_sort(X: sparse.csr_matrix) -> bool:
    copy = X.copy()
    copy.sort_indices()
    return not shared(copy).has_canonical_format


def pattern_product(X: sparse.csr_matrix) -> bool:
    return repeats.pattern_positions(shared(X)) < X.nnz


CHECKS: dict[str, Callable[[sparse.csr_matrix], bool]] = {
    "count": lambda X: repeats.has_repeats(shared(X)), "pattern product": pattern_product,
    "row sort": row_sort, "copy and sort": copy_and_sort}


def median_ms(function: Callable[[], object], repeats_: int) -> float:
    function()
    times = []
    for _ in range(repeats_):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return 1e3 * float(np.median(times))


def fit_and_faults(X: sparse.csr_matrix, y: np.ndarray, repeats_: int) -> tuple[float, float]:
    """(median ms, median minor page faults) of the sweep's private fit."""
    speed_sweep.fit_dpcvx(X, y, 0)
    times, faults = [], []
    for seed in range(repeats_):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        times.append(speed_sweep.fit_dpcvx(X, y, seed)[0])
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    return 1e3 * float(np.median(times)), float(np.median(faults))


def run(args: argparse.Namespace) -> dict:
    record = common.RunRecord("benchmarks.csr_check")
    n, d = (20_000, 10_000) if args.quick else (200_000, 100_000)
    X, y = speed_sweep.sparse_data(n, d)
    forms = {"decreasing (as generated)": X, "random order": speed_sweep.shuffled_rows(X),
             "canonical": X.sorted_indices()}
    rows = []
    with common.limit_threads(1):
        for form, matrix in forms.items():
            row: dict = {"form": form, "repeats": {name: check(matrix) for name, check in CHECKS.items()}}
            row["ms"] = {name: median_ms(lambda c=check, m=matrix: c(m), args.repeats)
                         for name, check in CHECKS.items()}
            row["fit_ms"], row["fit_page_faults"] = fit_and_faults(matrix, y, args.repeats)
            rows.append(row)
            print(form, {k: round(v, 2) for k, v in row["ms"].items()}, "fit", round(row["fit_ms"], 1), "ms,",
                  row["fit_page_faults"], "page faults", flush=True)
    return {"run": record.finish(), "quick": args.quick, "n": n, "d": d, "repeats": args.repeats, "rows": rows}


def markdown(output: dict) -> str:
    from benchmarks import report

    lines = [report.run_header(output, f"CSR input check, {output['n']:,} x {output['d']:,}, 20 entries a row, "
                                       f"medians of {output['repeats']} runs, 1 BLAS thread"), "",
             "| form | " + " | ".join(f"{name} ms" for name in CHECKS) + " | private fit ms | page faults a fit |",
             "|---|" + "---|" * (len(CHECKS) + 2)]
    for row in output["rows"]:
        lines.append(f"| {row['form']} | " + " | ".join(f"{row['ms'][name]:.1f}" for name in CHECKS)
                     + f" | {row['fit_ms']:.1f} | {row['fit_page_faults']:.0f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.csr_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20,000 x 10,000")
    parser.add_argument("--repeats", type=int, default=9, help="runs a median is taken over")
    common.add_result_arguments(parser, None, "file name tag (default: csr_check, or _quick)")
    args = parser.parse_args(argv)
    output = run(args)
    common.write_results(output, markdown(output), Path(args.out),
                         args.tag or ("csr_check_quick" if args.quick else "csr_check"))
    return output


if __name__ == "__main__":
    main()
