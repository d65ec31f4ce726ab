"""The NOT PRIVATE training-rows note after a regression fit, its cost over the fit's, before and after.

Every regression fit compares its release with least squares on its training rows (a second pass over them,
dpcvx.models.training_rows.regression_share). On a sparse X the note made every block of rows dense and took 9 to
13 times the fit (DPLinearRegression, which is AdaSSP on sparse rows). This script times, in alternating processes
that each import one dpcvx tree (``--before``, a checkout; and this tree), the same seeded fit with the note
(the default) and without it (inside ``dpcvx.release.usefulness.checks_off()``), ``--fits`` pairs per process,
alternating which of the pair runs first, one BLAS thread; each cell is one process's median ratio of the fit with
the note over the fit without. It also computes ``regression_share`` on the fitted release in each process and
reports the largest difference between the trees' shares (the finding is read off them).

    python -m benchmarks.training_rows_note --before /tmp/dpcvx-before --shapes sparse:5e4x1000 adassp:2e4x1000
"""

from __future__ import annotations

from benchmarks.common import RunRecord, alternating, before_after_parser, per_process, write_table

CHILD = """
import json, time, warnings
import numpy as np
from scipy import sparse
from benchmarks import common, speed_sweep
import dpcvx
from dpcvx.models.training_rows import regression_share
from dpcvx.release.usefulness import checks_off
warnings.simplefilter("ignore")
kind, shape = {case!r}.split(":")
n, d = speed_sweep.parse_shape(shape)
rng = np.random.default_rng(7)
if kind == "sparse":  # about 15 stored values a row, rows in the unit ball
    X = sparse.random(n, d, density=15 / d, format="csr", random_state=7)
    X = X.multiply(1 / np.sqrt(X.multiply(X).sum(axis=1)).max()).tocsr()
else:
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1).max()
y = np.asarray(X @ rng.normal(size=d)).ravel() + 0.1 * rng.normal(size=n)
settings = {{"mechanism": "adassp"}} if kind == "adassp" else {{}}
def fit():
    return dpcvx.DPLinearRegression(epsilon=1.0, random_state=0, **settings).fit(X, y)
def quiet():
    with checks_off():
        return fit()
def timed(f):
    start = time.perf_counter(); f(); return time.perf_counter() - start
with common.limit_threads(1):
    quiet()
    on, off = [], []
    for k in range({fits}):
        pair = [(on, fit), (off, quiet)]
        for times, f in (pair if k % 2 == 0 else pair[::-1]):
            times.append(timed(f))
    shares = regression_share(fit().model_, X, y, (-1.0, 1.0))
print(json.dumps([float(np.median(np.array(on) / np.array(off))), 1e3 * float(np.median(on)),
                  1e3 * float(np.median(off)), [list(entry) for entry in shares or []]]))
"""


def main(argv: list[str] | None = None) -> None:
    parser = before_after_parser("python -m benchmarks.training_rows_note", __doc__, "training_rows_note", 2,
                                 ["sparse:5e4x500", "sparse:5e4x1000", "sparse:5e4x1900", "adassp:2e4x1000",
                                  "default:5e4x300"])
    parser.add_argument("--fits", type=int, default=3, help="timed pairs per process")
    args = parser.parse_args(argv)
    record, rows = RunRecord("benchmarks.training_rows_note", argv), []
    for case in args.shapes:
        cells = alternating(args.before, args.processes, CHILD.format(case=case, fits=args.fits))
        differences = [abs(a - b) for before, after in zip(cells["before"], cells["after"], strict=True)
                       for old, new in zip(before[3], after[3], strict=True) for a, b in zip(old, new, strict=True)]
        gap = f"{max(differences):.1e}" if differences else "not compared"
        rows.append(f"| {case} | " + " | ".join(per_process(cells, 0)) + " | " + " | ".join(per_process(cells, 1, 0))
                    + " | " + " | ".join(per_process(cells, 2, 0)) + f" | {gap} |")
        print(rows[-1], flush=True)
    print(write_table(
        args.tag, record, "The training-rows note's cost after a regression fit, before and after (one BLAS thread)",
        f"Before: the tree at {args.before}, after: this tree. Case: sparse (about 15 stored values a row, "
        "DPLinearRegression(epsilon=1), AdaSSP on sparse rows), adassp (dense, mechanism='adassp') or default "
        "(dense, DPLinearRegression(epsilon=1)), at n x d. Each cell: one process's median over "
        f"{args.fits} pairs, processes in the order run (before and after alternating). Ratio: the fit with the "
        "NOT PRIVATE note over the same fit inside checks_off(); ms: the medians of each. Shares: the largest "
        "difference between the trees' regression_share values on the same release.",
        ["case", "ratio before", "ratio after", "with note ms before", "with note ms after", "without ms before",
         "without ms after", "shares differ by"], rows))


if __name__ == "__main__":
    main()
