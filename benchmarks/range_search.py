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

from benchmarks.common import RunRecord, alternating, before_after_parser, per_process, write_table

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
    fit = lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, mechanism="adassp").fit(X, target)
    ridge = lambda: Ridge(alpha=1e-4 * n).fit(X, target)
    search(); fit(); ridge()
    searches = [timed(search) for _ in range({fits})]
    ratios = [timed(fit) / timed(ridge) for _ in range({fits})]
print(json.dumps([float(np.median(searches)), float(np.median(ratios))]))
"""


def main(argv: list[str] | None = None) -> None:
    parser = before_after_parser("python -m benchmarks.range_search", __doc__, "range_search", 3,
                                 ["1e5x20", "1e5x200", "2e4x1e3"])
    parser.add_argument("--fits", type=int, default=5, help="timings per process")
    args = parser.parse_args(argv)
    record, rows = RunRecord("benchmarks.range_search", argv), []
    for shape in args.shapes:
        cells = alternating(args.before, args.processes, CHILD.format(shape=shape, fits=args.fits))
        rows.append(f"| {shape} | " + " | ".join(per_process(cells, 0, digits=3) + per_process(cells, 1)) + " |")
        print(rows[-1], flush=True)
    print(write_table(
        args.tag, record, "The range search of DPLinearRegression's default, before and after (one BLAS thread)",
        f"Before: the tree at {args.before}, after: this tree. Each cell: one process's median over {args.fits} "
        "timings, processes in the order run (before and after alternating). The search: seconds of "
        "release_ranges on the rows and label; the fit: DPLinearRegression(epsilon=1, delta=1e-6).fit over "
        "Ridge(alpha=1e-4 n).fit, wall time.",
        ["n x d", "search, before (s)", "search, after (s)", "fit / Ridge, before", "fit / Ridge, after"], rows))


if __name__ == "__main__":
    main()
