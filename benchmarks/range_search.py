"""The private range search of DPLinearRegression's default (AdaSSP on ranged columns), before and after.

:func:`dpcvx.privacy.column_ranges.release_ranges` runs two noisy binary searches of 14 steps per column; each step's
counts #{i : v_ij <= t} are exact. This script times, in alternating processes that each import one dpcvx tree
(``--before``, a checkout; and this tree), the search alone on the family sweep's isotropic rows and their labels
(level 0.1, count sigma 30, the rows of ``benchmarks.family_sweep.generate``), and the whole
``DPLinearRegression(epsilon=1, delta=1e-6).fit`` beside scikit-learn's ``Ridge(alpha=1e-4 n)`` on the same rows (a
label 3 u^T x plus noise 0.1), one BLAS thread. Each cell is one process's median of ``--fits`` timings.

    python -m benchmarks.range_search --before /tmp/dpcvx-before --shapes 1e5x20 1e5x200 2e4x1e3
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.common import RESULTS_DIR, RunRecord, alternating, write_markdown

CHILD = """
import json, time, warnings
import numpy as np
from benchmarks import common, family_sweep, speed_sweep
import dpcvx
from dpcvx.privacy.column_ranges import release_ranges
from sklearn.linear_model import Ridge
warnings.simplefilter("ignore")
n, d = speed_sweep.parse_shape({shape!r})
X, y = family_sweep.generate("isotropic", n, d, family_sweep.SEED)
rng = np.random.default_rng(1)
target = 3 * X @ rng.normal(size=d) + 0.1 * rng.normal(size=n)
values = np.column_stack([X, np.clip(target / np.abs(target).max(), -1, 1)])
def timed(f):
    start = time.perf_counter(); f(); return time.perf_counter() - start
with common.limit_threads(1):
    search = lambda: release_ranges(values, np.ones(d + 1), 0.1, 30.0, np.random.default_rng(0))
    fit = lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6).fit(X, target)
    ridge = lambda: Ridge(alpha=1e-4 * n).fit(X, target)
    search(); fit(); ridge()
    searches = [timed(search) for _ in range({fits})]
    ratios = [timed(fit) / timed(ridge) for _ in range({fits})]
print(json.dumps([float(np.median(searches)), float(np.median(ratios))]))
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.range_search", description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="a dpcvx tree to compare against (its root)")
    parser.add_argument("--shapes", nargs="+", default=["1e5x20", "1e5x200", "2e4x1e3"])
    parser.add_argument("--processes", type=int, default=3, help="processes per tree and shape")
    parser.add_argument("--fits", type=int, default=5, help="timings per process")
    parser.add_argument("--tag", default="range_search")
    args = parser.parse_args(argv)
    record, rows = RunRecord("benchmarks.range_search", argv), []
    for shape in args.shapes:
        cells = alternating(args.before, args.processes, CHILD.format(shape=shape, fits=args.fits))
        rows.append(f"| {shape} | " + " | ".join(
            " / ".join(f"{value:.3f}" if column == 0 else f"{value:.2f}" for value in (cell[column] for cell in
                                                                                  cells[name]))
            for column in (0, 1) for name in ("before", "after")) + " |")
        print(rows[-1], flush=True)
    text = "\n".join([
        "# The range search of DPLinearRegression's default, before and after (one BLAS thread)",
        "",
        f"Before: the tree at {args.before}, after: this tree. Each cell: one process's median over {args.fits} "
        "timings, processes in the order run (before and after alternating). The search: seconds of "
        "release_ranges on the rows and label; the fit: DPLinearRegression(epsilon=1, delta=1e-6).fit over "
        "Ridge(alpha=1e-4 n).fit, wall time.",
        "",
        "| n x d | search, before (s) | search, after (s) | fit / Ridge, before | fit / Ridge, after |",
        "|---|---|---|---|---|",
        *rows,
    ])
    print(write_markdown(RESULTS_DIR / f"{args.tag}.md", text, record))


if __name__ == "__main__":
    main()
