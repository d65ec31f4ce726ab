"""A seeded estimator fit beside an unseeded one and scikit-learn's, before and after.

A seed (``random_state`` an int) makes a fit reproducible, for experiments: its exact samplers then draw from the
seeded generator one integer at a time (the scalar samplers; the OS's draws take the lockstep array path). An
estimator's default column ranges draw 2^8 noisy histogram cells per column from about 11,000 rows on. This script
times, in alternating processes that each import one dpcvx tree (``--before``, a checkout; and this tree),
``DPLogisticRegression(epsilon=1, lam=1e-4)`` fitted with ``random_state=0`` and with ``random_state=None``, each over
scikit-learn's ``LogisticRegression(C=1 / (lam n), tol=1e-6)`` on the same rows (the family sweep's isotropic rows,
``benchmarks.family_sweep.generate``), one BLAS thread. Each cell is one process's median of ``--fits`` ratios.

    python -m benchmarks.seeded_fit --before /tmp/dpcvx-before --shapes 2e4x20 1e5x20 1e5x100
"""

from __future__ import annotations

from benchmarks.common import RunRecord, alternating, before_after_parser, per_process, write_table

CHILD = """
import json, time, warnings
import numpy as np
from benchmarks import common, family_sweep, speed_sweep
import dpcvx
from sklearn.linear_model import LogisticRegression
warnings.simplefilter("ignore")
n, d = speed_sweep.parse_shape({shape!r})
X, y = family_sweep.generate("isotropic", n, d, family_sweep.SEED)
labels = (y > 0).astype(int)
def timed(f):
    start = time.perf_counter(); f(); return time.perf_counter() - start
with common.limit_threads(1):
    peer = lambda: LogisticRegression(C=1 / (1e-4 * n), tol=1e-6).fit(X, labels)
    medians = []
    for seed in (0, None):
        fit = lambda: dpcvx.DPLogisticRegression(epsilon=1.0, lam=1e-4, random_state=seed).fit(X, labels)
        fit(); peer()
        medians.append(float(np.median([timed(fit) / timed(peer) for _ in range({fits})])))
print(json.dumps(medians))
"""


def main(argv: list[str] | None = None) -> None:
    parser = before_after_parser("python -m benchmarks.seeded_fit", __doc__, "seeded_fit", 3,
                                 ["2e4x20", "1e5x20", "1e5x100"])
    parser.add_argument("--fits", type=int, default=7, help="timed pairs per process and seed")
    args = parser.parse_args(argv)
    record, rows = RunRecord("benchmarks.seeded_fit", argv), []
    for shape in args.shapes:
        cells = alternating(args.before, args.processes, CHILD.format(shape=shape, fits=args.fits))
        for column, seed in enumerate(("random_state=0", "random_state=None")):
            rows.append(f"| {shape} | {seed} | " + " | ".join(per_process(cells, column)) + " |")
            print(rows[-1], flush=True)
    print(write_table(
        args.tag, record,
        "A seeded DPLogisticRegression fit over scikit-learn's lbfgs, before and after (one BLAS thread)",
        f"Before: the tree at {args.before}, after: this tree. Each cell: one process's median over {args.fits} "
        "ratios of wall time, DPLogisticRegression(epsilon=1, lam=1e-4, random_state=...).fit over "
        "LogisticRegression(C=1 / (lam n), tol=1e-6).fit, processes in the order run (before and after alternating).",
        ["n x d", "seed", "before", "after"], rows))


if __name__ == "__main__":
    main()
