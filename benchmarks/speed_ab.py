"""Before and after on one machine: two dpcvx trees timed in alternating processes, each against lbfgs.

The speed sweep's ratios move with the machine (its processor picks the BLAS kernels, its
memory bandwidth prices a pass), so a change is judged against the package before it on the
same machine, at the same time. Each process imports ONE tree (``--before``, a checkout such as
``git archive <commit> | tar -x -C /tmp/dpcvx-before``, or this tree), builds the speed sweep's
data (:mod:`benchmarks.speed_sweep`: the same generators and seeds), warms up with one fit, then
times ``--fits`` pairs of dpcvx's fit and scikit-learn's lbfgs back to back (one BLAS thread)
and prints the median per-pair ratio. The trees alternate, ``--processes`` times each, so a
change of machine load hits both alike; each process's median ratio is recorded.

    python -m benchmarks.speed_ab --before /tmp/dpcvx-before --cases 3e5x500 sparse --processes 4

A case may set its own Lam, epsilon and delta after an @ (``sparse@lam=1e-6,eps=0.1``, ``1e4x20@delta=1e-6``: the
Gaussian objective perturbation); else the sweep's ``LAM``, ``EPSILON`` and ``DELTA`` (0, pure epsilon). ``loss=``
fits dpcvx with another catalogue loss (``@loss=huber_hinge``; lbfgs stays logistic, so the ratio compares trees).
``layout=`` hands the dense rows over as given (``C``, the default), column-major (``F``), as float32
(``float32``: both sides convert or keep it as they do) or as a view of every second column of an array twice as
wide (``columns``: the same values, not contiguous), with three tenths of the rows (seeded) zero, empty in a CSR
(``zero-rows``), or as a pandas DataFrame (``frame``): ``"isotropic/2e4x1e3@layout=float32"``,
``"sparse@layout=zero-rows"``. A case
``generator/n x d`` takes the family sweep's generator instead
(:func:`benchmarks.family_sweep.generate`, seed ``family_sweep.SEED``): ``"balance 2%/2e4x1e3"``; a case
``coded/n x c`` a coded table, c categorical columns of 3 levels one-hot coded into a CSR
(:func:`benchmarks.speed_sweep.coded_data`, seed 0): ``"coded/1e6x5"``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.common import RESULTS_DIR, RunRecord, alternating, write_markdown

CHILD = """
import json
import numpy as np
import scipy.sparse
from benchmarks import common, family_sweep, speed_sweep
from benchmarks.speed_sweep import coded_data, dense_data, fit_dpcvx, fit_sklearn, parse_shape, sparse_data
case, _, options = {case!r}.partition("@")
generator, _, shape = case.rpartition("/")
layout = "C"
for option in filter(None, options.split(",")):
    key, _, value = option.partition("=")
    if key == "layout":
        layout = value
    elif key == "loss":
        speed_sweep.LOSS = value
    else:
        setattr(speed_sweep, {{"lam": "LAM", "eps": "EPSILON", "delta": "DELTA"}}[key], float(value))
if generator == "coded":
    X, y = coded_data(*parse_shape(shape))
elif generator:
    X, y = family_sweep.generate(generator, *parse_shape(shape), family_sweep.SEED)
else:
    X, y = sparse_data(*parse_shape("2e5x1e5")) if case == "sparse" else dense_data(*parse_shape(case))
def zero_rows(X):
    kept = np.random.default_rng(0).random(X.shape[0]) >= 0.3
    if isinstance(X, np.ndarray):
        return X * kept[:, None]
    emptied = scipy.sparse.csr_matrix(scipy.sparse.diags(kept.astype(float)) @ X)
    emptied.eliminate_zeros()
    return emptied
X = {{"C": lambda: X, "F": lambda: np.asfortranarray(X), "float32": lambda: X.astype(np.float32),
      "columns": lambda: np.repeat(X, 2, axis=1)[:, ::2], "zero-rows": lambda: zero_rows(X),
      "frame": lambda: __import__("pandas").DataFrame(X, columns=[f"c{{j}}" for j in range(X.shape[1])])}}[layout]()
with common.limit_threads(1):
    fit_dpcvx(X, y, 0)
    ratios = [fit_dpcvx(X, y, k + 1)[0] / fit_sklearn(X, y, k + 1)[0] for k in range({fits})]
print(json.dumps(float(np.median(ratios))))
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed_ab", description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="a dpcvx tree to compare against (its root)")
    parser.add_argument("--cases", nargs="+", default=["3e5x500", "sparse"],
                        help="n x d of dense cases, sparse, generator/n x d, or coded/n x c (c one-hot coded "
                             "columns of 3 levels in a CSR: speed_sweep.coded_data)")
    parser.add_argument("--processes", type=int, default=4, help="processes per tree and case")
    parser.add_argument("--fits", type=int, default=5, help="timed pairs per process")
    parser.add_argument("--tag", default="speed_ab")
    args = parser.parse_args(argv)
    record, rows = RunRecord("benchmarks.speed_ab", argv), []
    for case in args.cases:
        ratios = alternating(args.before, args.processes, CHILD.format(case=case, fits=args.fits))
        rows.append(f"| {case} | {' / '.join(f'{r:.2f}' for r in ratios['before'])} | "
                    f"{' / '.join(f'{r:.2f}' for r in ratios['after'])} |")
        print(rows[-1], flush=True)
    text = "\n".join([
        "# Before and after, alternating processes (dpcvx / scikit-learn lbfgs, one BLAS thread)",
        "",
        f"Before: the tree at {args.before}, after: this tree. Each cell: one process's median ratio over "
        f"{args.fits} pairs, processes in the order run (before and after alternating).",
        "",
        "| case | before | after |",
        "|---|---|---|",
        *rows,
    ])
    print(write_markdown(RESULTS_DIR / f"{args.tag}.md", text, record))


if __name__ == "__main__":
    main()
