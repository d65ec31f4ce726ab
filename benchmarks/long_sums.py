"""A sparse fit whose gradient is summed by row blocks beyond 65,536 rows, before and after (docs/theory.md section 23).

X^T u of a sparse X was one product over all |D| rows; it is now the in-order sum of products on row blocks of
``SUM_BLOCK_ROWS`` rows (views of the CSR arrays), so that the worst-case rounding bound of the gradient that decides
release holds at any size. This script times, in alternating processes that each import one dpcvx tree
(``--before``, a checkout; and this tree), ``PrivateERM(lam=1e-4, data_norm=1).fit(X, y, 1, "output")`` on the speed
sweep's wide CSR rows (``benchmarks.speed_sweep.sparse_data``: about 20 entries a row, rows of norm 1) over
scikit-learn's ``LogisticRegression(C=1 / (lam n), tol=1e-6)`` on the same rows, one BLAS thread, and the largest
difference between the two trees' released coefficients of one seed (0: the same bits; the last bits move where
the sums' order changed, never the certificate). Each cell is one process's median of ``--fits`` ratios.

    python -m benchmarks.long_sums --before /tmp/dpcvx-before --shapes 1e5x1e4 2e5x1e5 4e5x500
"""

from __future__ import annotations

from benchmarks.common import RunRecord, alternating, before_after_parser, per_process, write_table

CHILD = """
import json, time, warnings
import numpy as np
from benchmarks import common, speed_sweep
import dpcvx
from sklearn.linear_model import LogisticRegression
warnings.simplefilter("ignore")
n, d = speed_sweep.parse_shape({shape!r})
X, y = speed_sweep.sparse_data(n, d, 7)
def timed(f):
    start = time.perf_counter(); f(); return time.perf_counter() - start
with common.limit_threads(1):
    fit = lambda: dpcvx.PrivateERM(lam=1e-4, data_norm=1.0).fit(X, y, 1.0, "output", random_state=0)
    peer = lambda: LogisticRegression(C=1 / (1e-4 * n), tol=1e-6).fit(X, y)
    coef = fit().coef_; peer()
    ratio = float(np.median([timed(fit) / timed(peer) for _ in range({fits})]))
print(json.dumps([ratio, coef.tolist()]))
"""


def main(argv: list[str] | None = None) -> None:
    parser = before_after_parser("python -m benchmarks.long_sums", __doc__, "long_sums", 3,
                                 ["1e5x1e4", "2e5x1e5", "4e5x500"])
    parser.add_argument("--fits", type=int, default=5, help="timed pairs per process")
    args = parser.parse_args(argv)
    record, rows = RunRecord("benchmarks.long_sums", argv), []
    for shape in args.shapes:
        cells = alternating(args.before, args.processes, CHILD.format(shape=shape, fits=args.fits))
        moved = max(max(abs(a - b) for a, b in zip(before[1], after[1], strict=True))
                    for before, after in zip(cells["before"], cells["after"], strict=True))
        rows.append(f"| {shape} | " + " | ".join(per_process(cells, 0)) + f" | {moved:.2g} |")
        print(rows[-1], flush=True)
    print(write_table(
        args.tag, record,
        "A sparse PrivateERM fit over scikit-learn's lbfgs, before and after the long sums by row blocks",
        f"Before: the tree at {args.before}, after: this tree. Each cell: one process's median over {args.fits} "
        "ratios of wall time, PrivateERM(lam=1e-4, data_norm=1).fit(X, y, 1, 'output', random_state=0) over "
        "LogisticRegression(C=1 / (lam n), tol=1e-6).fit, processes in the order run (before and after alternating); "
        "the last column, the largest difference of a released coefficient between the trees at the same seed.",
        ["n x d", "before", "after", "largest coefficient moved"], rows))


if __name__ == "__main__":
    main()
