"""The wall time of ``dpcvx.tune`` on an estimator with column ranges, before and after.

``tune`` fits every candidate once on synthetic public rows before its charge (the failure rule's rehearsal,
:func:`dpcvx.models.failure.rehearse`), then runs its private selection. This script times, in alternating
processes that each import one dpcvx tree (``--before``, a checkout; and this tree),
``dpcvx.tune(DPLogisticRegression(epsilon=1), X, y, {"lam": grid}, epsilon=1, random_state=seed)`` with its default
full-data selection on the family sweep's isotropic rows (``benchmarks.family_sweep.generate``), one BLAS thread,
for grids of ``--grids`` values of lam spread over 1e-5 to 1e-1. The seed makes the selection's runs the same in
both trees (the rehearsal takes no draw from it), so the times compare the same work; the selected candidate is
printed beside them. Each cell is one process's median of ``--calls`` calls, in seconds.

    python -m benchmarks.tune_cost --before /tmp/dpcvx-before --shapes 2e4x20 1e5x20 --grids 5 20
"""

from __future__ import annotations

from benchmarks.common import RunRecord, alternating, before_after_parser, per_process, write_table

CHILD = """
import json, time, warnings
import numpy as np
from benchmarks import common, family_sweep, speed_sweep
import dpcvx
warnings.simplefilter("ignore")
n, d = speed_sweep.parse_shape({shape!r})
X, y = family_sweep.generate("isotropic", n, d, family_sweep.SEED)
labels = (y > 0).astype(int)
grid = {{"lam": [float(lam) for lam in np.logspace(-5, -1, {grid})]}}
with common.limit_threads(1):
    times, chosen = [], set()
    for call in range({calls}):
        start = time.perf_counter()
        result = dpcvx.tune(dpcvx.DPLogisticRegression(epsilon=1.0), X, labels, grid, epsilon=1.0, random_state=call)
        times.append(time.perf_counter() - start)
        chosen.add(json.dumps(result.params, sort_keys=True))
print(json.dumps([float(np.median(times)), sorted(chosen)]))
"""


def main(argv: list[str] | None = None) -> None:
    parser = before_after_parser("python -m benchmarks.tune_cost", __doc__, "tune_cost", 2,
                                 ["2e4x20", "1e5x20"])
    parser.add_argument("--grids", nargs="+", type=int, default=[5, 20], help="numbers of candidates")
    parser.add_argument("--calls", type=int, default=3, help="timed calls per process (seeds 0, 1, ...)")
    args = parser.parse_args(argv)
    record, rows = RunRecord("benchmarks.tune_cost", argv), []
    for shape in args.shapes:
        for grid in args.grids:
            cells = alternating(args.before, args.processes, CHILD.format(shape=shape, grid=grid, calls=args.calls))
            same = all(cell[1] == cells["before"][0][1] for name in cells for cell in cells[name])
            rows.append(f"| {shape} | {grid} | " + " | ".join(per_process(cells, 0))
                        + f" | {'yes' if same else 'NO'} |")
            print(rows[-1], flush=True)
    print(write_table(
        args.tag, record, "dpcvx.tune's wall time on DPLogisticRegression, before and after (one BLAS thread)",
        f"Before: the tree at {args.before}, after: this tree. Each cell: one process's median over {args.calls} "
        "seeded calls (seeds 0, 1, ...), in seconds, processes in the order run (before and after alternating). "
        "Full-data selection (E[K] = 20 runs), lam on a grid of the given size from 1e-5 to 1e-1. Same selections: "
        "whether every process chose the same candidates.",
        ["n x d", "candidates", "before (s)", "after (s)", "same selections"], rows))


if __name__ == "__main__":
    main()
