"""Anonymous memory of a ``DPLogisticRegression.fit`` against the size of its input (issue 44).

Two inputs, each fitted in a fresh process with one BLAS thread, after an untimed fit on 2,000 of its rows
(imports and verification outside the measurement):

- ``memmap``: a 100,000 x 200 float64 ``numpy.memmap`` (160 MB, rows of norm <= 1, labels +-1; written by
  :func:`benchmarks.scale_dense.write_memmap`), fitted with ``column_statistics=False`` as in
  ``tests/sklearn/test_streaming_estimators.py``, whose file has this shape (the issue's target: RssAnon grows by
  less than a tenth of the file; pages of the mapped file are page cache);
- ``memmap_narrow``: the same bytes as 200,000 x 100, where the solver's O(n) vectors weigh twice as much;
- ``memmap_50`` and ``memmap_20``: the same bytes as 400,000 x 50 and 1,000,000 x 20 (the family sweep's memmap
  case), where they would weigh four and ten times as much: the last column counts the growth in float64
  n-vectors (8 bytes a row against the row's 8 d). Below 100 columns the solve holds none
  (:class:`dpcvx.solvers.blockwise.RowMargins`) and the labels are one bit a row (one byte before the thirtieth
  session);
- ``memmap_narrow_defaults`` and ``memmap_20_defaults``: the 200,000 x 100 and 1,000,000 x 20 files with the
  estimator's defaults (``column_statistics="auto"``: private column ranges, whose standardiser maps every block on
  every pass, as the intercept column does);
- ``frame``: a pandas DataFrame of 200,000 x 119 float64 columns (190 MB) with the defaults (the intercept
  column appended, ``column_statistics="auto"``, which draws private column ranges at this n): the table is
  filled column by column into a column-major array, then copied by blocks of rows into the row-major array
  with the intercept column (30e6f0a);
- ``frame_plain``: the same DataFrame with ``column_statistics=False``: the input's copies alone;
- with ``--narrow``, in place of the above: 80 MB memmaps of 1, 2, 5 and 10 columns (10,000,000 x 1 to
  1,000,000 x 10) and a 64 MB one of 5 columns (the largest file whose blocks are a 32nd of it), each with
  ``column_statistics=False`` and with the defaults, where what the solve keeps per row (the labels, a
  check's temporaries, a subsample's indices, a pass's vectors beside its block) is a large part of a row of 8 to
  80 bytes; and the 1,000,000 x 10 file fitted with the defaults by the one-vs-rest ``DPLogisticRegression`` of
  three classes (0 for the -1 rows, 1 or 2 for the +1 rows at random, 70/30) and by ``DPLinearRegression`` (the
  -1/+1 labels as targets).

The child polls its own RssAnon (``/proc/self/status``) every 5 ms; the growth is the peak minus the value
just before the fit, reported in MB and as a fraction of the input's bytes.

    python -m benchmarks.input_memory [--narrow] [--out benchmarks/results] [--tag input_memory]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import common, report, scale_dense

CHILD = r'''
import json, sys
import numpy as np
import dpcvx

from benchmarks.input_memory import peak_growth

kind, path = sys.argv[1], sys.argv[2]
shape = {"memmap": (100_000, 200), "memmap_narrow": (200_000, 100), "memmap_50": (400_000, 50),
         "memmap_20": (1_000_000, 20), "memmap_narrow_defaults": (200_000, 100), "memmap_20_defaults": (1_000_000, 20),
         **{f"memmap_{name}{suffix}": size for name, size in {"d1": (10_000_000, 1), "d2": (5_000_000, 2),
            "d5": (2_000_000, 5), "d10": (1_000_000, 10), "d5_64mb": (1_600_000, 5)}.items()
            for suffix in ("", "_defaults")}}
rng = np.random.default_rng(0)
if kind in ("memmap_d10_multiclass", "memmap_d10_linear"):  # the 1,000,000 x 10 file, with the defaults
    X = np.memmap(path + "memmap_d10", dtype=np.float64, mode="r", shape=(1_000_000, 10))
    y = np.load(path + "memmap_d10.y.npy")
    if kind.endswith("multiclass"):  # three classes: the -1 rows, and the +1 rows split 70/30 at random
        y = np.where(y > 0, 1 + (rng.random(y.shape[0]) < 0.3), 0)
        learner = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, classes=(0, 1, 2))
    else:
        learner = dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-9, random_state=0)
    warm = np.ascontiguousarray(X[:2000])
elif kind in shape:
    X = np.memmap(path + kind.removesuffix("_defaults"), dtype=np.float64, mode="r", shape=shape[kind])
    y = np.load(path + kind.removesuffix("_defaults") + ".y.npy")
    statistics = {} if kind.endswith("_defaults") else {"column_statistics": False}
    learner = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, classes=(-1, 1), **statistics)
    warm = np.ascontiguousarray(X[:2000])
else:
    import pandas as pd
    n, d = 200_000, 119
    X = pd.DataFrame({f"x{j}": rng.uniform(-1.0, 1.0, size=n) / np.sqrt(d) for j in range(d)})
    y = (X.to_numpy().sum(axis=1) + 0.1 * rng.normal(size=n) > 0).astype(int)
    statistics = {"column_statistics": False} if kind == "frame_plain" else {}
    learner = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, **statistics)
    warm = X.iloc[:2000]
learner.fit(warm, y[:2000])
size = X.nbytes if isinstance(X, np.memmap) else int(X.memory_usage(index=False).sum())
growth, seconds = peak_growth(lambda: learner.fit(X, y))
print(json.dumps({"input_bytes": size, "growth_bytes": growth, "fit_seconds": seconds, "rows": int(X.shape[0])}))
'''


def _rss_anon() -> int:
    """This process's anonymous resident memory in bytes (``RssAnon`` of ``/proc/self/status``)."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("RssAnon:"))


def peak_growth(work: Callable[[], object], interval: float = 0.005) -> tuple[int, float]:
    """The peak growth of RssAnon while ``work()`` runs (polled every ``interval`` seconds by a thread) and
    its wall seconds."""
    before, peak, done = _rss_anon(), [0], threading.Event()

    def poll() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss_anon())
            done.wait(interval)

    thread = threading.Thread(target=poll)
    thread.start()
    start = time.perf_counter()
    work()
    seconds = time.perf_counter() - start
    done.set()
    thread.join()
    return max(peak[0], _rss_anon()) - before, seconds


INPUTS = {"memmap": "100,000 x 200 float64 memmap, column_statistics=False",
          "memmap_narrow": "200,000 x 100 float64 memmap, column_statistics=False",
          "memmap_50": "400,000 x 50 float64 memmap, column_statistics=False",
          "memmap_20": "1,000,000 x 20 float64 memmap, column_statistics=False",
          "memmap_narrow_defaults": "200,000 x 100 float64 memmap, defaults (column_statistics=\"auto\": every block "
                                    "mapped on every pass)",
          "memmap_20_defaults": "1,000,000 x 20 float64 memmap, defaults",
          "frame": "pandas DataFrame 200,000 x 119 float64, defaults (intercept, column_statistics=\"auto\")",
          "frame_plain": "the same DataFrame, intercept, column_statistics=False"}
NARROW_FILES = {"memmap_d1": (10_000_000, 1), "memmap_d2": (5_000_000, 2), "memmap_d5": (2_000_000, 5),
                "memmap_d10": (1_000_000, 10), "memmap_d5_64mb": (1_600_000, 5)}
NARROW = {f"{kind}{suffix}": f"{n:,} x {d} float64 memmap ({8 * n * d // 10**6} MB), {what}"
          for kind, (n, d) in NARROW_FILES.items()
          for suffix, what in (("", "column_statistics=False"), ("_defaults", "defaults"))}
NARROW["memmap_d10_multiclass"] = ("1,000,000 x 10 float64 memmap (80 MB), DPLogisticRegression(classes=(0, 1, 2)) "
                                   "(one-vs-rest), defaults")
NARROW["memmap_d10_linear"] = ("1,000,000 x 10 float64 memmap (80 MB), DPLinearRegression(delta=1e-9), defaults "
                               "otherwise")


def run(narrow: bool = False) -> dict:
    """Each input's growth of RssAnon in its own child process (``narrow``: the 80 MB narrow memmaps only)."""
    record = common.RunRecord("benchmarks.input_memory")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": str(common.REPO_ROOT)}
    results = {}
    with tempfile.TemporaryDirectory() as directory:
        path = str(Path(directory) / "X.")
        files = (NARROW_FILES if narrow else
                 {"memmap": (100_000, 200), "memmap_narrow": (200_000, 100), "memmap_50": (400_000, 50),
                  "memmap_20": (1_000_000, 20)})
        for name, (n, d) in files.items():
            scale_dense.write_memmap(path + name, n, seed=0, d=d)
        for kind in NARROW if narrow else INPUTS:
            done = subprocess.run([sys.executable, "-c", CHILD, kind, str(path)], capture_output=True, text=True,
                                  env=env, cwd=common.REPO_ROOT, check=True)
            results[kind] = json.loads(done.stdout.strip().splitlines()[-1])
    return {"run": record.finish(), "results": results}


def markdown(output: dict) -> str:
    """The run header and one row per input."""
    names = {**INPUTS, **NARROW}
    rows = [f"| {names[kind]} | {r['input_bytes'] / 1e6:.1f} | {r['growth_bytes'] / 1e6:.1f} | "
            f"{r['growth_bytes'] / r['input_bytes']:.3f} | {r['growth_bytes'] / (8 * r['rows']):.1f} | "
            f"{r['fit_seconds']:.2f} |" for kind, r in output["results"].items()]
    return "\n".join([report.run_header(output, "Anonymous memory of DPLogisticRegression.fit against its input"),
                      "", "| input | input MB | peak RssAnon growth MB | growth / input | growth in float64 "
                      "n-vectors | fit s |", "|---|---|---|---|---|---|", *rows, ""])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.input_memory", description=__doc__.split("\n\n")[0])
    parser.add_argument("--narrow", action="store_true", help="the memmaps of 1 to 10 columns only")
    common.add_result_arguments(parser, "input_memory")
    args = parser.parse_args(argv)
    output = run(args.narrow)
    common.write_results(output, markdown(output), Path(args.out), args.tag)
    return output


if __name__ == "__main__":
    main()
