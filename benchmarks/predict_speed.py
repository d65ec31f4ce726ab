"""A fitted estimator's predictions on new rows, beside scikit-learn's, before and after.

A release scores rows as it trained on them: the public feature map (an estimator's private column ranges
standardise the columns from about 11,000 rows on), the clip onto R, then w^T x + b. This script times, in
alternating processes that each import one dpcvx tree (``--before``, a checkout; and this tree), ``predict`` and
``predict_proba`` of ``DPLogisticRegression(epsilon=1, lam=1e-4)`` with its default column ranges and with
``column_statistics=False``, and ``DPLinearRegression(epsilon=1, delta=1e-8).predict``, each over the same call of a
scikit-learn model fitted to the same rows (``LogisticRegression``, ``Ridge``), on the family sweep's isotropic rows
(``benchmarks.family_sweep.generate``), one BLAS thread. Each cell is one process's median of ``--calls`` ratios.

    python -m benchmarks.predict_speed --before /tmp/dpcvx-before --shapes 1e4x20 1e5x20 1e6x20 1e5x200 2e4x1e3
"""

from __future__ import annotations

from benchmarks.common import RunRecord, alternating, before_after_parser, per_process, write_table

#: The calls timed, in the order of each child's output.
CALLS = ("predict, ranged columns", "predict_proba, ranged columns", "predict, no map", "regression predict")

CHILD = """
import json, time, warnings
import numpy as np
from benchmarks import common, family_sweep, speed_sweep
import dpcvx
from sklearn.linear_model import LogisticRegression, Ridge
warnings.simplefilter("ignore")
n, d = speed_sweep.parse_shape({shape!r})
X, y = family_sweep.generate("isotropic", n, d, family_sweep.SEED)
labels = (y > 0).astype(int)
target = 3 * X @ np.random.default_rng(1).normal(size=d)
def timed(f):
    start = time.perf_counter(); f(); return time.perf_counter() - start
with common.limit_threads(1):
    ranged = dpcvx.DPLogisticRegression(epsilon=1.0, lam=1e-4, random_state=0).fit(X, labels)
    plain = dpcvx.DPLogisticRegression(epsilon=1.0, lam=1e-4, column_statistics=False, random_state=0).fit(X, labels)
    regression = dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-8, mechanism="adassp", random_state=0).fit(X, target)
    peer = LogisticRegression(C=1 / (1e-4 * n)).fit(X, labels)
    ridge = Ridge(alpha=1e-4 * n).fit(X, target)
    pairs = [(ranged.predict, peer.predict), (ranged.predict_proba, peer.predict_proba), (plain.predict, peer.predict),
             (regression.predict, ridge.predict)]
    medians = []
    for ours, theirs in pairs:
        ours(X); theirs(X)
        medians.append(float(np.median([timed(lambda: ours(X)) / timed(lambda: theirs(X)) for _ in range({calls})])))
print(json.dumps(medians))
"""


def main(argv: list[str] | None = None) -> None:
    parser = before_after_parser("python -m benchmarks.predict_speed", __doc__, "predict_speed", 3,
                                 ["1e4x20", "1e5x20", "1e6x20", "1e5x200", "2e4x1e3"])
    parser.add_argument("--calls", type=int, default=9, help="timed pairs per process and call")
    args = parser.parse_args(argv)
    record, rows = RunRecord("benchmarks.predict_speed", argv), []
    for shape in args.shapes:
        cells = alternating(args.before, args.processes, CHILD.format(shape=shape, calls=args.calls))
        for column, call in enumerate(CALLS):
            rows.append(f"| {shape} | {call} | " + " | ".join(per_process(cells, column)) + " |")
            print(rows[-1], flush=True)
    print(write_table(
        args.tag, record, "Predictions on new rows over scikit-learn's, before and after (one BLAS thread)",
        f"Before: the tree at {args.before}, after: this tree. Each cell: one process's median over {args.calls} "
        "ratios of wall time, dpcvx's call over scikit-learn's on the same rows (LogisticRegression's predict or "
        "predict_proba, Ridge's predict), processes in the order run (before and after alternating). Ranged "
        "columns: DPLogisticRegression(epsilon=1, lam=1e-4) with its default private column ranges; no map: "
        "column_statistics=False; regression: DPLinearRegression(epsilon=1, delta=1e-8).",
        ["n x d", "call", "before", "after"], rows))


if __name__ == "__main__":
    main()
