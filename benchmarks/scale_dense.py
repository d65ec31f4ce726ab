"""Dense data larger than memory: a private fit on a numpy.memmap (or a Dask array) of n x 100 float64.

Issue 20. For each n in ``--sizes``, a memmap file of n x 100 is written block by block (never
held in memory); with ``--dask`` the rows are instead a Dask array generated blockwise on
demand (chunks of 100,000 rows, each from its own seeded generator; Dask's threaded scheduler),
so every pass over the data regenerates them and nothing is written. Rows are Gaussian,
scaled to norm <= 1; labels come from a fixed linear rule with 10% noise.
``PrivateERM(lam=1e-4).fit`` then runs on it: logistic objective perturbation, epsilon = 1, in a
fresh subprocess.

Measured for each fit:

- the wall time;
- the peak anonymous memory (RssAnon of /proc/self/status, polled every 50 ms; pages of the
  mapped file are page cache, not anonymous memory);
- the passes over the data (``diagnostics_.passes``, counted by the blockwise objective);
- the Newton iterations.

Targets: peak RssAnon < 2 GB, at most 15 passes, time linear in n. Files are deleted after
each run.

    python -m benchmarks.scale_dense --sizes 1250000 2500000 5000000 10000000
    python -m benchmarks.scale_dense --quick      # 200,000 and 400,000 rows
    python -m benchmarks.scale_dense --dask       # the same sizes as a Dask array
    python -m benchmarks.scale_dense --render     # the plot docs/img/scale_dense.png from the recorded JSON
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
D = 100

CHILD = r'''
import json, sys, threading, time
import numpy as np
import dpcvx

path, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
peak = [0]
def rss_anon():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) * 1024
def poll():
    while True:
        peak[0] = max(peak[0], rss_anon())
        time.sleep(0.05)
threading.Thread(target=poll, daemon=True).start()
if path == "dask":
    import dask.array as da
    CHUNK = 100_000
    sizes = tuple(min(CHUNK, n - start) for start in range(0, n, CHUNK))
    w = np.random.default_rng(0).normal(size=d)
    def rows(index):
        rng = np.random.default_rng([0, index])
        block = rng.normal(size=(sizes[index], d))
        block /= np.maximum(1.0, np.linalg.norm(block, axis=1))[:, None] * (1 + 1e-12)
        flip = rng.random(sizes[index]) < 0.1
        return block, np.where((block @ w > 0) != flip, 1.0, -1.0)
    X = da.map_blocks(lambda block_id=None: rows(block_id[0])[0], chunks=(sizes, (d,)), dtype=float)
    y = da.map_blocks(lambda block_id=None: rows(block_id[0])[1], chunks=(sizes,), dtype=float).compute()
else:
    X = np.memmap(path, dtype=np.float64, mode="r", shape=(n, d))
    y = np.load(path + ".y.npy")
baseline = rss_anon()
learner = dpcvx.PrivateERM(lam=1e-4, data_norm=1.0)
start = time.perf_counter()
model = learner.fit(X, y, 1.0, random_state=0)
seconds = time.perf_counter() - start
peak[0] = max(peak[0], rss_anon())
print(json.dumps({"n": n, "seconds": seconds, "peak_rss_anon_gb": peak[0] / 1e9,
                  "baseline_rss_anon_gb": baseline / 1e9, "solve_passes": learner.diagnostics_.passes,
                  "validation_passes": 1, "newton_iterations": learner.diagnostics_.iterations,
                  "converged": learner.diagnostics_.converged}))
'''


def write_memmap(path: str, n: int, seed: int, d: int = D) -> None:
    import numpy as np

    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    X = np.memmap(path, dtype=np.float64, mode="w+", shape=(n, d))
    y = np.empty(n)
    for start in range(0, n, 500_000):
        stop = min(start + 500_000, n)
        block = rng.normal(size=(stop - start, d))
        block /= np.maximum(1.0, np.linalg.norm(block, axis=1))[:, None] * (1 + 1e-12)
        X[start:stop] = block
        flip = rng.random(stop - start) < 0.1
        y[start:stop] = np.where((block @ w > 0) != flip, 1.0, -1.0)
    X.flush()
    del X
    np.save(path + ".y.npy", y)


def plot(output: dict, path: Path) -> None:
    """Time and peak anonymous memory against n (docs/scale.md)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = output["runs"]
    n = [run["n"] / 1e6 for run in runs]
    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    left.plot(n, [run["seconds"] for run in runs], "o-")
    left.set(xlabel="rows (millions), d = 100", ylabel="seconds (one BLAS thread)", title="time is linear in n")
    right.plot(n, [run["peak_rss_anon_gb"] for run in runs], "o-", color="C1")
    right.axhline(2.0, color="grey", linestyle="--", label="2 GB target")
    right.set(xlabel="rows (millions), d = 100", ylabel="peak RssAnon (GB)", title="peak anonymous memory")
    right.legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_250_000, 2_500_000, 5_000_000, 10_000_000])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--dir", default=tempfile.gettempdir())
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--render", action="store_true", help="only redraw the plot from the recorded JSON")
    parser.add_argument("--dask", action="store_true", help="a Dask array generated blockwise instead of a memmap")
    args = parser.parse_args(argv)
    figure = Path(__file__).resolve().parents[1] / "docs" / "img" / "scale_dense.png"
    if args.render:
        recorded = json.loads((args.out / "scale_dense.json").read_text())
        plot(recorded, figure)
        return recorded
    sizes = [200_000, 400_000] if args.quick else args.sizes
    from benchmarks import common

    record = common.RunRecord("benchmarks.scale_dense", argv)
    runs = []
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    for n in sizes:
        path = "dask" if args.dask else os.path.join(args.dir, f"dpcvx-scale-{n}.dat")
        try:
            if not args.dask:
                write_memmap(path, n, seed=0)
            result = subprocess.run([sys.executable, "-c", CHILD, path, str(n), str(D)], capture_output=True,
                                    text=True, env=env, check=True)
            runs.append(json.loads(result.stdout.strip().splitlines()[-1]))
            print(f"[scale_dense] {runs[-1]}", file=sys.stderr)
        finally:
            for leftover in (path, path + ".y.npy"):
                if os.path.exists(leftover):
                    os.remove(leftover)
    output = {"d": D, "runs": runs, "run": record.finish()}
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "scale_dense" + ("_dask" if args.dask else "") + ("_quick" if args.quick else "")
    common.write_json(args.out / f"{stem}.json", output)
    source = "Dask array generated blockwise" if args.dask else "memmap"
    lines = [f"# Dense {source} input: private logistic fit (epsilon 1, Lam 1e-4), one BLAS thread", "",
             "| n | GB as float64 | seconds | seconds per million rows | peak RssAnon (GB) "
             "| passes (validation + solve) | Newton iterations |", "|---|---|---|---|---|---|---|"]
    for run in runs:
        lines.append(f"| {run['n']:,} | {run['n'] * D * 8 / 1e9:.1f} | {run['seconds']:.1f} | "
                     f"{run['seconds'] / run['n'] * 1e6:.2f} | {run['peak_rss_anon_gb']:.2f} | "
                     f"1 + {run['solve_passes']} | {run['newton_iterations']} |")
    lines += ["", f"Command: `{output['run']['command']}`"]
    (args.out / f"{stem}.md").write_text("\n".join(lines) + "\n")
    if not args.quick and not args.dask:
        plot(output, figure)
    return output


if __name__ == "__main__":
    main()
