"""A fit on a numpy.memmap whose row map changes its rows over the same fit in memory, before and after.

A memmap's rows are read by blocks (:mod:`dpcvx.data.blocks`). Where the public row map changes them (the private
column ranges' standardiser of an estimator's defaults, random Fourier features, a row clipped onto R), every block
was mapped again on every solver pass; now the validation pass writes the mapped rows once to an unnamed temporary
file that the passes read (``RowBlocks.checked_blocks``). This script times, in alternating processes that each
import one dpcvx tree (``--before``, a checkout; and this tree), one BLAS thread, each case's fit on the rows in memory
and on the same rows as a float64 memmap (a .npy file in a temporary directory, opened read-only), and reports the
median over ``--fits`` pairs of the ratio memmap / in memory, one per process, with the fits' seconds and the growth
of anonymous memory (RssAnon, polled every 5 ms: :func:`benchmarks.input_memory.peak_growth`) over the file's bytes
of a first memmap fit (after an untimed fit on 2,000 rows), in the last process. Rows:
``benchmarks.family_sweep.generate("isotropic", ...)`` (norm <= 1, labels 0/1).

- ``defaults``: ``DPLogisticRegression(epsilon=1)``, whose defaults draw private column ranges (a standardiser);
- ``fourier``: ``PrivateERM(feature_map=RandomFourierFeatures(gamma=1, n_components=200))`` at epsilon 1;
- ``clipped``: ``PrivateERM(data_norm=0.5, fit_intercept=True)`` at epsilon 1, most rows clipped onto R;
- ``linear``: ``DPLinearRegression(epsilon=1, delta=1e-9, label_bound=(-1, 2))`` on the 0/1 labels, whose default
  mechanism takes T noisy gradient steps, a pass each, over the rows its private ranges map.

    python -m benchmarks.mapped_memmap --before /tmp/dpcvx-before [--cases defaults:2e5x20 fourier:2e5x20 ...]
"""

from __future__ import annotations

from benchmarks.common import RunRecord, alternating, before_after_parser, write_table

CHILD = """
import json, tempfile, time, warnings
from pathlib import Path
import numpy as np
from benchmarks import common, family_sweep, speed_sweep
from benchmarks.input_memory import peak_growth
import dpcvx
warnings.simplefilter("ignore")
kind, shape = {case!r}.split(":")
n, d = speed_sweep.parse_shape(shape)
X, y = family_sweep.generate("isotropic", n, d, family_sweep.SEED)
labels = (y > 0).astype(int)
fits = {{
    "defaults": lambda rows, ys: dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(rows, ys),
    "fourier": lambda rows, ys: dpcvx.PrivateERM(classes=(0, 1), feature_map=dpcvx.RandomFourierFeatures(
        gamma=1.0, n_components=200, n_features=d, random_state=1)).fit(rows, ys, 1.0, random_state=0),
    "clipped": lambda rows, ys: dpcvx.PrivateERM(classes=(0, 1), data_norm=0.5, fit_intercept=True).fit(
        rows, ys, 1.0, random_state=0),
    "linear": lambda rows, ys: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-9, random_state=0,
                                                        label_bound=(-1, 2)).fit(rows, ys),
}}
fit = fits[kind]
def timed(rows):
    start = time.perf_counter(); fit(rows, labels); return time.perf_counter() - start
with tempfile.TemporaryDirectory() as directory, common.limit_threads(1):
    np.save(Path(directory) / "X.npy", X)
    mapped = np.load(Path(directory) / "X.npy", mmap_mode="r")
    fit(X[:2000], labels[:2000]); fit(mapped[:2000], labels[:2000])  # imports and verification, untimed
    growth, seconds = peak_growth(lambda: fit(mapped, labels))  # first: the heap has not grown to a fit's size yet
    pairs = [(timed(X), timed(mapped)) for _ in range({fits})]
    del mapped
print(json.dumps([float(np.median([b / a for a, b in pairs])), float(np.median([b for _, b in pairs])),
                  float(np.median([a for a, _ in pairs])), growth / X.nbytes]))
"""

CASES = ["defaults:2e5x20", "defaults:2e5x100", "fourier:2e5x20", "clipped:2e5x20", "linear:2e5x20"]


def main(argv: list[str] | None = None) -> None:
    parser = before_after_parser("python -m benchmarks.mapped_memmap", __doc__, "mapped_memmap", 2, [])
    parser.add_argument("--cases", nargs="+", default=CASES,
                        help="kind:n x d, kind one of defaults, fourier, clipped, linear")
    parser.add_argument("--fits", type=int, default=3, help="timed pairs per process")
    args = parser.parse_args(argv)
    record, rows = RunRecord("benchmarks.mapped_memmap", argv), []
    for case in args.cases:
        cells = alternating(args.before, args.processes, CHILD.format(case=case, fits=args.fits))
        kind, shape = case.split(":")
        ratios = [" / ".join(f"{output[0]:.2f}" for output in cells[name]) for name in ("before", "after")]
        last = [cells[name][-1] for name in ("before", "after")]
        rows.append(f"| {kind} | {shape} | {ratios[0]} | {ratios[1]} | {last[0][2]:.2f} / {last[1][2]:.2f} | "
                    f"{last[0][1]:.2f} / {last[1][1]:.2f} | {last[0][3]:.3f} / {last[1][3]:.3f} |")
        print(rows[-1], flush=True)
    print(write_table(
        args.tag, record,
        "A fit on a memmap whose row map changes its rows over the same fit in memory, before and after "
        "(one BLAS thread)",
        f"Before: the tree at {args.before}, after: this tree. Ratio: one process's median over {args.fits} "
        "pairs of wall time, the fit on the float64 memmap over the fit on the same rows in memory, processes in "
        "the order run (before and after alternating). Seconds (in memory, memmap): the last process's medians, "
        "before / after. Anonymous memory: the last process's growth of RssAnon during its first memmap fit "
        "(after an untimed fit on 2,000 rows) over the file's bytes, before / after (the mapped copy's pages are "
        "page cache). defaults: "
        "DPLogisticRegression(epsilon=1); fourier: PrivateERM with RandomFourierFeatures(gamma=1, "
        "n_components=200); clipped: PrivateERM(data_norm=0.5, fit_intercept=True); linear: "
        "DPLinearRegression(epsilon=1, delta=1e-9, label_bound=(-1, 2)).",
        ["case", "n x d", "ratio before", "ratio after", "s in memory", "s memmap", "anon / file"], rows))


if __name__ == "__main__":
    main()
